/* isolation = workspace, in a repository whose git directory lies outside
 * the workspace (a subdirectory of it, a linked worktree): that git
 * directory is writable too, so git can commit there; its hooks and config
 * stay denied; a repository whose worktree is HOME or above is never
 * opened this way. Built on real directories (the policy reads `.git`). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

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
	static char buf[8][8500];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", root, rel);
	return buf[k];
}

/* what `git init` makes, as far as the policy looks */
static void git_dir(const char *root, const char *rel)
{
	char d[4200];
	snprintf(d, sizeof(d), "%s/objects", rel);
	make_dirs(root, d);
	snprintf(d, sizeof(d), "%s/refs", rel);
	make_dirs(root, d);
	snprintf(d, sizeof(d), "%s/HEAD", rel);
	write_file(p(root, d), "ref: refs/heads/main\n");
}

/* main/ and its linked worktree wt/, as `git worktree add ../wt` makes them */
static void linked_worktree(const char *t)
{
	git_dir(t, "main/.git");
	make_dirs(t, "main/.git/worktrees/wt");
	make_dirs(t, "wt");
	write_file(p(t, "wt/.git"), "gitdir: ../main/.git/worktrees/wt\n");
	write_file(p(t, "main/.git/worktrees/wt/commondir"), "../..\n");
	write_file(p(t, "main/.git/worktrees/wt/HEAD"), "ref: refs/heads/wt\n");
	write_file(p(t, "main/.git/worktrees/wt/gitdir"), p(t, "wt/.git\n"));
}

Test(policy_gitdirs, a_subdirectory_of_a_repository_writes_its_git_directory)
{
	char *t = tmpdir();
	make_dirs(t, "home");
	git_dir(t, "repo/.git");
	make_dirs(t, "repo/.git/hooks");
	make_dirs(t, "repo/sub");
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
	make_dirs(t, "home");
	linked_worktree(t);
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
	git_dir(t, "home/.git");
	make_dirs(t, "home/proj");
	struct policy *pol = compile_in(p(t, "home"), p(t, "home/proj"));
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "home/.git/objects/ab")), SBX_DENY);
	policy_free(pol);
	remove_tree(t);
	free(t);
}

Test(policy_gitdirs, isolation_strict_opens_no_git_directory)
{
	char *t = tmpdir();
	make_dirs(t, "home");
	git_dir(t, "repo/.git");
	make_dirs(t, "repo/sub");
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

/* The attack: the command writes a `.git` file in its workspace naming a
 * directory outside it; the next run must not open that directory. */
Test(policy_gitdirs, a_planted_git_file_opens_nothing)
{
	char *t = tmpdir();
	make_dirs(t, "home");
	git_dir(t, "secret"); /* even one that looks like a git directory */
	make_dirs(t, "ws");
	write_file(p(t, "ws/.git"), "gitdir: ../secret\n");
	struct policy *pol = compile_in(p(t, "home"), p(t, "ws"));
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "secret/objects/ab")), SBX_DENY);
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "secret/x")), SBX_DENY);
	policy_free(pol);
	remove_tree(t);
	free(t);
}

/* A `.git` file naming some other worktree's git directory: its gitdir
 * file does not point back here. */
Test(policy_gitdirs, a_git_file_naming_another_worktrees_directory_opens_nothing)
{
	char *t = tmpdir();
	make_dirs(t, "home");
	linked_worktree(t);
	make_dirs(t, "ws");
	write_file(p(t, "ws/.git"), "gitdir: ../main/.git/worktrees/wt\n");
	struct policy *pol = compile_in(p(t, "home"), p(t, "ws"));
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "main/.git/objects/ab")), SBX_DENY);
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "main/.git/worktrees/wt/index")), SBX_DENY);
	policy_free(pol);
	remove_tree(t);
	free(t);
}

/* A forged worktree directory whose commondir leads elsewhere: the
 * common directory is where the layout says, never where the file says. */
Test(policy_gitdirs, a_commondir_leading_elsewhere_opens_nothing)
{
	char *t = tmpdir();
	make_dirs(t, "home");
	linked_worktree(t);
	git_dir(t, "other");
	write_file(p(t, "main/.git/worktrees/wt/commondir"), p(t, "other\n"));
	struct policy *pol = compile_in(p(t, "home"), p(t, "wt"));
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "other/objects/ab")), SBX_DENY);
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "main/.git/objects/ab")), SBX_DENY);
	policy_free(pol);
	remove_tree(t);
	free(t);
}

/* A `.git` directory with a commondir (git never makes one) in the
 * workspace opens nothing outside. */
Test(policy_gitdirs, a_git_directory_with_a_commondir_opens_nothing)
{
	char *t = tmpdir();
	make_dirs(t, "home");
	git_dir(t, "other");
	git_dir(t, "ws/.git");
	write_file(p(t, "ws/.git/commondir"), "../../other\n");
	struct policy *pol = compile_in(p(t, "home"), p(t, "ws"));
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "other/objects/ab")), SBX_DENY);
	policy_free(pol);
	remove_tree(t);
	free(t);
}

/* A submodule checked out as the workspace: its git directory under the
 * superproject's .git/modules/ is opened when its config names this
 * worktree, and not when it names another. */
Test(policy_gitdirs, a_submodule_writes_its_git_directory_only_when_it_points_back)
{
	char *t = tmpdir();
	make_dirs(t, "home");
	git_dir(t, "super/.git");
	git_dir(t, "super/.git/modules/lib");
	make_dirs(t, "super/lib");
	write_file(p(t, "super/lib/.git"), "gitdir: ../.git/modules/lib\n");
	write_file(p(t, "super/.git/modules/lib/config"),
		   "[core]\n\tbare = false\n\tworktree = ../../../lib\n");
	struct policy *pol = compile_in(p(t, "home"), p(t, "super/lib"));
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "super/.git/modules/lib/objects/ab")), SBX_ALLOW);
	/* (its hooks and config are bound read-only by the plan: harm.sh) */
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "super/.git/objects/ab")), SBX_DENY);
	policy_free(pol);

	write_file(p(t, "super/.git/modules/lib/config"),
		   "[core]\n\tworktree = ../../../elsewhere\n");
	pol = compile_in(p(t, "home"), p(t, "super/lib"));
	cr_assert_eq(check(pol, SBX_OP_WRITE, p(t, "super/.git/modules/lib/objects/ab")), SBX_DENY);
	policy_free(pol);
	remove_tree(t);
	free(t);
}
