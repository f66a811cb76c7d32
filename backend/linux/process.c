/* backend/linux/process.c: start bubblewrap (or sbx-init alone, nested),
 * feed it, tell it to go, or kill it before anything ran (process.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/control.h"
#include "common/forwarded.h"
#include "common/guard.h"
#include "common/msg.h"
#include "backend/linux/landlock.h"
#include "backend/linux/mountids.h"
#include "backend/linux/process.h"
#include "backend/relay.h"

extern char **environ;

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

/* In the vfork()ed child: nothing allocated, nothing of the parent's
 * memory changed (signal dispositions and descriptors are the child's own). */
static void child_exec(const struct sandbox *sb, char *const *argv, int args_child,
		       pid_t parent)
{
	/* bwrap's outer process must outlive a Ctrl-C: the terminal signals
	 * the whole foreground group, COMMAND decides what to do with it, and
	 * bwrap dying would SIGKILL the sandbox (--die-with-parent). sbx-init
	 * restores COMMAND's dispositions. */
	for (size_t i = 0; i < SBX_NFORWARDED; i++)
		if (sbx_terminating(sbx_forwarded[i]))
			signal(sbx_forwarded[i], SIG_IGN);
	guard_restore();
	sigprocmask(SIG_SETMASK, &sb->orig, NULL);
	/* If we die, bwrap dies, and with it the sandbox. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(SBX_EXIT_SETUP);
	if (fcntl(sb->ctl_child, F_SETFD, 0) || (args_child >= 0 && fcntl(args_child, F_SETFD, 0)))
		goto fail;
	/* the sandbox's own terminal in place of the person's */
	relay_child();
	/* The nested mode: sbx-init and all it starts under the ruleset */
	if (sb->ruleset >= 0) {
		int e;
		if (chdir(sb->cwd)) {
			dprintf(STDERR_FILENO, "sbx: sandbox set-up failed: cannot enter %s: %s\n",
				sb->cwd, strerror(errno));
			_exit(SBX_EXIT_SETUP);
		}
		if ((e = landlock_restrict(sb->ruleset))) {
			dprintf(STDERR_FILENO, "sbx: sandbox set-up failed: applying the Landlock "
				"ruleset: %s; nothing was run\n", strerror(-e));
			_exit(SBX_EXIT_SETUP);
		}
		close(sb->ruleset);
	}
	execve(argv[0], argv, sb->envp ? sb->envp : environ);
fail:
	dprintf(STDERR_FILENO, "sbx: cannot start %s: %s\n", argv[0], strerror(errno));
	_exit(SBX_EXIT_SETUP);
}

/* Apart, so that no local of the caller lives across vfork(). */
static __attribute__((noinline)) pid_t vfork_exec(const struct sandbox *sb, char *const *argv,
						 int args_child, pid_t parent)
{
	pid_t pid = vfork();

	if (pid == 0)
		child_exec(sb, argv, args_child, parent);
	return pid;
}

/* The signal mask, the signalfd and the control socket, for either
 * spawn. 0 or -errno (the mask restored). */
static int spawn_prepare(struct sandbox *sb)
{
	int one = 1, ctl[2] = { -1, -1 }, e;
	sigset_t set;

	/* the pty first: bubblewrap's child gets it as its standard streams.
	 * None: the person's terminal would be COMMAND's (fail closed). */
	if ((e = relay_open())) {
		msg("sandbox set-up failed: a terminal of the sandbox's own (a pty from "
		    "/dev/ptmx): %s; nothing was run", strerror(-e));
		return e;
	}
	sb->ignored = run_ignored_signals();
	sigemptyset(&set);
	for (size_t i = 0; i < SBX_NFORWARDED; i++)
		sigaddset(&set, sbx_forwarded[i]);
	sigaddset(&set, SIGCHLD);
	/* job control of the run (relay.c): fg and bg; a SIGTSTP stops the
	 * run through its terminal, not us alone */
	sigaddset(&set, SIGCONT);
	if (relay_on())
		sigaddset(&set, SIGTSTP);
	if (sigprocmask(SIG_BLOCK, &set, &sb->orig)) {
		e = errno;
		relay_end();
		return -e;
	}
	sb->sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sb->sfd < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl) ||
	    setsockopt(ctl[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) ||
	    (setsockopt(ctl[0], SOL_SOCKET, SO_PASSPIDFD, &one, sizeof(one)) &&
	     errno != ENOPROTOOPT && errno != EINVAL)) {
		e = errno;
		for (int i = 0; i < 2; i++)
			if (ctl[i] >= 0)
				close(ctl[i]);
		if (sb->sfd >= 0)
			close(sb->sfd);
		sigprocmask(SIG_SETMASK, &sb->orig, NULL);
		relay_end();
		*sb = SANDBOX_NONE;
		return -e;
	}
	sb->ctl = ctl[0];
	sb->ctl_child = ctl[1];
	return 0;
}

static void spawn_undo(struct sandbox *sb)
{
	int *fds[] = { &sb->ctl, &sb->ctl_child, &sb->sfd };

	for (size_t i = 0; i < 3; i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	sigprocmask(SIG_SETMASK, &sb->orig, NULL);
	relay_end();
	*sb = SANDBOX_NONE;
}

int sandbox_spawn(struct sandbox *sb, const char *bwrap, const char *init,
		  char *const *command)
{
	int args[2] = { -1, -1 }, e;
	char num[32], ctlarg[32], **argv = NULL;
	pid_t parent = getpid();

	*sb = SANDBOX_NONE;
	if ((e = spawn_prepare(sb)))
		return e;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, args))
		goto fail;
	/* bubblewrap takes only options from --args: what it runs is here */
	size_t n = 0;
	while (command[n])
		n++;
	/* (an array of our own for a short command: this process's first
	 * allocation, before bubblewrap starts, would map memory) */
	static char *small[64];
	argv = n + 8 <= 64 ? small : calloc(n + 8, sizeof(*argv));
	if (!argv)
		goto fail;
	snprintf(num, sizeof(num), "%d", args[1]);
	snprintf(ctlarg, sizeof(ctlarg), "--ctl=%d", sb->ctl_child);
	argv[0] = (char *)bwrap;
	argv[1] = "--args";
	argv[2] = num;
	argv[3] = "--";
	argv[4] = (char *)init;
	argv[5] = ctlarg;
	argv[6] = "--";
	memcpy(argv + 7, command, n * sizeof(*argv));
	argv[7 + n] = NULL;
	/* vfork: bubblewrap's exec starts at once, and this process goes on
	 * compiling the policy while bubblewrap loads (with fork, the child
	 * often waited for this CPU: about 1 ms lost). */
	sb->pid = vfork_exec(sb, argv, args[1], parent);
	if (sb->pid < 0)
		goto fail;
	relay_spawned();
	if (argv != small)
		free(argv);
	argv = NULL;
	close(args[1]);
	sb->args_fd = args[0];
	return 0;
fail:
	e = errno;
	if (argv != small)
		free(argv);
	for (int i = 0; i < 2; i++)
		if (args[i] >= 0)
			close(args[i]);
	spawn_undo(sb);
	return -e;
}

int sandbox_spawn_nested(struct sandbox *sb, const char *init, char *const *command,
			 int ruleset, char **envp, const char *cwd)
{
	char ctlarg[32], **argv = NULL;
	pid_t parent = getpid();
	int e;

	*sb = SANDBOX_NONE;
	if ((e = spawn_prepare(sb)))
		return e;
	size_t n = 0;
	while (command[n])
		n++;
	argv = calloc(n + 5, sizeof(*argv));
	if (!argv) {
		spawn_undo(sb);
		return -ENOMEM;
	}
	snprintf(ctlarg, sizeof(ctlarg), "--ctl=%d", sb->ctl_child);
	argv[0] = (char *)init;
	argv[1] = "--nested";
	argv[2] = ctlarg;
	argv[3] = "--";
	memcpy(argv + 4, command, n * sizeof(*argv));
	sb->ruleset = ruleset;
	sb->envp = envp;
	sb->cwd = cwd;
	sb->pid = vfork_exec(sb, argv, -1, parent);
	e = errno;
	if (sb->pid >= 0)
		relay_spawned();
	free(argv);
	sb->ruleset = -1;
	sb->envp = NULL;
	if (sb->pid < 0) {
		spawn_undo(sb);
		return -e;
	}
	/* sbx-init has it now */
	close(sb->ctl_child);
	sb->ctl_child = -1;
	return 0;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int sandbox_send_args(struct sandbox *sb, const struct plan *pl)
{
	int rc = 0;

	/* its options, up to the "--" before sbx-init, in one piece */
	size_t len = 0;
	for (size_t i = 1; i + 1 < pl->init_at; i++)
		len += strlen(pl->argv.v[i]) + 1;
	char *buf = malloc(len + 1), *w = buf;
	if (buf) {
		for (size_t i = 1; i + 1 < pl->init_at; i++) {
			size_t n = strlen(pl->argv.v[i]) + 1;
			memcpy(w, pl->argv.v[i], n);
			w += n;
		}
		rc = send_all(sb->args_fd, buf, len);
		free(buf);
	} else {
		rc = -ENOMEM;
	}
	close(sb->args_fd);
	sb->args_fd = -1;
	/* bwrap has it now */
	close(sb->ctl_child);
	sb->ctl_child = -1;
	return rc;
}

/* COMMAND was started in the background of its pty (--tty-bg) */
static bool started_bg;

bool sandbox_started_bg(void)
{
	return started_bg;
}

/* sbx-init's options (those after its --ctl, before its "--") in
 * CTL_OPTS messages of whole NUL-terminated strings (buf[0] is the type's
 * room: each message is at most sizeof(buf), as sbx-init reads them). */
static int send_init_opts(struct sandbox *sb, const struct plan *pl)
{
	static char buf[1 << 16];
	size_t used = 1;
	int rc = 0;

	for (size_t i = pl->init_at + 1; !rc && i + 1 < pl->cmd_at; i++) {
		const char *a = pl->argv.v[i];
		size_t len = strlen(a) + 1;
		if (!strncmp(a, "--ctl=", 6))
			continue; /* in its argv */
		if (len + 1 > sizeof(buf))
			return -E2BIG;
		if (used + len > sizeof(buf)) {
			rc = ctl_send(sb->ctl, CTL_OPTS, buf + 1, used - 1, NULL, 0);
			used = 1;
		}
		memcpy(buf + used, a, len);
		used += len;
	}
	/* COMMAND starts in the background of its pty when we are in the
	 * terminal's (relay.c): its first read stops it, not steals */
	if (!rc && (started_bg = relay_background())) {
		static const char bg[] = "--tty-bg";
		if (used + sizeof(bg) > sizeof(buf)) {
			rc = ctl_send(sb->ctl, CTL_OPTS, buf + 1, used - 1, NULL, 0);
			used = 1;
		}
		memcpy(buf + used, bg, sizeof(bg));
		used += sizeof(bg);
	}
	if (!rc && used > 1)
		rc = ctl_send(sb->ctl, CTL_OPTS, buf + 1, used - 1, NULL, 0);
	return rc;
}

int sandbox_go(struct sandbox *sb, const struct plan *pl, const int *fds, size_t nfds)
{
	int rc;

	if (nfds > 3)
		return -EINVAL;
	rc = send_init_opts(sb, pl);
	if (!rc)
		rc = mount_ids_send(sb->ctl, pl);
	if (!rc)
		rc = ctl_send(sb->ctl, CTL_GO, pl->placeholder_state,
			      pl->placeholders_pending.n, fds, nfds);
	return rc;
}

/* bubblewrap killed, and with it the sandbox. Its child (pid 1 of the
 * sandbox's pid namespace) dies with it through --die-with-parent once
 * bubblewrap has set that up; before (it waits on an eventfd for
 * bubblewrap to write its maps), it would wait for ever, an orphan --
 * and as root bubblewrap's capability drop clears any parent-death signal
 * we gave it. So: bubblewrap stopped, so it makes no child meanwhile, its
 * children killed, then it. (A Ctrl-C in the first milliseconds left one
 * such process behind in about one run of two.) */
void sandbox_kill(pid_t pid)
{
	siginfo_t si = { 0 };
	char p[64], buf[256];

	if (kill(pid, SIGSTOP) == 0) {
		while (waitid(P_PID, (id_t)pid, &si, WSTOPPED | WEXITED | WNOWAIT) < 0 &&
		       errno == EINTR)
			;
		snprintf(p, sizeof(p), "/proc/%d/task/%d/children", (int)pid, (int)pid);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 && si.si_code == CLD_STOPPED ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		for (char *q = n > 0 ? (buf[n] = '\0', buf) : NULL, *end; q && *q; q = end) {
			long c = strtol(q, &end, 10);
			if (end == q)
				break;
			if (c > 1)
				kill((pid_t)c, SIGKILL);
		}
	}
	kill(pid, SIGKILL);
}

void sandbox_abort(struct sandbox *sb)
{
	if (sb->pid > 0) {
		sandbox_kill(sb->pid);
		while (waitpid(sb->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	int *fds[] = { &sb->sfd, &sb->args_fd, &sb->ctl, &sb->ctl_child };
	for (size_t i = 0; i < 4; i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
	sigprocmask(SIG_SETMASK, &sb->orig, NULL);
	relay_end();
	sb->pid = -1;
}
