/* preload/standin.h: stand-ins, the few links sbx puts in the user's tree
 * so the boundary can keep a protected name that does not exist from being
 * created, and the record that makes sure none outlives its run.
 *
 * A stand-in is a dangling symlink `NAME -> /proc/sbx-stand-in/<run-id>`:
 * open() and stat() of it fail with ENOENT, so a program that reads the name
 * (bash looking for ~/.bash_profile, git for .git/hooks/pre-commit) behaves
 * as if it were absent, while sbx-init mounts the link onto itself inside
 * the sandbox, where it can be neither removed nor replaced, and creating
 * through it fails (nothing can be made under /proc). Which names get one is
 * plan.c's decision (docs/ARCHITECTURE.md, "Stand-ins").
 *
 * Every run keeps a record (<state>/standins/<run-id>) of each stand-in it
 * makes or relies on, by parent directory and link identity (device, inode)
 * and the link's text, and holds an exclusive flock on it for its life: a
 * record whose lock can be taken belongs to a run that is gone (even by
 * SIGKILL), and the next run, or `sbx-preload --cleanup`, removes what that
 * run left, after checking each one is still exactly the link it made.
 * A stand-in another live run relies on is never removed; the last run to
 * rely on it removes it. All of it happens under one lock file. */
#ifndef SBX_STANDIN_H
#define SBX_STANDIN_H

#include <stdbool.h>
#include <stddef.h>

/* The fixed start of every stand-in's link text. */
#define STANDIN_TARGET "/proc/sbx-stand-in/"

struct standins;

/* How long a run waits for the records' lock, which any program of the
 * user's can take (flock needs no write access): then -ETIMEDOUT. */
#define STANDIN_LOCK_WAIT_MS 5000

/* Open (making it when missing, never through a symlink: hostfs.h) the
 * record directory `standins` in sbx's state directory, held as state_fd
 * (borrowed). Removes what dead runs left (*cleaned: how many), then starts
 * this run's record. 0 or -errno (-ETIMEDOUT: the lock stayed taken). */
int standins_open(int state_fd, const char *run_id, unsigned *cleaned,
		  struct standins **out);

/* Under the lock: make a stand-in at each path (real paths, parent
 * existing) or take over one a live run made there. states[i] becomes one
 * of the PLACEHOLDER_* states sbx-init is told (states has n + 1 bytes).
 * 0, or -errno with *failed naming the path (everything made so far is
 * removed again). */
int standins_make(struct standins *s, char *const *paths, size_t n, char *states,
		  const char **failed);

/* Remove this run's stand-ins that no other live run relies on, and the
 * record. Safe to call more than once. */
void standins_release(struct standins *s);
void standins_free(struct standins *s);  /* releases first; NULL is fine */

/* `sbx-preload --cleanup`: remove what dead runs left; each removed path is
 * passed to `say`. The number removed, or -errno. */
int standins_cleanup(int state_fd,
		     void (*say)(void *ctx, const char *path, const char *run), void *ctx);

/* Is `path` a link whose text says it is a stand-in (of any run)? */
bool standin_looks_like(const char *path);

#endif
