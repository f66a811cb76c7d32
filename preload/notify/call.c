/* preload/notify/call.c: what every handler of the notify layer stands
 * on (preload/notify/internal.h): the caller's memory (process_vm_readv) and whether
 * its request still waits (ID_VALID), its descriptors (pidfd_getfd), its
 * name and umask from /proc, the answer (SEND, or ADDFD with the
 * descriptor), and the supervisor's own state around an act (no
 * capability, the caller's umask; notify.c's serving turn).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <stddef.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/event.h"
#include "init/notify.h"
#include "preload/notify/internal.h"
#include "preload/preload.h"

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#define PIDFD_THREAD_FLAG O_EXCL /* PIDFD_THREAD, Linux 6.9 */

/* ---- capabilities, for a root supervisor */

void notify_caps_effective(const struct notify *n, bool on)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memcpy(d, n->caps, sizeof(d));
	if (!on)
		d[0].effective = d[1].effective = 0;
	syscall(SYS_capset, &h, d);
}

/* Around every act on the program's files: its umask (when something is
 * made), and no capability. A root supervisor's effective set is lowered
 * for a whole serve (notify_serve_begin), so a request pays no capset; the umask
 * is set only when it differs from the last one set, and the
 * supervisor's own is put back when the serve ends (notify_serve_end): its
 * other files (the log, --learn's output) never get a program's. */
mode_t notify_act_begin(struct notify *n, mode_t umask_)
{
	if (n->root && !n->low)
		notify_caps_effective(n, false);
	if (umask_ != NO_UMASK && umask_ != n->umask_now) {
		umask(umask_);
		n->umask_now = umask_;
	}
	return umask_;
}

void notify_act_end(struct notify *n, mode_t old)
{
	(void)old;
	if (n->root && !n->low)
		notify_caps_effective(n, true);
}

/* The supervisor's own umask back (a program's may be set in a serve). */
static void umask_own(struct notify *n)
{
	if (n->umask_now != n->umask_own) {
		umask(n->umask_own);
		n->umask_now = n->umask_own;
	}
}

/* Something of the supervisor's own in the middle of a serve -- a
 * report, whose audit log is opened at the first one, or the proxy's
 * dial -- is made with its own umask and, as root, its own capabilities
 * (a log in a directory only those let root write was not opened when
 * the first report came from this layer, and was when it came from the
 * shim); lowered again at notify_own_end for the rest of the serve. */
void notify_own_begin(struct notify *n)
{
	umask_own(n);
	if (n->low)
		notify_caps_effective(n, true);
}

void notify_own_end(struct notify *n)
{
	if (n->low)
		notify_caps_effective(n, false);
}

void notify_serve_begin(struct notify *n)
{
	if (n->root && !n->low) {
		notify_caps_effective(n, false);
		n->low = true;
	}
}

void notify_serve_end(struct notify *n)
{
	umask_own(n);
	if (n->low) {
		n->low = false;
		notify_caps_effective(n, true);
	}
}

/* ---- the program's memory and view */

bool notify_call_valid(const struct call *c)
{
	uint64_t id = c->id;
	return ioctl(c->n->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* A NUL-terminated string at `addr`, read page by page (a string may end
 * just before an unmapped page). 0, -EFAULT, -ENAMETOOLONG. */
int notify_read_str(const struct call *c, unsigned long long addr, char *out, size_t outsz)
{
	size_t got = 0;

	if (!addr)
		return -EFAULT;
	while (got < outsz) {
		size_t page = 4096 - ((addr + got) & 4095), want = outsz - got;
		if (want > page)
			want = page;
		struct iovec l = { out + got, want }, rm = { (void *)(uintptr_t)(addr + got), want };
		ssize_t r = process_vm_readv(c->pid, &l, 1, &rm, 1, 0);
		if (r <= 0)
			return -EFAULT;
		char *nul = memchr(out + got, '\0', (size_t)r);
		if (nul)
			return 0;
		got += (size_t)r;
	}
	return -ENAMETOOLONG;
}

int notify_read_mem(const struct call *c, unsigned long long addr, void *out, size_t n)
{
	if (!addr)
		return -EFAULT;
	struct iovec l = { out, n }, rm = { (void *)(uintptr_t)addr, n };
	return process_vm_readv(c->pid, &l, 1, &rm, 1, 0) == (ssize_t)n ? 0 : -EFAULT;
}

int notify_read_addr(const struct call *c, unsigned long long aaddr, unsigned *alen, void *out,
		     size_t outsz)
{
	memset(out, 0, outsz);
	/* longer than any address (or negative, as an int): the kernel's
	 * move_addr_to_kernel says EINVAL, and so do we, never a clamped
	 * copy the call goes on with */
	if (*alen > sizeof(struct sockaddr_storage))
		return EINVAL;
	if (*alen > outsz)
		*alen = (unsigned)outsz;
	if (*alen < sizeof(sa_family_t))
		return EINVAL;
	if (notify_read_mem(c, aaddr, out, *alen))
		return EFAULT;
	return notify_call_valid(c) ? 0 : ENOENT;
}

/* The program's umask (/proc/PID/status, Linux 4.7). The status files
 * of the last few callers are held open and read again from the start:
 * one pread instead of open, read, close. A held file is the process's,
 * not its number's: once that process is gone the read fails (ESRCH) and
 * the number is opened again, so a reused pid is never read as the old.
 * The descriptor (held here), or -errno. */
static int status_fd(struct notify *n, pid_t pid, bool fresh)
{
	char p[64];
	unsigned k = sizeof(n->status) / sizeof(n->status[0]);

	for (unsigned i = 0; i < k; i++)
		if (n->status[i].pid == pid && n->status[i].fd >= 0) {
			if (!fresh)
				return n->status[i].fd;
			close(n->status[i].fd);
			n->status[i].fd = -1;
		}
	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	int fd = OPEN(p, O_RDONLY);
	if (fd < 0)
		return -errno;
	unsigned slot = n->status_next++ % k;
	if (n->status[slot].fd >= 0)
		close(n->status[slot].fd);
	n->status[slot].pid = pid;
	n->status[slot].fd = fd;
	return fd;
}

mode_t notify_prog_umask(const struct call *c)
{
	char buf[2048];
	/* unknown (the caller gone, a zombie's status without the line):
	 * the strictest, never a wider mode than the program asked for */
	mode_t m = 077;
	ssize_t r = -1;

	for (int fresh = 0; fresh < 2 && r <= 0; fresh++) {
		int fd = status_fd(c->n, c->pid, fresh);
		if (fd < 0)
			return m;
		r = pread(fd, buf, sizeof(buf) - 1, 0);
	}
	if (r > 0) {
		buf[r] = '\0';
		char *u = strstr(buf, "\nUmask:\t");
		if (u)
			m = (mode_t)strtoul(u + 8, NULL, 8) & 0777;
	}
	return m;
}

/* The caller's process as it knows itself: its thread group in its own
 * pid namespace (the last of NStgid, /proc/TID/status, Linux 4.1), the
 * number its shim's report lines carry; 0 when not known. */
static pid_t self_pid(const struct call *c)
{
	char buf[8192]; /* NStgid comes after Groups:, which a user in many groups makes long */
	ssize_t r = -1;

	for (int fresh = 0; fresh < 2 && r <= 0; fresh++) {
		int fd = status_fd(c->n, c->pid, fresh);
		if (fd < 0)
			return 0;
		r = pread(fd, buf, sizeof(buf) - 1, 0);
	}
	if (r <= 0)
		return 0;
	buf[r] = '\0';
	char *t = strstr(buf, "\nNStgid:\t");
	if (!t)
		return 0;
	long last = 0;
	for (char *p = t + 9, *end; *p && *p != '\n'; p = end) {
		last = strtol(p, &end, 10);
		if (end == p)
			return 0;
		end += strspn(end, "\t ");
	}
	return last > 0 && last <= INT_MAX ? (pid_t)last : 0;
}

/* The thread group a thread belongs to (/proc/TID/status), or -1. */
static pid_t tgid_of(pid_t tid)
{
	char p[64], buf[1024];
	snprintf(p, sizeof(p), "/proc/%d/status", (int)tid);
	int fd = OPEN(p, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *t = strstr(buf, "\nTgid:\t");
	return t ? (pid_t)strtol(t + 7, NULL, 10) : -1;
}

int notify_take_fd(const struct call *c, int fd)
{
	/* the caller is a thread, maybe not its group's leader: a pidfd of
	 * the thread itself (Linux 6.9), else of its group (same table) */
	int pfd = (int)syscall(SYS_pidfd_open, c->pid, PIDFD_THREAD_FLAG);
	if (pfd < 0 && errno == EINVAL) {
		pid_t g = tgid_of(c->pid);
		pfd = g > 0 ? (int)syscall(SYS_pidfd_open, g, 0) : -1;
	}
	if (pfd < 0 && (errno == EMFILE || errno == ENFILE)) {
		/* ours, not the caller's: said once; the call fails with
		 * what happened rather than "no such process" */
		int e = errno;
		reports_nofile(c->n->r);
		return -e;
	}
	if (pfd < 0)
		return -ESRCH;
	/* the pid was the caller's when the pidfd was made */
	if (!notify_call_valid(c)) {
		close(pfd);
		return -ENOENT;
	}
	int s = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	int e = errno;
	close(pfd);
	if (s < 0 && (e == EMFILE || e == ENFILE))
		reports_nofile(c->n->r);
	return s < 0 ? -e : s;
}

void notify_comm_of(pid_t pid, char *out, size_t outsz)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	int fd = OPEN(p, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, out, outsz - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = 0;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

/* One event of the layer's into the run's reports (reports_event):
 * layer "notify", the caller's pid, and its comm (read now, where the
 * event has none: most calls make no report); a log file the report
 * opens is the supervisor's own (notify_own_begin). */
void notify_report(const struct call *c, struct event *ev)
{
	char comm[32];

	if (!c->n->r)
		return;
	ev->layer = EVENT_NOTIFY;
	ev->pid = c->pid;
	/* a refusal's shim line, if one follows, is matched by this
	 * (reports.c, the echo) */
	if (ev->what == EVENT_ACCESS && ev->decision == WIRE_DENY)
		ev->self_pid = self_pid(c);
	if (!ev->comm) {
		notify_comm_of(c->pid, comm, sizeof(comm));
		ev->comm = comm;
	}
	notify_own_begin(c->n);
	reports_event(c->n->r, ev);
	notify_own_end(c->n);
}

/* Send the answer; a stale id (the caller died, or a signal took it out
 * of the call) is ENOENT, and nothing is owed. */
int notify_respond(struct notify *n, uint64_t id, struct answer a)
{
	if (a.fd >= 0) {
		struct seccomp_notif_addfd add = { .id = id, .flags = SECCOMP_ADDFD_FLAG_SEND,
						   .srcfd = (unsigned)a.fd,
						   .newfd_flags = a.fd_flags };
		int rc = ioctl(n->fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		int e = errno;
		close(a.fd);
		if (rc >= 0 || e == ENOENT)
			return 0;
		/* EMFILE in the program: it gets that */
		a = ERR(e);
	}
	memset(n->resp, 0, n->sz.seccomp_notif_resp);
	n->resp->id = id;
	if (a.cont) {
		n->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else {
		n->resp->error = a.err ? -a.err : 0;
		n->resp->val = a.err ? 0 : a.val;
	}
	if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_SEND, n->resp) && errno != ENOENT)
		return -errno;
	return 0;
}
