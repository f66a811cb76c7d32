/* preload/walkrec.c: the walk's record (walkrec.h says why).
 *
 * The file: a header of 40 bytes (magic, format version, the key's length,
 * the whole size, a checksum of everything with the checksum's own field
 * as zero, the number of directories), the key (the workspace and every
 * rule the walk's decisions depend on, as text), then one entry per
 * directory: device, inode, ctime (s, ns), depth, flags, the lengths of
 * its path and of its list, the path (NUL-terminated), then the list:
 * type, length, name (NUL-terminated). Native byte order: a record is read
 * by the machine that wrote it (a foreign one fails the checks). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/statfs.h>
#endif
#include <sys/uio.h>
#include <unistd.h>

#include "common/hostfs.h"
#include "common/io.h"

#ifdef __APPLE__
#define st_ctim st_ctimespec /* (POSIX's name; Darwin's struct stat) */
#endif
#include "policy/policy.h"
#include "preload/preload.h"
#include "preload/walkrec.h"

static const char magic[8] = "SBXWALK";

#define HDR_LEN 40
/* a directory: dev 8, ino 8, ctime s 8, ns 4, depth 2, flags 1, 0, the
 * path's length 2, 0 0, the list's length 4; the path; the list */
#define DIR_LEN 40
#define ENT_LEN 3   /* type 1, name length 2 */

struct walkrec {
	char path[PATH_MAX];   /* <state>/walk/<name> */
	char name[24];
	char state_dir[PATH_MAX];
	char *key;
	size_t keylen;
	struct timespec now;
	bool disabled;
	/* the record read: its directories by path */
	unsigned char *buf;
	size_t len, nold;
	uint32_t *index;        /* offset + 1 of a directory, 0 = free */
	size_t icap;
	/* the record made */
	unsigned char *out;
	size_t outlen, outcap, nnew, kept, read, fresh;
	/* the directories of the record read that were found unchanged: kept
	 * as they are, copied only when the record is saved */
	uint32_t *keptv;
	size_t nkept, keptcap, keptbytes;
	size_t begin_at;       /* the directory being read, SIZE_MAX: left out */
	bool full;
	/* devices whose ctime is the kernel's own */
	struct {
		uint64_t dev;
		bool ok;
	} fs[16];
	unsigned nfs;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}
#define FNV_START 0xcbf29ce484222325ull

/* The checksum: damage, not tampering (the file's place keeps the sandbox
 * and other users from writing it). Eight bytes at a time, mixed. */
static uint64_t checksum(const unsigned char *hdr, const unsigned char *key, size_t keylen,
			 const unsigned char *body, size_t bodylen)
{
	unsigned char h0[HDR_LEN];
	const unsigned char *part[3] = { h0, key, body };
	size_t plen[3] = { HDR_LEN, keylen, bodylen };
	uint64_t h = FNV_START ^ (keylen + bodylen);

	memcpy(h0, hdr, HDR_LEN);
	memset(h0 + 24, 0, 8);
	for (int k = 0; k < 3; k++) {
		size_t i = 0;
		for (; i + 8 <= plen[k]; i += 8) {
			uint64_t w;
			memcpy(&w, part[k] + i, 8);
			h = (h ^ w) * 0x9e3779b97f4a7c15ull;
			h ^= h >> 29;
		}
		h = fnv(h, part[k] + i, plen[k] - i);
	}
	return h;
}

static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }

/* ---- the key: what the walk's decisions about an entry depend on */

static int key_add(char **k, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int key_add(char **k, size_t *len, size_t *cap, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(*k ? *k + *len : NULL, *k ? *cap - *len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -ENOMEM;
		if (*k && *len + (size_t)n < *cap) {
			*len += (size_t)n;
			return 0;
		}
		size_t nc = (*cap ? *cap * 2 : 4096) + (size_t)n;
		char *nk = realloc(*k, nc);
		if (!nk)
			return -ENOMEM;
		*k = nk;
		*cap = nc;
	}
}

/* The path rules in their order (first_match), HOME and the workspace:
 * everything policy_check_path() decides a path by. The session
 * directory of `isolation = strict` is new each run: written as a token
 * (it decides only paths inside it, and nothing in sbx's state directory
 * is recorded). */
static int make_key(const struct policy *p, const char *walk, char **out, size_t *outlen)
{
	static const enum sbx_rule_kind kinds[] = {
		SBX_RULE_DENY_READ, SBX_RULE_ALLOW_READ, SBX_RULE_ALLOW_WRITE,
		SBX_RULE_DENY_WRITE, SBX_RULE_MANDATORY, SBX_RULE_HOME_KEPT,
	};
	const char *sess = policy_session_dir(p), *ws = policy_workspace(p);
	char *k = NULL;
	size_t len = 0, cap = 0;
	int rc = key_add(&k, &len, &cap, "sbx walk %u: %s\nworkspace %zu:%s\nhome %zu:%s\n",
			 WALKREC_VERSION, walk, strlen(ws), ws, strlen(policy_home(p)),
			 policy_home(p));

	for (size_t i = 0; !rc && i < sizeof(kinds) / sizeof(*kinds); i++) {
		size_t n;
		const struct sbx_rule *const *r = policy_rules(p, kinds[i], &n);
		for (size_t j = 0; !rc && j < n; j++) {
			const char *pat = r[j]->pattern, *tok = "";
			if (sess && sess[1] && sbx_path_under(pat, sess)) {
				pat += strlen(sess);
				tok = "<session>";
			}
			rc = key_add(&k, &len, &cap, "%d %d %d %d %d %zu %zu:%s%s\n", (int)kinds[i],
				     (int)r[j]->origin, (int)r[j]->pat, r[j]->is_dir, r[j]->agent,
				     r[j]->prefix_len, strlen(tok) + strlen(pat), tok, pat);
		}
	}
	if (rc) {
		free(k);
		return rc;
	}
	*out = k;
	*outlen = len;
	return 0;
}

/* ---- reading */

static bool name_ok(const unsigned char *s, size_t len, bool path)
{
	if (len < 2 || s[len - 1] || memchr(s, '\0', len - 1))
		return false;
	if (path)
		return s[0] == '/';
	return !memchr(s, '/', len - 1) && strcmp((const char *)s, ".") &&
	       strcmp((const char *)s, "..");
}

static bool type_ok(unsigned t)
{
	t &= ~(unsigned)WALKREC_TYPE_CALLER;
	return t == DT_DIR || t == DT_REG || t == DT_LNK || t == DT_UNKNOWN || t == DT_FIFO ||
	       t == DT_SOCK || t == DT_CHR || t == DT_BLK;
}

static size_t slot_of(const struct walkrec *r, const char *path)
{
	return (size_t)fnv(FNV_START, path, strlen(path)) & (r->icap - 1);
}

/* Every directory of the body checked and indexed; false for anything
 * out of place (the record is then not used at all). */
static bool parse(struct walkrec *r, size_t at, uint32_t ndirs)
{
	size_t icap = 16;

	if (ndirs > (r->len - at) / DIR_LEN)
		return false;
	while (icap < (size_t)ndirs * 2)
		icap *= 2;
	if (!(r->index = calloc(icap, sizeof(*r->index))))
		return false;
	r->icap = icap;
	for (uint32_t i = 0; i < ndirs; i++) {
		const unsigned char *d = r->buf + at;
		if (r->len - at < DIR_LEN)
			return false;
		size_t plen = rd16(d + 32), elen = rd32(d + 36);
		if (r->len - at - DIR_LEN < plen || r->len - at - DIR_LEN - plen < elen ||
		    !name_ok(d + DIR_LEN, plen, true) || (d[30] & ~3u))
			return false;
		for (size_t e = 0; e < elen;) {
			const unsigned char *x = d + DIR_LEN + plen + e;
			if (elen - e < ENT_LEN)
				return false;
			size_t nl = rd16(x + 1);
			if (elen - e - ENT_LEN < nl || !type_ok(x[0]) || !name_ok(x + ENT_LEN, nl, false))
				return false;
			e += ENT_LEN + nl;
		}
		if (at + 1 > UINT32_MAX)
			return false;
		size_t s = slot_of(r, (const char *)d + DIR_LEN);
		for (; r->index[s]; s = (s + 1) & (icap - 1))
			if (!strcmp((const char *)r->buf + r->index[s] - 1 + DIR_LEN,
				    (const char *)d + DIR_LEN))
				return false; /* twice: not ours */
		r->index[s] = (uint32_t)(at + 1);
		at += DIR_LEN + plen + elen;
	}
	return at == r->len;
}

static int start(const struct policy *p, const char *walk, const struct timespec *now,
		 struct walkrec **out)
{
	struct walkrec *r = calloc(1, sizeof(*r));

	if (!r || make_key(p, walk, &r->key, &r->keylen)) {
		free(r);
		return -ENOMEM;
	}
	r->now = *now;
	r->begin_at = SIZE_MAX;
	const char *ws = policy_workspace(p);
	snprintf(r->name, sizeof(r->name), "%016llx",
		 (unsigned long long)fnv(FNV_START, ws, strlen(ws)));
	*out = r;
	return 0;
}

/* The buffer (taken over) as the record read, or why not. */
static void take(struct walkrec *r, unsigned char *buf, size_t len, char *why, size_t whysz)
{
	const char *bad = NULL;

	r->buf = buf;
	r->len = len;
	if (len < HDR_LEN || memcmp(buf, magic, sizeof(magic)))
		bad = "not a record of sbx's";
	else if (rd32(buf + 8) != WALKREC_VERSION)
		bad = "a record of another format";
	else if (rd64(buf + 16) != len)
		bad = "cut short or grown";
	else if (rd32(buf + 12) > len - HDR_LEN ||
		 rd64(buf + 24) != checksum(buf, buf + HDR_LEN, rd32(buf + 12),
					     buf + HDR_LEN + rd32(buf + 12),
					     len - HDR_LEN - rd32(buf + 12)))
		bad = "damaged (its checksum differs)";
	else if (rd32(buf + 12) != r->keylen || memcmp(buf + HDR_LEN, r->key, r->keylen))
		bad = "made for another workspace or policy";
	else if (!parse(r, HDR_LEN + r->keylen, rd32(buf + 32)))
		bad = "damaged (a directory's entry is out of place)";
	if (bad) {
		snprintf(why, whysz, "%s", bad);
		free(r->index);
		r->index = NULL;
		r->icap = 0;
		free(buf);
		r->buf = NULL;
		r->len = 0;
		return;
	}
	r->nold = rd32(buf + 32);
}

int walkrec_open_buf(const void *buf, size_t len, const struct policy *p, const char *walk,
		     const struct timespec *now, struct walkrec **out, char *why, size_t whysz)
{
	unsigned char *copy = malloc(len ? len : 1);
	int rc;

	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, buf, len);
	if ((rc = start(p, walk, now, out))) {
		free(copy);
		return rc;
	}
	why[0] = '\0';
	take(*out, copy, len, why, whysz);
	return 0;
}

int walkrec_open(int state_fd, const char *state_dir, const struct policy *p, const char *walk,
		 const struct timespec *now, struct walkrec **out, char *why, size_t whysz)
{
	struct hostfs_err err;
	struct walkrec *r;
	unsigned char *buf = NULL;
	struct stat st;
	size_t len = 0;
	int dfd, fd = -1, rc = start(p, walk, now, out);

	if (rc)
		return rc;
	r = *out;
	snprintf(why, whysz, "no record yet");
	snprintf(r->state_dir, sizeof(r->state_dir), "%s", state_dir);
	if (snprintf(r->path, sizeof(r->path), "%s/%s/%s", state_dir, WALKREC_DIR, r->name) >=
	    (int)sizeof(r->path)) {
		snprintf(why, whysz, "its path is too long");
		r->disabled = true;
		return 0;
	}
	dfd = hostfs_dir_openat(state_fd, state_dir, WALKREC_DIR, HOSTFS_MINE, &err);
	if (dfd < 0) {
		if (dfd != -ENOENT)
			snprintf(why, whysz, "%s", err.msg);
		return 0;
	}
	fd = openat(dfd, r->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return 0;
	/* ours alone: made by sbx-preload as the user, never by anyone else */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_nlink != 1 || st.st_size < HDR_LEN ||
	    st.st_size > WALKREC_MAX) {
		snprintf(why, whysz, "%s is not a regular file of yours with one link, "
			 "that only you may write, of a size sbx writes", r->path);
		goto out;
	}
	if (!(buf = malloc((size_t)st.st_size))) {
		close(fd);
		return -ENOMEM;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	why[0] = '\0';
	take(r, buf, len, why, whysz);
	buf = NULL;
out:
	free(buf);
	close(fd);
	return 0;
}

void walkrec_free(struct walkrec *r)
{
	if (!r)
		return;
	free(r->key);
	free(r->buf);
	free(r->index);
	free(r->out);
	free(r->keptv);
	free(r);
}

const char *walkrec_path(const struct walkrec *r)
{
	return r->path;
}

void walkrec_disable(struct walkrec *r)
{
	r->disabled = true;
}

/* Where the kernel keeps a directory's ctime itself: local file systems.
 * Not a network or FUSE file system, whose ctime a server or a daemon
 * reports (and another machine's clock), nor overlayfs, whose lower
 * layers change under it. */
static bool ctime_kept(struct walkrec *r, const char *path, uint64_t dev)
{
	static const unsigned long kept[] = {
		0xEF53,     /* ext2, ext3, ext4 */
		0x58465342, /* xfs */
		0x9123683E, /* btrfs */
		0x01021994, /* tmpfs */
		0xF2F52010, /* f2fs */
		0x2FC12FC1, /* zfs */
		0xCA451A4E, /* bcachefs */
	};
	bool ok = false;

	for (unsigned i = 0; i < r->nfs; i++)
		if (r->fs[i].dev == dev)
			return r->fs[i].ok;
#ifdef __linux__
	struct statfs sf;
	if (statfs(path, &sf) == 0)
		for (size_t i = 0; i < sizeof(kept) / sizeof(*kept); i++)
			ok |= (unsigned long)sf.f_type == kept[i];
#else
	/* (no Linux magic numbers: no directory's ctime is trusted, every
	 * one read anew; macOS's run keeps no record, darwin_main.c) */
	(void)path;
	(void)kept;
#endif
	if (r->nfs < sizeof(r->fs) / sizeof(*r->fs)) {
		r->fs[r->nfs].dev = dev;
		r->fs[r->nfs++].ok = ok;
	}
	return ok;
}

const struct walkrec_dir *walkrec_find(struct walkrec *r, const char *path, unsigned depth,
				       const struct stat *st)
{
	if (!r || r->disabled || !r->icap)
		return NULL;
	for (size_t s = slot_of(r, path); r->index[s]; s = (s + 1) & (r->icap - 1)) {
		const unsigned char *d = r->buf + r->index[s] - 1;
		if (strcmp((const char *)d + DIR_LEN, path))
			continue;
		if (rd64(d) != (uint64_t)st->st_dev || rd64(d + 8) != (uint64_t)st->st_ino ||
		    (int64_t)rd64(d + 16) != (int64_t)st->st_ctim.tv_sec ||
		    rd32(d + 24) != (uint32_t)st->st_ctim.tv_nsec || rd16(d + 28) != depth ||
		    !ctime_kept(r, path, (uint64_t)st->st_dev))
			return NULL;
		return (const struct walkrec_dir *)d;
	}
	return NULL;
}

unsigned walkrec_dir_flags(const struct walkrec_dir *d)
{
	return ((const unsigned char *)d)[30];
}

bool walkrec_dir_entry(const struct walkrec_dir *d, size_t *at, const char **name,
		       unsigned char *type)
{
	const unsigned char *x = (const unsigned char *)d;
	size_t plen = rd16(x + 32), elen = rd32(x + 36);

	if (*at >= elen)
		return false;
	x += DIR_LEN + plen + *at;
	*type = x[0];
	*name = (const char *)x + ENT_LEN;
	*at += ENT_LEN + rd16(x + 1);
	return true;
}

/* ---- the record made */

static int put(struct walkrec *r, const void *p, size_t n)
{
	if (r->keptbytes + r->outlen + n > WALKREC_MAX - HDR_LEN - r->keylen) {
		r->full = true; /* the rest is read again next time */
		return -E2BIG;
	}
	if (r->outlen + n > r->outcap) {
		size_t cap = r->outcap ? r->outcap * 2 : 65536;
		while (cap < r->outlen + n)
			cap *= 2;
		unsigned char *o = realloc(r->out, cap);
		if (!o)
			return -ENOMEM;
		r->out = o;
		r->outcap = cap;
	}
	memcpy(r->out + r->outlen, p, n);
	r->outlen += n;
	return 0;
}

int walkrec_keep(struct walkrec *r, const struct walkrec_dir *d)
{
	const unsigned char *x = (const unsigned char *)d;
	size_t n = DIR_LEN + rd16(x + 32) + rd32(x + 36);

	if (r->disabled || r->full)
		return 0;
	r->kept++;
	if (r->keptbytes + r->outlen + n > WALKREC_MAX - HDR_LEN - r->keylen) {
		r->full = true;
		return 0;
	}
	if (r->nkept == r->keptcap) {
		size_t cap = r->keptcap ? r->keptcap * 2 : 1024;
		uint32_t *v = realloc(r->keptv, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->keptv = v;
		r->keptcap = cap;
	}
	r->keptv[r->nkept++] = (uint32_t)(x - r->buf);
	r->keptbytes += n;
	r->nnew++;
	return 0;
}

int walkrec_begin(struct walkrec *r, const char *path, unsigned depth, const struct stat *st,
		  unsigned flags)
{
	unsigned char d[DIR_LEN] = { 0 };
	size_t plen = strlen(path) + 1;
	uint64_t v;
	int64_t sec = (int64_t)st->st_ctim.tv_sec;
	uint32_t nsec = (uint32_t)st->st_ctim.tv_nsec, elen = 0;
	uint16_t dep = (uint16_t)depth, pl = (uint16_t)plen;

	r->read++;
	r->begin_at = SIZE_MAX;
	/* changed less than WALKREC_RACY_SEC before the walk (or later: a
	 * clock set back), somewhere ctime is not the kernel's, inside sbx's
	 * own state directory (the session directory is new each run), too
	 * deep or too long: read again next time */
	if (r->disabled || r->full || plen > UINT16_MAX || depth > UINT16_MAX ||
	    sec > (int64_t)r->now.tv_sec - WALKREC_RACY_SEC ||
	    (sec == (int64_t)r->now.tv_sec - WALKREC_RACY_SEC &&
	     (long)nsec >= r->now.tv_nsec) ||
	    (r->state_dir[0] && sbx_path_under(path, r->state_dir)) ||
	    !ctime_kept(r, path, (uint64_t)st->st_dev))
		return 0;
	v = (uint64_t)st->st_dev;
	memcpy(d, &v, 8);
	v = (uint64_t)st->st_ino;
	memcpy(d + 8, &v, 8);
	memcpy(d + 16, &sec, 8);
	memcpy(d + 24, &nsec, 4);
	memcpy(d + 28, &dep, 2);
	d[30] = (unsigned char)flags;
	memcpy(d + 32, &pl, 2);
	memcpy(d + 36, &elen, 4);
	size_t at = r->outlen;
	int rc = put(r, d, DIR_LEN);
	if (!rc)
		rc = put(r, path, plen);
	if (rc) {
		r->outlen = at;
		return rc == -E2BIG ? 0 : rc;
	}
	r->begin_at = at;
	return 0;
}

int walkrec_entry(struct walkrec *r, const char *name, unsigned char type)
{
	size_t nl = strlen(name) + 1;
	unsigned char e[ENT_LEN] = { type };
	uint16_t l = (uint16_t)nl;

	if (r->begin_at == SIZE_MAX)
		return 0;
	memcpy(e + 1, &l, 2);
	int rc = put(r, e, ENT_LEN);
	if (!rc)
		rc = put(r, name, nl);
	if (rc) {
		r->outlen = r->begin_at;
		r->begin_at = SIZE_MAX;
	}
	return rc == -E2BIG ? 0 : rc;
}

void walkrec_end(struct walkrec *r, bool ok)
{
	if (r->begin_at == SIZE_MAX)
		return;
	if (!ok) {
		r->outlen = r->begin_at;
	} else {
		unsigned char *d = r->out + r->begin_at;
		uint32_t elen = (uint32_t)(r->outlen - r->begin_at - DIR_LEN - rd16(d + 32));
		memcpy(d + 36, &elen, 4);
		r->nnew++;
		r->fresh++;
	}
	r->begin_at = SIZE_MAX;
}

void walkrec_counts(const struct walkrec *r, size_t *kept, size_t *read)
{
	*kept = r ? r->kept : 0;
	*read = r ? r->read : 0;
}

int walkrec_save(struct walkrec *r, int state_fd, const char *state_dir, char *why,
		 size_t whysz)
{
	struct hostfs_replace rep;
	struct hostfs_err err;
	unsigned char hdr[HDR_LEN] = { 0 };
	uint32_t v32;
	uint64_t v64;
	int dfd, rc;

	why[0] = '\0';
	/* nothing read anew and nothing gone: the record on disk says it */
	if (!r || r->disabled || r->nnew > UINT32_MAX ||
	    (!r->fresh && r->kept == r->nold && r->nnew == r->nold))
		return 0;
	unsigned char *body = malloc(r->keptbytes + r->outlen + 1);
	size_t blen = 0;
	if (!body)
		return -ENOMEM;
	for (size_t i = 0; i < r->nkept; i++) {
		const unsigned char *x = r->buf + r->keptv[i];
		size_t n = DIR_LEN + rd16(x + 32) + rd32(x + 36);
		memcpy(body + blen, x, n);
		blen += n;
	}
	if (r->outlen) /* (no directory read anew: r->out may be NULL) */
		memcpy(body + blen, r->out, r->outlen);
	blen += r->outlen;
	memcpy(hdr, magic, sizeof(magic));
	v32 = WALKREC_VERSION;
	memcpy(hdr + 8, &v32, 4);
	v32 = (uint32_t)r->keylen;
	memcpy(hdr + 12, &v32, 4);
	v64 = HDR_LEN + r->keylen + blen;
	memcpy(hdr + 16, &v64, 8);
	v32 = (uint32_t)r->nnew;
	memcpy(hdr + 32, &v32, 4);
	v64 = checksum(hdr, (const unsigned char *)r->key, r->keylen, body, blen);
	memcpy(hdr + 24, &v64, 8);

	dfd = hostfs_dir_openat(state_fd, state_dir, WALKREC_DIR, HOSTFS_CREATE | HOSTFS_MINE,
				&err);
	if (dfd < 0) {
		snprintf(why, whysz, "%s", err.msg);
		free(body);
		return dfd;
	}
	char shown[PATH_MAX + 8];
	snprintf(shown, sizeof(shown), "%s/%s", state_dir, WALKREC_DIR);
	rc = hostfs_replace_begin(dfd, shown, r->name, 0600, &rep, &err);
	/* no fsync: at the end of a run, on the way out (a record lost in a
	 * crash costs one full walk) */
	rep.nosync = 1;
	if (!rc && ((rc = io_write_all(rep.fd, hdr, HDR_LEN)) ||
		    (rc = io_write_all(rep.fd, r->key, r->keylen)) ||
		    (rc = io_write_all(rep.fd, body, blen)))) {
		snprintf(err.msg, sizeof(err.msg), "writing %s: %s", r->path, strerror(-rc));
		hostfs_replace_abort(&rep);
	} else if (!rc) {
		rc = hostfs_replace_commit(&rep, &err);
	}
	if (rc)
		snprintf(why, whysz, "%s", err.msg);
	close(dfd);
	free(body);
	return rc;
}
