/* supervisor/notify.c: the seccomp user-notification listener (notify.h).
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

#include "init-notify.h"
#include "notify-int.h"
#include "supervisor.h"

#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
#error "linux/seccomp.h predates SECCOMP_IOCTL_NOTIF_ADDFD (Linux 5.9)"
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif
#define PIDFD_THREAD_FLAG O_EXCL /* PIDFD_THREAD, Linux 6.9 */
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif


/* ---- capabilities, for a root supervisor */

static void caps_effective(const struct notify *n, bool on)
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
 * for a whole serve (serve_begin), so a request pays no capset; the umask
 * is set only when it differs from the last one set, and the
 * supervisor's own is put back when the serve ends (serve_end): its
 * other files (the log, --learn's output) never get a program's. */
#define NO_UMASK ((mode_t)-1)
static mode_t act_begin(struct notify *n, mode_t umask_)
{
	if (n->root && !n->low)
		caps_effective(n, false);
	if (umask_ != NO_UMASK && umask_ != n->umask_now) {
		umask(umask_);
		n->umask_now = umask_;
	}
	return umask_;
}

static void act_end(struct notify *n, mode_t old)
{
	(void)old;
	if (n->root && !n->low)
		caps_effective(n, true);
}

void notify_umask_own(struct notify *n)
{
	if (n->umask_now != n->umask_own) {
		umask(n->umask_own);
		n->umask_now = n->umask_own;
	}
}

static void serve_begin(struct notify *n)
{
	if (n->root && !n->low) {
		caps_effective(n, false);
		n->low = true;
	}
}

static void serve_end(struct notify *n)
{
	notify_umask_own(n);
	if (n->low) {
		n->low = false;
		caps_effective(n, true);
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
static int read_str(const struct call *c, unsigned long long addr, char *out, size_t outsz)
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

/* What a descriptor of ours is, as a path in the sandbox's view: the
 * kernel gives the path below the root of the mount namespace the object
 * lives in, which is the sandbox's. */
static int fd_path(int fd, char *out, size_t outsz)
{
	char l[64];
	snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(l, out, outsz - 1);
	if (n < 0)
		return -errno; /* ENAMETOOLONG past a page */
	out[n] = '\0';
	/* a name too long to tell is not "no name": a protected file moved
	 * below a chain of directories past PATH_MAX was written unjudged */
	if ((size_t)n >= outsz - 1)
		return -ENAMETOOLONG;
	if (out[0] != '/')
		return -ENOENT; /* not a path (a pipe, a socket, an unreachable place) */
	return 0;
}

static int open_in_root(const struct call *c, const char *path, int flags, bool nofollow)
{
	struct open_how how = { .flags = (unsigned long long)(flags | O_CLOEXEC),
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	if (nofollow)
		how.flags |= O_NOFOLLOW;
	/* walked as the program walks it: a root supervisor's
	 * CAP_DAC_READ_SEARCH would pass a directory the program cannot
	 * search (mode 0700, another owner) and make or open what is in it */
	if (c->n->root && !c->n->low)
		caps_effective(c->n, false);
	long fd = syscall(SYS_openat2, c->root, path, &how, sizeof(how));
	int e = errno;
	if (c->n->root && !c->n->low)
		caps_effective(c->n, true);
	return fd < 0 ? -e : (int)fd;
}

/* The program's umask (/proc/PID/status, Linux 4.7). The status files
 * of the last few callers are held open and read again from the start:
 * one pread instead of open, read, close. A held file is the process's,
 * not its number's: once that process is gone the read fails (ESRCH) and
 * the number is opened again, so a reused pid is never read as the old. */
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
		return -1;
	unsigned slot = n->status_next++ % k;
	if (n->status[slot].fd >= 0)
		close(n->status[slot].fd);
	n->status[slot].pid = pid;
	n->status[slot].fd = fd;
	return fd;
}

static mode_t prog_umask(const struct call *c)
{
	char buf[2048];
	mode_t m = 022;
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

/* The directory a relative path starts from: the program's cwd or dirfd,
 * as a path in its view (the kernel's name for it; one it no longer has,
 * a removed directory, is refused). Resolved again through its root when
 * used: if a thread renames it meanwhile, the decision is still made on
 * the directory we act in (parent_open), never on this string. */
static int base_dir(const struct call *c, int dirfd, char *out, size_t outsz)
{
	char l[64];

	if (dirfd == AT_FDCWD)
		snprintf(l, sizeof(l), "/proc/%d/cwd", (int)c->pid);
	else
		snprintf(l, sizeof(l), "/proc/%d/fd/%d", (int)c->pid, dirfd);
	ssize_t n = readlink(l, out, outsz - 1);
	if (n < 0)
		return errno == ENOENT && dirfd != AT_FDCWD ? -EBADF : -errno;
	out[n] = '\0';
	if (out[0] != '/')
		return -ENOTDIR; /* a pipe, a socket: not a directory */
	if ((size_t)n >= outsz - 1 || (n > 10 && !strcmp(out + n - 10, " (deleted)")))
		return -ENOENT;
	return 0;
}

/* `path` (from the program) made absolute in its view, unfolded: `..`
 * and links are left for the kernel to resolve. Then the request is
 * checked still waiting: what was read (the path, the cwd) was the
 * caller's; the callers read their strings first and check only here. */
static int abs_path(const struct call *c, int dirfd, const char *path, char *out, size_t outsz)
{
	char base[PATH_MAX];

	if (!path[0])
		return -ENOENT;
	if (path[0] == '/') {
		if (strlen(path) >= outsz)
			return -ENAMETOOLONG;
		strcpy(out, path);
		/* the path read was the caller's if it still waits */
		return notify_call_valid(c) ? 0 : -ENOENT;
	}
	int rc = base_dir(c, dirfd, base, sizeof(base));
	if (rc)
		return rc;
	/* the path read and the cwd were the caller's if it still waits */
	if (!notify_call_valid(c))
		return -ENOENT;
	if ((size_t)snprintf(out, outsz, "%s/%s", strcmp(base, "/") ? base : "", path) >= outsz)
		return -ENAMETOOLONG;
	return 0;
}

/* The parent directory of `abs`, held (links followed in the program's
 * view), its path as the kernel names it, and the last component (into
 * `name`). A trailing slash is dropped; *slash says there was one. */
struct parent {
	int fd;
	char path[PATH_MAX];
	char name[NAME_MAX + 1];
	bool slash;
	bool cached; /* the notify's last_dir's: not ours to close */
};

/* The last directory a new file was made in (create_new), held with its
 * kernel path: a checkout or a build makes many files in one directory in
 * a row. What a path string leads to changes only by a rename, a new
 * directory or link where one was removed, or a mount; the program's
 * renames, mkdirs and links are all ours to make (notified), and each
 * forgets it (forget_last_dir), a mount it cannot make. A directory
 * removed meanwhile (rmdir is not notified) is still held: making in it
 * fails (ENOENT), and create_new then looks the path up again. */
void notify_forget_last_dir(struct notify *n)
{
	if (n->last_dir.fd >= 0)
		close(n->last_dir.fd);
	n->last_dir.fd = -1;
}

static int parent_open_as(const struct call *c, const char *abs, struct parent *pa, bool cache)
{
	char dir[PATH_MAX];
	size_t len = strlen(abs);
	struct notify *n = c->n;

	pa->fd = -1;
	pa->slash = false;
	pa->cached = false;
	while (len > 1 && abs[len - 1] == '/') {
		len--;
		pa->slash = true;
	}
	size_t cut = len;
	while (cut > 0 && abs[cut - 1] != '/')
		cut--;
	if (len - cut > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(pa->name, abs + cut, len - cut);
	pa->name[len - cut] = '\0';
	memcpy(dir, abs, cut);
	dir[cut] = '\0';
	if (!cut)
		strcpy(dir, "/");
	if (!pa->name[0])
		strcpy(pa->name, "."); /* "/" itself */
	if (cache && n->last_dir.fd >= 0 && !strcmp(dir, n->last_dir.dir) &&
	    strlen(n->last_dir.path) + 1 + strlen(pa->name) < PATH_MAX) {
		pa->fd = n->last_dir.fd;
		strcpy(pa->path, n->last_dir.path);
		pa->cached = true;
		return 0;
	}
	int fd = open_in_root(c, dir, O_PATH | O_DIRECTORY, false);
	if (fd < 0)
		return fd;
	int rc = fd_path(fd, pa->path, sizeof(pa->path));
	/* the path judged is the parent's and the name: one that does not
	 * fit is refused, never judged cut short (a link to a directory
	 * 4088 long made `.mcp.json` there judged as "") */
	if (!rc && strlen(pa->path) + 1 + strlen(pa->name) >= PATH_MAX)
		rc = -ENAMETOOLONG;
	if (rc) {
		close(fd);
		return rc;
	}
	pa->fd = fd;
	if (cache) {
		notify_forget_last_dir(n);
		n->last_dir.fd = fd;
		strcpy(n->last_dir.dir, dir);
		strcpy(n->last_dir.path, pa->path);
		pa->cached = true;
	}
	return 0;
}

static int parent_open(const struct call *c, const char *abs, struct parent *pa)
{
	return parent_open_as(c, abs, pa, false);
}

static void parent_close(struct parent *pa)
{
	if (pa->fd >= 0 && !pa->cached)
		close(pa->fd);
	pa->fd = -1;
}

static bool dot_name(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* dir + "/" + name; parent_open() refused the ones that do not fit. */
static void join(const char *dir, const char *name, char *out, size_t outsz)
{
	size_t d = strcmp(dir, "/") ? strlen(dir) : 0, k = strlen(name);

	if (d + 1 + k >= outsz) {
		out[0] = '\0';
		return;
	}
	memcpy(out, dir, d);
	out[d] = '/';
	memcpy(out + d + 1, name, k + 1);
}

/* ---- the decision */

static bool protective(const struct sbx_rule *r)
{
	return r && (r->kind == SBX_RULE_MANDATORY || r->kind == SBX_RULE_DENY_WRITE);
}

bool notify_git_own(const char *rest)
{
	size_t n = strlen(rest);

	if (!strcmp(rest, "config") || !strcmp(rest, "hooks"))
		return true;
	return !strncmp(rest, "hooks/", 6) && !strchr(rest + 6, '/') && n > 6 + 7 &&
	       !strcmp(rest + n - 7, ".sample");
}

/* Is the git directory `levels` directories above the held directory
 * `fd` one the run made? */
static bool git_made_here(const struct notify *n, int fd, unsigned levels)
{
	struct stat st;
	int cur = fd, up;
	bool ok = false;

	for (unsigned i = 0; i < levels; i++) {
		up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cur != fd)
			close(cur);
		if (up < 0)
			return false;
		cur = up;
	}
	if (!fstat(cur, &st))
		for (size_t i = 0; i < n->ngit && !ok; i++)
			ok = n->git[i].dev == st.st_dev && n->git[i].ino == st.st_ino;
	if (cur != fd)
		close(cur);
	return ok;
}

/* The exception for git: a git directory the program made during the run
 * gets what `git init` and `git clone` write, its config and the sample
 * hooks; never a hook git would run. `full` is parent `fd`'s path plus the
 * name. */
static bool git_exception(const struct notify *n, int fd, const char *full)
{
	const char *g = NULL;

	for (const char *q = strstr(full, "/.git/"); q; q = strstr(q + 1, "/.git/"))
		g = q;
	if (!g || !notify_git_own(g + 6))
		return false;
	return git_made_here(n, fd, strchr(g + 6, '/') ? 1 : 0);
}

static size_t ncomp(const char *s)
{
	size_t k = 1;
	for (; *s; s++)
		k += *s == '/';
	return k;
}

bool notify_dir_may_land(const struct policy *p, const char *path, const struct sbx_rule **why)
{
	static const enum sbx_rule_kind kinds[] = { SBX_RULE_MANDATORY, SBX_RULE_DENY_WRITE };
	size_t plen = strlen(path);

	for (size_t k = 0; k < 2; k++) {
		size_t nr;
		const struct sbx_rule *const *rules = policy_rules(p, kinds[k], &nr);
		for (size_t i = 0; i < nr; i++) {
			const struct sbx_rule *r = rules[i];
			if (r->pat != SBX_PAT_ANYWHERE) {
				/* a protected path below this one */
				if (!strncmp(r->pattern, path, plen) &&
				    (r->pattern[plen] == '/' || plen == 1)) {
					*why = r;
					return false;
				}
				continue;
			}
			/* `.git/hooks`: the path's last j components are the
			 * pattern's first j, for a j short of the whole */
			size_t np = ncomp(r->pattern);
			for (size_t j = 1; j < np; j++) {
				const char *pe = r->pattern;
				for (size_t s = 0; s < j; s++)
					pe = strchr(pe, '/') + 1;
				size_t pl = (size_t)(pe - r->pattern) - 1; /* first j comps */
				const char *t = path + plen;
				size_t seen = 0;
				while (t > path && seen < j) {
					t--;
					if (*t == '/')
						seen++;
				}
				if (seen < j)
					continue;
				char head[PATH_MAX];
				snprintf(head, sizeof(head), "%.*s", (int)pl, r->pattern);
				if (sbx_glob_match(head, t + 1, strlen(t + 1))) {
					*why = r;
					return false;
				}
			}
		}
	}
	return true;
}

/* May a name be made (or written) at `full`, below held directory `fd`?
 * `as_dir`: a directory or a link lands there (renamed, or symlinked), so
 * what its inside could complete counts too. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is `full` one of the paths the plan keeps from being made (a protected
 * link's missing target: no rule names it), or, for a directory or link
 * landing there (`below`), does one lie under it? */
static bool refused_path(const struct notify *n, const char *full, bool below)
{
	if (!n->nrefused)
		return false;
	if (bsearch(&full, n->refused, n->nrefused, sizeof(*n->refused), cmp_str))
		return true;
	size_t l = strlen(full);
	for (size_t i = 0; below && i < n->nrefused; i++)
		if (!strncmp(n->refused[i], full, l) && (n->refused[i][l] == '/' || l == 1))
			return true;
	return false;
}

static bool may_make(const struct notify *n, int fd, const char *full, bool as_dir,
		     const struct sbx_rule **why)
{
	*why = NULL;
	if (refused_path(n, full, as_dir))
		return false; /* reported by what plan.c guarded */
	/* git's own `hooks/` is a directory it makes (mkdir): one landing
	 * there (renamed, or a link) would bring any hook with it */
	if (policy_check_path(n->p, SBX_OP_WRITE, full, why) == SBX_DENY && protective(*why) &&
	    (as_dir || !git_exception(n, fd, full)))
		return false;
	*why = NULL;
	return !as_dir || notify_dir_may_land(n->p, full, why);
}

/* An existing file at `full` that a protected rule names: still writable
 * when it is git's own in a git directory the run made (its config). */
static int parent_open(const struct call *c, const char *abs, struct parent *pa);
static bool git_writable(const struct call *c, const char *full)
{
	struct parent pa;
	bool ok;

	if (parent_open(c, full, &pa))
		return false;
	char again[PATH_MAX];
	join(pa.path, pa.name, again, sizeof(again));
	ok = !strcmp(again, full) && git_exception(c->n, pa.fd, full);
	parent_close(&pa);
	return ok;
}

/* ---- reports */


/* comm is read only for a report: most calls make none */
static void report_why(const struct call *c, char decision, enum wire_op op,
		       const char *target, int err, const struct sbx_rule *why)
{
	char comm[32];

	if (!c->n->r || (decision == WIRE_ALLOW && !c->n->trace))
		return;
	notify_umask_own(c->n); /* a log file made now is ours */
	notify_comm_of(c->pid, comm, sizeof(comm));
	reports_boundary(c->n->r, decision, op, c->pid, comm, target, err, why);
}

static void report(const struct call *c, char decision, enum wire_op op, const char *target,
		   int err)
{
	report_why(c, decision, op, target, err, NULL);
}

static void remember_git(struct notify *n, int pfd, const char *full)
{
	struct stat st;

	if (n->ngit == MAX_GIT) {
		n->git_full = true;
		return;
	}
	if (fstatat(pfd, ".git", &st, AT_SYMLINK_NOFOLLOW) ||
	    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
		return;
	if (!n->git) {
		n->git = calloc(MAX_GIT, sizeof(*n->git));
		if (!n->git)
			return;
	}
	char *copy = strdup(full);
	if (!copy)
		return;
	n->git[n->ngit++] = (struct gitdir){ st.st_dev, st.st_ino, copy, S_ISREG(st.st_mode) };
}

/* ---- the calls */

/* /dev/stdout, /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N: links to open
 * descriptors, "magic" links the kernel resolves by who follows them, which
 * RESOLVE_NO_MAGICLINKS keeps us from following through the program's
 * root. Recognised by name only (after folding `.`, `..`, `//`):
 * self and thread-self are the caller's own (/proc/PID/fd/N as we see it),
 * a number is a process of the sandbox's, whose fd directory is reached
 * in the sandbox's /proc. An O_PATH descriptor of what the link leads to,
 * -ENOENT when it is not such a name (1: not one). The object is open
 * already: nothing is made by following it. */
static int fd_link_open(const struct call *c, const char *abs, int *out)
{
	char norm[PATH_MAX], dir[PATH_MAX], stdnum[2] = { 0, 0 };
	const char *num = NULL, *who = NULL;
	size_t wl = 0;
	static const char *const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };

	if (path_join("/", abs, norm, sizeof(norm)))
		return 1;
	for (int i = 0; i < 3 && !num; i++)
		if (!strcmp(norm, std[i])) {
			stdnum[0] = (char)('0' + i);
			num = stdnum;
		}
	if (!num && !strncmp(norm, "/dev/fd/", 8)) {
		num = norm + 8;
	} else if (!num && !strncmp(norm, "/proc/", 6)) {
		who = norm + 6;
		wl = strcspn(who, "/");
		if (strncmp(who + wl, "/fd/", 4))
			return 1;
		num = who + wl + 4;
	}
	if (!num || !*num || strspn(num, "0123456789") != strlen(num) || strlen(num) > 9)
		return 1;
	int dfd;
	if (!who || (wl == 4 && !strncmp(who, "self", 4)) ||
	    (wl == 11 && !strncmp(who, "thread-self", 11))) {
		snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)c->pid);
		dfd = OPEN(dir, O_PATH | O_DIRECTORY);
		if (dfd < 0)
			return -errno;
	} else {
		if (wl == 0 || wl > 10 || strspn(who, "0123456789") != wl)
			return 1;
		/* sbx-init is non-dumpable: the kernel refuses the program
		 * its descriptors (the control socket, the caller's pipes);
		 * we would follow them with rights it does not have */
		if (wl == 1 && who[0] == '1')
			return -EACCES;
		snprintf(dir, sizeof(dir), "/proc/%.*s/fd", (int)wl, who);
		dfd = open_in_root(c, dir, O_PATH | O_DIRECTORY, true);
		if (dfd < 0)
			return dfd;
	}
	int o = openat(dfd, num, O_PATH | O_CLOEXEC);
	int e = errno;
	close(dfd);
	if (o < 0)
		return -e;
	*out = o;
	return 0;
}

/* Open what `opath` holds, with the program's flags (creation bits are
 * spent by now), through /proc/self/fd: the object we checked, not a path
 * again. A FIFO for writing must not block us: tried non-blocking, and
 * queued when its reader is not there yet. */
static struct answer reopen(struct call *c, int opath, int flags, mode_t mode,
			    const struct stat *known)
{
	char l[64];
	struct stat st;
	/* O_NOFOLLOW is spent too: `opath` is no link (open_existing), and
	 * /proc/self/fd/N is one, which it would refuse (ELOOP) */
	int fl = (flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW)) | O_CLOEXEC | O_NOCTTY;
	bool have = known ? (st = *known, true) : !fstat(opath, &st);
	bool fifo = have && S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK);
	bool fifo_wr = fifo && (flags & O_ACCMODE) == O_WRONLY;
	/* one opened for reading (O_CREAT or O_TRUNC made it a notified
	 * call) would wait for a writer, and the whole supervisor with it,
	 * for ever if none comes: opened at once, the program's read() then
	 * finds no writer yet (end of file) instead of waiting in open() */
	bool fifo_rd = fifo && (flags & O_ACCMODE) == O_RDONLY;

	snprintf(l, sizeof(l), "/proc/self/fd/%d", opath);
	mode_t old = act_begin(c->n, (flags & O_TMPFILE) == O_TMPFILE ? prog_umask(c) : NO_UMASK);
	int fd = OPEN(l, fl | (fifo_wr || fifo_rd ? O_NONBLOCK : 0), mode);
	int e = errno;
	if (fd >= 0 && (flags & O_TRUNC) && S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
		e = errno;
		close(fd);
		fd = -1;
	}
	act_end(c->n, old);
	if (fd < 0 && fifo_wr && e == ENXIO && c->n->nwait < MAX_WAIT) {
		int keep = dup(opath);
		if (keep >= 0) {
			c->n->wait[c->n->nwait++] = (struct waiting){ c->id, keep, fl };
			return (struct answer){ .fd = -1, .wait = true };
		}
	}
	if (fd < 0)
		return ERR(e == ENXIO && fifo_wr ? EAGAIN : e);
	if (fifo_wr || fifo_rd)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return (struct answer){ .fd = fd, .fd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0 };
}

/* The caller's thread group in the sandbox's pid namespace: the last
 * field of NStgid in /proc/PID/status (Linux 4.1), -1 if unknown. */
static long caller_tgid(const struct call *c)
{
	char p[64], buf[2048];
	snprintf(p, sizeof(p), "/proc/%d/status", (int)c->pid);
	int fd = OPEN(p, O_RDONLY);
	long t = -1;
	if (fd < 0)
		return t;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	char *l = n > 0 ? (buf[n] = '\0', strstr(buf, "\nNStgid:")) : NULL;
	for (char *q = l ? l + 8 : NULL; q && *q && *q != '\n';) {
		char *end;
		long v = strtol(q, &end, 10);
		if (end == q)
			break;
		t = v;
		q = end;
	}
	return t;
}

/* An object on the sandbox's /proc that belongs to another process than
 * the caller (/proc/N/..., N not its own thread group). The supervisor
 * opens such a file with rights the program does not have: as root it
 * owns the /proc entries of non-dumpable processes, and as the owner of
 * the sandbox's user namespace it passes the ptrace checks there. So
 * /proc/1/mem (sbx-init) or the rename actor's (outside the notify
 * filter: its code overwritten, it makes any name) would be handed over,
 * where the kernel refuses the program. Other /proc files (/proc/sys, on a
 * read-only mount) are left to the kernel. */
static bool proc_foreign(const struct call *c, int o, const char *full,
			 const struct statfs *known)
{
	struct statfs own;
	const struct statfs *sf = known;

	if (!sf && fstatfs(o, &own))
		return false;
	if (!sf)
		sf = &own;
	if (sf->f_type != PROC_SUPER_MAGIC)
		return false;
	if (strncmp(full, "/proc/", 6))
		return true; /* no name in the sandbox's /proc: not one to open */
	if (full[6] < '0' || full[6] > '9')
		return false; /* not a process's: the kernel's */
	char *end;
	long n = strtol(full + 6, &end, 10);
	return (*end != '/' && *end) || n != caller_tgid(c);
}

/* An object that is there, held by `o` (links followed): refused when a
 * protected rule names where it is (and it is not git's own in a git
 * directory the run made), else opened again with the program's flags. */
static struct answer open_existing(struct call *c, int o, int flags, mode_t mode, bool tmpfile)
{
	char full[PATH_MAX];
	const struct sbx_rule *why;
	struct stat st;

	if (fstat(o, &st))
		return ERR(errno);
	if (S_ISLNK(st.st_mode))
		return ERR(ELOOP); /* O_NOFOLLOW on a link */
	/* not a path (a pipe, a socket, a terminal, a memfd or a removed
	 * file): no name to judge */
	int pr = st.st_nlink > 0 ? fd_path(o, full, sizeof(full)) : -ENOENT;
	if (pr && pr != -ENOENT)
		return ERR(-pr); /* a name we cannot judge */
	bool named = pr == 0;
	struct statfs sf;
	bool have_sf = !fstatfs(o, &sf);
	if (named && have_sf && proc_foreign(c, o, full, &sf)) {
		report(c, WIRE_DENY, WIRE_WRITE, full, EACCES);
		return ERR(EACCES);
	}
	/* on a read-only mount (a write-protect, the read-only root) the
	 * kernel refuses the write itself, and the shim names it: that
	 * answer stands, from the boundary that made it (f_flags: the
	 * mount's flags, Linux 2.6.36) */
	bool kernel_says = have_sf && (sf.f_flags & 0x0020 /* ST_VALID */) && (sf.f_flags & ST_RDONLY);
	if (named && !tmpfile && !kernel_says && !may_make(c->n, -1, full, false, &why) &&
	    !git_writable(c, full)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		return ERR(DENY_ERRNO);
	}
	struct answer a = reopen(c, o, flags, mode, &st);
	if (!a.err && !a.wait && named)
		report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
	return a;
}

/* open(O_CREAT | O_EXCL): the file made in the held parent under the
 * name we checked, in one try instead of a look first. EEXIST is the
 * answer (a name there, a link too, as the kernel says); anything else
 * (a refusal, an error) gives no descriptor, and do_open takes the long
 * way, which decides and reports as before. */
static struct answer create_new(struct call *c, const char *abs, int flags, mode_t mode)
{
	char full[PATH_MAX];
	const struct sbx_rule *why;
	struct parent pa;
	long fd = -1;
	int e = ENOENT;

	for (int fresh = 0; fresh < 2 && fd < 0 && e == ENOENT; fresh++) {
		if (fresh)
			notify_forget_last_dir(c->n); /* removed meanwhile? looked up again */
		if (parent_open_as(c, abs, &pa, true))
			return ERR(ENOENT);
		bool was_cached = pa.cached && !fresh;
		join(pa.path, pa.name, full, sizeof(full));
		if (pa.slash || dot_name(pa.name) || !may_make(c->n, pa.fd, full, false, &why)) {
			parent_close(&pa);
			return ERR(EPERM);
		}
		struct open_how how = { .flags = (unsigned long long)((flags & ~O_NOCTTY) | O_EXCL |
								      O_CLOEXEC | O_NOCTTY),
					.mode = mode & 07777,
					.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
		mode_t old = act_begin(c->n, prog_umask(c));
		fd = syscall(SYS_openat2, pa.fd, pa.name, &how, sizeof(how));
		e = errno;
		act_end(c->n, old);
		if (fd < 0)
			parent_close(&pa);
		if (fd < 0 && !was_cached)
			break;
	}
	if (fd < 0)
		return ERR(e);
	/* a `.git` file makes wherever its gitdir: points the repository of
	 * this directory: named at the end */
	if (!strcmp(pa.name, ".git"))
		remember_git(c->n, pa.fd, full);
	parent_close(&pa);
	report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
	return (struct answer){ .fd = (int)fd, .fd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0 };
}

/* open/openat/creat with a write or create flag. */
static struct answer do_open(struct call *c, int dirfd, unsigned long long paddr, int flags,
			     mode_t mode)
{
	char path[PATH_MAX], abs[PATH_MAX], full[PATH_MAX];
	const struct sbx_rule *why;
	struct parent pa;
	struct answer a;
	int rc, o = -1;

	if ((rc = read_str(c, paddr, path, sizeof(path))))
		return ERR(-rc);
	if ((rc = abs_path(c, dirfd, path, abs, sizeof(abs))))
		return ERR(-rc);
	if ((rc = fd_link_open(c, abs, &o)) <= 0) {
		if (rc < 0)
			return ERR(-rc);
		a = open_existing(c, o, flags & ~O_CREAT, mode, false);
		close(o);
		return a;
	}
	bool tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
	/* O_EXCL: the program expects a new file (git's checkout and locks,
	 * temporary files); without it the name is as often there already,
	 * and the look first is cheaper */
	if ((flags & O_CREAT) && (flags & O_EXCL) && !tmpfile) {
		a = create_new(c, abs, flags, mode);
		if (a.fd >= 0 || a.err == EEXIST)
			return a;
	}
	for (int hop = 0; hop <= MAX_HOPS; hop++) {
		/* what is there now, links followed, held without opening it */
		o = open_in_root(c, abs, O_PATH | (tmpfile ? O_DIRECTORY : 0),
				 (flags & O_NOFOLLOW) != 0);
		if (o >= 0) {
			if ((flags & O_CREAT) && (flags & O_EXCL) && !tmpfile) {
				close(o);
				return ERR(EEXIST);
			}
			a = open_existing(c, o, flags, mode, tmpfile);
			close(o);
			return a;
		}
		if (o != -ENOENT || !(flags & O_CREAT) || tmpfile)
			return ERR(-o);
		/* not there: made by us in the held parent, under the one
		 * name we checked */
		if ((rc = parent_open(c, abs, &pa)))
			return ERR(-rc);
		if (pa.slash || dot_name(pa.name)) {
			parent_close(&pa);
			return ERR(EISDIR);
		}
		join(pa.path, pa.name, full, sizeof(full));
		if (!may_make(c->n, pa.fd, full, false, &why)) {
			parent_close(&pa);
			report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
			return ERR(DENY_ERRNO);
		}
		struct open_how how = { .flags = (unsigned long long)((flags & ~O_NOCTTY) |
								      O_CLOEXEC | O_NOCTTY),
					.mode = mode & 07777,
					.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
		mode_t old = act_begin(c->n, prog_umask(c));
		long fd = syscall(SYS_openat2, pa.fd, pa.name, &how, sizeof(how));
		int e = errno;
		act_end(c->n, old);
		if (fd >= 0) {
			/* a `.git` file makes wherever its gitdir: points the
			 * repository of this directory: named at the end */
			if (!strcmp(pa.name, ".git"))
				remember_git(c->n, pa.fd, full);
			parent_close(&pa);
			report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
			return (struct answer){ .fd = (int)fd,
						.fd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0 };
		}
		if (e != ELOOP) {
			parent_close(&pa);
			return ERR(e);
		}
		/* a link there (a dangling one, or one made meanwhile): the
		 * kernel would create where it leads, so follow it ourselves */
		char link[PATH_MAX];
		ssize_t ln = readlinkat(pa.fd, pa.name, link, sizeof(link) - 1);
		if (ln < 0 || (flags & (O_NOFOLLOW | O_EXCL))) {
			parent_close(&pa);
			return ERR(ln < 0 ? ENOENT : (flags & O_EXCL) ? EEXIST : ELOOP);
		}
		link[ln] = '\0';
		if (link[0] == '/')
			snprintf(abs, sizeof(abs), "%s", link);
		else if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", strcmp(pa.path, "/") ?
					  pa.path : "", link) >= sizeof(abs)) {
			parent_close(&pa);
			return ERR(ENAMETOOLONG);
		}
		parent_close(&pa);
	}
	return ERR(ELOOP);
}

/* truncate(2): the file named by path is written as by open(O_WRONLY |
 * O_TRUNC), so it is judged as that open is, and cut by us on the file we
 * judged (a protected name deeper than the walk's is not bound read-only:
 * truncate(".vscode/settings.json", 3) cut it). */
static struct answer do_truncate(struct call *c, unsigned long long paddr, long long len)
{
	char path[PATH_MAX], abs[PATH_MAX];
	struct stat st;
	int rc, o = -1;

	if ((rc = read_str(c, paddr, path, sizeof(path))))
		return ERR(-rc);
	if (len < 0)
		return ERR(EINVAL);
	if ((rc = abs_path(c, AT_FDCWD, path, abs, sizeof(abs))))
		return ERR(-rc);
	if ((rc = fd_link_open(c, abs, &o)) > 0)
		o = open_in_root(c, abs, O_PATH, false);
	else if (rc < 0)
		o = rc;
	if (o < 0)
		return ERR(-o);
	if (fstat(o, &st) || !S_ISREG(st.st_mode)) {
		rc = fstat(o, &st) ? errno : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(o);
		return ERR(rc);
	}
	struct answer a = open_existing(c, o, O_WRONLY, 0, false);
	close(o);
	if (a.fd < 0)
		return a;
	mode_t old = act_begin(c->n, NO_UMASK);
	rc = ftruncate(a.fd, (off_t)len);
	int e = errno;
	act_end(c->n, old);
	close(a.fd);
	return rc ? ERR(e) : OK(0);
}

/* mkdir/mkdirat, mknod/mknodat, symlink/symlinkat: one new name. */
enum make_kind { MAKE_DIR, MAKE_NODE, MAKE_LINK };

static struct answer do_make(struct call *c, enum make_kind kind, int dirfd,
			     unsigned long long paddr, mode_t mode, unsigned dev,
			     unsigned long long taddr)
{
	char path[PATH_MAX], abs[PATH_MAX], full[PATH_MAX], target[PATH_MAX];
	const struct sbx_rule *why;
	struct parent pa;
	int rc;

	/* a directory or link where one was removed: a held path may lead
	 * elsewhere now */
	notify_forget_last_dir(c->n);
	if ((rc = read_str(c, paddr, path, sizeof(path))) ||
	    (kind == MAKE_LINK && (rc = read_str(c, taddr, target, sizeof(target)))))
		return ERR(-rc);
	if ((rc = abs_path(c, dirfd, path, abs, sizeof(abs))) || (rc = parent_open(c, abs, &pa)))
		return ERR(-rc);
	if (dot_name(pa.name) || (pa.slash && kind != MAKE_DIR)) {
		parent_close(&pa);
		return ERR(dot_name(pa.name) ? EEXIST : ENOENT);
	}
	join(pa.path, pa.name, full, sizeof(full));
	/* a link acts as the directory it may lead to */
	if (!may_make(c->n, pa.fd, full, kind == MAKE_LINK, &why)) {
		parent_close(&pa);
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		return ERR(DENY_ERRNO);
	}
	mode_t old = act_begin(c->n, prog_umask(c));
	if (kind == MAKE_DIR)
		rc = mkdirat(pa.fd, pa.name, mode);
	else if (kind == MAKE_NODE)
		rc = mknodat(pa.fd, pa.name, mode, dev);
	else
		rc = symlinkat(target, pa.fd, pa.name);
	int e = errno;
	act_end(c->n, old);
	if (!rc && kind == MAKE_DIR && !strcmp(pa.name, ".git"))
		remember_git(c->n, pa.fd, full);
	parent_close(&pa);
	if (rc)
		return ERR(e);
	report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
	return OK(0);
}

struct answer notify_unix_bind(struct call *c, int s, const struct sockaddr_un *su, unsigned alen)
{
	char path[sizeof(su->sun_path) + 1], abs[PATH_MAX], full[PATH_MAX];
	size_t off = offsetof(struct sockaddr_un, sun_path);
	size_t pl = alen > off ? alen - off : 0;
	const struct sbx_rule *why;
	struct parent pa;
	int rc;

	if (pl > sizeof(su->sun_path))
		pl = sizeof(su->sun_path);
	if (!pl || !su->sun_path[0]) {
		/* unnamed (autobind) or abstract: the socket's own network
		 * namespace holds the name, no file is made */
		rc = bind(s, (const struct sockaddr *)su, (socklen_t)alen);
		return rc ? ERR(errno) : OK(0);
	}
	memcpy(path, su->sun_path, pl);
	path[pl] = '\0';
	if ((rc = abs_path(c, AT_FDCWD, path, abs, sizeof(abs))) || (rc = parent_open(c, abs, &pa)))
		return ERR(-rc);
	if (dot_name(pa.name) || pa.slash) {
		parent_close(&pa);
		return ERR(dot_name(pa.name) ? EADDRINUSE : ENOENT);
	}
	join(pa.path, pa.name, full, sizeof(full));
	if (!may_make(c->n, pa.fd, full, false, &why)) {
		parent_close(&pa);
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		return ERR(DENY_ERRNO);
	}
	/* sun_path takes no directory descriptor: bound from the held parent
	 * as our working directory (this process has one thread), then back */
	struct sockaddr_un here_name = { .sun_family = AF_UNIX };
	memcpy(here_name.sun_path, pa.name, strlen(pa.name) + 1);
	int here = OPEN(".", O_PATH | O_DIRECTORY);
	mode_t old = act_begin(c->n, prog_umask(c));
	rc = fchdir(pa.fd) ? -1 :
	     bind(s, (struct sockaddr *)&here_name,
		  (socklen_t)(off + strlen(here_name.sun_path) + 1));
	int e = errno;
	if (here < 0 || fchdir(here))
		(void)!chdir("/");
	act_end(c->n, old);
	if (here >= 0)
		close(here);
	parent_close(&pa);
	if (rc)
		return ERR(e);
	report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
	return OK(0);
}

/* How long a rename may take the actor: COMMAND can stop it (same user),
 * and the loop must not wait for it forever. */
#define ACTOR_WAIT_MS 5000

/* renameat2 done by the actor (init-notify.c): the errno, 0 when done.
 * An actor that does not answer in time is given up: every rename after
 * it fails (EIO), nothing is renamed from here instead. */
static int actor_rename(struct notify *n, int ofd, const char *oname, int nfd,
			const char *nname, unsigned flags)
{
	char buf[INIT_NOTIFY_REQ_MAX];
	size_t ol = strlen(oname) + 1, nl = strlen(nname) + 1;
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(2 * sizeof(int))];
	} cm;
	int fds[2] = { ofd, nfd };
	int32_t err;

	if (n->actor < 0)
		return EIO;
	if (1 + 4 + ol + nl > sizeof(buf))
		return ENAMETOOLONG;
	buf[0] = 'r';
	uint32_t f = flags;
	memcpy(buf + 1, &f, 4);
	memcpy(buf + 5, oname, ol);
	memcpy(buf + 5 + ol, nname, nl);
	struct iovec iov = { buf, 5 + ol + nl };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	memset(&cm, 0, sizeof(cm));
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	if (sendmsg(n->actor, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		goto lost;
	struct pollfd pf = { n->actor, POLLIN, 0 };
	int r;
	while ((r = poll(&pf, 1, ACTOR_WAIT_MS)) < 0 && errno == EINTR)
		;
	if (r <= 0 || recv(n->actor, &err, sizeof(err), MSG_DONTWAIT) != (ssize_t)sizeof(err))
		goto lost;
	return err >= 0 && err < 4096 ? (int)err : EIO;
lost:
	close(n->actor);
	n->actor = -1;
	msg("the rename actor inside the sandbox stopped answering (stopped or killed by "
	    "the sandboxed program?): renames are refused from now on");
	return EIO;
}

/* The file a hard link would give a second name, held: 0, or the errno
 * when it is one a protected rule names (a name deeper than the walk's
 * three levels is not bound read-only: written by the new name, it would
 * change) or another process's /proc file. No name (an O_TMPFILE, a
 * removed file): nothing to judge. */
static int link_source(struct call *c, int o)
{
	char full[PATH_MAX];
	const struct sbx_rule *why;
	struct stat st;

	if (fstat(o, &st) || st.st_nlink == 0)
		return 0;
	int pr = fd_path(o, full, sizeof(full));
	if (pr)
		return pr == -ENOENT ? 0 : -pr; /* no name; one we cannot judge */
	if (proc_foreign(c, o, full, NULL)) {
		report(c, WIRE_DENY, WIRE_WRITE, full, EACCES);
		return EACCES;
	}
	if (!may_make(c->n, -1, full, false, &why) && !git_writable(c, full)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		return DENY_ERRNO;
	}
	return 0;
}

/* link/linkat: the file to link, held (`o`), and whether it is a symlink
 * (which lands as one: a directory of its choosing). With
 * AT_SYMLINK_FOLLOW the file is where the name leads in the program's view
 * (a /proc/PID/fd/N included: an O_TMPFILE made for this); without, the
 * name itself. 0 or -errno. */
static int link_old(struct call *c, const char *oabs, const struct parent *op, bool follow,
		    int *o, bool *is_lnk)
{
	struct stat st;

	*is_lnk = false;
	if (follow) {
		int rc = fd_link_open(c, oabs, o);
		if (rc > 0)
			*o = open_in_root(c, oabs, O_PATH, false);
		else if (rc < 0)
			*o = rc;
	} else {
		*o = openat(op->fd, op->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (*o < 0)
			*o = -errno;
	}
	if (*o < 0)
		return *o;
	if (fstat(*o, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EPERM; /* as the kernel answers */
	*is_lnk = S_ISLNK(st.st_mode);
	return *is_lnk ? 0 : -link_source(c, *o);
}

/* rename/renameat/renameat2 and link/linkat: a name made from another. */
static struct answer do_move(struct call *c, bool is_link, int olddfd, unsigned long long oaddr,
			     int newdfd, unsigned long long naddr, unsigned flags)
{
	char opath[PATH_MAX], npath[PATH_MAX], oabs[PATH_MAX], nabs[PATH_MAX];
	char ofull[PATH_MAX], nfull[PATH_MAX];
	const struct sbx_rule *why;
	struct parent op = { .fd = -1 }, np = { .fd = -1 };
	struct answer a;
	struct stat st = { 0 }, nst;
	int rc, lo = -1;

	notify_forget_last_dir(c->n); /* a path may lead elsewhere after it */
	if ((rc = read_str(c, oaddr, opath, sizeof(opath))) ||
	    (rc = read_str(c, naddr, npath, sizeof(npath))))
		return ERR(-rc);
	if (is_link && (flags & ~(unsigned)AT_SYMLINK_FOLLOW))
		return ERR(EINVAL); /* AT_EMPTY_PATH: a descriptor, not a name */
	bool follow = is_link && (flags & AT_SYMLINK_FOLLOW);
	if ((rc = abs_path(c, olddfd, opath, oabs, sizeof(oabs))) ||
	    (rc = abs_path(c, newdfd, npath, nabs, sizeof(nabs))) ||
	    (!follow && (rc = parent_open(c, oabs, &op))) || (rc = parent_open(c, nabs, &np))) {
		a = ERR(-rc);
		goto out;
	}
	if ((!follow && dot_name(op.name)) || dot_name(np.name)) {
		a = ERR(is_link ? EEXIST : EBUSY);
		goto out;
	}
	if (!follow)
		join(op.path, op.name, ofull, sizeof(ofull));
	join(np.path, np.name, nfull, sizeof(nfull));
	/* what lands at the new name: a directory or a link there acts as
	 * a directory, whose inside may complete a protected name (a hard
	 * link of a symlink is that symlink under the new name) */
	bool lnk = false;
	if (is_link && (rc = link_old(c, oabs, &op, follow, &lo, &lnk))) {
		a = ERR(-rc);
		goto out;
	}
	bool as_dir = is_link ? lnk : !fstatat(op.fd, op.name, &st, AT_SYMLINK_NOFOLLOW) &&
					      (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode));
	if (!may_make(c->n, np.fd, nfull, as_dir, &why)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, nfull, DENY_ERRNO, why);
		a = ERR(DENY_ERRNO);
		goto out;
	}
	if (!is_link && (flags & RENAME_EXCHANGE)) {
		bool new_dir = !fstatat(np.fd, np.name, &nst, AT_SYMLINK_NOFOLLOW) &&
			       (S_ISDIR(nst.st_mode) || S_ISLNK(nst.st_mode));
		if (!may_make(c->n, op.fd, ofull, new_dir, &why)) {
			report_why(c, WIRE_DENY, WIRE_WRITE, ofull, DENY_ERRNO, why);
			a = ERR(DENY_ERRNO);
			goto out;
		}
	}
	int e = 0;
	if (is_link) {
		/* the file we judged, not a name again (a symlink: itself) */
		char l[64];
		snprintf(l, sizeof(l), "/proc/self/fd/%d", lo);
		mode_t old = act_begin(c->n, NO_UMASK);
		rc = lnk ? linkat(op.fd, op.name, np.fd, np.name, 0) :
			   linkat(AT_FDCWD, l, np.fd, np.name, AT_SYMLINK_FOLLOW);
		e = errno;
		act_end(c->n, old);
	} else {
		/* in the sandbox's mount namespace, where its mounts are busy */
		e = actor_rename(c->n, op.fd, op.name, np.fd, np.name, flags);
		rc = e ? -1 : 0;
	}
	if (!rc && !strcmp(np.name, ".git"))
		remember_git(c->n, np.fd, nfull); /* a directory, or a file */
	a = rc ? ERR(e) : OK(0);
	if (!rc)
		report(c, WIRE_ALLOW, WIRE_WRITE, nfull, 0);
out:
	if (lo >= 0)
		close(lo);
	parent_close(&op);
	parent_close(&np);
	return a;
}

/* Is the directory `fd` the sandbox's own tmpfs (bubblewrap's private
 * /tmp), not a host directory bound there? */
static bool is_private_tmp(int fd)
{
	struct statfs sf;
	return !fstatfs(fd, &sf) && sf.f_type == TMPFS_MAGIC;
}

/* The answer for a connect() of ours that finished on socket `s` (closed
 * here): its error, or 0. `fl`: the flags to put back. */
static struct answer connect_done(int s, int fl)
{
	int err = 0;
	socklen_t el = sizeof(err);

	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el))
		err = errno;
	fcntl(s, F_SETFL, fl);
	close(s);
	return err ? ERR(err) : OK(0);
}

/* connect() on a socket that is not AF_UNIX, made here, on the socket we
 * took (`s`, closed or kept here) with our copy of the address (`ss`,
 * `alen` bytes). Never CONTINUE: the kernel would look the descriptor
 * number up again, and another thread can dup2() an AF_UNIX socket onto
 * it meanwhile, which the kernel then connects to any socket file (the
 * docker socket) undecided -- reproduced in tests/integration/
 * attack-notify.sh. The socket is in the sandbox's network namespace,
 * which decides where it may go whoever connects it. A blocking connect
 * not done at once (on loopback it is by the time connect() returns) is
 * waited for without blocking the loop (retry_connecting). */
struct answer notify_connect_here(struct call *c, int s, const struct sockaddr_storage *ss,
				  unsigned alen)
{
	int fl = fcntl(s, F_GETFL);
	bool block = fl >= 0 && !(fl & O_NONBLOCK);

	/* the groups of a netlink socket need CAP_NET_ADMIN in the socket's
	 * namespace, which the sandbox's owner (we) has and the program not */
	if (alen >= sizeof(struct sockaddr_nl) && ss->ss_family == AF_NETLINK &&
	    ((const struct sockaddr_nl *)ss)->nl_groups) {
		close(s);
		return ERR(EPERM);
	}
	if (block)
		fcntl(s, F_SETFL, fl | O_NONBLOCK);
	int rc = connect(s, (const struct sockaddr *)ss, alen);
	int e = errno;
	if (rc == 0 || !block || e != EINPROGRESS) {
		if (block)
			fcntl(s, F_SETFL, fl);
		close(s);
		return rc ? ERR(e) : OK(0);
	}
	struct pollfd pf = { s, POLLOUT, 0 };
	if (poll(&pf, 1, 0) == 1)
		return connect_done(s, fl);
	struct notify *n = c->n;
	if (!n->conn && !(n->conn = calloc(MAX_CONNECTING, sizeof(*n->conn)))) {
		fcntl(s, F_SETFL, fl);
		close(s);
		return ERR(ENOMEM);
	}
	if (n->nconn == MAX_CONNECTING) {
		fcntl(s, F_SETFL, fl);
		close(s);
		return ERR(EAGAIN);
	}
	n->conn[n->nconn++] = (struct connecting){ c->id, s, fl };
	return (struct answer){ .fd = -1, .wait = true };
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
	return s < 0 ? -e : s;
}

/* connect(): an AF_UNIX socket is connected here, by us, to the path we
 * checked (held as a descriptor, connected through /proc/self/fd); any
 * other family too (connect_here), in the sandbox's network namespace,
 * which with the proxy decides where it may go. */
static struct answer do_connect(struct call *c, int sockfd, unsigned long long aaddr,
				unsigned alen)
{
	struct sockaddr_un sun;
	int domain = 0, fl, rc;
	socklen_t il = sizeof(domain);
	char path[sizeof(sun.sun_path) + 1], abs[PATH_MAX], full[PATH_MAX], l[64];
	const struct sbx_rule *why = NULL;
	struct answer a;

	int s = notify_take_fd(c, sockfd);
	if (s < 0)
		return ERR(-s);
	int de = getsockopt(s, SOL_SOCKET, SO_DOMAIN, &domain, &il) ? errno : 0;
	if (de) {
		close(s);
		return ERR(de);
	}
	if (domain == AF_INET || domain == AF_INET6)
		return notify_net_connect(c, s, sockfd, aaddr, alen);
	if (policy_allow_all_unix_sockets(c->n->p)) {
		/* every socket may go wherever the kernel lets it: a
		 * descriptor swapped meanwhile changes nothing, CONTINUE */
		close(s);
		return (struct answer){ .fd = -1, .cont = true };
	}
	if (domain != AF_UNIX) {
		struct sockaddr_storage ss;
		memset(&ss, 0, sizeof(ss));
		if (alen > sizeof(ss)) {
			close(s);
			return ERR(EINVAL); /* as the kernel's move_addr_to_kernel */
		}
		if (alen && notify_read_mem(c, aaddr, &ss, alen)) {
			close(s);
			return ERR(EFAULT);
		}
		if (!notify_call_valid(c)) {
			close(s);
			return ERR(ENOENT);
		}
		return notify_connect_here(c, s, &ss, alen);
	}
	memset(&sun, 0, sizeof(sun));
	if (alen > sizeof(sun))
		alen = sizeof(sun);
	if (alen < sizeof(sa_family_t) || notify_read_mem(c, aaddr, &sun, alen)) {
		close(s);
		return ERR(alen < sizeof(sa_family_t) ? EINVAL : EFAULT);
	}
	if (!notify_call_valid(c)) {
		close(s);
		return ERR(ENOENT);
	}
	if (sun.sun_family != AF_UNIX) {
		close(s);
		return ERR(EINVAL);
	}
	size_t plen = alen - offsetof(struct sockaddr_un, sun_path);
	if (plen == 0 || sun.sun_path[0] == '\0') {
		/* abstract: the network namespace's. Only the sandbox's own
		 * one (not when the network is open: the host's). */
		if (policy_network_open(c->n->p)) {
			close(s);
			report(c, WIRE_DENY, WIRE_UNIX, "@(abstract)", DENY_UNIX);
			return ERR(DENY_UNIX);
		}
		fl = fcntl(s, F_GETFL);
		if (fl >= 0 && !(fl & O_NONBLOCK))
			fcntl(s, F_SETFL, fl | O_NONBLOCK);
		rc = connect(s, (struct sockaddr *)&sun, alen);
		int e = errno;
		if (fl >= 0 && !(fl & O_NONBLOCK))
			fcntl(s, F_SETFL, fl);
		close(s);
		return rc ? ERR(e) : OK(0);
	}
	memcpy(path, sun.sun_path, plen);
	path[plen] = '\0';
	int o = (rc = abs_path(c, AT_FDCWD, path, abs, sizeof(abs))) ? rc :
		open_in_root(c, abs, O_PATH, false);
	if (o < 0) {
		close(s);
		return ERR(-o == ENOENT ? ENOENT : -o);
	}
	struct stat st;
	bool allowed = false;
	if (!fstat(o, &st) && S_ISSOCK(st.st_mode) && !fd_path(o, full, sizeof(full))) {
		size_t nr;
		const struct sbx_rule *const *rules =
			policy_rules(c->n->p, SBX_RULE_ALLOW_UNIX_SOCKET, &nr);
		for (size_t i = 0; i < nr && !allowed; i++)
			if (policy_rule_matches(rules[i], full)) {
				allowed = true;
				why = rules[i];
			}
		/* a server of the sandbox's own: a socket on its private /tmp,
		 * where nothing outside can bind (a socket in the workspace may
		 * be a host program's: that one needs allow_unix_sockets) */
		struct stat tst;
		int t = allowed ? -1 : open_in_root(c, "/tmp", O_PATH | O_DIRECTORY, true);
		if (t >= 0) {
			allowed = !fstat(t, &tst) && tst.st_dev == st.st_dev &&
				  is_private_tmp(t);
			close(t);
		}
	} else if (fd_path(o, full, sizeof(full))) {
		snprintf(full, sizeof(full), "%s", abs);
	}
	if (!S_ISSOCK(st.st_mode)) {
		close(o);
		close(s);
		return ERR(ECONNREFUSED);
	}
	if (!allowed) {
		close(o);
		close(s);
		report(c, WIRE_DENY, WIRE_UNIX, full, DENY_UNIX);
		return ERR(DENY_UNIX);
	}
	struct sockaddr_un via = { .sun_family = AF_UNIX };
	snprintf(l, sizeof(l), "/proc/self/fd/%d", o);
	snprintf(via.sun_path, sizeof(via.sun_path), "%s", l);
	/* never block the loop: a full backlog answers EAGAIN */
	fl = fcntl(s, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(s, F_SETFL, fl | O_NONBLOCK);
	mode_t old = act_begin(c->n, NO_UMASK);
	rc = connect(s, (struct sockaddr *)&via, sizeof(via));
	int e = errno;
	act_end(c->n, old);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(s, F_SETFL, fl);
	close(o);
	close(s);
	a = rc ? ERR(e) : OK(0);
	if (!rc)
		report_why(c, WIRE_ALLOW, WIRE_UNIX, full, 0, why);
	return a;
}

/* ---- dispatch */

static struct answer dispatch(struct call *c, const struct seccomp_data *d)
{
	const unsigned long long *a = d->args;
	long nr = d->nr;

	switch (nr) {
#ifdef SYS_open
	case SYS_open:
		return do_open(c, AT_FDCWD, a[0], (int)a[1], (mode_t)a[2]);
#endif
#ifdef SYS_creat
	case SYS_creat:
		return do_open(c, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, (mode_t)a[1]);
#endif
	case SYS_openat:
		return do_open(c, (int)a[0], a[1], (int)a[2], (mode_t)a[3]);
#ifdef SYS_mkdir
	case SYS_mkdir:
		return do_make(c, MAKE_DIR, AT_FDCWD, a[0], (mode_t)a[1], 0, 0);
#endif
	case SYS_mkdirat:
		return do_make(c, MAKE_DIR, (int)a[0], a[1], (mode_t)a[2], 0, 0);
#ifdef SYS_mknod
	case SYS_mknod:
		return do_make(c, MAKE_NODE, AT_FDCWD, a[0], (mode_t)a[1], (unsigned)a[2], 0);
#endif
	case SYS_mknodat:
		return do_make(c, MAKE_NODE, (int)a[0], a[1], (mode_t)a[2], (unsigned)a[3], 0);
#ifdef SYS_symlink
	case SYS_symlink:
		return do_make(c, MAKE_LINK, AT_FDCWD, a[1], 0, 0, a[0]);
#endif
	case SYS_symlinkat:
		return do_make(c, MAKE_LINK, (int)a[1], a[2], 0, 0, a[0]);
#ifdef SYS_rename
	case SYS_rename:
		return do_move(c, false, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
#endif
#ifdef SYS_renameat
	case SYS_renameat:
		return do_move(c, false, (int)a[0], a[1], (int)a[2], a[3], 0);
#endif
	case SYS_renameat2:
		return do_move(c, false, (int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4]);
#ifdef SYS_link
	case SYS_link:
		return do_move(c, true, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
#endif
	case SYS_linkat:
		return do_move(c, true, (int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4]);
	case SYS_connect:
		return do_connect(c, (int)a[0], a[1], (unsigned)a[2]);
	case SYS_listen: /* allow_local_binding = false (notify-deny.c) */
		return notify_listen(c, (int)a[0], (int)a[1]);
	case SYS_bind:
		return notify_bind(c, (int)a[0], a[1], (unsigned)a[2]);
#ifdef SYS_truncate
	case SYS_truncate:
		return do_truncate(c, a[0], (long long)a[1]);
#endif
	}
	/* the seccomp table's rows (notify-deny.c): their errno, reported;
	 * anything else, ENOSYS: never continue */
	return notify_deny(c, d);
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

/* The blocking connects in progress: answered when done; dropped when
 * their caller is gone (a signal took it out of connect(), which goes on
 * in the kernel, as it would). */
static void retry_connecting(struct notify *n)
{
	for (size_t i = 0; i < n->nconn;) {
		struct connecting *w = &n->conn[i];
		uint64_t id = w->id;
		struct pollfd pf = { w->s, POLLOUT, 0 };
		if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0) {
			if (poll(&pf, 1, 0) != 1) {
				i++;
				continue;
			}
			notify_respond(n, id, connect_done(w->s, w->fl));
		} else {
			fcntl(w->s, F_SETFL, w->fl);
			close(w->s);
		}
		*w = n->conn[--n->nconn];
	}
}

int notify_serve(struct notify *n)
{
	if (n->fd < 0)
		return 0;
	int rc = 0;

	serve_begin(n);
	retry_waiting(n);
	retry_connecting(n);
	for (int i = 0; i < NOTIFY_BATCH && !rc; i++) {
		struct pollfd pf = { n->fd, POLLIN, 0 };
		int r = poll(&pf, 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || !(pf.revents & POLLIN))
			break;
		rc = serve_one(n);
	}
	serve_end(n);
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
	qsort(v, np, sizeof(*v), cmp_str);
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

void notify_finish(struct notify *n)
{
	char line[8192], shown[PATH_MAX];
	size_t o = 0;

	if (!n || !n->ngit || !n->r)
		return;
	o += (size_t)snprintf(line, sizeof(line), "sbx: git repositor%s created during the run "
			      "(their config was written inside the sandbox; hooks other than "
			      "git's samples were refused):", n->ngit == 1 ? "y" : "ies");
	for (size_t i = 0; i < n->ngit && o < sizeof(line) - 64; i++) {
		policy_tildify(n->p, n->git[i].path, shown, sizeof(shown));
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s %s%s", i ? "," : "", shown,
				      n->git[i].file ? " (a file: the repository its gitdir: "
				      "names is the run's, hooks and all)" : "");
	}
	if (n->git_full && o < sizeof(line) - 32)
		snprintf(line + o, sizeof(line) - o, " (and more, not kept)");
	reports_say_notice(n->r, "git-repositories", line);
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
	free(n->req);
	free(n->resp);
	free(n);
}
