/* Stand-ins (preload/standin.c): made as dangling links, recorded, taken
 * over by a second live run, left for the last run relying on them, swept
 * after a run that died, and never anything else removed. A "run" here is
 * a struct standins: each holds its own record's lock, as a process would
 * (flock locks belong to the open file, so one process can play two). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/hostfs.h"
#include "preload/standin.h"
#include "preload/preload.h"

static char dir[PATH_MAX], state[PATH_MAX + 16], ws[PATH_MAX + 8];

static void setup(void)
{
	char real[PATH_MAX];

	snprintf(dir, sizeof(dir), "/var/tmp/sbx-unit-si.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	/* the paths stand-ins get are real paths */
	cr_assert_not_null(realpath(dir, real));
	memcpy(dir, real, strlen(real) + 1);
	snprintf(state, sizeof(state), "%s/state/sbx", dir);
	snprintf(ws, sizeof(ws), "%s/ws", dir);
	cr_assert_eq(mkdir(ws, 0700), 0);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(standin_records, .init = setup, .fini = teardown);

static char *at(const char *name)
{
	static char p[4][PATH_MAX + 300];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", ws, name);
	return p[k];
}

static bool is_standin(const char *name)
{
	struct stat st;
	return lstat(at(name), &st) == 0 && S_ISLNK(st.st_mode) && standin_looks_like(at(name));
}

/* sbx's state directory, held as main holds it */
static int state_fd(void)
{
	struct hostfs_err err = { "" };
	int fd = hostfs_dir_open(state, HOSTFS_CREATE | HOSTFS_MINE, &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	return fd;
}

static struct standins *run(const char *id)
{
	struct standins *s = NULL;
	unsigned cleaned = 0;
	int fd = state_fd();
	cr_assert_eq(standins_open(fd, id, &cleaned, &s), 0);
	close(fd);
	return s;
}

static void make(struct standins *s, const char *name, char want)
{
	char *paths[1] = { at(name) }, st[2];
	const char *failed;
	cr_assert_eq(standins_make(s, paths, 1, st, &failed), 0);
	cr_assert_eq(st[0], want, "%s: state %c, not %c", name, st[0], want);
}

Test(standin_records, made_as_a_dangling_link_and_removed_with_the_record)
{
	struct standins *a = run("run-a");
	char text[128], rec[PATH_MAX + 64];
	struct stat st;

	make(a, ".bashrc", PLACEHOLDER_MADE);
	ssize_t n = readlink(at(".bashrc"), text, sizeof(text) - 1);
	cr_assert_gt(n, 0);
	text[n] = '\0';
	cr_assert_str_eq(text, STANDIN_TARGET "run-a");
	/* absent for every program that opens or stats it */
	cr_assert_neq(stat(at(".bashrc"), &st), 0);
	cr_assert_eq(errno, ENOENT);
	snprintf(rec, sizeof(rec), "%s/standins/run-a", state);
	cr_assert_eq(access(rec, F_OK), 0);
	standins_free(a);
	cr_assert(!is_standin(".bashrc"));
	cr_assert_neq(access(rec, F_OK), 0, "the record outlived its run");
}

Test(standin_records, what_is_there_is_kept_and_not_recorded)
{
	int fd = open(at(".profile"), O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "mine\n", 5), 5);
	close(fd);
	struct standins *a = run("run-a");
	make(a, ".profile", PLACEHOLDER_THERE);
	standins_free(a);
	char buf[16] = "";
	fd = open(at(".profile"), O_RDONLY);
	cr_assert_eq(read(fd, buf, sizeof(buf)), 5);
	close(fd);
	cr_assert_str_eq(buf, "mine\n");
}

Test(standin_records, a_second_live_run_takes_over_and_the_last_one_removes)
{
	struct standins *a = run("run-a"), *b = run("run-b");

	make(a, ".zshrc", PLACEHOLDER_MADE);
	make(b, ".zshrc", PLACEHOLDER_THERE); /* A's, relied on by B too */
	standins_free(a);
	cr_assert(is_standin(".zshrc"), "A removed what B still relies on");
	standins_free(b);
	cr_assert(!is_standin(".zshrc"), "the last run left it behind");
}

Test(standin_records, a_dead_runs_standins_are_swept_and_nothing_else)
{
	struct standins *a = run("run-a");
	make(a, ".bash_profile", PLACEHOLDER_MADE);
	make(a, ".zlogin", PLACEHOLDER_MADE);
	/* A dies (SIGKILL): its lock goes, its record and links stay. A
	 * copy of its record stands in for it, unlocked. */
	char rec[PATH_MAX + 64], dead[PATH_MAX + 64], cmd[3 * PATH_MAX];
	snprintf(rec, sizeof(rec), "%s/standins/run-a", state);
	snprintf(dead, sizeof(dead), "%s/standins/run-dead", state);
	snprintf(cmd, sizeof(cmd), "cp %s %s", rec, dead);
	cr_assert_eq(system(cmd), 0);
	/* A's own release must not happen: forget A without releasing */
	/* (its links are the dead run's now: same identity in both records) */
	cr_assert_eq(symlink(STANDIN_TARGET "someone-else", at(".zprofile")), 0); /* not ours */
	unlink(rec);
	/* the look-alike of a user's, and a user's own file at a name */
	int fd = open(at(".zshenv"), O_WRONLY | O_CREAT, 0600);
	close(fd);

	unsigned cleaned = 0;
	struct standins *b = NULL;
	/* while A's lock is still held (A alive), nothing of its is swept */
	int sfd = state_fd();
	cr_assert_eq(standins_open(sfd, "run-b", &cleaned, &b), 0);
	close(sfd);
	cr_assert_eq(cleaned, 2, "the dead run's two stand-ins, %u swept", cleaned);
	cr_assert(!is_standin(".bash_profile"));
	cr_assert(!is_standin(".zlogin"));
	cr_assert(is_standin(".zprofile"), "a link sbx never recorded was removed");
	cr_assert_eq(access(at(".zshenv"), F_OK), 0);
	cr_assert_neq(access(dead, F_OK), 0, "the dead run's record stays");
	standins_free(b);
	standins_free(a);
}

Test(standin_records, cleanup_removes_only_dead_runs_links)
{
	struct standins *a = run("run-a"), *b = run("run-b");
	make(a, ".bashrc", PLACEHOLDER_MADE);
	make(b, ".gitconfig", PLACEHOLDER_MADE);
	char rec[PATH_MAX + 64], dead[PATH_MAX + 64], cmd[3 * PATH_MAX];
	snprintf(rec, sizeof(rec), "%s/standins/run-a", state);
	snprintf(dead, sizeof(dead), "%s/standins/run-gone", state);
	snprintf(cmd, sizeof(cmd), "cp %s %s", rec, dead);
	cr_assert_eq(system(cmd), 0);
	unlink(rec); /* A is "dead": only the unlocked copy names its link */
	int sfd = state_fd();
	cr_assert_eq(standins_cleanup(sfd, NULL, NULL), 1);
	close(sfd);
	cr_assert(!is_standin(".bashrc"));
	cr_assert(is_standin(".gitconfig"), "a live run's stand-in was removed");
	standins_free(b);
	cr_assert(!is_standin(".gitconfig"));
	standins_free(a);
}

Test(standin_records, a_swapped_parent_is_never_followed)
{
	struct standins *a = run("run-a");
	char sub[PATH_MAX + 32], moved[PATH_MAX + 32], outside[PATH_MAX + 32];

	snprintf(sub, sizeof(sub), "%s/.git", ws);
	cr_assert_eq(mkdir(sub, 0700), 0);
	make(a, ".git/hooks", PLACEHOLDER_MADE);
	/* a program swaps the directory for a link to where a look-alike
	 * of our link sits */
	snprintf(moved, sizeof(moved), "%s/.git-old", ws);
	snprintf(outside, sizeof(outside), "%s/outside", dir);
	cr_assert_eq(rename(sub, moved), 0);
	cr_assert_eq(mkdir(outside, 0700), 0);
	char victim[PATH_MAX + 64];
	snprintf(victim, sizeof(victim), "%s/hooks", outside);
	cr_assert_eq(symlink(STANDIN_TARGET "run-a", victim), 0);
	cr_assert_eq(symlink(outside, sub), 0);
	standins_free(a);
	struct stat st;
	cr_assert_eq(lstat(victim, &st), 0, "removed through a swapped directory");
	/* ours, moved away with its directory, is left: not at its path */
	snprintf(victim, sizeof(victim), "%s/hooks", moved);
	cr_assert_eq(lstat(victim, &st), 0);
}

Test(standin_records, records_hold_hostile_names)
{
	char odd[64];
	snprintf(odd, sizeof(odd), "we ird\n%%0A name");
	struct standins *a = run("run-a");
	make(a, odd, PLACEHOLDER_MADE);
	standins_free(a);
	cr_assert(!is_standin(odd));
}
