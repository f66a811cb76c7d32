/* preload/notify/notify.c: the seccomp user-notification listener (notify.h):
 * its life (new, attach, refuse, finish, free), the serving turn and the
 * dispatch. The handlers are below it: preload/notify/paths.c (the calls that name
 * a path, and connect() on a Unix socket), preload/notify/net.c (connect() on an
 * IP socket), preload/notify/deny.c (the seccomp table's rows, listen, bind); all
 * of them stand on preload/notify/call.c (the caller's memory, its descriptors,
 * the answer).
 *
 * One notification at a time, in the supervisor's poll loop:
 *   1. SECCOMP_IOCTL_NOTIF_RECV; open /proc/PID/mem and /proc/PID/root;
 *      SECCOMP_IOCTL_NOTIF_ID_VALID (the pid was the caller's when opened);
 *   2. read every argument from the program's memory into our own copy,
 *      then ID_VALID again (still the same, still waiting);
 *   3. resolve in the program's view: its root (/proc/PID/root, with
 *      openat2 RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), its cwd or dirfd;
 *      the parent directory is held as a descriptor, and its path is what
 *      the kernel says that descriptor is (so a link swapped in meanwhile
 *      cannot make us judge one place and act in another);
 *   4. decide by the policy (the mandatory and deny_write rules, at any
 *      depth; a git directory the run made may get git's own files);
 *   5. act ourselves on the held parent and the one name we checked --
 *      openat2 with RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH, mkdirat,
 *      renameat2, linkat, symlinkat, mknodat -- with the program's umask,
 *      and answer with the result or install the descriptor we opened
 *      (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND). Never
 *      SECCOMP_USER_NOTIF_FLAG_CONTINUE for these (notify.h says why).
 * A program that dies meanwhile makes a stale id: the ioctls answer ENOENT
 * and the request is dropped. Nothing is allocated per request; the kernel
 * queues one request per blocked thread, and each serve handles at most
 * NOTIFY_BATCH of them.
 * As root the supervisor would act with capabilities the sandbox does not
 * have (CAP_DAC_OVERRIDE, CAP_FOWNER...): around every act it lowers its
 * effective set to nothing, as the sandboxed processes are.
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

#include "init/notify.h"
#include "preload/notify/internal.h"
#include "preload/preload.h"

#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
#error "linux/seccomp.h predates SECCOMP_IOCTL_NOTIF_ADDFD (Linux 5.9)"
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif

/* ---- dispatch */

static struct answer dispatch(struct call *c, const struct seccomp_data *d)
{
	const unsigned long long *a = d->args;
	long nr = d->nr;

	if (c->n->modes)
		return notify_modes(c, nr, a);
	switch (nr) {
#ifdef SYS_open
	case SYS_open:
		return notify_open(c, AT_FDCWD, a[0], (int)a[1], (mode_t)a[2]);
#endif
#ifdef SYS_creat
	case SYS_creat:
		return notify_open(c, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, (mode_t)a[1]);
#endif
	case SYS_openat:
		return notify_open(c, (int)a[0], a[1], (int)a[2], (mode_t)a[3]);
#ifdef SYS_mkdir
	case SYS_mkdir:
		return notify_make(c, MAKE_DIR, AT_FDCWD, a[0], (mode_t)a[1], 0, 0);
#endif
	case SYS_mkdirat:
		return notify_make(c, MAKE_DIR, (int)a[0], a[1], (mode_t)a[2], 0, 0);
#ifdef SYS_mknod
	case SYS_mknod:
		return notify_make(c, MAKE_NODE, AT_FDCWD, a[0], (mode_t)a[1], (unsigned)a[2], 0);
#endif
	case SYS_mknodat:
		return notify_make(c, MAKE_NODE, (int)a[0], a[1], (mode_t)a[2], (unsigned)a[3], 0);
#ifdef SYS_symlink
	case SYS_symlink:
		return notify_make(c, MAKE_LINK, AT_FDCWD, a[1], 0, 0, a[0]);
#endif
	case SYS_symlinkat:
		return notify_make(c, MAKE_LINK, (int)a[1], a[2], 0, 0, a[0]);
#ifdef SYS_rename
	case SYS_rename:
		return notify_move(c, false, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
#endif
#ifdef SYS_renameat
	case SYS_renameat:
		return notify_move(c, false, (int)a[0], a[1], (int)a[2], a[3], 0);
#endif
	case SYS_renameat2:
		return notify_move(c, false, (int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4]);
#ifdef SYS_link
	case SYS_link:
		return notify_move(c, true, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
#endif
	case SYS_linkat:
		return notify_move(c, true, (int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4]);
	case SYS_connect:
		return notify_connect(c, (int)a[0], a[1], (unsigned)a[2]);
	case SYS_listen: /* allow_local_binding = false (preload/notify/deny.c) */
		return notify_listen(c, (int)a[0], (int)a[1]);
	case SYS_bind:
		return notify_bind(c, (int)a[0], a[1], (unsigned)a[2]);
#ifdef SYS_truncate
	case SYS_truncate:
		return notify_truncate(c, a[0], (long long)a[1]);
#endif
#ifdef SYS_unlink
	case SYS_unlink:
		return notify_remove(c, AT_FDCWD, a[0], 0);
#endif
#ifdef SYS_rmdir
	case SYS_rmdir:
		return notify_remove(c, AT_FDCWD, a[0], AT_REMOVEDIR);
#endif
	case SYS_unlinkat:
		return notify_remove(c, (int)a[0], a[1], (int)a[2]);
	case SYS_setxattr:
	case SYS_lsetxattr:
	case SYS_fsetxattr:
	case SYS_removexattr:
	case SYS_lremovexattr:
	case SYS_fremovexattr:
		return notify_xattr(c, nr, a);
	}
	/* a protected name's mode; any mode but a set-ID one made here */
	struct answer dir;
	if (!notify_chmod(c, nr, a, &dir))
		return dir;
	/* a set-ID mode, the table's row: a directory's is made here */
	if (!notify_chmod_dir(c, nr, a, &dir))
		return dir;
	/* the seccomp table's rows (preload/notify/deny.c): their errno, reported;
	 * anything else, ENOSYS: never continue */
	return notify_deny(c, d);
}

/* The sandbox's root, as the first caller's /proc/PID/root: one for every
 * process of the sandbox, which none can change (no capability: no
 * chroot, no pivot_root, no mount). Held for the run. */
static int sandbox_root(struct notify *n, pid_t pid)
{
	char p[64];

	if (n->root_fd >= 0)
		return n->root_fd;
	snprintf(p, sizeof(p), "/proc/%d/root", (int)pid);
	n->root_fd = OPEN(p, O_PATH | O_DIRECTORY);
	return n->root_fd;
}

static int serve_one(struct notify *n)
{
	struct call c = { .n = n, .root = -1 };
	struct answer a;

	memset(n->req, 0, n->sz.seccomp_notif);
	if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_RECV, n->req)) {
		/* ENOENT: the caller left the call before we took it */
		return errno == ENOENT || errno == EINTR ? 0 : -errno;
	}
	c.id = n->req->id;
	c.pid = (pid_t)n->req->pid;
	/* the first root must be a caller's: checked while it still waits
	 * (every handler checks again after it read what it judges) */
	if (n->root_fd < 0 && (c.root = sandbox_root(n, c.pid)) >= 0 && !notify_call_valid(&c)) {
		close(n->root_fd);
		n->root_fd = -1;
		return 0;
	}
	c.root = n->root_fd;
	a = c.root < 0 ? ERR(EPERM) : dispatch(&c, &n->req->data);
	if (!a.wait && notify_respond(n, c.id, a) < 0)
		return -errno;
	return 0;
}

/* The FIFOs waiting for a reader: tried again; dropped when their caller
 * is gone (or a signal took it out of open()). */
static void retry_waiting(struct notify *n)
{
	for (size_t i = 0; i < n->nwait;) {
		struct waiting *w = &n->wait[i];
		uint64_t id = w->id;
		char l[64];
		int fd = -1, e = 0;
		bool gone = ioctl(n->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0;
		if (!gone) {
			snprintf(l, sizeof(l), "/proc/self/fd/%d", w->opath);
			fd = OPEN(l, w->flags | O_NONBLOCK);
			e = errno;
			if (fd < 0 && e == ENXIO) {
				i++;
				continue;
			}
			if (fd >= 0)
				fcntl(fd, F_SETFL, w->flags & ~O_NONBLOCK);
			notify_respond(n, id, fd >= 0 ? (struct answer){ .fd = fd } : ERR(e));
		}
		close(w->opath);
		*w = n->wait[--n->nwait];
	}
}

int notify_serve(struct notify *n, bool ready)
{
	if (n->fd < 0)
		return 0;
	int rc = 0;

	notify_serve_begin(n);
	retry_waiting(n);
	notify_net_retry(n);
	for (int i = 0; i < NOTIFY_BATCH && !rc; i++) {
		struct pollfd pf = { n->fd, POLLIN, 0 };
		int r = i == 0 && ready ? 1 : poll(&pf, 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (!(i == 0 && ready) && !(pf.revents & POLLIN)))
			break;
		rc = serve_one(n);
	}
	notify_serve_end(n);
	return rc;
}

int notify_timeout(const struct notify *n)
{
	return n->nconn ? CONNECT_RETRY_MS : n->nwait ? 20 : -1;
}

int notify_new(const struct policy *p, struct reports *r, bool trace, struct notify **out)
{
	struct notify *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	n->p = p;
	n->r = r;
	n->trace = trace;
	clock_gettime(CLOCK_REALTIME, &n->made);
	n->fd = -1;
	n->actor = -1;
	n->root_fd = -1;
	n->root = geteuid() == 0;
	n->umask_own = n->umask_now = umask(022);
	umask(n->umask_own);
	for (size_t i = 0; i < sizeof(n->status) / sizeof(n->status[0]); i++)
		n->status[i].fd = -1;
	n->last_dir.fd = -1;
	if (n->root) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		if (syscall(SYS_capget, &h, n->caps))
			n->root = false;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &n->sz)) {
		int e = errno;
		free(n);
		return -e;
	}
	/* the kernel's structures may be larger than our headers' */
	if (n->sz.seccomp_notif < sizeof(struct seccomp_notif))
		n->sz.seccomp_notif = sizeof(struct seccomp_notif);
	if (n->sz.seccomp_notif_resp < sizeof(struct seccomp_notif_resp))
		n->sz.seccomp_notif_resp = sizeof(struct seccomp_notif_resp);
	n->req = calloc(1, n->sz.seccomp_notif);
	n->resp = calloc(1, n->sz.seccomp_notif_resp);
	if (!n->req || !n->resp) {
		notify_free(n);
		return -ENOMEM;
	}
	*out = n;
	return 0;
}

void notify_set_report(struct notify *n, int fd)
{
	struct stat st;

	if (n && !fstat(fd, &st) && S_ISFIFO(st.st_mode)) {
		n->report_dev = st.st_dev;
		n->report_ino = st.st_ino;
	}
}

int notify_attach(struct notify *n, int fd, int actor)
{
	uint64_t id = 0;
	int type = 0, dom = 0;
	socklen_t il = sizeof(int);

	/* a listener answers ENOENT for an id it never gave; anything else
	 * (ENOTTY, EBADF) is not one */
	if (n->fd >= 0 || ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 || errno != ENOENT ||
	    getsockopt(actor, SOL_SOCKET, SO_TYPE, &type, &il) || type != SOCK_SEQPACKET ||
	    getsockopt(actor, SOL_SOCKET, SO_DOMAIN, &dom, &il) || dom != AF_UNIX ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) || fcntl(actor, F_SETFD, FD_CLOEXEC)) {
		close(fd);
		close(actor);
		return -EPROTO;
	}
	n->fd = fd;
	n->actor = actor;
	/* Linux 6.6: the caller and the supervisor hand the CPU to each other
	 * (the woken task runs where the waker ran) instead of a wake-up on
	 * another CPU per request; an older kernel says EINVAL, no harm */
	ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	notify_net_init(n);
	return 0;
}

static int copy_list(char ***to, size_t *nto, char *const *from, size_t n)
{
	char **v = calloc(n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	*to = v;
	for (*nto = 0; *nto < n; (*nto)++)
		if (!(v[*nto] = strdup(from[*nto])))
			return -ENOMEM;
	return 0;
}

int notify_set_modes(struct notify *n, char *const *roots, size_t nroots, char *const *kept,
		     size_t nkept)
{
	n->modes = true;
	return copy_list(&n->modes_roots, &n->nmodes_roots, roots, nroots) ?:
	       copy_list(&n->modes_kept, &n->nmodes_kept, kept, nkept);
}

int notify_refuse(struct notify *n, char *const *paths, size_t np)
{
	char **v = calloc(np + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < np; i++)
		if (!(v[i] = strdup(paths[i]))) {
			while (i)
				free(v[--i]);
			free(v);
			return -ENOMEM;
		}
	qsort(v, np, sizeof(*v), notify_cmp_str);
	for (size_t i = 0; i < n->nrefused; i++)
		free(n->refused[i]);
	free(n->refused);
	n->refused = v;
	n->nrefused = np;
	return 0;
}

int notify_fd(const struct notify *n)
{
	return n ? n->fd : -1;
}

/* One notice line and as many more as the list needs: every repository
 * is named (one line of 8 KiB held the first few dozen long names, and a
 * repository made after them was named nowhere). */
void notify_finish(struct notify *n)
{
	char line[8192], shown[PATH_MAX], item[PATH_MAX + 128];

	if (!n || !n->ngit || !n->r)
		return;
	for (size_t i = 0; i < n->ngit;) {
		size_t o = (size_t)snprintf(line, sizeof(line), i ?
			"sbx: git repositories created during the run (continued):" :
			"sbx: git repositor%s created during the run (made inside the sandbox: "
			"no config key that runs a program, no hook but git's samples):",
			n->ngit == 1 ? "y" : "ies");
		for (size_t k = 0; i < n->ngit; i++, k++) {
			policy_tildify(n->p, n->git[i].path, shown, sizeof(shown));
			size_t il = (size_t)snprintf(item, sizeof(item), "%s %s%s", k ? "," : "", shown,
						     n->git[i].file ? " (a file: the repository its "
						     "gitdir: names is the run's, hooks and all)" : "");
			if (il >= sizeof(item))
				il = sizeof(item) - 1;
			if (k && o + il >= sizeof(line) - 32)
				break; /* on the next line */
			memcpy(line + o, item, il + 1);
			o += il;
		}
		if (i == n->ngit && n->git_full)
			snprintf(line + o, sizeof(line) - o, " (and more, not kept)");
		reports_say_notice(n->r, "git-repositories", line);
	}
}

bool notify_made_repo(const struct notify *n, const char *path)
{
	for (size_t i = 0; n && i < n->ngit; i++) {
		const char *g = n->git[i].path;
		size_t gl = strlen(g);
		if (!n->git[i].file && !strncmp(path, g, gl) && (path[gl] == '\0' || path[gl] == '/'))
			return true;
	}
	return false;
}

void notify_free(struct notify *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nwait; i++)
		close(n->wait[i].opath);
	for (size_t i = 0; i < n->nconn; i++)
		close(n->conn[i].s);
	free(n->conn);
	for (size_t i = 0; i < n->ngit; i++)
		free(n->git[i].path);
	free(n->git);
	for (size_t i = 0; i < n->nrefused; i++)
		free(n->refused[i]);
	free(n->refused);
	for (size_t i = 0; i < n->nworktrees; i++) {
		free(n->worktrees[i]);
		free(n->wtgits[i]);
	}
	free(n->worktrees);
	free(n->wtgits);
	for (size_t i = 0; i < n->nmodes_roots; i++)
		free(n->modes_roots[i]);
	free(n->modes_roots);
	for (size_t i = 0; i < n->nmodes_kept; i++)
		free(n->modes_kept[i]);
	free(n->modes_kept);
	if (n->fd >= 0)
		close(n->fd);
	if (n->actor >= 0)
		close(n->actor);
	if (n->root_fd >= 0)
		close(n->root_fd);
	for (size_t i = 0; i < sizeof(n->status) / sizeof(n->status[0]); i++)
		if (n->status[i].fd >= 0)
			close(n->status[i].fd);
	notify_forget_last_dir(n);
	free(n->own);
	free(n->req);
	free(n->resp);
	free(n);
}
