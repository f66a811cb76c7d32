/* tests/unit/policy_paths.c: how a path as written becomes a pattern, and
 * what a pattern matches (docs/POLICY.md "Paths"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"

/* The compiled pattern of the one rule of `kind` written as `value`. */
static const struct sbx_rule *rule(const struct policy *p, enum sbx_rule_kind kind,
				   const char *value)
{
	const struct sbx_rule *r = find_rule(p, kind, value);

	cr_assert_not_null(r, "no %s rule written as \"%s\"", sbx_rule_key(kind), value);
	return r;
}

/* Expansion: value as written → pattern. */

struct expand_case {
	const char *ini;   /* one allow_write / deny_read line, in its section */
	enum sbx_rule_kind kind;
	const char *value; /* as written */
	const char *pattern;
	enum sbx_pat pat;
};

ParameterizedTestParameters(policy_paths, value_expands_to_pattern)
{
	static struct expand_case cases[] = {
		{ "[filesystem]\nallow_write = /srv/data\n", SBX_RULE_ALLOW_WRITE,
		  "/srv/data", "/srv/data", SBX_PAT_PREFIX },
		{ "[filesystem]\nallow_write = ~\n", SBX_RULE_ALLOW_WRITE,
		  "~", "/home/u", SBX_PAT_PREFIX },
		{ "[filesystem]\nallow_write = ~/data\n", SBX_RULE_ALLOW_WRITE,
		  "~/data", "/home/u/data", SBX_PAT_PREFIX },
		{ "[filesystem]\ndeny_read = ~/.secret\n", SBX_RULE_DENY_READ,
		  "~/.secret", "/home/u/.secret", SBX_PAT_PREFIX },
		/* a `/` inside: relative to the workspace */
		{ "[filesystem]\nallow_write = build/out\n", SBX_RULE_ALLOW_WRITE,
		  "build/out", "/w/build/out", SBX_PAT_PREFIX },
		{ "[filesystem]\nallow_write = ./x\n", SBX_RULE_ALLOW_WRITE,
		  "./x", "/w/x", SBX_PAT_PREFIX },
		{ "[filesystem]\nallow_write = ../y\n", SBX_RULE_ALLOW_WRITE,
		  "../y", "/y", SBX_PAT_PREFIX },
		{ "[filesystem]\ndeny_read = conf/secret\n", SBX_RULE_DENY_READ,
		  "conf/secret", "/w/conf/secret", SBX_PAT_PREFIX },
		/* a bare name in an allow key: relative to the workspace */
		{ "[filesystem]\nallow_write = out\n", SBX_RULE_ALLOW_WRITE,
		  "out", "/w/out", SBX_PAT_PREFIX },
		{ "[filesystem]\nallow_write = .\n", SBX_RULE_ALLOW_WRITE,
		  ".", "/w", SBX_PAT_PREFIX },
		{ "[filesystem]\nallow_read = out/\n", SBX_RULE_ALLOW_READ,
		  "out/", "/w/out", SBX_PAT_PREFIX },
		/* a bare name in a deny key: any depth */
		{ "[filesystem]\ndeny_read = .env.local\n", SBX_RULE_DENY_READ,
		  ".env.local", ".env.local", SBX_PAT_ANYWHERE },
		{ "[filesystem]\ndeny_write = *.pem\n", SBX_RULE_DENY_WRITE,
		  "*.pem", "*.pem", SBX_PAT_ANYWHERE },
		{ "[filesystem]\ndeny_read = secrets/\n", SBX_RULE_DENY_READ,
		  "secrets/", "secrets", SBX_PAT_ANYWHERE },
		/* folding */
		{ "[filesystem]\nallow_write = /srv/./a/../b//c/\n", SBX_RULE_ALLOW_WRITE,
		  "/srv/./a/../b//c/", "/srv/b/c", SBX_PAT_PREFIX },
		{ "[filesystem]\nallow_write = //srv///d\n", SBX_RULE_ALLOW_WRITE,
		  "//srv///d", "/srv/d", SBX_PAT_PREFIX },
		{ "[filesystem]\nallow_write = /../srv/e\n", SBX_RULE_ALLOW_WRITE,
		  "/../srv/e", "/srv/e", SBX_PAT_PREFIX },
		{ "[filesystem]\nallow_write = ~/a/../b\n", SBX_RULE_ALLOW_WRITE,
		  "~/a/../b", "/home/u/b", SBX_PAT_PREFIX },
		/* globs */
		{ "[filesystem]\ndeny_read = /srv/*.key\n", SBX_RULE_DENY_READ,
		  "/srv/*.key", "/srv/*.key", SBX_PAT_GLOB },
		{ "[filesystem]\ndeny_read = ~/**/*.pem\n", SBX_RULE_DENY_READ,
		  "~/**/*.pem", "/home/u/**/*.pem", SBX_PAT_GLOB },
	};
	return cr_make_param_array(struct expand_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct expand_case *c, policy_paths, value_expands_to_pattern)
{
	struct policy *p = compile_ini(c->ini);
	const struct sbx_rule *r = rule(p, c->kind, c->value);

	cr_assert_str_eq(r->pattern, c->pattern, "\"%s\" became \"%s\", expected \"%s\"",
			 c->value, r->pattern, c->pattern);
	cr_assert_eq(r->pat, c->pat, "\"%s\": pat %d, expected %d", c->value, r->pat, c->pat);
	policy_free(p);
}

Test(policy_paths, trailing_slash_marks_a_directory)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = secrets/, /srv/x\n");

	cr_assert_eq(rule(p, SBX_RULE_DENY_READ, "secrets/")->is_dir, true);
	cr_assert_eq(rule(p, SBX_RULE_DENY_READ, "/srv/x")->is_dir, false);
	policy_free(p);
}

Test(policy_paths, prefix_length_is_the_pattern_length)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = ~/.secret\n");
	const struct sbx_rule *r = rule(p, SBX_RULE_DENY_READ, "~/.secret");

	cr_assert_eq(r->prefix_len, strlen("/home/u/.secret"));
	policy_free(p);
}

/* Relative paths follow the workspace wherever it is set. */

Test(policy_paths, relative_path_follows_workspace_set_in_the_file)
{
	struct policy *p = compile_ini("[sandbox]\nworkspace = /other\n"
				       "[filesystem]\nallow_write = ./x\nallow_read = y/z\n");

	cr_assert_str_eq(rule(p, SBX_RULE_ALLOW_WRITE, "./x")->pattern, "/other/x");
	cr_assert_str_eq(rule(p, SBX_RULE_ALLOW_READ, "y/z")->pattern, "/other/y/z");
	policy_free(p);
}

Test(policy_paths, relative_path_follows_workspace_set_later_in_the_file)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = ./x\n"
				       "[sandbox]\nworkspace = /other\n");

	cr_assert_str_eq(rule(p, SBX_RULE_ALLOW_WRITE, "./x")->pattern, "/other/x");
	policy_free(p);
}

Test(policy_paths, relative_path_follows_workspace_set_by_flag)
{
	struct policy_builder *b = builder_ini("[filesystem]\nallow_write = ./x, out\n");

	builder_set(b, "sandbox", "workspace", "/other", SBX_ORIGIN_FLAG, "--workspace");
	struct policy *p = compile_builder(b);
	cr_assert_str_eq(policy_workspace(p), "/other");
	cr_assert_str_eq(rule(p, SBX_RULE_ALLOW_WRITE, "./x")->pattern, "/other/x");
	cr_assert_str_eq(rule(p, SBX_RULE_ALLOW_WRITE, "out")->pattern, "/other/out");
	assert_verdict(p, SBX_OP_WRITE, "/other/src/a.c", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/w/src/a.c", SBX_DENY);
	policy_free(p);
}

Test(policy_paths, relative_flag_path_is_against_the_workspace)
{
	struct policy_builder *b = builder_ini("[sandbox]\nworkspace = /other\n");

	builder_set(b, "filesystem", "deny_write", "vendor/lib", SBX_ORIGIN_FLAG, "--deny-write");
	struct policy *p = compile_builder(b);
	cr_assert_str_eq(rule(p, SBX_RULE_DENY_WRITE, "vendor/lib")->pattern, "/other/vendor/lib");
	policy_free(p);
}

struct workspace_case {
	const char *value;
	const char *workspace;
};

ParameterizedTestParameters(policy_paths, workspace_value_expands)
{
	static struct workspace_case cases[] = {
		{ "/srv/proj", "/srv/proj" },
		{ "/srv/proj/", "/srv/proj" },
		{ "/srv/./proj/../proj2", "/srv/proj2" },
		{ ".", "/w" },
		{ "sub", "/w/sub" },
		{ "sub/dir", "/w/sub/dir" },
		{ "~", "/home/u" },
		{ "~/proj", "/home/u/proj" },
	};
	return cr_make_param_array(struct workspace_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct workspace_case *c, policy_paths, workspace_value_expands)
{
	char ini[256];

	snprintf(ini, sizeof(ini), "[sandbox]\nworkspace = %s\n", c->value);
	struct policy *p = compile_ini(ini);
	cr_assert_str_eq(policy_workspace(p), c->workspace, "workspace = %s", c->value);
	policy_free(p);
}

Test(policy_paths, builder_reports_the_workspace_it_will_use)
{
	struct policy_builder *b = builder_ini(NULL);

	cr_assert_str_eq(policy_builder_workspace(b), "/w");
	builder_set(b, "sandbox", "workspace", "/other/proj", SBX_ORIGIN_FLAG, "--workspace");
	cr_assert_str_eq(policy_builder_workspace(b), "/other/proj");
	policy_builder_free(b);
}

Test(policy_paths, builder_reports_the_workspace_from_the_file)
{
	struct policy_builder *b = builder_ini("[sandbox]\nworkspace = /srv/proj\n");

	cr_assert_str_eq(policy_builder_workspace(b), "/srv/proj");
	policy_builder_free(b);
}

Test(policy_paths, log_path_expands_tilde)
{
	struct policy *p = compile_ini("[report]\nlog = ~/audit.jsonl\n");

	cr_assert_not_null(policy_log_path(p));
	cr_assert_str_eq(policy_log_path(p), "/home/u/audit.jsonl");
	policy_free(p);
}

/* Bare names in deny keys match at any depth, `/` inside anchors them. */

struct match_case {
	const char *ini;
	enum sbx_op op;
	const char *path;
	enum sbx_verdict expect;
};

ParameterizedTestParameters(policy_paths, rule_matching)
{
	static struct match_case cases[] = {
		/* bare name in deny_read: any depth, and beneath it */
		{ "[filesystem]\ndeny_read = token.txt\n", SBX_OP_READ, "/w/token.txt", SBX_DENY },
		{ "[filesystem]\ndeny_read = token.txt\n", SBX_OP_READ, "/w/a/b/token.txt", SBX_DENY },
		{ "[filesystem]\ndeny_read = token.txt\n", SBX_OP_READ, "/home/u/token.txt", SBX_DENY },
		{ "[filesystem]\ndeny_read = token.txt\n", SBX_OP_READ, "/token.txt", SBX_DENY },
		{ "[filesystem]\ndeny_read = token.txt\n", SBX_OP_READ, "/w/token.txt/inner", SBX_DENY },
		{ "[filesystem]\ndeny_read = token.txt\n", SBX_OP_READ, "/w/token.txt.bak", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = token.txt\n", SBX_OP_READ, "/w/mytoken.txt", SBX_ALLOW },
		/* bare glob in deny_write */
		{ "[filesystem]\ndeny_write = *.pem\n", SBX_OP_WRITE, "/w/key.pem", SBX_DENY },
		{ "[filesystem]\ndeny_write = *.pem\n", SBX_OP_WRITE, "/w/certs/deep/key.pem", SBX_DENY },
		{ "[filesystem]\ndeny_write = *.pem\n", SBX_OP_WRITE, "/w/key.pem.txt", SBX_ALLOW },
		{ "[filesystem]\ndeny_write = *.pem\n", SBX_OP_WRITE, "/w/pem", SBX_ALLOW },
		/* bare directory name */
		{ "[filesystem]\ndeny_read = secrets/\n", SBX_OP_READ, "/w/x/secrets/a", SBX_DENY },
		{ "[filesystem]\ndeny_read = secrets/\n", SBX_OP_READ, "/w/x/secretsauce", SBX_ALLOW },
		/* a `/` inside a deny value anchors it to the workspace */
		{ "[filesystem]\ndeny_read = conf/secret\n", SBX_OP_READ, "/w/conf/secret", SBX_DENY },
		{ "[filesystem]\ndeny_read = conf/secret\n", SBX_OP_READ, "/w/x/conf/secret", SBX_ALLOW },
		/* a bare name in an allow key is the workspace's, not any depth */
		{ "[sandbox]\nisolation = custom\n[filesystem]\nallow_write = out\n",
		  SBX_OP_WRITE, "/w/out/f", SBX_ALLOW },
		{ "[sandbox]\nisolation = custom\n[filesystem]\nallow_write = out\n",
		  SBX_OP_WRITE, "/w/sub/out/f", SBX_DENY },
		{ "[sandbox]\nisolation = custom\n[filesystem]\nallow_write = out\n",
		  SBX_OP_WRITE, "/srv/out/f", SBX_DENY },
		/* `*` stays in one component */
		{ "[filesystem]\ndeny_read = /srv/*.key\n", SBX_OP_READ, "/srv/a.key", SBX_DENY },
		{ "[filesystem]\ndeny_read = /srv/*.key\n", SBX_OP_READ, "/srv/a.key/inner", SBX_DENY },
		{ "[filesystem]\ndeny_read = /srv/*.key\n", SBX_OP_READ, "/srv/sub/a.key", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = /srv/*.key\n", SBX_OP_READ, "/srv/a.keys", SBX_ALLOW },
		/* `?` is one character of one component */
		{ "[filesystem]\ndeny_read = /srv/log?.txt\n", SBX_OP_READ, "/srv/log1.txt", SBX_DENY },
		{ "[filesystem]\ndeny_read = /srv/log?.txt\n", SBX_OP_READ, "/srv/log12.txt", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = /srv/log?.txt\n", SBX_OP_READ, "/srv/log.txt", SBX_ALLOW },
		/* `**` crosses components, also none */
		{ "[filesystem]\ndeny_read = /srv/**/id\n", SBX_OP_READ, "/srv/a/b/c/id", SBX_DENY },
		{ "[filesystem]\ndeny_read = /srv/**/id\n", SBX_OP_READ, "/srv/id", SBX_DENY },
		{ "[filesystem]\ndeny_read = /srv/**/id\n", SBX_OP_READ, "/srv/a/id/x", SBX_DENY },
		{ "[filesystem]\ndeny_read = /srv/**/id\n", SBX_OP_READ, "/srv/a/idx", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = /srv/**/id\n", SBX_OP_READ, "/opt/srv/a/id", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = ~/**/*.pem\n", SBX_OP_READ, "/home/u/a/b/c.pem", SBX_DENY },
		{ "[filesystem]\ndeny_read = ~/**/*.pem\n", SBX_OP_READ, "/srv/c.pem", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = ~/**/*.pem\n", SBX_OP_READ, "/home/u/c.pem", SBX_DENY },
		{ "[filesystem]\ndeny_read = /srv/**\n", SBX_OP_READ, "/srv/a/b", SBX_DENY },
		{ "[filesystem]\ndeny_read = /srv/**\n", SBX_OP_READ, "/srvx/a", SBX_ALLOW },
		/* a rule matches beneath its path, never a sibling sharing a prefix */
		{ "[filesystem]\ndeny_read = /w/a\n", SBX_OP_READ, "/w/a", SBX_DENY },
		{ "[filesystem]\ndeny_read = /w/a\n", SBX_OP_READ, "/w/a/b/c", SBX_DENY },
		{ "[filesystem]\ndeny_read = /w/a\n", SBX_OP_READ, "/w/ab", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = /w/a\n", SBX_OP_READ, "/w/a.txt", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = /w/a\n", SBX_OP_READ, "/w", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = /w/a/\n", SBX_OP_READ, "/w/ab", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = /w/a/\n", SBX_OP_READ, "/w/a/b", SBX_DENY },
		/* the root matches everything */
		{ "[sandbox]\nisolation = custom\n[filesystem]\nallow_write = /\n",
		  SBX_OP_WRITE, "/srv/x", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = /\n", SBX_OP_READ, "/etc/passwd", SBX_DENY },
	};
	return cr_make_param_array(struct match_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct match_case *c, policy_paths, rule_matching)
{
	struct policy *p = compile_ini(c->ini);
	enum sbx_verdict got = check(p, c->op, c->path);

	cr_assert_eq(got, c->expect, "%s %s: got %s, expected %s, with\n%s",
		     sbx_op_name(c->op), c->path, VERDICT_NAME(got),
		     VERDICT_NAME(c->expect), c->ini);
	policy_free(p);
}

Test(policy_paths, rule_matches_its_path_and_beneath_not_siblings)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /w/a\n");
	const struct sbx_rule *r = rule(p, SBX_RULE_DENY_READ, "/w/a");

	cr_assert(policy_rule_matches(r, "/w/a"));
	cr_assert(policy_rule_matches(r, "/w/a/b"));
	cr_assert_not(policy_rule_matches(r, "/w/ab"));
	cr_assert_not(policy_rule_matches(r, "/w"));
	cr_assert_not(policy_rule_matches(r, "/x/w/a"));
	policy_free(p);
}

Test(policy_paths, deny_value_with_a_slash_inside_is_anchored_to_the_workspace)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = .git/hooks\n");
	const struct sbx_rule *r = rule(p, SBX_RULE_DENY_READ, ".git/hooks");

	cr_assert_eq(r->pat, SBX_PAT_PREFIX);
	cr_assert_str_eq(r->pattern, "/w/.git/hooks");
	cr_assert(policy_rule_matches(r, "/w/.git/hooks/pre-commit"));
	cr_assert_not(policy_rule_matches(r, "/w/sub/.git/hooks/pre-commit"));
	policy_free(p);
}

Test(policy_paths, anywhere_rule_matches_whole_components)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = id_rsa\n");
	const struct sbx_rule *r = rule(p, SBX_RULE_DENY_READ, "id_rsa");

	cr_assert(policy_rule_matches(r, "/id_rsa"));
	cr_assert(policy_rule_matches(r, "/a/b/id_rsa"));
	cr_assert(policy_rule_matches(r, "/a/id_rsa/b"));
	cr_assert_not(policy_rule_matches(r, "/a/my_id_rsa"));
	cr_assert_not(policy_rule_matches(r, "/a/id_rsa.pub"));
	policy_free(p);
}

/* Symlinks of existing paths are resolved; the value as written stays. */

Test(policy_paths, existing_symlink_is_resolved_value_kept)
{
	char *dir = make_tmpdir();
	char real[4096], link[4096], ini[8400], inside[4200], pattern[4200];

	snprintf(real, sizeof(real), "%s/real", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	cr_assert_eq(mkdir(real, 0700), 0);
	cr_assert_eq(symlink("real", link), 0);
	snprintf(ini, sizeof(ini), "[filesystem]\ndeny_read = %s\n", link);
	struct policy *p = compile_ini(ini);
	remove_tree(dir);

	const struct sbx_rule *r = rule(p, SBX_RULE_DENY_READ, link);
	snprintf(pattern, sizeof(pattern), "%s/real", dir);
	cr_assert_str_eq(r->pattern, pattern);
	snprintf(inside, sizeof(inside), "%s/real/f", dir);
	const struct sbx_rule *why = check_why(p, SBX_OP_READ, inside, SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_str_eq(why->value, link);
	policy_free(p);
	free(dir);
}

Test(policy_paths, missing_path_is_not_resolved)
{
	/* /w does not exist: nothing to resolve, the pattern is the folded text. */
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /w/not/there\n");

	cr_assert_str_eq(rule(p, SBX_RULE_DENY_READ, "/w/not/there")->pattern, "/w/not/there");
	policy_free(p);
}

/* The resolver walks a path once from the left (one readlink per
 * component) and remembers resolved directories for the next rule: the
 * patterns must be what the kernel would reach, whatever the order. */
static void deny_pattern_is(const char *dir, const char *written, const char *want)
{
	char ini[9000], w[4200], exp[4200];

	snprintf(w, sizeof(w), "%s/%s", dir, written);
	snprintf(exp, sizeof(exp), "%s/%s", dir, want);
	snprintf(ini, sizeof(ini), "[filesystem]\ndeny_read = %s\n", w);
	struct policy *p = compile_ini(ini);
	cr_assert_str_eq(rule(p, SBX_RULE_DENY_READ, w)->pattern, exp, "%s", written);
	policy_free(p);
}

Test(policy_paths, resolver_follows_links_at_any_depth_and_keeps_the_missing_rest)
{
	char *dir = make_tmpdir();
	char p[4200];

#define AT(x) (snprintf(p, sizeof(p), "%s/%s", dir, x), p)
	cr_assert_eq(mkdir(AT("a"), 0700), 0);
	cr_assert_eq(mkdir(AT("a/b"), 0700), 0);
	cr_assert_eq(mkdir(AT("z"), 0700), 0);
	cr_assert_eq(symlink("a/b", AT("rel")), 0);      /* relative, two levels */
	char z[4200];
	snprintf(z, sizeof(z), "%s/z", dir);
	cr_assert_eq(symlink(z, AT("a/abs")), 0);        /* absolute */
	cr_assert_eq(symlink("../../z", AT("a/b/up")), 0); /* with .. */
	cr_assert_eq(symlink("rel", AT("chain")), 0);    /* a link to a link */
	cr_assert_eq(symlink("nowhere/f", AT("dangling")), 0);
	cr_assert_eq(symlink("loop2", AT("loop1")), 0);
	cr_assert_eq(symlink("loop1", AT("loop2")), 0);
#undef AT
	deny_pattern_is(dir, "rel/x/y", "a/b/x/y");
	deny_pattern_is(dir, "a/abs/k", "z/k");
	deny_pattern_is(dir, "rel/up/k", "z/k");
	deny_pattern_is(dir, "chain", "a/b");
	deny_pattern_is(dir, "chain/up", "z");
	/* where a write through it would land */
	deny_pattern_is(dir, "dangling", "nowhere/f");
	/* a loop resolves nowhere: kept as written */
	deny_pattern_is(dir, "loop1/k", "loop1/k");
	deny_pattern_is(dir, "a/missing/k", "a/missing/k");
	remove_tree(dir);
	free(dir);
}

Test(policy_paths, resolver_memo_does_not_leak_between_rules)
{
	char *dir = make_tmpdir();
	char ini[9000], p1[4200], p2[4200], p3[4200], want[4200];

	snprintf(p1, sizeof(p1), "%s/real", dir);
	cr_assert_eq(mkdir(p1, 0700), 0);
	snprintf(p2, sizeof(p2), "%s/real/link", dir);
	cr_assert_eq(symlink("..", p2), 0);
	/* first rule: real/x (real remembered); second goes through real/link,
	 * which must still be followed, not taken from the memo as text */
	snprintf(p1, sizeof(p1), "%s/real/x", dir);
	snprintf(p3, sizeof(p3), "%s/real/link/y", dir);
	snprintf(ini, sizeof(ini), "[filesystem]\ndeny_read = %s\ndeny_read = %s\n", p1, p3);
	struct policy *p = compile_ini(ini);
	cr_assert_str_eq(rule(p, SBX_RULE_DENY_READ, p1)->pattern, p1);
	snprintf(want, sizeof(want), "%s/y", dir);
	cr_assert_str_eq(rule(p, SBX_RULE_DENY_READ, p3)->pattern, want);
	policy_free(p);
	remove_tree(dir);
	free(dir);
}

/* A directory many rules look into (HOME) is listed once and answered
 * from the listing (path.c): a link there must still be followed, a name
 * not there is missing, whichever rule comes first. */
Test(policy_paths, resolver_answers_from_a_listing_as_the_kernel_would)
{
	char *dir = make_tmpdir();
	char ini[40000], p[4200], z[4200];
	size_t at = 0;

#define AT(x) (snprintf(p, sizeof(p), "%s/%s", dir, x), p)
	cr_assert_eq(mkdir(AT("d"), 0700), 0);
	cr_assert_eq(mkdir(AT("z"), 0700), 0);
	cr_assert_eq(mkdir(AT("d/a"), 0700), 0);
	FILE *f = fopen(AT("d/file"), "w");
	cr_assert_not_null(f);
	fclose(f);
	snprintf(z, sizeof(z), "%s/z", dir);
	cr_assert_eq(symlink(z, AT("d/abs")), 0);
	cr_assert_eq(symlink("a", AT("d/rel")), 0);
#undef AT
	/* twelve names asked in d before and after its listing, the links
	 * and the file last */
	static const char *const asked[] = { "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8",
					     "m9/x", "a/k", "abs/k", "rel/k", "file/x", "m10" };
	static const char *const want[] = { "d/m1", "d/m2", "d/m3", "d/m4", "d/m5", "d/m6",
					    "d/m7", "d/m8", "d/m9/x", "d/a/k", "z/k", "d/a/k",
					    "d/file/x", "d/m10" };
	at += (size_t)snprintf(ini, sizeof(ini), "[filesystem]\n");
	for (size_t i = 0; i < ARRAY_LEN(asked); i++)
		at += (size_t)snprintf(ini + at, sizeof(ini) - at, "deny_read = %s/d/%s\n", dir,
				       asked[i]);
	struct policy *pol = compile_ini(ini);
	for (size_t i = 0; i < ARRAY_LEN(asked); i++) {
		char w[4200], e[4200];
		snprintf(w, sizeof(w), "%s/d/%s", dir, asked[i]);
		snprintf(e, sizeof(e), "%s/%s", dir, want[i]);
		cr_assert_str_eq(rule(pol, SBX_RULE_DENY_READ, w)->pattern, e, "%s", asked[i]);
	}
	policy_free(pol);
	remove_tree(dir);
	free(dir);
}

/* sbx_glob_match itself */

struct glob_case {
	const char *pat;
	const char *str;
	bool match;
};

ParameterizedTestParameters(policy_paths, glob_match)
{
	static struct glob_case cases[] = {
		{ "abc", "abc", true },
		{ "abc", "abd", false },
		{ "abc", "ab", false },
		{ "abc", "abcd", false },
		{ "*", "abc", true },
		{ "*", "", true },
		{ "*", "a/b", false },
		{ "a*c", "abbbc", true },
		{ "a*c", "ac", true },
		{ "a*c", "a/c", false },
		{ "*.pem", "key.pem", true },
		{ "*.pem", "dir/key.pem", false },
		{ "*.pem", "key.pem.bak", false },
		{ "?", "a", true },
		{ "?", "", false },
		{ "?", "ab", false },
		{ "?", "/", false },
		{ "a?c", "a/c", false },
		{ "**", "a/b/c", true },
		{ "**", "abc", true },
		{ "a/**", "a/b/c", true },
		{ "a/**/z", "a/b/c/z", true },
		{ "a/**/z", "a/z", true },
		{ "a/**/z", "a/b/c/zz", false },
		{ "a/**/z", "b/c/z", false },
		{ "**/x.pem", "d/e/x.pem", true },
		{ "**/x.pem", "x.pem", true },
		{ "/srv/*/id", "/srv/a/id", true },
		{ "/srv/*/id", "/srv/a/b/id", false },
		{ "/srv/**/id", "/srv/a/b/id", true },
	};
	return cr_make_param_array(struct glob_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct glob_case *c, policy_paths, glob_match)
{
	bool got = sbx_glob_match(c->pat, c->str, strlen(c->str));

	cr_assert_eq(got, c->match, "sbx_glob_match(\"%s\", \"%s\") = %d, expected %d",
		     c->pat, c->str, got, c->match);
}

Test(policy_paths, glob_match_stops_at_len)
{
	cr_assert(sbx_glob_match("abc", "abcdef", 3));
	cr_assert_not(sbx_glob_match("abcdef", "abcdef", 3));
	cr_assert_not(sbx_glob_match("abc", "abcdef", 6));
	cr_assert(sbx_glob_match("a/*", "a/bc/d", 4));
}

/* Tildify: the reverse of `~` expansion, for messages. */

struct tildify_case {
	const char *path;
	const char *out;
};

ParameterizedTestParameters(policy_paths, tildify)
{
	static struct tildify_case cases[] = {
		{ "/home/u/.ssh/id_rsa", "~/.ssh/id_rsa" },
		{ "/home/u", "~" },
		{ "/home/user2/x", "/home/user2/x" },
		{ "/etc/passwd", "/etc/passwd" },
	};
	return cr_make_param_array(struct tildify_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct tildify_case *c, policy_paths, tildify)
{
	char out[256];

	sbx_path_tildify(c->path, "/home/u", out, sizeof(out));
	cr_assert_str_eq(out, c->out);
}

/* HOME through a link: the policy keeps it resolved (as reports, rules and
 * the plan see paths), and `~` in messages works for both spellings. */
Test(policy_paths, home_behind_a_link_is_resolved_and_tildified_both_ways)
{
	char *dir = make_tmpdir();
	char real[4200], link[4200], ws[4200], out[4200], in[4300];
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { "" };

	snprintf(real, sizeof(real), "%s/real", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(ws, sizeof(ws), "%s/real/ws", dir);
	cr_assert_eq(mkdir(real, 0700), 0);
	cr_assert_eq(mkdir(ws, 0700), 0);
	cr_assert_eq(symlink("real", link), 0);
	struct policy_ctx ctx = { .home = link, .cwd = ws, .session_dir = NULL };
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	cr_assert_eq(policy_compile(b, &p, &err), 0, "%s", err.msg);
	cr_assert_str_eq(policy_home(p), real);
	snprintf(in, sizeof(in), "%s/.ssh/id", real);
	policy_tildify(p, in, out, sizeof(out));
	cr_assert_str_eq(out, "~/.ssh/id");
	snprintf(in, sizeof(in), "%s/planted", link);
	policy_tildify(p, in, out, sizeof(out));
	cr_assert_str_eq(out, "~/planted");
	policy_tildify(p, "/etc/passwd", out, sizeof(out));
	cr_assert_str_eq(out, "/etc/passwd");
	policy_free(p);
	remove_tree(dir);
	free(dir);
}
