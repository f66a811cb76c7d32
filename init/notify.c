/* init/notify.c: sbx-init's side of the seccomp notify layer.
 *
 * The supervisor decides the notified calls and performs them itself
 * (notify.c), through the program's root as /proc/PID/root shows it. One
 * kind of call it cannot perform from outside: rename. The kernel refuses
 * to rename a mount point, or onto one (EBUSY), only when the mount is in
 * the caller's own mount namespace (is_local_mountpoint()), and the
 * sandbox's write-protects are mounts: renamed from the host, `.bashrc`
 * bound read-only over itself, or a pinned `.git`, would move away with
 * its protection left behind. So renames are done by the actor, which is
 * pid 1 itself: in the sandbox's namespaces, holding no capability (it
 * dropped them all before COMMAND existed), under the deny table but not
 * the notify filter (that one is installed in the child that becomes
 * COMMAND, so pid 1's own calls are never sent back to the supervisor),
 * non-dumpable (nothing of COMMAND's can ptrace it or take its
 * descriptors), and unkillable from inside its pid namespace. (It was a
 * child of its own, forked for the purpose: a process more to make and
 * tear down at every start, about 1 ms of CPU on a virtual machine that
 * traps page-table changes; docs/PERFORMANCE.md.)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/control.h"
#include "init/notify.h"
#include "gen/notify-filter.h"

/* One request: the names are single components (the supervisor resolved
 * the directories): anything else is refused, so the actor can only ever
 * rename within the two directories it was handed. */
int init_notify_act_one(int sock)
{
	char buf[CTL_ACT_REQ_MAX + 1];
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
	if (nfds == 2 && n > 5 && buf[0] == CTL_ACT_RENAME &&
	    !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		uint32_t flags;
		memcpy(&flags, buf + 1, 4);
		const char *from = buf + 5, *to = from + strnlen(from, (size_t)n - 5) + 1;
		if (to < buf + n && memchr(to, '\0', (size_t)(buf + n - to)) && *from && *to &&
		    !strchr(from, '/') && !strchr(to, '/'))
			err = syscall(SYS_renameat2, fds[0], from, fds[1], to, flags) ? errno : 0;
	} else if (nfds == 1 && n > 5 && buf[0] == CTL_ACT_UNLINK &&
		   !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		uint32_t flags;
		memcpy(&flags, buf + 1, 4);
		const char *name = buf + 5;
		if (*name && !strchr(name, '/') && (flags & ~(uint32_t)AT_REMOVEDIR) == 0)
			err = unlinkat(fds[0], name, (int)flags) ? errno : 0;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	int32_t e = err;
	/* never blocks pid 1 (the supervisor reads each answer at once) */
	send(sock, &e, sizeof(e), MSG_NOSIGNAL | MSG_DONTWAIT);
	return 0;
}

int init_notify_filter(int block, int nobind, int modes)
{
	struct sock_fprog prog;

#define PROG(p) (struct sock_fprog){ sizeof(p) / sizeof(p[0]), (struct sock_filter *)p }
	if (modes)
		prog = PROG(sbx_notify_modes);
	else if (block)
		prog = nobind ? PROG(sbx_notify_unix_block_nobind) : PROG(sbx_notify_unix_block);
	else
		prog = nobind ? PROG(sbx_notify_unix_all_nobind) : PROG(sbx_notify_unix_all);
#undef PROG
	int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			      SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	return fd < 0 ? -errno : fd;
}

int init_notify_recv_fd(int sock, char tag)
{
	char m = 0;
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(2 * sizeof(int))];
	} cm;
	struct iovec iov = { &m, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	int fd = -1, bad = 0;
	ssize_t n;

	while ((n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		size_t k = c->cmsg_type == SCM_RIGHTS && c->cmsg_level == SOL_SOCKET ?
			(c->cmsg_len - CMSG_LEN(0)) / sizeof(int) : 0;
		for (size_t i = 0; i < k; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(got));
			if (fd < 0)
				fd = got;
			else
				close(got), bad = 1;
		}
	}
	if (n == 0 && fd < 0)
		return -EPIPE;
	if (n != 1 || m != tag || bad || fd < 0 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (fd >= 0)
			close(fd);
		return -EPROTO;
	}
	return fd;
}

int init_notify_send_listener(int ctl, int listener, int act_sock)
{
	int fds[2] = { listener, act_sock };
	int rc = ctl_send(ctl, CTL_NOTIFY, NULL, 0, fds, 2);

	close(listener);
	close(act_sock);
	return rc;
}
