/* isolation = workspace, in a repository whose git directory lies outside
 * the workspace (a subdirectory of it, a linked worktree): that git
 * directory is writable too, so git can commit there; its hooks and config
 * stay denied; a repository whose worktree is HOME or above is never
 * opened this way. Built on real directories (the policy reads `.git`). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

/* Not under /tmp: the default `allow_write = /tmp` would open it all. */
static char *tmpdir(void)
{
	static char path[64];
	char *real;

	snprintf(path, sizeof(path), "/var/tmp/sbx-unit-git.XXXXXX");
	cr_assert_not_null(mkdtemp(path));
	real = realpath(path, NULL);
	cr_assert_not_null(real);
	return real;
}

static struct policy *compile_in(const char *home, const char *ws)
{
	struct policy_ctx ctx = { .home = home, .cwd = ws, .session_dir = NULL };
	struct policy_builder *b = NULL;

	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	return compile_builder(b);
}

static char *p(const char *root, const char *rel)
{
	static char buf[8][4200];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", root, rel);
	return buf[k];
}

static void mkdirs(const char *root, const char *rel)
{
	char cmd[8500];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", root, rel);
	cr_assert_eq(system(cmd), 0);
}

Test(policy_gitdirs, a_subdirectory_of_a_repository_writes_its_git_directory)
{
	char *t = tmpdir();
	mkdirs(t, "home");
	mkdirs(t, "repo/.git/objects");
	mkdirs(t, "repo/.git/hooks");
	mkdirs(t, "repo/sub");
	struct policy *pol = compile_in(p(t, "home"), p(t, "repo/sub"));
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "repo/.git/objects/ab")), SBX_ALLOW);
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "repo/.git/index.lock")), SBX_ALLOW);
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "repo/.git/hooks/pre-commit")), SBX_DENY);
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "repo/.git/config")), SBX_DENY);
	/* the rest of the repository stays outside */
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "repo/README")), SBX_DENY);
	policy_free(pol);
	remove_tree(t);
	free(t);
}

Test(policy_gitdirs, a_linked_worktree_writes_the_common_directory)
{
	char *t = tmpdir();
	mkdirs(t, "home");
	mkdirs(t, "main/.git/worktrees/wt");
	mkdirs(t, "wt");
	write_file(p(t, "wt/.git"), "gitdir: ../main/.git/worktrees/wt\n");
	write_file(p(t, "main/.git/worktrees/wt/commondir"), "../..\n");
	struct policy *pol = compile_in(p(t, "home"), p(t, "wt"));
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "main/.git/worktrees/wt/index")), SBX_ALLOW);
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "main/.git/objects/ab")), SBX_ALLOW);
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "main/.git/config")), SBX_DENY);
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "main/file")), SBX_DENY);
	policy_free(pol);
	remove_tree(t);
	free(t);
}

Test(policy_gitdirs, a_repository_at_home_or_above_is_never_opened)
{
	char *t = tmpdir();
	mkdirs(t, "home/.git/objects");
	mkdirs(t, "home/proj");
	struct policy *pol = compile_in(p(t, "home"), p(t, "home/proj"));
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "home/.git/objects/ab")), SBX_DENY);
	policy_free(pol);
	remove_tree(t);
	free(t);
}

Test(policy_gitdirs, isolation_strict_opens_no_git_directory)
{
	char *t = tmpdir();
	mkdirs(t, "home");
	mkdirs(t, "repo/.git/objects");
	mkdirs(t, "repo/sub");
	struct policy_ctx ctx = { .home = p(t, "home"), .cwd = p(t, "repo/sub"),
				  .session_dir = p(t, "home/sess") };
	struct policy_builder *b = NULL;
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	builder_set(b, "sandbox", "isolation", "strict", SBX_ORIGIN_FLAG, "--test");
	struct policy *pol = compile_builder(b);
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "repo/.git/objects/ab")), SBX_DENY);
	policy_free(pol);
	remove_tree(t);
	free(t);
}
