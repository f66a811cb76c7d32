/* shim/decided.c: the policy's "allowed" remembered per path (decided.h).
 *
 * The policy is immutable for the life of the process (one blob, read
 * once: core.c), so what policy_check_path() answered for (op, path) is
 * what it will answer again. A slot holds one absolute, normal path (its
 * whole bytes, not only a hash) and the ops the policy allowed on it; a
 * look-up answers only on the same bytes and length, so a collision
 * costs a miss, never another path's answer. Only allowing answers are
 * kept: a refusal goes on to the symlink walk, the existence tests and
 * the report, which depend on the file system, and is always judged
 * again.
 *
 * A path remembered is normal (no `//`, `.`, `..` or trailing `/`), so a
 * path as the program wrote it that equals one is its own absolute form:
 * check.c looks an absolute path up before making it absolute.
 *
 * One slot per hash (direct-mapped), a seqlock per slot: readers never
 * wait, a writer that finds a slot being written leaves it. In the
 * process's own .bss: untouched pages cost nothing, and check.c uses the
 * table only in a thread that has made a few checks already (a page of
 * it touched costs a short process more than it saves; docs/PERFORMANCE.md).
 * A fork child reads its parent's entries; a vfork child shares them,
 * which is fine: the policy and the paths' answers are the same there.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "policy/policy.h"
#include "shim/decided.h"

static struct slot {
	atomic_uint seq;  /* odd while written */
	uint32_t hash;    /* the path's hash, low half */
	uint16_t len;     /* 0: empty */
	uint8_t ops;      /* 1 << op: allowed */
	char path[SHIM_DECIDED_ROOM + 1];
} slots[SHIM_DECIDED_SLOTS];

_Static_assert(sizeof(struct slot) == 256, "a slot is 256 bytes");

/* Eight bytes at a time: the paths are long and the hash is on every
 * call. Not seeded: a collision costs a miss, never an answer. */
static uint64_t hash_of(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	if (n) {
		w = 0;
		for (size_t i = 0; i < n; i++)
			w |= (uint64_t)(unsigned char)s[i] << (8 * i);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 32);
}

static struct slot *slot_of(uint64_t h)
{
	return &slots[(h >> 40) % SHIM_DECIDED_SLOTS];
}

bool shim_decided(unsigned op, const char *abs, size_t len)
{
	struct slot *s;
	uint64_t h;
	unsigned seq;
	bool hit;

	if (!len || len > SHIM_DECIDED_ROOM || op >= 8)
		return false;
	h = hash_of(abs, len);
	s = slot_of(h);
	seq = atomic_load_explicit(&s->seq, memory_order_acquire);
	hit = !(seq & 1) && s->hash == (uint32_t)h && s->len == len && ((s->ops >> op) & 1) &&
	      !memcmp(s->path, abs, len);
	atomic_thread_fence(memory_order_acquire);
	return hit && atomic_load_explicit(&s->seq, memory_order_relaxed) == seq;
}

void shim_decided_put(unsigned op, const char *abs, size_t len)
{
	struct slot *s;
	uint64_t h;
	unsigned seq;

	if (!len || len > SHIM_DECIDED_ROOM || op >= 8 || !path_is_normal(abs, len))
		return;
	h = hash_of(abs, len);
	s = slot_of(h);
	seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	if ((seq & 1) || !atomic_compare_exchange_strong(&s->seq, &seq, seq + 1))
		return;
	if (s->hash != (uint32_t)h || s->len != len || memcmp(s->path, abs, len)) {
		memcpy(s->path, abs, len);
		s->path[len] = '\0';
		s->hash = (uint32_t)h;
		s->len = (uint16_t)len;
		s->ops = 0;
	}
	s->ops |= (uint8_t)(1u << op);
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}
