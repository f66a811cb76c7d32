/* backend/darwin/watch.c: `log stream` watched for a run's refusals,
 * proved live and drained by sentinels (watch.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/darwin/watch.h"
#include "common/strv.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int wait_ms(const struct darwin_watch *w)
{
	return w->wait_ms > 0 ? w->wait_ms : 10000;
}

/* path with argv, a fixed environment, stdin and stderr /dev/null,
 * stdout to out_fd (-1: /dev/null), in a process group of its own: the
 * terminal's keys (^C, ^\\) go to its foreground group, ours and
 * COMMAND's, and a person interrupting the agent must not end `log
 * stream` with it. */
static int spawn_quiet(const char *path, char *const *argv, int out_fd, pid_t *pid)
{
	static char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int rc = posix_spawn_file_actions_init(&fa);

	if (rc)
		return -rc;
	if ((rc = posix_spawnattr_init(&at))) {
		posix_spawn_file_actions_destroy(&fa);
		return -rc;
	}
	rc = posix_spawnattr_setpgroup(&at, 0);
	if (!rc)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = out_fd >= 0 ? posix_spawn_file_actions_adddup2(&fa, out_fd, 1) :
			posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (!rc)
		rc = posix_spawn(pid, path, &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return -rc;
}

void darwin_reap(pid_t *pid, int sig)
{
	if (*pid <= 0)
		return;
	if (sig)
		kill(*pid, sig);
	while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
		;
	*pid = -1;
}

int darwin_log_argv(const char *log, const char *tag, struct strv *argv)
{
	char pred[256];
	int rc = seatbelt_log_predicate(tag, pred, sizeof(pred));

	if (rc)
		return -EINVAL;
	if (strv_add(argv, log) || strv_add(argv, "stream") || strv_add(argv, "--style") ||
	    strv_add(argv, "ndjson") || strv_add(argv, "--predicate") || strv_add(argv, pred))
		return -ENOMEM;
	return 0;
}

/* A sentinel's line is counted; any other refusal of ours passed on. */
static void on_refusal(void *ctx, const struct seatbelt_violation *v)
{
	struct darwin_watch *w = ctx;

	for (int i = 0; i < 2; i++)
		if (w->sentinel[i][0] && !strcmp(v->target, w->sentinel[i])) {
			w->seen[i]++;
			return;
		}
	if (w->refused)
		w->refused(w->ctx, v);
}

static void reap_triggers(struct darwin_watch *w, bool kill_them)
{
	for (size_t k = 0; k < DARWIN_TRIGGERS_MAX; k++) {
		if (w->triggers[k] <= 0)
			continue;
		if (kill_them)
			darwin_reap(&w->triggers[k], SIGKILL);
		else if (waitpid(w->triggers[k], NULL, WNOHANG) == w->triggers[k])
			w->triggers[k] = -1;
	}
}

/* A refusal of ours the log will show: `cat` of sentinel i under a
 * profile that refuses exactly its read, with the run's tag. Not waited
 * for here (a run that hangs must not hang sbx): reaped as it ends,
 * killed at the end. */
static int trigger(struct darwin_watch *w, int i)
{
	char prof[512], param[4200];
	pid_t pid;

	snprintf(prof, sizeof(prof), "(version 1) (allow default) (deny file-read-data "
		 "(literal (param \"S\")) (with message \"%s\"))", w->tag);
	snprintf(param, sizeof(param), "S=%s", w->sentinel[i]);
	char *argv[] = { (char *)DARWIN_SANDBOX_EXEC, "-D", param, "-p", prof, "--", "/bin/cat",
			 w->sentinel[i], NULL };
	int rc = spawn_quiet(w->sandbox_exec, argv, -1, &pid);
	if (rc)
		return rc;
	for (size_t k = 0; k < DARWIN_TRIGGERS_MAX; k++)
		if (w->triggers[k] <= 0) {
			w->triggers[k] = pid;
			return 0;
		}
	darwin_reap(&pid, SIGKILL); /* more than ever needed: the log is not coming */
	return -EAGAIN;
}

void darwin_watch_read(struct darwin_watch *w)
{
	char buf[8192];
	ssize_t n;

	if (w->log_fd < 0)
		return;
	n = read(w->log_fd, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(w->log_fd); /* log ended: no reports from here on */
		w->log_fd = -1;
		return;
	}
	seatbelt_log_feed(&w->lb, w->tag, buf, (size_t)n, on_refusal, w);
}

/* Read for up to ms, or until sentinel i was seen; false when stop_fd
 * became readable. */
static bool read_for(struct darwin_watch *w, int i, int ms)
{
	long long end = now_ms() + ms;

	while (w->log_fd >= 0 && !w->seen[i]) {
		long long left = end - now_ms();
		reap_triggers(w, false);
		if (left <= 0)
			return true;
		struct pollfd pf[2] = { { .fd = w->log_fd, .events = POLLIN },
					{ .fd = w->stop_fd, .events = POLLIN } };
		if (poll(pf, 2, (int)left) <= 0)
			continue;
		if (pf[1].revents)
			return false;
		darwin_watch_read(w);
	}
	return true;
}

/* Until sentinel i shows: triggered again each half second (one made
 * before the stream attached is lost), at most wait_ms, unless stopped. */
static bool await_sentinel(struct darwin_watch *w, int i)
{
	long long end = now_ms() + wait_ms(w);
	bool go_on = true;

	while (go_on && !w->seen[i] && w->log_fd >= 0 && now_ms() < end) {
		if (trigger(w, i))
			break;
		long long left = end - now_ms();
		go_on = read_for(w, i, left < 500 ? (int)(left > 0 ? left : 0) : 500);
	}
	return w->seen[i] > 0;
}

int darwin_watch_start(struct darwin_watch *w, char *why, size_t whysz)
{
	struct strv argv = { 0 };
	int fds[2], rc;

	snprintf(w->dir, sizeof(w->dir), "%s/sbx-sentinel-XXXXXX",
		 w->tmpdir && *w->tmpdir ? w->tmpdir : "/tmp");
	if (!mkdtemp(w->dir)) {
		rc = -errno;
		snprintf(why, whysz, "cannot make a directory in %s: %s",
			 w->tmpdir ? w->tmpdir : "/tmp", strerror(-rc));
		w->dir[0] = '\0';
		return rc;
	}
	for (int i = 0; i < 2; i++) {
		char p[4200];
		snprintf(p, sizeof(p), "%s/%s", w->dir, i ? "end" : "start");
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 || !realpath(p, w->sentinel[i])) {
			rc = -errno;
			if (fd >= 0)
				close(fd);
			snprintf(why, whysz, "cannot make %s: %s", p, strerror(-rc));
			darwin_watch_stop(w);
			return rc;
		}
		close(fd);
	}
	/* log runs unsandboxed (it refuses to run in a sandbox) */
	if ((rc = darwin_log_argv(w->log, w->tag, &argv)) || (pipe(fds) ? (rc = -errno) : 0)) {
		strv_free(&argv);
		snprintf(why, whysz, "cannot start %s: %s", w->log, strerror(-rc));
		darwin_watch_stop(w);
		return rc;
	}
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	rc = spawn_quiet(w->log, argv.v, fds[1], &w->log_pid);
	strv_free(&argv);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		snprintf(why, whysz, "cannot start %s: %s", w->log, strerror(-rc));
		darwin_watch_stop(w);
		return rc;
	}
	w->log_fd = fds[0];
	w->live = await_sentinel(w, 0);
	return 0;
}

bool darwin_watch_drain(struct darwin_watch *w)
{
	return w->live && await_sentinel(w, 1);
}

void darwin_watch_stop(struct darwin_watch *w)
{
	darwin_reap(&w->log_pid, SIGTERM);
	reap_triggers(w, true);
	if (w->log_fd >= 0)
		close(w->log_fd);
	w->log_fd = -1;
	if (!w->dir[0])
		return;
	for (int i = 0; i < 2; i++) {
		char p[4200];
		snprintf(p, sizeof(p), "%s/%s", w->dir, i ? "end" : "start");
		unlink(p);
	}
	rmdir(w->dir);
	w->dir[0] = '\0';
}
