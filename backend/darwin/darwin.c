/* backend/darwin/darwin.c: backend_darwin (darwin.h, backend/backend.h).
 *
 * The phases as the seam asks them: start() compiles the profile (the
 * proxy's ports in it), starts `log stream` and waits until a refusal of
 * ours reaches it (a sentinel); go() starts COMMAND under sandbox-exec;
 * wait() relays signals, serves the proxy and feeds the log's refusals to
 * the reports until COMMAND is gone, then drains the log (a second
 * sentinel). When a standard stream is a terminal, COMMAND gets one of its
 * own (backend/relay.c, as on Linux), relayed in the wait's loop. Nothing
 * here needs more than POSIX: the same code runs on Linux in the unit
 * tests, with stand-ins for the two programs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/darwin/darwin.h"
#include "backend/darwin/launch.h"
#include "backend/relay.h"
#include "common/event.h"
#include "common/forwarded.h"
#include "common/hostfs.h"
#include "common/io.h"
#include "common/msg.h"
#include "common/wire.h"
#include "net/net.h"

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

/* With a terminal of its own (relay.c): fork and exec, since nothing of
 * posix_spawn's makes a terminal the controlling one (POSIX_SPAWN_SETSID
 * gives the session, not TIOCSCTTY, and BSD's open() never makes a
 * terminal controlling).
 *
 * Two processes, as a terminal's shell and its job: the first (the
 * holder, sbx's own code, unsandboxed) makes a session of its own with
 * the pty's slave as its controlling terminal (relay_child_session: the
 * slave on the streams that were the person's terminal, no other
 * terminal descriptor kept), then starts sandbox-exec in a
 * process group of its own, the slave's foreground unless we are in the
 * person's background (then its first read stops it with SIGTTIN, and us
 * with it, as on Linux). A group whose parent is in its session is not
 * orphaned, so ^Z on the pty stops COMMAND (a session leader's own group
 * would be, and the kernel drops the terminal's SIGTSTP). The holder
 * closes all but the slave and the status pipe, tells COMMAND's pid and
 * then each of its stops and its end (waitpid's status) through the
 * pipe, and gives the slave's foreground back to COMMAND when it stopped
 * reading or writing in the background of it (sbx decides when it goes
 * on: relay_stop). It ends with COMMAND; a hangup of the pty (sbx gone)
 * ends it and sends COMMAND's group SIGHUP, as a terminal does. An exec
 * that fails says its errno through a close-on-exec pipe. */
static _Noreturn void holder(const char *path, char *const *argv, char *const *envp,
			     const sigset_t *def, int ep, int sp, int max_fd, bool bg)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
	int e, tty = relay_slave(), st;

	/* what sbx catches (into its pipe): at the default here */
	for (size_t i = 0; i < SBX_NFORWARDED; i++)
		sigaction(sbx_forwarded[i], &dfl, NULL);
	sigaction(SIGCHLD, &dfl, NULL);
	sigaction(SIGTSTP, &dfl, NULL);
	sigaction(SIGCONT, &dfl, NULL);
	if ((e = relay_child_session(ep, max_fd)))
		goto fail;
	pid_t g = fork();
	if (g < 0) {
		e = errno;
		goto fail;
	}
	if (g == 0) {
		sigset_t ttou, old;
		setpgid(0, 0);
		if (!bg) {
			/* the foreground, from the background: SIGTTOU held */
			sigemptyset(&ttou);
			sigaddset(&ttou, SIGTTOU);
			sigprocmask(SIG_BLOCK, &ttou, &old);
			tcsetpgrp(tty, getpid());
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
		for (int sig = 1; sig < NSIG; sig++)
			if (sigismember(def, sig) == 1)
				sigaction(sig, &dfl, NULL);
		execve(path, argv, envp);
		e = errno;
		if (write(ep, &e, sizeof(e)) < 0) {
			/* the parent sees the pipe end without a word */
		}
		_exit(127);
	}
	setpgid(g, g);
	sigaction(SIGTTOU, &ign, NULL); /* tcsetpgrp below, from the background */
	if (write(sp, &g, sizeof(g)) != (ssize_t)sizeof(g))
		_exit(125);
	for (int fd = 3; fd < max_fd; fd++)
		if (fd != sp && fd != tty)
			close(fd);
	for (;;) {
		pid_t w = waitpid(g, &st, WUNTRACED);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			_exit(125);
		if (WIFSTOPPED(st) && (WSTOPSIG(st) == SIGTTIN || WSTOPSIG(st) == SIGTTOU))
			tcsetpgrp(tty, g);
		if (write(sp, &st, sizeof(st)) < 0 || !WIFSTOPPED(st))
			_exit(0);
	}
fail:
	if (write(ep, &e, sizeof(e)) < 0) {
		/* the parent sees the pipe end without a word */
	}
	_exit(127);
}

/* The holder started: COMMAND's pid in *pid, the holder's and its status
 * pipe in d. */
static int spawn_tty(struct darwin *d, const char *path, char *const *argv, char *const *envp,
		     const sigset_t *def, pid_t *pid)
{
	long max = sysconf(_SC_OPEN_MAX);
	int max_fd = max > 0 && max < 65536 ? (int)max : 65536;
	int ep[2], sp[2], e = 0;
	bool bg = relay_background();

	if (pipe(ep))
		return -errno;
	if (pipe(sp)) {
		e = errno;
		close(ep[0]);
		close(ep[1]);
		return -e;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(ep[i], F_SETFD, FD_CLOEXEC);
		fcntl(sp[i], F_SETFD, FD_CLOEXEC);
	}
	pid_t c = fork();
	if (c == 0)
		holder(path, argv, envp, def, ep[1], sp[1], max_fd, bg);
	if (c < 0)
		e = errno;
	close(ep[1]);
	close(sp[1]);
	relay_spawned();
	/* an errno, or the end: every copy closed once COMMAND runs */
	ssize_t k;
	while (c > 0 && (k = read(ep[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(ep[0]);
	pid_t g = -1;
	if (c > 0 && !e) {
		while ((k = read(sp[0], &g, sizeof(g))) < 0 && errno == EINTR)
			;
		if (k != (ssize_t)sizeof(g) || g <= 0)
			e = EIO;
	}
	if (c < 0 || e) {
		close(sp[0]);
		if (c > 0)
			darwin_reap(&c, g > 0 ? 0 : SIGKILL);
		return -e;
	}
	fcntl(sp[0], F_SETFL, O_NONBLOCK);
	d->holder = c;
	d->status_fd = sp[0];
	*pid = g;
	return 0;
}

/* path with argv and envp, the standard streams ours (COMMAND's, or the
 * relay's pty where ours are a terminal), the signals in def at their
 * default action. */
static int spawn(struct darwin *d, const char *path, char *const *argv, char *const *envp,
		 const sigset_t *def, pid_t *pid)
{
	if (relay_on())
		return spawn_tty(d, path, argv, envp, def, pid);
	posix_spawnattr_t at;
	int rc = posix_spawnattr_init(&at);

	if (rc)
		return -rc;
	rc = posix_spawnattr_setsigdefault(&at, def);
	/* a session of its own: no standard stream is a terminal, but ours
	 * may still be our controlling one (`cmd </dev/null >log 2>&1` from
	 * a shell), and COMMAND would open it as /dev/tty (TIOCSTI into the
	 * person's shell, their typing read) */
	short flags = POSIX_SPAWN_SETSIGDEF;
#ifdef POSIX_SPAWN_SETSID
	flags |= POSIX_SPAWN_SETSID;
#else
#error "no POSIX_SPAWN_SETSID: COMMAND would keep the person's controlling terminal"
#endif
	if (!rc)
		rc = posix_spawnattr_setflags(&at, flags);
	if (!rc)
		rc = posix_spawn(pid, path, NULL, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	return -rc;
}

/* The signals come through a pipe, read in the loop; caught from start()
 * to the end of the wait (signals_begin, signals_end). One that would end the
 * run (INT, TERM, HUP, QUIT) before COMMAND is started also goes to
 * stop_pipe: the start gives up at once (the log's wait watches it), and
 * nothing runs. */
static int sig_pipe[2] = { -1, -1 }, stop_pipe[2] = { -1, -1 };
static volatile sig_atomic_t cmd_started;
static struct sigaction sig_old[SBX_NFORWARDED + 1];
/* With the relay: SIGTSTP and SIGCONT caught too (job control of the run:
 * relay.c), their old actions here */
static const int job_sigs[2] = { SIGTSTP, SIGCONT };
static struct sigaction job_old[2];
static bool job_caught;

static void on_signal(int sig)
{
	int e = errno;
	unsigned char c = (unsigned char)sig;

	if (write(sig_pipe[1], &c, 1) < 0) {
		/* full: the loop has signals to read already */
	}
	if (!cmd_started && (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT) &&
	    write(stop_pipe[1], &c, 1) < 0) {
		/* full: the start stops already */
	}
	errno = e;
}

/* The signal that stopped the start, or 0. */
static int stop_signal(void)
{
	unsigned char c;

	return stop_pipe[0] >= 0 && read(stop_pipe[0], &c, 1) == 1 ? c : 0;
}

static int signals_begin(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (sig_pipe[0] >= 0)
		return 0;
	if (pipe(sig_pipe))
		return -errno;
	if (pipe(stop_pipe)) {
		int e = -errno;
		close(sig_pipe[0]);
		close(sig_pipe[1]);
		sig_pipe[0] = sig_pipe[1] = -1;
		return e;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(sig_pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(sig_pipe[i], F_SETFL, O_NONBLOCK);
		fcntl(stop_pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(stop_pipe[i], F_SETFL, O_NONBLOCK);
	}
	cmd_started = 0;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < SBX_NFORWARDED; i++)
		sigaction(sbx_forwarded[i], &sa, &sig_old[i]);
	sigaction(SIGCHLD, &sa, &sig_old[SBX_NFORWARDED]);
	return 0;
}

static void signals_end(void)
{
	if (sig_pipe[0] < 0)
		return;
	for (size_t i = 0; i < SBX_NFORWARDED; i++)
		sigaction(sbx_forwarded[i], &sig_old[i], NULL);
	sigaction(SIGCHLD, &sig_old[SBX_NFORWARDED], NULL);
	for (int i = 0; job_caught && i < 2; i++)
		sigaction(job_sigs[i], &job_old[i], NULL);
	job_caught = false;
	for (int i = 0; i < 2; i++) {
		close(sig_pipe[i]);
		close(stop_pipe[i]);
		sig_pipe[i] = stop_pipe[i] = -1;
	}
}

/* COMMAND gets a terminal of its own when one of ours is a terminal
 * (relay.c), opened before the profile is made (it denies the person's
 * terminal by name); SIGTSTP and SIGCONT caught from then on: the run
 * stops and goes on as one job. */
static int terminal_begin(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	int rc = relay_open();

	if (rc || !relay_on() || job_caught)
		return rc;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 2; i++)
		sigaction(job_sigs[i], &sa, &job_old[i]);
	job_caught = true;
	return 0;
}

/* The names shim_make makes in a hand-over directory, with their kind:
 * the only ones a run's end or a sweep removes. */
static const struct {
	const char *name;
	mode_t type;
} shim_files[] = { { "policy", S_IFREG }, { "reports", S_IFIFO }, { "dropped", S_IFREG } };
#define SHIM_NFILES (sizeof(shim_files) / sizeof(shim_files[0]))

/* Is `name` in the directory parent still the directory held as fd? */
static bool still_named(int parent, const char *name, int fd)
{
	struct stat a, b;

	return !fstatat(parent, name, &a, AT_SYMLINK_NOFOLLOW) && !fstat(fd, &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The shim's hand-over (darwin.h, struct darwin_shim; docs/MACOS.md):
 * gone with its files, the descriptors closed, SBX_SHIM's value freed.
 * Every way out of a run comes here (release); the directory is removed
 * while its lock is still held (a sweep never meets it half gone), and
 * the lock goes with the descriptor. A run killed with SIGKILL never
 * comes here: the next start sweeps (darwin_shim_sweep). */
static void shim_remove(struct darwin *d)
{
	struct darwin_shim *s = &d->shim;
	int *fds[] = { &s->rd, &s->wr, &s->cfd };

	for (size_t i = 0; i < 3; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	if (s->dirfd >= 0) {
		for (size_t i = 0; i < SHIM_NFILES; i++)
			if (unlinkat(s->dirfd, shim_files[i].name, 0) && errno != ENOENT)
				msg("cannot remove %s/%s: %s", s->dir, shim_files[i].name,
				    strerror(errno));
	}
	if (s->made && d->state_fd >= 0 && unlinkat(d->state_fd, s->name, AT_REMOVEDIR) &&
	    errno != ENOENT)
		msg("cannot remove the shim's hand-over directory %s: %s", s->dir, strerror(errno));
	if (s->dirfd >= 0)
		close(s->dirfd);
	s->dirfd = -1;
	s->made = false;
	free(d->shim_spec);
	d->shim_spec = NULL;
}

/* Does the directory fd hold nothing but what shim_make makes there, each
 * of its kind and the user's? (A directory with anything else in it is
 * not a hand-over sbx knows: left whole.) *empty: nothing at all. */
static bool only_ours(int fd, bool *empty)
{
	int fd2 = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd2 >= 0 ? fdopendir(fd2) : NULL;
	struct dirent *de;
	bool ok = dir != NULL;

	if (!dir && fd2 >= 0)
		close(fd2);
	while (ok && (de = readdir(dir))) {
		struct stat f;
		size_t i = 0;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		*empty = false;
		while (i < SHIM_NFILES && strcmp(de->d_name, shim_files[i].name))
			i++;
		ok = i < SHIM_NFILES && !fstatat(fd, de->d_name, &f, AT_SYMLINK_NOFOLLOW) &&
		     (f.st_mode & S_IFMT) == shim_files[i].type && f.st_uid == geteuid();
	}
	if (dir)
		closedir(dir);
	return ok;
}

/* One `shim-*` entry of the state directory, judged for a sweep: 1
 * removed (its run is gone), 0 left alone, -errno when it could not be
 * removed. What is left alone: anything but a directory of the user's
 * (a link is never followed: looked at, then opened O_NOFOLLOW, and the
 * two must be one directory), a directory whose lock a run holds (the
 * kernel drops a flock with the last descriptor of the run that took
 * it, SIGKILL too, so a lock that can be taken is a run that is gone),
 * and a directory holding anything sbx did not make there (only_ours:
 * -ENOTEMPTY, nothing in it removed). Two starts sweeping at once: one
 * takes the lock, the other finds it taken and leaves it to the first;
 * one that takes it after the first removed the directory finds the name
 * gone (still_named) and removes nothing. And a directory with nothing in
 * it, changed less than SWEEP_GRACE_S ago: a start's, between its mkdir
 * and its flock (shim_make), not yet locked; removed, it would fail that
 * start. A run killed in that moment leaves it for a later sweep. */
#define SWEEP_GRACE_S 60
static int sweep_one(int state_fd, const char *shown, const char *name)
{
	struct stat ln, st;
	bool empty = true;
	int fd, rc = 1;

	if (fstatat(state_fd, name, &ln, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(ln.st_mode) ||
	    ln.st_uid != geteuid())
		return 0;
	fd = hostfs_dir_openat(state_fd, shown, name, HOSTFS_MINE, NULL);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || st.st_dev != ln.st_dev || st.st_ino != ln.st_ino ||
	    flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return 0;
	}
	if (!still_named(state_fd, name, fd)) {
		close(fd);
		return 0;
	}
	if (!only_ours(fd, &empty)) {
		close(fd);
		return -ENOTEMPTY;
	}
	if (empty && (fstat(fd, &st) || time(NULL) - st.st_ctime < SWEEP_GRACE_S)) {
		close(fd);
		return 0;
	}
	for (size_t i = 0; i < SHIM_NFILES; i++)
		if (unlinkat(fd, shim_files[i].name, 0) && errno != ENOENT)
			rc = -errno;
	if (rc > 0 && unlinkat(state_fd, name, AT_REMOVEDIR))
		rc = errno == ENOENT ? 0 : errno == EEXIST ? -ENOTEMPTY : -errno;
	close(fd);
	return rc;
}

int darwin_shim_sweep(int state_fd, const char *shown,
		      void (*say)(void *ctx, const char *name, int rc), void *ctx)
{
	/* a descriptor of its own: a dup() would share (and leave at the
	 * end) the held directory's read position */
	int fd2 = openat(state_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), removed = 0;
	DIR *dir = fd2 >= 0 ? fdopendir(fd2) : NULL;
	struct dirent *de;

	if (!dir) {
		int e = -errno;
		if (fd2 >= 0)
			close(fd2);
		return e;
	}
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "shim-", 5) || !de->d_name[5])
			continue;
		int rc = sweep_one(state_fd, shown, de->d_name);
		removed += rc > 0;
		if (rc && say)
			say(ctx, de->d_name, rc);
	}
	closedir(dir);
	return removed;
}

/* At a start: what killed runs left, said with -v. */
static void swept(void *ctx, const char *name, int rc)
{
	const char *shown = ctx;

	if (rc > 0)
		vmsg("removed %s/%s, the shim's hand-over a killed run left", shown, name);
	else
		vmsg("left %s/%s, a killed run's hand-over: %s", shown, name,
		     rc == -ENOTEMPTY ? "it holds files sbx did not make" : strerror(-rc));
}

unsigned long darwin_shim_dropped(const struct darwin *d)
{
	struct stat st;

	return d->shim.cfd >= 0 && fstat(d->shim.cfd, &st) == 0 && st.st_size > 0 ?
		       (unsigned long)st.st_size : 0;
}

/* The hand-over's names for the try'th directory made for it:
 * `shim-RUNID`, then `shim-RUNID-1`... (shim_make). 0, -ENAMETOOLONG. */
static int shim_names(struct darwin *d, int tries)
{
	struct darwin_shim *s = &d->shim;
	char n[16] = "";

	if (tries)
		snprintf(n, sizeof(n), "-%d", tries);
	if ((size_t)snprintf(s->name, sizeof(s->name), "shim-%s%s", d->run_id, n) >=
		    sizeof(s->name) ||
	    sbx_path_fmt(s->dir, sizeof(s->dir), "%s/%s", d->state_dir, s->name) ||
	    sbx_path_fmt(s->policy, sizeof(s->policy), "%s/policy", s->dir) ||
	    sbx_path_fmt(s->report, sizeof(s->report), "%s/reports", s->dir) ||
	    sbx_path_fmt(s->counters, sizeof(s->counters), "%s/dropped", s->dir))
		return -ENAMETOOLONG;
	return 0;
}

/* The hand-over made, for the profile's rules and SBX_SHIM: a fresh
 * directory `shim-RUNID` in the held state directory (no process of the
 * run can write there), made and then opened without following a link,
 * its flock taken for the run's life (darwin_shim_sweep: the lock is the
 * run's liveness); in it the policy blob (policy/blob.c: the bytes Linux seals in its
 * memfd), made O_EXCL and left 0400; the report FIFO, held for reading
 * and writing (a reader for the shim's non-blocking opens, and no end
 * read while COMMAND lives), then made write-only (0200); the counters
 * file, write-only too. Any failure fails the run: why names what and
 * where. */
static int shim_make(struct darwin *d, const struct policy *p, char *why, size_t whysz)
{
	struct darwin_shim *s = &d->shim;
	struct hostfs_err he = { "" };
	struct stat st;
	void *blob = NULL;
	size_t len = 0;
	int fd, rc;

	if (d->state_fd < 0 || !d->state_dir) {
		snprintf(why, whysz, "the shim's hand-over has no state directory to go in");
		return -EINVAL;
	}
	for (int tries = 0;; tries++) {
		if (tries == 3) {
			snprintf(why, whysz, "the shim's hand-over directory in %s: another process "
				 "took the lock of each of three made for it", d->state_dir);
			return -EAGAIN;
		}
		if ((rc = shim_names(d, tries))) {
			snprintf(why, whysz, "the shim's hand-over directory in %s: path too long",
				 d->state_dir);
			return rc;
		}
		if (mkdirat(d->state_fd, s->name, 0700)) {
			rc = -errno;
			snprintf(why, whysz, "cannot make the shim's hand-over directory %s", s->dir);
			return rc;
		}
		s->made = true;
		s->dirfd = hostfs_dir_openat(d->state_fd, d->state_dir, s->name, HOSTFS_MINE, &he);
		if (s->dirfd < 0 || fchmod(s->dirfd, 0700)) {
			rc = s->dirfd < 0 ? s->dirfd : -errno;
			snprintf(why, whysz, "%s", he.msg[0] ? he.msg : s->dir);
			return rc;
		}
		int lk = flock(s->dirfd, LOCK_EX | LOCK_NB) ? errno : 0;
		if (!lk && still_named(d->state_fd, s->name, s->dirfd))
			break;
		if (lk && lk != EWOULDBLOCK && lk != EINTR) {
			/* no flock on this file system: never swept (a
			 * directory no one can lock is left), so only a
			 * killed run's stays behind */
			dmsg("the shim's hand-over directory %s cannot be locked (%s): a killed "
			     "run's would be left behind", s->dir, strerror(lk));
			break;
		}
		/* its lock was taken between its making and ours: by another
		 * start's sweep, which took it, empty, for a dead run's and
		 * removes it, or by a program of the user's (any may open it),
		 * which could hold it as long as it likes. Not this run's to
		 * use, nor to remove: another name, at once */
		close(s->dirfd);
		s->dirfd = -1;
		s->made = false;
	}
	if ((rc = policy_to_blob(p, &blob, &len))) {
		snprintf(why, whysz, "cannot make the shim's policy for %s", s->policy);
		return rc < 0 ? rc : -ENOMEM;
	}
	fd = hostfs_create(s->dirfd, s->dir, "policy", 0600, &he);
	rc = fd < 0 ? fd : io_write_all(fd, blob, len);
	if (!rc && fchmod(fd, 0400))
		rc = -errno;
	if (fd >= 0 && close(fd) && !rc)
		rc = -errno;
	free(blob);
	if (rc) {
		snprintf(why, whysz, "cannot write the shim's policy %s%s%s", s->policy,
			 he.msg[0] ? ": " : "", he.msg);
		return rc;
	}
#ifdef __APPLE__
	/* mkfifoat is macOS 13's: by path, in the directory only we write
	 * (a name there is refused, never followed; the open below checks) */
	int made = mkfifo(s->report, 0600);
#else
	int made = mkfifoat(s->dirfd, "reports", 0600);
#endif
	if (made) {
		rc = -errno;
		snprintf(why, whysz, "cannot make the shim's report FIFO %s", s->report);
		return rc;
	}
	errno = 0;
	s->rd = openat(s->dirfd, "reports", O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (s->rd >= 0)
		s->wr = openat(s->dirfd, "reports", O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (s->rd < 0 || s->wr < 0 || fstat(s->rd, &st) || !S_ISFIFO(st.st_mode)) {
		rc = errno ? -errno : -EINVAL;
		snprintf(why, whysz, "cannot open the shim's report FIFO %s", s->report);
		return rc;
	}
	/* then written only: the state directory is readable from inside
	 * every run, and the profile keeps only a run's own FIFO from it, so
	 * a program in another run (of the user's, not root) could open this
	 * one for reading and take its reports */
	if (fchmod(s->rd, 0200)) {
		rc = -errno;
		snprintf(why, whysz, "cannot make the shim's report FIFO %s write-only",
			 s->report);
		return rc;
	}
	if ((s->cfd = hostfs_create(s->dirfd, s->dir, "dropped", 0200, &he)) < 0) {
		snprintf(why, whysz, "%s", he.msg[0] ? he.msg : s->counters);
		return s->cfd;
	}
	struct darwin_shim_handover h = { .lib = d->shim_lib, .policy = s->policy,
					  .report = s->report, .counters = s->counters,
					  .mode = "enforce", .tell = d->shim_tell };
	if ((rc = darwin_shim_spec(&h, &d->shim_spec))) {
		snprintf(why, whysz, "the shim's hand-over cannot be named in SBX_SHIM (a path "
			 "longer than %d bytes or holding `;`: %s, %s; --no-shim runs without it)",
			 SBX_SHIM_PATH_MAX, s->dir, d->shim_lib);
		return rc;
	}
	return 0;
}

/* A refusal from the log, as an event to the supervisor. */
static void refused(void *ctx, const struct seatbelt_violation *v)
{
	struct darwin *d = ctx;

	if (d->report)
		darwin_event(v, d->report, d->report_ctx);
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

/* The profile travels in sandbox-exec's arguments (its text, a -D word a
 * path), and the kernel takes at most ARG_MAX bytes of them and the
 * environment: past that every spawn of it, the sentinels' first, is
 * E2BIG. What the disk says (plan_guards) grows with the repositories in
 * the writable roots, which an earlier run may have made by the
 * thousand: said as that, before anything starts. */
static int profile_fits(const struct darwin *d, const struct plan *pl, char *why, size_t whysz)
{
	long max = sysconf(_SC_ARG_MAX);
	size_t n = strlen(d->profile.text) + 1 + 4 * sizeof(char *);

	for (size_t i = 0; i < d->profile.nparams; i++)
		n += strlen(d->profile.params[i].name) + strlen(d->profile.params[i].value) + 5 +
		     2 * sizeof(char *);
	for (char *const *e = d->environ; e && *e; e++)
		n += strlen(*e) + 1 + sizeof(char *);
	if (max <= 0 || n <= (size_t)max)
		return 0;
	snprintf(why, whysz, "the Seatbelt profile takes %zu bytes of sandbox-exec's arguments, "
		 "more than the system passes (ARG_MAX, %ld): it keeps %zu paths read-only "
		 "because the disk says so (the git repositories in the writable roots); choose "
		 "a smaller workspace with -w DIR, or remove repositories a run made",
		 n, max, pl ? pl->guarded.n + pl->pinned.n : 0);
	return -E2BIG;
}

static int darwin_start(struct backend *b, const struct plan *pl, char *why, size_t whysz)
{
	struct darwin *d = b->darwin;
	char id[128], err[512] = "";
	int rc;

	if (!d || !d->run_id || !d->watch.sandbox_exec || !d->watch.log) {
		snprintf(why, whysz, "the darwin backend was not set up");
		return -EINVAL;
	}
	/* without it no profile holds (and the sentinels would time out as
	 * if the log were the matter) */
	if (access(d->watch.sandbox_exec, X_OK)) {
		rc = -errno;
		snprintf(why, whysz, "%s cannot be run", d->watch.sandbox_exec);
		return rc;
	}
	/* the forwarded signals, from before the first program of ours
	 * starts: none of them ends us with `log` or COMMAND left behind */
	if ((rc = signals_begin())) {
		snprintf(why, whysz, "cannot catch the signals to relay");
		return rc;
	}
	if ((rc = darwin_tag(d->run_id, id, sizeof(id)))) {
		snprintf(why, whysz, "cannot make the run's tag: %s", strerror(-rc));
		return rc;
	}
	char tag[160];
	snprintf(tag, sizeof(tag), "sbx-%s", id);
	if ((rc = terminal_begin())) {
		snprintf(why, whysz, "cannot give COMMAND a terminal of its own: %s",
			 strerror(-rc));
		return rc;
	}
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
	/* what killed runs left (their locks gone with them), then this
	 * run's hand-over, before the profile that guards it */
	if (d->state_fd >= 0) {
		const char *shown = d->state_dir ? d->state_dir : ".";
		darwin_shim_sweep(d->state_fd, shown, swept, (void *)shown);
	}
	if (d->shim_lib && (rc = shim_make(d, b->policy, why, whysz)))
		return rc;
	/* a relayed terminal the profile cannot name would stay open to
	 * COMMAND by its /dev/ttysN: no run */
	if (relay_on() && !relay_host_tty_path()[0]) {
		snprintf(why, whysz, "the terminal has no name to deny it to the sandbox by "
			 "(ttyname failed); run with the streams redirected");
		return -ENOTTY;
	}
	struct seatbelt_opts so = { .run_id = id, .http_port = d->ports[0],
				    .socks_port = d->ports[1], .host_tty = relay_host_tty_path(),
				    /* what the disk says (plan_guards) */
				    .kept = pl ? pl->guarded.v : NULL, .nkept = pl ? pl->guarded.n : 0,
				    .pinned = pl ? pl->pinned.v : NULL,
				    .npinned = pl ? pl->pinned.n : 0 };
	so.shim_others = d->state_dir; /* every run's hand-over, with a shim or not */
	if (d->shim_spec) {
		so.shim_dir = d->shim.dir;
		so.shim_policy = d->shim.policy;
		so.shim_report = d->shim.report;
		so.shim_counters = d->shim.counters;
	}
	if ((rc = seatbelt_compile(b->policy, &so, &d->profile, err, sizeof(err)))) {
		snprintf(why, whysz, "the Seatbelt profile: %s", err);
		return rc;
	}
	if ((rc = profile_fits(d, pl, why, whysz)))
		return rc;
	/* log stream, proved live before COMMAND starts */
	struct darwin_watch *w = &d->watch;
	snprintf(w->tag, sizeof(w->tag), "%s", tag);
	w->refused = refused;
	w->ctx = d;
	w->stop_fd = stop_pipe[0];
	if ((rc = darwin_watch_start(w, why, whysz)))
		return rc;
	if ((d->stopped_by = stop_signal())) {
		snprintf(why, whysz, "signal %d came before COMMAND started", d->stopped_by);
		return -EINTR;
	}
	/* a run whose refusals cannot be said fails without a word: the
	 * person never learns what to allow. Nothing runs. */
	if (!w->live) {
		snprintf(why, whysz, "the system log showed no refusal of this run's within %d ms "
			 "(`%s stream` did not start, or reads nothing), so the sandbox's refusals "
			 "could not be reported", w->wait_ms > 0 ? w->wait_ms : 10000, w->log);
		return -ETIMEDOUT;
	}
	/* sandbox-exec's argv and COMMAND's environment, now: the start-up
	 * line counts what is withheld */
	struct darwin_launch_in in = {
		.policy = b->policy, .profile = &d->profile, .command = b->command,
		.environ = d->environ, .shim_lib = d->shim_lib, .shim_spec = d->shim_spec,
		.http_port = d->ports[0], .socks_port = d->ports[1],
	};
	if ((rc = darwin_launch_argv(&in, &d->argv)) ||
	    (rc = darwin_launch_env(&in, &d->envp, d->withheld))) {
		snprintf(why, whysz, "COMMAND's arguments and environment");
		return rc;
	}
	return 0;
}

static const char *darwin_layers(const struct backend *b, char *out, size_t outsz)
{
	snprintf(out, outsz, "Seatbelt profile (sandbox-exec), reports from the system log; "
		 "%s, no nested sandboxes (sbxctl doctor)", b->darwin && b->darwin->shim_lib ?
		 "no shim in SIP-protected programs" : "no shim");
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

	if (!d->argv.n)
		return -EINVAL; /* start() did not succeed */
	/* what came before COMMAND was not for it: a signal that ends the
	 * run ends it here, the rest (a resize) is dropped; from here on
	 * every one is relayed */
	unsigned char drop[64];
	while (read(sig_pipe[0], drop, sizeof(drop)) > 0)
		;
	if ((d->stopped_by = stop_signal()))
		return -EINTR;
	cmd_started = 1;
	d->watch.stop_fd = -1; /* the end sentinel is awaited whatever comes */
	int rc = spawn(d, d->watch.sandbox_exec, d->argv.v, d->envp.v, &d->sigdefault, &d->cmd_pid);
	strv_free(&d->argv);
	strv_free(&d->envp);
	if (!rc)
		relay_start(); /* the typing relayed, the terminal raw, while in the foreground */
	return rc;
}

/* Are we in the foreground of the terminal? Then the keys' signals
 * (^C, ^\\) and a resize reach COMMAND, in our process group, from the
 * terminal itself: relayed too, it would get each twice. */
static bool terminal_foreground(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (isatty(fd) && tcgetpgrp(fd) == getpgrp())
			return true;
	return false;
}

/* `log stream` ended before COMMAND did: said once (the watch has
 * closed its end). */
static void log_ended(const struct darwin *d)
{
	msg("`%s stream` ended while COMMAND ran: the sandbox held, but its refusals from "
	    "then on were not reported", d->watch.log);
}

static int exit_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 125;
}

/* COMMAND's state, when it changed: its status once it ended (-1 while
 * it runs). With the relay, the holder (spawn_tty) says each change: a
 * stop of COMMAND's (^Z on its terminal, a read in the background of it)
 * stops the run as one job (relay_stop: the person's modes back, sbx
 * stopped; COMMAND goes on at our SIGCONT, job_signal); a stop in the
 * background of its pty while we are in the person's foreground goes on
 * at once (the holder gave it the pty's foreground). A holder gone
 * without a word (killed): its own status. */
static int reap(struct darwin *d)
{
	int st;
	ssize_t k;

	if (d->holder <= 0) {
		if (d->cmd_pid <= 0 || waitpid(d->cmd_pid, &st, WNOHANG) != d->cmd_pid)
			return -1;
		d->cmd_pid = -1;
		return exit_status(st);
	}
	while ((k = read(d->status_fd, &st, sizeof(st))) == (ssize_t)sizeof(st)) {
		if (WIFSTOPPED(st)) {
			if (relay_stop(WSTOPSIG(st)) && d->cmd_pid > 0)
				kill(-d->cmd_pid, SIGCONT);
			continue;
		}
		d->cmd_pid = -1;
		close(d->status_fd);
		d->status_fd = -1;
		darwin_reap(&d->holder, 0);
		return exit_status(st);
	}
	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return -1;
	/* the pipe's end without COMMAND's: the holder's status */
	close(d->status_fd);
	d->status_fd = -1;
	while (waitpid(d->holder, &st, 0) < 0 && errno == EINTR)
		;
	d->holder = d->cmd_pid = -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 125;
}

/* A signal with the relay on: the terminal's size onto the pty (the
 * kernel tells its foreground), the signal keys to the pty's foreground
 * group as its terminal's would (the sandbox is a session of its own:
 * nothing of the person's terminal reaches it but through us), fg and
 * bg to COMMAND. true: served. */
static bool job_signal(struct darwin *d, int sig)
{
	bool fg;

	if (!relay_on())
		return false;
	switch (sig) {
	case SIGWINCH:
		relay_winch();
		return true;
	case SIGCONT:
		if (relay_continued(&fg) && d->cmd_pid > 0)
			kill(-d->cmd_pid, SIGCONT);
		return true;
	case SIGINT:
	case SIGQUIT:
	case SIGTSTP:
		return relay_signal(sig) == 0 || sig == SIGTSTP;
	default:
		return false;
	}
}

/* The shim's report pipe into the reports, as Linux's wait reads its
 * own (preload/run.c): 16 KiB a read, until it is empty or for at most
 * ms (a program that writes without pause cannot starve the loop, or
 * hold the run's end). false: closed or failed, no more to read.
 * REPORT_SLICE_MS a turn of the wait; at the end, when Linux reads its
 * pipe to the end (its pid namespace is gone, and every writer with it),
 * until it is empty but for REPORT_END_MS at most (a program COMMAND
 * left behind may write on): one turn would leave what the FIFO still
 * held when COMMAND ended unread, reported by nobody, whenever saying
 * it takes longer than 10 ms. */
#define REPORT_SLICE_MS 10
#define REPORT_END_MS 1000
static bool read_reports(struct darwin_io *io, long ms)
{
	char buf[16384];
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ssize_t n = read(io->report_fd, buf, sizeof(buf));
		if (n > 0) {
			if (io->feed)
				io->feed(io->ctx, buf, (size_t)n);
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) * 1000 +
			    (t.tv_nsec - t0.tv_nsec) / 1000000 >= ms)
				return true;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && errno == EAGAIN;
	}
}

int darwin_wait(struct backend *b, struct darwin_io *io, bool *ready)
{
	struct darwin *d = b->darwin;
	int status = -1;

	*ready = d->cmd_pid > 0;
	if (!*ready || signals_begin()) {
		relay_end();
		signals_end();
		return 125;
	}
	/* with the relay COMMAND is in a session of its own: the keys
	 * reach it through the pty only */
	bool fg = !relay_on() && terminal_foreground();
	/* it may have ended before the handler was there */
	status = reap(d);
	/* the signals, the log, the reports, the terminal relay's three
	 * (relay.c), then the proxy's (net_loop_pollfds) */
	enum { NOWN = 7 };
	struct pollfd *pf = NULL;
	size_t npf = 0;
	while (status < 0) {
		struct pollfd *lpf = NULL;
		size_t nn = io->net ? (size_t)net_loop_pollfds(io->net, &lpf) : 0;
		if (NOWN + nn > npf) {
			struct pollfd *m = realloc(pf, (NOWN + nn) * 2 * sizeof(*pf));
			if (!m)
				break;
			pf = m;
			npf = (NOWN + nn) * 2;
		}
		pf[0] = (struct pollfd){ .fd = sig_pipe[0], .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = d->watch.log_fd, .events = POLLIN };
		pf[2] = (struct pollfd){ .fd = io->report_fd, .events = POLLIN };
		relay_poll_set(pf + 3);
		pf[6] = (struct pollfd){ .fd = d->status_fd, .events = POLLIN };
		if (nn)
			memcpy(pf + NOWN, lpf, nn * sizeof(*pf));
		bool pending = io->pending && io->pending(io->ctx);
		int timeout = pending ? 100 : io->net ? net_loop_timeout(io->net) : -1;
		int n = poll(pf, NOWN + nn, timeout);
		if (n < 0 && errno != EINTR)
			break;
		if (n == 0 && pending && io->flush)
			io->flush(io->ctx);
		if (n <= 0)
			continue;
		if (pf[0].revents & POLLIN) {
			unsigned char sigs[64];
			ssize_t k = read(sig_pipe[0], sigs, sizeof(sigs));
			for (ssize_t i = 0; i < k; i++) {
				bool terminal = sigs[i] == SIGINT || sigs[i] == SIGQUIT ||
						sigs[i] == SIGWINCH;
				if (sigs[i] != SIGCHLD && d->cmd_pid > 0 && !(fg && terminal) &&
				    !job_signal(d, sigs[i]))
					kill(d->cmd_pid, sigs[i]);
			}
			status = reap(d);
		}
		if (status < 0 && pf[6].revents)
			status = reap(d);
		relay_poll_run(pf + 3);
		if (pf[1].revents & (POLLIN | POLLHUP)) {
			darwin_watch_read(&d->watch);
			if (d->watch.log_fd < 0)
				log_ended(d);
		}
		bool net = false;
		for (size_t i = NOWN; i < NOWN + nn; i++)
			net |= pf[i].revents != 0;
		if (net)
			net_loop_run_once(io->net, 0);
		if ((pf[2].revents & (POLLIN | POLLHUP)) && !read_reports(io, REPORT_SLICE_MS))
			io->report_fd = -1;
	}
	free(pf);
	/* the rest of COMMAND's output, the person's terminal as it was,
	 * before any line of ours that follows */
	relay_end();
	signals_end();
	/* the last refusals: the log delivers late, so until a refusal made
	 * after COMMAND's end has come through */
	if (d->watch.live && d->watch.log_fd >= 0 && !darwin_watch_drain(&d->watch)) {
		if (d->watch.log_fd < 0)
			log_ended(d);
		else
			msg("the system log did not catch up within %d ms: refusals of the run's "
			    "last moments may be missing from the reports",
			    d->watch.wait_ms > 0 ? d->watch.wait_ms : 10000);
	}
	/* the shim's last reports: until the FIFO is empty, REPORT_END_MS
	 * at most (a program left behind may write on without end: no pid
	 * namespace ends it here) */
	if (io->report_fd >= 0)
		read_reports(io, REPORT_END_MS);
	if (io->flush)
		io->flush(io->ctx);
	darwin_watch_stop(&d->watch);
	return status < 0 ? 125 : status;
}

static void darwin_release(struct backend *b)
{
	struct darwin *d = b->darwin;

	if (!d)
		return;
	darwin_reap(&d->cmd_pid, SIGKILL); /* with the relay not our child: killed */
	darwin_reap(&d->holder, SIGKILL);
	if (d->status_fd >= 0)
		close(d->status_fd);
	d->status_fd = -1;
	darwin_watch_stop(&d->watch);
	relay_end();
	signals_end();
	strv_free(&d->argv);
	strv_free(&d->envp);
	for (int i = 0; i < 2; i++) {
		if (d->listen[i] >= 0)
			close(d->listen[i]);
		d->listen[i] = -1;
	}
	seatbelt_profile_free(&d->profile);
	shim_remove(d);
}

const struct backend_ops backend_darwin = {
	.name = "seatbelt",
	.send_plan = darwin_send_plan,
	.start = darwin_start,
	.layers = darwin_layers,
	.serve = darwin_serve,
	.go = darwin_go,
	.waited = NULL, /* darwin_wait() reaps and drains itself */
	.release = darwin_release,
};
