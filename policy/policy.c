/* policy/policy.c: built-in defaults and compilation (queries: query.c). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "policy/internal.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))


/* The executes-later table (execlater.c) gives the mandatory write
 * denies: what a later, unsandboxed program runs or loads as configuration.
 * docs/POLICY.md ("Executes-later") says why each row is there, and what
 * was left out and why. */

/* ---- the workspace's git directories */

/* `gitdir: X` in the file `file` (a `.git` file), or just `X` (a
 * commondir file), resolved against the file's directory. */
static bool read_gitfile(struct policy_builder *b, const char *file, bool prefixed,
			 char *out, size_t outsz)
{
	char buf[PATH_MAX], dir[PATH_MAX], joined[PATH_MAX];
	FILE *f = fopen(file, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	const char *v = !prefixed ? buf : !strncmp(buf, "gitdir: ", 8) ? buf + 8 : NULL;
	if (!v || !*v)
		return false;
	snprintf(dir, sizeof(dir), "%s", file);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (path_join(dir, v, joined, sizeof(joined)))
		return false;
	path_resolve_existing(joined, out, outsz, &b->memo);
	return true;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool has(const char *dir, const char *name, bool want_dir)
{
	char path[PATH_MAX + 16];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0 && (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

/* What git itself makes: HEAD, objects/ and refs/ in a common directory. */
static bool looks_like_git_dir(const char *dir)
{
	return has(dir, "HEAD", false) && has(dir, "objects", true) && has(dir, "refs", true);
}

static void parent_of(const char *path, char *out, size_t outsz)
{
	snprintf(out, outsz, "%s", path);
	char *slash = strrchr(out, '/');
	if (slash)
		*(slash == out ? slash + 1 : slash) = '\0';
}

/* A submodule's git directory (`<super>/.git/modules/<name>`) names its
 * worktree in its config (`worktree = ../../../sub`, relative to itself). */
static bool config_worktree_is(struct policy_builder *b, const char *gd, const char *worktree)
{
	char file[PATH_MAX + 16], line[PATH_MAX + 64], joined[PATH_MAX], got[PATH_MAX];
	bool in_core = false, ok = false;
	FILE *f;

	snprintf(file, sizeof(file), "%s/config", gd);
	if (!(f = fopen(file, "re")))
		return false;
	while (!ok && fgets(line, sizeof(line), f)) {
		char *l = line + strspn(line, " \t");
		l[strcspn(l, "\r\n")] = '\0';
		if (*l == '[') {
			in_core = !strncasecmp(l, "[core]", 6);
			continue;
		}
		if (!in_core || strncasecmp(l, "worktree", 8))
			continue;
		char *v = l + 8;
		v += strspn(v, " \t");
		if (*v++ != '=')
			continue;
		v += strspn(v, " \t");
		if (*v && !path_join(gd, v, joined, sizeof(joined))) {
			path_resolve_existing(joined, got, sizeof(got), &b->memo);
			ok = !strcmp(got, worktree);
		}
	}
	fclose(f);
	return ok;
}

/* The git directory of the repository the workspace is in, and its common
 * directory (a linked worktree's main `.git`), where they lie outside the
 * workspace; at most two, in out. Not a repository whose worktree is HOME
 * or above (a dotfiles repository at ~ would make every workspace below
 * HOME write to it), nor anything at `/`.
 *
 * The command may have written the `.git` it is read from (a `.git` file
 * in the workspace saying `gitdir: ~/.config`): a directory outside is
 * opened only if it points back, in files the command could not have
 * written unless that directory was writable already. A linked worktree's
 * git directory is `<common>/worktrees/<name>`, whose `gitdir` names this
 * very `.git` file and whose `commondir` leads to `<common>`; a
 * submodule's is under a `.git/modules/`, and its config's `worktree`
 * names this worktree; a `.git` directory has no `commondir`; and every
 * common directory has HEAD, objects/ and refs/. */
static size_t workspace_gitdirs(struct policy_builder *b, const char *ws, const char *home,
				char out[2][PATH_MAX])
{
	char dir[PATH_MAX], dotgit[PATH_MAX + 8], gd[PATH_MAX], common[PATH_MAX];
	struct stat st;
	size_t n = 0;

	snprintf(dir, sizeof(dir), "%s", ws);
	for (;;) {
		snprintf(dotgit, sizeof(dotgit), "%s/.git", strcmp(dir, "/") ? dir : "");
		if (lstat(dotgit, &st) == 0)
			break;
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return 0;
		*slash = '\0';
	}
	if (sbx_path_under(home, dir))
		return 0; /* the repository's worktree is HOME or above it */
	if (S_ISDIR(st.st_mode)) {
		path_resolve_existing(dotgit, gd, sizeof(gd), &b->memo);
		if (has(gd, "commondir", false))
			return 0; /* not what git makes in a `.git` directory */
		snprintf(common, sizeof(common), "%s", gd);
	} else if (S_ISREG(st.st_mode) && read_gitfile(b, dotgit, true, gd, sizeof(gd)) &&
		   is_dir(gd) && has(gd, "HEAD", false)) {
		char back[PATH_MAX], self[PATH_MAX], file[PATH_MAX + 16], up[PATH_MAX];
		path_resolve_existing(dotgit, self, sizeof(self), &b->memo);
		snprintf(file, sizeof(file), "%s/commondir", gd);
		if (has(gd, "commondir", false)) {
			/* a linked worktree: <common>/worktrees/<name> */
			parent_of(gd, up, sizeof(up));
			const char *base = strrchr(up, '/');
			if (!base || strcmp(base, "/worktrees"))
				return 0;
			parent_of(up, common, sizeof(common));
			if (!read_gitfile(b, file, false, back, sizeof(back)) || strcmp(back, common))
				return 0;
			snprintf(file, sizeof(file), "%s/gitdir", gd);
			if (!read_gitfile(b, file, false, back, sizeof(back)) || strcmp(back, self))
				return 0;
			/* a pair a sandboxed run could write made in one: the
			 * supervisor's record says so (gitprov.h) */
			if (b->untrusted_gitdir && b->untrusted_gitdir(b->untrusted_arg, gd))
				return 0;
		} else {
			/* a submodule: under <super>/.git/modules/, pointing back */
			char wt[PATH_MAX];
			path_resolve_existing(dir, wt, sizeof(wt), &b->memo);
			if (!strstr(gd, "/.git/modules/") || !config_worktree_is(b, gd, wt))
				return 0;
			snprintf(common, sizeof(common), "%s", gd);
		}
	} else
		return 0;
	if (!looks_like_git_dir(common))
		return 0;
	/* the common directory's worktree: its parent, for a `.git` */
	char top[PATH_MAX];
	snprintf(top, sizeof(top), "%s", common);
	char *slash = strrchr(top, '/');
	if (slash && !strcmp(slash, "/.git"))
		*(slash == top ? slash + 1 : slash) = '\0';
	if (sbx_path_under(home, top) || !strcmp(common, "/"))
		return 0;
	/* the common directory covers a linked worktree's own (under its
	 * worktrees/), which is the usual case */
	if (!sbx_path_under(common, ws))
		snprintf(out[n++], PATH_MAX, "%s", common);
	if (!sbx_path_under(gd, ws) && !sbx_path_under(gd, common))
		snprintf(out[n++], PATH_MAX, "%s", gd);
	return n;
}

/* $XDG_CONFIG_HOME, when it is set elsewhere than ~/.config: the parent of
 * sbx's configuration directory (`$XDG_CONFIG_HOME/sbx`, main.c). */
static bool config_home(struct policy_builder *b, char *out, size_t outsz)
{
	char dflt[PATH_MAX + 16], dreal[PATH_MAX];
	const char *c = b->config_dir;
	size_t n = c ? strlen(c) : 0;

	if (n < 5 || c[0] != '/' || strcmp(c + n - 4, "/sbx"))
		return false;
	snprintf(out, outsz, "%.*s", (int)(n - 4), c);
	if (!out[0])
		return false;
	snprintf(dflt, sizeof(dflt), "%s/.config", b->home);
	path_resolve_existing(dflt, dreal, sizeof(dreal), &b->memo);
	return strcmp(out, dflt) && strcmp(out, dreal);
}

/* ---- builder */

/* Could this be where a tool keeps a person's file? Not the system's
 * pseudo-filesystems and devices (`HISTFILE=/dev/null`, the usual way to
 * keep no history, made /dev/null unreadable for every program), nor a
 * top-level directory (`GNUPGHOME=/etc` would hide the system). */
static bool user_store(const char *path)
{
	static const char *const system[] = { "/dev", "/proc", "/sys", "/run" };

	for (size_t i = 0; i < sizeof(system) / sizeof(system[0]); i++)
		if (sbx_path_under(path, system[i]) || !strcmp(path, system[i]))
			return false;
	return strchr(path + 1, '/') != NULL;
}

/* The rows of one sbx_credential_envs entry: its variable's value (each
 * of a list's), an absolute path, plus the file below it. Not a value that
 * holds HOME or the current directory (`GNUPGHOME=$HOME`): that row would
 * hide everything, and the table's own rows there stand; nor one that is
 * no user's store (user_store()). */
static int credential_env_rows(struct policy_builder *b, char *const *env,
			       const struct sbx_credential_env *ce)
{
	size_t vl = strlen(ce->var);
	const char *v = NULL;

	for (char *const *e = env; *e && !v; e++)
		if (!strncmp(*e, ce->var, vl) && (*e)[vl] == '=')
			v = *e + vl + 1;
	while (v && *v) {
		size_t n = ce->list ? strcspn(v, ":") : strlen(v);
		char path[PATH_MAX];
		if (v[0] == '/' && n < PATH_MAX &&
		    snprintf(path, sizeof(path), "%.*s%s%s", (int)n, v, *ce->file ? "/" : "",
			     ce->file) < (int)sizeof(path) &&
		    !sbx_path_under(b->home, path) && !sbx_path_under(b->cwd, path) &&
		    user_store(path) &&
		    builder_add_rule(b, SBX_RULE_DENY_READ, path, SBX_ORIGIN_DEFAULT, "default"))
			return -ENOMEM;
		v += n;
		v += *v == ':';
	}
	return 0;
}

static int builder_new(const struct policy_ctx *ctx, bool defaults,
		       struct policy_builder **out)
{
	struct policy_builder *b = calloc(1, sizeof(*b));
	int rc = -ENOMEM;

	if (!b)
		return -ENOMEM;
	if (!ctx->home || ctx->home[0] != '/' || !ctx->cwd || ctx->cwd[0] != '/') {
		rc = -EINVAL;
		goto fail;
	}
	b->home = strdup(ctx->home);
	b->cwd = strdup(ctx->cwd);
	b->session_dir = ctx->session_dir ? strdup(ctx->session_dir) : NULL;
	b->state_dir = ctx->state_dir ? strdup(ctx->state_dir) : NULL;
	b->config_dir = ctx->config_dir ? strdup(ctx->config_dir) : NULL;
	b->untrusted_gitdir = ctx->untrusted_gitdir;
	b->untrusted_arg = ctx->untrusted_arg;
	b->path_env = ctx->path_env ? strdup(ctx->path_env) : NULL;
	b->login_path = ctx->login_path ? strdup(ctx->login_path) : NULL;
	for (size_t i = 0; i < SBX_OWN_FILES; i++)
		if (ctx->own_files[i] && ctx->own_files[i][0] == '/' &&
		    !(b->own_files[i] = strdup(ctx->own_files[i])))
			goto fail;
	if (!b->home || !b->cwd || (ctx->session_dir && !b->session_dir) ||
	    (ctx->state_dir && !b->state_dir) || (ctx->config_dir && !b->config_dir) ||
	    (ctx->path_env && !b->path_env) || (ctx->login_path && !b->login_path))
		goto fail;
	if (!defaults) {
		b->bare = true;
		*out = b;
		return 0;
	}
	/* the credential table (credentials.c): read-denied unless lifted */
	for (size_t i = 0; i < sbx_ncredentials; i++)
		if (builder_add_rule(b, SBX_RULE_DENY_READ, sbx_credentials[i].path,
				     SBX_ORIGIN_DEFAULT, "default") ||
		    (sbx_credentials[i].quiet &&
		     builder_add_rule(b, SBX_RULE_IGNORE_PATH, sbx_credentials[i].path,
				      SBX_ORIGIN_DEFAULT, "default")))
			goto fail;
	/* ... and where the tool's own variable moves them */
	for (size_t i = 0; ctx->environ && i < sbx_ncredential_envs; i++)
		if (credential_env_rows(b, ctx->environ, &sbx_credential_envs[i]))
			goto fail;
	/* secret-looking variables are withheld by their names
	 * (sbx_env_secret_name()), not by deny_env rules: keep_env lifts
	 * those, never a deny_env */
	if (builder_add_rule(b, SBX_RULE_ALLOW_WRITE, "/tmp", SBX_ORIGIN_DEFAULT, "default") ||
	    builder_add_rule(b, SBX_RULE_DENY_WRITE, ".env", SBX_ORIGIN_DEFAULT, "default"))
		goto fail;
	*out = b;
	return 0;
fail:
	policy_builder_free(b);
	return rc;
}

int policy_builder_new(const struct policy_ctx *ctx, struct policy_builder **out)
{
	return builder_new(ctx, true, out);
}

int policy_builder_new_bare(const struct policy_ctx *ctx, struct policy_builder **out)
{
	return builder_new(ctx, false, out);
}

void policy_builder_free(struct policy_builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nrules; i++) {
		free(b->rules[i].value);
		free(b->rules[i].source);
	}
	free(b->rules);
	for (size_t i = 0; i < SC_COUNT; i++) {
		free(b->scalars[i].value);
		free(b->scalars[i].source);
	}
	for (size_t i = 0; i < b->nconfig; i++)
		free(b->config_files[i]);
	free(b->config_files);
	path_memo_free(&b->memo);
	free(b->home);
	free(b->cwd);
	free(b->session_dir);
	free(b->state_dir);
	free(b->config_dir);
	free(b->path_env);
	free(b->login_path);
	for (size_t i = 0; i < SBX_OWN_FILES; i++)
		free(b->own_files[i]);
	free(b);
}

static void workspace_of(const struct policy_builder *b, char *out, size_t outsz)
{
	const char *w = b->scalars[SC_WORKSPACE].value;

	if (!w || path_expand(w, b->home, b->cwd, out, outsz))
		snprintf(out, outsz, "%s", b->cwd);
}

const char *policy_builder_workspace(const struct policy_builder *b)
{
	static __thread char ws[PATH_MAX];

	workspace_of(b, ws, sizeof(ws));
	return ws;
}

/* ---- compile */

struct arena {
	char *buf;
	size_t len, cap;
};

/* Strings are appended to one buffer; offsets become pointers at the end,
 * after the last realloc. */
static long arena_put(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;

	if (a->len + n > a->cap) {
		size_t cap = a->cap ? a->cap : 4096;
		while (cap < a->len + n)
			cap *= 2;
		char *nb = realloc(a->buf, cap);
		if (!nb)
			return -1;
		a->buf = nb;
		a->cap = cap;
	}
	memcpy(a->buf + a->len, s, n);
	a->len += n;
	return (long)(a->len - n);
}

struct pending {
	enum sbx_rule_kind kind;
	enum sbx_origin origin;
	enum sbx_pat pat;
	long value, pattern, source;
	size_t prefix_len;
	bool is_dir, agent;
};

static bool is_path_kind(enum sbx_rule_kind k)
{
	return k == SBX_RULE_DENY_READ || k == SBX_RULE_ALLOW_READ ||
	       k == SBX_RULE_ALLOW_WRITE || k == SBX_RULE_DENY_WRITE ||
	       k == SBX_RULE_MANDATORY || k == SBX_RULE_ALLOW_UNIX_SOCKET ||
	       k == SBX_RULE_IGNORE_PATH;
}

static bool is_deny_kind(enum sbx_rule_kind k)
{
	return k == SBX_RULE_DENY_READ || k == SBX_RULE_DENY_WRITE ||
	       k == SBX_RULE_MANDATORY || k == SBX_RULE_IGNORE_PATH;
}

/* Turn a value into a matchable pattern. */
static int expand_rule(struct policy_builder *b, const char *ws,
		       enum sbx_rule_kind kind, const char *value,
		       char *out, size_t outsz, enum sbx_pat *pat,
		       size_t *prefix_len)
{
	char tmp[PATH_MAX];
	size_t len = strlen(value);
	const char *slash = memchr(value, '/', len);
	bool bare = !slash || (slash == value + len - 1 && len > 1);

	if (bare && is_deny_kind(kind) && value[0] != '~' && value[0] != '/') {
		/* `.env`, `*.pem`, `.vscode/`: at any depth, like .gitignore */
		snprintf(out, outsz, "%.*s", (int)(slash ? len - 1 : len), value);
		*pat = SBX_PAT_ANYWHERE;
		*prefix_len = 0;
		return 0;
	}
	if (value[0] == '*' && value[1] == '*' && value[2] == '/' &&
	    is_deny_kind(kind)) {
		/* `**` + `/x/y` is the any-depth form spelled out */
		char norm[PATH_MAX];
		snprintf(tmp, sizeof(tmp), "/%s", value + 3);
		if (path_normalize(tmp, norm, sizeof(norm)))
			return -ENAMETOOLONG;
		snprintf(out, outsz, "%s", norm + 1);
		*pat = SBX_PAT_ANYWHERE;
		*prefix_len = 0;
		return 0;
	}
	if (path_expand(value, b->home, ws, tmp, sizeof(tmp)))
		return -ENAMETOOLONG;
	if (!glob_has_magic(tmp)) {
		path_resolve_existing(tmp, out, outsz, &b->memo);
		*pat = SBX_PAT_PREFIX;
		*prefix_len = strlen(out);
		return 0;
	}
	/* Resolve the literal directories before the first wildcard. */
	size_t lead = strcspn(tmp, "*?");
	while (lead > 0 && tmp[lead - 1] != '/')
		lead--;
	char dir[PATH_MAX], real[PATH_MAX];
	snprintf(dir, sizeof(dir), "%.*s", (int)(lead > 1 ? lead - 1 : 1), tmp);
	path_resolve_existing(dir, real, sizeof(real), &b->memo);
	int n = strcmp(real, "/") == 0 ?
		snprintf(out, outsz, "/%s", tmp + lead) :
		snprintf(out, outsz, "%s/%s", real, tmp + lead);
	if (n < 0 || (size_t)n >= outsz)
		return -ENAMETOOLONG;
	*pat = SBX_PAT_GLOB;
	*prefix_len = strcspn(out, "*?");
	while (*prefix_len > 0 && out[*prefix_len - 1] != '/')
		(*prefix_len)--;
	return 0;
}

/* The rules on their way into the policy: their strings in one arena,
 * the rules in a growing array. */
struct pendings {
	struct arena a;
	struct pending *v;
	size_t n, cap;
};

/* A rule for the policy: its three strings into the arena, the rule onto
 * the list. -ENOMEM. */
static int push(struct pendings *ps, struct pending pr, const char *value, const char *pattern,
		const char *source)
{
	pr.value = arena_put(&ps->a, value);
	pr.pattern = arena_put(&ps->a, pattern);
	pr.source = arena_put(&ps->a, source);
	if (pr.value < 0 || pr.pattern < 0 || pr.source < 0)
		return -ENOMEM;
	if (ps->n == ps->cap) {
		size_t nc = ps->cap ? ps->cap * 2 : 64;
		struct pending *nv = realloc(ps->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		ps->v = nv;
		ps->cap = nc;
	}
	ps->v[ps->n++] = pr;
	return 0;
}

/* HOME's allow-list (home.c): `~/.*` and the visible rows of the table,
 * as rules of their own kind, which query.c applies only where HOME or a
 * root above it is what allows the write. A place the workspace (or
 * another writable root) lies in is not one: that root names it. */
static int add_home_kept(struct policy_builder *b, const struct policy *p, struct pendings *ps)
{
	char buf[PATH_MAX], v[PATH_MAX];

	if (!strcmp(p->home, "/"))
		return 0;
	for (size_t i = 0; i <= home_nrows; i++) {
		struct pending pr = { .kind = SBX_RULE_HOME_KEPT, .origin = SBX_ORIGIN_MANDATORY };
		if (i < home_nrows && !(home_rows[i].flags & HOME_VISIBLE))
			continue;
		snprintf(v, sizeof(v), "~/%s%s", i < home_nrows ? home_rows[i].where : ".*",
			 i < home_nrows ? "/" : "");
		if (expand_rule(b, p->workspace, SBX_RULE_DENY_WRITE, v, buf, sizeof(buf),
				&pr.pat, &pr.prefix_len))
			continue;
		pr.is_dir = i < home_nrows;
		if (push(ps, pr, v, buf, "HOME's allow-list"))
			return -ENOMEM;
	}
	/* a login shell's PATH under HOME, as its start-up files say */
	for (const char *s = b->login_path; s && *s; s += *s == ':') {
		struct pending pr = { .kind = SBX_RULE_HOME_KEPT, .origin = SBX_ORIGIN_MANDATORY };
		size_t n = strcspn(s, ":");
		char dir[PATH_MAX], norm[PATH_MAX];
		bool take = n && n < sizeof(dir) && s[0] == '/';
		if (take) {
			memcpy(dir, s, n);
			dir[n] = '\0';
		}
		s += n;
		if (!take || path_normalize(dir, norm, sizeof(norm)) || !sbx_path_under(norm, b->home) ||
		    !strcmp(norm, b->home))
			continue;
		sbx_path_tildify(norm, b->home, v, sizeof(v) - 1);
		strcat(v, "/");
		if (expand_rule(b, p->workspace, SBX_RULE_DENY_WRITE, v, buf, sizeof(buf),
				&pr.pat, &pr.prefix_len) || !sbx_path_under(buf, p->home) || !strcmp(buf, p->home))
			continue;
		pr.is_dir = true;
		if (push(ps, pr, v,
			 buf, "HOME's allow-list (on a login shell's PATH)"))
			return -ENOMEM;
	}
	return 0;
}

static int scalar_bool(const struct policy_builder *b, enum scalar_id id, bool dflt)
{
	bool v;
	const char *s = b->scalars[id].value;

	return s && parse_bool(s, &v) == 0 ? v : dflt;
}

bool policy_builder_enabled(const struct policy_builder *b)
{
	return scalar_bool(b, SC_ENABLED, true);
}

static uint64_t scalar_num(const struct policy_builder *b, enum scalar_id id,
			   bool size)
{
	uint64_t v = 0;
	const char *s = b->scalars[id].value;

	if (s && (size ? parse_size(s, &v) : parse_count(s, &v)))
		v = 0;
	return v;
}

/* The matcher's hash seed: a project's sandbox.ini cannot choose keys
 * that collide in a table it cannot foresee (match.c). */
static uint64_t match_seed(void)
{
	uint64_t seed;
	struct timespec ts;

#ifdef __linux__
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed))
		return seed;
#else
	if (getentropy(&seed, sizeof(seed)) == 0)
		return seed;
#endif
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() ^
	       (uint64_t)(uintptr_t)&ts;
}

/* The scalars: isolation, fallback, the report and limit settings, the
 * log's path, the session directory. 0, -EINVAL (said in err), -ENOMEM. */
static int compile_scalars(struct policy_builder *b, struct policy *p, struct sbx_err *err)
{
	char buf[PATH_MAX];

	const char *iso = b->scalars[SC_ISOLATION].value;
	p->isolation = !iso || !strcmp(iso, "workspace") ? SBX_ISOLATION_WORKSPACE :
		       !strcmp(iso, "strict") ? SBX_ISOLATION_STRICT :
		       SBX_ISOLATION_CUSTOM;
	const char *fb = b->scalars[SC_FALLBACK].value;
	p->fallback = fb && !strcmp(fb, "warn") ? SBX_FALLBACK_WARN : SBX_FALLBACK_ERROR;
	const char *home = b->scalars[SC_HOME].value;
	p->home_mode = home && !strcmp(home, "ephemeral") ? SBX_HOME_EPHEMERAL : SBX_HOME_REAL;
	const char *rs = b->scalars[SC_REPORT_STDERR].value;
	p->report_stderr = !rs || !strcmp(rs, "auto") ? SBX_REPORT_AUTO :
			   !strcmp(rs, "live") ? SBX_REPORT_LIVE :
			   !strcmp(rs, "end") ? SBX_REPORT_END : SBX_REPORT_OFF;
	p->tell_program = scalar_bool(b, SC_TELL_PROGRAM, false);
	p->claude_hook = scalar_bool(b, SC_CLAUDE_HOOK, false);
	p->nested = scalar_bool(b, SC_NESTED, false);
	p->enabled = scalar_bool(b, SC_ENABLED, true);
	p->local_binding = scalar_bool(b, SC_ALLOW_LOCAL_BINDING, true);
	p->all_unix = scalar_bool(b, SC_ALLOW_ALL_UNIX, false);
	p->http_port = (unsigned)scalar_num(b, SC_HTTP_PORT, false);
	p->socks_port = (unsigned)scalar_num(b, SC_SOCKS_PORT, false);
	p->limits[SBX_LIMIT_MEMORY] = scalar_num(b, SC_MEMORY, true);
	p->limits[SBX_LIMIT_PIDS] = scalar_num(b, SC_PIDS, false);
	p->limits[SBX_LIMIT_CPU_SECONDS] = scalar_num(b, SC_CPU_SECONDS, false);
	p->limits[SBX_LIMIT_NOFILE] = scalar_num(b, SC_NOFILE, false);
	if (b->scalars[SC_LOG].value) {
		if (path_expand(b->scalars[SC_LOG].value, b->home, b->cwd, buf, sizeof(buf))) {
			err_set(err, "%s: `log` path is too long", b->scalars[SC_LOG].source);
			return -EINVAL;
		}
		if (!(p->log = strdup(buf)))
			return -ENOMEM;
	}

	if (p->isolation == SBX_ISOLATION_STRICT) {
		if (!b->session_dir) {
			err_set(err, "isolation = strict needs a session directory");
			return -EINVAL;
		}
		if (!(p->session_dir = strdup(b->session_dir)))
			return -ENOMEM;
	}
	return 0;
}

/* What `isolation` means: the writable roots it derives (the workspace or
 * the session directory, and the workspace's git directories outside it). */
static int compile_roots(struct policy_builder *b, struct policy *p, struct pendings *ps)
{
	/* Derived writable roots come first: they are what `isolation` means. */
	const char *root = p->isolation == SBX_ISOLATION_WORKSPACE ? p->workspace :
			   p->isolation == SBX_ISOLATION_STRICT ? p->session_dir : NULL;
	/* A workspace of `/` (an MCP host starts its servers there) would make
	 * the whole machine writable: it is read-only instead, and the
	 * start-up line says how to choose one (docs/POLICY.md). */
	if (root && !strcmp(root, "/"))
		root = NULL;
	/* The workspace's git directory, when it lies outside the workspace
	 * (a subdirectory of a repository, a linked worktree): git must write
	 * its index, objects and refs to work there. Its hooks and config
	 * stay write-denied (mandatory), as everywhere. */
	char gitdirs[2][PATH_MAX];
	size_t ngit = p->isolation == SBX_ISOLATION_WORKSPACE && root ?
		      workspace_gitdirs(b, p->workspace, p->home, gitdirs) : 0;
	for (size_t i = 0; i < ngit; i++) {
		struct pending pr = { .kind = SBX_RULE_ALLOW_WRITE,
				      .origin = SBX_ORIGIN_ISOLATION,
				      .pat = SBX_PAT_PREFIX,
				      .prefix_len = strlen(gitdirs[i]) };
		if (push(ps, pr, "the workspace's git directory",
			 gitdirs[i], "isolation = workspace"))
			return -ENOMEM;
	}
	if (root) {
		struct pending pr = { .kind = SBX_RULE_ALLOW_WRITE,
				      .origin = SBX_ORIGIN_ISOLATION,
				      .pat = SBX_PAT_PREFIX,
				      .prefix_len = strlen(root) };
		char src[64];
		snprintf(src, sizeof(src), "isolation = %s", sbx_isolation_name(p->isolation));
		if (push(ps, pr,
			 p->isolation == SBX_ISOLATION_WORKSPACE ? "workspace" : "session directory",
			 root, src))
			return -ENOMEM;
	}
	return 0;
}

/* The rules of the files, the flags and the profiles, each expanded. */
static int compile_rules(struct policy_builder *b, struct policy *p, struct pendings *ps,
			 struct sbx_err *err)
{
	char buf[PATH_MAX];

	for (size_t i = 0; i < b->nrules; i++) {
		const struct raw_rule *r = &b->rules[i];
		struct pending pr = { .kind = r->kind, .origin = r->origin };

		if (is_path_kind(r->kind)) {
			if (expand_rule(b, p->workspace, r->kind, r->value, buf,
					sizeof(buf), &pr.pat, &pr.prefix_len)) {
				err_set(err, "%s: `%s` path `%s` is too long",
					r->source, sbx_rule_key(r->kind), r->value);
				return -EINVAL;
			}
		} else if (r->kind == SBX_RULE_SET_ENV) {
			/* NAME=VALUE, a VALUE starting with `~/` (or `~` alone)
			 * against HOME, as the paths are */
			const char *eq = strchr(r->value, '=');
			const char *v = eq ? eq + 1 : "";
			bool tilde = v[0] == '~' && (v[1] == '/' || !v[1]);
			if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(v - r->value), r->value,
				     tilde ? b->home : "", tilde ? v + 1 : v) >= (int)sizeof(buf)) {
				err_set(err, "%s: `set` value `%s` is too long", r->source, r->value);
				return -EINVAL;
			}
			pr.pat = SBX_PAT_GLOB;
		} else {
			/* domains and env names: lower-case domains, keep env names */
			snprintf(buf, sizeof(buf), "%s", r->value);
			bool as_is = r->kind == SBX_RULE_DENY_ENV || r->kind == SBX_RULE_KEEP_ENV ||
				     r->kind == SBX_RULE_PROFILE_ARG;
			if (!as_is)
				for (char *c = buf; *c; c++)
					*c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
			size_t l = strlen(buf);
			if (!as_is && l > 1 && buf[l - 1] == '.')
				buf[l - 1] = '\0';
			pr.pat = SBX_PAT_GLOB;
			if (r->kind == SBX_RULE_ALLOW_DOMAIN && !strcmp(buf, "*"))
				p->network_open = true;
		}
		pr.is_dir = r->value[0] && r->value[strlen(r->value) - 1] == '/';
		if (push(ps, pr, r->value, buf, r->source))
			return -ENOMEM;
	}
	return 0;
}

/* The mandatory denies no setting lifts. */
static int compile_mandatory(struct policy_builder *b, struct policy *p, struct pendings *ps)
{
	char buf[PATH_MAX];

	/* Mandatory denies: the executes-later table (its rows at any depth
	 * first, then HOME's and the absolute ones), sbx's own directories
	 * where the context puts them elsewhere, then every config file that
	 * was read and the workspace's own sandbox.ini (which may not exist
	 * yet). */
	enum { NOWN = 2 + SBX_OWN_FILES };
	size_t nt = execlater_nrows, np = NOWN;
	const char *own[NOWN] = { b->state_dir, b->config_dir };
	for (size_t i = 0; i < SBX_OWN_FILES; i++)
		own[2 + i] = b->own_files[i];
	/* the rows at any depth first, then the rest: the first match names
	 * the rule, and a name at any depth is the likelier one to be met */
	size_t *ord = calloc(nt, sizeof(*ord)), no = 0;
	if (!ord)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++)
		for (size_t j = 0; j < nt; j++)
			if (execlater_anywhere(&execlater_rows[j]) == !pass)
				ord[no++] = j;
	for (size_t i = 0; i < nt + np + b->nconfig + 1; i++) {
		struct pending pr = { .kind = SBX_RULE_MANDATORY,
				      .origin = SBX_ORIGIN_MANDATORY };
		char wsini[PATH_MAX + 16], any[128], dirv[PATH_MAX + 2];
		const char *v, *shown = NULL;

		if (i < nt) {
			const struct execlater_row *row = &execlater_rows[ord[i]];
			if (execlater_anywhere(row)) {
				snprintf(any, sizeof(any), "**/%s", row->pattern);
				v = any;
				shown = row->pattern;
			} else {
				v = row->pattern;
			}
			pr.agent = row->agent;
		} else if (i < nt + np) {
			size_t k = i - nt;
			const char *d = own[k];
			if (!d || d[0] != '/')
				continue;
			if (k < 2) {
				/* a directory, written as the person would, with its `/` */
				sbx_path_tildify(d, b->home, dirv, sizeof(dirv) - 1);
				strcat(dirv, "/");
				bool dup = false;
				for (size_t j = 0; j < nt; j++)
					dup |= !strcmp(dirv, execlater_rows[j].pattern);
				if (dup)
					continue;
				v = dirv;
			} else {
				v = d; /* a program of sbx's: the file itself */
			}
		} else if (i < nt + np + b->nconfig) {
			v = b->config_files[i - nt - np];
		} else {
			snprintf(wsini, sizeof(wsini), "%s/sandbox.ini", p->workspace);
			v = wsini;
		}
		if (expand_rule(b, p->workspace, SBX_RULE_MANDATORY, v, buf,
				sizeof(buf), &pr.pat, &pr.prefix_len))
			continue;
		pr.is_dir = v[strlen(v) - 1] == '/';
		if (push(ps, pr, shown ? shown : v, buf, "mandatory")) {
			free(ord);
			return -ENOMEM;
		}
	}
	free(ord);
	return 0;
}

/* The tables' `~/.config/` names where $XDG_CONFIG_HOME puts them. */
static int compile_config_home(struct policy_builder *b, struct policy *p, struct pendings *ps)
{
	char buf[PATH_MAX];

	/* Programs that follow XDG read their configuration from
	 * $XDG_CONFIG_HOME when it is set (git from $XDG_CONFIG_HOME/git/config,
	 * not ~/.config/git/config): the table's `~/.config/` names are
	 * protected there too. main.c puts sbx's configuration directory at
	 * $XDG_CONFIG_HOME/sbx then, which is how this knows. */
	if (config_home(b, buf, sizeof(buf)) && !(p->config_home = strdup(buf)))
		return -ENOMEM;
	for (size_t i = 0; p->config_home && i < execlater_nrows; i++) {
		struct pending pr = { .kind = SBX_RULE_MANDATORY, .origin = SBX_ORIGIN_MANDATORY };
		const char *m = execlater_rows[i].pattern;
		char v[PATH_MAX + 64], shown[PATH_MAX + 64], pat[PATH_MAX];

		if (strncmp(m, "~/.config/", 10) || !strcmp(m, "~/.config/sbx/"))
			continue;
		if (snprintf(v, sizeof(v), "%s/%s", p->config_home, m + 10) >= (int)sizeof(v) ||
		    expand_rule(b, p->workspace, SBX_RULE_MANDATORY, v, pat, sizeof(pat),
				&pr.pat, &pr.prefix_len))
			continue;
		sbx_path_tildify(v, b->home, shown, sizeof(shown));
		pr.is_dir = m[strlen(m) - 1] == '/';
		if (push(ps, pr, shown, pat, "mandatory"))
			return -ENOMEM;
	}

	/* ... and so are the credential table's: gh, hub, glab, rclone, git's
	 * credential store keep their logins at $XDG_CONFIG_HOME/NAME when it
	 * is set */
	for (size_t i = 0; p->config_home && i < sbx_ncredentials; i++) {
		struct pending pr = { .kind = SBX_RULE_DENY_READ, .origin = SBX_ORIGIN_DEFAULT };
		const char *c = sbx_credentials[i].path;
		char v[PATH_MAX + 64], shown[PATH_MAX + 64], pat[PATH_MAX];

		if (strncmp(c, "~/.config/", 10))
			continue;
		if (snprintf(v, sizeof(v), "%s/%s", p->config_home, c + 10) >= (int)sizeof(v) ||
		    expand_rule(b, p->workspace, SBX_RULE_DENY_READ, v, pat, sizeof(pat),
				&pr.pat, &pr.prefix_len))
			continue;
		sbx_path_tildify(v, b->home, shown, sizeof(shown));
		if (push(ps, pr, shown, pat, "default"))
			return -ENOMEM;
	}
	return 0;
}

/* The caller's PATH directories under HOME. */
static int compile_path_dirs(struct policy_builder *b, struct policy *p, struct pendings *ps)
{
	char buf[PATH_MAX];

	/* The directories on the caller's PATH under HOME (`~/go/bin`,
	 * `~/.npm-global/bin`): a `git` put there runs instead of the
	 * system's in the user's next shell. Not HOME itself (that would
	 * close all of it), nor one in a workspace below HOME
	 * (`node_modules/.bin`, a project's `bin/` the user put on PATH: the
	 * program's to write). */
	bool home_in_ws = sbx_path_under(p->home, p->workspace);
	for (const char *s = b->path_env; s && *s; s += *s == ':') {
		size_t n = strcspn(s, ":");
		char dir[PATH_MAX], norm[PATH_MAX], v[PATH_MAX + 2];
		struct pending pr = { .kind = SBX_RULE_MANDATORY, .origin = SBX_ORIGIN_MANDATORY };
		bool take = n && n < sizeof(dir) && s[0] == '/';

		if (take) {
			memcpy(dir, s, n);
			dir[n] = '\0';
		}
		s += n;
		if (!take || path_normalize(dir, norm, sizeof(norm)) ||
		    !(sbx_path_under(norm, b->home) || sbx_path_under(norm, p->home)) || !strcmp(norm, b->home) ||
		    !strcmp(norm, p->home) || (sbx_path_under(norm, p->workspace) && !home_in_ws))
			continue;
		sbx_path_tildify(norm, b->home, v, sizeof(v) - 1);
		strcat(v, "/");
		if (expand_rule(b, p->workspace, SBX_RULE_MANDATORY, v, buf, sizeof(buf),
				&pr.pat, &pr.prefix_len) || (sbx_path_under(buf, p->workspace) && !home_in_ws))
			continue;
		pr.is_dir = true;
		if (push(ps, pr, v, buf, "mandatory (on PATH)"))
			return -ENOMEM;
	}
	return 0;
}

/* The rules into the policy's own storage, indexed by kind, and the
 * compiled matcher over them. */
static int compile_finish(struct policy *p, struct pendings *ps)
{
	/* `allow_domains = *` opens the host's network only when no
	 * deny_domains rule needs holding: the boundary can hold one only
	 * with the filtering proxy, so until then the network stays off
	 * (and sbx says so) rather than the deny being the shim's alone. */
	for (size_t i = 0; i < ps->n && p->network_open; i++)
		if (ps->v[i].kind == SBX_RULE_DENY_DOMAIN)
			p->network_open = false;
	p->storage = calloc(ps->n ? ps->n : 1, sizeof(*p->storage));
	if (!p->storage)
		return -ENOMEM;
	p->strings = ps->a.buf;
	ps->a.buf = NULL;
	p->nstorage = ps->n;
	for (size_t i = 0; i < ps->n; i++) {
		struct sbx_rule *r = &p->storage[i];
		r->kind = ps->v[i].kind;
		r->origin = ps->v[i].origin;
		r->pat = ps->v[i].pat;
		r->value = p->strings + ps->v[i].value;
		r->pattern = p->strings + ps->v[i].pattern;
		r->source = p->strings + ps->v[i].source;
		r->prefix_len = ps->v[i].prefix_len;
		r->is_dir = ps->v[i].is_dir;
		r->agent = ps->v[i].agent;
		p->nby_kind[r->kind]++;
	}
	/* one array of every rule, kind by kind, as the matcher indexes them */
	const struct sbx_rule **flat = calloc(ps->n ? ps->n : 1, sizeof(*flat));
	if (!flat)
		return -ENOMEM;
	for (int k = 0, at = 0; k < SBX_RULE_KIND_COUNT; k++) {
		p->by_kind[k] = flat + at;
		at += (int)p->nby_kind[k];
		p->nby_kind[k] = 0;
	}
	for (size_t i = 0; i < ps->n; i++) {
		struct sbx_rule *r = &p->storage[i];
		p->by_kind[r->kind][p->nby_kind[r->kind]++] = r;
	}
	if (!(p->match_mem = malloc(match_size(ps->n))))
		return -ENOMEM;
	match_build(&p->match, p->match_mem, flat, p->nby_kind, match_seed());
	return 0;
}

int policy_compile(struct policy_builder *b, struct policy **out, struct sbx_err *err)
{
	struct policy *p = calloc(1, sizeof(*p));
	struct pendings ps = { 0 };
	char ws[PATH_MAX], wsreal[PATH_MAX], buf[PATH_MAX];
	int rc = -ENOMEM;

	if (!p)
		goto fail;
	if (b->bare) {
		err_set(err, "internal error: a builder without the defaults is never compiled");
		rc = -EINVAL;
		goto fail;
	}
	workspace_of(b, ws, sizeof(ws));
	path_resolve_existing(ws, wsreal, sizeof(wsreal), &b->memo);
	p->workspace = strdup(wsreal);
	/* resolved like the workspace and every rule path: reports, the plan
	 * and `~` in messages all meet HOME as the kernel sees it */
	path_resolve_existing(b->home, buf, sizeof(buf), &b->memo);
	p->home = strdup(buf);
	p->home_given = strdup(b->home);
	if (!p->workspace || !p->home || !p->home_given)
		goto fail;
	if ((rc = compile_scalars(b, p, err)) || (rc = preset_check(b, p, err)) ||
	    (rc = compile_roots(b, p, &ps)) ||
	    (rc = compile_rules(b, p, &ps, err)) || (rc = compile_mandatory(b, p, &ps)) ||
	    (rc = compile_config_home(b, p, &ps)) || (rc = compile_path_dirs(b, p, &ps)) ||
	    (rc = add_home_kept(b, p, &ps)) || (rc = compile_finish(p, &ps)))
		goto fail;
	free(ps.v);
	policy_builder_free(b);
	*out = p;
	return 0;
fail:
	if (rc == -ENOMEM)
		err_set(err, "out of memory while compiling the policy");
	free(ps.v);
	free(ps.a.buf);
	policy_free(p);
	policy_builder_free(b);
	return rc;
}

void policy_free(struct policy *p)
{
	if (!p)
		return;
	free(p->by_kind[0]); /* the one array (policy_compile) */
	free(p->match_mem);
	free(p->storage);
	free(p->strings);
	free(p->workspace);
	free(p->home);
	free(p->home_given);
	free(p->session_dir);
	free(p->config_home);
	free(p->log);
	free(p);
}
