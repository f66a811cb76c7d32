/* preload/notify/paths.c: the notified calls that name a path --
 * open/creat with a write or create flag, mkdir, mknod, symlink, rename,
 * link, truncate -- and a Unix socket's bind() and connect() by path
 * (preload/notify/internal.h). Each is resolved in the caller's view, decided by the
 * policy (the mandatory and deny_write rules at any depth, the git
 * exception) and made by the supervisor on the directory it checked
 * (notify.c's header comment has the steps).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/stat.h>
#include <sys/uio.h>
#include <stddef.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "common/control.h"
#include "common/pathwalk.h"
#include "common/cleanup.h"
#include "common/event.h"
#include "preload/notify/internal.h"
#include "preload/preload.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* What a descriptor of ours is, as a path in the sandbox's view: the
 * kernel gives the path below the root of the mount namespace the object
 * lives in, which is the sandbox's. */
static int fd_path(int fd, char *out, size_t outsz)
{
	char l[64];
	snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(l, out, outsz - 1);
	if (n < 0)
		return -errno; /* ENAMETOOLONG past a page */
	out[n] = '\0';
	/* a name too long to tell is not "no name": a protected file moved
	 * below a chain of directories past PATH_MAX was written unjudged */
	if ((size_t)n >= outsz - 1)
		return -ENAMETOOLONG;
	if (out[0] != '/')
		return -ENOENT; /* not a path (a pipe, a socket, an unreachable place) */
	return 0;
}

static int open_in_root(const struct call *c, const char *path, int flags, bool nofollow)
{
	struct open_how how = { .flags = (unsigned long long)(flags | O_CLOEXEC),
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	if (nofollow)
		how.flags |= O_NOFOLLOW;
	/* walked as the program walks it: a root supervisor's
	 * CAP_DAC_READ_SEARCH would pass a directory the program cannot
	 * search (mode 0700, another owner) and make or open what is in it */
	if (c->n->root && !c->n->low)
		notify_caps_effective(c->n, false);
	int fd = pathwalk_openat2(c->root, path, &how);
	if (c->n->root && !c->n->low)
		notify_caps_effective(c->n, true);
	return fd;
}

/* The directory a relative path starts from: the program's cwd or dirfd,
 * as a path in its view (the kernel's name for it; one it no longer has,
 * a removed directory, is refused). Resolved again through its root when
 * used: if a thread renames it meanwhile, the decision is still made on
 * the directory we act in (parent_open), never on this string. */
static int base_dir(const struct call *c, int dirfd, char *out, size_t outsz)
{
	char l[64];

	if (dirfd == AT_FDCWD)
		snprintf(l, sizeof(l), "/proc/%d/cwd", (int)c->pid);
	else
		snprintf(l, sizeof(l), "/proc/%d/fd/%d", (int)c->pid, dirfd);
	ssize_t n = readlink(l, out, outsz - 1);
	if (n < 0)
		return errno == ENOENT && dirfd != AT_FDCWD ? -EBADF : -errno;
	out[n] = '\0';
	if (out[0] != '/')
		return -ENOTDIR; /* a pipe, a socket: not a directory */
	if ((size_t)n >= outsz - 1 || (n > 10 && !strcmp(out + n - 10, " (deleted)")))
		return -ENOENT;
	return 0;
}

/* `path` (from the program) made absolute in its view, unfolded: `..`
 * and links are left for the kernel to resolve. Then the request is
 * checked still waiting: what was read (the path, the cwd) was the
 * caller's; the callers read their strings first and check only here. */
static int abs_path(const struct call *c, int dirfd, const char *path, char *out, size_t outsz)
{
	char base[PATH_MAX];

	if (!path[0])
		return -ENOENT;
	if (path[0] == '/') {
		if (strlen(path) >= outsz)
			return -ENAMETOOLONG;
		strcpy(out, path);
		/* the path read was the caller's if it still waits */
		return notify_call_valid(c) ? 0 : -ENOENT;
	}
	int rc = base_dir(c, dirfd, base, sizeof(base));
	if (rc)
		return rc;
	/* the path read and the cwd were the caller's if it still waits */
	if (!notify_call_valid(c))
		return -ENOENT;
	if ((size_t)snprintf(out, outsz, "%s/%s", strcmp(base, "/") ? base : "", path) >= outsz)
		return -ENAMETOOLONG;
	return 0;
}

/* The parent directory of `abs`, held (links followed in the program's
 * view), its path as the kernel names it, and the last component (into
 * `name`). A trailing slash is dropped; *slash says there was one. */
struct parent {
	int fd;
	char path[PATH_MAX];
	char name[NAME_MAX + 1];
	bool slash;
	bool cached; /* the notify's last_dir's: not ours to close */
};

/* The last directory a new file was made in (create_new), held with its
 * kernel path: a checkout or a build makes many files in one directory in
 * a row. What a path string leads to changes only by a rename, a new
 * directory or link where one was removed, or a mount; the program's
 * renames, mkdirs and links are all ours to make (notified), and each
 * forgets it (forget_last_dir), a mount it cannot make. A directory
 * removed meanwhile (rmdir is not notified) is still held: making in it
 * fails (ENOENT), and create_new then looks the path up again. */
void notify_forget_last_dir(struct notify *n)
{
	if (n->last_dir.fd >= 0)
		close(n->last_dir.fd);
	n->last_dir.fd = -1;
}

static int parent_open_as(const struct call *c, const char *abs, struct parent *pa, bool cache)
{
	char dir[PATH_MAX];
	size_t len = strlen(abs);
	struct notify *n = c->n;

	pa->fd = -1;
	pa->slash = false;
	pa->cached = false;
	while (len > 1 && abs[len - 1] == '/') {
		len--;
		pa->slash = true;
	}
	size_t cut = len;
	while (cut > 0 && abs[cut - 1] != '/')
		cut--;
	if (len - cut > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(pa->name, abs + cut, len - cut);
	pa->name[len - cut] = '\0';
	memcpy(dir, abs, cut);
	dir[cut] = '\0';
	if (!cut)
		strcpy(dir, "/");
	if (!pa->name[0])
		strcpy(pa->name, "."); /* "/" itself */
	if (cache && n->last_dir.fd >= 0 && !strcmp(dir, n->last_dir.dir) &&
	    strlen(n->last_dir.path) + 1 + strlen(pa->name) < PATH_MAX) {
		pa->fd = n->last_dir.fd;
		strcpy(pa->path, n->last_dir.path);
		pa->cached = true;
		return 0;
	}
	int fd = open_in_root(c, dir, O_PATH | O_DIRECTORY, false);
	if (fd < 0)
		return fd;
	int rc = fd_path(fd, pa->path, sizeof(pa->path));
	/* the path judged is the parent's and the name: one that does not
	 * fit is refused, never judged cut short (a link to a directory
	 * 4088 long made `.mcp.json` there judged as "") */
	if (!rc && strlen(pa->path) + 1 + strlen(pa->name) >= PATH_MAX)
		rc = -ENAMETOOLONG;
	if (rc) {
		close(fd);
		return rc;
	}
	pa->fd = fd;
	if (cache) {
		notify_forget_last_dir(n);
		n->last_dir.fd = fd;
		strcpy(n->last_dir.dir, dir);
		strcpy(n->last_dir.path, pa->path);
		pa->cached = true;
	}
	return 0;
}

static int parent_open(const struct call *c, const char *abs, struct parent *pa)
{
	return parent_open_as(c, abs, pa, false);
}

static void parent_close(struct parent *pa)
{
	if (pa->fd >= 0 && !pa->cached)
		close(pa->fd);
	pa->fd = -1;
}

/* A struct parent let go of where it goes out of scope (common/cleanup.h):
 * declared `struct parent pa cleanup_parent = PARENT_NONE;`. */
#define cleanup_parent __attribute__((cleanup(parent_close)))
#define PARENT_NONE { .fd = -1 }

static bool dot_name(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* dir + "/" + name; parent_open() refused the ones that do not fit. */
static void join(const char *dir, const char *name, char *out, size_t outsz)
{
	size_t d = strcmp(dir, "/") ? strlen(dir) : 0, k = strlen(name);

	if (d + 1 + k >= outsz) {
		out[0] = '\0';
		return;
	}
	memcpy(out, dir, d);
	out[d] = '/';
	memcpy(out + d + 1, name, k + 1);
}

/* ---- the decision */

static bool protective(const struct sbx_rule *r)
{
	return r && (r->kind == SBX_RULE_MANDATORY || r->kind == SBX_RULE_DENY_WRITE ||
		     r->kind == SBX_RULE_HOME_KEPT);
}

bool notify_git_own(const char *rest)
{
	size_t n = strlen(rest);

	if (!strcmp(rest, "hooks"))
		return true;
	return !strncmp(rest, "hooks/", 6) && !strchr(rest + 6, '/') && n > 6 + 7 &&
	       !strcmp(rest + n - 7, ".sample");
}

/* The file handle of `name` in `dfd` ("" : `dfd` itself), or none. */
static void fid_of(int dfd, const char *name, struct fid *f)
{
	union {
		struct file_handle fh;
		char b[sizeof(struct file_handle) + FID_MAX];
	} h;
	int mnt;

	memset(f, 0, sizeof(*f));
	h.fh.handle_bytes = FID_MAX;
	if (name_to_handle_at(dfd, name, &h.fh, &mnt, name[0] ? 0 : AT_EMPTY_PATH))
		return;
	f->type = h.fh.handle_type ? h.fh.handle_type : -1;
	f->len = h.fh.handle_bytes;
	memcpy(f->h, h.fh.f_handle, f->len);
}

static bool same_fid(const struct fid *a, const struct fid *b)
{
	return a->type == b->type && a->len == b->len && !memcmp(a->h, b->h, a->len);
}

/* Is the directory (or file) `dfd`, whose stat is `st`, a git directory
 * the run made? By inode and file handle: not a later one on its inode. */
static bool git_made(const struct notify *n, int dfd, const struct stat *st)
{
	struct fid f;
	bool have = false;

	for (size_t i = 0; i < n->ngit; i++)
		if (n->git[i].dev == st->st_dev && n->git[i].ino == st->st_ino) {
			if (!have)
				fid_of(dfd, "", &f);
			have = true;
			if (same_fid(&n->git[i].fid, &f))
				return true;
		}
	return false;
}

/* Is the git directory `levels` directories above the held directory
 * `fd` one the run made? */
static bool git_made_here(const struct notify *n, int fd, unsigned levels)
{
	struct stat st;
	int cur = fd, up;
	bool ok = false;

	for (unsigned i = 0; i < levels; i++) {
		up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cur != fd)
			close(cur);
		if (up < 0)
			return false;
		cur = up;
	}
	if (!fstat(cur, &st))
		ok = git_made(n, cur, &st);
	if (cur != fd)
		close(cur);
	return ok;
}

/* The exception for git: a git directory the program made during the run
 * gets what `git init` and `git clone` write plainly, its hooks/ and the
 * sample hooks, and its work tree's .gitmodules; never a hook git would
 * run, and its config only by a vetted rename (git_config_vetted). `full`
 * is parent `fd`'s path plus the name. */
static bool git_exception(const struct notify *n, int fd, const char *full)
{
	const char *g = NULL;
	size_t fl = strlen(full);

	/* the top of a work tree the run cloned or made: its .gitmodules
	 * (`git clone` of a repository with submodules checks it out; it is
	 * that new repository's alone, as its config is) */
	if (fl > 12 && !strcmp(full + fl - 12, "/.gitmodules")) {
		struct stat st;
		bool ok = false;
		/* a .git directory, or the .git file `git worktree add`
		 * makes in the new worktree */
		int git = openat(fd, ".git", O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (git >= 0) {
			ok = !fstat(git, &st) && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) &&
			     git_made(n, git, &st);
			close(git);
		}
		return ok;
	}
	for (const char *q = strstr(full, "/.git/"); q; q = strstr(q + 1, "/.git/"))
		g = q;
	if (g && notify_git_own(g + 6))
		return git_made_here(n, fd, strchr(g + 6, '/') ? 1 : 0);
	/* the hooks/ and sample hooks of a git directory under another name
	 * the run made (a submodule's under .git/modules/, cloned by `git
	 * submodule update --init`): as a .git's (notify_git_own) */
	const char *base = strrchr(full, '/');
	if (!base)
		return false;
	if (!strcmp(base, "/hooks"))
		return git_made_here(n, fd, 0);
	/* its sample hooks, as git init copies them */
	size_t bl = strlen(base);
	if (bl > 8 && !strcmp(base + bl - 7, ".sample") && !strchr(base + 1, '/') &&
	    base - full >= 6 && !strncmp(base - 6, "/hooks", 6))
		return git_made_here(n, fd, 1);
	return false;
}

static const char *base_of(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

/* A `config` in a directory git may take for a repository under another
 * name than `.git` -- objects/ and refs/ beside it: a bare repository, or
 * what a `.git` file or a `commondir` leads to, wherever it is -- judged
 * as `.git/config` would be (no rule names it): its path so into `view`.
 * `fd` is the held directory (-1: not known, no view). */
static bool config_view(int fd, const char *full, char *view, size_t viewsz)
{
	const char *name = base_of(full);
	size_t dl = (size_t)(name - full);

	if (fd < 0 || strcmp(name, "config") || dl < 2 || !notify_git_part(fd, "objects") ||
	    !notify_git_part(fd, "refs"))
		return false;
	const char *dir = full + dl - 1, *up = dir;
	while (up > full && *--up != '/')
		;
	if ((size_t)(dir - up) == 5 && !strncmp(up, "/.git", 5))
		return false; /* a .git's own: the rows name it */
	return (size_t)snprintf(view, viewsz, "%.*s/.git/config", (int)(up - full), full) < viewsz;
}

/* Is `full` (`name` in the held directory `fd`) a git config the
 * policy keeps by an executes-later row -- a repository's config or
 * config.worktree, a submodule's, a linked worktree's, a work tree's
 * .gitmodules -- that a vetted rename may replace (preload/notify/gitcfg.c)? Not
 * where the user's own deny_write names it, nor in a git directory the
 * run made (the git exception's: plain), nor a bare repository's config
 * (no row keeps it once its bind is gone: refused as before). */
enum vetted { NOT_VETTED, VET_CHANGE, VET_NEW };
static enum vetted git_config_vetted(const struct notify *n, int fd, const char *name,
				     const char *full)
{
	static const char *const rows[] = { ".git/config", ".git/config.worktree", ".gitmodules",
					    "config.worktree",
					    ".git/modules/*/config", ".git/modules/*/config.worktree",
					    ".git/modules/*/modules/*/config",
					    ".git/modules/*/modules/*/config.worktree",
					    ".git/worktrees/*/config.worktree" };
	const struct sbx_rule *why, *const *user;
	size_t nu;
	bool row = false;
	char view[PATH_MAX];
	const char *judged = full;

	if (strcmp(name, "config") && strcmp(name, "config.worktree") && strcmp(name, ".gitmodules"))
		return NOT_VETTED;
	if (config_view(fd, full, view, sizeof(view)))
		judged = view;
	if (policy_check_path(n->p, SBX_OP_WRITE, judged, &why) != SBX_DENY || !why ||
	    why->kind != SBX_RULE_MANDATORY || why->pat != SBX_PAT_ANYWHERE)
		return NOT_VETTED;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		row |= !strcmp(why->pattern, rows[i]);
	if (!row)
		return NOT_VETTED;
	user = policy_rules(n->p, SBX_RULE_DENY_WRITE, &nu);
	for (size_t i = 0; i < nu; i++)
		if (policy_rule_matches(user[i], full))
			return NOT_VETTED;
	/* the directory must be one the program may make a name in (the
	 * supervisor's new file goes there): not a place HOME's allow-list
	 * keeps (a ~/.dotfiles with HOME writable), nor one outside the
	 * writable roots on a writable mount */
	char sib[PATH_MAX];
	size_t fl = strlen(full), bl = strlen(name);
	if (fl - bl + 12 >= sizeof(sib))
		return NOT_VETTED;
	snprintf(sib, sizeof(sib), "%.*s.sbx-gitcfg", (int)(fl - bl), full);
	if (policy_check_path(n->p, SBX_OP_WRITE, sib, NULL) != SBX_ALLOW)
		return NOT_VETTED;
	/* a work tree's .gitmodules the run made: plain (git_exception) */
	if (!strcmp(name, ".gitmodules"))
		return git_exception(n, fd, full) ? NOT_VETTED : VET_CHANGE;
	/* the config of a repository the run made, or one inside it (a
	 * submodule `libs/foo` cloned into .git/modules/libs/foo): judged
	 * whole, whatever it held a moment ago (git init's first write has
	 * nothing before) */
	for (unsigned up = 0; up < 8; up++)
		if (git_made_here(n, fd, up))
			return VET_NEW;
	return VET_CHANGE;
}

/* A place HOME's allow-list keeps (policy/home.c) below `path`, where it
 * is kept now (HOME writable, the place not named): a directory landing at
 * `path` would bring it in (`mv stage ~/go` with stage/bin/x). false then. */
static bool home_kept_below(const struct policy *p, const char *path,
			    const struct sbx_rule **why)
{
	const struct sbx_rule *const *rules, *w;
	size_t nr, plen = strlen(path);

	rules = policy_rules(p, SBX_RULE_HOME_KEPT, &nr);
	for (size_t i = 0; i < nr; i++) {
		const struct sbx_rule *r = rules[i];
		bool below = r->pat == SBX_PAT_GLOB ?
			     sbx_glob_match_below(r->pattern, path, plen) :
			     !strncmp(r->pattern, path, plen) && (r->pattern[plen] == '/' || plen == 1);
		/* kept now: a glob's (`~/.zcompdump*`) is, by its rule's kind */
		if (below && (r->pat == SBX_PAT_GLOB ||
			      (policy_check_path(p, SBX_OP_WRITE, r->pattern, &w) == SBX_DENY && w == r))) {
			*why = r;
			return false;
		}
	}
	return true;
}

/* May a directory (or a link) land at `path`? Not where what it holds
 * could complete a protected name: `path` is an ancestor of a match of a
 * mandatory or deny_write rule, decided by the rules' own matcher (globs
 * in every component): `~/.local/lib/python3.11` for `~/.local/lib/
 * python*` + `/site-packages/`, `x/.claude` for `.claude/settings.json` at
 * any depth. What the directory holds now does not count: it can be
 * refilled through the link, or the moment after the rename. */
bool notify_dir_may_land(const struct policy *p, const char *path, const struct sbx_rule **why)
{
	static const enum sbx_rule_kind kinds[] = { SBX_RULE_MANDATORY, SBX_RULE_DENY_WRITE };
	size_t plen = strlen(path);

	for (size_t k = 0; k < 2; k++) {
		size_t nr;
		const struct sbx_rule *const *rules = policy_rules(p, kinds[k], &nr);
		for (size_t i = 0; i < nr; i++) {
			const struct sbx_rule *r = rules[i];
			bool below = false;
			if (r->pat == SBX_PAT_PREFIX) {
				below = !strncmp(r->pattern, path, plen) &&
					(r->pattern[plen] == '/' || plen == 1);
			} else if (r->pat == SBX_PAT_GLOB) {
				below = sbx_glob_match_below(r->pattern, path, plen);
			} else {
				/* from each component on: `x/.claude` is the
				 * start of `.claude/settings.json` */
				for (size_t j = 1; !below && j < plen; j++)
					below = path[j - 1] == '/' &&
						sbx_glob_match_below(r->pattern, path + j, plen - j);
			}
			if (below && !policy_mandatory_lifted(p, r, path)) {
				*why = r;
				return false;
			}
		}
	}
	return home_kept_below(p, path, why);
}

/* May a name be made (or written) at `full`, below held directory `fd`?
 * `as_dir`: a directory or a link lands there (renamed, or symlinked), so
 * what its inside could complete counts too. */
int notify_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is `full` one of the paths the plan keeps from being made (a protected
 * link's missing target: no rule names it), or, for a directory or link
 * landing there (`below`), does one lie under it? */
static bool refused_path(const struct notify *n, const char *full, bool below)
{
	if (!n->nrefused)
		return false;
	if (bsearch(&full, n->refused, n->nrefused, sizeof(*n->refused), notify_cmp_str))
		return true;
	size_t l = strlen(full);
	for (size_t i = 0; below && i < n->nrefused; i++)
		if (!strncmp(n->refused[i], full, l) && (n->refused[i][l] == '/' || l == 1))
			return true;
	return false;
}

/* Does git take the directory `dfd` for a repository, or will it once the
 * links among its parts lead where they may? One we cannot tell is taken
 * for one: judged and named as one. */
static bool git_dir_at(int dfd)
{
	return notify_git_part(dfd, "HEAD") && notify_git_part(dfd, "objects") && notify_git_part(dfd, "refs");
}

static bool git_listed(const struct notify *n, int dfd)
{
	struct stat st;
	bool ok = false;

	if (!fstat(dfd, &st))
		ok = git_made(n, dfd, &st);
	return ok;
}

/* A git directory under another name than `.git` (a bare repository,
 * `git init --bare`, `git clone --mirror`, or one made by hand) is judged
 * as a `.git` would be: `X.git/hooks/pre-receive` as `./.git/hooks/
 * pre-receive`, so the rules that keep a repository's hooks (and what the
 * user wrote about them) hold for it too; git on the host runs a bare
 * repository's hooks on a push to it or an update-ref in it. `full` names
 * `hooks` in a git directory, or a name in its `hooks/`; `fd` is its
 * parent, held. Gives the judged path in `view`, and whether that git
 * directory is one the run made (`*ours`: git's samples allowed). */
static bool bare_view(const struct notify *n, int fd, const char *full, char *view,
		      size_t viewsz, bool *ours)
{
	char git[PATH_MAX];
	const char *name = base_of(full);
	size_t fl = strlen(full);
	int gfd = fd;
	bool in_hooks;

	if (fd < 0 || fl >= sizeof(git))
		return false;
	memcpy(git, full, fl + 1);
	git[name - full ? (size_t)(name - full) - 1 : 0] = '\0'; /* the parent */
	in_hooks = strcmp(name, "hooks") != 0;
	if (in_hooks) {
		if (strcmp(base_of(git), "hooks"))
			return false;
		char *cut = strrchr(git, '/');
		if (!cut)
			return false;
		*cut = '\0'; /* the git directory */
		gfd = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (gfd < 0)
			return false;
	}
	bool yes = !!strcmp(base_of(git), ".git") && git_dir_at(gfd);
	*ours = yes && git_listed(n, gfd);
	if (gfd != fd)
		close(gfd);
	if (!yes)
		return false;
	char *cut = strrchr(git, '/');
	size_t dl = cut ? (size_t)(cut - git) : 0;
	return (size_t)snprintf(view, viewsz, "%.*s/.git/%s%s", (int)dl, git,
				in_hooks ? "hooks/" : "hooks", in_hooks ? name : "") < viewsz;
}

/* Would making `name` (HEAD, objects or refs) in the held directory `fd`
 * make it a git directory whose hooks/ already holds a hook (made before,
 * when no rule could tell it was one)? The hook's name into `hook`. A
 * `hooks` that is a link counts as one: what lands in the directory it
 * leads to is judged by that directory's own path, never as a hook. */
static bool completes_git_with_hook(int fd, const char *name, char *hook, size_t hooksz)
{
	static const char *const parts[] = { "HEAD", "objects", "refs" };
	struct stat st;
	bool found = false, other = false;

	for (size_t i = 0; i < 3; i++) {
		if (!strcmp(name, parts[i])) {
			found = true;
			continue;
		}
		if (!notify_git_part(fd, parts[i]))
			return false;
	}
	/* one there already (git moves HEAD.lock onto HEAD at a checkout):
	 * the directory was a repository before, its hooks judged as it grew */
	if (!found || notify_git_part(fd, name) == 1)
		return false;
	if (!fstatat(fd, "hooks", &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode)) {
		snprintf(hook, hooksz, "%s", "hooks");
		return true;
	}
	/* a hooks/ we cannot list (mode 0300: still made in and searched)
	 * holds a hook for all we know: refused, never taken for empty */
	int h = openat(fd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int he = errno;
	DIR *d = h >= 0 ? fdopendir(h) : NULL;
	if (!d) {
		if (h >= 0)
			close(h);
		snprintf(hook, hooksz, "%s", "hooks");
		return h >= 0 || (he != ENOENT && he != ENOTDIR);
	}
	errno = 0;
	for (struct dirent *e; !other && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (dot_name(e->d_name) || (l > 7 && !strcmp(e->d_name + l - 7, ".sample")))
			continue;
		snprintf(hook, hooksz, "%s", e->d_name);
		other = true;
	}
	if (!other && errno) {
		snprintf(hook, hooksz, "%s", "hooks");
		other = true;
	}
	closedir(d);
	return other;
}

static bool may_make(const struct notify *n, int fd, const char *full, bool as_dir,
		     const struct sbx_rule **why)
{
	char view[PATH_MAX];
	bool ours = false;

	*why = NULL;
	if (refused_path(n, full, as_dir))
		return false; /* reported by what plan.c guarded */
	/* a bare repository's hooks, judged as a .git's (no rule names them) */
	if (bare_view(n, fd, full, view, sizeof(view), &ours) &&
	    policy_check_path(n->p, SBX_OP_WRITE, view, why) == SBX_DENY && protective(*why) &&
	    (as_dir || !ours || !notify_git_own(strstr(view, "/.git/") + 6)))
		return false;
	/* a config of one under another name, written but by a vetted rename */
	if (config_view(fd, full, view, sizeof(view)) &&
	    policy_check_path(n->p, SBX_OP_WRITE, view, why) == SBX_DENY && protective(*why))
		return false;
	/* ... and one completed around a hook made before */
	char hook[NAME_MAX + 1];
	const char *name = base_of(full);
	if (fd >= 0 && (!strcmp(name, "HEAD") || !strcmp(name, "objects") || !strcmp(name, "refs")) &&
	    completes_git_with_hook(fd, name, hook, sizeof(hook))) {
		size_t dl = (size_t)(name - full) > 1 ? (size_t)(name - full) - 1 : 0;
		const char *up = full + dl;
		while (up > full && *--up != '/')
			;
		snprintf(view, sizeof(view), "%.*s/.git/hooks/%s", (int)(up - full), full, hook);
		if (policy_check_path(n->p, SBX_OP_WRITE, view, why) == SBX_DENY && protective(*why))
			return false;
	}
	*why = NULL;
	/* git's own `hooks/` is a directory it makes (mkdir): one landing
	 * there (renamed, or a link) would bring any hook with it */
	if (policy_check_path(n->p, SBX_OP_WRITE, full, why) == SBX_DENY && protective(*why) &&
	    (as_dir || !git_exception(n, fd, full)))
		return false;
	*why = NULL;
	/* nor where a repository the run made checks its work tree out */
	if (as_dir && notify_gitcfg_worktree_below(n, full))
		return false;
	return !as_dir || notify_dir_may_land(n->p, full, why);
}

/* An existing file at `full` that a protected rule names: still writable
 * when it is git's own in a git directory the run made (its hooks/ and
 * samples); its config too when only its mode changes (`mode`: git init
 * flips a bit of it to learn whether the file system keeps modes, and
 * writes core.fileMode by what it saw). */
static int parent_open(const struct call *c, const char *abs, struct parent *pa);
static bool git_writable(const struct call *c, const char *full, bool mode)
{
	struct parent pa;
	bool ok;

	if (parent_open(c, full, &pa))
		return false;
	char again[PATH_MAX];
	join(pa.path, pa.name, again, sizeof(again));
	ok = !strcmp(again, full) &&
	     (git_exception(c->n, pa.fd, full) ||
	      (mode && !strcmp(pa.name, "config") && git_made_here(c->n, pa.fd, 0)));
	parent_close(&pa);
	return ok;
}

/* May the existing file at `full` be written (or linked, its bytes then
 * written through the new name)? Not where a protected rule keeps it
 * (git's own in a repository the run made aside), nor when it is the
 * config of a repository under another name than .git (config_view). */
static bool may_write_existing(const struct call *c, const char *full,
			       const struct sbx_rule **why)
{
	struct parent pa;
	char again[PATH_MAX], view[PATH_MAX];
	bool ok = true;

	if (!may_make(c->n, -1, full, false, why) && !git_writable(c, full, false))
		return false;
	*why = NULL;
	if (strcmp(base_of(full), "config"))
		return true;
	if (parent_open(c, full, &pa))
		return false; /* a config whose directory we cannot look at */
	join(pa.path, pa.name, again, sizeof(again));
	if (strcmp(again, full) ||
	    (config_view(pa.fd, full, view, sizeof(view)) &&
	     policy_check_path(c->n->p, SBX_OP_WRITE, view, why) == SBX_DENY && protective(*why)))
		ok = false;
	parent_close(&pa);
	return ok;
}

/* ---- reports */

/* comm is read only for a report: most calls make none */
static void report_why(const struct call *c, char decision, enum wire_op op,
		       const char *target, int err, const struct sbx_rule *why)
{
	if (decision == WIRE_ALLOW && !c->n->trace)
		return;
	notify_report(c, &(struct event){ .what = EVENT_ACCESS, .decision = decision, .op = op,
					  .target = target, .err = err, .rule = why });
}

static void report(const struct call *c, char decision, enum wire_op op, const char *target,
		   int err)
{
	report_why(c, decision, op, target, err, NULL);
}

/* A write the kernel refused at a read-only mount (the boundary's: the
 * read-only root, a write-protect) of a path the policy does not let the
 * program write: said here, for the programs the shim does not see --
 * static and Go binaries, which make their system calls themselves, and
 * glibc's internal calls (mkdtemp: git receive-pack's objects/incoming-*).
 * A dynamic program's shim refused the call before the kernel saw it, so
 * this adds no second line. `dir`: a directory being made. */
static void kernel_refused(const struct call *c, const char *full, bool dir, int err)
{
	char target[PATH_MAX + 1];
	const struct sbx_rule *why;

	if (err != EROFS || policy_check_path(c->n->p, SBX_OP_WRITE, full, &why) != SBX_DENY)
		return;
	/* a name rule at any depth (`.bashrc`, `.env`): the shim lets the
	 * kernel answer those and names the refusal itself (shim/check.c,
	 * deferred()); a second line would only fold into `(x1 more)` */
	if (why && why->pat == SBX_PAT_ANYWHERE)
		return;
	snprintf(target, sizeof(target), "%s%s", full, dir && strcmp(full, "/") ? "/" : "");
	report(c, WIRE_DENY, WIRE_WRITE, target, err);
}

static void remember_dir(struct notify *n, const struct stat *st, const struct fid *f,
			 const char *path, bool file);

static void remember_git(struct notify *n, int pfd, const char *full)
{
	struct stat st;
	struct fid f = { 0 };

	if (fstatat(pfd, ".git", &st, AT_SYMLINK_NOFOLLOW)) {
		/* made by us a moment ago, and the directory cannot be
		 * searched now (its mode taken away meanwhile): named still,
		 * its inode unknown (no git exception for it) */
		if (errno != ENOENT && errno != ENOTDIR) {
			memset(&st, 0, sizeof(st));
			remember_dir(n, &st, &f, full, false);
		}
		return;
	}
	if (!(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
		return;
	fid_of(pfd, ".git", &f);
	remember_dir(n, &st, &f, full, S_ISREG(st.st_mode));
}

/* A name made in the held directory `pfd` (path `dir`): a `.git`, or the
 * last of HEAD, objects/ and refs/ that makes `dir` a git directory under
 * another name (a bare repository: named at the end like a .git, and its
 * hooks judged as one's, bare_view). */
static void remember_made(struct notify *n, int pfd, const char *dir, const char *name,
			  const char *full)
{
	struct stat st;

	if (!strcmp(name, ".git")) {
		remember_git(n, pfd, full);
		return;
	}
	/* a directory made in a git directory's modules/: a submodule's git
	 * directory about to be cloned (`git submodule update --init`), the
	 * run's as a `git init` is (one landing there by a rename was judged
	 * by the rows it could complete: refused) */
	if (!strcmp(base_of(dir), "modules") && !fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISDIR(st.st_mode)) {
		int up = openat(pfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		bool in_git = up >= 0 && git_dir_at(up) == 1;
		if (up >= 0)
			close(up);
		if (in_git) {
			struct fid f;
			fid_of(pfd, name, &f);
			remember_dir(n, &st, &f, full, false);
		}
		return;
	}
	if ((strcmp(name, "HEAD") && strcmp(name, "objects") && strcmp(name, "refs")) ||
	    !strcmp(base_of(dir), ".git") || !git_dir_at(pfd) || git_listed(n, pfd) ||
	    fstat(pfd, &st))
		return;
	struct fid f;
	fid_of(pfd, "", &f);
	remember_dir(n, &st, &f, dir, false);
}

static void remember_dir(struct notify *n, const struct stat *sp, const struct fid *f,
			 const char *full, bool file)
{
	struct stat st = *sp;

	if (n->ngit == MAX_GIT) {
		n->git_full = true;
		return;
	}
	if (!n->git) {
		n->git = calloc(MAX_GIT, sizeof(*n->git));
		if (!n->git)
			return;
	}
	char *copy = strdup(full);
	if (!copy)
		return;
	n->git[n->ngit++] = (struct gitdir){ .dev = st.st_dev, .ino = st.st_ino, .fid = *f,
					     .path = copy, .file = file };
}

/* A rename of `from` to `to` (both paths in the sandbox's view, as the
 * kernel names them) moves the repositories remembered at or below it:
 * the end's notice names each where it is, not where it was made (a bare
 * repository made, given core.hooksPath, and moved into another name was
 * named at a path that no longer held it). RENAME_EXCHANGE moves those
 * at `to` the other way. */
static void move_remembered(struct notify *n, const char *from, const char *to, bool exchange)
{
	size_t fl = strlen(from), tl = strlen(to);

	for (size_t i = 0; i < n->ngit; i++) {
		char *p = n->git[i].path, *moved;
		size_t cut;
		const char *dst;

		if (!strncmp(p, from, fl) && (p[fl] == '\0' || p[fl] == '/')) {
			cut = fl;
			dst = to;
		} else if (exchange && !strncmp(p, to, tl) && (p[tl] == '\0' || p[tl] == '/')) {
			cut = tl;
			dst = from;
		} else {
			continue;
		}
		if (asprintf(&moved, "%s%s", dst, p + cut) < 0)
			continue;
		free(p);
		n->git[i].path = moved;
	}
}

/* May `pa`'s name (path `full`) be made in the held parent: a file, a
 * node, a socket, or a directory or link (`as_dir`: what lands may
 * complete a protected name)? Not where the policy's rows refuse it
 * (said), nor an objects/ or refs/ that would make a repository of a
 * config written before, unless that config passes (notify-gitcfg.c:
 * vetted and replaced now). 0 or an errno. */
static int make_allowed(struct call *c, const struct parent *pa, const char *full, bool as_dir)
{
	const struct sbx_rule *why;
	int rc;

	if (!may_make(c->n, pa->fd, full, as_dir, &why)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		return DENY_ERRNO;
	}
	rc = notify_gitcfg_complete(c, pa->fd, pa->path, pa->name);
	return rc ? -rc : 0;
}

/* ---- the calls */

/* /dev/stdout, /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N: links to open
 * descriptors, "magic" links the kernel resolves by who follows them, which
 * RESOLVE_NO_MAGICLINKS keeps us from following through the program's
 * root. Recognised by name only (after folding `.`, `..`, `//`):
 * self and thread-self are the caller's own (/proc/PID/fd/N as we see it),
 * a number is a process of the sandbox's, whose fd directory is reached
 * in the sandbox's /proc. An O_PATH descriptor of what the link leads to,
 * -ENOENT when it is not such a name (1: not one). The object is open
 * already: nothing is made by following it. */
static int fd_link_open(const struct call *c, const char *abs, int *out)
{
	char norm[PATH_MAX], dir[PATH_MAX], stdnum[2] = { 0, 0 };
	const char *num = NULL, *who = NULL;
	size_t wl = 0;
	static const char *const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };

	if (path_join("/", abs, norm, sizeof(norm)))
		return 1;
	for (int i = 0; i < 3 && !num; i++)
		if (!strcmp(norm, std[i])) {
			stdnum[0] = (char)('0' + i);
			num = stdnum;
		}
	if (!num && !strncmp(norm, "/dev/fd/", 8)) {
		num = norm + 8;
	} else if (!num && !strncmp(norm, "/proc/", 6)) {
		who = norm + 6;
		wl = strcspn(who, "/");
		if (strncmp(who + wl, "/fd/", 4))
			return 1;
		num = who + wl + 4;
	}
	if (!num || !*num || strspn(num, "0123456789") != strlen(num) || strlen(num) > 9)
		return 1;
	int dfd;
	if (!who || (wl == 4 && !strncmp(who, "self", 4)) ||
	    (wl == 11 && !strncmp(who, "thread-self", 11))) {
		snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)c->pid);
		dfd = OPEN(dir, O_PATH | O_DIRECTORY);
		if (dfd < 0)
			return -errno;
		/* the caller's descriptors only if it still waits: a caller
		 * that died after the last check left its pid to whoever came
		 * next, a host process too, whose file would be opened (and
		 * truncated, with O_TRUNC) before the stale answer is dropped */
		if (!notify_call_valid(c)) {
			close(dfd);
			return -ENOENT;
		}
	} else {
		if (wl == 0 || wl > 10 || strspn(who, "0123456789") != wl)
			return 1;
		/* sbx-init is non-dumpable: the kernel refuses the program
		 * its descriptors (the control socket, the caller's pipes);
		 * we would follow them with rights it does not have */
		if (wl == 1 && who[0] == '1')
			return -EACCES;
		snprintf(dir, sizeof(dir), "/proc/%.*s/fd", (int)wl, who);
		dfd = open_in_root(c, dir, O_PATH | O_DIRECTORY, true);
		if (dfd < 0)
			return dfd;
	}
	int o = openat(dfd, num, O_PATH | O_CLOEXEC);
	int e = errno;
	close(dfd);
	if (o < 0)
		return -e;
	*out = o;
	return 0;
}

/* Open what `opath` holds, with the program's flags (creation bits are
 * spent by now), through /proc/self/fd: the object we checked, not a path
 * again. A FIFO for writing must not block us: tried non-blocking, and
 * queued when its reader is not there yet. */
static struct answer reopen(struct call *c, int opath, int flags, mode_t mode,
			    const struct stat *known)
{
	char l[64];
	struct stat st;
	/* O_NOFOLLOW is spent too: `opath` is no link (open_existing), and
	 * /proc/self/fd/N is one, which it would refuse (ELOOP) */
	int fl = (flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW)) | O_CLOEXEC | O_NOCTTY;
	bool have = known ? (st = *known, true) : !fstat(opath, &st);
	bool fifo = have && S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK);
	bool fifo_wr = fifo && (flags & O_ACCMODE) == O_WRONLY;
	/* one opened for reading (O_CREAT or O_TRUNC made it a notified
	 * call) would wait for a writer, and the whole supervisor with it,
	 * for ever if none comes: opened at once, the program's read() then
	 * finds no writer yet (end of file) instead of waiting in open() */
	bool fifo_rd = fifo && (flags & O_ACCMODE) == O_RDONLY;

	snprintf(l, sizeof(l), "/proc/self/fd/%d", opath);
	mode_t old = notify_act_begin(c->n, (flags & O_TMPFILE) == O_TMPFILE ? notify_prog_umask(c) : NO_UMASK);
	int fd = OPEN(l, fl | (fifo_wr || fifo_rd ? O_NONBLOCK : 0), mode);
	int e = errno;
	if (fd >= 0 && (flags & O_TRUNC) && S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
		e = errno;
		close(fd);
		fd = -1;
	}
	notify_act_end(c->n, old);
	if (fd < 0 && fifo_wr && e == ENXIO && c->n->nwait < MAX_WAIT) {
		int keep = dup(opath);
		if (keep >= 0) {
			c->n->wait[c->n->nwait++] = (struct waiting){ c->id, keep, fl };
			return (struct answer){ .fd = -1, .wait = true };
		}
	}
	if (fd < 0)
		return ERR(e == ENXIO && fifo_wr ? EAGAIN : e);
	if (fifo_wr || fifo_rd)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return (struct answer){ .fd = fd, .fd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0 };
}

/* The caller's thread group in the sandbox's pid namespace: the last
 * field of NStgid in /proc/PID/status (Linux 4.1), -1 if unknown. */
static long caller_tgid(const struct call *c)
{
	char p[64], buf[2048];
	snprintf(p, sizeof(p), "/proc/%d/status", (int)c->pid);
	int fd = OPEN(p, O_RDONLY);
	long t = -1;
	if (fd < 0)
		return t;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	char *l = n > 0 ? (buf[n] = '\0', strstr(buf, "\nNStgid:")) : NULL;
	for (char *q = l ? l + 8 : NULL; q && *q && *q != '\n';) {
		char *end;
		long v = strtol(q, &end, 10);
		if (end == q)
			break;
		t = v;
		q = end;
	}
	return t;
}

/* An object on the sandbox's /proc that belongs to another process than
 * the caller (/proc/N/..., N not its own thread group). The supervisor
 * opens such a file with rights the program does not have: as root it
 * owns the /proc entries of non-dumpable processes, and as the owner of
 * the sandbox's user namespace it passes the ptrace checks there. So
 * /proc/1/mem (sbx-init, the rename actor, outside the notify filter:
 * its code overwritten, it would make any name) would be handed over,
 * where the kernel refuses the program. Other /proc files (/proc/sys, on a
 * read-only mount) are left to the kernel. */
static bool proc_foreign(const struct call *c, int o, const char *full,
			 const struct statfs *known)
{
	struct statfs own;
	const struct statfs *sf = known;

	if (!sf && fstatfs(o, &own))
		return false;
	if (!sf)
		sf = &own;
	if (sf->f_type != PROC_SUPER_MAGIC)
		return false;
	if (strncmp(full, "/proc/", 6))
		return true; /* no name in the sandbox's /proc: not one to open */
	if (full[6] < '0' || full[6] > '9')
		return false; /* not a process's: the kernel's */
	char *end;
	long n = strtol(full + 6, &end, 10);
	if ((*end != '/' && *end) || n != caller_tgid(c))
		return true;
	/* the status read was the caller's if it still waits */
	return !notify_call_valid(c);
}

/* /dev/tty (5:0) is the terminal that controls whoever opens it: opened
 * by us, it was ours, the person's terminal, which a program inside then
 * read without job control (in the background too: `exec 3<>/dev/tty`).
 * The caller's own instead: its controlling terminal's number from
 * /proc/PID/stat (a pty: the sandbox's own, relay.c, or one a program
 * inside made), opened as /dev/pts/N in its root, kept only if it is that
 * device and the caller still waits; none: ENXIO, as the kernel says. */
static struct answer ctty_open(struct call *c, int flags)
{
	char p[64], buf[1024];
	int fd, tty_nr = 0;
	char state;
	struct stat st;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)c->pid);
	if ((fd = OPEN(p, O_RDONLY)) < 0)
		return ERR(ENXIO);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	/* after the name, which may hold anything: the last ')' ends it */
	char *q = n > 0 ? (buf[n] = '\0', strrchr(buf, ')')) : NULL;
	if (!q || sscanf(q + 1, " %c %*d %*d %*d %d", &state, &tty_nr) != 2 || tty_nr == 0 ||
	    major((dev_t)tty_nr) != 136 /* UNIX98_PTY_SLAVE_MAJOR */)
		return ERR(ENXIO);
	snprintf(p, sizeof(p), "/dev/pts/%u", minor((dev_t)tty_nr));
	fd = open_in_root(c, p, (flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_TMPFILE)) | O_NOCTTY, true);
	if (fd < 0)
		return ERR(ENXIO);
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) || st.st_rdev != (dev_t)tty_nr ||
	    !notify_call_valid(c)) {
		close(fd);
		return ERR(ENXIO);
	}
	return (struct answer){ .fd = fd, .fd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0 };
}

/* An object that is there, held by `o` (links followed): refused when a
 * protected rule names where it is (and it is not git's own in a git
 * directory the run made), else opened again with the program's flags. */
static struct answer open_existing(struct call *c, int o, int flags, mode_t mode, bool tmpfile)
{
	char full[PATH_MAX];
	const struct sbx_rule *why;
	struct stat st;

	if (fstat(o, &st))
		return ERR(errno);
	if (S_ISLNK(st.st_mode))
		return ERR(ELOOP); /* O_NOFOLLOW on a link */
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(5, 0))
		return ctty_open(c, flags);
	/* not a path (a pipe, a socket, a terminal, a memfd or a removed
	 * file): no name to judge */
	int pr = st.st_nlink > 0 ? fd_path(o, full, sizeof(full)) : -ENOENT;
	if (pr && pr != -ENOENT)
		return ERR(-pr); /* a name we cannot judge */
	bool named = pr == 0;
	struct statfs sf;
	bool have_sf = !fstatfs(o, &sf);
	if (named && have_sf && proc_foreign(c, o, full, &sf)) {
		report(c, WIRE_DENY, WIRE_WRITE, full, EACCES);
		return ERR(EACCES);
	}
	/* on a read-only mount (a write-protect, the read-only root) the
	 * kernel refuses the write itself, and the shim names it: that
	 * answer stands, from the boundary that made it (f_flags: the
	 * mount's flags, Linux 2.6.36) */
	bool kernel_says = have_sf && (sf.f_flags & 0x0020 /* ST_VALID */) && (sf.f_flags & ST_RDONLY);
	if (named && !tmpfile && !kernel_says && !may_write_existing(c, full, &why)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		return ERR(DENY_ERRNO);
	}
	struct answer a = reopen(c, o, flags, mode, &st);
	if (!a.err && !a.wait && named)
		report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
	else if (named)
		kernel_refused(c, full, false, a.err);
	return a;
}

/* open(O_CREAT | O_EXCL): the file made in the held parent under the
 * name we checked, in one try instead of a look first. EEXIST is the
 * answer (a name there, a link too, as the kernel says); anything else
 * (a refusal, an error) gives no descriptor, and notify_open takes the long
 * way, which decides and reports as before. */
static struct answer create_new(struct call *c, const char *abs, int flags, mode_t mode)
{
	char full[PATH_MAX];
	const struct sbx_rule *why;
	struct parent pa cleanup_parent = PARENT_NONE;
	long fd = -1;
	int e = ENOENT;

	for (int fresh = 0; fresh < 2 && fd < 0 && e == ENOENT; fresh++) {
		parent_close(&pa); /* the first try's */
		if (fresh)
			notify_forget_last_dir(c->n); /* removed meanwhile? looked up again */
		if (parent_open_as(c, abs, &pa, true))
			return ERR(ENOENT);
		bool was_cached = pa.cached && !fresh;
		join(pa.path, pa.name, full, sizeof(full));
		/* objects or refs beside a config: the long way judges it */
		if (pa.slash || dot_name(pa.name) || !may_make(c->n, pa.fd, full, false, &why) ||
		    !strcmp(pa.name, "objects") || !strcmp(pa.name, "refs"))
			return ERR(EPERM);
		struct open_how how = { .flags = (unsigned long long)((flags & ~O_NOCTTY) | O_EXCL |
								      O_CLOEXEC | O_NOCTTY),
					.mode = mode & 07777,
					.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
		mode_t old = notify_act_begin(c->n, notify_prog_umask(c));
		fd = pathwalk_openat2(pa.fd, pa.name, &how);
		e = -fd;
		notify_act_end(c->n, old);
		if (fd < 0 && !was_cached)
			break;
	}
	if (fd < 0)
		return ERR(e);
	/* a `.git` file makes wherever its gitdir: points the repository of
	 * this directory: named at the end; so does a bare repository's HEAD */
	remember_made(c->n, pa.fd, pa.path, pa.name, full);
	report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
	return (struct answer){ .fd = (int)fd, .fd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0 };
}

/* open/openat/creat with a write or create flag. */
struct answer notify_open(struct call *c, int dirfd, unsigned long long paddr, int flags,
			     mode_t mode)
{
	char path[PATH_MAX], abs[PATH_MAX], full[PATH_MAX];
	int rc, named cleanup_close = -1;

	if ((rc = notify_read_str(c, paddr, path, sizeof(path))))
		return ERR(-rc);
	if ((rc = abs_path(c, dirfd, path, abs, sizeof(abs))))
		return ERR(-rc);
	if ((rc = fd_link_open(c, abs, &named)) <= 0)
		return rc < 0 ? ERR(-rc) : open_existing(c, named, flags & ~O_CREAT, mode, false);
	bool tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
	/* O_EXCL: the program expects a new file (git's checkout and locks,
	 * temporary files); without it the name is as often there already,
	 * and the look first is cheaper */
	if ((flags & O_CREAT) && (flags & O_EXCL) && !tmpfile) {
		struct answer a = create_new(c, abs, flags, mode);
		if (a.fd >= 0 || a.err == EEXIST)
			return a;
	}
	for (int hop = 0; hop <= MAX_HOPS; hop++) {
		/* what is there now, links followed, held without opening it */
		int o cleanup_close = open_in_root(c, abs, O_PATH | (tmpfile ? O_DIRECTORY : 0),
						   (flags & O_NOFOLLOW) != 0);
		struct parent pa cleanup_parent = PARENT_NONE;

		if (o >= 0) {
			if ((flags & O_CREAT) && (flags & O_EXCL) && !tmpfile)
				return ERR(EEXIST);
			return open_existing(c, o, flags, mode, tmpfile);
		}
		if (o != -ENOENT || !(flags & O_CREAT) || tmpfile)
			return ERR(-o);
		/* not there: made by us in the held parent, under the one
		 * name we checked */
		if ((rc = parent_open(c, abs, &pa)))
			return ERR(-rc);
		if (pa.slash || dot_name(pa.name))
			return ERR(EISDIR);
		join(pa.path, pa.name, full, sizeof(full));
		if ((rc = make_allowed(c, &pa, full, false)))
			return ERR(rc);
		struct open_how how = { .flags = (unsigned long long)((flags & ~O_NOCTTY) |
								      O_CLOEXEC | O_NOCTTY),
					.mode = mode & 07777,
					.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
		mode_t old = notify_act_begin(c->n, notify_prog_umask(c));
		int fd = pathwalk_openat2(pa.fd, pa.name, &how);
		int e = -fd;
		notify_act_end(c->n, old);
		if (fd >= 0) {
			/* a `.git` file makes wherever its gitdir: points the
			 * repository of this directory: named at the end */
			remember_made(c->n, pa.fd, pa.path, pa.name, full);
			report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
			return (struct answer){ .fd = (int)fd,
						.fd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0 };
		}
		if (e != ELOOP) {
			kernel_refused(c, full, false, e);
			return ERR(e);
		}
		/* a link there (a dangling one, or one made meanwhile): the
		 * kernel would create where it leads, so follow it ourselves */
		char link[PATH_MAX];
		ssize_t ln = readlinkat(pa.fd, pa.name, link, sizeof(link) - 1);
		if (ln < 0 || (flags & (O_NOFOLLOW | O_EXCL)))
			return ERR(ln < 0 ? ENOENT : (flags & O_EXCL) ? EEXIST : ELOOP);
		link[ln] = '\0';
		if (link[0] == '/')
			snprintf(abs, sizeof(abs), "%s", link);
		else if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", strcmp(pa.path, "/") ?
					  pa.path : "", link) >= sizeof(abs))
			return ERR(ENAMETOOLONG);
	}
	return ERR(ELOOP);
}

/* truncate(2): the file named by path is written as by open(O_WRONLY |
 * O_TRUNC), so it is judged as that open is, and cut by us on the file we
 * judged (a protected name deeper than the walk's is not bound read-only:
 * truncate(".vscode/settings.json", 3) cut it). */
struct answer notify_truncate(struct call *c, unsigned long long paddr, long long len)
{
	char path[PATH_MAX], abs[PATH_MAX];
	struct stat st;
	int rc, o = -1;

	if ((rc = notify_read_str(c, paddr, path, sizeof(path))))
		return ERR(-rc);
	if (len < 0)
		return ERR(EINVAL);
	if ((rc = abs_path(c, AT_FDCWD, path, abs, sizeof(abs))))
		return ERR(-rc);
	if ((rc = fd_link_open(c, abs, &o)) > 0)
		o = open_in_root(c, abs, O_PATH, false);
	else if (rc < 0)
		o = rc;
	if (o < 0)
		return ERR(-o);
	if (fstat(o, &st) || !S_ISREG(st.st_mode)) {
		rc = fstat(o, &st) ? errno : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(o);
		return ERR(rc);
	}
	struct answer a = open_existing(c, o, O_WRONLY, 0, false);
	close(o);
	if (a.fd < 0)
		return a;
	mode_t old = notify_act_begin(c->n, NO_UMASK);
	rc = ftruncate(a.fd, (off_t)len);
	int e = errno;
	notify_act_end(c->n, old);
	close(a.fd);
	return rc ? ERR(e) : OK(0);
}

/* The file a mode or owner call names, held (O_PATH, O_DIRECTORY for
 * `dir`): by descriptor with AT_EMPTY_PATH, else by path as the program
 * sees it, through /proc/PID/fd links too. The descriptor or -errno. */
static int held_target(struct call *c, int dfd, unsigned long long paddr, unsigned flags, bool dir)
{
	char path[PATH_MAX], abs[PATH_MAX];
	int rc, o = -1;

	if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if ((rc = notify_read_str(c, paddr, path, sizeof(path))))
		return rc;
	if (!path[0] && (flags & AT_EMPTY_PATH))
		return notify_take_fd(c, dfd);
	if ((rc = abs_path(c, dfd, path, abs, sizeof(abs))))
		return rc;
	if ((rc = fd_link_open(c, abs, &o)) > 0)
		return open_in_root(c, abs, O_PATH | (dir ? O_DIRECTORY : 0),
				    (flags & AT_SYMLINK_NOFOLLOW) != 0);
	return rc < 0 ? rc : o;
}

/* What a chmod-family call names, opened O_PATH (O_DIRECTORY with `dir`)
 * in the caller's view: 0 with *fd and *mode; 1 when nr is no chmod;
 * -errno when the call itself is wrong or its target cannot be opened. */
static int chmod_target(struct call *c, long nr, const unsigned long long *args, bool dir,
			mode_t *mode, int *fd)
{
	int dfd = AT_FDCWD, o = -1;
	unsigned long long paddr = 0;
	unsigned flags = 0;

	if (nr == SYS_fchmod) {
		o = notify_take_fd(c, (int)args[0]);
		*mode = (mode_t)args[1];
	} else {
		if (nr == SYS_fchmodat || nr == 452 /* fchmodat2 */) {
			dfd = (int)args[0];
			paddr = args[1];
			*mode = (mode_t)args[2];
			flags = nr == 452 ? (unsigned)args[3] : 0;
#ifdef SYS_chmod
		} else if (nr == SYS_chmod) {
			paddr = args[0];
			*mode = (mode_t)args[1];
#endif
		} else {
			return 1;
		}
		o = held_target(c, dfd, paddr, flags, dir);
	}
	if (o < 0)
		return o;
	*fd = o;
	return 0;
}

/* chmod to a set-ID mode, which the seccomp table refuses: a set-ID
 * program left in a writable root outlives the run. A directory's bits
 * only pick its new entries' group, and GNU chmod passes a setgid
 * directory's S_ISGID back whenever it changes that mode (`chmod 755 d`
 * in a shared, setgid tree was refused): a directory's mode is changed
 * here, on the directory we opened in the caller's view, with its rights
 * (notify_act_begin), through /proc/self/fd (an O_PATH descriptor takes
 * no fchmod). Anything but a directory: 1, the row refuses it. */
int notify_chmod_dir(struct call *c, long nr, const unsigned long long *args,
		     struct answer *out)
{
	char l[64];
	int o = -1, rc;
	mode_t mode = 0;
	struct stat st;

	if (chmod_target(c, nr, args, true, &mode, &o))
		return 1;
	if (fstat(o, &st) || !S_ISDIR(st.st_mode) || !notify_call_valid(c)) {
		close(o);
		return 1;
	}
	snprintf(l, sizeof(l), "/proc/self/fd/%d", o);
	mode_t old = notify_act_begin(c->n, NO_UMASK);
	rc = chmod(l, mode & 07777);
	int e = errno;
	notify_act_end(c->n, old);
	close(o);
	*out = rc ? ERR(e) : OK(0);
	return 0;
}

/* mkdir/mkdirat, mknod/mknodat, symlink/symlinkat: one new name
 * (enum make_kind: preload/notify/internal.h). */

struct answer notify_make(struct call *c, enum make_kind kind, int dirfd,
			     unsigned long long paddr, mode_t mode, unsigned dev,
			     unsigned long long taddr)
{
	char path[PATH_MAX], abs[PATH_MAX], full[PATH_MAX], target[PATH_MAX];
	struct parent pa cleanup_parent = PARENT_NONE;
	int rc;

	/* a directory or link where one was removed: a held path may lead
	 * elsewhere now */
	notify_forget_last_dir(c->n);
	if ((rc = notify_read_str(c, paddr, path, sizeof(path))) ||
	    (kind == MAKE_LINK && (rc = notify_read_str(c, taddr, target, sizeof(target)))))
		return ERR(-rc);
	if ((rc = abs_path(c, dirfd, path, abs, sizeof(abs))) || (rc = parent_open(c, abs, &pa)))
		return ERR(-rc);
	if (dot_name(pa.name) || (pa.slash && kind != MAKE_DIR))
		return ERR(dot_name(pa.name) ? EEXIST : ENOENT);
	join(pa.path, pa.name, full, sizeof(full));
	/* a name that is there makes nothing: EEXIST, as the kernel says,
	 * and no report (`mkdir -p ~/.local/x` meets ~/.local, which HOME's
	 * allow-list keeps, on its way) */
	struct stat there;
	if (!fstatat(pa.fd, pa.name, &there, AT_SYMLINK_NOFOLLOW))
		return ERR(EEXIST);
	/* a link acts as the directory it may lead to */
	if ((rc = make_allowed(c, &pa, full, kind == MAKE_LINK)))
		return ERR(rc);
	mode_t old = notify_act_begin(c->n, notify_prog_umask(c));
	if (kind == MAKE_DIR)
		rc = mkdirat(pa.fd, pa.name, mode);
	else if (kind == MAKE_NODE)
		rc = mknodat(pa.fd, pa.name, mode, dev);
	else
		rc = symlinkat(target, pa.fd, pa.name);
	int e = errno;
	notify_act_end(c->n, old);
	/* mknod(S_IFREG) makes a file as open() does: a `.git` file, a HEAD */
	if (!rc)
		remember_made(c->n, pa.fd, pa.path, pa.name, full);
	if (rc) {
		kernel_refused(c, full, kind == MAKE_DIR, e);
		return ERR(e);
	}
	report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
	return OK(0);
}

/* What tells a socket file: its inode, and its birth (or change) time. */
static bool socket_id(int dfd, const char *name, struct own_socket *id)
{
	struct statx sx;

	if (syscall(SYS_statx, dfd, name, AT_SYMLINK_NOFOLLOW | (name[0] ? 0 : AT_EMPTY_PATH),
		    STATX_INO | STATX_TYPE | STATX_BTIME | STATX_CTIME, &sx) ||
	    !S_ISSOCK(sx.stx_mode))
		return false;
	const struct statx_timestamp *t = (sx.stx_mask & STATX_BTIME) ? &sx.stx_btime :
									 &sx.stx_ctime;
	*id = (struct own_socket){ .dev = makedev(sx.stx_dev_major, sx.stx_dev_minor),
				   .ino = sx.stx_ino,
				   .born = t->tv_sec * 1000000000LL + t->tv_nsec };
	fid_of(dfd, name, &id->fid);
	return true;
}

static bool same_socket(const struct own_socket *a, const struct own_socket *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->born == b->born &&
	       same_fid(&a->fid, &b->fid);
}

static void remember_socket(struct notify *n, int dfd, const char *name)
{
	struct own_socket id;

	if (!socket_id(dfd, name, &id))
		return;
	if (!n->own && !(n->own = calloc(MAX_OWN_SOCKETS, sizeof(*n->own))))
		return;
	for (size_t i = 0; i < n->nown; i++)
		if (n->own[i].dev == id.dev && n->own[i].ino == id.ino) {
			n->own[i] = id; /* the inode again, a new socket */
			return;
		}
	if (n->nown < MAX_OWN_SOCKETS)
		n->own[n->nown++] = id;
}

static bool own_socket(const struct notify *n, int o)
{
	struct own_socket id;

	if (!n->nown || !socket_id(o, "", &id))
		return false;
	for (size_t i = 0; i < n->nown; i++)
		if (same_socket(&n->own[i], &id))
			return true;
	return false;
}

struct answer notify_unix_bind(struct call *c, int s, const struct sockaddr_un *su, unsigned alen)
{
	char path[sizeof(su->sun_path) + 1], abs[PATH_MAX], full[PATH_MAX];
	size_t off = offsetof(struct sockaddr_un, sun_path);
	size_t pl = alen > off ? alen - off : 0;
	struct parent pa cleanup_parent = PARENT_NONE;
	int rc;

	if (alen > sizeof(*su))
		return ERR(EINVAL); /* as the kernel's unix_validate_addr */
	if (!pl || !su->sun_path[0]) {
		/* unnamed (autobind) or abstract: the socket's own network
		 * namespace holds the name, no file is made */
		rc = bind(s, (const struct sockaddr *)su, (socklen_t)alen);
		return rc ? ERR(errno) : OK(0);
	}
	memcpy(path, su->sun_path, pl);
	path[pl] = '\0';
	if ((rc = abs_path(c, AT_FDCWD, path, abs, sizeof(abs))) || (rc = parent_open(c, abs, &pa)))
		return ERR(-rc);
	if (dot_name(pa.name) || pa.slash)
		return ERR(dot_name(pa.name) ? EADDRINUSE : ENOENT);
	join(pa.path, pa.name, full, sizeof(full));
	if ((rc = make_allowed(c, &pa, full, false)))
		return ERR(rc);
	/* sun_path takes no directory descriptor: bound from the held parent
	 * as our working directory (this process has one thread), then back */
	/* a name of all 108 bytes has no NUL (the kernel takes it so): its
	 * terminator was written one byte past sun_path, on our stack */
	struct sockaddr_un here_name = { .sun_family = AF_UNIX };
	size_t nl = strlen(pa.name);
	if (nl > sizeof(here_name.sun_path))
		return ERR(EINVAL);
	memcpy(here_name.sun_path, pa.name, nl);
	socklen_t hl = (socklen_t)(off + nl + (nl < sizeof(here_name.sun_path)));
	int here = OPEN(".", O_PATH | O_DIRECTORY);
	mode_t old = notify_act_begin(c->n, notify_prog_umask(c));
	rc = fchdir(pa.fd) ? -1 :
	     bind(s, (struct sockaddr *)&here_name, hl);
	int e = errno;
	if (here < 0 || fchdir(here))
		(void)!chdir("/");
	notify_act_end(c->n, old);
	if (here >= 0)
		close(here);
	if (!rc)
		remember_socket(c->n, pa.fd, pa.name);
	if (rc)
		return ERR(e);
	report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
	return OK(0);
}

/* How long a rename may take the actor (sbx-init, pid 1: COMMAND cannot
 * stop or signal it, but a rename on a slow or hung file system may take
 * long), and the loop must not wait for it forever. */
#define ACTOR_WAIT_MS 5000

/* renameat2 done by the actor (init/notify.c): the errno, 0 when done.
 * An actor that does not answer in time is given up: every rename after
 * it fails (EIO), nothing is renamed from here instead. */
static int actor_send(struct notify *n, char op, int ofd, const char *oname, int nfd,
		      const char *nname, unsigned flags);
static int actor_rename(struct notify *n, int ofd, const char *oname, int nfd,
			const char *nname, unsigned flags)
{
	return actor_send(n, CTL_ACT_RENAME, ofd, oname, nfd, nname, flags);
}

static int actor_send(struct notify *n, char op, int ofd, const char *oname, int nfd,
		      const char *nname, unsigned flags)
{
	char buf[CTL_ACT_REQ_MAX];
	size_t ol = strlen(oname) + 1, nl = nname ? strlen(nname) + 1 : 0;
	size_t nfds = nname ? 2 : 1;
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(2 * sizeof(int))];
	} cm;
	int fds[2] = { ofd, nfd };
	int32_t err;

	if (n->actor < 0)
		return EIO;
	if (1 + 4 + ol + nl > sizeof(buf))
		return ENAMETOOLONG;
	buf[0] = op;
	uint32_t f = flags;
	memcpy(buf + 1, &f, 4);
	memcpy(buf + 5, oname, ol);
	if (nname)
		memcpy(buf + 5 + ol, nname, nl);
	struct iovec iov = { buf, 5 + ol + nl };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cm.b, .msg_controllen = CMSG_SPACE(nfds * sizeof(int)) };
	memset(&cm, 0, sizeof(cm));
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	if (sendmsg(n->actor, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		goto lost;
	struct pollfd pf = { n->actor, POLLIN, 0 };
	int r;
	while ((r = poll(&pf, 1, ACTOR_WAIT_MS)) < 0 && errno == EINTR)
		;
	if (r <= 0 || recv(n->actor, &err, sizeof(err), MSG_DONTWAIT) != (ssize_t)sizeof(err))
		goto lost;
	return err >= 0 && err < 4096 ? (int)err : EIO;
lost:
	close(n->actor);
	n->actor = -1;
	msg("the rename actor inside the sandbox (sbx-init) stopped answering: renames "
	    "and removals are refused from now on");
	return EIO;
}

/* The file a hard link would give a second name, held: 0, or the errno
 * when it is one a protected rule names (a name deeper than the walk's
 * three levels is not bound read-only: written by the new name, it would
 * change), one the policy denies reading (a `deny_read` name the mounts
 * do not hide, in a node_modules or past the walk: read by the new name,
 * it would be read; EACCES, as for the read) or another process's /proc
 * file. No name (an O_TMPFILE, a removed file): nothing to judge. */
static int link_source(struct call *c, int o)
{
	char full[PATH_MAX];
	const struct sbx_rule *why;
	struct stat st;

	if (fstat(o, &st) || st.st_nlink == 0)
		return 0;
	int pr = fd_path(o, full, sizeof(full));
	if (pr)
		return pr == -ENOENT ? 0 : -pr; /* no name; one we cannot judge */
	if (proc_foreign(c, o, full, NULL)) {
		report(c, WIRE_DENY, WIRE_WRITE, full, EACCES);
		return EACCES;
	}
	if (policy_check_path(c->n->p, SBX_OP_READ, full, &why) == SBX_DENY) {
		report_why(c, WIRE_DENY, WIRE_READ, full, EACCES, why);
		return EACCES;
	}
	if (!may_write_existing(c, full, &why)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		return DENY_ERRNO;
	}
	return 0;
}

/* link/linkat: the file to link, held (`o`), and whether it is a symlink
 * (which lands as one: a directory of its choosing). With
 * AT_SYMLINK_FOLLOW the file is where the name leads in the program's view
 * (a /proc/PID/fd/N included: an O_TMPFILE made for this); without, the
 * name itself. 0 or -errno. */
static int link_old(struct call *c, const char *oabs, const struct parent *op, bool follow,
		    int *o, bool *is_lnk)
{
	struct stat st;

	*is_lnk = false;
	if (follow) {
		int rc = fd_link_open(c, oabs, o);
		if (rc > 0)
			*o = open_in_root(c, oabs, O_PATH, false);
		else if (rc < 0)
			*o = rc;
	} else {
		*o = openat(op->fd, op->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (*o < 0)
			*o = -errno;
	}
	if (*o < 0)
		return *o;
	if (fstat(*o, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EPERM; /* as the kernel answers */
	*is_lnk = S_ISLNK(st.st_mode);
	return *is_lnk ? 0 : -link_source(c, *o);
}

/* Is `full`, a rename's source, a name a protected rule covers (not git's
 * own in a git directory the run made)? */
static bool moves_protected(const struct notify *n, int fd, const char *full,
			    const struct sbx_rule **why)
{
	if (policy_check_path(n->p, SBX_OP_WRITE, full, why) == SBX_DENY && protective(*why) &&
	    !git_exception(n, fd, full) &&
	    /* a config of the run's, moved away or removed: what comes in its
	     * place is vetted as it was (`rm -rf` of a clone made inside) */
	    !(fd >= 0 && !strcmp(base_of(full), "config") && git_made_here(n, fd, 0)))
		return true;
	*why = NULL;
	return false;
}

/* Does a rename take a file the policy denies reading (`from`) to a name
 * it does not deny (`to`)? EACCES, reported as the read it is; else 0. */
static int moves_denied_read(const struct call *c, const char *from, const char *to)
{
	const struct sbx_rule *why;

	if (policy_check_path(c->n->p, SBX_OP_READ, from, &why) != SBX_DENY ||
	    policy_check_path(c->n->p, SBX_OP_READ, to, NULL) == SBX_DENY)
		return 0;
	report_why(c, WIRE_DENY, WIRE_READ, from, EACCES, why);
	return EACCES;
}

/* rename/renameat/renameat2 and link/linkat: a name made from another. */
struct answer notify_move(struct call *c, bool is_link, int olddfd, unsigned long long oaddr,
			     int newdfd, unsigned long long naddr, unsigned flags)
{
	char opath[PATH_MAX], npath[PATH_MAX], oabs[PATH_MAX], nabs[PATH_MAX];
	char ofull[PATH_MAX], nfull[PATH_MAX];
	const struct sbx_rule *why;
	struct parent op = { .fd = -1 }, np = { .fd = -1 };
	struct answer a;
	struct stat st = { 0 }, nst;
	int rc, lo = -1;

	notify_forget_last_dir(c->n); /* a path may lead elsewhere after it */
	if ((rc = notify_read_str(c, oaddr, opath, sizeof(opath))) ||
	    (rc = notify_read_str(c, naddr, npath, sizeof(npath))))
		return ERR(-rc);
	if (is_link && (flags & ~(unsigned)AT_SYMLINK_FOLLOW))
		return ERR(EINVAL); /* AT_EMPTY_PATH: a descriptor, not a name */
	bool follow = is_link && (flags & AT_SYMLINK_FOLLOW);
	if ((rc = abs_path(c, olddfd, opath, oabs, sizeof(oabs))) ||
	    (rc = abs_path(c, newdfd, npath, nabs, sizeof(nabs))) ||
	    (!follow && (rc = parent_open(c, oabs, &op))) || (rc = parent_open(c, nabs, &np))) {
		a = ERR(-rc);
		goto out;
	}
	if ((!follow && dot_name(op.name)) || dot_name(np.name)) {
		a = ERR(is_link ? EEXIST : EBUSY);
		goto out;
	}
	if (!follow)
		join(op.path, op.name, ofull, sizeof(ofull));
	join(np.path, np.name, nfull, sizeof(nfull));
	/* what lands at the new name: a directory or a link there acts as
	 * a directory, whose inside may complete a protected name (a hard
	 * link of a symlink is that symlink under the new name) */
	bool lnk = false;
	if (is_link && (rc = link_old(c, oabs, &op, follow, &lo, &lnk))) {
		a = ERR(-rc);
		goto out;
	}
	bool as_dir = is_link ? lnk : !fstatat(op.fd, op.name, &st, AT_SYMLINK_NOFOLLOW) &&
					      (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode));
	/* git's config.lock onto a config it keeps: the content decides.
	 * Never a file the policy denies reading: the supervisor reads it
	 * and its bytes would land, readable, at the config (a deep `*.pem`
	 * shaped as a config); such a rename goes the plain way, refused */
	enum vetted vet = NOT_VETTED;
	if (!is_link && !as_dir && S_ISREG(st.st_mode) && !(flags & ~(unsigned)RENAME_NOREPLACE) &&
	    (vet = git_config_vetted(c->n, np.fd, np.name, nfull)) != NOT_VETTED &&
	    policy_check_path(c->n->p, SBX_OP_READ, ofull, NULL) != SBX_DENY &&
	    !moves_protected(c->n, op.fd, ofull, &why)) {
		a = notify_gitcfg_rename(c, op.fd, op.name, np.fd, np.name, nfull, flags,
					 vet == VET_NEW);
		if (!a.err)
			report(c, WIRE_ALLOW, WIRE_WRITE, nfull, 0);
		goto out;
	}
	if (!may_make(c->n, np.fd, nfull, as_dir, &why)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, nfull, DENY_ERRNO, why);
		a = ERR(DENY_ERRNO);
		goto out;
	}
	/* a protected name moved away (no mount holds it deeper than the
	 * plan's scan): under another name its content is writable, and the
	 * protected name is gone; at the scan's depths the mount refuses the
	 * same (EBUSY) */
	if (!is_link && !(flags & RENAME_EXCHANGE) && moves_protected(c->n, op.fd, ofull, &why)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, ofull, DENY_ERRNO, why);
		a = ERR(DENY_ERRNO);
		goto out;
	}
	/* a file the policy denies reading, moved to a name it does not (one
	 * the mounts do not hide: a `*.pem` in a node_modules): read there,
	 * as through a link (link_source) */
	if (!is_link && (rc = moves_denied_read(c, ofull, nfull)) == 0 &&
	    (flags & RENAME_EXCHANGE))
		rc = moves_denied_read(c, nfull, ofull);
	if (!is_link && rc) {
		a = ERR(rc);
		goto out;
	}
	if (!is_link && (flags & RENAME_EXCHANGE)) {
		bool new_dir = !fstatat(np.fd, np.name, &nst, AT_SYMLINK_NOFOLLOW) &&
			       (S_ISDIR(nst.st_mode) || S_ISLNK(nst.st_mode));
		if (!may_make(c->n, op.fd, ofull, new_dir, &why)) {
			report_why(c, WIRE_DENY, WIRE_WRITE, ofull, DENY_ERRNO, why);
			a = ERR(DENY_ERRNO);
			goto out;
		}
	}
	/* objects/ or refs/ landing beside a config: judged as it is made */
	if ((rc = notify_gitcfg_complete(c, np.fd, np.path, np.name)) ||
	    (!is_link && (flags & RENAME_EXCHANGE) &&
	     (rc = notify_gitcfg_complete(c, op.fd, op.path, op.name)))) {
		a = ERR(-rc);
		goto out;
	}
	/* a git directory moved away from the work tree its vetted
	 * core.worktree names relative to it */
	if (!is_link && !notify_gitcfg_worktree_moves(c, ofull, nfull, (flags & RENAME_EXCHANGE) != 0,
						      false)) {
		a = ERR(EACCES);
		goto out;
	}
	/* a part of a repository moved onto one already there (git's
	 * HEAD.lock onto HEAD) makes no repository: a host's bare one is not
	 * the run's, nor named as made during it */
	bool replaces_part = !is_link && (!strcmp(np.name, "HEAD") || !strcmp(np.name, "objects") ||
					  !strcmp(np.name, "refs")) && notify_git_part(np.fd, np.name) == 1;
	int e = 0;
	if (is_link) {
		/* the file we judged, not a name again (a symlink: itself) */
		char l[64];
		snprintf(l, sizeof(l), "/proc/self/fd/%d", lo);
		mode_t old = notify_act_begin(c->n, NO_UMASK);
		rc = lnk ? linkat(op.fd, op.name, np.fd, np.name, 0) :
			   linkat(AT_FDCWD, l, np.fd, np.name, AT_SYMLINK_FOLLOW);
		e = errno;
		notify_act_end(c->n, old);
	} else {
		/* in the sandbox's mount namespace, where its mounts are busy */
		e = actor_rename(c->n, op.fd, op.name, np.fd, np.name, flags);
		rc = e ? -1 : 0;
	}
	if (!rc && !is_link) {
		move_remembered(c->n, ofull, nfull, (flags & RENAME_EXCHANGE) != 0);
		notify_gitcfg_worktree_moves(c, ofull, nfull, (flags & RENAME_EXCHANGE) != 0, true);
	}
	if (!rc && !replaces_part) /* a .git directory or file, or a bare repository's last part */
		remember_made(c->n, np.fd, np.path, np.name, nfull);
	a = rc ? ERR(e) : OK(0);
	if (!rc)
		report(c, WIRE_ALLOW, WIRE_WRITE, nfull, 0);
	else if (!follow && policy_check_path(c->n->p, SBX_OP_WRITE, nfull, &why) != SBX_DENY)
		kernel_refused(c, ofull, false, e); /* the old name's side refused */
	else
		kernel_refused(c, nfull, false, e);
out:
	if (lo >= 0)
		close(lo);
	parent_close(&op);
	parent_close(&np);
	return a;
}

/* setxattr, lsetxattr, fsetxattr, removexattr, lremovexattr, fremovexattr:
 * a protected name's extended attributes are not changed, as its mode is
 * not (an ACL, system.posix_acl_access, let another user write a deep
 * `.env` or hook; a user.* attribute is what some tools read). The target
 * is held as chmod's is, judged as a write by the name the kernel gives
 * it, and the call made here on that held file, with the caller's rights
 * and no capability: a read-only bind still says EROFS. */
#ifndef XATTR_NAME_MAX
#define XATTR_NAME_MAX 255   /* linux/limits.h */
#define XATTR_SIZE_MAX 65536
#endif
struct answer notify_xattr(struct call *c, long nr, const unsigned long long *args)
{
	bool set = nr == SYS_setxattr || nr == SYS_lsetxattr || nr == SYS_fsetxattr;
	bool byfd = nr == SYS_fsetxattr || nr == SYS_fremovexattr;
	bool nofollow = nr == SYS_lsetxattr || nr == SYS_lremovexattr;
	char path[PATH_MAX], abs[PATH_MAX], full[PATH_MAX], name[XATTR_NAME_MAX + 1], l[64];
	const struct sbx_rule *why;
	size_t size = set ? (size_t)args[3] : 0;
	void *value = NULL;
	struct answer a;
	struct stat st;
	int o = -1, rc;

	if (set && size > XATTR_SIZE_MAX)
		return ERR(E2BIG);
	if ((rc = notify_read_str(c, args[1], name, sizeof(name))))
		return ERR(rc == -ENAMETOOLONG ? ERANGE : -rc);
	if (byfd) {
		o = notify_take_fd(c, (int)args[0]);
	} else if ((rc = notify_read_str(c, args[0], path, sizeof(path))) ||
		   (rc = abs_path(c, AT_FDCWD, path, abs, sizeof(abs)))) {
		o = rc;
	} else if ((rc = fd_link_open(c, abs, &o)) > 0) {
		o = open_in_root(c, abs, O_PATH, nofollow);
	} else if (rc < 0) {
		o = rc;
	}
	if (o < 0)
		return ERR(-o);
	if (byfd && (fcntl(o, F_GETFL) & O_PATH)) {
		close(o);
		return ERR(EBADF); /* as the kernel answers fsetxattr on one */
	}
	/* what the call would change, by its name (a pipe's or a socket's
	 * descriptor names none, and nothing protected) */
	rc = 0;
	if (fstat(o, &st) || ((rc = fd_path(o, full, sizeof(full))) &&
			      (rc != -ENOENT || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
			       S_ISLNK(st.st_mode)))) {
		a = ERR(rc ? -rc : errno);
		goto out;
	}
	if (rc)
		full[0] = '\0';
	if (full[0] && moves_protected(c->n, -1, full, &why) && !git_writable(c, full, false)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		a = ERR(DENY_ERRNO);
		goto out;
	}
	/* A default ACL is inherited by every entry made in the directory
	 * later, by the person's own programs too: the `.git/config` git
	 * writes next (a new file renamed over it), a `.env` made there,
	 * each open to another user. Any directory may hold a protected name
	 * (`.env` is one at any depth), so none takes one. */
	if (set && !strcmp(name, "system.posix_acl_default")) {
		notify_report(c, &(struct event){
			.what = EVENT_CALL, .decision = WIRE_DENY, .target = "a default ACL",
			.on = full, .reason = "every entry made in the directory later inherits "
			"it, protected names too (a .env, git's next config)",
			.rule_text = "extended attributes (docs/SECURITY.md)", .err = EPERM });
		a = ERR(EPERM);
		goto out;
	}
	if (size && !(value = malloc(size))) {
		a = ERR(ENOMEM);
		goto out;
	}
	if (size && notify_read_mem(c, args[2], value, size)) {
		a = ERR(EFAULT);
		goto out;
	}
	if (!notify_call_valid(c)) {
		a = ERR(ENOENT);
		goto out;
	}
	/* through /proc/self/fd: a held symlink (lsetxattr) is acted on
	 * itself, the magic link is not followed past it */
	snprintf(l, sizeof(l), "/proc/self/fd/%d", o);
	mode_t old = notify_act_begin(c->n, NO_UMASK);
	rc = set ? setxattr(l, name, value, size, (int)args[4]) : removexattr(l, name);
	int e = errno;
	notify_act_end(c->n, old);
	if (rc && full[0])
		kernel_refused(c, full, S_ISDIR(st.st_mode), e);
	a = rc ? ERR(e) : OK(0);
out:
	free(value);
	close(o);
	return a;
}

/* Is the directory `fd` the sandbox's own tmpfs (bubblewrap's private
 * /tmp), not a host directory bound there? */
static bool is_private_tmp(int fd)
{
	struct statfs sf;
	return !fstatfs(fd, &sf) && sf.f_type == TMPFS_MAGIC;
}

/* connect(): an AF_UNIX socket is connected here, by us, to the path we
 * checked (held as a descriptor, connected through /proc/self/fd); any
 * other family too (connect_here), in the sandbox's network namespace,
 * which with the proxy decides where it may go. */
struct answer notify_connect(struct call *c, int sockfd, unsigned long long aaddr,
				unsigned alen)
{
	struct sockaddr_un sun;
	int domain = 0, fl, rc;
	socklen_t il = sizeof(domain);
	char path[sizeof(sun.sun_path) + 1], abs[PATH_MAX], full[PATH_MAX], l[64];
	const struct sbx_rule *why = NULL;

	int s cleanup_close = notify_take_fd(c, sockfd);
	if (s < 0)
		return ERR(-s);
	int de = getsockopt(s, SOL_SOCKET, SO_DOMAIN, &domain, &il) ? errno : 0;
	if (de)
		return ERR(de);
	if (domain == AF_INET || domain == AF_INET6)
		return notify_net_connect(c, steal_fd(&s), sockfd, aaddr, alen);
	if (policy_allow_all_unix_sockets(c->n->p))
		/* every socket may go wherever the kernel lets it: a
		 * descriptor swapped meanwhile changes nothing, CONTINUE */
		return (struct answer){ .fd = -1, .cont = true };
	if (domain != AF_UNIX) {
		struct sockaddr_storage ss;
		memset(&ss, 0, sizeof(ss));
		if (alen > sizeof(ss))
			return ERR(EINVAL); /* as the kernel's move_addr_to_kernel */
		if (alen && notify_read_mem(c, aaddr, &ss, alen))
			return ERR(EFAULT);
		if (!notify_call_valid(c))
			return ERR(ENOENT);
		return notify_connect_here(c, steal_fd(&s), &ss, alen);
	}
	/* past sun_path: the kernel's unix_validate_addr says EINVAL */
	int rd = alen > sizeof(sun) ? EINVAL : notify_read_addr(c, aaddr, &alen, &sun, sizeof(sun));
	if (rd)
		return ERR(rd);
	if (sun.sun_family != AF_UNIX)
		return ERR(EINVAL);
	size_t plen = alen - offsetof(struct sockaddr_un, sun_path);
	if (plen == 0 || sun.sun_path[0] == '\0') {
		/* abstract: the network namespace's. Only the sandbox's own
		 * one (not when the network is open: the host's). */
		if (policy_network_open(c->n->p)) {
			report(c, WIRE_DENY, WIRE_UNIX, "@(abstract)", DENY_UNIX);
			return ERR(DENY_UNIX);
		}
		fl = fcntl(s, F_GETFL);
		if (fl >= 0 && !(fl & O_NONBLOCK))
			fcntl(s, F_SETFL, fl | O_NONBLOCK);
		rc = connect(s, (struct sockaddr *)&sun, alen);
		int e = errno;
		if (fl >= 0 && !(fl & O_NONBLOCK))
			fcntl(s, F_SETFL, fl);
		return rc ? ERR(e) : OK(0);
	}
	memcpy(path, sun.sun_path, plen);
	path[plen] = '\0';
	int o cleanup_close = (rc = abs_path(c, AT_FDCWD, path, abs, sizeof(abs))) ? rc :
			      open_in_root(c, abs, O_PATH, false);
	if (o < 0)
		return ERR(-o == ENOENT ? ENOENT : -o);
	struct stat st;
	bool allowed = false;
	if (!fstat(o, &st) && S_ISSOCK(st.st_mode) && !fd_path(o, full, sizeof(full))) {
		size_t nr;
		const struct sbx_rule *const *rules =
			policy_rules(c->n->p, SBX_RULE_ALLOW_UNIX_SOCKET, &nr);
		for (size_t i = 0; i < nr && !allowed; i++)
			if (policy_rule_matches(rules[i], full)) {
				allowed = true;
				why = rules[i];
			}
		/* a server of the sandbox's own: a socket the run bound
		 * (wherever: the workspace too), or one on its private /tmp,
		 * where nothing outside can bind (another socket in the
		 * workspace may be a host program's: that one needs
		 * allow_unix_sockets) */
		allowed = allowed || own_socket(c->n, o);
		struct stat tst;
		int t cleanup_close = allowed ? -1 :
				      open_in_root(c, "/tmp", O_PATH | O_DIRECTORY, true);
		if (t >= 0)
			allowed = !fstat(t, &tst) && tst.st_dev == st.st_dev &&
				  is_private_tmp(t);
	} else if (fd_path(o, full, sizeof(full))) {
		snprintf(full, sizeof(full), "%s", abs);
	}
	if (!S_ISSOCK(st.st_mode))
		return ERR(ECONNREFUSED);
	if (!allowed) {
		report(c, WIRE_DENY, WIRE_UNIX, full, DENY_UNIX);
		return ERR(DENY_UNIX);
	}
	struct sockaddr_un via = { .sun_family = AF_UNIX };
	snprintf(l, sizeof(l), "/proc/self/fd/%d", o);
	snprintf(via.sun_path, sizeof(via.sun_path), "%s", l);
	/* never block the loop: a full backlog answers EAGAIN */
	fl = fcntl(s, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(s, F_SETFL, fl | O_NONBLOCK);
	mode_t old = notify_act_begin(c->n, NO_UMASK);
	rc = connect(s, (struct sockaddr *)&via, sizeof(via));
	int e = errno;
	notify_act_end(c->n, old);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(s, F_SETFL, fl);
	if (!rc)
		report_why(c, WIRE_ALLOW, WIRE_UNIX, full, 0, why);
	return rc ? ERR(e) : OK(0);
}

/* ---- removal and mode: a protected name is not removed or changed either */

/* Is `full` (the held parent `fd` and its name) protected from removal and
 * from a change of mode: the write rules (mandatory, deny_write) at any
 * depth, as for a create, save git's own files in a git directory the
 * run made (`rm -rf` of a repository cloned inside). Not inside a
 * node_modules: a package manager removes what it installed there on the
 * next install, never anything the person wrote (writing there is
 * refused all the same). */
static bool keeps(const struct notify *n, int fd, const char *full, bool removal,
		  const struct sbx_rule **why)
{
	if (removal && strstr(full, "/node_modules/"))
		return false;
	if (!moves_protected(n, fd, full, why))
		return false;
	/* a name born during the run (the .gitmodules of a superproject
	 * cloned inside, whose .git `rm -rf` took first) is the run's own:
	 * its removal loses nothing of the user's. The file system's clock
	 * lags the real one by up to a tick, so a name made just after the
	 * start may look older (kept), never the other way. */
	struct statx sx;
	if (removal && fd >= 0 &&
	    !syscall(SYS_statx, fd, base_of(full), AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BTIME,
		     &sx) &&
	    (sx.stx_mask & STATX_BTIME) &&
	    (sx.stx_btime.tv_sec > n->made.tv_sec ||
	     (sx.stx_btime.tv_sec == n->made.tv_sec && sx.stx_btime.tv_nsec > n->made.tv_nsec))) {
		*why = NULL;
		return false;
	}
	return true;
}

struct answer notify_remove(struct call *c, int dirfd, unsigned long long paddr, int flags)
{
	char path[PATH_MAX], abs[PATH_MAX], full[PATH_MAX];
	const struct sbx_rule *why;
	struct parent pa cleanup_parent = PARENT_NONE;
	int rc;

	if (flags & ~AT_REMOVEDIR)
		return ERR(EINVAL);
	if (flags & AT_REMOVEDIR)
		notify_forget_last_dir(c->n);
	if ((rc = notify_read_str(c, paddr, path, sizeof(path))))
		return ERR(-rc);
	if ((rc = abs_path(c, dirfd, path, abs, sizeof(abs))) || (rc = parent_open(c, abs, &pa)))
		return ERR(-rc);
	if (dot_name(pa.name))
		return ERR(flags & AT_REMOVEDIR ? (strcmp(pa.name, ".") ? ENOTEMPTY : EINVAL) : EISDIR);
	if (pa.slash && !(flags & AT_REMOVEDIR))
		return ERR(ENOTDIR);
	join(pa.path, pa.name, full, sizeof(full));
	if (keeps(c->n, pa.fd, full, true, &why)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		return ERR(DENY_ERRNO);
	}
	/* A name bound read-only in the sandbox (a protected file, a link
	 * kept as it is) is a mount point only in the sandbox's mount
	 * namespace: removed from the host, it would go. Such a one (or one
	 * we cannot tell) is removed by the actor inside (pid 1), where the
	 * kernel says EBUSY; the rest here, one hop less (an rm -r of 5000
	 * files took 0.6-1.1 s through the actor, against 0.2-0.3 s before
	 * removals were notified). Looked up from the held parent, whose
	 * mount is the sandbox's: its mounts are what the lookup crosses. No
	 * mount can be made inside, so one that is none now stays none. */
	struct statx sx;
	int sr = (int)syscall(SYS_statx, pa.fd, pa.name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
			      STATX_TYPE, &sx);
	bool missing = sr && errno == ENOENT;
	bool mount_root = sr ||
			  !(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
			  (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	int e;
	if (mount_root) {
		e = actor_send(c->n, CTL_ACT_UNLINK, pa.fd, pa.name, -1, NULL, (unsigned)flags);
	} else {
		mode_t old = notify_act_begin(c->n, NO_UMASK);
		e = unlinkat(pa.fd, pa.name, flags) ? errno : 0;
		notify_act_end(c->n, old);
	}
	if (e) {
		/* `rm -f` of a name that is not there, on a read-only place:
		 * the kernel's EROFS, but nothing was refused to anyone */
		if (!missing)
			kernel_refused(c, full, (flags & AT_REMOVEDIR) != 0, e);
		return ERR(e);
	}
	report(c, WIRE_ALLOW, WIRE_WRITE, full, 0);
	return OK(0);
}

/* The shim's report pipe, whose write-only mode keeps a second reader
 * out (notify_set_report). */
static bool report_pipe(const struct notify *n, const struct stat *st)
{
	return n->report_ino && S_ISFIFO(st->st_mode) && st->st_dev == n->report_dev &&
	       st->st_ino == n->report_ino;
}

int notify_chmod(struct call *c, long nr, const unsigned long long *args, struct answer *out)
{
	char full[PATH_MAX], l[64];
	const struct sbx_rule *why;
	int o = -1, rc;
	mode_t mode = 0;
	struct stat st;

	if ((rc = chmod_target(c, nr, args, false, &mode, &o)) > 0)
		return 1;
	if (rc < 0) {
		*out = ERR(-rc);
		return 0;
	}
	/* what the call would change, by the name the kernel gives it (a link
	 * followed, a descriptor's file): judged as a write there; a pipe's
	 * or a socket's descriptor names no path, and nothing protected */
	rc = 0;
	if (fstat(o, &st) || ((rc = fd_path(o, full, sizeof(full))) &&
			      (rc != -ENOENT || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
			       S_ISLNK(st.st_mode)))) {
		int e = errno;
		close(o);
		*out = ERR(rc ? -rc : e);
		return 0;
	}
	if (rc)
		full[0] = '\0';
	if (S_ISLNK(st.st_mode)) {
		close(o);
		*out = ERR(EOPNOTSUPP);
		return 0;
	}
	if (report_pipe(c->n, &st)) {
		close(o);
		*out = ERR(EPERM);
		return 0;
	}
	if (full[0] && moves_protected(c->n, -1, full, &why) && !git_writable(c, full, true)) {
		close(o);
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		*out = ERR(DENY_ERRNO);
		return 0;
	}
	if (mode & (S_ISUID | S_ISGID)) {
		close(o);
		return 1; /* the table's row, and a directory's made there */
	}
	if (!notify_call_valid(c)) {
		close(o);
		*out = ERR(ENOENT);
		return 0;
	}
	snprintf(l, sizeof(l), "/proc/self/fd/%d", o);
	mode_t old = notify_act_begin(c->n, NO_UMASK);
	rc = chmod(l, mode & 07777);
	int e = errno;
	notify_act_end(c->n, old);
	close(o);
	if (rc && full[0])
		kernel_refused(c, full, S_ISDIR(st.st_mode), e);
	*out = rc ? ERR(e) : OK(0);
	return 0;
}

/* ---- the nested mode: a file's mode and owner
 *
 * Landlock has no right for either, so there the program's chmod and
 * chown families come here alone (gen-notify.c, sbx_notify_modes) and
 * are decided as writes: a mode or owner is changed only where Landlock
 * lets the file be written, and never on a path the policy keeps
 * (`chmod 755 ~/.ssh`, `chmod 644` of a key, 000 on a hook, `chgrp` of a
 * credential). */

/* The longest of `list` that `path` is at or below: its length + 1, or 0. */
static size_t modes_below(char *const *list, size_t n, const char *path)
{
	size_t best = 0;

	for (size_t i = 0; i < n; i++)
		if (sbx_path_under(path, list[i]) && strlen(list[i]) + 1 > best)
			best = strlen(list[i]) + 1;
	return best;
}

/* Does the nested mode keep `full`'s mode and owner: a write rule or a
 * read-deny of the policy, outside Landlock's writable places, or below
 * a path the plan masks or protects (another name of a read-denied file)
 * and not in a writable place bound back into it? *why: the rule, or
 * NULL. A git directory's own config and sample hooks (notify_git_own)
 * are kept where the plan guards them (every git directory there at the
 * start that the walk found): one the run made is not told apart here
 * (no make is notified), and Landlock lets it be written; `git init`
 * there toggles the config's executable bit to learn core.fileMode. */
static bool modes_kept(const struct notify *n, const char *full, const struct sbx_rule **why)
{
	const char *g = NULL;

	for (const char *q = strstr(full, "/.git/"); q; q = strstr(q + 1, "/.git/"))
		g = q;
	if (policy_check_path(n->p, SBX_OP_WRITE, full, why) == SBX_DENY && *why &&
	    !(protective(*why) && g && notify_git_own(g + 6)))
		return true;
	*why = NULL;
	size_t root = modes_below(n->modes_roots, n->nmodes_roots, full);
	return !root || modes_below(n->modes_kept, n->nmodes_kept, full) >= root;
}

/* What a chown-family call names, opened O_PATH, as chmod_target. */
static int chown_target(struct call *c, long nr, const unsigned long long *args, uid_t *uid,
			gid_t *gid, int *fd)
{
	int dfd = AT_FDCWD, o;
	unsigned long long paddr;
	unsigned flags = 0;

	if (nr == SYS_fchown) {
		*uid = (uid_t)args[1];
		*gid = (gid_t)args[2];
		o = notify_take_fd(c, (int)args[0]);
		goto done;
	}
	if (nr == SYS_fchownat) {
		dfd = (int)args[0];
		paddr = args[1];
		*uid = (uid_t)args[2];
		*gid = (gid_t)args[3];
		flags = (unsigned)args[4];
#ifdef SYS_chown
	} else if (nr == SYS_chown || nr == SYS_lchown) {
		paddr = args[0];
		*uid = (uid_t)args[1];
		*gid = (gid_t)args[2];
		flags = nr == SYS_lchown ? AT_SYMLINK_NOFOLLOW : 0;
#endif
	} else {
		return 1;
	}
	o = held_target(c, dfd, paddr, flags, false);
done:
	if (o < 0)
		return o;
	*fd = o;
	return 0;
}

struct answer notify_modes(struct call *c, long nr, const unsigned long long *args)
{
	char full[PATH_MAX], l[64];
	const struct sbx_rule *why;
	bool own = false;
	mode_t mode = 0;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	struct stat st;
	struct answer a;
	int o = -1, rc;

	if ((rc = chmod_target(c, nr, args, false, &mode, &o)) > 0) {
		rc = chown_target(c, nr, args, &uid, &gid, &o);
		own = true;
	}
	if (rc > 0)
		return ERR(ENOSYS); /* nothing else is notified here */
	if (rc < 0)
		return ERR(-rc);
	/* fchmod and fchown on an O_PATH descriptor: EBADF, as the kernel */
	if ((nr == SYS_fchmod || nr == SYS_fchown) && (fcntl(o, F_GETFL) & O_PATH)) {
		close(o);
		return ERR(EBADF);
	}
	/* what the call would change, by the name the kernel gives it (as
	 * notify_chmod): a pipe's or a socket's names none */
	rc = 0;
	if (fstat(o, &st) || ((rc = fd_path(o, full, sizeof(full))) &&
			      (rc != -ENOENT || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
			       S_ISLNK(st.st_mode)))) {
		a = ERR(rc ? -rc : errno);
		goto out;
	}
	if (rc)
		full[0] = '\0';
	if (report_pipe(c->n, &st)) {
		a = ERR(EPERM);
		goto out;
	}
	if (full[0] && modes_kept(c->n, full, &why)) {
		report_why(c, WIRE_DENY, WIRE_WRITE, full, DENY_ERRNO, why);
		a = ERR(DENY_ERRNO);
		goto out;
	}
	if (!own && S_ISLNK(st.st_mode)) {
		a = ERR(EOPNOTSUPP); /* a link's own mode, as fchmodat2 says */
		goto out;
	}
	if (!notify_call_valid(c)) {
		a = ERR(ENOENT);
		goto out;
	}
	snprintf(l, sizeof(l), "/proc/self/fd/%d", o);
	mode_t old = notify_act_begin(c->n, NO_UMASK);
	rc = own ? fchownat(o, "", uid, gid, AT_EMPTY_PATH) : chmod(l, mode & 07777);
	int e = errno;
	notify_act_end(c->n, old);
	a = rc ? ERR(e) : OK(0);
out:
	close(o);
	return a;
}
