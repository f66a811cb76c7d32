/* supervisor/run.c: start bubblewrap, relay signals, collect the status. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "forwarded.h"
#include "supervisor.h"

extern char **environ;


/* The ones the terminal sends to the whole foreground process group. */
static bool terminating(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
}

unsigned run_ignored_signals(void)
{
	unsigned mask = 0;

	for (size_t i = 0; i < SBX_NFORWARDED; i++) {
		struct sigaction sa;
		if (sigaction(sbx_forwarded[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			mask |= 1u << sbx_forwarded[i];
	}
	return mask;
}

int run_unsandboxed(char *const *command)
{
	execvp(command[0], command);
	int e = errno;
	msg("%s: %s", command[0], e == ENOENT ? "command not found" : strerror(e));
	return e == ENOENT ? SBX_EXIT_NOTFOUND : SBX_EXIT_NOEXEC;
}

static void child_exec(const struct plan *pl, const struct run_in *ri,
		       const sigset_t *orig, pid_t parent)
{
	/* bwrap's outer process must outlive a Ctrl-C: the terminal signals
	 * the whole foreground group, COMMAND decides what to do with it, and
	 * bwrap dying would SIGKILL the sandbox (--die-with-parent). sbx-init
	 * restores COMMAND's dispositions. */
	for (size_t i = 0; i < SBX_NFORWARDED; i++)
		if (terminating(sbx_forwarded[i]))
			signal(sbx_forwarded[i], SIG_IGN);
	sigprocmask(SIG_SETMASK, orig, NULL);
	/* If we die, bwrap dies, and with it the sandbox. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(SBX_EXIT_SETUP);
	if (ri->cpu_seconds) {
		struct rlimit rl = { ri->cpu_seconds, ri->cpu_seconds };
		if (setrlimit(RLIMIT_CPU, &rl))
			goto fail;
	}
	if (ri->nofile) {
		struct rlimit rl = { ri->nofile, ri->nofile };
		if (setrlimit(RLIMIT_NOFILE, &rl))
			goto fail;
	}
	if (fcntl(ri->ctl_child, F_SETFD, 0))
		goto fail;
	for (size_t i = 0; i < ri->npass; i++)
		if (fcntl(ri->pass_fds[i], F_SETFD, 0))
			goto fail;
	execve(pl->argv.v[0], pl->argv.v, environ);
fail:
	dprintf(STDERR_FILENO, "sbx: cannot start %s: %s\n", pl->argv.v[0], strerror(errno));
	_exit(SBX_EXIT_SETUP);
}

/* Read sbx-init's message: "R" (ready; its pid comes with it, as we see
 * it) or "X" (every process of COMMAND's is gone, *gone set). */
static int read_ctl(int fd, pid_t *init_pid, bool *gone)
{
	char buf[16];
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct ucred))];
	} cm;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);

	if (n <= 0)
		return n == 0 || (errno != EAGAIN && errno != EINTR) ? -1 : 0;
	if (buf[0] == 'X' && *init_pid > 0)
		*gone = true;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred uc;
			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			if (buf[0] == 'R')
				*init_pid = uc.pid;
		}
	return 1;
}

/* Everything the report pipe holds now; false at end of file. */
static bool drain_reports(const struct run_in *ri)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(ri->report_fd, buf, sizeof(buf));
		if (n > 0) {
			reports_feed(ri->reports, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && errno == EAGAIN;
	}
}

int run_sandbox(struct plan *pl, const struct run_in *ri, bool *ready)
{
	bool gone = false;
	sigset_t set, orig;
	int one = 1, status = 0, killed_by = 0;
	pid_t pid, init_pid = 0, parent = getpid();

	*ready = false;
	sigemptyset(&set);
	for (size_t i = 0; i < SBX_NFORWARDED; i++)
		sigaddset(&set, sbx_forwarded[i]);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &orig))
		return SBX_EXIT_SETUP;
	int sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0 || setsockopt(ri->ctl_parent, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one))) {
		msg("sandbox set-up failed: %s", strerror(errno));
		return SBX_EXIT_SETUP;
	}

	pid = fork();
	if (pid < 0) {
		msg("sandbox set-up failed: fork: %s", strerror(errno));
		return SBX_EXIT_SETUP;
	}
	if (pid == 0)
		child_exec(pl, ri, &orig, parent);
	close(ri->ctl_child);
	/* bwrap has them now; our copy of the report pipe's write end would
	 * keep the end of file from ever coming */
	for (size_t i = 0; i < ri->npass; i++)
		close(ri->pass_fds[i]);

	struct pollfd pf[3] = { { sfd, POLLIN, 0 }, { ri->ctl_parent, POLLIN, 0 },
				{ ri->reports ? ri->report_fd : -1, POLLIN, 0 } };
	for (;;) {
		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[2].revents && !drain_reports(ri))
			pf[2].fd = -1;
		if (pf[1].revents) {
			if (read_ctl(ri->ctl_parent, &init_pid, &gone) < 0)
				pf[1].fd = -1; /* closed: sbx-init is gone */
			if (init_pid > 0)
				*ready = true;
			/* Overlaps with the namespaces' teardown. */
			if (gone)
				plan_remove_placeholders(pl);
		}
		if (!pf[0].revents)
			continue;
		struct signalfd_siginfo si;
		if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
			continue;
		int sig = (int)si.ssi_signo;
		if (sig == SIGCHLD) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				break;
			continue;
		}
		if (!*ready) {
			/* Nothing runs yet: a stop request ends the set-up. */
			if (terminating(sig) && !killed_by) {
				killed_by = sig;
				kill(pid, SIGKILL);
			}
			continue;
		}
		/* A signal the terminal sent reached COMMAND already, as a
		 * member of the foreground process group; relay only what a
		 * process sent us (kill, timeout, a parent agent). */
		if ((int)si.ssi_code <= 0)
			kill(init_pid, sig);
	}
	/* sbx-init may have written "ready" just before exiting. */
	if (!*ready && pf[1].fd >= 0) {
		read_ctl(ri->ctl_parent, &init_pid, &gone);
		*ready = init_pid > 0;
	}
	/* Whatever the sandbox wrote before it ended. Every writer is gone
	 * with the pid namespace, so this ends at end of file. */
	if (ri->reports && pf[2].fd >= 0)
		drain_reports(ri);
	close(sfd);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	if (killed_by && !*ready)
		return 128 + killed_by;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
