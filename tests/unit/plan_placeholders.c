/* The placeholders: planned first, made while bubblewrap starts, each with
 * the state sbx-init is told (made, there already, or not to be bound), and
 * only the ones we made removed afterwards. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/var/tmp/sbx-unit-ph.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "chmod -R u+w %s; rm -rf %s", dir, dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(plan_placeholders, .init = setup, .fini = teardown);

static void pend(struct plan *pl, const char *name)
{
	cr_assert_eq(strv_addf(&pl->placeholders_pending, "%s/%s", dir, name), 0);
	pl->write_protects++;
}

static bool exists(const char *name)
{
	char p[256];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

Test(plan_placeholders, states_and_removal)
{
	struct plan pl = { 0 };
	char p[256];

	snprintf(p, sizeof(p), "%s/.env", dir);
	int fd = open(p, O_WRONLY | O_CREAT, 0600); /* someone made it meanwhile */
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "KEY=1\n", 6), 6);
	close(fd);

	pend(&pl, ".bashrc");
	pend(&pl, ".env");
	pend(&pl, ".vscode");
	cr_assert_eq(plan_make_placeholders(&pl), 0);
	cr_assert_str_eq(pl.placeholder_state, "mem");
	cr_assert_eq(pl.write_protects, 3);

	struct stat st;
	snprintf(p, sizeof(p), "%s/.bashrc", dir);
	cr_assert_eq(stat(p, &st), 0);
	cr_assert(S_ISREG(st.st_mode) && st.st_size == 0 && (st.st_mode & 0777) == 0444);
	snprintf(p, sizeof(p), "%s/.vscode", dir);
	cr_assert_eq(stat(p, &st), 0);
	cr_assert(S_ISREG(st.st_mode) && st.st_size == 0, "a file stands for a directory too");
	cr_assert_eq(pl.placeholders.n, 2);

	plan_remove_placeholders(&pl);
	cr_assert(!exists(".bashrc") && !exists(".vscode"));
	cr_assert(exists(".env"), "not ours: kept");
	plan_free(&pl);
}

/* A placeholder that cannot be made for a reason COMMAND might get past
 * (the parent gone, no space): the start fails, and none is left. */
Test(plan_placeholders, unexpected_failure_fails_closed_and_leaves_nothing)
{
	struct plan pl = { 0 };

	pend(&pl, ".bashrc");
	pend(&pl, "missing-parent/.gitconfig");
	cr_assert_eq(plan_make_placeholders(&pl), -ENOENT);
	cr_assert(!exists(".bashrc"), "the one made before is removed again");
	plan_free(&pl);
}

Test(plan_placeholders, a_placeholder_written_from_outside_is_kept)
{
	struct plan pl = { 0 };
	char p[256];

	pend(&pl, ".profile");
	cr_assert_eq(plan_make_placeholders(&pl), 0);
	cr_assert_str_eq(pl.placeholder_state, "m");
	snprintf(p, sizeof(p), "%s/.profile", dir);
	chmod(p, 0644);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs("export PATH\n", f);
	fclose(f);
	plan_remove_placeholders(&pl);
	cr_assert(exists(".profile"), "it holds data now: never removed");
	plan_free(&pl);
}

Test(plan_placeholders, each_has_its_own_inode_and_only_ours_are_removed)
{
	struct plan pl = { 0 };
	struct stat a, b;
	char p[256], q[256];

	pend(&pl, ".zshrc");
	pend(&pl, ".zshenv");
	pend(&pl, ".gitconfig");
	cr_assert_eq(plan_make_placeholders(&pl), 0);
	cr_assert_str_eq(pl.placeholder_state, "mmm");
	snprintf(p, sizeof(p), "%s/.zshrc", dir);
	snprintf(q, sizeof(q), "%s/.gitconfig", dir);
	cr_assert_eq(stat(p, &a), 0);
	cr_assert_eq(stat(q, &b), 0);
	cr_assert(a.st_ino != b.st_ino && a.st_nlink == 1,
		  "a write to one from outside must not show in the others");

	/* replaced from outside by another empty file: not ours, kept */
	cr_assert_eq(unlink(q), 0);
	int fd = open(q, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	plan_remove_placeholders(&pl);
	cr_assert(!exists(".zshrc") && !exists(".zshenv"));
	cr_assert(exists(".gitconfig"), "someone else's file: never removed");
	plan_free(&pl);
}

Test(plan_placeholders, none_planned)
{
	struct plan pl = { 0 };

	cr_assert_eq(plan_make_placeholders(&pl), 0);
	cr_assert_str_eq(pl.placeholder_state, "");
	plan_free(&pl);
}
