/* backend/darwin/darwin.c: backend_darwin (darwin.h, backend/backend.h).
 *
 * The phases as the seam asks them: start() compiles the profile (the
 * proxy's ports in it), starts `log stream` and waits until a refusal of
 * ours reaches it (a sentinel); go() starts COMMAND under sandbox-exec;
 * wait() relays signals, serves the proxy and feeds the log's refusals to
 * the reports until COMMAND is gone, then drains the log (a second
 * sentinel). Nothing here needs more than POSIX: the same code runs on
 * Linux in the unit tests, with stand-ins for the two programs. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/darwin/darwin.h"
#include "backend/darwin/launch.h"
#include "common/forwarded.h"
#include "net/net.h"
#include "preload/preload.h"

int darwin_tag(const char *run_id, char *out, size_t outsz)
{
	unsigned char r[8];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && read(fd, r, sizeof(r)) == (ssize_t)sizeof(r);

	if (fd >= 0)
		close(fd);
	if (!ok)
		return -EIO;
	int n = snprintf(out, outsz, "%s-%02x%02x%02x%02x%02x%02x%02x%02x", run_id, r[0], r[1],
			 r[2], r[3], r[4], r[5], r[6], r[7]);
	return n < 0 || (size_t)n >= outsz ? -EINVAL : 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* path with argv and envp; stdout to out_fd (-1: ours), stdin from
 * /dev/null when quiet. */
static int spawn(const char *path, char *const *argv, char *const *envp, int out_fd, bool quiet,
		 pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	int rc = posix_spawn_file_actions_init(&fa);

	if (rc)
		return -rc;
	if (quiet)
		rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc && out_fd >= 0)
		rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	if (!rc && quiet)
		rc = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (!rc)
		rc = posix_spawn(pid, path, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	return -rc;
}

static void reap(pid_t *pid, int sig)
{
	if (*pid <= 0)
		return;
	if (sig)
		kill(*pid, sig);
	while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
		;
	*pid = -1;
}

/* The sentinel's lines are ours to count, not the person's to read. */
static bool sentinel_seen(void *ctx, const struct seatbelt_violation *v)
{
	struct darwin *d = ctx;

	for (int i = 0; i < 2; i++)
		if (d->sentinel[i][0] && !strcmp(v->target, d->sentinel[i])) {
			d->sentinels_seen[i]++;
			return true;
		}
	return false;
}

/* A refusal of ours the log will show: `cat` of sentinel i under a
 * profile that refuses exactly its read, with the run's tag. */
static int trigger(struct darwin *d, int i)
{
	char prof[512], param[4200];
	pid_t pid;

	snprintf(prof, sizeof(prof), "(version 1) (allow default) (deny file-read-data "
		 "(literal (param \"S\")) (with message \"%s\"))", d->tag);
	snprintf(param, sizeof(param), "S=%s", d->sentinel[i]);
	char *argv[] = { (char *)DARWIN_SANDBOX_EXEC, "-D", param, "-p", prof, "--", "/bin/cat",
			 d->sentinel[i], NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	int rc = spawn(d->sandbox_exec, argv, envp, -1, true, &pid);
	if (rc)
		return rc;
	/* not waited for here (a run that hangs must not hang sbx): reaped
	 * as it ends, killed at the end */
	for (size_t k = 0; k < DARWIN_TRIGGERS_MAX; k++)
		if (d->triggers[k] <= 0) {
			d->triggers[k] = pid;
			return 0;
		}
	reap(&pid, SIGKILL); /* more than ever needed: the log is not coming */
	return -EAGAIN;
}

static void reap_triggers(struct darwin *d, bool kill_them)
{
	for (size_t k = 0; k < DARWIN_TRIGGERS_MAX; k++) {
		if (d->triggers[k] <= 0)
			continue;
		if (kill_them)
			reap(&d->triggers[k], SIGKILL);
		else if (waitpid(d->triggers[k], NULL, WNOHANG) == d->triggers[k])
			d->triggers[k] = -1;
	}
}

/* Read the log for up to ms, or until sentinel i was seen. */
static void read_log(struct darwin *d, struct reports *r, int i, int ms)
{
	long long end = now_ms() + ms;
	char buf[8192];

	while (d->log_fd >= 0 && !(i >= 0 && d->sentinels_seen[i])) {
		long long left = end - now_ms();
		reap_triggers(d, false);
		if (left <= 0)
			return;
		struct pollfd pf = { .fd = d->log_fd, .events = POLLIN };
		if (poll(&pf, 1, (int)left) <= 0)
			continue;
		ssize_t n = read(d->log_fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			close(d->log_fd); /* log is gone */
			d->log_fd = -1;
			return;
		}
		darwin_log_feed(&d->lb, d->tag, r, buf, (size_t)n);
	}
}

/* Wait until a refusal of ours reaches the log: triggered again each
 * half second (one made before the stream attached is lost). */
static bool log_live(struct darwin *d, struct reports *r, int i)
{
	int total = d->log_wait_ms > 0 ? d->log_wait_ms : 10000;
	long long end = now_ms() + total;

	while (!d->sentinels_seen[i] && d->log_fd >= 0 && now_ms() < end) {
		if (trigger(d, i))
			return false;
		read_log(d, r, i, 500);
	}
	return d->sentinels_seen[i] > 0;
}

static int listen_local(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fd, 128) || getsockname(fd, (struct sockaddr *)&a, &al)) {
		int e = -errno;
		close(fd);
		return e;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static int darwin_send_plan(struct backend *b, const struct plan *pl)
{
	return 0; /* the profile is made whole in start() */
}

static int darwin_start(struct backend *b, const struct plan *pl, char *why, size_t whysz)
{
	struct darwin *d = b->darwin;
	char id[128], err[512] = "";
	int fds[2] = { -1, -1 }, rc;

	if (!d || !d->run_id || !d->sandbox_exec || !d->log) {
		snprintf(why, whysz, "the darwin backend was not set up");
		return -EINVAL;
	}
	if ((rc = darwin_tag(d->run_id, id, sizeof(id)))) {
		snprintf(why, whysz, "cannot make the run's tag: %s", strerror(-rc));
		return rc;
	}
	snprintf(d->tag, sizeof(d->tag), "sbx-%s", id);
	/* the proxy on the host's localhost: the profile lets COMMAND reach
	 * these two ports and no other (fails closed when unknown) */
	if (policy_network_proxied(b->policy))
		for (int i = 0; i < 2; i++)
			if ((d->listen[i] = listen_local(&d->ports[i])) < 0) {
				rc = d->listen[i];
				snprintf(why, whysz, "cannot listen on localhost for the proxy: %s",
					 strerror(-rc));
				return rc;
			}
	struct seatbelt_opts so = { .run_id = id, .http_port = d->ports[0],
				    .socks_port = d->ports[1] };
	if ((rc = seatbelt_compile(b->policy, &so, &d->profile, err, sizeof(err)))) {
		snprintf(why, whysz, "the Seatbelt profile: %s", err);
		return rc;
	}
	/* the sentinels, in a directory of our own */
	snprintf(d->sentinel_dir, sizeof(d->sentinel_dir), "%s/sbx-sentinel-XXXXXX",
		 d->tmpdir && *d->tmpdir ? d->tmpdir : "/tmp");
	if (!mkdtemp(d->sentinel_dir)) {
		rc = -errno;
		d->sentinel_dir[0] = '\0';
		snprintf(why, whysz, "cannot make a directory in %s: %s", d->tmpdir, strerror(-rc));
		return rc;
	}
	for (int i = 0; i < 2; i++) {
		char p[4200];
		snprintf(p, sizeof(p), "%s/%s", d->sentinel_dir, i ? "end" : "start");
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 || !realpath(p, d->sentinel[i])) {
			rc = -errno;
			if (fd >= 0)
				close(fd);
			snprintf(why, whysz, "cannot make %s: %s", p, strerror(-rc));
			return rc;
		}
		close(fd);
	}
	/* log stream, unsandboxed (log refuses to run in a sandbox) */
	struct strv la = { 0 };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	if ((rc = darwin_log_argv(d->tag, &la)) || (pipe(fds) ? (rc = -errno) : 0)) {
		strv_free(&la);
		snprintf(why, whysz, "cannot start %s: %s", d->log, strerror(-rc));
		return rc;
	}
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	rc = spawn(d->log, la.v, envp, fds[1], true, &d->log_pid);
	strv_free(&la);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		snprintf(why, whysz, "cannot start %s: %s", d->log, strerror(-rc));
		return rc;
	}
	d->log_fd = fds[0];
	/* a refusal of ours through the log before COMMAND starts: then its
	 * refusals will be reported (the boundary holds either way) */
	d->lb.seen = sentinel_seen;
	d->lb.seen_ctx = d;
	d->log_live = log_live(d, NULL, 0);
	if (!d->log_live)
		msg("the system log showed no refusal of this run's within %d ms (`log stream` "
		    "did not start, or reads nothing): the sandbox holds, but its refusals will "
		    "not be reported", d->log_wait_ms > 0 ? d->log_wait_ms : 10000);
	return 0;
}

static const char *darwin_layers(const struct backend *b, char *out, size_t outsz)
{
	snprintf(out, outsz, "Seatbelt profile (sandbox-exec), reports from the system log");
	return out;
}

static int darwin_serve(struct backend *b, struct net_loop *net)
{
	struct darwin *d = b->darwin;
	static const enum net_listener_kind kinds[2] = { NET_LISTEN_HTTP, NET_LISTEN_SOCKS };

	for (int i = 0; i < 2; i++) {
		if (d->listen[i] < 0)
			continue;
		int e = net_loop_add_listener(net, d->listen[i], kinds[i]);
		d->listen[i] = -1; /* the loop's, also when it refused it */
		if (e)
			return e;
	}
	return 0;
}

static int darwin_go(struct backend *b, const struct plan *pl, const int *fds, size_t nfds)
{
	struct darwin *d = b->darwin;
	struct strv argv = { 0 }, envp = { 0 };
	struct darwin_launch_in in = {
		.policy = b->policy, .profile = &d->profile, .command = b->command,
		.environ = d->environ, .shim_lib = d->shim_lib, .shim_spec = d->shim_spec,
		.http_port = d->ports[0], .socks_port = d->ports[1],
	};
	int rc = darwin_launch_argv(&in, &argv);

	if (!rc)
		rc = darwin_launch_env(&in, &envp, d->withheld);
	if (!rc)
		rc = spawn(d->sandbox_exec, argv.v, envp.v, -1, false, &d->cmd_pid);
	strv_free(&argv);
	strv_free(&envp);
	return rc;
}

/* The signals come through a pipe, read in the loop. */
static int sig_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int e = errno;
	unsigned char c = (unsigned char)sig;

	if (write(sig_pipe[1], &c, 1) < 0) {
		/* full: the loop has signals to read already */
	}
	errno = e;
}

static int exit_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 125;
}

static int darwin_wait(struct backend *b, struct plan *pl, struct run_in *ri, bool *ready)
{
	struct darwin *d = b->darwin;
	struct sigaction sa = { .sa_handler = on_signal }, old[SBX_NFORWARDED + 1];
	int status = -1;
	char buf[8192];

	*ready = d->cmd_pid > 0;
	if (!*ready)
		return 125;
	if (pipe(sig_pipe))
		return 125;
	for (int i = 0; i < 2; i++) {
		fcntl(sig_pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(sig_pipe[i], F_SETFL, O_NONBLOCK);
	}
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < SBX_NFORWARDED; i++)
		sigaction(sbx_forwarded[i], &sa, &old[i]);
	sigaction(SIGCHLD, &sa, &old[SBX_NFORWARDED]);
	/* it may have ended before the handler was there */
	int st;
	if (waitpid(d->cmd_pid, &st, WNOHANG) == d->cmd_pid) {
		status = exit_status(st);
		d->cmd_pid = -1;
	}
	while (status < 0) {
		struct pollfd pf[4] = { { .fd = sig_pipe[0], .events = POLLIN },
					{ .fd = d->log_fd, .events = POLLIN },
					{ .fd = ri->net ? net_loop_fd(ri->net) : -1, .events = POLLIN },
					{ .fd = ri->report_fd, .events = POLLIN } };
		bool pending = ri->reports && reports_pending(ri->reports);
		int timeout = pending ? 100 : ri->net ? net_loop_timeout(ri->net) : -1;
		int n = poll(pf, 4, timeout);
		if (n < 0 && errno != EINTR)
			break;
		if (n == 0 && pending)
			reports_flush(ri->reports);
		if (n <= 0)
			continue;
		if (pf[0].revents & POLLIN) {
			unsigned char sigs[64];
			ssize_t k = read(sig_pipe[0], sigs, sizeof(sigs));
			for (ssize_t i = 0; i < k; i++)
				if (sigs[i] != SIGCHLD && d->cmd_pid > 0)
					kill(d->cmd_pid, sigs[i]);
			if (waitpid(d->cmd_pid, &st, WNOHANG) == d->cmd_pid) {
				status = exit_status(st);
				d->cmd_pid = -1;
			}
		}
		if (pf[1].revents & (POLLIN | POLLHUP)) {
			ssize_t k = read(d->log_fd, buf, sizeof(buf));
			if (k > 0 && ri->reports) {
				darwin_log_feed(&d->lb, d->tag, ri->reports, buf, (size_t)k);
			} else if (k == 0) {
				close(d->log_fd); /* log ended: no reports from here on */
				d->log_fd = -1;
			}
		}
		if (ri->net && (pf[2].revents & POLLIN))
			net_loop_run_once(ri->net, 0);
		if (pf[3].revents & (POLLIN | POLLHUP)) {
			ssize_t k = read(ri->report_fd, buf, sizeof(buf));
			if (k > 0 && ri->reports)
				reports_feed(ri->reports, buf, (size_t)k);
			else if (k == 0)
				ri->report_fd = -1;
		}
	}
	for (size_t i = 0; i < SBX_NFORWARDED; i++)
		sigaction(sbx_forwarded[i], &old[i], NULL);
	sigaction(SIGCHLD, &old[SBX_NFORWARDED], NULL);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	sig_pipe[0] = sig_pipe[1] = -1;
	/* the last refusals: the log delivers late, so until a refusal made
	 * after COMMAND's end has come through */
	if (d->log_fd >= 0 && ri->reports && d->log_live) {
		if (!trigger(d, 1))
			read_log(d, ri->reports, 1, d->log_wait_ms > 0 ? d->log_wait_ms : 10000);
		if (!d->sentinels_seen[1])
			msg("the system log did not catch up within %d ms: refusals of the run's "
			    "last moments may be missing from the reports",
			    d->log_wait_ms > 0 ? d->log_wait_ms : 10000);
	}
	if (ri->reports)
		reports_flush(ri->reports);
	reap(&d->log_pid, SIGTERM);
	reap_triggers(d, true);
	return status < 0 ? 125 : status;
}

static void darwin_release(struct backend *b)
{
	struct darwin *d = b->darwin;

	if (!d)
		return;
	reap(&d->cmd_pid, SIGKILL);
	reap(&d->log_pid, SIGTERM);
	reap_triggers(d, true);
	if (d->log_fd >= 0)
		close(d->log_fd);
	d->log_fd = -1;
	for (int i = 0; i < 2; i++) {
		if (d->listen[i] >= 0)
			close(d->listen[i]);
		d->listen[i] = -1;
		if (d->sentinel_dir[0]) {
			char p[4200];
			snprintf(p, sizeof(p), "%s/%s", d->sentinel_dir, i ? "end" : "start");
			unlink(p);
		}
	}
	if (d->sentinel_dir[0])
		rmdir(d->sentinel_dir);
	d->sentinel_dir[0] = '\0';
	seatbelt_profile_free(&d->profile);
}

const struct backend_ops backend_darwin = {
	.name = "seatbelt",
	.send_plan = darwin_send_plan,
	.start = darwin_start,
	.layers = darwin_layers,
	.serve = darwin_serve,
	.go = darwin_go,
	.wait = darwin_wait,
	.release = darwin_release,
};
