/* tests/unit/policy_execlater.c: the executes-later table (policy/
 * execlater.c, docs/POLICY.md "Executes-later"): every row is a mandatory
 * write-deny with its owner and reason, the rows at any depth hold at
 * depth 0 and deep in the workspace and in every writable root, the
 * agent rows are lifted below an agent profile's own state directory and
 * nowhere else, and a directory landing is judged by the same matcher. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>

#include "tests/unit/helpers.h"
#include "policy/internal.h"
#include "preload/notify/notify.h"

Test(policy_execlater, every_row_has_an_owner_and_a_reason)
{
	for (size_t i = 0; i < execlater_nrows; i++) {
		const struct execlater_row *r = &execlater_rows[i];
		cr_expect(r->owner && *r->owner, "%s: no owner", r->pattern);
		cr_expect(r->reason && *r->reason, "%s: no reason", r->pattern);
		for (size_t j = 0; j < i; j++)
			cr_expect(strcmp(r->pattern, execlater_rows[j].pattern), "%s twice", r->pattern);
	}
}

/* A path below (or at) a row's pattern, where the row must hold. */
static void row_sample(const struct execlater_row *r, const char *root, char *out, size_t outsz)
{
	char pat[256];
	size_t n;

	snprintf(pat, sizeof(pat), "%s", r->pattern[0] == '~' ? r->pattern + 2 : r->pattern[0] == '/' ? r->pattern + 1 : r->pattern);
	for (char *c = pat; *c; c++)
		if (*c == '*')
			*c = 'x';
	n = strlen(pat);
	if (n && pat[n - 1] == '/')
		snprintf(pat + n, sizeof(pat) - n, "planted");
	snprintf(out, outsz, "%s/%s", r->pattern[0] == '/' ? "" : root, pat);
}

Test(policy_execlater, every_row_refused_with_home_writable_and_readable_unless_a_credential)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = ~/\n");
	char path[512];

	for (size_t i = 0; i < execlater_nrows; i++) {
		const struct execlater_row *r = &execlater_rows[i];
		const struct sbx_rule *why = NULL;
		row_sample(r, "/home/u", path, sizeof(path));
		cr_expect_eq(policy_check_path(p, SBX_OP_WRITE, path, &why), SBX_DENY, "%s", path);
		cr_expect(why && why->kind == SBX_RULE_MANDATORY, "%s: not mandatory", path);
		/* readable, unless it holds a credential too (~/.npmrc's
		 * token: the credential table, policy/credentials.c) */
		const struct sbx_rule *rwhy = NULL;
		if (policy_check_path(p, SBX_OP_READ, path, &rwhy) == SBX_DENY)
			cr_expect(rwhy && rwhy->kind == SBX_RULE_DENY_READ, "%s: read", path);
	}
	policy_free(p);
}

Test(policy_execlater, rows_at_any_depth_hold_at_depth_0_and_4_and_in_every_root)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = /data/\n");
	static const char *const roots[] = { "/w", "/w/a/b/c/d", "/data/x/y/z/q", "/tmp/a" };
	char path[512];

	for (size_t i = 0; i < execlater_nrows; i++) {
		const struct execlater_row *r = &execlater_rows[i];
		if (!execlater_anywhere(r))
			continue;
		for (size_t j = 0; j < sizeof(roots) / sizeof(roots[0]); j++) {
			row_sample(r, roots[j], path, sizeof(path));
			cr_expect_eq(check(p, SBX_OP_WRITE, path), SBX_DENY, "%s", path);
		}
	}
	policy_free(p);
}

struct ex_case {
	const char *path;
	enum sbx_verdict want;
};

ParameterizedTestParameters(policy_execlater, agents_and_vcs_names)
{
	static struct ex_case c[] = {
		{ "/w/.claude/settings.json", SBX_DENY },
		{ "/w/a/b/c/d/.claude/settings.json", SBX_DENY },
		{ "/w/.claude/settings.local.json", SBX_DENY },
		{ "/w/.claude/hooks/x.sh", SBX_DENY },
		{ "/w/.claude/skills/s/run.py", SBX_DENY },
		{ "/w/.codex/config.toml", SBX_DENY },
		{ "/w/.gemini/settings.json", SBX_DENY },
		{ "/w/.gemini/commands/x.toml", SBX_DENY },
		{ "/w/.cursor/hooks.json", SBX_DENY },
		{ "/w/.zed/tasks.json", SBX_DENY },
		{ "/w/.devcontainer/devcontainer.json", SBX_DENY },
		{ "/w/.hg/hgrc", SBX_DENY },
		{ "/w/sub/.jj/repo/config.toml", SBX_DENY },
		{ "/w/.pre-commit-config.yaml", SBX_DENY },
		{ "/w/mise.toml", SBX_DENY },
		/* neighbours the agents and tools write */
		{ "/w/.claude/notes.md", SBX_ALLOW },
		{ "/w/.claude-x/settings.json", SBX_ALLOW },
		{ "/w/.hg/store/data/x.i", SBX_ALLOW },
		{ "/w/.jj/repo/op_store/x", SBX_ALLOW },
		{ "/w/src/settings.json", SBX_ALLOW },
		{ "/w/CLAUDE.md", SBX_ALLOW },
	};
	return cr_make_param_array(struct ex_case, c, ARRAY_LEN(c));
}

ParameterizedTest(struct ex_case *c, policy_execlater, agents_and_vcs_names)
{
	struct policy *p = compile_ini(NULL);

	cr_expect_eq(check(p, SBX_OP_WRITE, c->path), c->want, "%s", c->path);
	policy_free(p);
}

/* The gemini profile's home for the sandboxed gemini: its .gemini/ is
 * read by that gemini only, inside. A profile's allow_write is lifted
 * only for the agent rows, only there. */
static struct policy *with_profile(const char *profile_ini)
{
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err;

	cr_assert_eq(policy_builder_load_string(b, profile_ini, "profile gemini",
						POLICY_LAYER_PROFILE, &err), 0, "%s", err.msg);
	return compile_builder(b);
}

Test(policy_execlater, agent_rows_lifted_in_the_profile_state_directory_only)
{
	struct policy *p = with_profile("[filesystem]\nallow_write = ~/.gemini-sbx/\n");

	assert_verdict(p, SBX_OP_WRITE, "/home/u/.gemini-sbx/.gemini/settings.json", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/w/.gemini/settings.json", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, "/home/u/.gemini-sbx/.claude/settings.json", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, "/home/u/.gemini-sbx/.git/hooks/x", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, "/home/u/.gemini-sbx/.bashrc", SBX_DENY);
	policy_free(p);
}

Test(policy_execlater, a_profile_allow_write_of_home_or_the_workspace_lifts_nothing)
{
	struct policy *p = with_profile("[filesystem]\nallow_write = ~/\nallow_write = /w/\n");

	assert_verdict(p, SBX_OP_WRITE, "/home/u/proj/.gemini/settings.json", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, "/w/.codex/config.toml", SBX_DENY);
	policy_free(p);
	p = compile_ini("[filesystem]\nallow_write = ~/.gemini-sbx/\n"); /* the user's, no profile */
	assert_verdict(p, SBX_OP_WRITE, "/home/u/.gemini-sbx/.gemini/settings.json", SBX_DENY);
	policy_free(p);
}

Test(policy_execlater, glob_match_below_finds_the_ancestors_of_a_match)
{
	const char *pat = "/h/.local/lib/python*/site-packages";
#define BELOW(pt, s) sbx_glob_match_below((pt), (s), strlen(s))
	cr_expect(BELOW(pat, "/h/.local/lib/python3.11"));
	cr_expect(BELOW(pat, "/h/.local/lib"));
	cr_expect(BELOW(pat, "/h/.local"));
	cr_expect(BELOW(pat, "/h"));
	cr_expect_not(BELOW(pat, "/h/.local/lib/python3.11/site-packages")); /* the match itself */
	cr_expect_not(BELOW(pat, "/h/.local/lib/perl5"));
	cr_expect_not(BELOW(pat, "/h/.local/li"));
	cr_expect(BELOW("/h/**/x", "/h/a/b/c"));
	cr_expect_not(BELOW("/h/**/x", "/g/a"));
	cr_expect(BELOW(".claude/settings.json", ".claude"));
	cr_expect_not(BELOW(".claude/settings.json", ".claudex"));
	cr_expect(BELOW("a/**/b", "a/x/y"));
#undef BELOW
}

struct landing {
	const char *path;
	bool may;
};

/* The rename the issue found: ~/.local/lib/stage moved onto
 * ~/.local/lib/python3.11 planted a .pth. */
ParameterizedTestParameters(policy_execlater, directory_landing_by_glob)
{
	static struct landing c[] = {
		{ "/home/u/.local/lib/python3.11", false },
		{ "/home/u/.local/lib/python3.13", false },
		{ "/home/u/.ipython/profile_default", false },
		{ "/home/u/.gradle", false },
		{ "/w/x/.claude", false },
		{ "/w/a/b/c/d/.gemini", false },
		{ "/w/.hg", false },
		{ "/w/.jj/repo", false },
		{ "/home/u/.local/lib/perl5", true },
		{ "/home/u/.ipython/extensions", true },
		{ "/w/x/claude", true },
		{ "/home/u/.gemini-sbx/.gemini", true }, /* the profile's own */
	};
	return cr_make_param_array(struct landing, c, ARRAY_LEN(c));
}

ParameterizedTest(struct landing *l, policy_execlater, directory_landing_by_glob)
{
	struct policy *p = with_profile("[filesystem]\nallow_write = ~/\nallow_write = ~/.gemini-sbx/\n");
	const struct sbx_rule *why = NULL;

	cr_expect_eq(notify_dir_may_land(p, l->path, &why), l->may, "%s", l->path);
	if (!l->may)
		cr_expect_not_null(why, "%s: the deciding rule", l->path);
	policy_free(p);
}
