/* cli/machine_darwin.c: sbxctl on macOS (machine.h): /usr/bin/sandbox-exec
 * made to apply a profile, /usr/bin/log, the shim's dylib where a run
 * looks for it (preload/darwin_programs.h), SIP, the known limits
 * (backend/darwin/limits.c, the one table the start-up and
 * --print=seatbelt say), and the runs going on, from their hand-over
 * directories in sbx's state directory (no /proc here). Portable C: the
 * Linux test build (build/tests/darwin/sbxctl) runs it with the
 * stand-ins beside it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/darwin/darwin.h"
#include "cli/machine.h"
#include "cli/sbxctl.h"
#include "common/hostfs.h"
#include "preload/config.h"
#include "preload/darwin_programs.h"
#include "preload/preload.h"

extern char **environ;

/* the running sbxctl's path: the test build's stand-ins are beside it */
static const char *self(void)
{
	static char path[PATH_MAX];

	if (!path[0] && self_path(path, sizeof(path)))
		path[0] = '\0';
	return path;
}

/* NAME's path (darwin_program) when it is an executable file, else NULL */
static const char *program(const char *name, char *out, size_t outsz)
{
	struct stat st;

	return !darwin_program(self(), name, out, outsz) && !stat(out, &st) &&
	       S_ISREG(st.st_mode) && !access(out, X_OK) ? out : NULL;
}

#define RUN_WAIT_MS 10000

/* argv run with no input, its first line of output (stdout and stderr)
 * into line; its wait status, or -1 when it could not be started or did
 * not end within RUN_WAIT_MS (then killed). */
static int run_first_line(char *const argv[], char *line, size_t linesz)
{
	int fds[2], st = -1;
	size_t have = 0;
	pid_t pid;

	line[0] = '\0';
	if (pipe(fds))
		return -1;
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0)
			_exit(127);
		execve(argv[0], argv, environ);
		_exit(127);
	}
	close(fds[1]);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left = RUN_WAIT_MS - (long)((now.tv_sec - t0.tv_sec) * 1000 +
						 (now.tv_nsec - t0.tv_nsec) / 1000000);
		struct pollfd pf = { .fd = fds[0], .events = POLLIN };
		if (left <= 0 || poll(&pf, 1, (int)left) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			close(fds[0]);
			return -1;
		}
		char buf[512];
		ssize_t n = read(fds[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n && have + 1 < linesz; i++)
			if (!memchr(line, '\n', have))
				line[have++] = buf[i];
		line[have] = '\0';
	}
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	line[strcspn(line, "\n")] = '\0';
	char shown[512];
	ctl_printable(line, shown, sizeof(shown));
	snprintf(line, linesz, "%s", shown);
	return st;
}

/* ---- status */

/* SIP's state as csrutil says it: "enabled", "disabled", its own words,
 * or NULL when it cannot be asked. */
static const char *sip_state(char *out, size_t outsz)
{
	char path[PATH_MAX], line[256];

	if (!program("csrutil", path, sizeof(path)))
		return NULL;
	char *argv[] = { path, "status", NULL };
	int st = run_first_line(argv, line, sizeof(line));
	if (st < 0 || !WIFEXITED(st) || !line[0])
		return NULL;
	const char *s = strstr(line, "status: ");
	if (s && !strncmp(s + 8, "enabled.", 8))
		snprintf(out, outsz, "enabled");
	else if (s && !strncmp(s + 8, "disabled.", 9))
		snprintf(out, outsz, "disabled");
	else
		snprintf(out, outsz, "%s", s ? s + 8 : line);
	return out;
}

void machine_status(bool c)
{
	char path[PATH_MAX], sip[256];

	(void)c;
	printf("  %-24s %s\n", "sandbox-exec", program("sandbox-exec", path, sizeof(path)) ?
	       path : "missing");
	printf("  %-24s %s\n", "log", program("log", path, sizeof(path)) ? path : "missing");
	printf("  %-24s %s\n", "shim", darwin_find_shim(self(), path, sizeof(path)) ?
	       "none (libsbx-preload.dylib not found: reports from the system log only)" : path);
	printf("  %-24s %s\n", "SIP", sip_state(sip, sizeof(sip)) ? sip :
	       "unknown (csrutil status says)");
}

/* "shim-YYYYMMDD-HHMMSS-PID" (start.c's run id), or with "-N" after it
 * (darwin.c's next name when its first is held), its parts; false for any
 * other name */
static bool run_name(const char *name, char *when, size_t whensz, long *pid)
{
	const char *id = name + 5;
	size_t n = strlen(name), digits = n > 5 + 16 ? strspn(id + 16, "0123456789") : 0;
	const char *tail = id + 16 + digits;

	if (strncmp(name, "shim-", 5) || n < 5 + 17 || n > 5 + 28 || id[8] != '-' ||
	    id[15] != '-' || strspn(id, "0123456789") != 8 || strspn(id + 9, "0123456789") != 6 ||
	    !digits || (*tail && (tail[0] != '-' || strspn(tail + 1, "0123456789") != strlen(tail + 1) ||
				  !tail[1])))
		return false;
	*pid = strtol(id + 16, NULL, 10);
	snprintf(when, whensz, "%.4s-%.2s-%.2s %.2s:%.2s:%.2s", id, id + 4, id + 6, id + 9,
		 id + 11, id + 13);
	return *pid > 0;
}

/* Is the run whose hand-over directory is dfd going on? Its supervisor
 * holds the report FIFO open for reading as long as it lives (and its
 * terminal holder, COMMAND's parent, while COMMAND lives): a writer's
 * non-blocking open succeeds then, and fails with ENXIO once no reader
 * is left. Never through a link, never anything but a FIFO. 1 going on,
 * 0 not, -1 not a hand-over sbx made. */
static int run_going_on(int dfd)
{
	struct stat st;

	if (fstatat(dfd, "reports", &st, AT_SYMLINK_NOFOLLOW) || !S_ISFIFO(st.st_mode) ||
	    st.st_uid != geteuid())
		return -1;
	int fd = openat(dfd, "reports", O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY |
			O_CLOEXEC);
	if (fd < 0)
		return errno == ENXIO ? 0 : -1;
	bool fifo = !fstat(fd, &st) && S_ISFIFO(st.st_mode);
	close(fd);
	return fifo ? 1 : -1;
}

/* The workspace of the run whose hand-over directory is dfd, from its
 * policy blob (as the shim reads it); "" when it cannot be read. */
static void run_workspace(int dfd, char *out, size_t outsz)
{
	struct ctl_blob b;
	char shown[PATH_MAX];

	out[0] = '\0';
	int fd = openat(dfd, "policy", O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!ctl_blob_read(fd, &b)) {
		policy_tildify(b.p, policy_workspace(b.p), shown, sizeof(shown));
		ctl_printable(shown, out, outsz);
		ctl_blob_free(&b);
	}
	close(fd);
}

void machine_runs(bool c, const char *sdir)
{
	struct hostfs_err err = { "" };
	unsigned going = 0, left = 0;

	printf("\nruns (with the shim; a run without it leaves nothing to list)\n");
	int fd = hostfs_dir_open(sdir, HOSTFS_MINE, &err);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		printf("  %s\n", fd == -ENOENT ? "(none: no state directory yet)" :
		       "(sbx's state directory cannot be read)");
		return;
	}
	for (struct dirent *e; (e = readdir(dir));) {
		char when[32], ws[PATH_MAX], name[NAME_MAX + 1];
		long pid;
		struct stat st;
		if (!run_name(e->d_name, when, sizeof(when), &pid))
			continue;
		snprintf(name, sizeof(name), "%s", e->d_name);
		if (fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		int dfd = openat(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				 O_NONBLOCK | O_CLOEXEC);
		if (dfd < 0)
			continue;
		int on = run_going_on(dfd);
		if (on >= 0)
			run_workspace(dfd, ws, sizeof(ws));
		close(dfd);
		if (on < 0)
			continue;
		if (on) {
			printf("  %s%-24s%s running since %s, sbx-preload pid %ld%s%s\n",
			       ctl_sgr(c, "\033[1m"), name + 5, ctl_sgr(c, "\033[0m"), when, pid,
			       ws[0] ? ", workspace " : "", ws);
			going++;
		} else {
			printf("  %-24s its sbx-preload ended (killed?) without removing %s/%s: "
			       "the next start or `sbx-preload --cleanup` removes it\n", name + 5, sdir,
			       name);
			left++;
		}
	}
	closedir(dir);
	if (!going && !left)
		printf("  (none running)\n");
}

/* ---- doctor */

void machine_doctor(struct doctor *d, const struct policy *p)
{
	char path[PATH_MAX], line[512], sip[256];

	(void)p;
	if (!program("sandbox-exec", path, sizeof(path))) {
		darwin_program(self(), "sandbox-exec", path, sizeof(path));
		ctl_verdict(d, 2, "sandbox-exec", "%s missing: it is part of macOS, and every "
			    "run is made by it", path);
	} else {
		/* a profile that allows everything: sandbox-exec applies it
		 * and runs the program, or says why not */
		char *argv[] = { path, "-p", "(version 1)(allow default)", "--", "/usr/bin/true",
				 NULL };
		int st = run_first_line(argv, line, sizeof(line));
		if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ctl_verdict(d, 0, "sandbox-exec", "%s applies a profile (a test run of "
				    "(allow default) exited 0)", path);
		else if (st < 0)
			ctl_verdict(d, 2, "sandbox-exec", "%s did not run a test profile (it could "
				    "not start or did not end in %d s): no run can start", path,
				    RUN_WAIT_MS / 1000);
		else
			ctl_verdict(d, 2, "sandbox-exec", "%s failed to apply a test profile "
				    "((allow default) running /usr/bin/true: %s %d%s%s): no run can "
				    "start", path, WIFEXITED(st) ? "exit" : "signal",
				    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
				    line[0] ? ", " : "", line);
	}
	if (program("log", path, sizeof(path))) {
		ctl_verdict(d, 0, "log", "%s (Seatbelt's refusals are read with `log stream`)",
			    path);
	} else {
		darwin_program(self(), "log", path, sizeof(path));
		ctl_verdict(d, 2, "log", "%s missing: a run reads Seatbelt's refusals from it "
			    "and does not start without it", path);
	}
	if (darwin_find_shim(self(), path, sizeof(path)))
		ctl_verdict(d, 1, "shim", "libsbx-preload.dylib not found (beside sbxctl, in "
			    "../lib/sbx/, or $SBX_SHIM_DYLIB): the profile holds, and refusals "
			    "are reported from the system log only, without the shim's words");
	else
		ctl_verdict(d, 0, "shim", "%s", path);
	const char *s = sip_state(sip, sizeof(sip));
	if (s && !strcmp(s, "disabled"))
		ctl_verdict(d, 0, "SIP", "disabled: DYLD_* reaches every program, the shim "
			    "too");
	else
		ctl_verdict(d, 0, "SIP", "%s: macOS strips DYLD_* from the programs System "
			    "Integrity Protection guards (/bin/sh, /usr/bin/*), so the shim is not "
			    "in them; the profile holds there", s ? s : "not asked (no csrutil); "
			    "where it is on, the default");
}

void machine_doctor_policy(struct doctor *d, const struct policy *p)
{
	if (policy_nested(p))
		ctl_verdict(d, 1, "nested", "nested = true is Linux's (Landlock without "
			    "namespaces): on macOS runs use the Seatbelt profile as ever");
	for (int k = 0; k < SBX_LIMIT_COUNT; k++)
		if (policy_limit(p, (enum sbx_limit)k)) {
			ctl_verdict(d, 2, "limits", "[limits] are not enforced by sbx on macOS "
				    "(no cgroups, no sbx-init): every run is refused; remove them");
			break;
		}
}

void machine_doctor_end(struct doctor *d)
{
	(void)d;
	printf("known limits on macOS (docs/MACOS.md):\n");
	for (unsigned i = 0; i < darwin_nlimits; i++)
		printf("  %s: %s.\n", darwin_limits[i].what, darwin_limits[i].text);
}

/* The programs a run keeps read-only: sbx-preload (darwin_main.c's own
 * file) */
void machine_own_files(char bufs[SBX_OWN_FILES][PATH_MAX], const char *out[SBX_OWN_FILES])
{
	for (size_t i = 0; i < SBX_OWN_FILES; i++)
		out[i] = NULL;
	if (!config_find_helper("sbx-preload", "SBX_PRELOAD", X_OK, bufs[0], PATH_MAX))
		out[0] = bufs[0];
}

/* SBX_SHIM's `policy=/DIR/policy` (backend/darwin/launch.c): an absolute,
 * normal path, its last name never followed, a FIFO never waited on (the
 * shim opens it so). */
int machine_run_policy_fd(const char *spec)
{
	char path[PATH_MAX];

	for (const char *f = spec; f && *f; f = strchr(f, ';') ? strchr(f, ';') + 1 : NULL) {
		if (strncmp(f, "policy=", 7))
			continue;
		size_t n = strcspn(f + 7, ";");
		if (n >= sizeof(path))
			return -1;
		snprintf(path, sizeof(path), "%.*s", (int)n, f + 7);
		if (path[0] != '/' || strstr(path, "//") || strstr(path, "/./") ||
		    strstr(path, "/../") || (n >= 2 && !strcmp(path + n - 2, "/.")) ||
		    (n >= 3 && !strcmp(path + n - 3, "/..")))
			return -1;
		return open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	}
	return -1;
}
