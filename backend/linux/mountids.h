/* backend/linux/mountids.h: what each mount of sbx-init's is to land on.
 *
 * The supervisor holds the trusted view: it decides the mounts from the
 * host's tree as it is before COMMAND exists. sbx-init makes them later,
 * in the sandbox's mount namespace, where a program of a concurrent (or an
 * earlier) run may meanwhile have swapped a name on the way for a symlink
 * or for another directory. So each path of a mount operation is opened
 * here without following any link (pathwalk.h), its device and inode are
 * recorded and sent to sbx-init ("I" messages, init/mounts.h), which opens
 * the same path the same way, mounts from the descriptor and refuses (125,
 * nothing was run) when the object is not the one recorded.
 * docs/SECURITY.md, "Mounts land on what was planned". */
#ifndef SBX_MOUNTIDS_H
#define SBX_MOUNTIDS_H

#include <stddef.h>

struct plan;

/* After plan_bwrap(): the writable roots (sbx-init's --rw=, and the ones
 * under /tmp that bubblewrap binds, which sbx-init checks: --bound=),
 * recorded as early as possible, right after the policy named them.
 * 0, or -errno with `why` saying which root changed and how. */
int mount_ids_roots(struct plan *pl, char *why, size_t whysz);

/* After plan_init(): one identity per path operation of sbx-init's, in
 * order. A protect or mask whose name is a link (a scanned `.env ->
 * elsewhere`) is rewritten to where the link leads now, which is where a
 * mount by path would have landed; every other path must hold no link at
 * all (the policy resolved it). 0, or -errno with `why`. */
int mount_ids_plan(struct plan *pl, char *why, size_t whysz);

/* Send them ("I" messages) on sbx-init's control socket, before "go". */
int mount_ids_send(int ctl, const struct plan *pl);

void mount_ids_free(struct plan *pl);

#endif
