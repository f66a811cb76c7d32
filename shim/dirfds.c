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
 * judges again (shim.c, shim_check). A stale entry can so cost an early
 * explanation — the kernel still decides, and a refusal it makes is
 * explained from the kernel's record — but never refuse a call the
 * boundary allows. --trace and --learn, which report allowed accesses by
 * name, never use it.
 *
 * Lock-free: one seqlock per slot; no allocation.
 */
#include <stdatomic.h>
#include <string.h>

#include "shim.h"

#define SLOTS 1024
#define PATH_ROOM 256 /* longer paths are not kept: readlink then */

static struct slot {
	atomic_uint seq; /* odd while written */
	unsigned short len; /* 0: nothing kept */
	char path[PATH_ROOM];
} slots[SLOTS];

void shim_dirfd_remember(int fd, const char *abs)
{
	size_t n = abs ? strlen(abs) : 0;
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
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
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
