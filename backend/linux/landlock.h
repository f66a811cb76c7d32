/* backend/linux/landlock.h: the nested mode's boundary (docs/SECURITY.md, "The
 * nested mode"): the same mount plan, said to the kernel as a Landlock
 * ruleset instead of mounts, for machines where bubblewrap cannot make
 * namespaces (containers, CI runners).
 *
 * Landlock only grants: a right given to a directory holds for everything
 * below it, and nothing below can take it back. So a denied path D inside a
 * tree that is otherwise allowed is expressed by its surroundings: each
 * directory on the way from the tree's top to D gets only what does not
 * reach D (for reads, listing names; for writes, nothing), and every other
 * entry of those directories (D's siblings and its ancestors' siblings) gets
 * the whole right (landlock_expand). The supervisor builds the ruleset
 * before it starts anything; the child only applies it
 * (landlock_restrict), then execs sbx-init, which installs the seccomp
 * table as in the normal mode. */
#ifndef SBX_LANDLOCK_H
#define SBX_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"

/* What the ruleset grants, from the plan. Paths absolute and real. */
#define LANDLOCK_PORTS_MAX 48
struct landlock_spec {
	struct strv read_deny;   /* neither read nor written (the masks) */
	struct strv read_allow;  /* read again inside a denied one (--unmask) */
	struct strv write_roots; /* written (the writable roots, /tmp, devices) */
	struct strv write_deny;  /* not written inside them (the protects) */
	bool net_connect;        /* TCP connect only to ports[] */
	bool net_bind;           /* TCP bind refused */
	unsigned ports[LANDLOCK_PORTS_MAX];
	size_t nports;
};

/* The plan's mount operations (plan_build(): bubblewrap's binds, sbx-init's
 * --rw/--ro/--mask... operations) as a spec; the network is the caller's
 * (landlock_spec_port). 0 or -ENOMEM. */
int landlock_spec_from_plan(const struct plan *pl, struct landlock_spec *s);
int landlock_spec_port(struct landlock_spec *s, unsigned port); /* -E2BIG when full */
/* /dev as an allow-list: the device nodes every program uses (null, zero,
 * full, random, urandom, tty, ptmx, shm) and `tty` (the sandbox's own
 * terminal, or NULL) are read and written; every other entry of /dev (the
 * person's terminals in /dev/pts, disks, input devices...) is a hole of
 * both. 0 or -errno. */
int landlock_spec_dev(struct landlock_spec *s, const char *tty);
void landlock_spec_free(struct landlock_spec *s);

/* For each rule the expansion of `root` around `holes` gives: an O_PATH
 * descriptor (borrowed: valid during the call), its path, whether it is a
 * directory, and `whole`: the entry and all below it get the right; else
 * it is a directory on the way to a hole, which gets only what cannot
 * reach the hole. A non-zero return stops the expansion with that value. */
typedef int (*landlock_emit_fn)(void *ctx, int fd, const char *path, bool is_dir, bool whole);

/* Expand `root` (absolute, real) around `holes` (absolute, normal; those
 * not strictly below root are ignored, one equal to root leaves nothing).
 * Every directory is opened from `/` without following a link, and every
 * entry in it relative to it with O_NOFOLLOW: a link gets no rule (what it
 * leads to has its own), a link on the way to a hole stops the expansion
 * (-ELOOP: someone swapped it meanwhile). A root that does not exist gives
 * nothing (0). 0, or -errno, or what emit returned. */
int landlock_expand(const char *root, char *const *holes, size_t nholes,
		    landlock_emit_fn emit, void *ctx);

/* The ruleset for `s` with what ABI `abi` offers (filesystem; TCP from 4;
 * abstract Unix sockets and signals scoped from 6): a descriptor in *out
 * (close-on-exec), or -errno with `why` naming the path or step. */
int landlock_ruleset(const struct landlock_spec *s, int abi, int *out, char *why, size_t whysz);

/* In the child, before exec: no_new_privs, then the ruleset on this
 * process and all it starts. Async-signal-safe (a vfork child). 0 or
 * -errno. */
int landlock_restrict(int ruleset_fd);

#endif
