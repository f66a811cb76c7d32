/* common/pathwalk.c and mountids.c: the paths sbx-init mounts on are
 * opened without following any link, and what the supervisor records is the
 * object there. Each test plants what a program of a concurrent run could
 * (a link on the way, a link as the name) and checks the outcome. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/openat2.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/linux/mountids.h"
#include "common/pathwalk.h"
#include "preload/preload.h"

static char dir[PATH_MAX];

static void setup(void)
{
	char real[PATH_MAX];

	snprintf(dir, sizeof(dir), "/var/tmp/sbx-unit-pathwalk.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	memcpy(dir, real, strlen(real) + 1);
}

static void teardown(void)
{
	char cmd[2 * PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(pathwalk, .init = setup, .fini = teardown);

static char *at(const char *name)
{
	static char p[4][PATH_MAX + 300];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* Both ways (openat2, and one component at a time) give the same answer. */
static int open_both(const char *path, bool link_last)
{
	int a = pathwalk_open(path, link_last), b = pathwalk_walk(path, link_last);
	struct stat sa, sb;

	if (a < 0 || b < 0) {
		cr_expect_eq(a, b, "%s: openat2 %d, walk %d", path, a, b);
		if (a >= 0)
			close(a);
		if (b >= 0)
			close(b);
		return a < 0 ? a : b;
	}
	cr_assert_eq(fstat(a, &sa), 0);
	cr_assert_eq(fstat(b, &sb), 0);
	cr_expect(sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino, "%s: two objects", path);
	close(b);
	return a;
}

Test(pathwalk, opens_a_plain_path_and_tells_its_identity)
{
	struct mount_id id;
	struct stat st, own;

	cr_assert_eq(mkdir(at("d"), 0755), 0);
	int fd = open_both(at("d"), false);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pathwalk_id(fd, &id, &st), 0);
	cr_assert_eq(stat(at("d"), &own), 0);
	cr_expect(id.dev == (uint64_t)own.st_dev && id.ino == (uint64_t)own.st_ino);
	cr_expect(S_ISDIR(st.st_mode));
	close(fd);
}

Test(pathwalk, refuses_a_link_on_the_way_or_as_the_name)
{
	cr_assert_eq(mkdir(at("real"), 0755), 0);
	cr_assert_eq(mkdir(at("real/d"), 0755), 0);
	cr_assert_eq(symlink("real", at("l")), 0);
	cr_assert_eq(symlink("/", at("root")), 0);
	cr_expect_eq(open_both(at("l/d"), false), -ELOOP);
	cr_expect_eq(open_both(at("l"), false), -ELOOP);
	cr_expect_eq(open_both(at("root"), false), -ELOOP);
	/* a link swapped in for the name is refused even where the name itself
	 * may be one: only the last component may */
	cr_expect_eq(open_both(at("l/d"), true), -ELOOP);
	cr_expect_eq(open_both("/proc/self/cwd", false), -ELOOP);
}

Test(pathwalk, opens_the_link_itself_when_the_name_may_be_one)
{
	struct stat st;

	cr_assert_eq(symlink("/etc", at("lnk")), 0);
	cr_assert_eq(pathwalk_stat(at("lnk"), true, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the link, not /etc");
#ifdef SBX_PORTABLE
	/* without O_PATH a link cannot be held, only looked at */
	cr_expect_eq(pathwalk_walk(at("lnk"), true), -EOPNOTSUPP);
	return;
#endif
	int fd = open_both(at("lnk"), true);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the link, not /etc");
	close(fd);
}

Test(pathwalk, missing_and_not_a_directory)
{
	cr_assert_eq(close(open(at("f"), O_CREAT | O_WRONLY, 0644)), 0);
	cr_expect_eq(open_both(at("f/x"), false), -ENOTDIR);
	cr_expect_eq(open_both(at("nothing/x"), false), -ENOENT);
	cr_expect_eq(pathwalk_open("relative", false), -EINVAL);
	cr_expect_eq(pathwalk_walk("relative", false), -EINVAL);
}

/* The mounts' records (backend/linux/mountids.c) are Linux's: they hold
 * files and links by O_PATH, which the portable build has not. */
#ifndef SBX_PORTABLE
/* A plan with sbx-init's operations ops[0..n) and nothing else. */
static void plan_of(struct plan *pl, const char *const *ops, size_t n)
{
	memset(pl, 0, sizeof(*pl));
	cr_assert_eq(strv_add(&pl->argv, "bwrap"), 0);
	cr_assert_eq(strv_add(&pl->argv, "--"), 0);
	pl->init_at = pl->argv.n;
	cr_assert_eq(strv_add(&pl->argv, "sbx-init"), 0);
	cr_assert_eq(strv_add(&pl->argv, "--unix=block"), 0);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(strv_add(&pl->argv, ops[i]), 0);
		if (!strncmp(ops[i], "--rw=", 5))
			cr_assert_eq(strv_add(&pl->init_ops, ops[i]), 0);
	}
	cr_assert_eq(strv_add(&pl->argv, "--"), 0);
	pl->cmd_at = pl->argv.n;
	cr_assert_eq(strv_add(&pl->argv, "true"), 0);
}

Test(pathwalk, a_protected_link_is_planned_where_it_leads)
{
	struct plan pl;
	char why[PATH_MAX + 128], rw[PATH_MAX + 320], ro[PATH_MAX + 320], want[PATH_MAX + 320];

	cr_assert_eq(mkdir(at("ws"), 0755), 0);
	cr_assert_eq(close(open(at("secret"), O_CREAT | O_WRONLY, 0644)), 0);
	cr_assert_eq(symlink("../secret", at("ws/.env")), 0);
	snprintf(rw, sizeof(rw), "--rw=%s", at("ws"));
	snprintf(ro, sizeof(ro), "--mask-file=%s", at("ws/.env"));
	snprintf(want, sizeof(want), "--mask-file=%s", at("secret"));
	const char *ops[] = { rw, ro };
	plan_of(&pl, ops, 2);
	cr_assert_eq(mount_ids_roots(&pl, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(mount_ids_plan(&pl, why, sizeof(why)), 0, "%s", why);
	cr_expect_str_eq(pl.argv.v[5], want);
	plan_free(&pl);
}

Test(pathwalk, a_root_swapped_for_a_link_after_its_record_is_caught)
{
	struct plan pl;
	char why[PATH_MAX + 128], rw[PATH_MAX + 320], pin[PATH_MAX + 320];

	cr_assert_eq(mkdir(at("ws"), 0755), 0);
	cr_assert_eq(mkdir(at("ws/sub"), 0755), 0);
	snprintf(rw, sizeof(rw), "--rw=%s", at("ws"));
	snprintf(pin, sizeof(pin), "--pin=%s", at("ws/sub"));
	const char *ops[] = { rw, pin };
	plan_of(&pl, ops, 2);
	cr_assert_eq(mount_ids_roots(&pl, why, sizeof(why)), 0, "%s", why);
	/* a concurrent run: `mv ws ws.real; ln -s / ws` */
	cr_assert_eq(rename(at("ws"), at("ws.real")), 0);
	cr_assert_eq(symlink("/", at("ws")), 0);
	cr_expect_eq(mount_ids_plan(&pl, why, sizeof(why)), -ELOOP);
	cr_expect(strstr(why, "changed while sbx was starting (a symlink is now on the way to it)"),
		  "%s", why);
	plan_free(&pl);
	/* and a root swapped before its record is refused at once */
	plan_of(&pl, ops, 2);
	cr_expect_eq(mount_ids_roots(&pl, why, sizeof(why)), -ELOOP);
	cr_expect(strstr(why, "the writable root "), "%s", why);
	plan_free(&pl);
}

#endif

/* A `..` walked under RESOLVE_IN_ROOT while anything on the machine is
 * renamed makes openat2 say EAGAIN; pathwalk_openat2() asks again. The
 * notify layer opens every path a program names this way, and a program's
 * `echo x > ~/links/ws/f` (the link is `../../ws`) failed in CI with
 * "Resource temporarily unavailable" while other tests renamed files. */
Test(pathwalk, openat2_through_dotdot_is_asked_again_while_others_rename)
{
	cr_assert_eq(mkdir(at("root"), 0755), 0);
	cr_assert_eq(mkdir(at("root/ws"), 0755), 0);
	cr_assert_eq(mkdir(at("root/home"), 0755), 0);
	cr_assert_eq(mkdir(at("root/home/links"), 0755), 0);
	cr_assert_eq(symlink("../../ws", at("root/home/links/ws")), 0);
	int fd = open(at("r1"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	int root = open(at("root"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(root, 0);

	pid_t renamer = fork();
	cr_assert_geq(renamer, 0);
	if (renamer == 0) {
		char a[PATH_MAX + 300], b[PATH_MAX + 300];
		snprintf(a, sizeof(a), "%s", at("r1"));
		snprintf(b, sizeof(b), "%s", at("r2"));
		for (;;) {
			rename(a, b);
			rename(b, a);
		}
	}
	int failed = 0, first = 0;
	for (int i = 0; i < 20000; i++) {
		struct open_how how = { .flags = O_PATH | O_CLOEXEC,
					.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
		int f = pathwalk_openat2(root, "home/links/ws/../ws", &how);
		if (f < 0) {
			if (!failed++)
				first = f;
		} else {
			close(f);
		}
	}
	kill(renamer, SIGKILL);
	waitpid(renamer, NULL, 0);
	close(root);
	cr_expect_eq(failed, 0, "%d of 20000 opens failed, the first with %s", failed,
		     strerror(-first));
}
