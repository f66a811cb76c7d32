/* backend/linux/landlock.c: the nested mode's Landlock ruleset (landlock.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend/linux/landlock.h"
#include "common/pathwalk.h"
#include "policy/policy.h"
#include "common/msg.h"

/* Debian 12's linux/landlock.h stops at ABI 2; the kernel's values, under
 * names of our own so a newer header does not clash. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

#define FS_EXECUTE (1ull << 0)
#define FS_WRITE_FILE (1ull << 1)
#define FS_READ_FILE (1ull << 2)
#define FS_READ_DIR (1ull << 3)
#define FS_REMOVE_DIR (1ull << 4)
#define FS_REMOVE_FILE (1ull << 5)
#define FS_MAKE_CHAR (1ull << 6)
#define FS_MAKE_DIR (1ull << 7)
#define FS_MAKE_REG (1ull << 8)
#define FS_MAKE_SOCK (1ull << 9)
#define FS_MAKE_FIFO (1ull << 10)
#define FS_MAKE_BLOCK (1ull << 11)
#define FS_MAKE_SYM (1ull << 12)
#define FS_REFER (1ull << 13)    /* ABI 2 */
#define FS_TRUNCATE (1ull << 14) /* ABI 3 */
#define FS_IOCTL_DEV (1ull << 15) /* ABI 5 */
#define NET_BIND_TCP (1ull << 0) /* ABI 4 */
#define NET_CONNECT_TCP (1ull << 1)
#define SCOPE_ABSTRACT_UNIX (1ull << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ull << 1)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port {
	uint64_t allowed_access;
	uint64_t port;
};

/* What only a directory can be granted (the kernel refuses them on a file). */
#define FS_DIR_ONLY (FS_READ_DIR | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | \
		     FS_MAKE_DIR | FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | \
		     FS_MAKE_BLOCK | FS_MAKE_SYM | FS_REFER)

/* ---- the spec, from the plan */

static int add_unique(struct strv *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], path))
			return 0;
	return strv_add(s, path);
}

static const char *after(const char *arg, const char *op)
{
	size_t n = strlen(op);

	return strncmp(arg, op, n) ? NULL : arg + n;
}

/* The device nodes a program uses whatever it does (sbx-init's fresh /dev
 * binds the same ones), and POSIX shared memory: the only entries of /dev
 * read or written in the nested mode (landlock_spec_dev). */
static const char *const devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
	"/dev/ptmx", "/dev/shm",
};

int landlock_spec_from_plan(const struct plan *pl, struct landlock_spec *s)
{
	static const char *const deny_ops[] = { "--mask-file=", "--mask-dir=", "--mask-dir-x=" };
	static const char *const protect_ops[] = { "--ro=", "--ro-new=", "--ro-link=" };
	static const char *const root_ops[] = { "--rw=", "--rw-in=", "--bound=", "--unmask-rw=" };
	int rc = 0;

	memset(s, 0, sizeof(*s));
	/* bubblewrap's part: its private /tmp is the host's here; its
	 * writable binds (roots under /tmp, and `/` itself) */
	for (size_t i = 1; !rc && i + 1 < pl->init_at; i++) {
		if (!strcmp(pl->argv.v[i], "--tmpfs") && !strcmp(pl->argv.v[i + 1], "/tmp"))
			rc = add_unique(&s->write_roots, "/tmp");
		else if (!strcmp(pl->argv.v[i], "--bind") && i + 2 < pl->init_at)
			rc = add_unique(&s->write_roots, pl->argv.v[i + 2]);
	}
	for (size_t i = pl->init_at + 1; !rc && i + 1 < pl->cmd_at; i++) {
		const char *a = pl->argv.v[i], *p;
		for (size_t k = 0; !rc && k < 3; k++) {
			if ((p = after(a, deny_ops[k])))
				rc = add_unique(&s->read_deny, p);
			else if ((p = after(a, protect_ops[k])))
				rc = add_unique(&s->write_deny, p);
		}
		for (size_t k = 0; !rc && k < 4; k++)
			if ((p = after(a, root_ops[k])))
				rc = add_unique(&s->write_roots, p);
		if (!rc && ((p = after(a, "--unmask=")) || (p = after(a, "--unmask-rw="))))
			rc = add_unique(&s->read_allow, p);
	}
	if (rc)
		landlock_spec_free(s);
	return rc;
}

/* Every entry below `dir` that is neither one of `keep` nor on the way
 * to one becomes a hole of both reads and writes; the way is listed in
 * turn. Links are left alone (no rule reaches what a link leads to
 * through it). */
static int dev_holes(struct landlock_spec *s, const char *dir, char *const *keep, size_t nkeep)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!rc && (errno = 0, e = readdir(d))) {
		char child[PATH_MAX];
		bool kept = false, way = false;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || e->d_type == DT_LNK)
			continue;
		if (snprintf(child, sizeof(child), "%s/%s", dir, e->d_name) >= (int)sizeof(child)) {
			rc = -ENAMETOOLONG;
			break;
		}
		for (size_t i = 0; i < nkeep; i++) {
			kept |= !strcmp(keep[i], child);
			way |= sbx_path_below(keep[i], child);
		}
		if (way)
			rc = dev_holes(s, child, keep, nkeep);
		else if (!kept)
			rc = add_unique(&s->read_deny, child);
	}
	if (!rc && errno)
		rc = -errno;
	closedir(d);
	return rc;
}

int landlock_spec_dev(struct landlock_spec *s, const char *tty)
{
	struct strv keep = { 0 };
	char real[PATH_MAX];
	int rc = 0;

	for (size_t i = 0; !rc && i <= sizeof(devices) / sizeof(*devices); i++) {
		const char *d = i < sizeof(devices) / sizeof(*devices) ? devices[i] : tty;
		/* where it really is (/dev/ptmx a link to pts/ptmx in a
		 * container); one the host lacks is not granted */
		if (!d || !*d || !realpath(d, real) || !sbx_path_under(real, "/dev"))
			continue;
		rc = add_unique(&keep, real);
		if (!rc)
			rc = add_unique(&s->write_roots, real);
	}
	if (!rc)
		rc = dev_holes(s, "/dev", keep.v, keep.n);
	strv_free(&keep);
	return rc;
}

int landlock_spec_port(struct landlock_spec *s, unsigned port)
{
	for (size_t i = 0; i < s->nports; i++)
		if (s->ports[i] == port)
			return 0;
	if (s->nports == LANDLOCK_PORTS_MAX)
		return -E2BIG;
	s->ports[s->nports++] = port;
	return 0;
}

void landlock_spec_free(struct landlock_spec *s)
{
	strv_free(&s->read_deny);
	strv_free(&s->read_allow);
	strv_free(&s->write_roots);
	strv_free(&s->write_deny);
}

/* ---- the expansion */

struct expand {
	char *const *holes;
	size_t nholes;
	landlock_emit_fn emit;
	void *ctx;
};

/* The directory `fd` at `path` is on the way to a hole: itself "on the
 * way", every entry whole but the holes, the directories on the way to
 * one expanded in turn. */
static int expand_dir(const struct expand *x, int fd, const char *path)
{
	int rc = x->emit(x->ctx, fd, path, true, false);
	int dfd;
	DIR *d;
	struct dirent *e;

	if (rc)
		return rc;
	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		rc = -errno;
		close(dfd);
		return rc;
	}
	while (!rc && (errno = 0, e = readdir(d))) {
		char child[PATH_MAX];
		bool hole = false, way = false;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(child, sizeof(child), "%s%s%s", path, strcmp(path, "/") ? "/" : "",
			     e->d_name) >= (int)sizeof(child)) {
			rc = -ENAMETOOLONG;
			break;
		}
		for (size_t i = 0; i < x->nholes && !hole; i++) {
			hole = !strcmp(x->holes[i], child);
			way |= sbx_path_below(x->holes[i], child);
		}
		if (hole || (e->d_type == DT_LNK && !way))
			continue; /* a link: where it leads has its own rule */
		int cfd = openat(dfd, e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			if (errno == ENOENT)
				continue; /* gone meanwhile: nothing to grant */
			rc = -errno;
			break;
		}
		/* The entry's type as listed saves a stat per entry (a rule per
		 * entry is what the start-up pays for). It may have been
		 * swapped since: the descriptor is of whatever is there now,
		 * never followed (O_NOFOLLOW), so a rule lands on that object;
		 * a directory's rights on what is no longer one are refused by
		 * the kernel (the run stops), a file's on a directory grant
		 * less. The way to a hole is stat()ed: it is walked. */
		if (!way && e->d_type != DT_UNKNOWN) {
			st.st_mode = e->d_type == DT_DIR ? S_IFDIR : S_IFREG;
		} else if (fstat(cfd, &st)) {
			rc = -errno;
			close(cfd);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			/* no rule: where it leads has its own. On the way to a
			 * hole (a real path) it was swapped in meanwhile. */
			rc = way ? -ELOOP : 0;
		} else if (way && S_ISDIR(st.st_mode)) {
			rc = expand_dir(x, cfd, child);
		} else if (!way) {
			rc = x->emit(x->ctx, cfd, child, S_ISDIR(st.st_mode), true);
		} /* a hole below a file cannot be there: nothing to grant */
		close(cfd);
	}
	if (!rc && errno)
		rc = -errno;
	closedir(d);
	return rc;
}

int landlock_expand(const char *root, char *const *holes, size_t nholes,
		    landlock_emit_fn emit, void *ctx)
{
	struct expand x = { holes, nholes, emit, ctx };
	bool way = false;
	struct stat st;
	int fd, rc;

	for (size_t i = 0; i < nholes; i++) {
		if (!strcmp(holes[i], root))
			return 0;
		way |= sbx_path_below(holes[i], root);
	}
	fd = pathwalk_open(root, false);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st))
		rc = -errno;
	else if (!way)
		rc = emit(ctx, fd, root, S_ISDIR(st.st_mode), true);
	else if (!S_ISDIR(st.st_mode))
		rc = 0;
	else
		rc = expand_dir(&x, fd, root);
	close(fd);
	return rc;
}

/* ---- the ruleset */

struct build {
	int ruleset;
	uint64_t whole, way; /* what each kind of entry gets */
	const char *failed;  /* the path add_rule refused */
	unsigned rules;
};

static int add_path(struct build *b, int fd, uint64_t access)
{
	struct ll_path_beneath pb = { .allowed_access = access, .parent_fd = fd };

	if (!access)
		return 0;
	if (syscall(SYS_landlock_add_rule, b->ruleset, LL_RULE_PATH_BENEATH, &pb, 0))
		return -errno;
	b->rules++;
	return 0;
}

static int emit_rule(void *ctx, int fd, const char *path, bool is_dir, bool whole)
{
	struct build *b = ctx;
	uint64_t a = whole ? b->whole : b->way;
	int rc = add_path(b, fd, is_dir ? a : a & ~FS_DIR_ONLY);

	if (rc)
		b->failed = path;
	return rc;
}

/* The holes of the write root `root`: every protect and mask below it. */
static size_t write_holes(const struct landlock_spec *s, const char *root, char **out)
{
	size_t n = 0;

	for (size_t i = 0; i < s->write_deny.n; i++)
		if (sbx_path_under(s->write_deny.v[i], root))
			out[n++] = s->write_deny.v[i];
	for (size_t i = 0; i < s->read_deny.n; i++)
		if (sbx_path_under(s->read_deny.v[i], root))
			out[n++] = s->read_deny.v[i];
	return n;
}

/* A write root inside a mask stays unwritten, unless it is the re-allowed
 * child itself (--unmask-rw, also in read_allow). */
static bool root_hidden(const struct landlock_spec *s, const char *root)
{
	for (size_t i = 0; i < s->read_allow.n; i++)
		if (sbx_path_under(root, s->read_allow.v[i]))
			return false;
	for (size_t i = 0; i < s->read_deny.n; i++)
		if (sbx_path_under(root, s->read_deny.v[i]))
			return true;
	return false;
}

int landlock_ruleset(const struct landlock_spec *s, int abi, int *out, char *why, size_t whysz)
{
	uint64_t rd = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
	uint64_t wr = FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR |
		      FS_MAKE_DIR | FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK |
		      FS_MAKE_SYM;
	struct ll_ruleset_attr attr = { 0 };
	struct build b = { .ruleset = -1 };
	size_t attr_size = sizeof(attr);
	char **holes = NULL;
	int rc = 0;

	*out = -1;
	snprintf(why, whysz, "Landlock");
	if (abi < 1)
		return -EOPNOTSUPP;
	if (abi >= 2)
		wr |= FS_REFER;
	if (abi >= 3)
		wr |= FS_TRUNCATE;
	if (abi >= 5)
		rd |= FS_IOCTL_DEV; /* ioctls on devices wherever reads go */
	attr.handled_access_fs = rd | wr;
	if (abi >= 4) {
		attr.handled_access_net = (s->net_connect ? NET_CONNECT_TCP : 0) |
					  (s->net_bind ? NET_BIND_TCP : 0);
	} else {
		attr_size = sizeof(uint64_t);
		if (s->net_connect || s->net_bind) {
			snprintf(why, whysz, "Landlock ABI %d has no TCP rules (4 is needed)", abi);
			return -EOPNOTSUPP;
		}
	}
	if (abi >= 6)
		attr.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL;
	else if (abi >= 4)
		attr_size = 2 * sizeof(uint64_t);
	b.ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (b.ruleset < 0 || fcntl(b.ruleset, F_SETFD, FD_CLOEXEC)) {
		rc = -errno;
		snprintf(why, whysz, "creating the Landlock ruleset");
		if (b.ruleset >= 0)
			close(b.ruleset);
		return rc;
	}
	/* reads: everywhere but the masks (the directories on the way may
	 * list names), and again where an unmask says */
	b.whole = rd;
	b.way = FS_READ_DIR;
	rc = landlock_expand("/", s->read_deny.v, s->read_deny.n, emit_rule, &b);
	for (size_t i = 0; !rc && i < s->read_allow.n; i++)
		rc = landlock_expand(s->read_allow.v[i], NULL, 0, emit_rule, &b);
	/* writes: each root but its protects and masks (the directories on
	 * the way get nothing: a right there would hold below them) */
	holes = calloc(s->write_deny.n + s->read_deny.n + 1, sizeof(*holes));
	if (!rc && !holes)
		rc = -ENOMEM;
	b.whole = wr;
	b.way = 0;
	for (size_t i = 0; !rc && i < s->write_roots.n; i++) {
		const char *root = s->write_roots.v[i];
		if (root_hidden(s, root))
			continue;
		rc = landlock_expand(root, holes, write_holes(s, root, holes), emit_rule, &b);
	}
	for (size_t i = 0; !rc && i < s->nports; i++) {
		struct ll_net_port np = { .allowed_access = NET_CONNECT_TCP, .port = s->ports[i] };
		if (syscall(SYS_landlock_add_rule, b.ruleset, LL_RULE_NET_PORT, &np, 0)) {
			rc = -errno;
			snprintf(why, whysz, "the Landlock rule for TCP port %u", s->ports[i]);
		}
	}
	free(holes);
	if (rc && b.failed)
		snprintf(why, whysz, "the Landlock rule for %s", b.failed);
	else if (rc && !strcmp(why, "Landlock"))
		snprintf(why, whysz, "listing the directories for the Landlock rules");
	if (rc) {
		close(b.ruleset);
		return rc;
	}
	dmsg("Landlock ABI %d: %u rules", abi, b.rules);
	*out = b.ruleset;
	return 0;
}

int landlock_restrict(int ruleset_fd)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (syscall(SYS_landlock_restrict_self, ruleset_fd, 0))
		return -errno;
	return 0;
}
