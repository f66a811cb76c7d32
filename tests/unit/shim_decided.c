/* tests/unit/shim_decided.c: the shim's table of what the policy allowed
 * (shim/decided.c). It answers only for the very op and path it was told,
 * never for a prefix, a longer path, another op or a path that only shares
 * its slot, also while other threads write it. Criterion runs each test in
 * a process of its own: each starts with an empty table.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/helpers.h"
#include "shim/decided.h"

static bool has(unsigned op, const char *p)
{
	return shim_decided(op, p, strlen(p));
}

static void put(unsigned op, const char *p)
{
	shim_decided_put(op, p, strlen(p));
}

Test(shim_decided, only_the_same_op_and_path)
{
	put(SBX_OP_READ, "/w/src/a.c");
	cr_assert(has(SBX_OP_READ, "/w/src/a.c"));
	cr_assert_not(has(SBX_OP_WRITE, "/w/src/a.c"));
	cr_assert_not(has(SBX_OP_EXEC, "/w/src/a.c"));
	cr_assert_not(has(SBX_OP_READ, "/w/src/a"));
	cr_assert_not(has(SBX_OP_READ, "/w/src/a.c/x"));
	cr_assert_not(has(SBX_OP_READ, "/w/src/a.d"));
	cr_assert_not(has(SBX_OP_READ, "/w/src"));
	/* the length given is what is compared, not the string's end */
	cr_assert_not(shim_decided(SBX_OP_READ, "/w/src/a.c", 9));
	cr_assert_not(shim_decided(SBX_OP_READ, "/w/src/a.cc", 11));
	put(SBX_OP_WRITE, "/w/src/a.c");
	cr_assert(has(SBX_OP_READ, "/w/src/a.c"));
	cr_assert(has(SBX_OP_WRITE, "/w/src/a.c"));
	cr_assert_not(has(SBX_OP_EXEC, "/w/src/a.c"));
}

/* check.c looks a path up as the program wrote it: only a normal path may
 * be remembered, so a spelling that folds elsewhere never equals one */
Test(shim_decided, only_normal_paths_are_remembered)
{
	const char *odd[] = { "/w//a", "/w/./a", "/w/../a", "/w/a/", "/w/a/.", "/w/a/..",
			      "w/a", "/w/a\0/b" };

	for (size_t i = 0; i < sizeof(odd) / sizeof(*odd); i++) {
		size_t n = i == 7 ? 7 : strlen(odd[i]);
		shim_decided_put(SBX_OP_READ, odd[i], n);
		cr_assert_not(shim_decided(SBX_OP_READ, odd[i], n), "%s", odd[i]);
	}
	put(SBX_OP_READ, "/");
	cr_assert(has(SBX_OP_READ, "/"));
	put(SBX_OP_READ, "/w/..a/.b/...");
	cr_assert(has(SBX_OP_READ, "/w/..a/.b/..."));
}

Test(shim_decided, a_long_path_is_always_asked)
{
	char p[SHIM_DECIDED_ROOM + 2];

	memset(p, 'x', sizeof(p) - 1);
	p[0] = '/';
	p[sizeof(p) - 1] = '\0';
	put(SBX_OP_READ, p);
	cr_assert_not(has(SBX_OP_READ, p));
	p[sizeof(p) - 2] = '\0'; /* SHIM_DECIDED_ROOM bytes: kept */
	put(SBX_OP_READ, p);
	cr_assert(has(SBX_OP_READ, p));
}

/* Many paths share the slots: a path that takes a slot drops the one there
 * (a miss later), and no path ever answers for another. */
Test(shim_decided, a_shared_slot_costs_a_miss_never_an_answer)
{
	char p[64], q[64];
	int evicted = 0;

	for (int i = 0; i < 4000; i++) {
		snprintf(p, sizeof(p), "/w/node_modules/m%d/index.js", i);
		put(i % 2 ? SBX_OP_READ : SBX_OP_WRITE, p);
		cr_assert(has(i % 2 ? SBX_OP_READ : SBX_OP_WRITE, p), "%s", p);
		cr_assert_not(has(i % 2 ? SBX_OP_WRITE : SBX_OP_READ, p), "%s", p);
		for (int j = 0; j < i; j += 37) {
			snprintf(q, sizeof(q), "/w/node_modules/m%d/index.js", j);
			if (!has(j % 2 ? SBX_OP_READ : SBX_OP_WRITE, q))
				evicted++;
			cr_assert_not(has(j % 2 ? SBX_OP_WRITE : SBX_OP_READ, q), "%s", q);
			snprintf(q, sizeof(q), "/w/node_modules/m%d/index.jsx", j);
			cr_assert_not(has(SBX_OP_READ, q) || has(SBX_OP_WRITE, q), "%s", q);
		}
	}
	cr_assert_gt(evicted, 0, "4000 paths in %d slots and none dropped?", SHIM_DECIDED_SLOTS);
}

/* Writers and readers at once: a torn slot is never an answer. Each thread
 * puts its own paths with its own op; a look-up of a path with an op it
 * was never given must miss, whatever was being written meanwhile. */
struct worker {
	int id;
	long wrong;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char p[96];

	for (int round = 0; round < 200; round++)
		for (int i = 0; i < 200; i++) {
			/* same lengths in every thread, so slots are contended */
			snprintf(p, sizeof(p), "/w/t%d/%04d/%s", w->id, i,
				 "some/deeper/place/in/the/tree.c");
			shim_decided_put((unsigned)w->id % 3, p, strlen(p));
			for (unsigned op = 0; op < 3; op++)
				if (op != (unsigned)w->id % 3 && shim_decided(op, p, strlen(p)))
					w->wrong++;
			/* another thread's path under this thread's op */
			snprintf(p, sizeof(p), "/w/t%d/%04d/%s", (w->id + 1) % 3, i,
				 "some/deeper/place/in/the/tree.c");
			if (shim_decided((unsigned)w->id % 3, p, strlen(p)))
				w->wrong++;
		}
	return NULL;
}

Test(shim_decided, threads_never_read_a_torn_slot)
{
	pthread_t t[3];
	struct worker w[3];

	for (int i = 0; i < 3; i++) {
		w[i] = (struct worker){ .id = i };
		cr_assert_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(w[i].wrong, 0, "thread %d: %ld wrong answers", i, w[i].wrong);
	}
}
