/* common/hostfs.c: the supervisor's own files on the host, reached
 * only through held directories, never through a link, a hard link or a
 * directory someone else owns. Each test plants what a sandboxed program
 * could (it controls every name in the writable roots) and checks that the
 * file it points at is untouched. */
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

static char dir[PATH_MAX];

static void setup(void)
{
	char real[PATH_MAX];

	snprintf(dir, sizeof(dir), "/var/tmp/sbx-unit-hostfs.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	memcpy(dir, real, strlen(real) + 1);
}

static void teardown(void)
{
	char cmd[2 * PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", dir, dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(hostfs, .init = setup, .fini = teardown);

/* Criterion does not run .fini after cr_skip_test(): remove the fresh
 * directory first, so that a skipped test leaves nothing in /var/tmp. */
#define skip_test(why)                \
	do {                          \
		teardown();           \
		cr_skip_test(why);    \
	} while (0)

static char *at(const char *name)
{
	static char p[4][PATH_MAX + 300];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put(const char *name, const char *text)
{
	int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	cr_assert_geq(fd, 0, "%s: %s", at(name), strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static const char *get(const char *name)
{
	static char buf[4096];
	int fd = open(at(name), O_RDONLY);
	ssize_t n;

	cr_assert_geq(fd, 0, "%s: %s", at(name), strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static void wr(int fd, const char *text)
{
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
}

/* ---- directories */

Test(hostfs, dir_open_makes_the_missing_directories_private)
{
	struct hostfs_err err = { "" };
	struct stat st;
	int fd = hostfs_dir_open(at("state/sbx/learned"), HOSTFS_CREATE | HOSTFS_MINE, &err);

	cr_assert_geq(fd, 0, "%s", err.msg);
	cr_assert_eq(stat(at("state/sbx/learned"), &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	cr_assert_eq(stat(at("state"), &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	close(fd);
}

Test(hostfs, dir_open_refuses_a_link_on_the_way_and_names_it)
{
	struct hostfs_err err = { "" };

	cr_assert_eq(mkdir(at("elsewhere"), 0700), 0);
	cr_assert_eq(mkdir(at("home"), 0700), 0);
	cr_assert_eq(symlink("../elsewhere", at("home/.local")), 0);
	cr_assert_eq(hostfs_dir_open(at("home/.local/state/sbx"), HOSTFS_CREATE, &err), -ELOOP);
	cr_assert(strstr(err.msg, "home/.local is a symbolic link"), "%s", err.msg);
	cr_assert_neq(access(at("elsewhere/state"), F_OK), 0, "created through the link");
}

Test(hostfs, dir_open_without_create_does_not_make_anything)
{
	cr_assert_eq(hostfs_dir_open(at("missing/sub"), 0, NULL), -ENOENT);
	cr_assert_neq(access(at("missing"), F_OK), 0);
}

Test(hostfs, dir_open_refuses_a_directory_anyone_may_swap)
{
	struct hostfs_err err = { "" };

	cr_assert_eq(mkdir(at("open"), 0700), 0);
	cr_assert_eq(chmod(at("open"), 0777), 0);
	cr_assert_eq(hostfs_dir_open(at("open/sbx"), HOSTFS_CREATE, &err), -EPERM);
	cr_assert(strstr(err.msg, "may be written by anyone"), "%s", err.msg);
	/* sticky, as /tmp: others cannot rename what is ours there */
	cr_assert_eq(chmod(at("open"), 01777), 0);
	int fd = hostfs_dir_open(at("open/sbx"), HOSTFS_CREATE, &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	close(fd);
}

Test(hostfs, dir_open_refuses_a_directory_of_another_user)
{
	struct hostfs_err err = { "" };

	if (geteuid() != 0)
		skip_test("needs root to give a directory away");
	cr_assert_eq(mkdir(at("theirs"), 0755), 0);
	cr_assert_eq(chown(at("theirs"), 65534, 65534), 0);
	cr_assert_eq(hostfs_dir_open(at("theirs"), 0, &err), -EPERM);
	cr_assert(strstr(err.msg, "neither you nor root"), "%s", err.msg);
	/* ANYOWNER: the user's tree, where only links are refused */
	int fd = hostfs_dir_open(at("theirs"), HOSTFS_ANYOWNER, &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	close(fd);
}

Test(hostfs, dir_open_mine_refuses_a_root_owned_directory_for_a_user)
{
	struct hostfs_err err = { "" };

	if (geteuid() == 0)
		skip_test("root owns everything it makes");
	cr_assert_eq(hostfs_dir_open("/var", HOSTFS_MINE, &err), -EPERM);
	cr_assert(strstr(err.msg, "not to you"), "%s", err.msg);
}

Test(hostfs, dir_openat_refuses_dot_dot)
{
	int base = hostfs_dir_open(dir, 0, NULL);

	cr_assert_geq(base, 0);
	cr_assert_eq(hostfs_dir_openat(base, dir, "a/../b", HOSTFS_CREATE, NULL), -EINVAL);
	cr_assert_eq(hostfs_dir_openat(base, dir, "/etc", 0, NULL), -EINVAL);
	close(base);
}

/* ---- appending (the audit log) */

Test(hostfs, append_creates_a_private_file_and_appends)
{
	struct hostfs_err err = { "" };
	struct stat st;
	int fd = hostfs_append_path(at("log/audit.jsonl"), HOSTFS_CREATE, 0600, &err);

	cr_assert_geq(fd, 0, "%s", err.msg);
	wr(fd, "one\n");
	close(fd);
	fd = hostfs_append_path(at("log/audit.jsonl"), 0, 0600, &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	wr(fd, "two\n");
	close(fd);
	cr_assert_str_eq(get("log/audit.jsonl"), "one\ntwo\n");
	cr_assert_eq(stat(at("log/audit.jsonl"), &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
}

Test(hostfs, append_never_follows_a_link_at_the_name,
     .description = "ln -s ../../../.bashrc ~/.local/state/sbx/audit.jsonl must not "
		    "have the audit log appended to ~/.bashrc")
{
	struct hostfs_err err = { "" };

	put(".bashrc", "# canary\n");
	cr_assert_eq(mkdir(at("state"), 0700), 0);
	cr_assert_eq(symlink("../.bashrc", at("state/audit.jsonl")), 0);
	cr_assert_eq(hostfs_append_path(at("state/audit.jsonl"), 0, 0600, &err), -ELOOP);
	cr_assert(strstr(err.msg, "state/audit.jsonl is a symbolic link"), "%s", err.msg);
	cr_assert_str_eq(get(".bashrc"), "# canary\n");
	/* a link to nothing: not created at its target either */
	cr_assert_eq(symlink("../made-by-link", at("state/dangling")), 0);
	cr_assert_eq(hostfs_append_path(at("state/dangling"), 0, 0600, NULL), -ELOOP);
	cr_assert_neq(access(at("made-by-link"), F_OK), 0);
}

Test(hostfs, append_refuses_a_hard_link)
{
	struct hostfs_err err = { "" };

	put(".bashrc", "# canary\n");
	cr_assert_eq(mkdir(at("state"), 0700), 0);
	cr_assert_eq(link(at(".bashrc"), at("state/audit.jsonl")), 0);
	cr_assert_eq(hostfs_append_path(at("state/audit.jsonl"), 0, 0600, &err), -EMLINK);
	cr_assert(strstr(err.msg, "hard links"), "%s", err.msg);
	cr_assert_str_eq(get(".bashrc"), "# canary\n");
}

Test(hostfs, append_refuses_a_file_of_another_user)
{
	struct hostfs_err err = { "" };

	if (geteuid() != 0)
		skip_test("needs root to give a file away");
	put("log", "theirs\n");
	cr_assert_eq(chown(at("log"), 65534, 65534), 0);
	cr_assert_eq(hostfs_append_path(at("log"), 0, 0600, &err), -EPERM);
	cr_assert(strstr(err.msg, "is not yours"), "%s", err.msg);
	cr_assert_str_eq(get("log"), "theirs\n");
}

Test(hostfs, append_to_a_fifo_neither_blocks_nor_writes)
{
	cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
	cr_assert_eq(hostfs_append_path(at("fifo"), 0, 0600, NULL), -EINVAL);
}

Test(hostfs, append_to_dev_null_works)
{
	struct hostfs_err err = { "" };
	int fd = hostfs_append_path("/dev/null", 0, 0600, &err);

	cr_assert_geq(fd, 0, "%s", err.msg);
	wr(fd, "x\n");
	close(fd);
}

/* ---- new files and atomic replace (the learned policy) */

Test(hostfs, create_never_follows_a_dangling_link)
{
	int base = hostfs_dir_open(dir, 0, NULL);

	cr_assert_geq(base, 0);
	cr_assert_eq(symlink("victim", at("new.ini")), 0);
	cr_assert_eq(hostfs_create(base, dir, "new.ini", 0600, NULL), -EEXIST);
	cr_assert_neq(access(at("victim"), F_OK), 0);
	close(base);
}

Test(hostfs, replace_ignores_a_link_planted_at_the_usual_temporary_name,
     .description = "learned/<stamp>.ini.tmp -> ~/.ssh/authorized_keys must not be "
		    "truncated or written")
{
	struct hostfs_err err = { "" };
	struct hostfs_replace r;

	put("authorized_keys", "ssh-ed25519 AAAA user\n");
	cr_assert_eq(mkdir(at("learned"), 0700), 0);
	cr_assert_eq(symlink("../authorized_keys", at("learned/x.ini.tmp")), 0);
	int base = hostfs_dir_open(at("learned"), HOSTFS_MINE, &err);
	cr_assert_geq(base, 0, "%s", err.msg);
	cr_assert_eq(hostfs_replace_begin(base, at("learned"), "x.ini", 0600, &r, &err), 0,
		     "%s", err.msg);
	wr(r.fd, "[filesystem]\n");
	cr_assert_eq(hostfs_replace_commit(&r, &err), 0, "%s", err.msg);
	close(base);
	cr_assert_str_eq(get("authorized_keys"), "ssh-ed25519 AAAA user\n");
	cr_assert_str_eq(get("learned/x.ini"), "[filesystem]\n");
}

Test(hostfs, replace_puts_a_file_where_a_link_was_and_leaves_its_target)
{
	struct hostfs_replace r;
	struct stat st;

	put("target", "keep\n");
	cr_assert_eq(symlink("target", at("out.ini")), 0);
	int base = hostfs_dir_open(dir, 0, NULL);
	cr_assert_geq(base, 0);
	cr_assert_eq(hostfs_replace_begin(base, dir, "out.ini", 0600, &r, NULL), 0);
	wr(r.fd, "new\n");
	cr_assert_eq(hostfs_replace_commit(&r, NULL), 0);
	close(base);
	cr_assert_eq(lstat(at("out.ini"), &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_str_eq(get("out.ini"), "new\n");
	cr_assert_str_eq(get("target"), "keep\n");
}

Test(hostfs, replace_aborted_leaves_nothing_behind)
{
	struct hostfs_replace r;
	int base = hostfs_dir_open(dir, 0, NULL), n = 0;
	char cmd[PATH_MAX + 64], out[16] = "";

	cr_assert_geq(base, 0);
	cr_assert_eq(hostfs_replace_begin(base, dir, "x.ini", 0600, &r, NULL), 0);
	hostfs_replace_abort(&r);
	hostfs_replace_abort(&r);
	close(base);
	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	if (fgets(out, sizeof(out), p))
		n = atoi(out);
	pclose(p);
	cr_assert_eq(n, 0, "%d entries left", n);
}

/* ---- paths the user names */

Test(hostfs, trust_path_resolves_the_existing_part_and_keeps_the_last_name)
{
	char out[PATH_MAX];

	cr_assert_eq(mkdir(at("real"), 0700), 0);
	cr_assert_eq(symlink("real", at("alias")), 0);
	cr_assert_eq(symlink("/etc/passwd", at("real/log")), 0);
	cr_assert_eq(hostfs_trust_path(at("alias/log"), 1, out, sizeof(out)), 0);
	cr_assert_str_eq(out, at("real/log"), "the last name is never resolved");
	cr_assert_eq(hostfs_trust_path(at("alias/new/sub/x.jsonl"), 1, out, sizeof(out)), 0);
	cr_assert_str_eq(out, at("real/new/sub/x.jsonl"));
	cr_assert_eq(hostfs_trust_path(at("alias/./new/../y"), 0, out, sizeof(out)), 0);
	cr_assert_str_eq(out, at("real/y"));
	cr_assert_eq(hostfs_trust_path("/x", 1, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/x");
	cr_assert_eq(hostfs_trust_path("relative", 1, out, sizeof(out)), -EINVAL);
}
