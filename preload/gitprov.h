/* preload/gitprov.h: which linked worktrees a sandboxed run made.
 *
 * isolation = workspace opens the main repository's git directory for a
 * workspace that is a linked worktree, when the two point at each other
 * (policy.c, workspace_gitdirs()). A run that can write a git directory
 * can also make such a pair: `<common>/worktrees/<id>/gitdir` naming a
 * tree it can write, and a `.git` file there naming the entry; a later run
 * in that tree would then get <common> writable. So after every run the
 * supervisor looks at the linked worktrees of each git directory the run
 * could write, and records (in sbx's state directory, which no sandbox can
 * write) each one whose entry was made or changed while the run lasted, by
 * the identity of its `gitdir` file (device, inode, ctime: a program cannot
 * set a ctime back). A later run does not open a git directory through a
 * recorded entry; changing the entry outside the sandbox (`git worktree
 * repair`, or remove and add) gives it a new identity. */
#ifndef SBX_GITPROV_H
#define SBX_GITPROV_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct gitprov;

/* The record in the state directory `state_dir` (NULL, or none yet: an
 * empty one). Never fails for a missing or unreadable record (it only
 * narrows); -ENOMEM. */
int gitprov_load(const char *state_dir, struct gitprov **out);
void gitprov_free(struct gitprov *g); /* NULL is fine */

/* policy_ctx's untrusted_gitdir: was the linked worktree entry `gd`
 * (`<common>/worktrees/<id>`) made or changed by a sandboxed run? Says so
 * once, with the flag that opens it anyway. */
bool gitprov_made_inside(void *g, const char *gd);

/* After the run: the linked worktrees of each git directory in gitdirs
 * whose entry changed since `since`, appended to the record through the
 * held state directory (state_fd, shown as state_dir in messages). */
void gitprov_note(struct gitprov *g, int state_fd, const char *state_dir,
		  char *const *gitdirs, size_t n, const struct timespec *since);

#endif
