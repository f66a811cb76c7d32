/* common/pathwalk.c and hostfs.c attacked as a sandboxed program would:
 * it controls every name in its writable roots. Run twice: against the
 * Linux build (openat2, O_PATH) and, in build/tests/unit-tests-portable,
 * against the POSIX fallback a Mac compiles (common/fscompat.h). Every
 * walk must refuse a link wherever it stands, also one swapped in while
 * the walk runs, never leave the tree by `..`, never open a FIFO or a
 * device, and hold up with paths longer than PATH_MAX and odd names. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/hostfs.h"
#include "common/pathwalk.h"

#ifdef SBX_PORTABLE
#define PORTABLE 1
#else
#define PORTABLE 0
#endif

static char dir[PATH_MAX];

static void setup(void)
{
	char real[PATH_MAX];

	snprintf(dir, sizeof(dir), "/var/tmp/sbx-unit-walk.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	memcpy(dir, real, strlen(real) + 1);
}

static void teardown(void)
{
	char cmd[2 * PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(walk_attack, .init = setup, .fini = teardown, .timeout = 60);

static char *at(const char *name)
{
	static char p[4][PATH_MAX + 300];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	close(fd);
}

static struct stat id_of(const char *path)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s: %s", path, strerror(errno));
	return st;
}

static bool same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* ---- a link at every position */

#define DEPTH 6

/* dir/c0/c1/.../c5 and a file f at the end */
static void chain(char *path, size_t sz)
{
	snprintf(path, sz, "%s", dir);
	for (int i = 0; i < DEPTH; i++) {
		size_t n = strlen(path);
		snprintf(path + n, sz - n, "/c%d", i);
		cr_assert_eq(mkdir(path, 0700), 0);
	}
	size_t n = strlen(path);
	snprintf(path + n, sz - n, "/f");
	touch(path);
}

Test(walk_attack, a_link_at_any_position_is_refused_by_every_walk)
{
	char file[PATH_MAX], comp[PATH_MAX], real[PATH_MAX + 8], parent[PATH_MAX];
	struct stat st;

	chain(file, sizeof(file));
	snprintf(parent, sizeof(parent), "%.*s", (int)(strrchr(file, '/') - file), file);
	for (int k = 0; k <= DEPTH; k++) {
		/* component k moved aside and a link to it put in its place:
		 * following the link would find the very same tree */
		const char *end = file + strlen(dir);
		for (int i = 0; i <= k; i++)
			end = strchr(end + 1, '/') ? strchr(end + 1, '/') : end + strlen(end);
		snprintf(comp, sizeof(comp), "%.*s", (int)(end - file), file);
		snprintf(real, sizeof(real), "%s.real", comp);
		cr_assert_eq(rename(comp, real), 0);
		cr_assert_eq(symlink(strrchr(real, '/') + 1, comp), 0);
		cr_assert_eq(stat(file, &st), 0, "the link leads to the same file");

		cr_expect_eq(pathwalk_walk(file, false), -ELOOP, "link at %d", k);
		cr_expect_eq(pathwalk_open(file, false), -ELOOP, "link at %d", k);
		cr_expect_eq(pathwalk_stat(file, false, &st), -ELOOP, "link at %d", k);
		cr_expect_eq(hostfs_look(file), -1, "link at %d", k);
		cr_expect_eq(hostfs_append_path(file, 0, 0600, NULL), -ELOOP, "link at %d", k);
		if (k < DEPTH) {
			cr_expect_eq(pathwalk_stat(file, true, &st), -ELOOP, "link at %d", k);
			cr_expect_eq(pathwalk_walk(parent, false), -ELOOP, "link at %d", k);
			cr_expect_eq(hostfs_dir_open(parent, 0, NULL), -ELOOP, "link at %d", k);
		} else {
			/* the last name may be a link: it is described, not followed */
			cr_expect_eq(pathwalk_stat(file, true, &st), 0);
			cr_expect(S_ISLNK(st.st_mode));
			int fd = pathwalk_walk(file, true);
			if (PORTABLE) {
				cr_expect_eq(fd, -EOPNOTSUPP, "without O_PATH a link is not held");
			} else {
				cr_assert_geq(fd, 0);
				cr_assert_eq(fstat(fd, &st), 0);
				cr_expect(S_ISLNK(st.st_mode));
				close(fd);
			}
		}
		cr_assert_eq(unlink(comp), 0);
		cr_assert_eq(rename(real, comp), 0);
	}
	/* and with none: each walk reaches it */
	int fd = pathwalk_walk(parent, false);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	close(fd);
	fd = hostfs_append_path(file, 0, 0600, NULL);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	close(fd);
	cr_expect_eq(hostfs_look(file), 1);
}

/* ---- a link swapped in while the walk runs */

/* `dir/d` is, in turn, the real directory and a link to `outside`, which
 * holds the same names: a walk that ever follows the link returns what is
 * outside. The renamer runs until killed. */
static void swap_tree(void)
{
	cr_assert_eq(mkdir(at("root"), 0700), 0);
	cr_assert_eq(mkdir(at("root/d"), 0700), 0);
	cr_assert_eq(mkdir(at("root/d/sub"), 0700), 0);
	touch(at("root/d/sub/f"));
	cr_assert_eq(mkdir(at("outside"), 0700), 0);
	cr_assert_eq(mkdir(at("outside/sub"), 0700), 0);
	touch(at("outside/sub/f"));
	cr_assert_eq(symlink(at("outside"), at("root/l")), 0);
}

static pid_t swapper(void)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char d[PATH_MAX + 300], l[PATH_MAX + 300], t[PATH_MAX + 300];
		snprintf(d, sizeof(d), "%s", at("root/d"));
		snprintf(l, sizeof(l), "%s", at("root/l"));
		snprintf(t, sizeof(t), "%s", at("root/t"));
		for (;;) {
			rename(d, t); /* d: gone */
			rename(l, d); /* d: the link */
			rename(d, l); /* d: gone */
			rename(t, d); /* d: the real directory */
		}
	}
	return pid;
}

Test(walk_attack, a_link_swapped_in_during_the_walk_never_leads_outside)
{
	struct stat in_sub, in_f, out_sub, out_f, st;
	int reached = 0, refused = 0, outside = 0;

	swap_tree();
	in_sub = id_of(at("root/d/sub"));
	in_f = id_of(at("root/d/sub/f"));
	pid_t pid = swapper();
	out_sub = id_of(at("outside/sub"));
	out_f = id_of(at("outside/sub/f"));
	for (int i = 0; i < 20000; i++) {
		int fd = pathwalk_walk(at("root/d/sub"), false);
		if (fd >= 0) {
			cr_assert_eq(fstat(fd, &st), 0);
			close(fd);
			outside += same(&st, &out_sub);
			reached += same(&st, &in_sub);
		} else {
			refused++;
		}
		if (!pathwalk_stat(at("root/d/sub/f"), false, &st)) {
			outside += same(&st, &out_f);
			reached += same(&st, &in_f);
		}
		fd = hostfs_dir_open(at("root/d/sub"), 0, NULL);
		if (fd >= 0) {
			cr_assert_eq(fstat(fd, &st), 0);
			close(fd);
			outside += same(&st, &out_sub);
		}
		fd = hostfs_append_path(at("root/d/sub/f"), 0, 0600, NULL);
		if (fd >= 0) {
			cr_assert_eq(fstat(fd, &st), 0);
			cr_assert_eq(write(fd, "in\n", 3), 3);
			close(fd);
			outside += same(&st, &out_f);
		}
		if (outside)
			break;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_expect_eq(outside, 0, "a walk returned what is outside (%d inside, %d refused)",
		     reached, refused);
	cr_log_info("swap race: %d reached inside, %d refused", reached, refused);
	/* the appends all went to the file inside */
	cr_expect_eq(id_of(at("outside/sub/f")).st_size, 0, "written through the link");
}

/* ---- `..` */

Test(walk_attack, dot_dot_never_leaves_by_a_link_and_hostfs_takes_none)
{
	struct stat st, want;

	cr_assert_eq(mkdir(at("a"), 0700), 0);
	cr_assert_eq(mkdir(at("a/b"), 0700), 0);
	cr_assert_eq(mkdir(at("far"), 0700), 0);
	cr_assert_eq(mkdir(at("far/deep"), 0700), 0);
	cr_assert_eq(symlink("../far/deep", at("a/l")), 0);
	/* `..` after a link: refused at the link, never the link's parent */
	cr_expect_eq(pathwalk_walk(at("a/l/../b"), false), -ELOOP);
	cr_expect_eq(pathwalk_open(at("a/l/../b"), false), -ELOOP);
	cr_expect_eq(pathwalk_stat(at("a/l/.."), false, &st), -ELOOP);
	/* `..` of a real directory is its parent, as the kernel walks it */
	int fd = pathwalk_walk(at("a/b/../b"), false);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_eq(fstat(fd, &st), 0);
	want = id_of(at("a/b"));
	cr_expect(same(&st, &want));
	close(fd);
	/* and `/..` is `/` */
	fd = pathwalk_walk("/../..", false);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fstat(fd, &st), 0);
	want = id_of("/");
	cr_expect(same(&st, &want));
	close(fd);
	/* pathwalk_dirat takes one name: a path in it is refused */
	int base = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(base, 0);
	cr_expect_eq(pathwalk_dirat(base, "a/b", O_RDONLY), -1);
	cr_expect_eq(errno, EINVAL);
	cr_expect_eq(pathwalk_dirat(base, "a/l", O_RDONLY), -1);
	cr_expect_eq(pathwalk_dirat(base, "", O_RDONLY), -1);
	close(base);
	/* hostfs walks no `..` at all (what it made before meeting one stays,
	 * inside) */
	base = hostfs_dir_open(dir, 0, NULL);
	cr_assert_geq(base, 0);
	cr_expect_eq(hostfs_dir_openat(base, dir, "a/../../escaped", HOSTFS_CREATE, NULL),
		     -EINVAL);
	cr_expect_eq(hostfs_dir_openat(base, dir, "new/../../escaped", HOSTFS_CREATE, NULL),
		     -EINVAL);
	cr_expect_neq(access(at("../escaped"), F_OK), 0);
	cr_expect_eq(hostfs_append(base, dir, "..", 0600, NULL), -EINVAL);
	close(base);
	cr_expect_eq(hostfs_look(at("a/../far")), -1, "hostfs_look folds no `..`");
}

/* ---- FIFOs and devices at the end */

/* Is anyone holding the FIFO open for reading? (a writer's non-blocking
 * open fails ENXIO when no one is) */
static bool fifo_has_reader(const char *path)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

Test(walk_attack, a_fifo_or_a_device_at_the_end_is_never_opened)
{
	struct stat st;

	cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
	/* each held while the reader check runs: a walk that opened the
	 * FIFO for reading (O_NONBLOCK) would be seen here; one without
	 * O_NONBLOCK would hang until the suite's timeout */
	int fd = pathwalk_walk(at("fifo"), false);
	int fd2 = pathwalk_open(at("fifo"), false);
	bool read_open = fifo_has_reader(at("fifo"));
	cr_expect(!read_open, "the FIFO was opened for reading");
	if (PORTABLE) {
		cr_expect_eq(fd, -EOPNOTSUPP);
		cr_expect_eq(fd2, -EOPNOTSUPP);
	} else {
		cr_assert_geq(fd, 0);
		cr_expect_eq(fcntl(fd, F_GETFL) & O_PATH, O_PATH);
	}
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
	cr_expect_eq(pathwalk_stat(at("fifo"), false, &st), 0);
	cr_expect(S_ISFIFO(st.st_mode));
	cr_expect_eq(pathwalk_walk(at("fifo/x"), false), -ENOTDIR);
	cr_expect_eq(hostfs_dir_open(at("fifo"), 0, NULL), -ENOTDIR);
	cr_expect_eq(hostfs_look(at("fifo")), 1);
	cr_expect_eq(hostfs_look(at("fifo/x")), 0);
	int base = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(base, 0);
	cr_expect_eq(pathwalk_dirat(base, "fifo", O_RDONLY), -1);
	cr_expect_eq(errno, ENOTDIR);
	close(base);
	cr_expect(!fifo_has_reader(at("fifo")));

	/* a device: /dev/null (a program cannot make one, but one could be
	 * on the way: a bind mount, a tree the user gave) */
	fd = pathwalk_walk("/dev/null", false);
	if (PORTABLE) {
		cr_expect_eq(fd, -EOPNOTSUPP);
	} else {
		cr_assert_geq(fd, 0);
		cr_expect_eq(fcntl(fd, F_GETFL) & O_PATH, O_PATH, "opened for reading");
		close(fd);
	}
	cr_expect_eq(pathwalk_stat("/dev/null", false, &st), 0);
	cr_expect(S_ISCHR(st.st_mode));
	cr_expect_eq(hostfs_dir_open("/dev/null", 0, NULL), -ENOTDIR);
	base = open("/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(base, 0);
	cr_expect_eq(pathwalk_dirat(base, "null", O_RDONLY), -1);
	cr_expect_eq(errno, ENOTDIR);
	close(base);
}

/* ---- long paths and odd names */

Test(walk_attack, a_path_longer_than_path_max_is_walked_and_a_link_deep_in_it_refused)
{
	char name[201], *path = malloc(64 * 1024);
	size_t len;
	struct stat st, want;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert_not_null(path);
	memset(name, 'n', 200);
	name[200] = '\0';
	snprintf(path, 64 * 1024, "%s", dir);
	len = strlen(path);
	/* 60 levels of 200 bytes: about 12 KiB, three times PATH_MAX */
	for (int i = 0; i < 60; i++) {
		name[0] = (char)('A' + i % 26);
		cr_assert_eq(mkdirat(fd, name, 0700), 0);
		int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		cr_assert_geq(next, 0);
		close(fd);
		fd = next;
		len += (size_t)snprintf(path + len, 64 * 1024 - len, "/%s", name);
	}
	cr_assert_gt(len, PATH_MAX);
	cr_assert_eq(fstat(fd, &want), 0);
	int got = pathwalk_walk(path, false);
	cr_assert_geq(got, 0, "%s", strerror(-got));
	cr_assert_eq(fstat(got, &st), 0);
	cr_expect(same(&st, &want));
	close(got);
	cr_expect_eq(pathwalk_stat(path, false, &st), 0);
	cr_expect(same(&st, &want));
	/* the deepest directory's child replaced by a link to it */
	cr_assert_eq(symlinkat(".", fd, "loop"), 0);
	len += (size_t)snprintf(path + len, 64 * 1024 - len, "/loop/x");
	cr_expect_eq(pathwalk_walk(path, false), -ELOOP);
	cr_expect_eq(pathwalk_stat(path, false, &st), -ELOOP);
	cr_expect_eq(hostfs_look(path), -1);
	close(fd);
	/* one name longer than NAME_MAX */
	char big[NAME_MAX + 40];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(path, 64 * 1024, "%s/%s", dir, big);
	cr_expect_eq(pathwalk_walk(path, false), -ENAMETOOLONG);
	cr_expect_eq(pathwalk_stat(path, false, &st), -ENAMETOOLONG);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_expect_eq(pathwalk_dirat(fd, big, O_RDONLY), -1);
	close(fd);
	free(path);
}

Test(walk_attack, names_with_newlines_are_names)
{
	struct stat st, want;
	struct hostfs_err err = { "" };

	cr_assert_eq(mkdir(at("a\nb"), 0700), 0);
	cr_assert_eq(mkdir(at("a"), 0700), 0);
	touch(at("a\nb/f"));
	/* `a\n` a link beside the real `a\nb` */
	cr_assert_eq(symlink("a\nb", at("a\n")), 0);
	want = id_of(at("a\nb/f"));
	cr_expect_eq(pathwalk_stat(at("a\nb/f"), false, &st), 0);
	cr_expect(same(&st, &want));
	cr_expect_eq(pathwalk_stat(at("a\n/f"), false, &st), -ELOOP);
	cr_expect_eq(pathwalk_walk(at("a\n"), false), -ELOOP);
	int fd = pathwalk_walk(at("a\nb"), false);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_expect_eq(hostfs_dir_open(at("a\n"), 0, &err), -ELOOP);
	cr_expect(strstr(err.msg, "a\n is a symbolic link"), "%s", err.msg);
	fd = hostfs_append_path(at("a\nb/log\n"), 0, 0600, &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	close(fd);
	cr_expect_eq(access(at("a\nb/log\n"), F_OK), 0);
	cr_expect_neq(access(at("a\nb/log"), F_OK), 0);
	cr_expect_eq(hostfs_look(at("a\nb/f")), 1);
	cr_expect_eq(hostfs_look(at("a\n/f")), -1);
}
