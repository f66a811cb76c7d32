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

#include "tests/unit/helpers.h"

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

/* Is [s, s + strlen(s)] inside the blob? */
static bool inside(const void *blob, size_t len, const char *s)
{
	const char *b = blob;

	return s >= b && s < b + len && memchr(s, '\0', (size_t)(b + len - s)) != NULL;
}

/* Flip every byte of the blob in turn (three ways): the attach either
 * refuses it or gives a view whose every string lies inside the blob, whose
 * rules sit in the list of their own kind with in-range enums, and whose
 * queries answer allow or deny. A flip in the magic is always refused, and
 * so are some of the others (the checks do run). ASan, in CI, would also
 * catch a read outside the blob. */
Test(policy_blob, corrupted_bytes_are_refused_or_give_a_view_inside_the_blob)
{
	struct policy *p = compile_ini(ini);
	size_t len, refused = 0, accepted = 0;
	void *blob = to_blob(p, &len);

	for (size_t i = 0; i < len; i++) {
		static const unsigned char xors[] = { 0x01, 0x80, 0xff };
		for (size_t x = 0; x < sizeof(xors); x++) {
			unsigned char *c = malloc(len);
			struct attached a;
			memcpy(c, blob, len);
			c[i] ^= xors[x];
			int rc = attach(c, len, &a);
			cr_assert(rc == 0 || rc == -EINVAL, "byte %zu ^ %#x: attach gave %d", i, xors[x], rc);
			if (i < 8)
				cr_assert_eq(rc, -EINVAL, "a flip in the magic (byte %zu) was accepted", i);
			if (rc) {
				refused++;
				free(a.mem);
				free(c);
				continue;
			}
			accepted++;
			cr_assert(inside(c, len, policy_workspace(a.view)), "byte %zu: workspace outside", i);
			cr_assert(inside(c, len, policy_home(a.view)), "byte %zu: home outside", i);
			cr_assert(!policy_log_path(a.view) || inside(c, len, policy_log_path(a.view)));
			cr_assert(!policy_session_dir(a.view) || inside(c, len, policy_session_dir(a.view)));
			for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
				size_t n;
				const struct sbx_rule *const *r = policy_rules(a.view, k, &n);
				for (size_t j = 0; j < n; j++) {
					cr_assert_eq(r[j]->kind, (enum sbx_rule_kind)k);
					cr_assert_leq(r[j]->origin, SBX_ORIGIN_FLAG);
					cr_assert_leq(r[j]->pat, SBX_PAT_ANYWHERE);
					cr_assert(inside(c, len, r[j]->value) && inside(c, len, r[j]->pattern) &&
						  inside(c, len, r[j]->source),
						  "byte %zu ^ %#x: a rule's string outside the blob", i, xors[x]);
					cr_assert_leq(r[j]->prefix_len, strlen(r[j]->pattern));
				}
			}
			for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
				enum sbx_verdict v = policy_check_path(a.view, SBX_OP_READ, paths[k], NULL);
				cr_assert(v == SBX_ALLOW || v == SBX_DENY);
				v = policy_check_path(a.view, SBX_OP_WRITE, paths[k], NULL);
				cr_assert(v == SBX_ALLOW || v == SBX_DENY);
			}
			enum sbx_verdict v = policy_check_domain(a.view, "github.com", 443, NULL);
			cr_assert(v == SBX_ALLOW || v == SBX_DENY);
			free(a.mem);
			free(c);
		}
	}
	/* most flips land in strings, which any bytes may fill; some must be refused */
	cr_assert_gt(refused, 8 * 3, "only %zu of %zu corruptions refused", refused, refused + accepted);
	cr_assert_gt(accepted, 0);
	free(blob);
	policy_free(p);
}

/* The offset of the u32 sequence `want[0..n)` in the blob, found by content
 * (the header's layout is the blob's own business): exactly one match, at a
 * 4-aligned offset, or the test fails. */
static size_t find_u32s(const unsigned char *blob, size_t len, const uint32_t *want, size_t n)
{
	size_t at = 0, found = 0;

	for (size_t off = 0; off + n * 4 <= len; off += 4)
		if (!memcmp(blob + off, want, n * 4)) {
			at = off;
			found++;
		}
	cr_assert_eq(found, 1, "the field sought was found %zu times", found);
	return at;
}

Test(policy_blob, hostile_headers_are_refused)
{
	struct policy *p = compile_ini(ini);
	size_t len, need, nkinds = 0;
	unsigned char *blob = to_blob(p, &len);
	unsigned char *c = malloc(len);
	struct attached a;
	uint32_t v, counts[1 + SBX_RULE_KIND_COUNT];

	/* unchanged, the copy is accepted: each refusal below is the field's */
	memcpy(c, blob, len);
	cr_assert_eq(attach(c, len, &a), 0);
	free(a.mem);
	/* wrong magic */
	c[0] = 'X';
	cr_assert_eq(attach(c, len, &a), -EINVAL);
	free(a.mem);
	/* a size field that does not match the length (the one u32 equal to it) */
	memcpy(c, blob, len);
	v = (uint32_t)len;
	size_t size_at = find_u32s(c, len, &v, 1);
	v += 1;
	memcpy(c + size_at, &v, 4);
	cr_assert_eq(attach(c, len, &a), -EINVAL);
	free(a.mem);
	/* the rule count: the total, then the count of each kind, as the
	 * policy itself has them */
	counts[0] = 0;
	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
		size_t n;
		policy_rules(p, k, &n);
		counts[1 + k] = (uint32_t)n;
		counts[0] += (uint32_t)n;
		nkinds += n != 0;
	}
	cr_assert_gt(nkinds, 3, "the sample policy should have rules of several kinds");
	memcpy(c, blob, len);
	size_t nrules_at = find_u32s(c, len, counts, 1 + SBX_RULE_KIND_COUNT);
	/* far beyond the blob: no huge allocation, a refusal */
	v = 0xffffffffu;
	memcpy(c + nrules_at, &v, 4);
	cr_assert_eq(policy_blob_attach_size(c, len, &need), -EINVAL);
	/* one more than the kinds add up to: still within the blob, refused */
	v = counts[0] + 1;
	memcpy(c + nrules_at, &v, 4);
	cr_assert_eq(attach(c, len, &a), -EINVAL);
	free(a.mem);
	/* a kind claiming more rules than there are */
	memcpy(c, blob, len);
	v = counts[0] + 1;
	memcpy(c + nrules_at + 4, &v, 4);
	cr_assert_eq(attach(c, len, &a), -EINVAL);
	free(a.mem);
	/* too little memory for the view */
	{
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

/* A literal rule of length 0 (no compiler makes one): matching it read the
 * byte before the path. Refused at attach. */
Test(policy_blob, a_literal_rule_of_length_zero_is_refused)
{
	struct policy *p = compile_ini(ini);
	size_t len, at = 0, found = 0;
	unsigned char *blob = to_blob(p, &len);
	struct attached a;

	/* the rule `allow_write = /data`: its kind, origin and kind of
	 * pattern, then three string offsets, then its length, 5 */
	for (size_t off = 0; off + 7 * 4 <= len; off += 4) {
		uint32_t u[7];
		memcpy(u, blob + off, sizeof(u));
		if (u[0] == SBX_RULE_ALLOW_WRITE && u[1] == SBX_ORIGIN_FILE && u[2] == SBX_PAT_PREFIX &&
		    u[6] == 5) {
			at = off + 6 * 4;
			found++;
		}
	}
	cr_assert_eq(found, 1, "the rule was found %zu times", found);
	cr_assert_eq(attach(blob, len, &a), 0);
	free(a.mem);
	memset(blob + at, 0, 4);
	cr_assert_eq(attach(blob, len, &a), -EINVAL);
	free(a.mem);
	free(blob);
	policy_free(p);
}
