/* preload/walkrec.h: what the walk of the writable roots found in each
 * directory, remembered for the next start in the same workspace.
 *
 * The walk (plan.c, walk_root) reads every directory below the writable
 * roots and matches each entry against the policy's name rules: that is
 * most of a start in a large tree. What it keeps of a directory is small
 * (the entries the policy acts on, the `.git`s, the subdirectories, and
 * whether it is a git directory), and it depends only on the directory's
 * entries and on the policy. A directory's entries cannot change without
 * its change time (ctime) moving, and no program can set a ctime back. So
 * the record keeps, per directory, its path, device, inode and ctime with
 * that list; the next walk reads again only the directories whose
 * identity or ctime moved, and replays the list of the others (every
 * action is taken again from it: the files a `.git` or a config names are
 * read again). A directory is still visited (one stat) to see whether it
 * moved: a change deep below does not move its parents' ctime.
 *
 * A record is trusted only where the sandbox cannot write it: sbx's state
 * directory (`walk/<hash of the workspace>`), walked without links,
 * owned by the user, the file owned by the user, not writable by others,
 * with one link. It is checked whole when read (magic, format version,
 * size, checksum, the workspace and the policy it was made for, every
 * length); anything else is ignored and the walk is done in full.
 * Correctness never depends on it. docs/ARCHITECTURE.md, "The walk and its
 * record". */
#ifndef SBX_WALKREC_H
#define SBX_WALKREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

struct policy;
struct walkrec;
struct walkrec_dir; /* a directory as the record has it; borrowed */

#define WALKREC_DIR "walk"
#define WALKREC_VERSION 1u
/* no record of ours grows past this; a larger file is not read */
#define WALKREC_MAX (64u << 20)
/* A directory whose ctime is less than this before the walk started is
 * not recorded: file times come from a coarse clock (a tick, a second on
 * some file systems), and a change in the same tick as the recorded one
 * would leave the ctime as recorded. */
#define WALKREC_RACY_SEC 2

/* flags of a recorded directory */
#define WALKREC_GITDIR 0x1 /* holds HEAD, objects/ and refs/ */
#define WALKREC_LISTED 0x2 /* its entries were read (not only the flag) */

/* The record of the workspace of `p` in the held state directory
 * (state_fd; state_dir its path), for a walk starting at `now`, of the
 * kind `walk` names (plan_walk_id(): a record of another is ignored). A missing,
 * damaged, foreign or older record gives an empty one (`why` says which,
 * for -v). -ENOMEM, else 0 with *out set. */
int walkrec_open(int state_fd, const char *state_dir, const struct policy *p, const char *walk,
		 const struct timespec *now, struct walkrec **out, char *why, size_t whysz);
/* The same from a buffer (unit tests); the buffer is copied. */
int walkrec_open_buf(const void *buf, size_t len, const struct policy *p, const char *walk,
		     const struct timespec *now, struct walkrec **out, char *why, size_t whysz);
void walkrec_free(struct walkrec *r); /* NULL is fine */

/* The record's own path (`<state>/walk/<hash>`): the walk refuses to use a
 * record a writable root holds (walkrec_disable). Borrowed. */
const char *walkrec_path(const struct walkrec *r);
/* Neither used nor saved from now on. */
void walkrec_disable(struct walkrec *r);

/* The directory at `path`, reached at `depth` below its root, as recorded,
 * when `st` (its lstat now) still has the recorded device, inode and
 * ctime; else NULL. */
const struct walkrec_dir *walkrec_find(struct walkrec *r, const char *path, unsigned depth,
				       const struct stat *st);
unsigned walkrec_dir_flags(const struct walkrec_dir *d);
/* Its entries, one at a time from *at (0 first): false after the last.
 * An entry's type is its DT_* value, with this bit the walk's own. */
#define WALKREC_TYPE_CALLER 0x80
bool walkrec_dir_entry(const struct walkrec_dir *d, size_t *at, const char **name,
		       unsigned char *type);

/* The record the next walk reads: a directory found unchanged, kept as it
 * is; a directory read now, given with its entries between begin and end
 * (ok false: not read in full, left out). A directory that changed too
 * recently, or lies where ctime is not the kernel's (walkrec_begin
 * decides), is left out. 0 or -ENOMEM. */
int walkrec_keep(struct walkrec *r, const struct walkrec_dir *d);
int walkrec_begin(struct walkrec *r, const char *path, unsigned depth, const struct stat *st,
		  unsigned flags);
int walkrec_entry(struct walkrec *r, const char *name, unsigned char type);
void walkrec_end(struct walkrec *r, bool ok);

/* How many directories the walk found unchanged, and read. */
void walkrec_counts(const struct walkrec *r, size_t *kept, size_t *read);

/* The new record saved in place of the old one (atomically), when it
 * differs. 0, or -errno with `why` set. */
int walkrec_save(struct walkrec *r, int state_fd, const char *state_dir, char *why,
		 size_t whysz);

#endif
