/* tests/fuzz/matcher.c: libFuzzer harness for the compiled path matcher
 * (`make fuzz`): the input is rules, a blank line, then paths, one a line.
 * The rules (each line `deny_read = X`, `allow_write = X`, ... as a user's
 * sandbox.ini says them, on top of the built-in policy; `[report]` then
 * `ignore_paths = X` too) are compiled; every
 * path must get the answer and the deciding rule that trying every rule
 * gives (tests/unit/matcher_ref.h), from the policy and from its blob's
 * view. A policy that does not compile is skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/matcher_ref.h"

static const struct policy_ctx ctx = {
	.home = "/home/u",
	.cwd = "/w",
	.session_dir = "/home/u/.local/state/sbx/sessions/f-1",
};

static void same(const struct policy *p, const struct policy *view, const char *t)
{
	for (enum sbx_op op = SBX_OP_READ; op <= SBX_OP_EXEC; op++) {
		const struct sbx_rule *want, *got, *vgot;
		enum sbx_verdict vw = ref_check_path(p, op, t, &want);
		if (policy_check_path(p, op, t, &got) != vw || got != want) {
			fprintf(stderr, "%s %s: every rule says %s, the matcher %s\n", sbx_op_name(op),
				t, want ? want->pattern : "-", got ? got->pattern : "-");
			abort();
		}
		if (policy_check_path(view, op, t, &vgot) != vw ||
		    ref_rule_pos(view, vgot) != ref_rule_pos(p, want))
			abort();
	}
	if (policy_report_ignored(p, true, t) != ref_ignored(p, t))
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1), *paths, *ini = NULL;
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err;
	void *blob = NULL, *mem = NULL;
	size_t len, need;
	const struct policy *view;

	memcpy(text, data, size);
	text[size] = '\0';
	if (strlen(text) != size)
		goto out; /* a NUL: no path or rule holds one */
	paths = strstr(text, "\n\n");
	if (!paths)
		goto out;
	*paths = '\0';
	paths += 2;
	if (!(ini = malloc(strlen(text) + 64)))
		goto out;
	/* a `[report]` line of the input's own moves on to ignore_paths */
	sprintf(ini, "[filesystem]\n%s\n", text);
	if (policy_builder_new(&ctx, &b) ||
	    policy_builder_load_string(b, ini, "fuzz.ini", POLICY_LAYER_USER, &err))
		goto out;
	if (policy_compile(b, &p, &err)) {
		b = NULL; /* consumed */
		goto out;
	}
	b = NULL;
	if (policy_to_blob(p, &blob, &len) || policy_blob_attach_size(blob, len, &need) ||
	    posix_memalign(&mem, 64, need) || policy_blob_attach(blob, len, mem, need, &view))
		abort(); /* a compiled policy always makes a blob its view accepts */
	for (char *t = paths, *e; *t; t = e) {
		e = strchrnul(t, '\n');
		char c = *e;
		*e = '\0';
		if (t[0] == '/')
			same(p, view, t);
		*e = c;
		if (*e)
			e++;
	}
out:
	free(mem);
	free(blob);
	policy_free(p);
	policy_builder_free(b);
	free(ini);
	free(text);
	return 0;
}
