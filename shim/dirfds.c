/* shim/dirfds.c: where the process's directory descriptors point, kept
 * from when the shim saw them opened, so a walk (fts: find, du, rm -r,
 * git's and Node's directory readers) does not pay a readlink of
 * /proc/self/fd/N for every descriptor-relative fstatat/openat.
 *
 * The table is a hint, never the answer to a refusal: a descriptor can be
 * closed behind the shim's back (closedir's internal close, close_range, a
 * raw system call) and its number reused, so an entry may be stale. The
 * check uses it only to let a call through early; when the policy would
 * refuse the path it names, the check asks the kernel (readlink) and
 * judges again (check.c, shim_check). A stale entry can so cost an early
 * explanation — the kernel still decides, and a refusal it makes is
 * explained from the kernel's record — but never refuse a call the
 * boundary allows. --trace and --learn, which report allowed accesses by
 * name, never use it.
 *
 * A kept directory is also marked "clear" when no deny_read rule can
 * match it or anything in it (it is neither under a denied path nor above
 * one, and no rule matches a name at any depth): a read of a single name
 * in it (fstatat(fd, "x"), openat(fd, "x")) is then let through with no
 * look at the policy at all (shim_dirfd_read_clear). The mark is a hint
 * like the path: a stale one lets a call through early, and the kernel
 * still decides and its refusal is still explained (shim_after).
 *
 * Lock-free: one seqlock per slot; no allocation.
 */
#include <stdatomic.h>
#include <string.h>

#include "shim/core.h"
#include "shim/dirfds.h"

#define SLOTS 1024
#define PATH_ROOM 256 /* longer paths are not kept: readlink then */

static struct slot {
	atomic_uint seq; /* odd while written */
	unsigned short len; /* 0: nothing kept */
	bool clear; /* no deny_read rule can match in it */
	char path[PATH_ROOM];
} slots[SLOTS];

/* Can a deny_read rule match dir (length dl) or a path under it? Yes
 * unless every rule is provably elsewhere: a literal path neither above
 * dir nor under it, a glob whose literal lead cannot start "dir/". A rule
 * matching names at any depth can match anywhere. */
static bool read_clear_under(const char *dir, size_t dl)
{
	const struct policy *p = shim_policy();
	const struct sbx_rule *const *r;
	size_t n;

	if (!p || dl < 2 || dir[0] != '/')
		return false;
	r = policy_rules(p, SBX_RULE_DENY_READ, &n);
	for (size_t i = 0; i < n; i++) {
		const char *pat = r[i]->pattern;
		size_t pl = r[i]->prefix_len, k = 0;

		switch (r[i]->pat) {
		case SBX_PAT_PREFIX:
			if (pl < 2)
				return false; /* `/` */
			if (dl >= pl && !memcmp(dir, pat, pl) && (dl == pl || dir[pl] == '/'))
				return false; /* dir is in it */
			if (pl > dl && !memcmp(pat, dir, dl) && pat[dl] == '/')
				return false; /* it is in dir */
			break;
		case SBX_PAT_GLOB:
			/* does the lead agree with "dir/" as far as both go? */
			while (k < pl && k <= dl && pat[k] == (k < dl ? dir[k] : '/'))
				k++;
			if (k == pl || k == dl + 1)
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

void shim_dirfd_remember(int fd, const char *abs)
{
	size_t n = abs ? strlen(abs) : 0;
	bool clear = n && n < PATH_ROOM && shim_mode() == SHIM_ENFORCE && read_clear_under(abs, n);
	struct slot *s;
	unsigned seq;

	if (fd < 0 || fd >= SLOTS)
		return;
	s = &slots[fd];
	seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	/* a writer at work on this slot (another thread, the same number
	 * closed and opened again meanwhile): leave it to them */
	if ((seq & 1) || !atomic_compare_exchange_strong(&s->seq, &seq, seq + 1))
		return;
	if (n && n < PATH_ROOM) {
		memcpy(s->path, abs, n + 1);
		s->len = (unsigned short)n;
	} else {
		s->len = 0;
	}
	s->clear = clear;
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

bool shim_dirfd_read_clear(int fd)
{
	struct slot *s;
	unsigned seq;
	bool clear;

	if (fd < 0 || fd >= SLOTS)
		return false;
	s = &slots[fd];
	seq = atomic_load_explicit(&s->seq, memory_order_acquire);
	clear = s->len && s->clear;
	atomic_thread_fence(memory_order_acquire);
	return !(seq & 1) && clear && atomic_load_explicit(&s->seq, memory_order_relaxed) == seq;
}

void shim_dirfd_forget(int fd)
{
	if (fd >= 0 && fd < SLOTS && slots[fd].len)
		shim_dirfd_remember(fd, NULL);
}

void shim_dirfd_copy(int from, int to)
{
	char path[PATH_ROOM];

	if (to < 0 || to >= SLOTS)
		return;
	if (shim_dirfd_path(from, path, sizeof(path)) == 0)
		shim_dirfd_remember(to, path);
	else
		shim_dirfd_forget(to);
}

int shim_dirfd_path(int fd, char *out, size_t outsz)
{
	struct slot *s;
	unsigned seq;
	size_t n;

	if (fd < 0 || fd >= SLOTS)
		return -1;
	s = &slots[fd];
	seq = atomic_load_explicit(&s->seq, memory_order_acquire);
	n = s->len;
	if ((seq & 1) || !n || n >= outsz)
		return -1;
	memcpy(out, s->path, n);
	out[n] = '\0';
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&s->seq, memory_order_relaxed) == seq ? 0 : -1;
}
