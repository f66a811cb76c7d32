/* tests/unit/notify_decide.c: the notify layer's pure decisions
 * (preload/notify/notify.h): what may land where a directory is renamed or
 * symlinked, and what git may write into a git directory it made. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"
#include "preload/notify/notify.h"
#include "policy/policy.h"

struct landing {
	const char *path;
	bool may;
};

/* A directory or link landing here could complete a protected name with
 * what it holds: `.git` (hooks/, config), `.claude` (commands/), and a
 * parent of an absolute protected path. */
static struct landing landings[] = {
	{ "/w/.git", false },
	{ "/w/sub/deep/.git", false },
	{ "/w/.claude", false },
	{ "/w/.gitx", true },
	{ "/w/src", true },
	{ "/w/sub/.github", true },
	{ "/w/.vscode-old", true },
	{ "/home/u/.config", false }, /* holds ~/.config/git/config */
	{ "/home/u/.local", false },  /* holds ~/.local/bin */
	{ "/home/u/projects", true },
};

ParameterizedTestParameters(notify_land, directory_landing)
{
	return cr_make_param_array(struct landing, landings, sizeof(landings) / sizeof(landings[0]));
}

ParameterizedTest(struct landing *l, notify_land, directory_landing)
{
	struct policy *p = compile_ini(NULL);
	const struct sbx_rule *why = NULL;

	cr_expect_eq(notify_dir_may_land(p, l->path, &why), l->may, "%s", l->path);
	if (!l->may)
		cr_expect_not_null(why, "%s: the deciding rule", l->path);
	policy_free(p);
}

Test(notify_git, own_files_are_hooks_dir_and_samples_not_config)
{
	cr_expect_not(notify_git_own("config")); /* only by a vetted rename */
	cr_expect(notify_git_own("hooks"));
	cr_expect(notify_git_own("hooks/pre-commit.sample"));
	cr_expect(notify_git_own("hooks/fsmonitor-watchman.sample"));
}

Test(notify_git, a_hook_git_would_run_is_not_its_own)
{
	cr_expect_not(notify_git_own("hooks/pre-commit"));
	cr_expect_not(notify_git_own("hooks/.sample"));
	cr_expect_not(notify_git_own("hooks/x/y.sample"));
	cr_expect_not(notify_git_own("hooks/pre-commit.sample.bak"));
	cr_expect_not(notify_git_own("commondir"));
	cr_expect_not(notify_git_own("config/x"));
}
