/* tests/unit/shim_dyld.c: the macOS wrappers (shim/darwin.c,
 * sbx_dyld_NAME) called directly, on Linux, on real files in a temporary
 * directory, with the check core built as macOS builds it (SBX_PORTABLE:
 * libc's calls, no /proc; shim/port.h) and handed its policy as the
 * darwin backend hands it over (shim/core.c's header): SBX_SHIM made by
 * launch.c's darwin_shim_spec, naming the policy blob in a file, the
 * report FIFO this process reads, and the counters file, in a directory
 * the policy does not let the sandbox write. What a refusal said is read
 * back from the FIFO, as the supervisor reads it (wire_join, wire_decode).
 *
 * Built as a runner of its own (Makefile, build/tests/shim-dyld): it
 * links the shim's core, and the interpose table, so a name in the table
 * without a wrapper fails its link. The wrappers call glibc's functions
 * of the same names here, libSystem's on a Mac. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "backend/darwin/interpose.h"
#include "backend/darwin/launch.h"
#include "common/wire.h"
#include "common/wire_join.h"
#include "shim/core.h"
#include "tests/unit/helpers.h"

/* shim/darwin.c's, as libSystem's prototypes (they are not in a header:
 * only dyld's table names them) */
int sbx_dyld_open(const char *path, int flags, ...);
int sbx_dyld_openat(int dirfd, const char *path, int flags, ...);
int sbx_dyld_fcntl(int fd, int cmd, ...);
int sbx_dyld_stat(const char *p, struct stat *b);
int sbx_dyld_mkdir(const char *p, mode_t m);
int sbx_dyld_rename(const char *a, const char *b);
int sbx_dyld_chdir(const char *p);
int sbx_dyld_fchdir(int fd);
pid_t sbx_dyld_fork(void);
int sbx_dyld_setxattr(const char *p, const char *n, const void *v, size_t s, uint32_t pos,
		      int o);
FILE *sbx_dyld_fopen(const char *p, const char *m);
int sbx_dyld_execve(const char *p, char *const argv[], char *const envp[]);
int sbx_dyld_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			 const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int sbx_dyld_connect(int fd, const struct sockaddr *sa, socklen_t len);
int sbx_dyld_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
			 struct addrinfo **res);

extern const struct sbx_interpose sbx_interpose_table[];
extern const unsigned sbx_interpose_count;

static char *root;    /* the writable root: allow_write */
static char *other;   /* readable, not writable (deny_write) */
static char *run;     /* the supervisor's: the handed-over files (deny_write) */
static int reports;   /* the report FIFO's read end */
static void *blob;    /* the policy, as policy/blob.c makes it */
static size_t blob_len;

/* base/rel, kept until the suite's teardown frees it (a test that
 * reallocates one takes a copy) */
static char *paths_made[1024];
static size_t npaths_made;

static char *at(const char *base, const char *rel)
{
	char *p;

	cr_assert_lt(npaths_made, sizeof(paths_made) / sizeof(paths_made[0]));
	cr_assert_gt(asprintf(&p, "%s/%s", base, rel), 0);
	return paths_made[npaths_made++] = p;
}

static void put_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* SBX_SHIM as launch.c makes it for these three paths */
static void set_spec(const char *policy, const char *report, const char *counters)
{
	struct darwin_shim_handover h = { .lib = "/opt/sbx/lib/libsbx-preload.dylib",
					  .policy = policy, .report = report,
					  .counters = counters };
	char *spec;

	cr_assert_eq(darwin_shim_spec(&h, &spec), 0);
	cr_assert_eq(setenv("SBX_SHIM", spec, 1), 0);
	free(spec);
}

static void setup(void)
{
	char *ini;

	root = make_tmpdir();
	other = make_tmpdir();
	run = make_tmpdir();
	make_dirs(root, "secret");
	write_file(at(root, "secret/key"), "SECRET\n");
	write_file(at(root, "ok.txt"), "hello\n");
	write_file(at(other, "ro.txt"), "read me\n");
	cr_assert_gt(asprintf(&ini, "[filesystem]\nallow_write = %s\ndeny_read = %s/secret\n"
				    "deny_write = %s\ndeny_write = %s\n"
				    "[network]\nallow_domains = example.com\n",
			      root, root, other, run), 0);
	struct policy *p = compile_ini(ini);
	cr_assert_eq(policy_to_blob(p, &blob, &blob_len), 0);
	policy_free(p);
	free(ini);
	put_file(at(run, "policy"), blob, blob_len, 0444);
	cr_assert_eq(mkfifo(at(run, "reports"), 0600), 0);
	/* the supervisor holds the read end for the run */
	reports = open(at(run, "reports"), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	cr_assert_geq(reports, 0);
	put_file(at(run, "dropped"), "", 0, 0600);
	set_spec(at(run, "policy"), at(run, "reports"), at(run, "dropped"));
}

static void teardown(void)
{
	remove_tree(root);
	remove_tree(other);
	remove_tree(run);
	free(root);
	free(other);
	free(run);
	free(blob);
	while (npaths_made)
		free(paths_made[--npaths_made]);
}

TestSuite(shim_dyld, .init = setup, .fini = teardown);

/* One line read from the FIFO into out (a piece joined first, as the
 * supervisor joins it: common/wire_join.h); 1 if it made a report, 0 if
 * a piece was held. Every line must have been one write a Mac's FIFO
 * takes whole (WIRE_ATOMIC, macOS's PIPE_BUF here: the Makefile). */
static int take_line(struct wire_join *j, const char *line, size_t len, struct wire_report *out)
{
	const char *whole = line;
	size_t wlen = len;
	int pid = 0;

	cr_assert_leq(len + 1, WIRE_ATOMIC, "a write of %zu bytes into the FIFO, more than "
		      "macOS's takes whole: %.60s...", len + 1, line);
	if (len >= 5 && !memcmp(line, "SBXP ", 5)) {
		enum wire_join_rc rc = wire_join_take(j, line, len, &whole, &wlen, &pid);
		cr_assert_neq(rc, WIRE_JOIN_MALFORMED, "a malformed piece: %.*s", (int)len, line);
		if (rc == WIRE_JOIN_HELD)
			return 0;
	}
	cr_assert_eq(wire_decode(whole, wlen, out), 0, "a malformed report: %.*s", (int)wlen,
		     whole);
	cr_assert(!pid || out->pid == pid, "pieces of pid %d joined into a line of pid %d", pid,
		  out->pid);
	return 1;
}

/* Every report written so far, decoded; how many. */
static size_t drain(struct wire_report *out, size_t max)
{
	static char buf[1 << 20]; /* a FIFO's most (F_SETPIPE_SZ) */
	struct wire_join j = { 0 };
	size_t have = 0, n = 0;
	ssize_t r;

	while ((r = read(reports, buf + have, sizeof(buf) - 1 - have)) > 0)
		have += (size_t)r;
	buf[have] = '\0';
	for (char *line = buf, *nl; n < max && (nl = strchr(line, '\n')); line = nl + 1)
		n += (size_t)take_line(&j, line, (size_t)(nl - line), &out[n]);
	cr_assert_eq(wire_join_end(&j), 0, "a line begun as pieces was never finished");
	wire_join_free(&j);
	return n;
}

static void expect_one_report(char decision, enum wire_op op, const char *target, int err)
{
	static struct wire_report r[4];
	size_t n = drain(r, 4);

	cr_assert_eq(n, 1, "%zu reports, expected one of %s", n, target);
	cr_assert_eq(r[0].decision, decision);
	cr_assert_eq(r[0].op, op, "op %s", wire_op_name(r[0].op));
	cr_assert_str_eq(r[0].target, target);
	cr_assert_eq(r[0].err, err, "err %d", r[0].err);
	cr_assert_eq(r[0].pid, getpid());
}

static void expect_no_report(void)
{
	static struct wire_report r[4];
	size_t n = drain(r, 4);

	cr_assert_eq(n, 0, "an unexpected report: %c %s %s", r[0].decision,
		     wire_op_name(r[0].op), r[0].target);
}

Test(shim_dyld, a_read_denied_file_is_refused_with_eacces_and_reported)
{
	char *key = at(root, "secret/key");

	errno = 0;
	cr_assert_eq(sbx_dyld_open(key, O_RDONLY), -1);
	cr_assert_eq(errno, EACCES, "errno %d", errno);
	expect_one_report(WIRE_DENY, WIRE_READ, key, EACCES);
	/* the same through openat, relative to the directory */
	int d = open(root, O_RDONLY | O_DIRECTORY);
	cr_assert_eq(sbx_dyld_openat(d, "secret/key", O_RDONLY), -1);
	cr_assert_eq(errno, EACCES);
	expect_one_report(WIRE_DENY, WIRE_READ, key, EACCES);
	struct stat st;
	cr_assert_eq(sbx_dyld_stat(key, &st), -1);
	cr_assert_eq(errno, EACCES);
	expect_one_report(WIRE_DENY, WIRE_READ, key, EACCES);
	cr_assert_null(sbx_dyld_fopen(key, "r"));
	cr_assert_eq(errno, EACCES);
	expect_one_report(WIRE_DENY, WIRE_READ, key, EACCES);
	close(d);
}

Test(shim_dyld, an_allowed_file_opens_for_real_and_errno_is_kept)
{
	char buf[16] = "";
	struct stat st;

	errno = EDOM;
	int fd = sbx_dyld_open(at(root, "ok.txt"), O_RDONLY);
	cr_assert_geq(fd, 0, "open: %s", strerror(errno));
	cr_assert_eq(errno, EDOM, "errno %d after an allowed open", errno);
	cr_assert_eq(read(fd, buf, sizeof(buf) - 1), 6);
	cr_assert_str_eq(buf, "hello\n");
	close(fd);
	errno = EDOM;
	cr_assert_eq(sbx_dyld_stat(at(other, "ro.txt"), &st), 0);
	cr_assert_eq(errno, EDOM);
	cr_assert_eq(st.st_size, 8);
	/* a read of what may not be written, by a mode that only reads */
	FILE *f = sbx_dyld_fopen(at(other, "ro.txt"), "r");
	cr_assert_not_null(f);
	cr_assert_eq(errno, EDOM);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	cr_assert_str_eq(buf, "read me\n");
	fclose(f);
	expect_no_report();
}

Test(shim_dyld, the_mode_reaches_the_real_open)
{
	struct stat st;
	char *made = at(root, "made"), *made2 = at(root, "made2");
	int d = open(root, O_RDONLY | O_DIRECTORY);

	umask(022);
	int fd = sbx_dyld_open(made, O_CREAT | O_EXCL | O_WRONLY, 0640);
	cr_assert_geq(fd, 0, "open: %s", strerror(errno));
	cr_assert_eq(write(fd, "x", 1), 1);
	close(fd);
	cr_assert_eq(stat(made, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0640, "mode %o", st.st_mode & 07777);
	fd = sbx_dyld_openat(d, "made2", O_CREAT | O_WRONLY, 0604);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(stat(made2, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0604, "mode %o", st.st_mode & 07777);
	close(d);
	expect_no_report();
}

Test(shim_dyld, fcntl_passes_its_third_argument)
{
	int fd = open(at(root, "ok.txt"), O_RDONLY);

	cr_assert_eq(sbx_dyld_fcntl(fd, F_SETFD, FD_CLOEXEC), 0);
	cr_assert_eq(fcntl(fd, F_GETFD), FD_CLOEXEC);
	cr_assert_eq(sbx_dyld_fcntl(fd, F_SETFD, 0), 0);
	cr_assert_eq(fcntl(fd, F_GETFD), 0);
	int dup = sbx_dyld_fcntl(fd, F_DUPFD_CLOEXEC, 200);
	cr_assert_geq(dup, 200);
	cr_assert_eq(sbx_dyld_fcntl(dup, F_GETFD), FD_CLOEXEC);
	close(dup);
	close(fd);
}

Test(shim_dyld, a_write_outside_the_writable_roots_is_refused_with_erofs)
{
	char *ro = at(other, "ro.txt"), *dir = at(other, "newdir");

	cr_assert_eq(sbx_dyld_open(ro, O_WRONLY | O_APPEND), -1);
	cr_assert_eq(errno, EROFS, "errno %d", errno);
	expect_one_report(WIRE_DENY, WIRE_WRITE, ro, EROFS);
	cr_assert_eq(sbx_dyld_mkdir(dir, 0755), -1);
	cr_assert_eq(errno, EROFS);
	static struct wire_report r[2];
	cr_assert_eq(drain(r, 2), 1);
	cr_assert_str_eq(r[0].target, dir);
	cr_assert(r[0].dir, "a directory being made is said with its `/`");
	/* a rename's destination */
	cr_assert_eq(sbx_dyld_rename(at(root, "ok.txt"), at(other, "moved")), -1);
	cr_assert_eq(errno, EROFS);
	expect_one_report(WIRE_DENY, WIRE_WRITE, at(other, "moved"), EROFS);
	/* Darwin's setxattr, its options as Darwin's */
	cr_assert_eq(sbx_dyld_setxattr(ro, "user.x", "v", 1, 0, 0), -1);
	cr_assert_eq(errno, EROFS);
	expect_one_report(WIRE_DENY, WIRE_WRITE, ro, EROFS);
	struct stat st;
	cr_assert_eq(stat(dir, &st), -1, "the directory was made");
	cr_assert_eq(stat(at(other, "moved"), &st), -1, "the file was moved");
}

/* fopen's mode read to its NUL, as libc reads it: a `+` anywhere after
 * the `r` opens for writing too */
Test(shim_dyld, fopen_modes_that_write_are_judged_as_writes)
{
	char *ro = at(other, "ro.txt");
	static const char *const modes[] = { "r+", "rb+", "rxe+", "w", "a", "re+" };

	for (size_t i = 0; i < ARRAY_LEN(modes); i++) {
		errno = 0;
		cr_assert_null(sbx_dyld_fopen(ro, modes[i]), "fopen %s", modes[i]);
		cr_assert_eq(errno, EROFS, "fopen %s: errno %d", modes[i], errno);
		expect_one_report(WIRE_DENY, WIRE_WRITE, ro, EROFS);
	}
	/* ... and nothing past the NUL: a `+` there is not the mode's */
	static const char only_r[] = { 'r', '\0', '+', '\0' };
	FILE *f = sbx_dyld_fopen(ro, only_r);
	cr_assert_not_null(f, "fopen \"r\\0+\": %s", strerror(errno));
	fclose(f);
	expect_no_report();
}

Test(shim_dyld, a_program_in_a_read_denied_directory_is_not_run)
{
	char *prog = at(root, "secret/prog"), *elsewhere = at(root, "no-such-prog");
	char *argv[] = { "prog", NULL }, *envp[] = { NULL };
	pid_t pid = 0;

	cr_assert_eq(sbx_dyld_execve(prog, argv, envp), -1);
	cr_assert_eq(errno, EPERM, "errno %d", errno);
	expect_one_report(WIRE_DENY, WIRE_EXEC, prog, EPERM);
	/* posix_spawn says it in its return, errno untouched */
	errno = EDOM;
	cr_assert_eq(sbx_dyld_posix_spawn(&pid, prog, NULL, NULL, argv, envp), EPERM);
	cr_assert_eq(errno, EDOM);
	expect_one_report(WIRE_DENY, WIRE_EXEC, prog, EPERM);
	/* allowed: the real execve answers (there is no such file) */
	cr_assert_eq(sbx_dyld_execve(elsewhere, argv, envp), -1);
	cr_assert_eq(errno, ENOENT);
	expect_no_report();
}

Test(shim_dyld, chdir_into_a_read_denied_directory_is_refused)
{
	char *secret = at(root, "secret");

	cr_assert_eq(sbx_dyld_chdir(secret), -1);
	cr_assert_eq(errno, EACCES);
	expect_one_report(WIRE_DENY, WIRE_READ, secret, EACCES);
	/* and a relative path after an allowed chdir is judged from there */
	cr_assert_eq(sbx_dyld_chdir(root), 0);
	cr_assert_eq(sbx_dyld_open("secret/key", O_RDONLY), -1);
	cr_assert_eq(errno, EACCES);
	expect_one_report(WIRE_DENY, WIRE_READ, at(root, "secret/key"), EACCES);
}

/* fchdir moves the directory relative paths are judged from: the cache
 * of the old one (filled by a relative stat) is dropped (wrap.h, shared
 * with Linux's fchdir) */
Test(shim_dyld, a_relative_path_after_fchdir_is_judged_from_the_new_directory)
{
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	cr_assert_geq(dfd, 0);
	cr_assert_eq(chdir(other), 0); /* libc's own: nothing cached yet */
	cr_assert_eq(sbx_dyld_stat("ro.txt", &st), 0);
	expect_no_report();
	cr_assert_eq(sbx_dyld_fchdir(dfd), 0);
	cr_assert_eq(sbx_dyld_open("secret/key", O_RDONLY), -1);
	cr_assert_eq(errno, EACCES);
	expect_one_report(WIRE_DENY, WIRE_READ, at(root, "secret/key"), EACCES);
	close(dfd);
}

/* fork's child (wrap.h, shared with Linux's fork): its own pid, so the
 * cwd cache is its own to fill, and its count of checks from 0 */
Test(shim_dyld, a_fork_child_owns_its_cwd_cache_and_counts_its_checks_from_zero)
{
	struct stat st;
	int status;
	pid_t pid;

	cr_assert_eq(sbx_dyld_stat(at(root, "ok.txt"), &st), 0);
	cr_assert_gt(shim_checks_made, 0);
	pid = sbx_dyld_fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(shim_forked_pid == getpid() && shim_checks_made == 0 ? 0 : 3);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}

/* A refusal told to the program's stderr ([report] tell_program) looks at
 * the paths its hint would name (tell.c, sandbox_look), component by
 * component; a FIFO the program planted on the way is looked at, never
 * opened: the refused call returns, its line offers the directory that
 * exists. (.timeout: a hang fails.) */
Test(shim_dyld, a_fifo_planted_on_a_hints_path_does_not_hold_the_refused_call, .timeout = 20)
{
	struct darwin_shim_handover h = { .lib = "/opt/sbx/lib/libsbx-preload.dylib",
					  .policy = at(run, "policy"),
					  .report = at(run, "reports"),
					  .counters = at(run, "dropped"), .tell = true };
	char outside[] = "/var/tmp/sbx-unit-XXXXXX", *spec, line[4096], *want;
	int out = open(at(run, "told"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t n;

	cr_assert_geq(out, 0);
	/* outside every writable root, and no rule names it: a hint is looked for */
	cr_assert_not_null(mkdtemp(outside));
	cr_assert_eq(mkfifo(at(outside, "fifo"), 0600), 0);
	cr_assert_eq(darwin_shim_spec(&h, &spec), 0);
	cr_assert_eq(setenv("SBX_SHIM", spec, 1), 0);
	free(spec);
	cr_assert_eq(dup2(out, 2), 2); /* the program's stderr: a file */
	int r = sbx_dyld_open(at(outside, "fifo/x"), O_WRONLY | O_CREAT, 0600), e = errno;
	n = pread(out, line, sizeof(line) - 1, 0);
	remove_tree(outside);
	cr_assert_eq(r, -1);
	cr_assert_eq(e, EROFS, "errno %d", e);
	cr_assert_gt(n, 0, "nothing told");
	line[n] = '\0';
	cr_assert_gt(asprintf(&want, "--allow-write %s", outside), 0);
	cr_assert(strstr(line, "/fifo/x refused by policy (outside the writable paths)") &&
		  strstr(line, want), "told: %s", line);
	free(want);
	close(out);
}

Test(shim_dyld, a_connection_and_a_lookup_the_policy_refuses)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(80) };
	struct addrinfo *res = NULL;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "192.0.2.7", &sa.sin_addr);
	cr_assert_eq(sbx_dyld_connect(fd, (struct sockaddr *)&sa, sizeof(sa)), -1);
	cr_assert_eq(errno, EPERM);
	expect_one_report(WIRE_DENY, WIRE_CONNECT, "192.0.2.7:80", EPERM);
	close(fd);
	cr_assert_eq(sbx_dyld_getaddrinfo("blocked.invalid", "443", NULL, &res), EAI_FAIL);
	expect_one_report(WIRE_DENY, WIRE_DNS, "blocked.invalid:443", 0);
	/* localhost is not judged: the real lookup answers */
	cr_assert_eq(sbx_dyld_getaddrinfo("localhost", NULL, NULL, &res), 0);
	freeaddrinfo(res);
	expect_no_report();
}

/* What a program started with envp saw in DYLD_INSERT_LIBRARIES and
 * SBX_SHIM, one line each, started by execve in a child (spawn: false)
 * or by posix_spawn. */
static char *started_sees(char *const envp[], bool spawn)
{
	static char out[4096];
	char *argv[] = { "sh", "-c", "printf '%s\\n%s\\n' \"$DYLD_INSERT_LIBRARIES\" \"$SBX_SHIM\"",
			 NULL };
	int p[2], status;
	pid_t pid;

	cr_assert_eq(pipe(p), 0);
	if (spawn) {
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, p[1], 1);
		cr_assert_eq(sbx_dyld_posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, envp), 0);
		posix_spawn_file_actions_destroy(&fa);
	} else {
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			dup2(p[1], 1);
			sbx_dyld_execve("/bin/sh", argv, envp);
			_exit(127);
		}
	}
	close(p[1]);
	ssize_t n, got = 0;
	while ((n = read(p[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = '\0';
	close(p[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	return out;
}

/* A program that scrubs the environment it starts a child with keeps the
 * shim in the child: DYLD_INSERT_LIBRARIES names it first, SBX_SHIM is
 * ours, whatever the envp said */
Test(shim_dyld, a_scrubbed_environment_still_carries_the_shim)
{
	char *want, *empty[] = { NULL };
	char *theirs[] = { "DYLD_INSERT_LIBRARIES=/opt/theirs.dylib", "SBX_SHIM=1;policy=/tmp/mine",
			   "PATH=/usr/bin:/bin", NULL };
	const char *spec = getenv("SBX_SHIM");

	cr_assert_gt(asprintf(&want, "/opt/sbx/lib/libsbx-preload.dylib\n%s\n", spec), 0);
	cr_assert_str_eq(started_sees(empty, false), want);
	cr_assert_str_eq(started_sees(empty, true), want);
	free(want);
	cr_assert_gt(asprintf(&want, "/opt/sbx/lib/libsbx-preload.dylib:/opt/theirs.dylib\n%s\n",
			      spec), 0);
	cr_assert_str_eq(started_sees(theirs, false), want);
	cr_assert_str_eq(started_sees(theirs, true), want);
	free(want);
	expect_no_report();
}

/* ---- hostile arguments */

Test(shim_dyld, a_null_path_is_the_real_calls_to_answer)
{
	struct stat st;

	cr_assert_eq(sbx_dyld_open(NULL, O_RDONLY), -1);
	cr_assert_eq(errno, EFAULT);
	cr_assert_eq(sbx_dyld_stat(NULL, &st), -1);
	cr_assert_eq(errno, EFAULT);
	cr_assert_eq(sbx_dyld_chdir(NULL), -1);
	cr_assert_eq(errno, EFAULT);
	cr_assert_eq(sbx_dyld_execve(NULL, NULL, NULL), -1);
	cr_assert_eq(errno, EFAULT);
	expect_no_report();
}

Test(shim_dyld, a_path_longer_than_path_max_is_the_kernels_to_refuse)
{
	size_t n = PATH_MAX + 1;
	char *p = malloc(n + 1);

	p[0] = '/';
	memset(p + 1, 'a', n - 1);
	p[n] = '\0';
	cr_assert_eq(sbx_dyld_open(p, O_RDONLY), -1);
	cr_assert_eq(errno, ENAMETOOLONG);
	expect_no_report();
	/* the secret past PATH_MAX by its slashes: the kernel would refuse
	 * the length; the shim judges the name it stands for, and refuses */
	char *q = strdup(at(root, "secret/"));
	size_t l = strlen(q);
	q = realloc(q, n + 8);
	while (l < n)
		q[l++] = '/';
	strcpy(q + l, "key");
	cr_assert_eq(sbx_dyld_open(q, O_RDONLY), -1);
	cr_assert_eq(errno, EACCES);
	expect_one_report(WIRE_DENY, WIRE_READ, at(root, "secret/key"), EACCES);
	free(p);
	free(q);
}

/* A path the kernel takes (under PATH_MAX) that is long only by its `./`
 * and `//`: judged as the name it is */
Test(shim_dyld, a_padded_path_to_the_secret_is_still_refused)
{
	char *q = strdup(at(root, "secret/"));
	size_t l = strlen(q);

	q = realloc(q, PATH_MAX);
	while (l + 2 + 4 < PATH_MAX) {
		memcpy(q + l, "./", 2);
		l += 2;
	}
	strcpy(q + l, "key");
	cr_assert_lt(strlen(q), PATH_MAX);
	int fd = open(q, O_RDONLY);
	cr_assert_geq(fd, 0, "the kernel takes it: %s", strerror(errno));
	close(fd);
	cr_assert_eq(sbx_dyld_open(q, O_RDONLY), -1);
	cr_assert_eq(errno, EACCES);
	expect_one_report(WIRE_DENY, WIRE_READ, at(root, "secret/key"), EACCES);
	free(q);
}

/* ---- the hand-over attacked: SBX_SHIM is the program's own environment,
 * so everything it names is a claim. The shim must never hang, crash or
 * judge by a policy from a file the sandbox may write; what it cannot
 * read is the shim off in that process (the boundary unchanged). */

/* In a child with SBX_SHIM naming policy (and the real FIFO): did the
 * shim refuse the secret (1), let it through unjudged (0)? -1: the child
 * died or hung (the alarm). What the shim said goes to said[]. */
static int try_policy(const char *policy, char *said, size_t saidsz)
{
	int err[2], status;
	pid_t pid;

	cr_assert_eq(pipe(err), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(err[1], 2);
		alarm(5);
		/* by hand: launch.c would refuse a relative path */
		char spec[1024];
		snprintf(spec, sizeof(spec), "1;mode=enforce;policy=%s;report=%s/reports;lib=/x.dylib",
			 policy, run);
		setenv("SBX_SHIM", spec, 1);
		int fd = sbx_dyld_open(at(root, "secret/key"), O_RDONLY);
		_exit(fd < 0 && errno == EACCES ? 1 : fd >= 0 ? 0 : 3);
	}
	close(err[1]);
	ssize_t n = read(err[0], said, saidsz - 1);
	said[n > 0 ? n : 0] = '\0';
	close(err[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(shim_dyld, a_policy_the_sandbox_could_have_written_is_never_judged_by)
{
	char said[512];
	/* the real blob, where the sandbox may write: the supervisor's
	 * mistake, or a program's copy it could change for the next
	 * process (a blob that allows everything is as easy to write) */
	char *copy = at(root, "policy");

	put_file(copy, blob, blob_len, 0444);
	cr_assert_eq(try_policy(copy, said, sizeof(said)), 0);
	cr_assert(strstr(said, "shim off in this process: the policy's file is one the sandbox "
			       "may write"), "said: %s", said);
	/* the same file named with `//` and `.`: a path that is not
	 * normal is refused before it is judged (hostile_policy_paths_...) */
	char *odd;
	cr_assert_gt(asprintf(&odd, "%s//./policy", root), 0);
	cr_assert_eq(try_policy(odd, said, sizeof(said)), 0);
	cr_assert(strstr(said, "sbx: preload shim off in this process"), "said: %s", said);
	free(odd);
	/* the same blob where it may not write: judged by */
	cr_assert_eq(try_policy(at(run, "policy"), said, sizeof(said)), 1, "said: %s", said);
	cr_assert_str_eq(said, "");
	static struct wire_report r[4];
	cr_assert_eq(drain(r, 4), 1, "the child's refusal was not reported");
	cr_assert_eq(r[0].decision, WIRE_DENY);
	cr_assert_str_eq(r[0].target, at(root, "secret/key"));
}

Test(shim_dyld, hostile_policy_paths_turn_the_shim_off_without_a_hang_or_a_crash)
{
	char said[512];
	char *fifo = at(run, "fifo"), *half = at(run, "half"), *junk = at(run, "junk"),
	     *link = at(run, "link"), *big = at(run, "big");

	cr_assert_eq(mkfifo(fifo, 0600), 0); /* opened blocking, it would hang */
	put_file(half, blob, blob_len / 2, 0444);
	put_file(junk, "SBX policy? no.\n", 16, 0444);
	cr_assert_eq(symlink(at(run, "policy"), link), 0);
	/* a large file of zeros: read, never mapped */
	int fd = open(big, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
	cr_assert_eq(ftruncate(fd, 1 << 20), 0);
	close(fd);
	/* the real policy by a path too long for the shim's buffer (its
	 * `/`s): refused whole, never cut */
	char longp[SBX_SHIM_PATH_MAX + 1];
	size_t l = strlen(run);
	memcpy(longp, run, l);
	while (l < SBX_SHIM_PATH_MAX - 7)
		longp[l++] = '/';
	memcpy(longp + l, "/policy", 8);
	cr_assert_eq(strlen(longp), SBX_SHIM_PATH_MAX);
	/* the real policy by a path that is not normal: judged as one name,
	 * opened as another (`..` after a link the program made) */
	const char *base = strrchr(run, '/') + 1;
	char up[PATH_MAX], dot[PATH_MAX], twice[PATH_MAX];
	snprintf(up, sizeof(up), "%s/../%s/policy", run, base);
	snprintf(dot, sizeof(dot), "%s/./policy", run);
	snprintf(twice, sizeof(twice), "%s//policy", run);
	const char *const bad[] = { fifo, half, junk, link, big, run, "/dev/zero", "/dev/null",
				    "relative/policy", "/no/such/file", longp, up, dot, twice };
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		cr_assert_eq(try_policy(bad[i], said, sizeof(said)), 0,
			     "policy=%s: not turned off cleanly (said: %s)", bad[i], said);
		cr_assert(strstr(said, "sbx: preload shim off in this process"),
			  "policy=%s said: %s", bad[i], said);
	}
	expect_no_report();
}

Test(shim_dyld, a_report_channel_that_is_not_the_fifo_gets_no_report_and_counts_a_drop)
{
	struct stat st;
	char *fake = at(root, "fake-reports");

	put_file(fake, "", 0, 0644);
	set_spec(at(run, "policy"), fake, at(run, "dropped"));
	cr_assert_eq(sbx_dyld_open(at(root, "secret/key"), O_RDONLY), -1);
	cr_assert_eq(errno, EACCES, "the policy still holds");
	cr_assert_eq(stat(fake, &st), 0);
	cr_assert_eq(st.st_size, 0, "a report went into a regular file");
	cr_assert_eq(stat(at(run, "dropped"), &st), 0);
	cr_assert_eq(st.st_size, 1, "the drop was not counted");
	/* the supervisor gone (no reader): dropped, counted, no hang */
	set_spec(at(run, "policy"), at(run, "reports"), at(run, "dropped"));
	close(reports);
	cr_assert_eq(sbx_dyld_open(at(root, "secret/key"), O_RDONLY), -1);
	cr_assert_eq(errno, EACCES);
	cr_assert_eq(stat(at(run, "dropped"), &st), 0);
	cr_assert_eq(st.st_size, 2);
}

/* Descriptors are not the hand-over: a program that closes every one it
 * inherited (Python's subprocess does, by default) keeps its reports */
Test(shim_dyld, closing_every_inherited_descriptor_loses_no_report)
{
	int status;
	char *key = at(root, "secret/key");
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		for (int fd = 0; fd < 1024; fd++)
			close(fd);
		_exit(sbx_dyld_open(key, O_RDONLY) == -1 && errno == EACCES ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "not refused");
	static struct wire_report r[4];
	cr_assert_eq(drain(r, 4), 1);
	cr_assert_str_eq(r[0].target, key);
	cr_assert_eq(r[0].pid, pid);
}

/* ---- long lines: macOS's FIFO takes a write whole only up to 512 bytes
 *
 * Processes and threads refused at once on paths of 600 to 3000 bytes (a
 * read under deny_read; a rename of one long path to another outside the
 * writable roots), each writing its report into the FIFO while the
 * others do, through a FIFO that takes a longer write in 512-byte parts
 * (tests/darwin/fifo512.c): every report comes whole, by its own pid,
 * none twice, none dropped. Before the pieces (common/wire.h) a line of
 * more than 512 bytes went as one write: take_line() refused it, and cut
 * by another's parts it was malformed. */
#define LONG_PROCS 4
#define LONG_THREADS 3
#define LONG_EACH 4

/* A path of `len` bytes under dir naming (p, t, i, kind): long names
 * of 200 bytes, then one to make up the length. */
static void long_path(char *out, size_t len, const char *dir, int p, int t, int i, char kind)
{
	size_t o = (size_t)snprintf(out, len + 1, "%s/%c-%d-%d-%d", dir, kind, p, t, i);

	while (o < len) {
		size_t n = len - o - 1 < 200 ? len - o - 1 : 200;
		out[o++] = '/';
		memset(out + o, (char)('a' + (o / 201) % 26), n);
		o += n;
	}
	out[len] = '\0';
}

static size_t long_len(int p, int t, int i)
{
	return 600 + (size_t)((p * 131 + t * 977 + i * 613) % 2401); /* 600..3000 */
}

struct long_arg {
	int p, t, failed;
};

static void *long_thread(void *a)
{
	struct long_arg *la = a;
	char path[3100], to[3100], from[3100];

	for (int i = 0; i < LONG_EACH; i++) {
		long_path(path, long_len(la->p, la->t, i), at(root, "secret"), la->p, la->t, i, 'r');
		if (sbx_dyld_open(path, O_RDONLY) != -1 || errno != EACCES)
			la->failed++;
		long_path(from, long_len(la->t, la->p, i), root, la->p, la->t, i, 'f');
		long_path(to, long_len(la->p + 7, la->t, i), other, la->p, la->t, i, 'w');
		if (sbx_dyld_rename(from, to) != -1 || errno != EROFS)
			la->failed++;
	}
	return NULL;
}

Test(shim_dyld, long_report_lines_from_many_writers_at_once_all_come_whole)
{
	enum { N = LONG_PROCS * LONG_THREADS * LONG_EACH * 2 };
	static struct wire_report got[N + 8];
	pid_t pids[LONG_PROCS];
	char want[3100];
	struct stat st;

	/* room for all of them: a drop would be a full FIFO, not this */
	cr_assert_geq(fcntl(reports, F_SETPIPE_SZ, 1 << 20), 1 << 19);
	/* the shim started before any thread (a first call starts it: a
	 * thread racing that start is let through unjudged, shim/core.c's
	 * ST_STARTING, which is not what this checks) */
	int fd = sbx_dyld_open(at(root, "ok.txt"), O_RDONLY);
	cr_assert_geq(fd, 0);
	close(fd);
	for (int p = 0; p < LONG_PROCS; p++) {
		pids[p] = fork();
		cr_assert_geq(pids[p], 0);
		if (pids[p] == 0) {
			pthread_t th[LONG_THREADS];
			struct long_arg la[LONG_THREADS];
			int failed = 0;
			for (int t = 0; t < LONG_THREADS; t++) {
				la[t] = (struct long_arg){ .p = p, .t = t };
				pthread_create(&th[t], NULL, long_thread, &la[t]);
			}
			for (int t = 0; t < LONG_THREADS; t++) {
				pthread_join(th[t], NULL);
				failed += la[t].failed;
			}
			_exit(failed ? 1 : 0);
		}
	}
	for (int p = 0; p < LONG_PROCS; p++) {
		int status;
		cr_assert_eq(waitpid(pids[p], &status, 0), pids[p]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a call not refused");
	}
	cr_assert_eq(stat(at(run, "dropped"), &st), 0);
	cr_assert_eq(st.st_size, 0, "%lld reports dropped", (long long)st.st_size);
	size_t n = drain(got, N + 8);
	cr_assert_eq(n, N, "%zu reports of %d", n, N);
	/* each one, whole, once, from its own process */
	for (int p = 0; p < LONG_PROCS; p++)
		for (int t = 0; t < LONG_THREADS; t++)
			for (int i = 0; i < LONG_EACH; i++)
				for (int k = 0; k < 2; k++) {
					size_t len = k ? long_len(p + 7, t, i) : long_len(p, t, i);
					long_path(want, len, k ? other : at(root, "secret"), p, t, i,
						  k ? 'w' : 'r');
					int found = 0;
					for (size_t j = 0; j < n; j++)
						if (!strcmp(got[j].target, want)) {
							found++;
							cr_assert_eq(got[j].pid, pids[p]);
							cr_assert_eq(got[j].op, k ? WIRE_WRITE : WIRE_READ);
							cr_assert(!got[j].truncated);
						}
					cr_assert_eq(found, 1, "%s (%zu bytes) came %d times", k ? "a rename's" : "a read's", len, found);
				}
}

/* ---- the interpose table (build/gen/interpose.c, linked here: a name it
 * gives without a wrapper would have failed this runner's link) */

Test(shim_dyld, the_interpose_table_pairs_each_wrapper_with_libc)
{
	cr_assert_gt(sbx_interpose_count, 60);
	for (unsigned i = 0; i < sbx_interpose_count; i++) {
		cr_assert_not_null(sbx_interpose_table[i].replacement);
		cr_assert_not_null(sbx_interpose_table[i].replacee);
		cr_assert_neq(sbx_interpose_table[i].replacement, sbx_interpose_table[i].replacee);
	}
	bool found = false;
	for (unsigned i = 0; i < sbx_interpose_count; i++)
		if (sbx_interpose_table[i].replacement == (const void *)&sbx_dyld_open) {
			cr_assert_eq(sbx_interpose_table[i].replacee, (const void *)&open);
			found = true;
		}
	cr_assert(found, "sbx_dyld_open is not in the table");
}
