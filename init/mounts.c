/* init/mounts.c: the read-only binds, masks and /dev that sbx-init
 * makes with plain mount(2), and the capability drop that follows.
 *
 * Why here and not in bubblewrap: bubblewrap re-reads /proc/self/mountinfo
 * and remounts per operation (about 0.15 ms each); the same bind here is two
 * system calls (about 20 us). bubblewrap still makes the root, the writable
 * binds, /proc and /tmp, and starts us with CAP_SYS_ADMIN and CAP_SETPCAP in
 * the sandbox's user namespace only.
 *
 * We run in the sandbox's user namespace, which owns bubblewrap's mount
 * namespace, so we mount in it directly. What we add only narrows what
 * bubblewrap made. Before COMMAND exists every capability is dropped (pid 1
 * included) and the seccomp filter refuses new user namespaces, so nothing
 * in the sandbox can ever unmount or remount any of it; the kernel locked
 * the host's flags (nosuid and the like) when bubblewrap copied its mounts.
 *
 * No parsing beyond the argument prefixes, no allocation.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/control.h"
#include "init/mounts.h"
#include "common/pathwalk.h"

enum op { OP_NONE, OP_DEV, OP_PROC, OP_RW, OP_RW_IN, OP_PIN, OP_RO, OP_RO_NEW, OP_RO_LINK,
	  OP_MASK_FILE, OP_MASK_DIR, OP_MASK_DIR_X, OP_UNMASK, OP_UNMASK_RW, OP_BOUND };

static const struct {
	const char *prefix; /* "--dev", "--proc" are matched whole, the others take =PATH */
	enum op op;
} op_table[] = {
	{ "--dev", OP_DEV },
	{ "--proc", OP_PROC },
	{ "--rw=", OP_RW },
	{ "--rw-in=", OP_RW_IN },
	{ "--bound=", OP_BOUND },
	{ "--pin=", OP_PIN },
	{ "--ro-link=", OP_RO_LINK },
	{ "--ro=", OP_RO },
	{ "--ro-new=", OP_RO_NEW },
	{ "--mask-file=", OP_MASK_FILE },
	{ "--mask-dir=", OP_MASK_DIR },
	{ "--mask-dir-x=", OP_MASK_DIR_X },
	{ "--unmask=", OP_UNMASK },
	{ "--unmask-rw=", OP_UNMASK_RW },
};

/* Children bound back into one mask: they are opened before the mask
 * covers them, so their descriptors are held meanwhile. */
#define MAX_UNMASK 64

static enum op op_of(const char *arg, const char **path)
{
	for (size_t i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++) {
		size_t n = strlen(op_table[i].prefix);
		if (strncmp(arg, op_table[i].prefix, n))
			continue;
		if (op_table[i].op == OP_DEV || op_table[i].op == OP_PROC) {
			if (arg[n])
				continue;
			*path = op_table[i].op == OP_DEV ? "/dev" : "/proc";
		} else {
			*path = arg + n;
		}
		return op_table[i].op;
	}
	return OP_NONE;
}

/* Absolute, no `.`/`..`/empty component, no trailing slash, not `/`. */
static bool path_ok(const char *p)
{
	size_t len = strnlen(p, PATH_MAX);

	if (p[0] != '/' || len < 2 || len >= PATH_MAX || p[len - 1] == '/')
		return false;
	for (const char *c = p; *c; ) {
		const char *end;
		c++; /* past '/' */
		end = strchrnul(c, '/');
		size_t n = (size_t)(end - c);
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c = end;
	}
	return true;
}

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

int init_mounts_check(struct init_mounts *m, const char *arg)
{
	const char *path;
	enum op op = op_of(arg, &path);

	if (op == OP_NONE)
		return 0;
	if (!path_ok(path))
		return -EINVAL;
	if (op == OP_UNMASK || op == OP_UNMASK_RW) {
		if (!m->mask || !below(path, m->mask))
			return -EINVAL;
	} else {
		m->mask = op == OP_MASK_DIR_X ? path : NULL;
	}
	m->nops++;
	if (op != OP_DEV && op != OP_PROC)
		m->npath++;
	if (op == OP_RO_NEW)
		m->nnew++;
	return 1;
}

/* ---- mounting */

static bool have_setattr;

/* mount_setattr(2) by number: glibc 2.36 has a wrapper, musl 1.2.3 (which
 * sbx-init is built with where it is installed) does not. The layout is the
 * kernel's struct mount_attr. */
struct init_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#define INIT_ATTR_RDONLY 0x00000001 /* MOUNT_ATTR_RDONLY */
#define INIT_ATTR_NODEV 0x00000004  /* MOUNT_ATTR_NODEV */

static int setattr(int dfd, const char *path, unsigned flags, uint64_t set, uint64_t clr)
{
	struct init_mount_attr a = { .attr_set = set, .attr_clr = clr };

	return (int)syscall(SYS_mount_setattr, dfd, path, flags, &a, sizeof(a));
}

/* "/proc/self/fd/N": the source of a bind from a descriptor opened before
 * its path was covered. */
static const char *fd_path(int fd, char *buf, size_t sz)
{
	snprintf(buf, sz, "/proc/self/fd/%d", fd);
	return buf;
}

/* Bind remount of `path` (already a mount), for kernels before 5.12: it
 * replaces every per-mount flag, and the kernel refuses (EPERM) to clear a
 * locked one, so the others are carried over. */
static int remount_flags(const char *path, unsigned long set, unsigned long clr)
{
	struct statvfs sv;

	if (statvfs(path, &sv))
		return -errno;
	unsigned long fl = MS_REMOUNT | MS_BIND | set;
	fl |= (sv.f_flag & ST_RDONLY ? MS_RDONLY : 0) | (sv.f_flag & ST_NOSUID ? MS_NOSUID : 0) |
	      (sv.f_flag & ST_NODEV ? MS_NODEV : 0) | (sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0) |
	      (sv.f_flag & ST_NODIRATIME ? MS_NODIRATIME : 0);
	fl &= ~clr;
	if (sv.f_flag & ST_NOATIME)
		fl |= MS_NOATIME;
	else if (sv.f_flag & ST_RELATIME)
		fl |= MS_RELATIME;
	else
		fl |= MS_STRICTATIME;
	return mount(NULL, path, NULL, fl, NULL) ? -errno : 0;
}

/* Make `path` (already a mount) read-only; with `rec`, everything below it
 * too. mount_setattr() only sets the one flag, so what the kernel locked
 * (nosuid, nodev, noexec, atime) stays as it was. */
static int set_ro(const char *path, bool rec)
{
	if (have_setattr)
		return setattr(AT_FDCWD, path, rec ? AT_RECURSIVE : 0, INIT_ATTR_RDONLY, 0) ?
			-errno : 0;
	return remount_flags(path, MS_RDONLY, 0);
}

/* ---- mounts made from descriptors
 *
 * Every path of an operation is opened once, without following a link on
 * the way (pathwalk.h), checked against the identity the supervisor
 * recorded (mountids.h), and the mount is made on that descriptor: a
 * detached copy of the source (open_tree), its flags set while nobody can
 * see it (mount_setattr), then attached (move_mount). A name swapped for a
 * link or for another directory by a program of a concurrent run between
 * the supervisor's look and ours is refused; one swapped after our open
 * changes nothing, the mount lands on what we opened. */

#define MAX_IDS 16384
static struct mount_id ids[MAX_IDS];
static size_t nids;
static bool check_ids;
/* argv index -> its path operation's number, for ids[] */
static unsigned ordinal[MAX_IDS];

int init_mounts_take_ids(const void *buf, size_t len)
{
	size_t k = len / sizeof(struct mount_id);

	if (len % sizeof(struct mount_id) || k > MAX_IDS - nids)
		return -EPROTO;
	memcpy(ids + nids, buf, len);
	nids += k;
	return 0;
}

/* Open the path of the operation at argv[i] (link_last: --ro-link's link
 * itself) and check it is what the supervisor recorded. */
static int open_planned(int i, const char *path, bool link_last, const char **what)
{
	struct mount_id id;
	int fd = pathwalk_open(path, link_last);

	if (fd == -ELOOP || fd == -ENOTDIR)
		*what = "a path changed while sbx was starting: a symlink is now on the way to";
	if (fd < 0 || !check_ids)
		return fd;
	if (pathwalk_id(fd, &id, NULL) || id.dev != ids[ordinal[i]].dev ||
	    id.ino != ids[ordinal[i]].ino) {
		close(fd);
		*what = "a path changed while sbx was starting: it is no longer the one sbx "
			"planned at";
		return -ESTALE;
	}
	return fd;
}

/* A detached copy of the mount at fd (with what is mounted below it:
 * `rec`), or -errno. */
static int clone_tree(int fd, bool rec)
{
	int t = (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			     AT_EMPTY_PATH | (rec ? AT_RECURSIVE : 0));
	return t < 0 ? -errno : t;
}

/* Attach the detached tree t onto what fd is (a link too: not followed). */
static int attach(int t, int onto)
{
	return syscall(SYS_move_mount, t, "", onto, "",
		       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) ? -errno : 0;
}

/* Read-only (`ro`) or writable, the tree t: detached with mount_setattr
 * (nobody ever sees it otherwise); attached, by remount, without (the
 * top mount only, as set_ro() does by path). `rec`: with what
 * is mounted below. Writable with a read-only mount below that the kernel
 * locked: the top one only. */
static int tree_flags(int t, bool ro, bool rec)
{
	char buf[64];

	if (!have_setattr)
		return remount_flags(fd_path(t, buf, sizeof(buf)), ro ? MS_RDONLY : 0,
				     ro ? 0 : MS_RDONLY);
	if (!setattr(t, "", AT_EMPTY_PATH | (rec ? AT_RECURSIVE : 0), ro ? INIT_ATTR_RDONLY : 0,
		     ro ? 0 : INIT_ATTR_RDONLY))
		return 0;
	if (ro || !rec || errno != EPERM)
		return -errno;
	return setattr(t, "", AT_EMPTY_PATH, 0, INIT_ATTR_RDONLY) ? -errno : 0;
}

/* Bind what src is onto what dst is: `flags` 'r' read-only, 'w' writable,
 * 0 as it is. rec: with what is mounted below (without mount_setattr only
 * where it was so before: see bind_path()). */
static int bind_fd(int src, int dst, char flags, bool rec)
{
	int rc, t = clone_tree(src, rec);

	if (t < 0)
		return t;
	rc = flags && have_setattr ? tree_flags(t, flags == 'r', rec) : 0;
	if (!rc)
		rc = attach(t, dst);
	if (!rc && flags && !have_setattr)
		rc = tree_flags(t, flags == 'r', rec);
	close(t);
	return rc;
}

/* An empty tmpfs, detached, with `attrs` (MOUNT_ATTR_*). */
static int new_tmpfs(const char *mode, unsigned attrs)
{
	int rc, m, fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);

	if (fs < 0)
		return -errno;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", mode, 0) ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		rc = -errno;
		close(fs);
		return rc;
	}
	m = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, attrs);
	rc = m < 0 ? -errno : m;
	close(fs);
	return rc;
}

/* Let the device node bound at `path` be used: the bind inherited nodev
 * from the read-only root bubblewrap made (not a lock of the host's). */
static int allow_dev(const char *path)
{
	if (have_setattr)
		return setattr(AT_FDCWD, path, 0, 0, INIT_ATTR_NODEV) ? -errno : 0;
	return remount_flags(path, 0, MS_NODEV);
}

/* Bind src onto dst by path: /proc's parts only, a procfs of our own that
 * no program can change (every other bind is made from a descriptor:
 * bind_fd()). Without mount_setattr() only the top mount could be made
 * read-only, so then the bind is not recursive: the order of the
 * operations (init_mounts_apply) leaves nothing of ours below src by then,
 * and the kernel refuses it (EINVAL) where it would uncover a locked mount
 * of the host's: we fail closed. */
static int bind_path(const char *src, const char *dst, bool ro)
{
	if (mount(src, dst, NULL, MS_BIND | (have_setattr ? MS_REC : 0), NULL))
		return -errno;
	return ro ? set_ro(dst, true) : 0;
}

static int tmpfs(const char *path, unsigned long flags, const char *opts)
{
	return mount("tmpfs", path, "tmpfs", flags, opts) ? -errno : 0;
}

/* A mount point for `rel` inside our fresh tmpfs `root` (a descriptor:
 * nothing of the host's is on the way): the missing directories, then an
 * empty file or directory like the source. */
static int make_mountpoint(int root, const char *rel, bool dir)
{
	char buf[PATH_MAX];
	int fd;

	snprintf(buf, sizeof(buf), "%s", rel);
	for (char *s = buf; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdirat(root, buf, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (dir)
		return mkdirat(root, buf, 0755) && errno != EEXIST ? -errno : 0;
	fd = openat(root, buf, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0444);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The caller's terminal, kept under its name. COMMAND inherits it (fd 0, 1
 * or 2), and `tty`, ttyname(3) and ssh-style prompts name it: the kernel
 * reports the descriptor's path as the caller saw it (/dev/pts/N), and libc
 * then checks that this path inside is the very same inode. So the node
 * behind each of fd 0/1/2 that is a pty slave is found by fstat (its device
 * number gives N; nothing is taken from the environment), opened at
 * /dev/pts/N while the host's /dev is still visible, and kept only if it is
 * that inode (a terminal of another devpts instance, as in a container,
 * stays nameless, as before). No other host terminal becomes reachable. */
#define PTY_SLAVE_MAJOR 136 /* UNIX98_PTY_SLAVE_MAJOR; the minor is the index */
/* Reserving index N in the sandbox's devpts takes N+1 open ptmx; a
 * terminal numbered higher stays nameless. */
#define MAX_PTY_INDEX 1000
static struct caller_tty {
	int fd;        /* O_PATH, the host's node */
	unsigned idx;  /* N */
	int master;    /* our pty N in the sandbox's devpts, held: see reserve_index() */
} ttys[3];
static int nttys;

static void find_caller_ttys(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		struct stat st, at;
		char path[32];
		bool seen = false;
		int h;

		if (fstat(fd, &st) || !S_ISCHR(st.st_mode) || major(st.st_rdev) != PTY_SLAVE_MAJOR ||
		    minor(st.st_rdev) > MAX_PTY_INDEX)
			continue;
		for (int i = 0; i < nttys; i++)
			seen |= ttys[i].idx == minor(st.st_rdev);
		if (seen)
			continue;
		snprintf(path, sizeof(path), "/dev/pts/%u", minor(st.st_rdev));
		h = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (h < 0)
			continue;
		if (fstat(h, &at) || !S_ISCHR(at.st_mode) || at.st_dev != st.st_dev ||
		    at.st_ino != st.st_ino || at.st_rdev != st.st_rdev) {
			close(h);
			continue;
		}
		ttys[nttys++] = (struct caller_tty){ h, minor(st.st_rdev), -1 };
	}
}

/* Make /dev/pts/N exist in the sandbox's devpts so the caller's node can be
 * bound over it: a devpts holds only the ptys it allocated, lowest free
 * index first, so ptys are opened until one gets N; the lower ones are
 * closed again (COMMAND's own ptys reuse those numbers). The one numbered N
 * is kept open by pid 1 for the sandbox's life: closed, its entry would
 * vanish with our bind on it, and N would go to the next pty COMMAND opens.
 * 0, or -errno (the terminal then stays nameless). */
static int reserve_index(struct caller_tty *t)
{
	static int lower[MAX_PTY_INDEX];
	int nlower = 0, rc = -ERANGE;

	for (unsigned k = 0; k <= t->idx; k++) {
		unsigned got;
		int m = open("/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (m < 0) {
			rc = -errno;
			break;
		}
		if (ioctl(m, TIOCGPTN, &got)) {
			rc = -errno;
			close(m);
			break;
		}
		if (got == t->idx) {
			t->master = m;
			rc = 0;
			break;
		}
		if (got > t->idx || nlower == MAX_PTY_INDEX) {
			close(m); /* N is taken (cannot happen: ours is fresh) */
			break;
		}
		lower[nlower++] = m;
	}
	while (nlower)
		close(lower[--nlower]);
	return rc;
}

static int bind_caller_ttys(void)
{
	char src[64], dst[64];
	int rc = 0;

	for (int i = 0; i < nttys && !rc; i++) {
		if (reserve_index(&ttys[i]))
			continue;
		snprintf(dst, sizeof(dst), "/dev/pts/%u", ttys[i].idx);
		if (mount(fd_path(ttys[i].fd, src, sizeof(src)), dst, NULL, MS_BIND, NULL))
			rc = -errno;
		else
			rc = allow_dev(dst);
	}
	return rc;
}

static void close_caller_ttys(void)
{
	for (int i = 0; i < nttys; i++)
		if (ttys[i].fd >= 0) {
			close(ttys[i].fd);
			ttys[i].fd = -1;
		}
}

void init_mounts_close_held(void)
{
	for (int i = 0; i < nttys; i++)
		if (ttys[i].master >= 0) {
			close(ttys[i].master);
			ttys[i].master = -1;
		}
}

/* Like bubblewrap's --dev, from the host's nodes: a tmpfs can hold no
 * working device node in a user namespace, so each is a bind of the host's,
 * with nodev lifted on that bind alone. The host's /dev stays below,
 * read-only, nodev and covered, out of reach (COMMAND holds no capability
 * and can make no user namespace, so it cannot unmount anything). */
static int make_dev(const char **what)
{
	static const char *const nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };
	static const char *const links[][2] = {
		{ "/proc/self/fd", "/dev/fd" }, { "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" }, { "/proc/self/fd/2", "/dev/stderr" },
		{ "/proc/kcore", "/dev/core" }, { "pts/ptmx", "/dev/ptmx" },
	};
	int fds[sizeof(nodes) / sizeof(nodes[0])];
	char src[64], dst[64];
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		snprintf(src, sizeof(src), "/dev/%s", nodes[i]);
		fds[i] = open(src, O_PATH | O_CLOEXEC);
		if (fds[i] < 0 && i == 0) {
			*what = "open the host's /dev/null";
			return -errno;
		}
	}
	find_caller_ttys();
	*what = "mount /dev";
	if ((rc = tmpfs("/dev", MS_NOSUID | MS_NODEV, "mode=0755")))
		goto out;
	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		if (fds[i] < 0)
			continue; /* the host has none (a tty-less container) */
		snprintf(dst, sizeof(dst), "/dev/%s", nodes[i]);
		*what = "bind a device into /dev";
		if (mknod(dst, S_IFREG | 0666, 0)) {
			rc = -errno;
			goto out;
		}
		if (mount(fd_path(fds[i], src, sizeof(src)), dst, NULL, MS_BIND, NULL)) {
			rc = -errno;
			goto out;
		}
		if ((rc = allow_dev(dst)))
			goto out;
	}
	*what = "make /dev/shm and /dev/pts";
	if (mkdir("/dev/shm", 01777) || chmod("/dev/shm", 01777) || mkdir("/dev/pts", 0755)) {
		rc = -errno;
		goto out;
	}
	/* A new devpts instance: /dev/ptmx gives COMMAND ptys of its own
	 * (script, tmux, an agent's pty tool), numbered apart from the
	 * host's, and lists no host terminal; the host's devpts stays covered
	 * with the rest of its /dev. Only the caller's terminal is bound in. */
	*what = "mount /dev/pts";
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=620")) {
		rc = -errno;
		goto out;
	}
	*what = "bind the caller's terminal into /dev/pts";
	if ((rc = bind_caller_ttys()))
		goto out;
	*what = "make the /dev symlinks";
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlink(links[i][0], links[i][1])) {
			rc = -errno;
			goto out;
		}
out:
	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	close_caller_ttys();
	return rc;
}

/* Like bubblewrap's --proc: a procfs of the sandbox's pid namespace, with
 * the parts that reach the host's kernel settings read-only (for root,
 * whose uid is the host's, /proc/sys/kernel/core_pattern would otherwise be
 * writable: file modes, not capabilities, guard most of /proc/sys). */
static int make_proc(const char **what, const char **where)
{
	static const char *const ro[] = { "/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
					  "/proc/bus" };
	int rc;

	*what = "mount /proc";
	*where = "/proc";
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return -errno;
	*what = "write-protect part of /proc";
	for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		*where = ro[i];
		if (access(ro[i], F_OK))
			continue;
		if ((rc = bind_path(ro[i], ro[i], true)))
			return rc;
	}
	return 0;
}

/* A 0111 tmpfs over `path` (argv[at]) with the --unmask children that
 * follow it in argv bound back: each is opened (and checked) before the
 * mask covers it and bound from its descriptor onto a mount point made in
 * the tmpfs through the tmpfs's own descriptor. *consumed counts them. */
static int mask_dir_x(int at, const char *path, char *const *argv, int n, int *consumed,
		      const char **what, const char **where)
{
	int fds[MAX_UNMASK];
	const char *child[MAX_UNMASK];
	bool rw[MAX_UNMASK];
	char buf[64];
	int k = 0, rc = 0, dst = -1, m = -1;

	for (int i = 0; i < n; i++) {
		const char *c;
		enum op op = op_of(argv[at + 1 + i], &c);
		if (op != OP_UNMASK && op != OP_UNMASK_RW)
			break;
		*where = c;
		if (k == MAX_UNMASK) {
			*what = "too many re-allowed paths in one denied directory";
			rc = -E2BIG;
			goto out;
		}
		*what = "open a re-allowed path";
		fds[k] = open_planned(at + 1 + i, c, false, what);
		if (fds[k] < 0) {
			rc = fds[k];
			goto out;
		}
		child[k] = c;
		rw[k++] = op == OP_UNMASK_RW;
	}
	*consumed = k;
	*where = path;
	*what = "mask a denied directory";
	if ((dst = open_planned(at, path, false, what)) < 0) {
		rc = dst;
		goto out;
	}
	/* 0700 while we make the mount points: we hold no CAP_DAC_OVERRIDE. */
	if ((m = new_tmpfs("0700", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)) < 0) {
		rc = m;
		goto out;
	}
	if ((rc = attach(m, dst)))
		goto out;
	*what = "bind back a re-allowed path";
	for (int i = 0; i < k && !rc; i++) {
		struct stat st;
		*where = child[i];
		if (fstat(fds[i], &st))
			rc = -errno;
		else
			rc = make_mountpoint(m, child[i] + strlen(path) + 1, S_ISDIR(st.st_mode));
	}
	for (int i = 0; i < k && !rc; i++) {
		int t, mp;
		*where = child[i];
		mp = openat(m, child[i] + strlen(path) + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (mp < 0) {
			rc = -errno;
			break;
		}
		t = clone_tree(fds[i], have_setattr);
		rc = t < 0 ? t : 0;
		if (!rc && !rw[i] && have_setattr)
			rc = tree_flags(t, true, true);
		if (!rc)
			rc = attach(t, mp);
		if (!rc && !rw[i] && !have_setattr)
			rc = tree_flags(t, true, false);
		if (t >= 0)
			close(t);
		close(mp);
	}
	if (rc)
		goto out;
	*where = path;
	*what = "mask a denied directory";
	if (chmod(fd_path(m, buf, sizeof(buf)), 0111))
		rc = -errno;
	else if (have_setattr) /* not the writable children */
		rc = setattr(m, "", AT_EMPTY_PATH, INIT_ATTR_RDONLY, 0) ? -errno : 0;
	else
		rc = remount_flags(buf, MS_RDONLY, 0);
out:
	for (int i = 0; i < k; i++)
		close(fds[i]);
	if (dst >= 0)
		close(dst);
	if (m >= 0)
		close(m);
	return rc;
}

/* --ro-new: a stand-in (standin.h) or what appeared at its name instead.
 * Its directory is what the supervisor recorded (the name may not have
 * existed then); the name is opened in it without following a link. A
 * stand-in is a link: mounted onto itself, as a protected link is; anything
 * else there, bound read-only. */
static int protect_new(int i, const char *p, const char *state, const char **what)
{
	char dir[PATH_MAX];
	const char *name = strrchr(p, '/') + 1;
	struct stat st;
	int d, fd, rc;

	if (*state == CTL_NEW_SKIP)
		return 0; /* the supervisor could not make it: nor can COMMAND */
	snprintf(dir, sizeof(dir), "%.*s", name - p > 1 ? (int)(name - p - 1) : 1, p);
	if ((d = open_planned(i, dir, false, what)) < 0)
		return d;
	fd = openat(d, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	rc = fd < 0 ? -errno : 0;
	close(d);
	if (rc)
		return rc;
	if (fstat(fd, &st))
		rc = -errno;
	else
		rc = bind_fd(fd, fd, S_ISLNK(st.st_mode) ? 0 : 'r', !S_ISLNK(st.st_mode) &&
			     have_setattr);
	close(fd);
	return rc;
}

/* ---- the order
 *
 * Parents first. The supervisor lists the masks before the write-protects
 * (a protect of a directory keeps the masks below it), which is right only
 * while a bind carries what is mounted below its source, i.e. is recursive.
 * Without mount_setattr(2) (before Linux 5.12, or under an outer seccomp
 * filter that answers ENOSYS) a recursive bind could be made read-only at
 * its top only, so there binds are not recursive, and `--ro=DIR` applied
 * after `--mask-dir=DIR/secret` would show the secret again. So every
 * operation is applied after those on its parent directories (by depth;
 * equal depths in the supervisor's order): a bind then never has a mount of
 * ours below it to lose, and a mask below a protect lands on the read-only
 * bind. With mount_setattr the result is the same mounts as in the
 * supervisor's order. The writable roots, /dev and /proc stay first, as
 * given: everything else lies on them (a writable root applied after a
 * protect above it would be writable inside it). */
struct unit {
	int first, count; /* argv[first..first+count): one op, or a --mask-dir-x and its --unmask ops */
	unsigned base;    /* 0: --rw, --dev, --proc; 1: the rest */
	unsigned depth;   /* components in the path */
	int state;        /* --ro-new: its index in `states`; else -1 */
};
#define MAX_UNITS 16384
static struct unit units[MAX_UNITS];

static int cmp_unit(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	if (x->base == 1 && x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first; /* stable */
}

static unsigned depth_of(const char *p)
{
	unsigned d = 0;

	for (; *p; p++)
		d += *p == '/';
	return d;
}

static int make_units(char *const *argv, int n, int *nunits)
{
	int k = 0, nnew = 0;

	for (int i = 0; i < n; i++) {
		const char *p;
		enum op op = op_of(argv[i], &p);
		if (op == OP_NONE || op == OP_UNMASK || op == OP_UNMASK_RW)
			continue; /* not ours; or an --unmask, taken with its mask */
		if (k == MAX_UNITS)
			return -E2BIG;
		units[k] = (struct unit){ i, 1, op == OP_RW || op == OP_DEV || op == OP_PROC ? 0 : 1,
					  depth_of(p), op == OP_RO_NEW ? nnew++ : -1 };
		while (op == OP_MASK_DIR_X && i + units[k].count < n) {
			enum op u = op_of(argv[i + units[k].count], &p);
			if (u != OP_UNMASK && u != OP_UNMASK_RW)
				break;
			units[k].count++;
		}
		k++;
	}
	qsort(units, (size_t)k, sizeof(units[0]), cmp_unit);
	*nunits = k;
	return 0;
}

/* Without mount_setattr: would a (non-recursive) bind over `p` leave behind
 * a mount we made before, units[0..done)? The order above rules that out
 * but for one case (a protect above a path re-allowed inside a mask, or of
 * /dev or /proc themselves), which is refused rather than changed: a
 * writable root below only narrows (it shows read-only), so it does not
 * count. */
static bool hides_ours(char *const *argv, int done, const char *p)
{
	for (int u = 0; u < done; u++) {
		for (int j = units[u].first; j < units[u].first + units[u].count; j++) {
			const char *q;
			enum op op = op_of(argv[j], &q);
			if (op == OP_RW)
				continue;
			if (below(q, p))
				return true;
			/* the same path, with mounts of ours below it */
			if (!strcmp(q, p) && (op == OP_DEV || op == OP_PROC ||
					      (op == OP_MASK_DIR_X && units[u].count > 1)))
				return true;
		}
	}
	return false;
}

/* One operation on one path, from the descriptor open_planned() gives. */
static int apply_one(int i, enum op op, const char *p, const char *state,
		     const char **what)
{
	int fd, rc = 0;

	if (op == OP_RO_NEW)
		return protect_new(i, p, state, what);
	fd = open_planned(i, p, op == OP_RO_LINK, what);
	if (fd < 0)
		return fd;
	switch (op) {
	case OP_BOUND:
		break; /* bound by bubblewrap: checked only */
	case OP_RW:
		rc = bind_fd(fd, fd, 'w', true);
		break;
	case OP_RW_IN:
		/* a writable hole in a protect above it, applied after it (by
		 * depth): the session directory in sbx's read-only state
		 * directory */
		rc = bind_fd(fd, fd, 'w', have_setattr);
		break;
	case OP_PIN:
		/* a directory on the way to a write-protect: as a mount point
		 * it cannot be renamed, which would take the protected path
		 * away from its name */
		rc = bind_fd(fd, fd, 0, true);
		break;
	case OP_RO_LINK:
		/* mounted onto itself: it still leads where it did, but
		 * cannot be removed or replaced */
		rc = bind_fd(fd, fd, 0, false);
		break;
	case OP_RO:
		rc = bind_fd(fd, fd, 'r', have_setattr); /* with the masks below it */
		break;
	case OP_MASK_FILE: {
		/* /dev/null is ours (the fresh /dev, made first) */
		int null = open("/dev/null", O_PATH | O_NOFOLLOW | O_CLOEXEC);
		rc = null < 0 ? -errno : bind_fd(null, fd, 'r', false);
		if (null >= 0)
			close(null);
		break;
	}
	case OP_MASK_DIR: {
		int m = new_tmpfs("0000", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
				  MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
		rc = m < 0 ? m : attach(m, fd);
		if (m >= 0)
			close(m);
		break;
	}
	default:
		rc = -EPROTO;
	}
	close(fd);
	return rc;
}

static const char *op_what(enum op op)
{
	switch (op) {
	case OP_BOUND: return "check a writable path bound by bubblewrap";
	case OP_RW: return "bind a writable path";
	case OP_RW_IN: return "bind a writable path inside a protected one";
	case OP_PIN: return "pin a directory";
	case OP_RO_LINK: return "write-protect a link";
	case OP_RO_NEW: return "write-protect a placeholder";
	case OP_RO: return "write-protect";
	case OP_MASK_FILE: return "mask a denied file";
	case OP_MASK_DIR: case OP_MASK_DIR_X: return "mask a denied directory";
	default: return "mount";
	}
}

/* Number the path operations in argv order (the supervisor's identities
 * come in that order) and check there is one identity each. */
static int number_ops(char *const *argv, int n, bool need_ids)
{
	unsigned k = 0;

	if (n > MAX_IDS)
		return -E2BIG;
	for (int i = 0; i < n; i++) {
		const char *p;
		enum op op = op_of(argv[i], &p);
		if (op != OP_NONE && op != OP_DEV && op != OP_PROC)
			ordinal[i] = k++;
	}
	check_ids = need_ids || nids;
	return check_ids && k != nids ? -EPROTO : 0;
}

int init_mounts_apply(char *const *argv, int n, const char *states, bool need_ids,
		      const char **what, const char **path)
{
	char cwd[PATH_MAX];
	int rc = 0, nunits;

	*path = "";
	*what = "tell the working directory";
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	have_setattr = !(syscall(SYS_mount_setattr, -1, NULL, 0, NULL, 0) && errno == ENOSYS);
	*what = "the supervisor's identities of the paths do not match the operations";
	if ((rc = number_ops(argv, n, need_ids)))
		return rc;
	*what = "too many mount operations";
	if ((rc = make_units(argv, n, &nunits)))
		return rc;

	for (int u = 0; u < nunits && !rc; u++) {
		const char *p;
		int i = units[u].first, used = 0;
		enum op op = op_of(argv[i], &p);

		switch (op) {
		case OP_NONE:
		case OP_UNMASK: /* handled with their mask */
		case OP_UNMASK_RW:
			continue;
		case OP_DEV:
			*path = p;
			rc = make_dev(what);
			break;
		case OP_PROC:
			rc = make_proc(what, path);
			break;
		case OP_MASK_DIR_X:
			rc = mask_dir_x(i, p, argv, units[u].count - 1, &used, what, path);
			if (!rc && used != units[u].count - 1)
				rc = -EPROTO; /* cannot be: the same ops counted twice */
			break;
		case OP_RO:
			*path = p;
			*what = "write-protect over a mount below it, without mount_setattr "
				"(Linux 5.12)";
			if (!have_setattr && hides_ours(argv, u, p)) {
				rc = -ENOSYS;
				break;
			}
			/* fall through */
		default:
			*path = p;
			*what = op_what(op);
			if (op == OP_RO_NEW && (!states || !states[units[u].state])) {
				rc = -EPROTO; /* no state for it: fail closed */
				break;
			}
			rc = apply_one(i, op, p, op == OP_RO_NEW ? &states[units[u].state] : NULL,
				       what);
			break;
		}
	}
	if (rc)
		return rc;
	/* Our working directory may now be covered (a bind over the
	 * workspace's parent): enter it again, as bubblewrap's --chdir did,
	 * through no link swapped in meanwhile. */
	*path = cwd;
	*what = "enter the working directory (a symlink is now on the way?)";
	int fd = pathwalk_open(cwd, false);
	if (fd < 0)
		return fd;
	rc = fchdir(fd) ? -errno : 0;
	close(fd);
	return rc;
}

/* ---- capabilities */

int init_caps_drop_all(const char **what)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int last = -1;

	*what = "clear ambient capabilities";
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		return -errno;
	*what = "drop the capability bounding set";
	for (int c = 0; c < 64; c++) {
		/* dropping one not held is no error: no need to read first */
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0)) {
			if (errno == EINVAL)
				break; /* past the last capability this kernel knows */
			return -errno;
		}
		last = c;
	}
	*what = "drop capabilities";
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d))
		return -errno;

	/* Fail closed: read it all back. */
	*what = "capabilities left after the drop";
	if (last < 0)
		return -EIO;
	if (syscall(SYS_capget, &h, d))
		return -errno;
	for (int i = 0; i < 2; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return -EPERM;
	/* (the ambient set needs no check: the kernel keeps it within
	 * permitted and inheritable, both empty now) */
	for (int c = 0; c <= last; c++)
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) != 0)
			return -EPERM;
	return 0;
}
