/* init/mounts.h: the mounts sbx-init makes itself, and the
 * capability drop after them. Linked into sbx-init only.
 *
 * The supervisor hands the operations over as sbx-init arguments, in the
 * order they are to be applied (a closed set; every one re-validated here):
 *   --dev                 fresh /dev: tmpfs, six host device nodes, a devpts
 *                         of its own, shm, and the caller's terminal (the
 *                         pty behind fd 0/1/2) bound at its own name
 *   --proc                fresh /proc; sys, sysrq-trigger, irq, bus read-only
 *   --rw=PATH             bind PATH onto itself, writable (a writable root)
 *   --bound=PATH          a writable root bubblewrap bound (under /tmp): only
 *                         checked to be the object the supervisor planned
 *   --rw-in=PATH          the same, applied with the protects (parents first),
 *                         so a protect above it does not cover it: a writable
 *                         root inside a protected directory (the session
 *                         directory of isolation = strict, in sbx's state
 *                         directory, when HOME is writable too)
 *   --ro=PATH             bind PATH onto itself, read-only (with what is below it)
 *   --pin=PATH            bind the directory PATH onto itself (a mount point
 *                         cannot be renamed: PATH stays on the way to what is
 *                         protected below it)
 *   --ro-link=PATH        PATH is a symlink: mounted onto itself (it still leads
 *                         where it did, and cannot be removed or replaced)
 *   --ro-new=PATH         the same as --ro for a placeholder the supervisor makes after
 *                         planning; its state (in sbx-init's "go") says whether
 *                         it exists: 'm' made or 'e' there (bound), '-' not
 *   --mask-file=PATH      bind /dev/null over PATH, read-only
 *   --mask-dir=PATH       empty tmpfs, mode 0000, read-only, over PATH
 *   --mask-dir-x=PATH     the same with mode 0111, then the --unmask ops that
 *                         directly follow bound back (they must lie below PATH):
 *   --unmask=PATH         ... read-only
 *   --unmask-rw=PATH      ... writable as it was
 * PATH is absolute, without `.`, `..` or empty components, and not `/`.
 *
 * Every PATH is opened without following a symlink anywhere on the way
 * (pathwalk.h; --ro-link's own link excepted, which is opened, not
 * followed) and the mount is made from that descriptor. When sbx-preload
 * starts us it also sends, in "I" messages, the device and inode it saw at
 * each PATH (mountids.h: for --ro-new, the directory it is in), one per
 * operation but --dev and --proc, in order; a PATH that is no longer that
 * object is refused, and nothing runs.
 */
#ifndef SBX_INIT_MOUNTS_H
#define SBX_INIT_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

/* Validation state while sbx-init walks its arguments. Zero-initialise. */
struct init_mounts {
	const char *mask;  /* the --mask-dir-x an --unmask may follow, or NULL */
	unsigned nops;
	unsigned npath;    /* operations on a PATH: all but --dev and --proc */
	unsigned nnew;     /* --ro-new operations */
};

/* 1: `arg` is a valid mount operation (remembered in m); 0: not a mount
 * operation at all; -EINVAL: one of ours, but malformed or out of place. */
int init_mounts_check(struct init_mounts *m, const char *arg);

/* The supervisor's identities ("I" message body: struct mount_id each),
 * appended in order. 0, or -EPROTO when malformed or too many. */
int init_mounts_take_ids(const void *buf, size_t len);

/* Apply the operations found in argv[0..n) in the mount namespace we are
 * in (other arguments are skipped): --rw, --dev and --proc first as given,
 * then the others parents first (by depth; equal depths as given), so that
 * no bind has to carry a mount of ours (see init/mounts.c); states holds one
 * state per --ro-new, in argv order (a missing one fails, -EPROTO). With
 * need_ids (started by sbx-preload) or any identity taken, there must be
 * exactly one per PATH operation (-EPROTO). 0, or -errno with *what naming
 * the step and *path the path it failed on (both static or from argv). */
int init_mounts_apply(char *const *argv, int n, const char *states, bool need_ids,
		      const char **what, const char **path);

/* Close what init_mounts_apply() keeps open for the sandbox's life (the
 * sandbox's pty numbered like the caller's terminal, under its bind): for
 * the children of pid 1, which must not inherit it. */
void init_mounts_close_held(void);

/* Drop every capability: ambient, bounding set (needs CAP_SETPCAP, so it
 * comes first), then effective/permitted/inheritable; then check that
 * nothing is left. 0, or -errno with *what naming the step. */
int init_caps_drop_all(const char **what);

#endif
