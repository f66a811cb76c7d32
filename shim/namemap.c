/* shim/namemap.c: allowed host names as stand-in addresses, for programs
 * that ignore the proxy variables (docs/NETWORK.md, "Transparent proxying"),
 * when the sandbox's resolver gives none: the supervisor's map (198.19/16,
 * net/names.c, one for every process) comes first; this one is
 * the per-process fallback.
 *
 * In a proxied run the sandbox has no DNS and no route out: only the
 * proxy's listeners on its loopback. So a lookup of a name the policy
 * allows is answered with an address that stands for the name, from
 * 198.18.0.0/16 (RFC 2544, benchmarking: never a destination of its own),
 * and a connect() to that address is carried through the SOCKS listener
 * with the name (net.c): the supervisor decides and resolves, as for any
 * proxied request. The same name gets the same address for the life of
 * the process (and of its forked children, which inherit the table).
 *
 * The table is static memory (pages are touched only when used), slots
 * claimed with a compare-and-swap and published with a release store:
 * no malloc, no lock. A slot is never reused, so an address never changes
 * its name; a full table refuses new names (fail closed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "shim/namemap.h"

#define BASE 0xc6120000u /* 198.18.0.0 */

enum { EMPTY, WRITING, READY };

static struct {
	atomic_uint state;
	char name[SHIM_NAME_MAX];
} slots[SHIM_NAMEMAP_SLOTS];

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

int shim_namemap_addr(const char *name, struct in_addr *out)
{
	size_t len = strlen(name);

	if (!len || len >= SHIM_NAME_MAX)
		return -EINVAL;
	uint32_t h = hash(name) % SHIM_NAMEMAP_SLOTS;
	for (uint32_t i = 0; i < SHIM_NAMEMAP_SLOTS; i++) {
		uint32_t k = (h + i) % SHIM_NAMEMAP_SLOTS;
		unsigned st = atomic_load_explicit(&slots[k].state, memory_order_acquire);
		if (st == EMPTY) {
			unsigned want = EMPTY;
			if (atomic_compare_exchange_strong(&slots[k].state, &want, WRITING)) {
				memcpy(slots[k].name, name, len + 1);
				atomic_store_explicit(&slots[k].state, READY, memory_order_release);
				st = READY;
			} else {
				st = want;
			}
		}
		/* another thread is writing this slot: perhaps the same name */
		while (st == WRITING) {
			sched_yield();
			st = atomic_load_explicit(&slots[k].state, memory_order_acquire);
		}
		if (!strcmp(slots[k].name, name)) {
			out->s_addr = htonl(BASE + 1 + k);
			return 0;
		}
	}
	return -ENOSPC;
}

bool shim_namemap_is_ours(const struct in_addr *a)
{
	return (ntohl(a->s_addr) & 0xffff0000u) == BASE; /* 198.19/16 is the supervisor's */
}

int shim_namemap_name(const struct in_addr *a, char *out, size_t outsz)
{
	uint32_t v = ntohl(a->s_addr);

	if (!shim_namemap_is_ours(a) || v - BASE - 1 >= SHIM_NAMEMAP_SLOTS)
		return -ENOENT;
	uint32_t k = v - BASE - 1;
	if (atomic_load_explicit(&slots[k].state, memory_order_acquire) != READY)
		return -ENOENT;
	size_t len = strlen(slots[k].name);
	if (len >= outsz)
		return -ENAMETOOLONG;
	memcpy(out, slots[k].name, len + 1);
	return 0;
}
