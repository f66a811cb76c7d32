/* preload/notify/gitcfg.c: git's config files replaced by a rename
 * (docs/POLICY.md, "Git's config files"; policy/gitconfig.c decides).
 *
 * git writes a config (`git config`, `remote add`, `branch
 * --set-upstream-to`, `submodule init`) as `config.lock`, then renames it
 * onto `config`. The config of a repository that existed at start is
 * protected (a read-only bind inside, and the policy's executes-later
 * rows), so that rename is refused, unless what it brings changes no key
 * that runs a program or loads another file. Then the supervisor makes
 * the change itself:
 *   1. the new content is read from a descriptor of ours, opened on the
 *      lock file without following a link, and the old from the file in
 *      place; both parsed as git parses them and compared;
 *   2. those bytes -- the ones judged, never the lock file again, which
 *      the program may still hold open for writing -- go into a new file
 *      of ours beside the target (O_EXCL, an unguessable name), which is
 *      renamed onto the target in the supervisor's own mount namespace:
 *      there the target is no mount point, so the rename lands (inside,
 *      the actor would get EBUSY), and the sandbox's read-only bind of the
 *      old file goes with the old file;
 *   3. the lock file is removed, as the rename would have.
 * No other notified call runs meanwhile (one request at a time), and
 * every later write to the new file by its name is judged again by the
 * policy's rows (preload/notify/paths.c, may_make()); a later rename onto it
 * passes here again. Nothing of this runs for a rename the policy refuses
 * by a user's own deny_write, or onto a directory on a read-only mount.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/pathwalk.h"
#include "common/event.h"
#include "preload/notify/internal.h"
#include "preload/preload.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* A config bigger than this is refused: none is, and reading one must not
 * hold the listener long. */
#define GITCFG_READ_MAX (1u << 20)

/* Is the part `name` of a git directory there in `dfd`: HEAD a file,
 * objects and refs anything at all (git's own test, is_git_directory,
 * asks only access(X_OK) of them, which an executable file or a FIFO
 * passes as a directory does: two executable files beside a config made
 * a repository no rule knew, its fsmonitor run by git on the host) -- or
 * a link at that name, whatever it leads to now: what a link leads to
 * changes with no call at its name (`objects` a link to a directory made
 * later, elsewhere, completed a repository no rule knew, its hook made
 * meanwhile and run by git on the host). 1 there, 0 not, -1 not known:
 * the directory cannot be searched now (a thread of the program's took
 * its mode away between our making a part and this look: five
 * repositories in a hundred went unnamed). */
int notify_git_part(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	if (S_ISLNK(st.st_mode) || strcmp(name, "HEAD"))
		return 1;
	return S_ISREG(st.st_mode);
}

/* All of `fd` (a regular file), at most max bytes: 0, -E2BIG, -errno. */
static int read_all(int fd, char **out, size_t *len, size_t max)
{
	struct stat st;
	size_t cap, n = 0;
	char *b;

	*out = NULL;
	*len = 0;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((unsigned long long)st.st_size > max)
		return -E2BIG;
	cap = (size_t)st.st_size + 1;
	if (!(b = malloc(cap + 1)))
		return -ENOMEM;
	for (;;) {
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(b);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) { /* it grew meanwhile */
			free(b);
			return -E2BIG;
		}
	}
	*out = b;
	*len = n;
	return 0;
}

static void refuse_line(const struct call *c, const char *target, const char *why, int err)
{
	notify_report(c, &(struct event){ .what = EVENT_CALL, .decision = WIRE_DENY,
					  .target = "write", .on = target, .reason = why,
					  .rule_text = "git config", .err = err });
}

/* The new file beside the target, with the bytes judged; its name into
 * `name`. -errno. */
static int write_new(int dfd, const char *buf, size_t len, mode_t mode, char *name,
		     size_t namesz)
{
	unsigned char r[8];
	int fd = -EEXIST;

	for (int tries = 0; tries < 8 && fd == -EEXIST; tries++) {
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -EIO;
		snprintf(name, namesz, ".sbx-gitcfg-%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1],
			 r[2], r[3], r[4], r[5], r[6], r[7]);
		struct open_how how = { .flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
					.mode = mode,
					.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
		fd = pathwalk_openat2(dfd, name, &how);
	}
	if (fd < 0)
		return fd;
	int rc = fchmod(fd, mode) ? -errno : 0;
	for (size_t off = 0; !rc && off < len;) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = w < 0 ? -errno : -EIO;
		else
			off += (size_t)w;
	}
	if (close(fd) && !rc)
		rc = -errno;
	if (rc)
		unlinkat(dfd, name, 0);
	return rc;
}

/* core.worktree in the config of a repository the run made: git on the
 * host checks files out there later, so it must name, relatively and
 * lexically from the git directory, a place strictly inside the work tree
 * of the repository whose `.git/` holds this one (a submodule's
 * `../../../sub`) that the sandbox may write now -- never HOME, a
 * protected name, or a place outside. It is remembered: for the rest of
 * the run no link or directory lands there or above (`rm -rf sub; ln -s
 * ~ sub` would have the host's checkout write into HOME); a later run
 * finds the work tree's `.git` file and keeps it, which keeps the
 * directory. Nor through a link there now (walk_has_no_link). */
#define MAX_WORKTREES 1024
struct worktree_ctx {
	struct notify *n;
	const char *gitdir; /* the config's directory, as the sandbox names it */
	int gitfd;	    /* ... held */
};

/* Does the relative `value`, walked from the held directory `fd` as git
 * walks it (realpath: `..` from where the step before led), meet no link
 * and nothing but directories, up to a name not there yet with no `..`
 * after it? Then it leads where it says lexically. Not so, git went
 * through a link there before the config was written (`a` -> HOME for
 * `../../../a`, or `x/../lib` with x -> HOME: HOME's parent). */
static bool walk_has_no_link(int fd, const char *value)
{
	char part[NAME_MAX + 1];
	struct stat st;
	int cur = fd, next;
	bool ok = true, gone = false;

	for (const char *p = value; ok && *p;) {
		size_t l = strcspn(p, "/");
		if (l > NAME_MAX) {
			ok = false;
			break;
		}
		memcpy(part, p, l);
		part[l] = '\0';
		p += l + (p[l] == '/');
		if (!l || !strcmp(part, "."))
			continue;
		if (gone) { /* below a name not there: no way back up */
			ok = strcmp(part, "..") != 0;
			continue;
		}
		if (strcmp(part, "..")) {
			if (fstatat(cur, part, &st, AT_SYMLINK_NOFOLLOW)) {
				ok = errno == ENOENT;
				gone = true;
				continue;
			}
			if (!S_ISDIR(st.st_mode)) {
				ok = false;
				break;
			}
		}
		next = openat(cur, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cur != fd)
			close(cur);
		cur = next;
		ok = cur >= 0;
	}
	if (cur >= 0 && cur != fd)
		close(cur);
	return ok;
}

bool notify_gitcfg_worktree_below(const struct notify *n, const char *path)
{
	for (size_t i = 0; i < n->nworktrees; i++)
		if (sbx_path_under(n->worktrees[i], path))
			return true;
	return false;
}

static bool remember_worktree(struct notify *n, const char *gitdir, const char *target)
{
	for (size_t i = 0; i < n->nworktrees; i++)
		if (!strcmp(n->worktrees[i], target) && !strcmp(n->wtgits[i], gitdir))
			return true;
	if (n->nworktrees == MAX_WORKTREES)
		return false; /* not remembered: not allowed */
	if (!n->worktrees && (!(n->worktrees = calloc(MAX_WORKTREES, sizeof(*n->worktrees))) ||
			      !(n->wtgits = calloc(MAX_WORKTREES, sizeof(*n->wtgits))))) {
		free(n->worktrees);
		n->worktrees = NULL;
		return false;
	}
	char *t = strdup(target), *g = strdup(gitdir);
	if (!t || !g) {
		free(t);
		free(g);
		return false;
	}
	n->worktrees[n->nworktrees] = t;
	n->wtgits[n->nworktrees++] = g;
	return true;
}

/* `*p` at or below `from`: moved below `to`. */
static void shift(char **p, const char *from, const char *to)
{
	char *moved;

	if (sbx_path_under(*p, from) && asprintf(&moved, "%s%s", to, *p + strlen(from)) >= 0) {
		free(*p);
		*p = moved;
	}
}

bool notify_gitcfg_worktree_moves(struct call *c, const char *from, const char *to,
				  bool exchange, bool apply)
{
	struct notify *n = c->n;
	char line[PATH_MAX + 200];

	for (size_t i = 0; i < n->nworktrees; i++) {
		if (apply) {
			/* each path once: one under `from` now lies under `to` */
			bool tf = sbx_path_under(n->worktrees[i], from);
			bool gf = sbx_path_under(n->wtgits[i], from);
			if (tf)
				shift(&n->worktrees[i], from, to);
			else if (exchange)
				shift(&n->worktrees[i], to, from);
			if (gf)
				shift(&n->wtgits[i], from, to);
			else if (exchange)
				shift(&n->wtgits[i], to, from);
			continue;
		}
		for (int side = 0; side < 1 + exchange; side++) {
			const char *d = side ? to : from;
			if (!sbx_path_under(n->wtgits[i], d) || sbx_path_under(n->worktrees[i], d))
				continue;
			snprintf(line, sizeof(line), "moving it moves the git directory %s away from "
				 "the work tree its core.worktree names: refused", n->wtgits[i]);
			refuse_line(c, d, line, EACCES);
			return false;
		}
	}
	return true;
}

static bool worktree_ok(const char *value, void *ctx)
{
	const struct worktree_ctx *w = ctx;
	const struct policy *p = w->n->p;
	char target[PATH_MAX];
	const char *home = policy_home(p), *g = strstr(w->gitdir, "/.git/");
	size_t top;

	if (!g || value[0] == '/' || !value[0] || path_join(w->gitdir, value, target, sizeof(target)))
		return false;
	top = (size_t)(g - w->gitdir);
	if (strncmp(target, w->gitdir, top) || target[top] != '/' || !target[top + 1])
		return false;
	if (home && sbx_path_under(home, target))
		return false; /* HOME itself, or a directory above it */
	return policy_check_path(p, SBX_OP_WRITE, target, NULL) == SBX_ALLOW &&
	       walk_has_no_link(w->gitfd, value) && remember_worktree(w->n, w->gitdir, target);
}

/* May `ng` be the config of the git directory `gitdir` (held: `gitfd`)? The run's own
 * repository's (as_new) holds no kept key but what git writes into a new
 * one; another's changes none of the kept keys of `og`. The line into
 * `line` when not. */
static bool gitcfg_judged(struct notify *n, const char *gitdir, int gitfd, const struct gitcfg *og,
			  const struct gitcfg *ng, bool as_new, char *line, size_t linesz)
{
	const struct gitcfg_row *row = NULL;
	struct worktree_ctx w = { .n = n, .gitdir = gitdir, .gitfd = gitfd };
	char key[256], shown[200];

	if (!(as_new ? gitcfg_risky_new(ng, worktree_ok, &w, key, sizeof(key), &row) :
		       gitcfg_risky_change(og, ng, key, sizeof(key), &row)))
		return true;
	report_printable(key, shown, sizeof(shown), true);
	snprintf(line, linesz, "%s would %s: refused (%s; set it outside the sandbox if you mean it)",
		 shown, row->does, row->reader);
	return false;
}

struct answer notify_gitcfg_rename(struct call *c, int ofd, const char *oname, int nfd,
				   const char *nname, const char *nfull,
				   unsigned flags, bool as_new)
{
	char *nbuf = NULL, *obuf = NULL, line[PATH_MAX + 256], tmp[64];
	size_t nlen = 0, olen = 0;
	struct gitcfg *ng = NULL, *og = NULL;
	struct gitcfg_err perr;
	struct stat sst, tst, again;
	struct statvfs sv;
	/* refused as the policy refuses the name; one it judges as a
	 * .git's config (a bare repository's) is not refused by name, and
	 * the shim, seeing EACCES there, leaves the line to ours */
	int deny = policy_check_path(c->n->p, SBX_OP_WRITE, nfull, NULL) == SBX_DENY ? DENY_ERRNO :
										     EACCES;
	struct answer a = ERR(deny);
	int sfd = -1, tfd = -1, rc;
	bool have_old = false;

	/* a directory on a read-only mount is not the sandbox's to change:
	 * the supervisor would write where the boundary keeps it out */
	if (fstatvfs(nfd, &sv) || (sv.f_flag & ST_RDONLY) || fstatvfs(ofd, &sv) ||
	    (sv.f_flag & ST_RDONLY))
		return ERR(deny);
	bool acting = true;
	notify_act_begin(c->n, NO_UMASK);
	sfd = openat(ofd, oname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (sfd < 0) {
		a = ERR(errno == ELOOP ? DENY_ERRNO : errno);
		goto out;
	}
	if (fstat(sfd, &sst) || !S_ISREG(sst.st_mode)) {
		a = ERR(deny);
		goto out;
	}
	tfd = openat(nfd, nname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (tfd < 0 && errno != ENOENT) {
		a = ERR(errno == ELOOP ? DENY_ERRNO : errno);
		goto out;
	}
	have_old = tfd >= 0;
	if (have_old && (flags & RENAME_NOREPLACE)) {
		a = ERR(EEXIST);
		goto out;
	}
	if (have_old && (fstat(tfd, &tst) || !S_ISREG(tst.st_mode))) {
		a = ERR(deny); /* not a file git reads as its config */
		goto out;
	}
	if ((rc = read_all(sfd, &nbuf, &nlen, GITCFG_READ_MAX)) ||
	    (have_old && (rc = read_all(tfd, &obuf, &olen, GITCFG_READ_MAX)))) {
		snprintf(line, sizeof(line), "%s %s cannot be read (%s): refused",
			 rc == -E2BIG ? "a git config" : "the git config",
			 obuf || !nbuf ? "in place" : "written", rc == -E2BIG ? "larger than 1 MiB" :
			 strerror(-rc));
		refuse_line(c, nfull, line, deny);
		goto out;
	}
	notify_act_end(c->n, NO_UMASK);
	acting = false;
	if ((rc = gitcfg_parse(nbuf, nlen, &ng, &perr)) ||
	    (have_old && (rc = gitcfg_parse(obuf, olen, &og, &perr)))) {
		snprintf(line, sizeof(line), "the %s git config is not one git reads (line %u: %s): "
			 "refused", ng ? "present" : "new", perr.line, perr.msg);
		refuse_line(c, nfull, line, deny);
		goto out;
	}
	char gitdir[PATH_MAX];
	snprintf(gitdir, sizeof(gitdir), "%.*s", (int)(strlen(nfull) - strlen(nname) - 1), nfull);
	if (!gitcfg_judged(c->n, gitdir, nfd, og, ng, as_new, line, sizeof(line))) {
		refuse_line(c, nfull, line, deny);
		goto out;
	}
	notify_act_begin(c->n, NO_UMASK);
	acting = true;
	rc = write_new(nfd, nbuf, nlen, sst.st_mode & 0666, tmp, sizeof(tmp));
	if (rc) {
		a = ERR(-rc);
		goto out;
	}
	/* in our own namespace: the target is no mount point here */
	if (syscall(SYS_renameat2, nfd, tmp, nfd, nname, flags & RENAME_NOREPLACE)) {
		a = ERR(errno);
		unlinkat(nfd, tmp, 0);
		goto out;
	}
	/* the lock file goes, as the rename would have taken it; only the
	 * file we read (another one put there meanwhile is left) */
	if (!fstatat(ofd, oname, &again, AT_SYMLINK_NOFOLLOW) && again.st_dev == sst.st_dev &&
	    again.st_ino == sst.st_ino)
		unlinkat(ofd, oname, 0);
	a = OK(0);
out:
	if (acting)
		notify_act_end(c->n, NO_UMASK);
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	gitcfg_free(ng);
	gitcfg_free(og);
	free(nbuf);
	free(obuf);
	return a;
}

/* Making `name` (objects or refs, of any type: a directory, a file, a
 * FIFO, a link; notify_git_part) in the held directory `dfd` (path `dir`)
 * may make it a directory git takes for a repository (objects and refs
 * beside each other: a bare one, or what a `.git` file or a `commondir`
 * leads to), and the `config` there its config, written before, when no
 * rule could tell what it would be. It is judged then as a config the run
 * made is, and replaced by a file of ours with the bytes judged: a
 * descriptor the program kept open on the old one writes into nothing
 * git reads. Both here, before the call is made, with no other notified
 * call between: afterwards a write of it by name is judged as the config
 * it is (preload/notify/paths.c). 0, or -errno (refused, said). */
int notify_gitcfg_complete(struct call *c, int dfd, const char *dir, const char *name)
{
	const char *other = !strcmp(name, "objects") ? "refs" : !strcmp(name, "refs") ? "objects" : NULL;
	char *buf = NULL, line[PATH_MAX + 256], target[PATH_MAX], tmp[64];
	struct gitcfg *g = NULL;
	struct gitcfg_err perr;
	struct stat st, again;
	size_t len = 0;
	int fd = -1, rc = 0;

	if (!other || !notify_git_part(dfd, other) || notify_git_part(dfd, name) == 1)
		return 0; /* no repository made, or one that was one already */
	if (fstatat(dfd, "config", &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -EACCES;
	snprintf(target, sizeof(target), "%s/config", strcmp(dir, "/") ? dir : "");
	bool acting = true;
	notify_act_begin(c->n, NO_UMASK);
	if (!S_ISREG(st.st_mode)) {
		snprintf(line, sizeof(line), "%s makes a repository whose config is not a file: refused",
			 name);
		goto refused;
	}
	fd = openat(dfd, "config", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (rc = read_all(fd, &buf, &len, GITCFG_READ_MAX))) {
		snprintf(line, sizeof(line), "%s makes a repository whose config cannot be read: "
			 "refused", name);
		goto refused;
	}
	notify_act_end(c->n, NO_UMASK);
	acting = false;
	if (gitcfg_parse(buf, len, &g, &perr)) {
		snprintf(line, sizeof(line), "%s makes a repository of a config git does not read "
			 "(line %u: %s): refused", name, perr.line, perr.msg);
		goto refused;
	}
	if (!gitcfg_judged(c->n, dir, dfd, NULL, g, true, line, sizeof(line)))
		goto refused;
	notify_act_begin(c->n, NO_UMASK);
	acting = true;
	if ((rc = write_new(dfd, buf, len, st.st_mode & 0666, tmp, sizeof(tmp)))) {
		rc = rc < 0 ? rc : -EIO;
		goto out;
	}
	/* onto the file we read: one put there meanwhile is not ours */
	if (fstatat(dfd, "config", &again, AT_SYMLINK_NOFOLLOW) || again.st_ino != st.st_ino ||
	    again.st_dev != st.st_dev || renameat(dfd, tmp, dfd, "config")) {
		unlinkat(dfd, tmp, 0);
		rc = -EACCES;
		snprintf(line, sizeof(line), "%s makes a repository whose config changed meanwhile: "
			 "refused", name);
		goto refused;
	}
	rc = 0;
	goto out;
refused:
	refuse_line(c, target, line, EACCES);
	rc = -EACCES;
out:
	if (acting)
		notify_act_end(c->n, NO_UMASK);
	if (fd >= 0)
		close(fd);
	gitcfg_free(g);
	free(buf);
	return rc;
}
