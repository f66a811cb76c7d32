/* preload/plan.c: the compiled policy as a bubblewrap command line.
 *
 * The mounts are applied in order, so the order here is the design: the
 * whole root read-only; writable roots bound over it; /proc and a private
 * /tmp (bubblewrap); then, by sbx-init (init/mounts.h), a fresh /dev,
 * read-denied paths masked over everything, and write-denied paths bound
 * read-only over the writable roots. bubblewrap pays about 0.15 ms per mount
 * operation (it re-reads mountinfo each time), sbx-init about 0.02 ms.
 */
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/hostfs.h"
#include "net/net.h"
#include "common/pathwalk.h"
#include "preload/standin.h"
#include "preload/walkrec.h"
#include "preload/preload.h"

/* How deep below a writable root we look for protected names that already
 * exist (`sub/.env`, a nested repository's `.git/hooks`). Deeper ones are
 * still denied by the policy (the shim reports them); the boundary covers
 * these levels. Kept small: it is paid on every start. */
#define SCAN_DEPTH 3

/* Directories never descended into while scanning: huge, and not where
 * start-up files or hooks live. */
static const char *const scan_skip[] = { "node_modules", "objects", ".cache" };

#define TRY(x) do { if ((x) < 0) return -ENOMEM; } while (0)

static int add2(struct plan *pl, const char *op, const char *a)
{
	TRY(strv_add(&pl->argv, op));
	return strv_add(&pl->argv, a);
}

static int add3(struct plan *pl, const char *op, const char *a, const char *b)
{
	TRY(strv_add(&pl->argv, op));
	TRY(strv_add(&pl->argv, a));
	return strv_add(&pl->argv, b);
}

/* One sbx-init mount operation: OP is "--ro=" and the like. */
static int init_op(struct plan *pl, const char *op, const char *path)
{
	return strv_addf(&pl->init_ops, "%s%s", op, path);
}

/* ---- what is already covered, to keep the argv short and the order sane */

/* A read-denied file with more than one name: a hard link made before the
 * run (`ln ~/.aws/credentials ~/proj/notes/c`) is the same file under a
 * name no rule names, and a mount hides a name, not a file. The masked
 * files (and those in a masked directory, at any depth, breadth first:
 * `~/.aws/sso/cache/x.json`) that have other names are remembered here;
 * the walk of the writable roots looks for those by identity (a stat per
 * file, only while there is one to look for) and masks each it finds,
 * then, for one still not found, the parts the walk does not enter
 * (node_modules, objects, .cache, git directories, below its depth);
 * sbx says what it found and what it could not. */
#define SHARED_MAX 32
#define SHARED_DIR_ENTRIES 512 /* looked at in one masked directory */
#define SHARED_DIR_EACH 64      /* ... in each directory below it */
struct shared {
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	unsigned found; /* other names masked */
	char path[PATH_MAX];
};

/* The paths of a long list of the plan's, hashed: every protect asks
 * whether it is under one already protected, and every directory on the
 * way to one whether it is pinned already, so with a few parts guarded
 * per git directory (200 repositories: 400 protects) a linear scan of
 * each list made the plan quadratic (`strncmp` was a fifth of the
 * supervisor's CPU). The strings are the list's own (strv_add's copies,
 * which stay put), so this holds pointers only. */
struct pathset {
	const char **v; /* open addressing; NULL: empty */
	size_t n, cap;  /* cap a power of two */
};

static uint64_t pathset_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* Does the set hold s[0..n) exactly? */
static bool pathset_has(const struct pathset *ps, const char *s, size_t n)
{
	if (!ps->cap)
		return false;
	for (size_t i = pathset_hash(s, n) & (ps->cap - 1);; i = (i + 1) & (ps->cap - 1)) {
		const char *e = ps->v[i];
		if (!e)
			return false;
		if (!strncmp(e, s, n) && !e[n])
			return true;
	}
}

static int pathset_put(struct pathset *ps, const char *str)
{
	if (2 * (ps->n + 1) > ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 256;
		const char **v = calloc(cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < ps->cap; i++) {
			if (!ps->v[i])
				continue;
			size_t j = pathset_hash(ps->v[i], strlen(ps->v[i])) & (cap - 1);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = ps->v[i];
		}
		free(ps->v);
		ps->v = v;
		ps->cap = cap;
	}
	size_t j = pathset_hash(str, strlen(str)) & (ps->cap - 1);
	while (ps->v[j])
		j = (j + 1) & (ps->cap - 1);
	ps->v[j] = str;
	ps->n++;
	return 0;
}

/* in_list() of the list the set holds: is path one of its paths, or
 * under one (path_under: at a `/` of path, or all of it; `/` holds every
 * absolute path)? */
static bool pathset_under(const struct pathset *ps, const char *path)
{
	size_t n = strlen(path);

	if (!ps->n)
		return false;
	if (path[0] == '/' && pathset_has(ps, "/", 1))
		return true;
	for (size_t k = 1; k <= n; k++)
		if ((k == n || path[k] == '/') && pathset_has(ps, path, k))
			return true;
	return false;
}

/* Add to the list and its set. */
static int strv_add_set(struct strv *list, struct pathset *ps, const char *path)
{
	int rc = strv_add(list, path);

	return rc ? rc : pathset_put(ps, list->v[list->n - 1]);
}

struct covered {
	struct strv masks;   /* read-denied paths already hidden */
	struct strv protect; /* paths already bound read-only */
	struct pathset protect_set, pins_set; /* the same, hashed */
	struct pathset unguarded_set; /* pl->unguarded, hashed */
	struct strv roots;   /* writable roots that were bound */
	/* the host's answers of this plan: each readlink() once, and the
	 * names a directory asked about often lacks (the workspace's and
	 * HOME's top, for the protected names' rows) missing without a
	 * system call; made at plan_bwrap(), dropped at plan_init()'s end,
	 * before COMMAND starts (sbx_path_missing()) */
	struct path_memo *memo;
	/* the last git config asked about, read and parsed once for all its
	 * readers (a git directory's asks come together: worktree_config_on(),
	 * git_core_key(), guard_hooks_from()) */
	struct {
		char path[PATH_MAX];
		bool there;
		struct gitcfg *g;
	} config;
	/* core.hooksPath values of the user's and the system's git config
	 * (and what they include), read once per start, guarded for each
	 * git directory from its own top (guard_hooks_from) */
	struct strv user_hooks;
	bool user_hooks_read;
	struct strv unmasked; /* writable children bound back into a mask */
	struct strv links;   /* protected names that are symlinks (--ro-link) */
	struct strv pins;    /* directories on the way to a protected path */
	struct strv gitdirs; /* git directories guarded (guard_repo) */
	unsigned walked;     /* directories read looking for them */
	bool host_tmp;       /* the nested mode: /tmp is the host's, writable */
	/* plan_guards() (macOS): what the disk says, found as for a mount,
	 * and nothing mounted, counted against a mount's limits or made */
	bool discover;
	unsigned nguarded;   /* git directories whose parts were guarded */
	bool guard_cut;      /* ... and more were found than GIT_GUARD_MAX */
	char walk_cut_at[PATH_MAX]; /* the first directory left unread, or "" */
	struct shared shared[SHARED_MAX]; /* read-denied files with other names */
	unsigned nshared;
	bool shared_cut; /* more than SHARED_MAX of them */
	/* The parents placeholder() resolved, "" when not a directory (they
	 * are the workspace, HOME and a few below them, asked for in turn:
	 * realpath() costs a readlink per component). */
#define NPARENTS 8
	struct {
		char path[PATH_MAX], real[PATH_MAX];
	} parents[NPARENTS];
	unsigned nparents;
};

/* lstat(), stat() and access(F_OK) of the plan: "missing" without a
 * system call when the plan's memo knows (the protected names' rows ask
 * each at the top of the workspace and of HOME, five times a name). */
static int look_lstat(struct covered *cv, const char *path, struct stat *st)
{
	if (sbx_path_missing(cv->memo, path)) {
		errno = ENOENT;
		return -1;
	}
	return lstat(path, st);
}

static int look_stat(struct covered *cv, const char *path, struct stat *st)
{
	if (sbx_path_missing(cv->memo, path)) {
		errno = ENOENT;
		return -1;
	}
	return stat(path, st);
}

static bool look_there(struct covered *cv, const char *path)
{
	return !sbx_path_missing(cv->memo, path) && access(path, F_OK) == 0;
}

/* The git config `file` as gitcfg_read() reads it, from the one kept when
 * it was the last asked: whether it is there, and its entries (NULL when
 * git would not read them either). */
static const struct gitcfg *config_of(struct covered *cv, const char *file, bool *there)
{
	if (strcmp(cv->config.path, file)) {
		gitcfg_free(cv->config.g);
		cv->config.g = NULL;
		cv->config.there = false;
		if (snprintf(cv->config.path, sizeof(cv->config.path), "%s", file) >=
		    (int)sizeof(cv->config.path))
			cv->config.path[0] = '\0';
		else
			cv->config.there = gitcfg_read(file, &cv->config.g);
	}
	*there = cv->config.there;
	return cv->config.g;
}

/* git's boolean (git_parse_maybe_bool(), then a number, which may end in
 * k, m or g): the key alone, true/yes/on, or a number other than 0 */
static bool git_true(const char *v)
{
	char *end;

	if (!v)
		return true;
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
		return true;
	long n = strtol(v, &end, 0);
	if (end != v && *end && strchr("kKmMgG", *end) && !end[1])
		end++;
	return end != v && !*end && n != 0;
}

/* The real directory `parent` is, or false when it is not one. */
static bool real_parent(struct covered *cv, const char *parent, char *real, size_t sz)
{
	struct stat st;
	unsigned i;

	if (sbx_path_missing(cv->memo, parent))
		return false; /* (kept out of the ring: `.hg`, `.jj`... would fill it) */
	for (i = 0; i < cv->nparents && i < NPARENTS; i++)
		if (!strcmp(cv->parents[i].path, parent))
			goto found;
	i = cv->nparents++ % NPARENTS;
	snprintf(cv->parents[i].path, sizeof(cv->parents[i].path), "%s", parent);
	/* realpath()'s answer for a directory, its readlinks through the memo
	 * (a repository's `.git`, asked for each part, fills the ring) */
	sbx_path_resolve_memo(parent, cv->parents[i].real, sizeof(cv->parents[i].real), cv->memo);
	if (cv->parents[i].real[0] != '/' || look_stat(cv, cv->parents[i].real, &st) ||
	    !S_ISDIR(st.st_mode))
		cv->parents[i].real[0] = '\0';
found:
	snprintf(real, sz, "%s", cv->parents[i].real);
	return real[0] != '\0';
}

static void covered_free(struct plan *pl);
static int placeholder(const struct plan_in *in, struct plan *pl,
		       struct covered *cv, const char *path, bool asked);
static bool standin_fits(const struct plan_in *in, struct covered *cv, const char *path);

static bool in_list(const struct strv *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (sbx_path_under(path, s->v[i]))
			return true;
	return false;
}

/* Under a mask, and not in a writable child bound back into it. */
static bool hidden(const struct covered *cv, const char *path)
{
	return in_list(&cv->masks, path) && !in_list(&cv->unmasked, path);
}

/* In a writable root. The nested mode has no private /tmp: the host's is
 * writable whole (landlock_spec_from_plan), so what is masked or
 * protected there must be said to Landlock as anywhere else. */
static bool writable_here(const struct covered *cv, const char *path)
{
	return in_list(&cv->roots, path) || (cv->host_tmp && sbx_path_under(path, "/tmp"));
}

/* A writable root lies at or below path. */
static bool holds_root(const struct covered *cv, const char *path)
{
	for (size_t i = 0; i < cv->roots.n; i++)
		if (sbx_path_under(cv->roots.v[i], path))
			return true;
	return false;
}

/* ---- masks for read-denied paths */

static void remember_shared(struct covered *cv, const char *path, const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || st->st_nlink < 2)
		return;
	for (unsigned i = 0; i < cv->nshared; i++)
		if (cv->shared[i].dev == st->st_dev && cv->shared[i].ino == st->st_ino)
			return;
	if (cv->nshared == SHARED_MAX) {
		cv->shared_cut = true;
		return;
	}
	struct shared *sh = &cv->shared[cv->nshared++];
	sh->dev = st->st_dev;
	sh->ino = st->st_ino;
	sh->nlink = st->st_nlink;
	sh->found = 0;
	snprintf(sh->path, sizeof(sh->path), "%s", path);
}

static unsigned char entry_type(int dirfd, const struct dirent *e);

/* The files in a masked directory, at any depth, breadth first (a
 * credential directory keeps its keys at its top or a few levels down:
 * `~/.aws/sso/cache/`, `~/.gnupg/private-keys-v1.d/`), a bounded look
 * (SHARED_DIR_ENTRIES entries, SHARED_DIR_EACH of each directory, so a
 * large sibling -- gcloud's logs, a browser profile's caches -- does not
 * take the look from the rest). No link below it is followed. */
static void remember_shared_in(struct covered *cv, const char *dir)
{
	struct strv todo = { 0 };
	size_t at = 0;
	unsigned n = 0;
	bool cut = false;

	if (strv_add(&todo, dir))
		return;
	while (at < todo.n && n < SHARED_DIR_ENTRIES) {
		char *d = todo.v[at];
		struct dirent *e;
		DIR *dd;
		int fd;

		/* the directory itself as the mask found it (stat: a link
		 * followed), nothing below it through a link */
		fd = open(d, O_RDONLY | O_DIRECTORY | (at ? O_NOFOLLOW : 0) | O_CLOEXEC);
		todo.v[at++] = NULL;
		if (fd < 0 || !(dd = fdopendir(fd))) {
			if (fd >= 0)
				close(fd);
			free(d);
			continue;
		}
		unsigned here = 0;
		while (n < SHARED_DIR_ENTRIES && (e = readdir(dd))) {
			char path[PATH_MAX];
			struct stat st;
			unsigned char type;
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
			    snprintf(path, sizeof(path), "%s/%s", d, e->d_name) >= (int)sizeof(path))
				continue;
			if (here++ == SHARED_DIR_EACH) {
				cut = true;
				break;
			}
			n++;
			type = entry_type(dirfd(dd), e);
			if (type == DT_DIR)
				strv_add(&todo, path); /* out of memory: a shorter look */
			else if (type == DT_REG &&
				 !fstatat(dirfd(dd), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
				remember_shared(cv, path, &st);
		}
		closedir(dd);
		free(d);
	}
	if (cut || n >= SHARED_DIR_ENTRIES)
		vmsg("%s has more entries than sbx looks at for other names (hard links: %u, "
		     "%u of each directory): not all its files were", dir,
		     (unsigned)SHARED_DIR_ENTRIES, (unsigned)SHARED_DIR_EACH);
	strv_free(&todo);
}

static int mask_path(const struct plan_in *in, struct plan *pl,
		     struct covered *cv, const char *path);
static int guard_way(struct covered *cv, const char *path);

/* An entry of a writable root that is another name of a remembered file:
 * masked as that file is. */
static int shared_name(const struct plan_in *in, struct plan *pl, struct covered *cv,
		       int dirfd, const char *name, const char *path)
{
	struct stat st;

	if (!cv->nshared || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(st.st_mode) || st.st_nlink < 2)
		return 0;
	for (unsigned i = 0; i < cv->nshared; i++) {
		struct shared *sh = &cv->shared[i];
		if (sh->dev != st.st_dev || sh->ino != st.st_ino || in_list(&cv->masks, path))
			continue;
		char shown[PATH_MAX], of[PATH_MAX];
		sbx_path_tildify(path, policy_home(in->policy), shown, sizeof(shown));
		sbx_path_tildify(sh->path, policy_home(in->policy), of, sizeof(of));
		msg("%s is another name (a hard link) of %s, which the policy denies reading: "
		    "hidden too", shown, of);
		sh->found++;
		return mask_path(in, pl, cv, path);
	}
	return 0;
}

/* What the walk did not find: the other names lie elsewhere, where they
 * read as any file does. */
static void shared_said(const struct plan_in *in, const struct covered *cv)
{
	for (unsigned i = 0; i < cv->nshared; i++) {
		const struct shared *sh = &cv->shared[i];
		char shown[PATH_MAX];
		if (sh->found + 1 >= sh->nlink)
			continue;
		sbx_path_tildify(sh->path, policy_home(in->policy), shown, sizeof(shown));
		msg("%s, which the policy denies reading, has %u names (hard links), not all "
		    "in the writable roots, where sbx looks for them: a name elsewhere reads it "
		    "as any file (find them with `find / -xdev -samefile %s`, then remove them "
		    "or name them in deny_read)", shown, (unsigned)sh->nlink, sh->path);
	}
	if (cv->shared_cut)
		msg("more than %u files the policy denies reading have other names (hard "
		    "links): those past them are not looked for in the writable roots",
		    (unsigned)SHARED_MAX);
}

static int mask_path(const struct plan_in *in, struct plan *pl,
		     struct covered *cv, const char *path)
{
	struct stat st;
	size_t nallow;
	const struct sbx_rule *const *allow =
		policy_rules(in->policy, SBX_RULE_ALLOW_READ, &nallow);

	/* stat, not lstat: a mount follows a link (a link to a directory gets
	 * a directory's mask), and a link to nothing has nothing to read */
	if (in_list(&cv->masks, path) || look_stat(cv, path, &st))
		return 0;
	/* Under the host's /tmp and not bound back in: the sandbox's private
	 * /tmp already hides it, and it is not there to be masked (in the
	 * nested mode /tmp is the host's: writable_here) */
	if (sbx_path_under(path, "/tmp") && !writable_here(cv, path))
		return 0;
	/* plan_guards() (discover): the profile's deny_read rule holds it,
	 * so no mount and no count; the rest is as for a mount: its way
	 * pinned, its writable re-allowed children known (what is kept below
	 * them is looked for, hidden() says) */
	/* Each is a mount (and a linear look-up here): a pattern matching
	 * thousands of files (`deny_read = *.log` in a tree of logs) stops
	 * the run with its name rather than sbx-init's "too many options",
	 * and never leaves one readable. */
	if (!cv->discover && pl->read_masks >= PLAN_MASKS_MAX) {
		snprintf(pl->masks_cut, sizeof(pl->masks_cut), "%s", path);
		return -E2BIG;
	}
	TRY(strv_add(&cv->masks, path));
	pl->read_masks += !cv->discover;
	/* its way pinned, as a protected path's: a directory on the way
	 * renamed (`mv config cfg`) takes the file away from its name, the
	 * mount going along, and the next run reads `cfg/credentials.json`,
	 * which no rule names (a glob's match by name alone stays) */
	TRY(guard_way(cv, path));
	if (cv->discover && !S_ISDIR(st.st_mode))
		return 0;
	if (!cv->discover && S_ISDIR(st.st_mode))
		remember_shared_in(cv, path);
	else if (!cv->discover)
		remember_shared(cv, path, &st);
	if (!S_ISDIR(st.st_mode))
		/* reads give nothing, writes fail */
		return init_op(pl, "--mask-file=", path);

	/* Re-allowed children stay visible: the mask may then be traversed
	 * (not listed), and each child is bound back. */
	bool children = false;
	for (size_t i = 0; i < nallow; i++)
		if (allow[i]->pat == SBX_PAT_PREFIX && sbx_path_under(allow[i]->pattern, path) &&
		    strcmp(allow[i]->pattern, path) && look_there(cv, allow[i]->pattern))
			children = true;
	if (!cv->discover)
		TRY(init_op(pl, children ? "--mask-dir-x=" : "--mask-dir=", path));
	for (size_t i = 0; children && i < nallow; i++) {
		const char *c = allow[i]->pattern;
		if (allow[i]->pat != SBX_PAT_PREFIX || !sbx_path_under(c, path) ||
		    !strcmp(c, path) || !look_there(cv, c))
			continue;
		bool w = writable_here(cv, c) &&
			 policy_check_path(in->policy, SBX_OP_WRITE, c, NULL) == SBX_ALLOW;
		if (!cv->discover)
			TRY(init_op(pl, w ? "--unmask-rw=" : "--unmask=", c));
		if (w)
			TRY(strv_add(&cv->unmasked, c));
	}
	return 0;
}

/* ---- read-only protection inside writable roots */

/* op: "--ro=" for what exists, "--ro-new=" for a placeholder. */
static int add_once(struct strv *list, const char *path)
{
	for (size_t i = 0; i < list->n; i++)
		if (!strcmp(list->v[i], path))
			return 0;
	return strv_add(list, path);
}

static bool is_root(const struct covered *cv, const char *path)
{
	for (size_t i = 0; i < cv->roots.n; i++)
		if (!strcmp(cv->roots.v[i], path))
			return true;
	return false;
}

/* Everything on the way to a protected path that could be swapped to take
 * the path away from its name: the path is followed as the kernel would,
 * hop by hop, and inside the writable roots every symlink met (the name
 * itself, a directory on the way, a link in a chain) is covered on the link
 * itself (--ro-link), and every directory before the last component becomes
 * a mount point (--pin), which cannot be renamed or removed. */
static int guard_way(struct covered *cv, const char *path)
{
	char done[PATH_MAX] = "", todo[PATH_MAX * 2], cand[PATH_MAX * 2], link[PATH_MAX];
	char next[PATH_MAX * 3];
	struct stat st;
	int hops = 0;

	if (snprintf(todo, sizeof(todo), "%s", path) >= (int)sizeof(todo))
		return 0;
	/* The writable roots are real paths: start below the longest one the
	 * path is under (nothing above it can be swapped from inside). */
	char *c = todo;
	for (size_t i = 0; i < cv->roots.n; i++) {
		size_t n = strlen(cv->roots.v[i]);
		if (sbx_path_under(todo, cv->roots.v[i]) && todo + n > c && n < sizeof(done)) {
			memcpy(done, todo, n);
			done[n] = '\0';
			c = todo + n;
		}
	}
	if (!strcmp(done, "/"))
		done[0] = '\0'; /* a root of `/` (allow_write = /): not `//var` */
	while (*c) {
		while (*c == '/')
			c++;
		if (!*c)
			break;
		char *end = c + strcspn(c, "/");
		bool last = !end[strspn(end, "/")];
		if (snprintf(cand, sizeof(cand), "%s/%.*s", done, (int)(end - c), c) >=
		    (int)sizeof(done) || lstat(cand, &st))
			return 0; /* missing from here: nothing more to swap */
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(cand, link, sizeof(link) - 1);
			if (n <= 0 || ++hops > 40)
				return 0;
			link[n] = '\0';
			if (writable_here(cv, cand) && !hidden(cv, cand))
				TRY(add_once(&cv->links, cand));
			/* go on from the link's target, then what was left */
			if (snprintf(next, sizeof(next), "%s/%s%s", link[0] == '/' ? "" : done,
				     link, end) >= (int)sizeof(next) ||
			    path_join(NULL, next, todo, sizeof(todo)))
				return 0;
			done[0] = '\0';
			c = todo;
			continue;
		}
		if (!last && writable_here(cv, cand) && !is_root(cv, cand) &&
		    !hidden(cv, cand) && !pathset_has(&cv->pins_set, cand, strlen(cand)))
			TRY(strv_add_set(&cv->pins, &cv->pins_set, cand));
		memcpy(done, cand, strlen(cand) + 1);
		c = end;
	}
	return 0;
}

static int protect_as(struct plan *pl, struct covered *cv, const char *path,
		      const char *op)
{
	if (!writable_here(cv, path) || pathset_under(&cv->protect_set, path) ||
	    hidden(cv, path))
		return 0;
	TRY(strv_add_set(&cv->protect, &cv->protect_set, path));
	TRY(guard_way(cv, path));
	pl->write_protects++;
	return init_op(pl, op, path);
}

/* A protected path that does not exist yet, kept from being made. With
 * the seccomp notify layer nothing of sbx's goes into the user's tree: the
 * layer refuses to make the path, whatever name it is reached by
 * (pl->refused_new, notify_refuse()), and the way there is guarded as for
 * a mount. Without it (SBX_NOTIFY=off), a stand-in (standin.h) is made
 * and mounted onto itself. */
static int guard_missing(const struct plan_in *in, struct plan *pl, struct covered *cv,
			 const char *path)
{
	if (!in->notify) {
		TRY(strv_add(&pl->placeholders_pending, path));
		return protect_as(pl, cv, path, "--ro-new=");
	}
	if (!writable_here(cv, path) || pathset_under(&cv->protect_set, path) || hidden(cv, path))
		return 0;
	TRY(strv_add_set(&cv->protect, &cv->protect_set, path));
	TRY(guard_way(cv, path));
	pl->write_protects++;
	return strv_add(&pl->refused_new, path);
}

/* A protected name that is a link to nothing yet (`.env -> .env.local`):
 * no mount can cover it (a mount follows the link), and a write through it
 * would create the target. Guard where it leads instead: a placeholder at
 * the first missing component of the target (a file there makes creating
 * anything below it fail too). Outside the writable roots the write fails
 * anyway; a link loop leads nowhere. */
static int protect_dangling(const struct plan_in *in, struct plan *pl,
			    struct covered *cv, const char *path)
{
	char to[PATH_MAX], cut[PATH_MAX];
	struct stat st;
	size_t i;

	if (!in->make_placeholders)
		return 0;
	sbx_path_resolve_memo(path, to, sizeof(to), cv->memo);
	for (i = 1;; i++) {
		if (to[i] != '/' && to[i])
			continue;
		memcpy(cut, to, i);
		cut[i] = '\0';
		if (lstat(cut, &st))
			break;
		if (!to[i])
			return 0; /* all there: a loop, or made meanwhile */
	}
	if (errno != ENOENT || !writable_here(cv, cut) || hidden(cv, cut) ||
	    pathset_under(&cv->protect_set, cut) || !standin_fits(in, cv, path))
		return 0;
	return guard_missing(in, pl, cv, cut);
}

static bool is_dangling(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) && errno == ENOENT;
}

static int protect_path(const struct plan_in *in, struct plan *pl, struct covered *cv,
			const char *path)
{
	struct stat st;

	/* a stand-in (a live run's, met by the scan): taken over, so that run
	 * does not remove it from under this one */
	if (standin_looks_like(path))
		return placeholder(in, pl, cv, path, true);
	/* a link to nothing: its way is guarded, and its target gets a
	 * placeholder (a bind would have nothing to land on) */
	if (look_lstat(cv, path, &st) == 0 && S_ISLNK(st.st_mode) && is_dangling(path)) {
		TRY(guard_way(cv, path));
		return protect_dangling(in, pl, cv, path);
	}
	return protect_as(pl, cv, path, "--ro=");
}

/* Where a stand-in is worth its presence (docs/POLICY.md, "Stand-ins"): a
 * missing name that something outside the sandbox reads later, at a place
 * where a dangling link changes nothing for the programs that read it (they
 * open or stat it: ENOENT, as if absent). The shell and git start-up files
 * at the top of HOME; Claude Code's user commands and agents; git's and
 * sbx's configuration under ~/.config; the hooks and config of an existing
 * git directory. Not at the top of a workspace: git status, editors and MCP
 * servers list what is there, and `git add -A` would commit it. Never
 * `commondir`: git takes a name that lstat() finds there for a linked
 * worktree's, whatever it is. */
static const char *const home_standins[] = {
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".gitconfig",
	".claude/commands", ".claude/agents", ".config/git/config", ".config/sbx",
	".bash_aliases", ".pam_environment", ".xprofile", ".xsessionrc", ".xinitrc",
	".ripgreprc", ".config/autostart", ".config/systemd", ".config/environment.d",
	".local/bin", "bin",
	/* read only when present (opened, or tested with -f/-x/-d, which a
	 * dangling link fails), and made by nothing on the host on its own */
	".bash_completion", ".inputrc", ".vimrc", ".exrc", ".emacs", ".emacs.el",
	".tmux.conf", ".gdbinit", ".lessfilter", ".npmrc", ".yarnrc", ".yarnrc.yml",
	".cargo/env", ".cargo/config", ".cargo/config.toml", ".claude/settings.json",
	".codex/config.toml", ".config/nvim", ".config/tmux", ".config/gdb", ".config/direnv",
	".local/share/bash-completion", ".local/share/systemd", ".local/share/dbus-1",
};

/* Is extensions.worktreeConfig on in gd/config? Then git reads
 * config.worktree as config, and a missing one is worth a stand-in. */
static bool worktree_config_scan(const char *file);

static bool worktree_config_on(struct covered *cv, const char *gd)
{
	char file[PATH_MAX + 16];
	bool there, set;

	snprintf(file, sizeof(file), "%s/config", gd);
	const struct gitcfg *g = config_of(cv, file, &there);
	if (!there)
		return false;
	if (!g)
		return worktree_config_scan(file); /* one git would not read */
	const char *v = gitcfg_get(g, "extensions.worktreeconfig", &set);
	return set && git_true(v);
}

/* The same by lines, for a file the parser refuses (over 1 MiB, or what
 * git would not read): any line that says it, the first one taken */
static bool worktree_config_scan(const char *file)
{
	char *buf = NULL;
	size_t cap = 0;
	bool in_ext = false, on = false;
	FILE *f;

	if (!(f = sbx_fopen_file(file)))
		return false;
	for (char *l; !on && (l = gitcfg_scan_line(f, &buf, &cap));) {
		l[strcspn(l, ";#")] = '\0';
		if (*l == '[') {
			/* `[extensions] worktreeConfig` on one line is git's too */
			in_ext = !strncasecmp(l, "[extensions]", 12);
			char *close = strchr(l, ']');
			l = close ? close + 1 + strspn(close + 1, " \t") : l + strlen(l);
		}
		if (!in_ext || strncasecmp(l, "worktreeconfig", 14))
			continue;
		char *v = l + 14 + strspn(l + 14, " \t");
		if (*v == '=') {
			v += 1 + strspn(v + 1, " \t");
			on = !strncasecmp(v, "true", 4) || !strncasecmp(v, "yes", 3) ||
			     !strncasecmp(v, "on", 2) || *v == '1';
		} else {
			on = !*v; /* a bare key is true */
		}
	}
	free(buf);
	fclose(f);
	return on;
}

static bool standin_fits(const struct plan_in *in, struct covered *cv, const char *path)
{
	const char *home = policy_home(in->policy), *name = strrchr(path, '/') + 1;
	char head[PATH_MAX];
	size_t hl = strlen(home);

	if (!strncmp(path, home, hl) && path[hl] == '/')
		for (size_t i = 0; i < sizeof(home_standins) / sizeof(*home_standins); i++)
			if (!strcmp(path + hl + 1, home_standins[i]))
				return true;
	/* the `.config/` ones where $XDG_CONFIG_HOME puts them */
	const char *xdg = policy_config_home(in->policy);
	size_t xl = xdg ? strlen(xdg) : 0;
	if (xl && !strncmp(path, xdg, xl) && path[xl] == '/')
		for (size_t i = 0; i < sizeof(home_standins) / sizeof(*home_standins); i++)
			if (!strncmp(home_standins[i], ".config/", 8) &&
			    strcmp(home_standins[i], ".config/sbx") &&
			    !strcmp(path + xl + 1, home_standins[i] + 8))
				return true;
	/* hooks or config in a `.git` or beside a HEAD: a git directory's;
	 * config.worktree too where git reads it */
	if (!strcmp(name, "config.worktree")) {
		char gd[PATH_MAX];
		snprintf(gd, sizeof(gd), "%.*s", (int)(name - path - 1), path);
		return worktree_config_on(cv, gd);
	}
	if (strcmp(name, "hooks") && strcmp(name, "config"))
		return false;
	if (name - path > 5 && !strncmp(name - 6, "/.git/", 6))
		return true;
	if (snprintf(head, sizeof(head), "%.*sHEAD", (int)(name - path), path) >=
	    (int)sizeof(head))
		return false;
	return access(head, F_OK) == 0;
}

/* A protected name missing at start that gets no stand-in: the shim
 * refuses it; looked at again after the run, so a program the shim does
 * not see is not silent (plan_appeared()). */
static int unguarded(struct plan *pl, struct covered *cv, const char *path)
{
	if (!writable_here(cv, path) || hidden(cv, path) ||
	    pathset_has(&cv->unguarded_set, path, strlen(path)))
		return 0;
	return strv_add_set(&pl->unguarded, &cv->unguarded_set, path);
}

/* A stand-in for a protected path that does not exist yet, so it can be
 * mounted inside and creating the name fails (standin.h). Only where the
 * parent exists (`.git/hooks` is guarded in an existing repository, and a
 * `git init` inside the sandbox still works), and where standin_fits() or
 * the user named the path itself (`deny_write = ~/notes/`). A stand-in a
 * live run made is planned like a missing name (standin.c takes it over).
 * Planned here, made by plan_make_placeholders() while bubblewrap starts. */
static int placeholder(const struct plan_in *in, struct plan *pl,
		       struct covered *cv, const char *path, bool asked)
{
	char parent[PATH_MAX], real[PATH_MAX], target[PATH_MAX];
	struct stat st;

	if (!in->make_placeholders)
		return 0;
	if (look_lstat(cv, path, &st) == 0 && !standin_looks_like(path))
		return S_ISLNK(st.st_mode) ? protect_path(in, pl, cv, path) : 0;
	snprintf(parent, sizeof(parent), "%s", path);
	*strrchr(parent, '/') = '\0';
	/* Judge where it would really land: a sandboxed run may have left
	 * `.git` or `.claude` as a symlink to elsewhere, and we create files
	 * outside the sandbox, as the user. */
	if (!parent[0])
		snprintf(parent, sizeof(parent), "/");
	if (!real_parent(cv, parent, real, sizeof(real)))
		/* No parent, no stand-in (`~/.claude/commands` with no
		 * `~/.claude`): making the parent for it would be a directory
		 * the program then finds, and a stand-in in its place would
		 * break the program that makes it. The shim refuses the name;
		 * what a program it does not see makes is named after the run. */
		return unguarded(pl, cv, path);
	if (snprintf(target, sizeof(target), "%s/%s", strcmp(real, "/") ? real : "",
		     strrchr(path, '/') + 1) >= (int)sizeof(target))
		return 0;
	path = target;
	if (!writable_here(cv, path) || hidden(cv, path) || pathset_under(&cv->protect_set, path) ||
	    (look_lstat(cv, path, &st) == 0 && !standin_looks_like(path)))
		return 0;
	if (!(asked || standin_fits(in, cv, path)))
		return unguarded(pl, cv, path);
	return guard_missing(in, pl, cv, path);
}

/* The stand-ins planned, made (or taken over) while bubblewrap starts. */
int plan_make_placeholders(struct plan *pl)
{
	size_t n = pl->placeholders_pending.n;
	const char *failed = NULL;

	free(pl->placeholder_state);
	pl->placeholder_state = malloc(n + 1);
	if (!pl->placeholder_state)
		return -ENOMEM;
	pl->placeholder_state[n] = '\0';
	if (!n)
		return 0;
	if (!pl->standins) {
		/* no record could be kept: a stand-in could outlive the run */
		failed = pl->placeholders_pending.v[0];
		free(pl->placeholder_failed);
		pl->placeholder_failed = strdup(failed);
		return -ENOLCK;
	}
	int rc = standins_make(pl->standins, pl->placeholders_pending.v, n,
			       pl->placeholder_state, &failed);
	if (rc) {
		free(pl->placeholder_failed);
		pl->placeholder_failed = failed ? strdup(failed) : NULL;
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		if (pl->placeholder_state[i] == PLACEHOLDER_SKIP)
			pl->write_protects--;
	return 0;
}

/* ---- scanning writable roots for protected names that exist */

/* A read-denied entry masked (*stop: nothing below it to look at). */
static int judge_read(const struct plan_in *in, struct plan *pl,
		      struct covered *cv, const char *path, bool *stop)
{
	const struct sbx_rule *why;

	*stop = policy_check_path(in->policy, SBX_OP_READ, path, &why) == SBX_DENY;
	return *stop ? mask_path(in, pl, cv, path) : 0;
}

/* Does a deny_read rule name paths by a pattern (`.env`, `*.pem`,
 * `~/proj/ ** /key`), which only a look at each entry finds? A literal
 * path is masked as itself (mask_rules). */
static bool reads_by_pattern(const struct policy *p)
{
	size_t n;
	const struct sbx_rule *const *r = policy_rules(p, SBX_RULE_DENY_READ, &n);

	for (size_t i = 0; i < n; i++)
		if (r[i]->pat != SBX_PAT_PREFIX)
			return true;
	return false;
}

/* Where a link at a kept place of HOME leads, when that is a directory or
 * file in a writable root the policy would let a write reach (a visible
 * folder of HOME): bound read-only as the place itself is, so a write
 * through the link lands nowhere. One hop of links resolved whole (the
 * kernel follows them all). */
static int protect_kept_target(const struct plan_in *in, struct plan *pl,
			       struct covered *cv, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode) || !realpath(path, real) ||
	    !writable_here(cv, real) || pathset_under(&cv->protect_set, real))
		return 0;
	return protect_path(in, pl, cv, real);
}

static int judge_entry(const struct plan_in *in, struct plan *pl,
		       struct covered *cv, const char *path, bool *stop)
{
	const struct sbx_rule *why;
	int rc = judge_read(in, pl, cv, path, stop);

	if (rc || *stop)
		return rc;
	if (policy_check_path(in->policy, SBX_OP_WRITE, path, &why) == SBX_DENY &&
	    why && (why->kind == SBX_RULE_MANDATORY || why->kind == SBX_RULE_DENY_WRITE ||
		    why->kind == SBX_RULE_HOME_KEPT)) {
		*stop = true;
		rc = protect_path(in, pl, cv, path);
		/* a kept place of HOME that is a link (`~/.pyenv ->
		 * tools/pyenv`): where it leads is kept too, when a
		 * writable root holds it (the link's own name is) */
		if (!rc && why->kind == SBX_RULE_HOME_KEPT)
			rc = protect_kept_target(in, pl, cv, path);
		return rc;
	}
	return 0;
}

/* ---- git directories, at any depth
 *
 * git runs what a repository's hooks and config say (core.fsmonitor,
 * core.hooksPath, a pager, a filter) the next time anyone runs git there,
 * on the host too. So the git directories that exist at start in a writable
 * root keep their hooks and config read-only wherever they are, not only
 * within the scan's three levels: `.git` directories, the git directories
 * `.git` files and links lead to, bare repositories (any directory holding
 * HEAD, objects/ and refs/: `~/.dotfiles`), the submodules' under modules/
 * at any depth, and the linked worktrees' under worktrees/. The walk that
 * finds them is bounded (WALK_DIRS, GIT_GUARD_MAX) and says where it
 * stopped; docs/POLICY.md has what is guarded and what is not. */

/* Directories visited in all below the writable roots and in modules/:
 * past it, sbx says where it stopped. A directory the walk's record has
 * unchanged costs one stat (2-3 us), one read anew 10-25 us (matching its
 * entries), once, the first time (walkrec.h): 100,000 is about 0.3 s a
 * start from the record, 2.5 s the first time. It was 20,000 read anew
 * at every start. */
#define WALK_DIRS 100000
/* Git directories guarded in one run: each costs a few mount operations,
 * which the record does not save, and a tree full of planted repositories
 * must not make sbx-init refuse its options (MAX_OPTS, 16,384) or take
 * seconds. */
#define GIT_GUARD_MAX 2000

/* One more directory may be read (false: the budget is spent, and the
 * first one left unread is remembered for the message). */
static bool walk_budget(struct covered *cv, const char *dir)
{
	if (cv->walked < WALK_DIRS) {
		cv->walked++;
		return true;
	}
	if (!cv->walk_cut_at[0])
		snprintf(cv->walk_cut_at, sizeof(cv->walk_cut_at), "%s", dir);
	return false;
}

/* An entry's type without following it (d_type, or fstatat where the file
 * system does not fill it in). */
static unsigned char entry_type(int dirfd, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type;
	if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
		return DT_UNKNOWN;
	return S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG :
	       S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
}

/* What git makes in every git directory: HEAD, objects/ and refs/ (the
 * test git itself uses to recognise one, is_git_directory()). */
static bool is_gitdir_at(int dirfd)
{
	struct stat st;

	return fstatat(dirfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       fstatat(dirfd, "objects", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	       fstatat(dirfd, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* The parts of a git directory that make git run something or look
 * elsewhere: hooks, config, commondir (the common directory whose hooks
 * and config are used instead), and config.worktree (config too, with
 * extensions.worktreeConfig). Not info/attributes and objects/info/
 * alternates: attributes only pick drivers the config defines (and the
 * worktree's own .gitattributes is writable anyway), alternates only lend
 * objects. A missing hooks or config gets a stand-in (standin_fits());
 * commondir never (git lstat()s it), config.worktree only when git would
 * read it: otherwise both are named after the run if they appear. */
static int guard_gitdir(const struct plan_in *in, struct plan *pl, struct covered *cv,
			const char *gd)
{
	static const char *const parts[] = { "hooks", "config", "commondir", "config.worktree" };
	char path[PATH_MAX];
	int rc = 0;

	if (cv->nguarded >= GIT_GUARD_MAX) {
		cv->guard_cut = true;
		return 0;
	}
	cv->nguarded++;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && !rc; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", gd, parts[i]) >= (int)sizeof(path))
			return 0;
		if (look_there(cv, path))
			rc = protect_path(in, pl, cv, path);
		else
			rc = placeholder(in, pl, cv, path, false);
	}
	return rc;
}

/* A key of git's [core] section in a config file: the last value set,
 * unquoted, into out; false when none. Enough of git's syntax for what
 * git writes and people type (`hooksPath = .githooks`, quoted values,
 * comments): core.worktree. The hooks path is read with includes
 * (guard_hooks_path). */
static bool git_core_key(struct covered *cv, const char *file, const char *key, char *out,
			 size_t outsz)
{
	char canon[64];
	bool there;
	const struct gitcfg *g = config_of(cv, file, &there);

	if (!there)
		return false;
	if (!g)
		return gitcfg_scan_core(file, key, out, outsz); /* one git would not read */
	snprintf(canon, sizeof(canon), "core.%s", key);
	for (char *c = canon; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	const char *v = gitcfg_get(g, canon, NULL);
	if (!v || !v[0] || snprintf(out, outsz, "%s", v) >= (int)outsz)
		return false;
	return true;
}

/* Protect the directory a `core.hooksPath` names, where it lies in a
 * writable root: git runs every hook there, on the host too. Bound
 * read-only when it exists; kept from being made (and from a directory
 * or link landing on the way) when it does not. Husky's layout
 * (`core.hooksPath = .husky/_`): the wrappers there call the hooks of
 * the directory above (`.husky/pre-commit`), so that one too. Not the
 * worktree itself or a directory holding a writable root (`hooksPath =
 * .` would close the whole workspace): those are left, and said so. */
static int guard_hooks_dir(const struct plan_in *in, struct plan *pl, struct covered *cv,
			   const char *base, const char *value)
{
	char joined[PATH_MAX], hp[PATH_MAX];
	const char *home = policy_home(in->policy);
	struct stat st;
	int rc = 0;

	if (value[0] == '~' && (value[1] == '/' || !value[1])) {
		if (snprintf(joined, sizeof(joined), "%s%s", home, value + 1) >= (int)sizeof(joined))
			return 0;
	} else if (path_join(base, value, joined, sizeof(joined))) {
		return 0;
	}
	sbx_path_resolve_memo(joined, hp, sizeof(hp), cv->memo);
	/* a link on the way (`.githooks -> hooks`) is kept as it is: removed
	 * and replaced by a directory, it would leave the target guarded and
	 * the name git follows free */
	if (strcmp(joined, hp) && writable_here(cv, joined))
		TRY(guard_way(cv, joined));
	for (int up = 0; up < 2 && !rc; up++) {
		if (up) {
			char *slash = strrchr(hp, '/');
			if (!slash || strcmp(slash, "/_") || slash == hp)
				break;
			*slash = '\0'; /* husky: .husky/_ calls .husky/<hook> */
		}
		if (!writable_here(cv, hp) || hidden(cv, hp))
			continue;
		if (holds_root(cv, hp) || !strcmp(hp, base)) {
			msg("core.hooksPath names %s, which holds a writable root: its hooks are not "
			    "kept read-only", hp);
			continue;
		}
		if (look_lstat(cv, hp, &st) == 0)
			rc = protect_path(in, pl, cv, hp);
		else if (in->notify)
			rc = guard_missing(in, pl, cv, hp);
		else
			rc = placeholder(in, pl, cv, hp, false);
	}
	return rc;
}

/* One file of the configs git reads for a git directory (gitcfg_each_file,
 * hooks_from): its core.hooksPath values guarded; a file a config
 * includes that lies in a writable root is config too, kept read-only
 * (or from being made). */
struct hooks_walk {
	const struct plan_in *in;
	struct plan *pl;
	struct covered *cv;
	const char *base, *top;
	int rc;
	struct strv *collect; /* NULL: guard each value; else: keep it here */
};

static void hooks_from(const char *path, bool there, const struct gitcfg *g, void *arg)
{
	struct hooks_walk *h = arg;
	char real[PATH_MAX];

	if (h->rc)
		return;
	if (strcmp(path, h->top) && writable_here(h->cv, path) && !hidden(h->cv, path)) {
		sbx_path_resolve_memo(path, real, sizeof(real), h->cv->memo);
		if (strcmp(real, path))
			h->rc = guard_way(h->cv, path);
		if (!h->rc && there)
			h->rc = protect_path(h->in, h->pl, h->cv, path);
		else if (!h->rc && h->in->notify)
			h->rc = guard_missing(h->in, h->pl, h->cv, path);
		else if (!h->rc)
			h->rc = placeholder(h->in, h->pl, h->cv, path, false);
	}
	for (size_t i = 0; !h->rc && g && i < gitcfg_count(g); i++) {
		const char *v = gitcfg_value(g, i);
		if (strcmp(gitcfg_key(g, i), "core.hookspath") || !v || !v[0])
			continue;
		h->rc = h->collect ? (strv_add(h->collect, v) ? -ENOMEM : 0) :
			guard_hooks_dir(h->in, h->pl, h->cv, h->base, v);
	}
	/* one the parser did not take that git may still read (over 1 MiB, a
	 * NUL byte in a comment): its hooks path by lines, as core.worktree */
	char v[PATH_MAX];
	if (!h->rc && there && !g && gitcfg_scan_core(path, "hooksPath", v, sizeof(v)))
		h->rc = h->collect ? (strv_add(h->collect, v) ? -ENOMEM : 0) :
			guard_hooks_dir(h->in, h->pl, h->cv, h->base, v);
}

/* The hooks directories git would use for the git directory gd: every
 * core.hooksPath in its config, its config.worktree, the user's and the
 * system's, and every file those include (include.path, includeIf.*.path,
 * whatever the condition), relative to where git runs hooks -- the
 * worktree's top for a `.git` (or a submodule's core.worktree), the git
 * directory itself for a bare repository. Those configs are kept
 * read-only (an included one in a writable root too), so what they say at
 * start holds for the run. */
/* The configs git reads for a work tree whose git directory is `wd`
 * (its config.worktree) and common directory `common` (its config),
 * and the user's and the system's, walked with hooks_from: a relative
 * core.hooksPath from `base`. */
static int guard_hooks_from(const struct plan_in *in, struct plan *pl, struct covered *cv,
			    const char *common, const char *wd, const char *base)
{
	char file[PATH_MAX + 16];
	const char *home = policy_home(in->policy), *xdg = NULL;
	struct hooks_walk h = { in, pl, cv, base, file, 0, NULL };

	for (char **e = in->environ; e && *e; e++)
		if (!strncmp(*e, "XDG_CONFIG_HOME=/", 17))
			xdg = *e + 16;
	snprintf(file, sizeof(file), "%s/config", common);
	bool there;
	const struct gitcfg *g = config_of(cv, file, &there);
	gitcfg_each_file_read(file, there, g, home, hooks_from, &h);
	snprintf(file, sizeof(file), "%s/config.worktree", wd);
	if (!h.rc)
		gitcfg_each_file(file, home, hooks_from, &h);
	/* the user's and the system's: the same for every git directory, read
	 * (and what they include kept) at the first one; their values are
	 * relative to each one's top */
	if (!h.rc && !cv->user_hooks_read) {
		cv->user_hooks_read = true;
		h.collect = &cv->user_hooks;
		for (int i = 0; i < 3 && !h.rc; i++) {
			if (i == 0)
				snprintf(file, sizeof(file), "%s/.gitconfig", home);
			else if (i == 1 && xdg)
				snprintf(file, sizeof(file), "%s/git/config", xdg);
			else if (i == 1)
				snprintf(file, sizeof(file), "%s/.config/git/config", home);
			else
				snprintf(file, sizeof(file), "/etc/gitconfig");
			gitcfg_each_file(file, home, hooks_from, &h);
		}
	}
	for (size_t i = 0; !h.rc && i < cv->user_hooks.n; i++)
		h.rc = guard_hooks_dir(in, pl, cv, base, cv->user_hooks.v[i]);
	return h.rc;
}

static int guard_hooks_path(const struct plan_in *in, struct plan *pl, struct covered *cv,
			    const char *gd)
{
	char file[PATH_MAX + 16], wt[PATH_MAX], base[PATH_MAX];

	snprintf(base, sizeof(base), "%s", gd);
	char *slash = strrchr(base, '/');
	snprintf(file, sizeof(file), "%s/config", gd);
	if (git_core_key(cv, file, "worktree", wt, sizeof(wt))) {
		char j[PATH_MAX];
		if (!path_join(gd, wt, j, sizeof(j)))
			sbx_path_resolve_memo(j, base, sizeof(base), cv->memo);
	} else if (slash && !strcmp(slash, "/.git")) {
		*(slash == base ? slash + 1 : slash) = '\0';
	}
	return guard_hooks_from(in, pl, cv, gd, gd, base);
}

/* A linked worktree's or a submodule's work tree `top` (where its `.git`
 * file is), whose git directory is `wd`: git runs its hooks from `top`,
 * so a relative core.hooksPath is guarded there too, whether or not the
 * git directory is writable (a host-made worktree of a repository
 * elsewhere). The common directory is `wd`'s commondir, else `wd`. */
static int guard_hooks_of_worktree(const struct plan_in *in, struct plan *pl,
				   struct covered *cv, const char *wd, const char *top)
{
	char f[PATH_MAX + 16], buf[PATH_MAX], j[PATH_MAX], common[PATH_MAX];
	FILE *fp;
	size_t n = 0;

	snprintf(common, sizeof(common), "%s", wd);
	snprintf(f, sizeof(f), "%s/commondir", wd);
	if ((fp = sbx_fopen_file(f))) {
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		fclose(fp);
		buf[n] = '\0';
		buf[strcspn(buf, "\r\n")] = '\0';
		if (buf[0] && !path_join(wd, buf, j, sizeof(j)))
			sbx_path_resolve_memo(j, common, sizeof(common), cv->memo);
	}
	return guard_hooks_from(in, pl, cv, common, wd, top);
}

/* The linked worktrees' git directories under `<common>/worktrees/`: each
 * one's hooks, config, commondir and config.worktree, as a `.git`'s, and
 * its `gitdir`. Reached when the common directory is writable (a run in
 * one linked worktree must not redirect another). */
static int guard_worktrees(const struct plan_in *in, struct plan *pl, struct covered *cv,
			   const char *common)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (snprintf(dir, sizeof(dir), "%s/worktrees", common) >= (int)sizeof(dir) ||
	    !walk_budget(cv, dir) || !(d = opendir(dir)))
		return 0;
	while (!rc && (e = readdir(d))) {
		char sub[PATH_MAX], f[PATH_MAX + 32];
		if (entry_type(dirfd(d), e) != DT_DIR || e->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
			continue;
		rc = guard_gitdir(in, pl, cv, sub);
		snprintf(f, sizeof(f), "%s/gitdir", sub);
		if (!rc && access(f, F_OK) == 0)
			rc = protect_path(in, pl, cv, f);
		/* its work tree: `gitdir` names the `.git` file there */
		FILE *fp = rc ? NULL : sbx_fopen_file(f);
		if (fp) {
			char top[PATH_MAX], real[PATH_MAX];
			size_t n = fread(top, 1, sizeof(top) - 1, fp);
			fclose(fp);
			top[n] = '\0';
			top[strcspn(top, "\r\n")] = '\0';
			char *sl = strrchr(top, '/');
			if (top[0] == '/' && sl && sl != top) {
				*sl = '\0';
				sbx_path_resolve(top, real, sizeof(real));
				rc = guard_hooks_of_worktree(in, pl, cv, sub, real);
			}
		}
	}
	closedir(d);
	return rc;
}

/* A git directory found in a writable root, once: its own parts and its
 * linked worktrees'. */
static int guard_repo(const struct plan_in *in, struct plan *pl, struct covered *cv,
		      const char *gd)
{
	for (size_t i = 0; i < cv->gitdirs.n; i++)
		if (!strcmp(cv->gitdirs.v[i], gd))
			return 0;
	TRY(strv_add(&cv->gitdirs, gd));
	int rc = guard_gitdir(in, pl, cv, gd);
	if (!rc)
		rc = guard_hooks_path(in, pl, cv, gd);
	return rc ? rc : guard_worktrees(in, pl, cv, gd);
}

/* The submodules' git directories under `<gd>/modules/`, at any depth: a
 * submodule's name may hold slashes (modules/a/b), and a submodule has
 * submodules of its own (modules/a/modules/b). Breadth first, one
 * directory at a time, within the walk's budget. */
static int guard_modules(const struct plan_in *in, struct plan *pl, struct covered *cv,
			 const char *gd)
{
	struct strv todo = { 0 };
	size_t at = 0;
	int rc = 0;

	TRY(strv_addf(&todo, "%s/modules", gd));
	while (!rc && at < todo.n) {
		char *dir = todo.v[at];
		DIR *d;
		struct dirent *e;

		todo.v[at++] = NULL;
		if (!walk_budget(cv, dir) || !(d = opendir(dir))) {
			free(dir);
			if (cv->walk_cut_at[0])
				break;
			continue;
		}
		while (!rc && (e = readdir(d))) {
			char sub[PATH_MAX];
			if (entry_type(dirfd(d), e) != DT_DIR || !strcmp(e->d_name, ".") ||
			    !strcmp(e->d_name, ".."))
				continue;
			if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
				continue;
			int sfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);
			bool git = sfd >= 0 && is_gitdir_at(sfd);
			if (sfd >= 0)
				close(sfd);
			if (git)
				rc = guard_repo(in, pl, cv, sub);
			if (!rc)
				rc = git ? strv_addf(&todo, "%s/modules", sub) : strv_add(&todo, sub);
		}
		closedir(d);
		free(dir);
	}
	strv_free(&todo);
	return rc;
}

/* A git directory and everything below it that is one too. */
static int guard_repo_tree(const struct plan_in *in, struct plan *pl, struct covered *cv,
			   const char *gd)
{
	if (!writable_here(cv, gd) || hidden(cv, gd))
		return 0;
	int rc = guard_repo(in, pl, cv, gd);
	return rc ? rc : guard_modules(in, pl, cv, gd);
}

/* Where a `.git` file sends git (`gitdir: PATH`, relative to the file). */
static int follow_gitfile(const struct plan_in *in, struct plan *pl, struct covered *cv,
			  const char *file)
{
	char buf[PATH_MAX], dir[PATH_MAX], gd[PATH_MAX];
	FILE *f = sbx_fopen_file(file);
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (strncmp(buf, "gitdir: ", 8) || !buf[8])
		return 0;
	snprintf(dir, sizeof(dir), "%s", file);
	*strrchr(dir, '/') = '\0';
	if (path_join(dir[0] ? dir : "/", buf + 8, gd, sizeof(gd)))
		return 0;
	sbx_path_resolve_memo(gd, dir, sizeof(dir), cv->memo);
	char top[PATH_MAX];
	snprintf(top, sizeof(top), "%s", file);
	*strrchr(top, '/') = '\0';
	int rc = guard_hooks_of_worktree(in, pl, cv, dir, top[0] ? top : "/");
	return rc ? rc : guard_repo_tree(in, pl, cv, dir);
}

/* A `.git` met by the walk: a directory is a git directory; a file
 * (`gitdir:`, a linked worktree's or a submodule's) is bound read-only and
 * followed; a link is kept from being repointed and followed. */
static int guard_dotgit(const struct plan_in *in, struct plan *pl, struct covered *cv,
			const char *path, unsigned char type)
{
	char real[PATH_MAX];
	struct stat st;
	int rc;

	if (type == DT_DIR)
		return guard_repo_tree(in, pl, cv, path);
	if (!writable_here(cv, path) || hidden(cv, path))
		return 0;
	if (type == DT_REG) {
		rc = protect_path(in, pl, cv, path);
		return rc ? rc : follow_gitfile(in, pl, cv, path);
	}
	if (type != DT_LNK)
		return 0;
	TRY(guard_way(cv, path));
	sbx_path_resolve_memo(path, real, sizeof(real), cv->memo);
	return stat(real, &st) == 0 && S_ISDIR(st.st_mode) ? guard_repo_tree(in, pl, cv, real) : 0;
}

/* What the walk's record depends on besides the policy (walkrec.h): how
 * deep entries are judged whole and which names are not walked into.
 * Change the last number with anything else a recorded entry's meaning
 * depends on. */
const char *plan_walk_id(void)
{
	_Static_assert(SCAN_DEPTH == 3, "plan_walk_id() names SCAN_DEPTH");
	_Static_assert(sizeof(scan_skip) / sizeof(*scan_skip) == 3, "and scan_skip");
	return "scan 3, skip node_modules objects .cache, walk 1";
}

static bool skipped(const char *name)
{
	for (size_t i = 0; i < sizeof(scan_skip) / sizeof(*scan_skip); i++)
		if (!strcmp(name, scan_skip[i]))
			return true;
	return false;
}

/* One walk of a writable root (walk_root). */
struct walk {
	const struct plan_in *in;
	struct plan *pl;
	struct covered *cv;
	struct strv todo;      /* "DEPTH:PATH", breadth first */
	size_t at;
	unsigned deepest;
	bool deep_reads;
	struct walkrec *rec;   /* the record (walkrec.h), or NULL */
	uid_t uid;             /* ours (a system call each time under musl) */
};

/* An entry recorded as one the policy does nothing with (a directory
 * walked into): its type's high bit. The policy is the record's key, so
 * the decision is the same; it is not asked again on a replay. */
#define QUIET WALKREC_TYPE_CALLER

/* What an entry is to the walk (walk_entry). */
enum matters {
	MATTERS_NOT,  /* nothing is done with it: not recorded */
	MATTERS_ACTS, /* the policy acts on it, or a `.git` */
	MATTERS_DIR,  /* a directory the policy says nothing of: walked into */
};

/* One entry of `dir` (at `depth`): judged, guarded, queued. Whatever the
 * entry is, this does nothing when it says MATTERS_NOT; only the others
 * are recorded, and replayed through here when the directory has not
 * changed (`type` with QUIET: the policy is not asked again). */
static int walk_entry(struct walk *w, int dfd, const char *dir, unsigned depth,
		      const char *name, unsigned char type, enum matters *matters)
{
	char path[PATH_MAX];
	bool stop = false, quiet = type & QUIET;
	int rc = 0;

	*matters = MATTERS_NOT;
	type &= (unsigned char)~QUIET;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	/* (no snprintf: this runs for every directory of the tree) */
	size_t dl = strcmp(dir, "/") ? strlen(dir) : 0, nl = strlen(name);
	if (dl + 1 + nl >= sizeof(path))
		return 0;
	memcpy(path, dir, dl);
	path[dl] = '/';
	memcpy(path + dl + 1, name, nl + 1);
	if (quiet)
		;
	else if (depth < SCAN_DEPTH)
		rc = judge_entry(w->in, w->pl, w->cv, path, &stop);
	else if (w->deep_reads)
		rc = judge_read(w->in, w->pl, w->cv, path, &stop);
	*matters = stop ? MATTERS_ACTS : type == DT_DIR ? MATTERS_DIR : MATTERS_NOT;
	/* another name of a read-denied file (not the entry's own doing:
	 * never recorded, and no directory is replayed while there are
	 * such files, walk_root) */
	if (!rc && !stop && type == DT_REG)
		rc = shared_name(w->in, w->pl, w->cv, dfd >= 0 ? dfd : AT_FDCWD,
				 dfd >= 0 ? name : path, path);
	if (!rc && !strcmp(name, ".git")) {
		*matters = MATTERS_ACTS;
		if ((!stop || type == DT_DIR) && depth < w->deepest)
			rc = guard_dotgit(w->in, w->pl, w->cv, path, type);
		return rc;
	}
	if (rc || stop || type != DT_DIR || skipped(name) || is_root(w->cv, path) ||
	    depth + 1 > w->deepest)
		return rc;
	/* never more queued than can still be read */
	if (w->todo.n - w->at + w->cv->walked >= WALK_DIRS) {
		if (!w->cv->walk_cut_at[0])
			snprintf(w->cv->walk_cut_at, sizeof(w->cv->walk_cut_at), "%s", path);
		return 0;
	}
	char item[PATH_MAX + 16];
	int n = snprintf(item, 16, "%u:", depth + 1);
	memcpy(item + n, path, dl + 1 + nl + 1);
	return strv_add(&w->todo, item);
}

/* A directory the record has, unchanged since: its entries that matter,
 * as recorded, without reading it. */
static int walk_recorded(struct walk *w, const char *dir, unsigned depth,
			 const struct walkrec_dir *d)
{
	const char *name;
	unsigned char type;
	size_t at = 0;
	enum matters matters;
	int rc = walkrec_keep(w->rec, d);

	if ((walkrec_dir_flags(d) & WALKREC_GITDIR) && depth <= w->deepest)
		return rc ? rc : guard_repo_tree(w->in, w->pl, w->cv, dir);
	while (!rc && walkrec_dir_entry(d, &at, &name, &type))
		rc = walk_entry(w, -1, dir, depth, name, type, &matters);
	return rc;
}

/* A directory read (and recorded, when it was read whole). */
static int walk_read(struct walk *w, const char *dir, unsigned depth, int fd,
		     const struct stat *st)
{
	bool gitdir = is_gitdir_at(fd), listed = !(gitdir && depth <= w->deepest);
	int rc = w->rec ? walkrec_begin(w->rec, dir, depth, st,
					(gitdir ? WALKREC_GITDIR : 0) |
					(listed ? WALKREC_LISTED : 0)) : 0;
	struct dirent *e;
	DIR *d;

	if (rc || !listed) {
		close(fd);
		if (w->rec)
			walkrec_end(w->rec, !rc);
		return rc ? rc : guard_repo_tree(w->in, w->pl, w->cv, dir);
	}
	if (!(d = fdopendir(fd))) {
		close(fd);
		if (w->rec)
			walkrec_end(w->rec, false);
		return 0;
	}
	for (;;) {
		enum matters matters;
		errno = 0;
		if (rc || !(e = readdir(d)))
			break;
		unsigned char type = entry_type(dirfd(d), e);
		rc = walk_entry(w, dirfd(d), dir, depth, e->d_name, type, &matters);
		if (!rc && matters != MATTERS_NOT && w->rec)
			rc = walkrec_entry(w->rec, e->d_name, matters == MATTERS_DIR ?
					   type | QUIET : type);
	}
	/* read whole (readdir ended without an error) */
	if (w->rec)
		walkrec_end(w->rec, !rc && !errno);
	closedir(d);
	return rc;
}

/* Every directory below `root`, breadth first (the shallow ones, the
 * likeliest to be the person's own, before the budget runs out): entries
 * within SCAN_DEPTH levels judged by the policy (masked, protected), below
 * that masked where a deny_read pattern names them (reads are never
 * notified: a static program read `ws/a/b/c/d/.env` under `deny_read =
 * .env`; writes are, protected names deeper are the notify layer's), and
 * at every depth the git directories guarded. A git directory is not
 * walked into (its parts are guarded by name), nor a skipped name, another
 * writable root (walked as itself) or a link. A directory whose identity
 * and ctime the record (walkrec.h) has is not read again: what mattered in
 * it is replayed. */
static int walk_root(const struct plan_in *in, struct plan *pl, struct covered *cv,
		     const char *root)
{
	struct walk w = { .in = in, .pl = pl, .cv = cv, .rec = in->walkrec, .uid = geteuid() };
	struct stat rst;
	int rc = 0;

	/* A shared temporary directory (sticky, anyone may write: /var/tmp
	 * under --learn) is scanned as deep as the scan goes, git parts
	 * included, and no deeper: what is in it comes and goes with other
	 * programs (a directory gone between the plan and the mounts stops
	 * the run), and a repository kept there is nobody's to trust. */
	w.deepest = stat(root, &rst) == 0 && (rst.st_mode & S_ISVTX) &&
		    (rst.st_mode & S_IWOTH) ? SCAN_DEPTH - 1 : UINT_MAX;
	w.deep_reads = reads_by_pattern(in->policy);

	/* The directory that holds the one looked at, held open: the queue
	 * has a directory's subdirectories one after the other, so each is
	 * looked up by its one name there, not by its whole path again (a
	 * path lookup per component was most of a walk from the record) */
	char held[PATH_MAX] = "";
	int hfd = -1;

	TRY(strv_addf(&w.todo, "0:%s", root));
	while (!rc && w.at < w.todo.n) {
		char *item = w.todo.v[w.at], *dir;
		unsigned depth = (unsigned)strtoul(item, &dir, 10);
		const struct walkrec_dir *known;
		struct stat dst;
		const char *name;
		int fd, at = AT_FDCWD;

		w.todo.v[w.at++] = NULL;
		dir++;
		if (!walk_budget(cv, dir))
			goto next;
		name = dir;
		if (depth > 0) {
			/* below the root: DIR is PARENT/NAME, as queued */
			const char *slash = strrchr(dir, '/');
			size_t pl_ = (size_t)(slash - dir);
			if (pl_ != strlen(held) || memcmp(held, dir, pl_)) {
				if (hfd >= 0)
					close(hfd);
				snprintf(held, sizeof(held), "%.*s", (int)pl_, dir);
				/* through no link: the roots are real paths and
				 * no link is queued, so one on the way was
				 * swapped in since (pathwalk.h) */
				hfd = pathwalk_open(held[0] ? held : "/", false);
			}
			if (hfd < 0)
				goto next;
			at = hfd;
			name = slash + 1;
		}
		/* one lstat tells an unchanged directory (no link: a link
		 * is not walked into) */
		if (fstatat(at, name, &dst, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(dst.st_mode))
			goto next;
		/* Another user's directory that only its owner may write (a
		 * shared writable root: /var/tmp under --learn): COMMAND can
		 * change nothing in it, and a root caller's sandbox, whose
		 * user namespace maps no other user, could not even reach
		 * what a protect there would bind (sbx-init would fail). */
		if (depth > 0 && dst.st_uid != w.uid && !(dst.st_mode & (S_IWGRP | S_IWOTH)))
			goto next;
		/* (a git directory recorded without its entries is replayed
		 * only where it is guarded as one; and none while a
		 * read-denied file has other names: whether a file of a
		 * directory is one of them is not the directory's doing,
		 * so every regular file is looked at, as without a record) */
		if (!cv->nshared && (known = walkrec_find(w.rec, dir, depth, &dst)) &&
		    ((walkrec_dir_flags(known) & WALKREC_LISTED) || depth <= w.deepest)) {
			rc = walk_recorded(&w, dir, depth, known);
			goto next;
		}
		fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			goto next;
		/* what is read is what is recorded: the identity of the
		 * directory opened, which may have been swapped since */
		if (fstat(fd, &dst) ||
		    (depth > 0 && dst.st_uid != w.uid && !(dst.st_mode & (S_IWGRP | S_IWOTH)))) {
			close(fd);
			goto next;
		}
		rc = walk_read(&w, dir, depth, fd, &dst);
next:
		free(item);
	}
	if (hfd >= 0)
		close(hfd);
	strv_free(&w.todo);
	return rc;
}

/* Some file the walk masked has other names it did not find, and that
 * file was found only during the walk: the directories read (or replayed)
 * before it were not looked at for its names (`a/notes.txt`, a hard link
 * of `z/y/.env`, walked first, read the secret). */
static bool shared_unfound(const struct covered *cv, unsigned from)
{
	for (unsigned i = from; i < cv->nshared; i++)
		if (cv->shared[i].found + 1 < cv->shared[i].nlink)
			return true;
	return false;
}

/* ... then every regular file of the root is looked at once more, by the
 * walk's rules (no link followed, no git directory, skipped name, other
 * root or other user's directory entered), at most WALK_DIRS directories,
 * until every name is found: the other names are masked (shared_name()),
 * and what is still not found is said by shared_said(). Only in that
 * case: a file with other names is rare, and one outside the writable
 * roots is found before the walk, which then looks at every file.
 * NAMES_PAST: for any such file still not found (from 0), where the walk
 * does not look: below a skipped name or a git directory (the rest is
 * only gone through); NAMES_ALL: everywhere (the walk stopped short). */
enum names_look { NAMES_WALKED, NAMES_PAST, NAMES_ALL };
static int names_root(const struct plan_in *in, struct plan *pl, struct covered *cv,
		      const char *root, unsigned from, unsigned *budget, enum names_look look)
{
	struct strv todo = { 0 };
	size_t at = 0;
	/* each queued directory: '+' its files are looked at, '-' not */
	int rc = strv_addf(&todo, "%c%s", look == NAMES_PAST ? '-' : '+', root);
	uid_t uid = geteuid();

	while (!rc && at < todo.n && *budget && shared_unfound(cv, from)) {
		char *item = todo.v[at], *dir = item + 1;
		bool files = item[0] == '+';
		struct dirent *e;
		struct stat st;
		DIR *d;
		int fd;

		todo.v[at++] = NULL;
		(*budget)--;
		/* through no link (pathwalk.h, O_PATH), as the walk */
		fd = pathwalk_open(dir, false);
		if (fd >= 0) {
			int pfd = fd;
			fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			close(pfd);
		}
		if (fd < 0 || fstat(fd, &st) || !S_ISDIR(st.st_mode) ||
		    (strcmp(dir, root) && st.st_uid != uid && !(st.st_mode & (S_IWGRP | S_IWOTH))) ||
		    !(d = fdopendir(fd))) {
			if (fd >= 0)
				close(fd);
			free(item);
			continue;
		}
		while (!rc && (e = readdir(d))) {
			char path[PATH_MAX];
			unsigned char type = entry_type(dirfd(d), e);
			bool past = !strcmp(e->d_name, ".git") || skipped(e->d_name);
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
			    snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "",
				     e->d_name) >= (int)sizeof(path))
				continue;
			if (type == DT_REG && files)
				rc = shared_name(in, pl, cv, dirfd(d), e->d_name, path);
			else if (type == DT_DIR && (look != NAMES_WALKED || !past) && !is_root(cv, path))
				rc = strv_addf(&todo, "%c%s", files || past ? '+' : '-', path);
		}
		closedir(d);
		free(item);
	}
	strv_free(&todo);
	return rc;
}

static int scan(const struct plan_in *in, struct plan *pl, struct covered *cv,
		const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return 0;
	while (!rc && (e = readdir(d))) {
		char path[PATH_MAX];
		bool stop, skip = false;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "",
			     e->d_name) >= (int)sizeof(path))
			continue;
		rc = judge_entry(in, pl, cv, path, &stop);
		/* a `.git` file (worktree, submodule) points at the git
		 * directory: as good as its hooks and config */
		if (!rc && !stop && e->d_type == DT_REG && !strcmp(e->d_name, ".git") &&
		    writable_here(cv, path)) {
			rc = protect_path(in, pl, cv, path);
			if (!rc)
				rc = follow_gitfile(in, pl, cv, path);
		}
		if (rc || stop || depth <= 1)
			continue;
		if (e->d_type != DT_DIR)
			continue; /* symlinks are not followed: their targets are judged where they are */
		for (size_t i = 0; i < sizeof(scan_skip) / sizeof(*scan_skip); i++)
			skip |= !strcmp(e->d_name, scan_skip[i]);
		/* Another user's directory that only its owner may write (a
		 * shared writable root: /var/tmp under --learn): COMMAND can
		 * change nothing in it, and a root caller's sandbox, whose
		 * user namespace maps no other user, could not even reach
		 * what a protect there would bind (sbx-init would fail). */
		struct stat dst;
		if (!skip && lstat(path, &dst) == 0 && dst.st_uid != geteuid() &&
		    !(dst.st_mode & (S_IWGRP | S_IWOTH)))
			skip = true;
		if (!skip)
			rc = scan(in, pl, cv, path, depth - 1);
	}
	closedir(d);
	return rc;
}

/* ---- the pieces */

static int cmp_len(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);
	return la < lb ? -1 : la > lb;
}

/* Is a directory between `r` and the writable root it lies in denied
 * writing (so protected, and r with it)? */
static bool denied_above(const struct policy *p, const struct covered *cv, const char *r)
{
	char up[PATH_MAX];

	snprintf(up, sizeof(up), "%s", r);
	for (char *slash; (slash = strrchr(up, '/')) && slash != up;) {
		*slash = '\0';
		if (is_root(cv, up))
			return false;
		if (policy_check_path(p, SBX_OP_WRITE, up, NULL) == SBX_DENY)
			return true;
	}
	return false;
}

static int bind_roots(const struct plan_in *in, struct plan *pl,
		      struct covered *cv, bool tmp_part)
{
	size_t n;
	const struct sbx_rule *const *w = policy_rules(in->policy, SBX_RULE_ALLOW_WRITE, &n);
	char **sorted = calloc(n + 1, sizeof(*sorted));
	int rc = 0;

	if (!sorted)
		return -ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (w[i]->pat != SBX_PAT_PREFIX)
			continue;
		/* A directory written with its trailing / is made when it is
		 * missing (as `--learn` writes them): only an existing path can
		 * be bound. Not for --print, which touches nothing. */
		if (w[i]->is_dir && in->make_placeholders && !tmp_part && !cv->discover &&
		    access(w[i]->pattern, F_OK) && !sbx_path_under(w[i]->pattern, "/tmp") &&
		    policy_check_path(in->policy, SBX_OP_WRITE, w[i]->pattern, NULL) == SBX_ALLOW) {
			/* never through a link a program left on the way */
			struct hostfs_err err;
			int fd = hostfs_dir_open(w[i]->pattern, HOSTFS_CREATE, &err);
			if (fd >= 0) {
				close(fd);
				vmsg("allow_write %s did not exist; made it", w[i]->value);
			} else {
				msg("allow_write %s not made: %s", w[i]->value, err.msg);
			}
		}
		sorted[m++] = (char *)w[i]->pattern;
	}
	qsort(sorted, m, sizeof(*sorted), cmp_len);
	for (size_t i = 0; i < m && !rc; i++) {
		const char *r = sorted[i];
		if (!strcmp(r, "/tmp") || sbx_path_under(r, "/dev") || sbx_path_under(r, "/proc") ||
		    sbx_path_under(r, "/tmp") != tmp_part)
			continue;
		if (in_list(&cv->roots, r)) {
			/* writable already, unless a protect above it will
			 * cover it: the session directory in sbx's state
			 * directory, with HOME writable too */
			if (!tmp_part && !pathset_under(&cv->protect_set, r) &&
			    denied_above(in->policy, cv, r) &&
			    policy_check_path(in->policy, SBX_OP_WRITE, r, NULL) == SBX_ALLOW &&
			    access(r, F_OK) == 0) {
				rc = init_op(pl, "--rw-in=", r);
				if (!rc)
					rc = strv_add(&cv->roots, r);
			}
			continue;
		}
		if (access(r, F_OK)) {
			vmsg("allow_write %s does not exist; not bound", r);
			continue;
		}
		/* A root the policy denies (a credential store, a mandatory
		 * path) is not bound writable in the first place. */
		if (policy_check_path(in->policy, SBX_OP_WRITE, r, NULL) == SBX_DENY)
			continue;
		/* sbx-init binds it (about 0.15 ms less than bubblewrap, which
		 * re-reads mountinfo per bind); the ones under /tmp must come
		 * after bubblewrap's tmpfs there, and `/` is no path for it */
		if (tmp_part || !strcmp(r, "/"))
			rc = add3(pl, "--bind", r, r);
		/* bubblewrap's bind follows links: sbx-init checks that it
		 * landed on the root the policy named (mountids.h) */
		if (!rc && tmp_part)
			rc = init_op(pl, "--bound=", r);
		else if (!tmp_part && strcmp(r, "/"))
			rc = init_op(pl, "--rw=", r);
		if (!rc)
			rc = strv_add(&cv->roots, r);
	}
	free(sorted);
	return rc;
}

static int mask_rules(const struct plan_in *in, struct plan *pl, struct covered *cv)
{
	size_t n;
	const struct sbx_rule *const *d = policy_rules(in->policy, SBX_RULE_DENY_READ, &n);
	char **sorted = calloc(n + 1, sizeof(*sorted));
	size_t m = 0;
	int rc = 0;

	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (d[i]->pat == SBX_PAT_PREFIX &&
		    policy_check_path(in->policy, SBX_OP_READ, d[i]->pattern, NULL) == SBX_DENY)
			sorted[m++] = (char *)d[i]->pattern;
	qsort(sorted, m, sizeof(*sorted), cmp_len);
	for (size_t i = 0; i < m && !rc; i++)
		rc = mask_path(in, pl, cv, sorted[i]);
	free(sorted);

	/* Absolute globs (`~/.config/ ** /token*`): look below their literal
	 * part, to the same bounded depth as the writable roots. */
	for (size_t i = 0; i < n && !rc; i++) {
		char lead[PATH_MAX];
		if (d[i]->pat != SBX_PAT_GLOB)
			continue;
		snprintf(lead, sizeof(lead), "%.*s", (int)(d[i]->prefix_len > 1 ?
			 d[i]->prefix_len - 1 : 1), d[i]->pattern);
		rc = scan(in, pl, cv, lead, SCAN_DEPTH + 1);
	}
	return rc;
}

static int protect_rules(const struct plan_in *in, struct plan *pl,
			 struct covered *cv)
{
	static const enum sbx_rule_kind kinds[] = { SBX_RULE_MANDATORY, SBX_RULE_DENY_WRITE };
	const char *roots[2] = { policy_workspace(in->policy), policy_home(in->policy) };
	int rc = 0;

	for (size_t k = 0; k < 2 && !rc; k++) {
		size_t n;
		const struct sbx_rule *const *r = policy_rules(in->policy, kinds[k], &n);
		for (size_t i = 0; i < n && !rc; i++) {
			char path[PATH_MAX];
			const struct sbx_rule *x = r[i];
			bool builtin = x->origin == SBX_ORIGIN_MANDATORY ||
				       x->origin == SBX_ORIGIN_DEFAULT;

			/* a path no writable root holds, nor lies below, needs
			 * nothing (the read-only root covers it): no system
			 * call spent on it (the persistence list is long, and
			 * HOME is rarely writable) */
			if (x->pat == SBX_PAT_PREFIX && !writable_here(cv, x->pattern) &&
			    !holds_root(cv, x->pattern))
				continue;
			if (x->pat == SBX_PAT_PREFIX) {
				/* a user's own `deny_write = ~/notes/` asks for
				 * the directory never to be made */
				if (look_there(cv, x->pattern))
					rc = protect_path(in, pl, cv, x->pattern);
				else if (builtin || x->is_dir)
					rc = placeholder(in, pl, cv, x->pattern,
							 !builtin && x->is_dir);
				continue;
			}
			if (x->pat == SBX_PAT_GLOB && builtin) {
				/* an absolute glob (`~/.local/lib/python*` +
				 * `/site-packages/`): what exists, looked for below
				 * its literal part when that is writable */
				snprintf(path, sizeof(path), "%.*s", (int)(x->prefix_len > 1 ?
					 x->prefix_len - 1 : 1), x->pattern);
				if (writable_here(cv, path))
					rc = scan(in, pl, cv, path, SCAN_DEPTH);
				continue;
			}
			if (x->pat != SBX_PAT_ANYWHERE || strpbrk(x->pattern, "*?"))
				continue;
			/* A literal any-depth name: guard it at the top of the
			 * workspace and of HOME even before it exists. */
			for (size_t j = 0; j < 2 && !rc; j++) {
				snprintf(path, sizeof(path), "%s/%s", roots[j], x->pattern);
				if (look_there(cv, path))
					rc = protect_path(in, pl, cv, path);
				else if (builtin || x->is_dir)
					rc = placeholder(in, pl, cv, path, false);
			}
		}
	}
	/* The walk's record is trusted only where no writable root holds
	 * it: a program of this run or a later one could plant one there */
	if (in->walkrec) {
		char recdir[PATH_MAX];
		snprintf(recdir, sizeof(recdir), "%s", walkrec_path(in->walkrec));
		*strrchr(recdir, '/') = '\0';
		if (writable_here(cv, recdir) || holds_root(cv, recdir)) {
			vmsg("the walk's record %s lies in a writable root: not used", recdir);
			walkrec_disable(in->walkrec);
		}
	}
	/* Existing protected names in every writable root (the workspace
	 * first: the walk's budget goes to it before HOME or /var/tmp), and
	 * in the writable children bound back into a mask (the walk stops at
	 * one); git directories at any depth. */
	const char *ws = policy_workspace(in->policy);
	unsigned shared_from = cv->nshared; /* found before the walk */
	for (size_t pass = 0; pass < 2 && !rc; pass++)
		for (size_t i = 0; i < cv->roots.n && !rc; i++) {
			struct stat st;
			if ((strcmp(cv->roots.v[i], ws) == 0) == (pass == 0) &&
			    stat(cv->roots.v[i], &st) == 0 && S_ISDIR(st.st_mode))
				rc = walk_root(in, pl, cv, cv->roots.v[i]);
		}
	for (size_t i = 0; i < cv->unmasked.n && !rc; i++) {
		struct stat st;
		if (stat(cv->unmasked.v[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc = walk_root(in, pl, cv, cv->unmasked.v[i]);
	}
	/* other names of what the walk masked, in what it read before */
	unsigned budget = WALK_DIRS;
	for (size_t i = 0; i < cv->roots.n + cv->unmasked.n && !rc && shared_unfound(cv, shared_from);
	     i++)
		rc = names_root(in, pl, cv, i < cv->roots.n ? cv->roots.v[i] :
				cv->unmasked.v[i - cv->roots.n], shared_from, &budget, NAMES_WALKED);
	/* ... and, for one still not found, where the walk does not look
	 * (node_modules, objects, .cache, git directories: a
	 * `node_modules/p/notes.txt` read the key); everywhere when the walk
	 * or that look stopped short, or a root is walked only so deep */
	enum names_look look = cv->walk_cut_at[0] || !budget ? NAMES_ALL : NAMES_PAST;
	budget = WALK_DIRS;
	for (size_t i = 0; i < cv->roots.n + cv->unmasked.n && !rc && shared_unfound(cv, 0); i++) {
		const char *r = i < cv->roots.n ? cv->roots.v[i] : cv->unmasked.v[i - cv->roots.n];
		struct stat rst;
		bool sticky = stat(r, &rst) == 0 && (rst.st_mode & S_ISVTX) && (rst.st_mode & S_IWOTH);
		rc = names_root(in, pl, cv, r, 0, &budget, sticky ? NAMES_ALL : look);
	}
	/* HOME's own entries, where a writable root holds HOME deeper than
	 * the walk judges (allow_write = / with HOME four levels down): the
	 * ones its allow-list keeps are bound read-only (one each) */
	const char *home = policy_home(in->policy);
	if (!rc && strcmp(home, "/") && writable_here(cv, home) && !is_root(cv, home))
		rc = scan(in, pl, cv, home, 1);
	/* the workspace's and HOME's own repositories (their .git may lie
	 * outside a writable root's walk: a root inside the workspace) */
	for (size_t j = 0; j < 2 && !rc; j++) {
		char g[PATH_MAX + 8];
		struct stat st;
		snprintf(g, sizeof(g), "%s/.git", roots[j]);
		if (look_lstat(cv, g, &st) == 0 && S_ISDIR(st.st_mode))
			rc = guard_repo_tree(in, pl, cv, g);
	}
	/* roots that are git directories themselves (the workspace's own, when
	 * the workspace is a linked worktree or lies below its repository's
	 * top), even without objects/ (a linked worktree's) */
	for (size_t i = 0; i < cv->roots.n && !rc; i++) {
		char g[PATH_MAX + 8];
		snprintf(g, sizeof(g), "%s/HEAD", cv->roots.v[i]);
		if (look_there(cv, g))
			rc = guard_repo_tree(in, pl, cv, cv->roots.v[i]);
	}
	if (cv->walk_cut_at[0]) {
		char shown[PATH_MAX];
		sbx_path_tildify(cv->walk_cut_at, policy_home(in->policy), shown, sizeof(shown));
		msg("looked for git repositories in %u directories of the writable roots "
		    "and stopped before %s: the hooks and config of one further on are not "
		    "kept read-only (choose a smaller workspace with -w DIR)",
		    (unsigned)WALK_DIRS, shown);
	}
	if (cv->guard_cut)
		msg("more than %u git directories in the writable roots: the hooks and "
		    "config of the first %u are kept read-only, not the others' (choose a "
		    "smaller workspace with -w DIR)", (unsigned)GIT_GUARD_MAX,
		    (unsigned)GIT_GUARD_MAX);
	return rc;
}

/* The caller's value of an environment variable, or NULL. */
static const char *caller_env(const struct plan_in *in, const char *name)
{
	size_t n = strlen(name);

	for (char **e = in->environ; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* The caller's value of NAME as COMMAND may see it: NULL when absent or
 * withheld (deny_env, a secret-looking value: plan_environment unsets
 * it, and a value of sbx's built on it must not bring it back). */
static const char *caller_kept(const struct plan_in *in, const char *name)
{
	const char *v = caller_env(in, name);

	return v && !policy_env_var_denied(in->policy, name, v) ? v : NULL;
}

/* COMMAND's clients pointed at the proxy's listeners on the sandbox's
 * loopback (docs/NETWORK.md has the table: which program reads which).
 * They replace the caller's: a proxy of the host's is not reachable from
 * the sandbox, and one that was would bypass the policy. */
static int proxy_environment(const struct plan_in *in, struct plan *pl)
{
	char http[64], socks[64], pc[PATH_MAX * 4 + 64], ssh[PATH_MAX * 6 + 4096];
	const char *const *http_vars = net_http_proxy_vars;
	const char *no_proxy = "localhost,127.0.0.1,::1";
	unsigned hport = in->http_port ? in->http_port : SBX_PROXY_HTTP_PORT;
	unsigned sport = in->socks_port ? in->socks_port : SBX_PROXY_SOCKS_PORT;

	snprintf(http, sizeof(http), "http://127.0.0.1:%u", hport);
	snprintf(socks, sizeof(socks), "socks5h://127.0.0.1:%u", sport);
	for (size_t i = 0; http_vars[i]; i++)
		TRY(add3(pl, "--setenv", http_vars[i], http));
	TRY(add3(pl, "--setenv", "ALL_PROXY", socks));
	TRY(add3(pl, "--setenv", "all_proxy", socks));
	TRY(add3(pl, "--setenv", "NO_PROXY", no_proxy));
	TRY(add3(pl, "--setenv", "no_proxy", no_proxy));
	/* Node 22.21+/24+: fetch() and http(s) follow HTTP(S)_PROXY */
	TRY(add3(pl, "--setenv", "NODE_USE_ENV_PROXY", "1"));
	/* the JVM: after the caller's options (a later -D wins) */
	char *java = net_java_tool_options(caller_kept(in, "JAVA_TOOL_OPTIONS"), hport);
	int jrc = java ? add3(pl, "--setenv", "JAVA_TOOL_OPTIONS", java) : -ENOMEM;
	free(java);
	TRY(jrc);
	/* ssh follows no variable: git over ssh gets a ProxyCommand, sbx-init's
	 * SOCKS5 client (ssh runs it with sh -c, git runs GIT_SSH_COMMAND so
	 * too: quoted twice). The caller's command stays in front, so their
	 * options, and a ProxyCommand of theirs, come first. */
	const char *gs = caller_kept(in, "GIT_SSH_COMMAND");
	snprintf(pc, sizeof(pc), "ProxyCommand=");
	shell_quote(in->init, pc, sizeof(pc));
	snprintf(pc + strlen(pc), sizeof(pc) - strlen(pc), " --socks-connect=%u %%h %%p",
		 sport);
	snprintf(ssh, sizeof(ssh), "%s -o ", gs && *gs ? gs : "ssh");
	shell_quote(pc, ssh, sizeof(ssh));
	return add3(pl, "--setenv", "GIT_SSH_COMMAND", ssh);
}

/* `[env] set = NAME=VALUE` (an agent profile's CLAUDE_CONFIG_DIR...): set
 * after deny_env's removals, so a name set on purpose is there. */
static int set_environment(const struct policy *p, struct plan *pl)
{
	size_t n;
	const struct sbx_rule *const *set = policy_rules(p, SBX_RULE_SET_ENV, &n);

	for (size_t i = 0; i < n; i++) {
		char name[256];
		const char *value;
		if (policy_set_env_split(set[i], name, sizeof(name), &value) == 0)
			TRY(add3(pl, "--setenv", name, value));
	}
	return 0;
}

/* A variable that sends a client through a proxy of the caller's:
 * `*_proxy` in any case (HTTP_PROXY, socks_proxy, ftp_proxy, RSYNC_PROXY,
 * WSS_PROXY, npm_config_https_proxy, GLOBAL_AGENT_HTTP_PROXY, ...) and
 * git's GIT_PROXY_COMMAND (a command it runs to connect). By what the name
 * says, so a tool's own spelling is covered without a list. */
static bool proxy_setting(const char *name)
{
	size_t n = strlen(name);

	return (n > 6 && !strcasecmp(name + n - 6, "_proxy")) ||
	       !strcasecmp(name, "GIT_PROXY_COMMAND");
}

static int environment(const struct plan_in *in, struct plan *pl)
{
	const struct policy *p = in->policy;
	/* The caller's proxy settings go where the sandbox's network does
	 * not: its proxy is unreachable from the sandbox's namespace, and
	 * its credentials (http://user:secret@proxy) are no business of
	 * COMMAND's. Removed here; proxy_environment() then sets sbx's own
	 * where it has one. With the network open they stay: the caller's
	 * proxy is how the host gets out. */
	bool drop_proxies = in->proxy || !policy_network_open(p);

	size_t nset;
	const struct sbx_rule *const *set = policy_rules(p, SBX_RULE_SET_ENV, &nset);

	for (char **e = in->environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name = eq && eq > *e ? strndup(*e, (size_t)(eq - *e)) : NULL;
		bool reset = false;
		int rc = 0;

		if (!eq || eq == *e)
			continue;
		if (!name)
			return -ENOMEM;
		if (policy_env_var_denied(p, name, eq + 1)) {
			rc = add2(pl, "--unsetenv", name);
			/* `[env] set` puts it back with the profile's own value:
			 * not the caller's, so not counted as withheld */
			for (size_t i = 0; i < nset && !reset; i++) {
				char sname[256];
				const char *v;
				reset = !policy_set_env_split(set[i], sname, sizeof(sname), &v) &&
					!strcmp(sname, name);
			}
			if (!rc && !reset)
				rc = strv_add(&pl->withheld, name);
		} else if (drop_proxies && proxy_setting(name)) {
			rc = add2(pl, "--unsetenv", name);
		}
		free(name);
		if (rc < 0)
			return -ENOMEM;
	}
	TRY(add3(pl, "--setenv", "SBX_SANDBOX", "1"));
	TRY(set_environment(p, pl));
	if (policy_home_mode(p) == SBX_HOME_EPHEMERAL) {
		/* inside the private /tmp: empty at start, gone at exit */
		TRY(add3(pl, "--perms", "0700", "--dir"));
		TRY(strv_add(&pl->argv, "/tmp/sbx-home"));
		TRY(add3(pl, "--setenv", "HOME", "/tmp/sbx-home"));
	}
	if (policy_session_dir(p))
		TRY(add3(pl, "--setenv", "SBX_SESSION_DIR", policy_session_dir(p)));
	const char *tmpdir = getenv("TMPDIR");
	if (tmpdir && *tmpdir && (tmpdir[0] != '/' ||
	    policy_check_path(p, SBX_OP_WRITE, tmpdir, NULL) == SBX_DENY))
		TRY(add3(pl, "--setenv", "TMPDIR", "/tmp"));
	if (in->proxy)
		TRY(proxy_environment(in, pl));
	return 0;
}

/* Phase one: bubblewrap's options, then sbx-init and its own options. All
 * of it is cheap, so bubblewrap (started before the policy was compiled and
 * waiting for these) goes on while phase two plans the masks and the
 * write-protects, which look at the disk. */
int plan_bwrap(const struct plan_in *in, struct plan *pl)
{
	const struct policy *p = in->policy;
	struct covered *cv;
	int rc;

	memset(pl, 0, sizeof(*pl));
	cv = pl->covered = calloc(1, sizeof(*cv));
	if (!cv)
		return -ENOMEM;
	cv->memo = sbx_path_memo_new(16); /* NULL (no memory): every look-up asked of the kernel */
#define STEP(x) do { if ((rc = (x)) < 0) goto out; } while (0)
	STEP(strv_add(&pl->argv, in->bwrap));
	/* Always a user namespace with every capability dropped, also for
	 * root: bwrap started by root otherwise keeps nearly all capabilities,
	 * and CAP_SYS_ADMIN or CAP_DAC_READ_SEARCH would undo a mask (umount,
	 * open_by_handle_at). No nested user namespaces either: one could
	 * regain those capabilities over mounts of its own. sbx-init's seccomp
	 * filter refuses them (gen-filters.c), which is cheaper than bwrap's
	 * --disable-userns (about 0.2 ms, and a nested namespace in which
	 * sbx-init would need a mount namespace of its own). */
	STEP(strv_add(&pl->argv, "--unshare-user"));
	/* sbx-init makes most mounts itself (cheaper than bubblewrap's), so
	 * it starts with these two, inside the sandbox's user namespace only,
	 * and drops them and every other capability before COMMAND starts. */
	STEP(add2(pl, "--cap-drop", "ALL"));
	STEP(add2(pl, "--cap-add", "CAP_SYS_ADMIN"));
	STEP(add2(pl, "--cap-add", "CAP_SETPCAP"));
	/* with the proxy, sbx-init binds the resolver's port 53 (and host
	 * ports under 1024) in the sandbox's namespace; dropped with the rest */
	if (in->proxy && !in->nested)
		STEP(add2(pl, "--cap-add", "CAP_NET_BIND_SERVICE"));
	STEP(strv_add(&pl->argv, "--unshare-pid"));
	STEP(strv_add(&pl->argv, "--unshare-ipc"));
	STEP(strv_add(&pl->argv, "--unshare-uts"));
	STEP(strv_add(&pl->argv, "--unshare-cgroup-try"));
	if (!policy_network_open(p))
		STEP(strv_add(&pl->argv, "--unshare-net"));
	STEP(strv_add(&pl->argv, "--die-with-parent"));
	/* sbx-init is pid 1: it forwards signals and reaps, which bwrap's own
	 * pid-1 helper does not do. */
	STEP(strv_add(&pl->argv, "--as-pid-1"));

	STEP(add3(pl, "--ro-bind", "/", "/"));
	STEP(bind_roots(in, pl, cv, false));
	/* A fresh /dev: sbx-init binds the six nodes it needs from the host's
	 * (read-only and nodev under `--ro-bind / /`; it lifts nodev on each
	 * of its binds) and covers the rest with a tmpfs. A fresh /proc for
	 * the sandbox's pid namespace, by sbx-init too (bubblewrap's --proc
	 * costs about 0.35 ms, a remount with mountinfo read back for each of
	 * the four subtrees it write-protects; sbx-init protects the same
	 * four). */
	STEP(strv_add(&pl->init_ops, "--dev"));
	STEP(strv_add(&pl->init_ops, "--proc"));
	STEP(add2(pl, "--tmpfs", "/tmp"));
	/* Our own helper must stay reachable when sbx lives under /tmp (a
	 * build tree, a test): the private /tmp hides the host's. */
	if (sbx_path_under(in->init, "/tmp"))
		STEP(add3(pl, "--ro-bind", in->init, in->init));
	if (in->shim_lib && sbx_path_under(in->shim_lib, "/tmp"))
		STEP(add3(pl, "--ro-bind", in->shim_lib, in->shim_lib));
	STEP(bind_roots(in, pl, cv, true));
	STEP(environment(in, pl));
	STEP(add2(pl, "--chdir", in->cwd));

	STEP(strv_add(&pl->argv, "--"));
	pl->init_at = pl->argv.n;
	rc = 0;
out:
	if (rc < 0)
		plan_free(pl);
	return rc;
}

/* sbx-init's own arguments, after bubblewrap's "--": phase two, so that
 * what only sbx-init needs (the shim's spec, its descriptors' numbers) is
 * made after bubblewrap has its options and goes on. */
static int init_args(const struct plan_in *in, struct plan *pl)
{
	const struct policy *p = in->policy;
	char num[64];
	int rc;

	STEP(strv_add(&pl->argv, in->init));
	if (in->ctl_fd >= 0) {
		snprintf(num, sizeof(num), "--ctl=%d", in->ctl_fd);
		STEP(strv_add(&pl->argv, num));
	}
	STEP(strv_add(&pl->argv, policy_allow_all_unix_sockets(p) ?
		      "--unix=allow" : "--unix=block"));
	if (in->notify) /* preload/notify/notify.c serves its listener */
		STEP(strv_add(&pl->argv, policy_allow_local_binding(p) ? "--notify" :
			      "--notify=no-local-binding"));
	if (in->shim_lib) {
		/* COMMAND's environment only, set by sbx-init after its fork (not
		 * bwrap's --setenv: sbx-init itself must not be preloaded). Ours
		 * first; a preload the caller had stays after it. */
		const char *theirs = NULL;
		for (char **e = in->environ; e && *e; e++)
			if (!strncmp(*e, "LD_PRELOAD=", 11) && (*e)[11])
				theirs = *e + 11;
		STEP(strv_addf(&pl->argv, "--env=LD_PRELOAD=%s%s%s", in->shim_lib,
			       theirs ? ":" : "", theirs ? theirs : ""));
		STEP(strv_addf(&pl->argv, "--env=SBX_SHIM=%s", in->shim_spec));
	}
	for (size_t i = 0; in->insert_args && in->insert_args[i] && i < SBX_INSERT_ARGS_MAX; i++)
		STEP(strv_addf(&pl->argv, "--arg=%s", in->insert_args[i]));
	if (in->ignored_signals) {
		snprintf(num, sizeof(num), "--ignored=%u", in->ignored_signals);
		STEP(strv_add(&pl->argv, num));
	}
	/* [limits] that are rlimits: set by sbx-init on itself, so COMMAND
	 * and everything it starts inherit them */
	if (policy_limit(p, SBX_LIMIT_CPU_SECONDS))
		STEP(strv_addf(&pl->argv, "--limit-cpu=%llu",
			       (unsigned long long)policy_limit(p, SBX_LIMIT_CPU_SECONDS)));
	if (policy_limit(p, SBX_LIMIT_NOFILE))
		STEP(strv_addf(&pl->argv, "--limit-nofile=%llu",
			       (unsigned long long)policy_limit(p, SBX_LIMIT_NOFILE)));
	if (in->limit_nproc)
		STEP(strv_addf(&pl->argv, "--limit-nproc=%llu", (unsigned long long)in->limit_nproc));
	/* the proxy's listeners, made by sbx-init in the sandbox's network
	 * namespace and handed to us over the control socket */
	if (in->proxy && !in->nested) {
		STEP(strv_addf(&pl->argv, "--listen-http=%u", SBX_PROXY_HTTP_PORT));
		STEP(strv_addf(&pl->argv, "--listen-socks=%u", SBX_PROXY_SOCKS_PORT));
		STEP(strv_add(&pl->argv, "--listen-dns"));
		unsigned ports[SBX_HOST_PORTS_MAX];
		size_t np = net_host_ports(in->policy, ports, SBX_HOST_PORTS_MAX);
		for (size_t i = 0; i < np && i < SBX_HOST_PORTS_MAX; i++)
			STEP(strv_addf(&pl->argv, "--listen-port=%u", ports[i]));
	}
	if (sbx_verbosity >= V_VERBOSE)
		STEP(strv_add(&pl->argv, "--verbose"));
	rc = 0;
out:
	return rc;
}

/* Phase two: what sbx-init mounts (masks, write-protects, placeholders to
 * be made), then COMMAND. */
int plan_init(const struct plan_in *in, struct plan *pl)
{
	struct covered *cv = pl->covered;
	size_t pin_at = pl->init_ops.n; /* after the roots, /dev and /proc */
	int rc;

	STEP(init_args(in, pl));
	cv->host_tmp = in->nested;
	STEP(mask_rules(in, pl, cv));
	/* The stand-in records: nothing inside needs them, and a program that
	 * can open the lock file can flock() it, read-only as it is. */
	if (in->state_dir) {
		char recs[PATH_MAX + 16];
		unsigned masks = pl->read_masks; /* sbx's own: not a policy's read-deny */
		snprintf(recs, sizeof(recs), "%s/standins", in->state_dir);
		STEP(mask_path(in, pl, cv, recs));
		pl->read_masks = masks;
	}
	STEP(protect_rules(in, pl, cv));
	shared_said(in, cv);
	/* the pins before the masks and protects below them (parents first),
	 * the links after every protect (a link's target may be one) */
	if (cv->pins.n)
		qsort(cv->pins.v, cv->pins.n, sizeof(*cv->pins.v), cmp_len);
	for (size_t i = 0; i < pin_at; i++)
		STEP(strv_add(&pl->argv, pl->init_ops.v[i]));
	for (size_t i = 0; i < cv->pins.n; i++)
		if (!hidden(cv, cv->pins.v[i]) && !pathset_under(&cv->protect_set, cv->pins.v[i]))
			STEP(strv_addf(&pl->argv, "--pin=%s", cv->pins.v[i]));
	for (size_t i = pin_at; i < pl->init_ops.n; i++)
		STEP(strv_add(&pl->argv, pl->init_ops.v[i]));
	for (size_t i = 0; i < cv->links.n; i++)
		STEP(strv_addf(&pl->argv, "--ro-link=%s", cv->links.v[i]));
	STEP(strv_add(&pl->argv, "--"));
	pl->cmd_at = pl->argv.n;
	for (char *const *c = in->command; *c; c++)
		STEP(strv_add(&pl->argv, *c));
	for (size_t i = 0; i < cv->protect.n; i++)
		STEP(strv_add(&pl->guarded, cv->protect.v[i]));
	for (size_t i = 0; i < cv->gitdirs.n; i++)
		STEP(strv_add(&pl->gitdirs, cv->gitdirs.v[i]));
	rc = 0;
out:
	covered_free(pl);
	if (rc < 0)
		plan_free(pl);
	return rc;
}

int plan_guards(const struct plan_in *in, struct plan *pl)
{
	struct covered *cv;
	int rc;

	memset(pl, 0, sizeof(*pl));
	cv = pl->covered = calloc(1, sizeof(*cv));
	if (!cv)
		return -ENOMEM;
	cv->memo = sbx_path_memo_new(16);
	cv->discover = true;
	/* the host's /tmp, where the policy lets the sandbox write (as the
	 * nested mode's): what is protected there is said too */
	cv->host_tmp = true;
	STEP(bind_roots(in, pl, cv, false));
	STEP(bind_roots(in, pl, cv, true));
	STEP(mask_rules(in, pl, cv));
	STEP(protect_rules(in, pl, cv));
	/* Each path and where it leads (a profile names a file by its real
	 * path, a mount by the one it follows); the protected names missing
	 * with no stand-in too (a profile refuses making them, the shim
	 * alone does on Linux); and the links on the way, by their own
	 * names (one repointed takes the name git follows elsewhere). */
	/* Only what no rule denies: the profile holds the rules' own (the
	 * semantic check shows it says what policy_check_path() says). */
	for (size_t k = 0; k < 3; k++) {
		const struct strv *from = k == 2 ? &cv->links : k ? &pl->unguarded : &cv->protect;
		for (size_t i = 0; i < from->n; i++) {
			char real[PATH_MAX];
			if (policy_check_path(in->policy, SBX_OP_WRITE, from->v[i], NULL) == SBX_ALLOW)
				STEP(strv_add(&pl->guarded, from->v[i]));
			if (k == 2)
				continue;
			sbx_path_resolve_memo(from->v[i], real, sizeof(real), cv->memo);
			if (real[0] == '/' && strcmp(real, from->v[i]) &&
			    policy_check_path(in->policy, SBX_OP_WRITE, real, NULL) == SBX_ALLOW)
				STEP(strv_add(&pl->guarded, real));
		}
	}
	/* the directories on the way, as plan_init() pins them: a rule by
	 * name leaves a renamed parent's copy writable, and renamed back it
	 * is the name git follows */
	for (size_t i = 0; i < cv->pins.n; i++)
		if (!hidden(cv, cv->pins.v[i]) && !pathset_under(&cv->protect_set, cv->pins.v[i]) &&
		    policy_check_path(in->policy, SBX_OP_WRITE, cv->pins.v[i], NULL) == SBX_ALLOW)
			STEP(strv_add(&pl->pinned, cv->pins.v[i]));
	for (size_t i = 0; i < cv->gitdirs.n; i++)
		STEP(strv_add(&pl->gitdirs, cv->gitdirs.v[i]));
	rc = 0;
out:
	covered_free(pl);
	if (rc < 0)
		plan_free(pl);
	return rc;
}

#undef STEP

int plan_build(const struct plan_in *in, struct plan *pl)
{
	int rc = plan_bwrap(in, pl);

	return rc ? rc : plan_init(in, pl);
}

void plan_remove_placeholders(struct plan *pl)
{
	standins_release(pl->standins);
}

size_t plan_appeared(const struct plan *pl, void (*fn)(void *ctx, const char *path), void *ctx)
{
	struct stat st;
	size_t n = 0;

	for (size_t i = 0; i < pl->unguarded.n; i++) {
		/* planned unguarded by one way there, given a stand-in by
		 * another (a git directory's config.worktree) */
		bool standin = false;
		for (size_t j = 0; j < pl->placeholders_pending.n; j++)
			standin |= !strcmp(pl->placeholders_pending.v[j], pl->unguarded.v[i]);
		if (!standin && lstat(pl->unguarded.v[i], &st) == 0) {
			fn(ctx, pl->unguarded.v[i]);
			n++;
		}
	}
	return n;
}

static void covered_free(struct plan *pl)
{
	struct covered *cv = pl->covered;

	if (!cv)
		return;
	sbx_path_memo_free(cv->memo);
	gitcfg_free(cv->config.g);
	strv_free(&cv->masks);
	strv_free(&cv->protect);
	free(cv->protect_set.v);
	free(cv->pins_set.v);
	free(cv->unguarded_set.v);
	strv_free(&cv->roots);
	strv_free(&cv->user_hooks);
	strv_free(&cv->links);
	strv_free(&cv->pins);
	strv_free(&cv->unmasked);
	strv_free(&cv->gitdirs);
	free(cv);
	pl->covered = NULL;
}

void plan_free(struct plan *pl)
{
	covered_free(pl);
	if (pl->mount_ids_free) /* Linux's (backend/linux/mountids.h) */
		pl->mount_ids_free(pl);
	strv_free(&pl->argv);
	strv_free(&pl->init_ops);
	strv_free(&pl->placeholders_pending);
	strv_free(&pl->refused_new);
	strv_free(&pl->unguarded);
	strv_free(&pl->withheld);
	strv_free(&pl->guarded);
	strv_free(&pl->gitdirs);
	strv_free(&pl->pinned);
	free(pl->placeholder_state);
	pl->placeholder_state = NULL;

	free(pl->placeholder_failed);
	pl->placeholder_failed = NULL;
}
