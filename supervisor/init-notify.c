/* supervisor/init-notify.c: sbx-init's side of the seccomp notify layer.
 *
 * The supervisor decides the notified calls and performs them itself
 * (notify.c), through the program's root as /proc/PID/root shows it. One
 * kind of call it cannot perform from outside: rename. The kernel refuses
 * to rename a mount point, or onto one (EBUSY), only when the mount is in
 * the caller's own mount namespace (is_local_mountpoint()), and the
 * sandbox's write-protects are mounts: renamed from the host, `.bashrc`
 * bound read-only over itself, or a pinned `.git`, would move away with
 * its protection left behind. So renames are done by the actor, a child of
 * pid 1 in the sandbox's namespaces, holding no capability, under the deny
 * table but not the notify filter (it is forked before that filter, so
 * its own calls are not sent back to the supervisor). It is
 * non-dumpable: nothing of COMMAND's can ptrace it or take its
 * descriptors. COMMAND can kill or stop it (same user): renames then fail
 * (the supervisor waits a bounded time), which is a refusal, never a
 * rename done elsewhere.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init-notify.h"
#include "notify-filter.h"

/* One request: the names are single components (the supervisor resolved
 * the directories): anything else is refused, so the actor can only ever
 * rename within the two directories it was handed. */
static int act_one(int sock)
{
	char buf[INIT_NOTIFY_REQ_MAX + 1];
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(2 * sizeof(int))];
	} cm;
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	int fds[2] = { -1, -1 }, nfds = 0, err = EINVAL;
	ssize_t n;

	while ((n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (n <= 0)
		return -1; /* the supervisor is gone: so is the sandbox soon */
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (nfds < 2)
				fds[nfds++] = fd;
			else
				close(fd);
		}
	}
	buf[n] = '\0';
	if (nfds == 2 && n > 5 && buf[0] == 'r' && !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		uint32_t flags;
		memcpy(&flags, buf + 1, 4);
		const char *from = buf + 5, *to = from + strnlen(from, (size_t)n - 5) + 1;
		if (to < buf + n && memchr(to, '\0', (size_t)(buf + n - to)) && *from && *to &&
		    !strchr(from, '/') && !strchr(to, '/'))
			err = syscall(SYS_renameat2, fds[0], from, fds[1], to, flags) ? errno : 0;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	int32_t e = err;
	send(sock, &e, sizeof(e), MSG_NOSIGNAL);
	return 0;
}

void init_notify_actor(int sock)
{
	/* nothing of pid 1's: only the supervisor's requests */
	if (sock > 0)
		syscall(SYS_close_range, 0u, (unsigned)sock - 1, 0u);
	syscall(SYS_close_range, (unsigned)sock + 1, ~0u, 0u);
	prctl(PR_SET_NAME, "sbx-rename", 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* pid 1 ends, the actor ends (pid 1's kill(-1) gets it too) */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	while (act_one(sock) == 0)
		;
	_exit(0);
}

int init_notify_install(int ctl, int block, int nobind, int act_sock, const char **what)
{
	struct sock_fprog prog;
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(2 * sizeof(int))];
	} cm;
	char m = 'F';
	struct iovec iov = { &m, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	int rc = 0;

#define PROG(p) (struct sock_fprog){ sizeof(p) / sizeof(p[0]), (struct sock_filter *)p }
	if (block)
		prog = nobind ? PROG(sbx_notify_unix_block_nobind) : PROG(sbx_notify_unix_block);
	else
		prog = nobind ? PROG(sbx_notify_unix_all_nobind) : PROG(sbx_notify_unix_all);
#undef PROG
	int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			      SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0) {
		*what = "seccomp notify filter";
		rc = -errno;
		goto out;
	}
	int fds[2] = { fd, act_sock };
	memset(&cm, 0, sizeof(cm));
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	while (sendmsg(ctl, &mh, MSG_NOSIGNAL) < 0)
		if (errno != EINTR) {
			*what = "control socket";
			rc = -errno;
			break;
		}
	close(fd);
out:
	close(act_sock);
	return rc;
}
