/* tests/unit/policy_matcher.c: the compiled path matcher (policy/match.c)
 * gives every answer, deciding rule included, that trying every rule gave
 * (the reference: matcher_ref.h), on a large generated corpus: paths built
 * from the policies' own names and patterns (so most of them match some
 * rule), with every glob form in user rules, and names with glob
 * characters, unicode, long names, `..`, `//`, trailing `/`, other case.
 * Also through a blob's view, and with keys that all collide.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/helpers.h"
#include "tests/unit/matcher_ref.h"

/* every form a rule's value takes, in each kind that takes paths */
static const char *const every_form =
	"[filesystem]\n"
	"deny_read = .env, *.pem, id_*, *secret*, ?ecret, *.key.*, a*b*c, **/deep/x, "
	".aws/credentials, conf.d/*.conf, *.d/x, ~/proj/**/*.p12, /w/sec*/, ~/x/*/y, "
	"/etc/ssl/private, \\*.lit, .venv/, dir/, /w/a?c/*, /w/**, *, ?, "
	"verylongname_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa*, "
	"*_taillongerthanmax_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, "
	"ü*, *日本, .ENV, lit\\eral, /w/a**/q, /w/x**/tail, **/a**/q, **/**/r, **/*.d/**/end, /\n"
	"allow_read = /w/.env, ~/proj/ok.pem, /w/sec*/pub, ~/.ssh/*.pub, /w/**/public/*, .env.example\n"
	"allow_write = /data, /data/*/out, ~/proj, /w/gen-*/, ~/.cache\n"
	"deny_write = logs/, *.lock, ~/proj/build/**, /data/ro, .git/*, a/b/c, *.d\n"
	"[report]\n"
	"ignore_paths = /w/tmp, *.swp, ~/.cache/**\n";

static const char *const profile =
	"[filesystem]\n"
	"allow_write = ~/.gemini-sbx/\n"
	"deny_read = ~/.gemini-sbx/secret*\n";

static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (unsigned)(rng % n) : 0;
}

struct corpus {
	char **v;
	size_t n, cap;
};

static void add(struct corpus *c, const char *s)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		cr_assert_not_null(c->v);
	}
	c->v[c->n++] = strdup(s);
}

static void corpus_free(struct corpus *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
}

static const char *const odd_names[] = {
	"", ".", "..", "x", "X", ".Env", ".ENV", ".env~", ".env.example", "x.pem", "X.PEM",
	".pem", "pem", "id_", "id_rsa", "id_rsa.pub", "*", "?", "**", "\\", "a*b", "*.pem",
	"[x]", "üml", "ü", "日本", "x日本", "a b", "secret", "Secret", "top_secret_x",
	"conf.d", "x.d", "deep", "hooks", ".git", "config", "HEAD", "gen-1", "out", "pub",
	"public", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
};

/* A name from a pattern: its wildcards filled in (`*` with 0-3 letters,
 * sometimes a whole run of names for a double star). */
static void fill(const char *pat, char *out, size_t outsz)
{
	size_t o = 0;

	for (const char *s = pat; *s && o + 16 < outsz; s++) {
		if (s[0] == '*' && s[1] == '*') {
			s++;
			for (unsigned k = rnd(3); k > 0; k--)
				o += (size_t)snprintf(out + o, outsz - o, "d%u/", rnd(3));
			if (s[1] == '/')
				s++;
		} else if (*s == '*') {
			for (unsigned k = rnd(4); k > 0; k--)
				out[o++] = (char)('a' + rnd(3));
		} else if (*s == '?') {
			out[o++] = (char)('a' + rnd(26));
		} else if (*s == '\\' && s[1] && rnd(2)) {
			out[o++] = *++s;
		} else {
			out[o++] = *s;
		}
	}
	out[o] = '\0';
}

static void name_from(const struct policy *p, char *out, size_t outsz)
{
	unsigned pick = rnd(3);

	if (pick == 0) {
		snprintf(out, outsz, "%s", odd_names[rnd(ARRAY_LEN(odd_names))]);
		return;
	}
	/* a rule's any-depth pattern, or a component of an absolute one */
	size_t n;
	enum sbx_rule_kind kinds[] = { SBX_RULE_DENY_READ, SBX_RULE_MANDATORY,
				       SBX_RULE_DENY_WRITE, SBX_RULE_HOME_KEPT };
	const struct sbx_rule *const *r = policy_rules(p, kinds[rnd(4)], &n);
	if (!n) {
		snprintf(out, outsz, "n%u", rnd(10));
		return;
	}
	const struct sbx_rule *x = r[rnd((unsigned)n)];
	char filled[PATH_MAX];
	fill(x->pattern, filled, sizeof(filled));
	if (x->pat == SBX_PAT_ANYWHERE) {
		snprintf(out, outsz, "%s", filled);
		if (rnd(4) == 0 && out[0]) /* another case */
			out[0] = (char)(out[0] ^ 0x20);
		return;
	}
	char *c = strrchr(filled, '/');
	snprintf(out, outsz, "%s", c ? c + 1 : filled);
}

static void gen_paths(const struct policy *p, struct corpus *c, size_t want)
{
	static const char *const bases[] = { "/", "/w", "/w/src", "/home/u", "/home/u/proj",
					      "/data", "/data/x", "/etc", "/tmp", TEST_SESSION_DIR,
					      "/home/u/.gemini-sbx", "/home/u/.config" };
	char path[PATH_MAX], name[PATH_MAX];

	while (c->n < want) {
		size_t o;
		if (rnd(2)) {
			snprintf(path, sizeof(path), "%s", bases[rnd(ARRAY_LEN(bases))]);
		} else {
			/* a rule's own absolute pattern, filled in */
			enum sbx_rule_kind k = (enum sbx_rule_kind)rnd(SBX_RULE_KIND_COUNT);
			size_t n;
			const struct sbx_rule *const *r = policy_rules(p, k, &n);
			if (!n || r[0]->pat == SBX_PAT_ANYWHERE || k == SBX_RULE_ALLOW_DOMAIN ||
			    k == SBX_RULE_DENY_DOMAIN || k == SBX_RULE_IGNORE_DOMAIN ||
			    k == SBX_RULE_DENY_ENV || k == SBX_RULE_SET_ENV ||
			    k == SBX_RULE_HOST_PORT || k == SBX_RULE_PROFILE_ARG ||
			    k == SBX_RULE_KEEP_ENV)
				continue;
			const struct sbx_rule *x = r[rnd((unsigned)n)];
			if (x->pat == SBX_PAT_ANYWHERE)
				continue;
			fill(x->pattern, path, sizeof(path));
			if (rnd(4) == 0 && strlen(path) > 2) /* cut it short */
				path[rnd((unsigned)strlen(path))] = '\0';
		}
		o = strlen(path);
		for (unsigned d = rnd(6); d > 0 && o < 3000; d--) {
			name_from(p, name, sizeof(name));
			unsigned sep = rnd(40);
			o += (size_t)snprintf(path + o, sizeof(path) - o, "%s%s",
					      sep == 0 ? "//" : sep == 1 ? "/../" : "/", name);
		}
		if (rnd(20) == 0)
			snprintf(path + strlen(path), sizeof(path) - strlen(path), "/");
		add(c, path[0] ? path : "/");
	}
}

static void compare(const struct policy *p, const struct policy *view, const struct corpus *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const char *t = c->v[i];
		for (enum sbx_op op = SBX_OP_READ; op <= SBX_OP_EXEC; op++) {
			const struct sbx_rule *want, *got;
			enum sbx_verdict vw = ref_check_path(p, op, t, &want);
			enum sbx_verdict vg = policy_check_path(p, op, t, &got);
			cr_assert(vw == vg && want == got,
				  "%s %s: trying every rule gave %s by %s (%s), the matcher %s by %s (%s)",
				  sbx_op_name(op), t, VERDICT_NAME(vw), want ? want->pattern : "-",
				  want ? sbx_rule_key(want->kind) : "", VERDICT_NAME(vg),
				  got ? got->pattern : "-", got ? sbx_rule_key(got->kind) : "");
			if (view) {
				vg = policy_check_path(view, op, t, &got);
				cr_assert(vw == vg && ref_rule_pos(p, want) == ref_rule_pos(view, got),
					  "%s %s: the blob's view disagrees", sbx_op_name(op), t);
			}
		}
		cr_assert_eq(ref_ignored(p, t), policy_report_ignored(p, true, t), "ignore %s", t);
	}
}

static struct policy *view_of(const struct policy *p, void **blob, void **mem)
{
	size_t len, need;
	const struct policy *v;

	cr_assert_eq(policy_to_blob(p, blob, &len), 0);
	cr_assert_eq(policy_blob_attach_size(*blob, len, &need), 0);
	cr_assert_eq(posix_memalign(mem, 64, need), 0);
	cr_assert_eq(policy_blob_attach(*blob, len, *mem, need, &v), 0);
	return (struct policy *)v;
}

static void differential(struct policy *p, size_t npaths)
{
	struct corpus c = { 0 };
	void *blob, *mem;
	struct policy *view = view_of(p, &blob, &mem);

	gen_paths(p, &c, npaths);
	compare(p, view, &c);
	corpus_free(&c);
	free(mem);
	free(blob);
	policy_free(p);
}

Test(policy_matcher, agrees_with_trying_every_rule_on_the_builtin_policy)
{
	differential(compile_ini(NULL), 30000);
}

Test(policy_matcher, agrees_with_trying_every_rule_with_every_glob_form)
{
	differential(compile_ini(every_form), 30000);
}

Test(policy_matcher, agrees_in_strict_isolation_with_an_agent_profile)
{
	struct policy_builder *b = builder_ini("[sandbox]\nisolation = strict\n");
	struct sbx_err err;

	cr_assert_eq(policy_builder_load_string(b, profile, "profile", POLICY_LAYER_PROFILE, &err), 0,
		     "%s", err.msg);
	differential(compile_builder(b), 20000);
}

/* `n` user rules of random forms, deny_read and deny_write */
static char *random_rules(unsigned n)
{
	/* a form: what goes before the number, and after it */
	static const char *const forms[][2] = { { "name", "" }, { "*.ext", "" }, { "pre", "_*" },
						{ "*mid", "*" }, { "d", "/f" }, { "/w/p", "" },
						{ "/w/g", "/*.x" }, { "~/h", "" }, { "~/h/**/k", "" },
						{ "?n", "" }, { "n", "*x" }, { "/w/**/q", "" } };
	size_t cap = 64 + (size_t)n * 64, o = 0;
	char *s = malloc(cap);

	o += (size_t)snprintf(s + o, cap - o, "[filesystem]\n");
	for (unsigned i = 0; i < n; i++) {
		char v[64];
		snprintf(v, sizeof(v), "%s%u%s", forms[i % ARRAY_LEN(forms)][0], i,
			 forms[i % ARRAY_LEN(forms)][1]);
		o += (size_t)snprintf(s + o, cap - o, "%s = %s\n", i % 3 ? "deny_read" : "deny_write", v);
	}
	return s;
}

Test(policy_matcher, agrees_with_a_hundred_user_rules)
{
	char *ini = random_rules(100);

	differential(compile_ini(ini), 30000);
	free(ini);
}

/* A hundred names a user denies (`deny_read = .env` and the like): the
 * path of an ordinary file finds only the rules its own names key, a few
 * of the built-in ones, not the hundred. */
Test(policy_matcher, a_path_finds_only_the_rules_its_names_key)
{
	char *ini = random_rules(1200);
	struct policy *p = compile_ini(ini);
	struct match_hits h;
	size_t every = 0;

	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++)
		every += p->nby_kind[k];
	match_collect(&p->match, "/w/src/lib/main.c", strlen("/w/src/lib/main.c"), &h);
	cr_assert(!h.all);
	cr_assert_leq(h.n, 4, "%u of %zu rules found for an ordinary path", h.n, every);
	match_collect(&p->match, "/w/name12/x", strlen("/w/name12/x"), &h);
	bool found = false;
	for (uint32_t i = 0; i < h.n; i++)
		found |= !strcmp(p->match.flat[h.v[i]]->pattern, "name12");
	cr_assert(found, "the rule `name12` was not found for /w/name12/x");
	policy_free(p);
	free(ini);
}

/* A path made of one protected name, a thousand times over (a name the
 * sandboxed program may create at every level): its rules are found once
 * each, and the answer is the first level's. */
Test(policy_matcher, a_name_repeated_finds_its_rules_once)
{
	struct policy *p = compile_ini(every_form);
	char path[PATH_MAX] = "";
	struct match_hits h;

	while (strlen(path) + 6 < sizeof(path))
		strcat(path, "/x.pem");
	match_collect(&p->match, path, strlen(path), &h);
	cr_assert(!h.all);
	cr_assert_leq(h.n, 8, "%u rules found", h.n);
	const struct sbx_rule *want, *got;
	cr_assert_eq(policy_check_path(p, SBX_OP_READ, path, &got),
		     ref_check_path(p, SBX_OP_READ, path, &want));
	cr_assert_eq(got, want);
	cr_assert_str_eq(got->pattern, "*.pem");
	policy_free(p);
}

/* A path that finds more rules than a query keeps is judged by trying
 * them all: the same answers. */
Test(policy_matcher, a_path_finding_every_rule_is_judged_by_all_of_them)
{
	char ini[16384] = "[filesystem]\ndeny_read = ", path[PATH_MAX] = "/w";
	size_t o = strlen(ini);
	struct match_hits h;

	for (unsigned i = 0; i < 600; i++) {
		o += (size_t)snprintf(ini + o, sizeof(ini) - o, "%sn%u", i ? ", " : "", i);
		if (i % 4 == 1)
			snprintf(path + strlen(path), sizeof(path) - strlen(path), "/n%u", i);
	}
	snprintf(ini + o, sizeof(ini) - o, "\n");
	struct policy *p = compile_ini(ini);
	match_collect(&p->match, path, strlen(path), &h);
	cr_assert(h.all, "%u rules found, none dropped", h.n);
	const struct sbx_rule *want, *got;
	cr_assert_eq(policy_check_path(p, SBX_OP_READ, path, &got),
		     ref_check_path(p, SBX_OP_READ, path, &want));
	cr_assert_eq(got, want);
	cr_assert_str_eq(got->pattern, "n597"); /* the longest match */
	policy_free(p);
}

/* Two thousand names from a project's sandbox.ini (whoever wrote the
 * repository): the table is seeded, so they spread, and a lookup probes
 * no further than the longest run the build made. Rebuilt with fixed
 * seeds so the figure does not depend on the run. */
Test(policy_matcher, many_keys_keep_lookups_short)
{
	char *ini = random_rules(2000);
	struct policy *p = compile_ini_project(NULL, ini);
	struct corpus c = { 0 };

	for (uint64_t seed = 1; seed <= 4; seed++) {
		match_build(&p->match, p->match_mem, p->match.flat, p->nby_kind,
			    seed * 0x9e3779b97f4a7c15ull);
		cr_assert_leq(p->match.probe, 24, "seed %llu: a run of %u slots",
			      (unsigned long long)seed, p->match.probe);
	}
	gen_paths(p, &c, 5000);
	compare(p, NULL, &c);
	corpus_free(&c);
	policy_free(p);
	free(ini);
}
