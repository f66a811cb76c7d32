/* tests/unit/policy_blob.c: the flat policy the shim maps.
 *
 * A round trip must give the very same decisions, rules and sources; a
 * truncated, corrupted or hostile blob must be refused (-EINVAL), never read
 * out of bounds. The hostile cases run under ASan in CI.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static const char *const paths[] = {
	"/home/u/.ssh/id_ed25519", "/home/u/.ssh", "/home/u/.aws/credentials",
	"/w/src/main.c", "/w/.env", "/w/sub/.env", "/w/.git/hooks/pre-commit",
	"/w/.bashrc", "/home/u/.bashrc", "/home/u/notes.txt", "/etc/passwd",
	"/tmp/x", "/data/keep/secret.key", "/data/keep/ok.txt", "/w/a/b/c/d/e",
	"/", "/usr/bin/git", "/w/logs/app.log", "/w/.vscode/settings.json",
};

static const char *const ini =
	"[filesystem]\n"
	"allow_write = /data\n"
	"deny_read = /data/**/*.key\n"
	"deny_write = logs/\n"
	"allow_read = ~/.aws/config\n"
	"[network]\n"
	"allow_domains = github.com, *.npmjs.org:443\n"
	"deny_domains = evil.github.com\n"
	"[env]\n"
	"deny_env = AWS_*\n"
	"[report]\n"
	"log = /tmp/sbx.jsonl\n"
	"ignore_paths = /proc\n";

struct attached {
	void *blob;
	size_t len;
	void *mem;
	const struct policy *view;
};

static int attach(void *blob, size_t len, struct attached *a)
{
	size_t need;
	int rc;

	a->blob = blob;
	a->len = len;
	a->mem = NULL;
	a->view = NULL;
	if ((rc = policy_blob_attach_size(blob, len, &need)) < 0)
		return rc;
	a->mem = aligned_alloc(alignof(max_align_t),
			       (need + alignof(max_align_t) - 1) / alignof(max_align_t) *
				       alignof(max_align_t));
	cr_assert_not_null(a->mem);
	return policy_blob_attach(blob, len, a->mem, need, &a->view);
}

static void *to_blob(const struct policy *p, size_t *len)
{
	void *blob;

	cr_assert_eq(policy_to_blob(p, &blob, len), 0);
	return blob;
}

Test(policy_blob, round_trip_gives_the_same_decisions_and_rules)
{
	struct policy *p = compile_ini(ini);
	struct attached a;
	size_t len;
	void *blob = to_blob(p, &len);

	cr_assert_eq(attach(blob, len, &a), 0);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		for (int op = SBX_OP_READ; op <= SBX_OP_EXEC; op++) {
			const struct sbx_rule *w1, *w2;
			enum sbx_verdict v1 = policy_check_path(p, op, paths[i], &w1);
			enum sbx_verdict v2 = policy_check_path(a.view, op, paths[i], &w2);
			cr_assert_eq(v1, v2, "%s %s differs", sbx_op_name(op), paths[i]);
			cr_assert_eq(!w1, !w2, "%s %s: rule differs", sbx_op_name(op), paths[i]);
			if (w1) {
				cr_assert_str_eq(w1->value, w2->value);
				cr_assert_str_eq(w1->pattern, w2->pattern);
				cr_assert_str_eq(w1->source, w2->source);
				cr_assert_eq(w1->kind, w2->kind);
				cr_assert_eq(w1->origin, w2->origin);
			}
		}
	/* the rule lists, kind by kind, in order */
	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
		size_t n1, n2;
		const struct sbx_rule *const *r1 = policy_rules(p, k, &n1);
		const struct sbx_rule *const *r2 = policy_rules(a.view, k, &n2);
		cr_assert_eq(n1, n2, "%s: %zu rules, %zu after", sbx_rule_key(k), n1, n2);
		for (size_t i = 0; i < n1; i++) {
			cr_assert_str_eq(r1[i]->value, r2[i]->value);
			cr_assert_eq(r1[i]->is_dir, r2[i]->is_dir);
			cr_assert_eq(r1[i]->prefix_len, r2[i]->prefix_len);
		}
	}
	cr_assert_eq(policy_check_domain(a.view, "github.com", 443, NULL), SBX_ALLOW);
	cr_assert_eq(policy_check_domain(a.view, "evil.github.com", 443, NULL), SBX_DENY);
	cr_assert_eq(policy_check_domain(a.view, "registry.npmjs.org", 443, NULL), SBX_ALLOW);
	cr_assert_eq(policy_check_domain(a.view, "registry.npmjs.org", 80, NULL), SBX_DENY);
	cr_assert(policy_env_denied(a.view, "AWS_SECRET_ACCESS_KEY", NULL));
	cr_assert_str_eq(policy_workspace(a.view), policy_workspace(p));
	cr_assert_str_eq(policy_home(a.view), "/home/u");
	cr_assert_str_eq(policy_log_path(a.view), "/tmp/sbx.jsonl");
	cr_assert_null(policy_session_dir(a.view));
	cr_assert_eq(policy_isolation(a.view), policy_isolation(p));
	cr_assert_eq(policy_network_open(a.view), false);
	free(a.mem);
	free(blob);
	policy_free(p);
}

Test(policy_blob, scalars_survive)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = strict\nfallback = warn\n"
				       "[network]\nallow_domains = *\n"
				       "allow_local_binding = true\nhttp_proxy_port = 3128\n"
				       "[limits]\nmemory = 2G\npids = 100\n");
	struct attached a;
	size_t len;
	void *blob = to_blob(p, &len);

	cr_assert_eq(attach(blob, len, &a), 0);
	cr_assert_eq(policy_isolation(a.view), SBX_ISOLATION_STRICT);
	cr_assert_eq(policy_fallback(a.view), SBX_FALLBACK_WARN);
	cr_assert(policy_network_open(a.view));
	cr_assert(policy_allow_local_binding(a.view));
	cr_assert_eq(policy_http_proxy_port(a.view), 3128);
	cr_assert_eq(policy_limit(a.view, SBX_LIMIT_MEMORY), 2ull << 30);
	cr_assert_eq(policy_limit(a.view, SBX_LIMIT_PIDS), 100);
	cr_assert_str_eq(policy_session_dir(a.view), TEST_SESSION_DIR);
	free(a.mem);
	free(blob);
	policy_free(p);
}

Test(policy_blob, every_truncation_is_refused)
{
	struct policy *p = compile_ini(ini);
	size_t len;
	void *blob = to_blob(p, &len);

	for (size_t cut = 0; cut < len; cut++) {
		/* a copy of exactly `cut` bytes, so ASan sees any read past it */
		void *c = malloc(cut ? cut : 1);
		struct attached a;
		memcpy(c, blob, cut);
		cr_assert_eq(attach(c, cut, &a), -EINVAL, "a blob cut to %zu of %zu bytes was accepted", cut, len);
		free(a.mem);
		free(c);
	}
	free(blob);
	policy_free(p);
}

/* Flip every byte of the blob in turn: the attach either refuses it or gives
 * a view whose every string is inside the blob and whose queries run. */
Test(policy_blob, corrupted_bytes_never_read_out_of_bounds)
{
	struct policy *p = compile_ini(ini);
	size_t len;
	void *blob = to_blob(p, &len);

	for (size_t i = 0; i < len; i++) {
		static const unsigned char xors[] = { 0x01, 0x80, 0xff };
		for (size_t x = 0; x < sizeof(xors); x++) {
			unsigned char *c = malloc(len);
			struct attached a;
			memcpy(c, blob, len);
			c[i] ^= xors[x];
			if (attach(c, len, &a) == 0) {
				for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
					(void)policy_check_path(a.view, SBX_OP_READ, paths[k], NULL);
					(void)policy_check_path(a.view, SBX_OP_WRITE, paths[k], NULL);
				}
				(void)policy_check_domain(a.view, "github.com", 443, NULL);
			}
			free(a.mem);
			free(c);
		}
	}
	free(blob);
	policy_free(p);
}

Test(policy_blob, hostile_headers_are_refused)
{
	struct policy *p = compile_ini(ini);
	size_t len;
	unsigned char *blob = to_blob(p, &len);
	unsigned char *c = malloc(len);
	struct attached a;
	uint32_t v;

	/* wrong magic */
	memcpy(c, blob, len);
	c[0] = 'X';
	cr_assert_eq(attach(c, len, &a), -EINVAL);
	free(a.mem);
	/* a size field that does not match the length */
	memcpy(c, blob, len);
	memcpy(&v, c + 8, 4);
	v += 1;
	memcpy(c + 8, &v, 4);
	cr_assert_eq(attach(c, len, &a), -EINVAL);
	free(a.mem);
	/* nrules far beyond the blob: no huge allocation, a refusal */
	memcpy(c, blob, len);
	{
		size_t need;
		/* the nrules field follows magic, 7 u32s, the limits and 4 offsets */
		size_t off = (8 + 7 * 4 + 7) & ~(size_t)7; /* limits are 8-aligned */
		off += SBX_LIMIT_COUNT * 8 + 4 * 4;
		v = 0xffffffffu;
		memcpy(c + off, &v, 4);
		cr_assert_eq(policy_blob_attach_size(c, len, &need), -EINVAL);
	}
	/* too little memory for the view */
	{
		size_t need;
		const struct policy *view;
		void *mem;
		cr_assert_eq(policy_blob_attach_size(blob, len, &need), 0);
		/* (C11: the size a multiple of the alignment) */
		mem = aligned_alloc(alignof(max_align_t),
				    (need + 2 * alignof(max_align_t) - 1) / alignof(max_align_t) *
					    alignof(max_align_t));
		cr_assert_eq(policy_blob_attach(blob, len, mem, need - 1, &view), -EINVAL);
		free(mem);
	}
	free(c);
	free(blob);
	policy_free(p);
}
