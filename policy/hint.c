/* policy/hint.c: a refusal in words — the rule that decided, where it came
 * from, and the flag that would allow it.
 *
 * One text for both places a refusal is told: the supervisor's report line
 * (preload/reports.c) and the shim's line to the refused program itself
 * (`[report] tell_program`, shim/tell.c). Both link this file, so an agent
 * reading its tool's output and the person reading sbx's line are offered
 * the same fix. No allocation; the one look at the disk a hint needs goes
 * through the caller's function (the supervisor looks on the host through
 * held directories, the shim inside the sandbox with raw system calls).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"

static size_t depth(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		d += *p == '/' && p[1];
	return d;
}

bool sbx_path_foldable(const char *dir, const char *home)
{
	if (sbx_path_under(dir, home))
		return depth(dir) > depth(home);
	return !sbx_path_under(home, dir) && depth(dir) >= 2;
}

/* ---- text: strict UTF-8, no control characters */

unsigned sbx_utf8_next(const char *str, size_t *len)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c = s[0], cp, need, lo = 0x80, hi = 0xbf;

	if (c < 0x80) {
		*len = c ? 1 : 0;
		return c;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		cp = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0; /* shorter forms are overlong */
		else if (c == 0xed)
			hi = 0x9f; /* U+D800-U+DFFF are surrogates, not characters */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		cp = c & 0x07;
		if (c == 0xf0)
			lo = 0x90; /* overlong */
		else if (c == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else {
		*len = 1; /* a continuation byte alone, C0/C1 (overlong), F5-FF */
		return 0xfffd;
	}
	for (unsigned i = 1; i <= need; i++) {
		unsigned b = s[i];
		if (b < lo || b > hi) {
			*len = i; /* the maximal ill-formed part: one U+FFFD */
			return 0xfffd;
		}
		cp = cp << 6 | (b & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*len = need + 1;
	return cp;
}

/* Bidirectional formatting characters: a name holding U+202E shows its
 * end first, and a line can be made to read as something else. */
bool sbx_bidi_control(unsigned cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* C0, DEL and C1: U+009B is CSI, which terminals act on in its UTF-8 form
 * (C2 9B) as well. */
bool sbx_control(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

size_t sbx_printable(const char *s, char *out, size_t outsz, bool backslash)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, n;

	if (!outsz)
		return 0;
	/* byte by byte, no memcpy() per character: under a flood this runs
	 * on every 4 KiB target (musl's memcpy is a call) */
	for (const char *p = s; *p; p += n) {
		unsigned cp = sbx_utf8_next(p, &n);

		if (sbx_control(cp) || sbx_bidi_control(cp)) {
			/* \xNN for C0 and DEL, \uNNNN for the rest */
			char unit[8];
			int u = 0;
			unit[u++] = '\\';
			if (cp < 0x20 || cp == 0x7f) {
				unit[u++] = 'x';
			} else {
				unit[u++] = 'u';
				unit[u++] = hex[(cp >> 12) & 15];
				unit[u++] = hex[(cp >> 8) & 15];
			}
			unit[u++] = hex[(cp >> 4) & 15];
			unit[u++] = hex[cp & 15];
			if (o + (size_t)u >= outsz)
				break;
			for (int i = 0; i < u; i++)
				out[o++] = unit[i];
		} else if (cp == '\\' && backslash) {
			if (o + 2 >= outsz)
				break;
			out[o++] = '\\';
			out[o++] = '\\';
		} else if (cp == 0xfffd) {
			/* also for ill-formed bytes, however many */
			if (o + 3 >= outsz)
				break;
			out[o++] = (char)0xef;
			out[o++] = (char)0xbf;
			out[o++] = (char)0xbd;
		} else {
			if (o + n >= outsz)
				break; /* cut between characters, never inside one */
			for (size_t i = 0; i < n; i++)
				out[o++] = p[i];
		}
	}
	out[o] = '\0';
	return o;
}

void sbx_shell_word(const char *in, char *out, size_t outsz)
{
	const char *rest = in;
	size_t o = 0;

	if (!in[strspn(in, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		       "0123456789_./~+-:@%,=")]) {
		snprintf(out, outsz, "%s", in);
		return;
	}
	if (outsz < 8) {
		out[0] = '\0';
		return;
	}
	if (!strncmp(in, "~/", 2)) {
		memcpy(out, "~/", 2);
		o = 2;
		rest = in + 2;
	}
	out[o++] = '\'';
	for (const char *c = rest; *c && o + 6 < outsz; c++) {
		if (*c == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = *c;
		}
	}
	out[o++] = '\'';
	out[o] = '\0';
}

/* ---- the rule */

const char *policy_rule_note(const struct sbx_rule *r)
{
	switch (r->origin) {
	case SBX_ORIGIN_MANDATORY:
		if (r->kind == SBX_RULE_HOME_KEPT)
			return "HOME is writable, its hidden entries and the places a later "
			       "program runs from are not, unless an allow_write names them";
		return "built in; no setting lifts it";
	case SBX_ORIGIN_DEFAULT:
		/* deny wins over allow for writes: a default deny_write stays */
		return r->kind == SBX_RULE_DENY_WRITE ? "built-in default; no setting lifts it" :
		       "built-in default";
	default: return r->source;
	}
}

void policy_rule_text(const struct sbx_rule *r, char *out, size_t outsz)
{
	if (r->kind == SBX_RULE_HOME_KEPT) {
		snprintf(out, outsz, "%s kept read-only", r->value);
		return;
	}
	snprintf(out, outsz, "%s = %s",
		 r->kind == SBX_RULE_MANDATORY ? "deny_write" : sbx_rule_key(r->kind), r->value);
}

/* ---- the fix */

/* What is at the path, for a hint: 1 there, 0 not, -1 not to be told. The
 * path may come from the program (the report stream, its own call): a hint
 * never looks in /proc, /sys or /dev, nor where the program may not read —
 * it would tell what is there — and the caller's look never goes through a
 * link (allowing one would open wherever it points). */
static int look(const struct policy *p, const char *path, sbx_look_fn fn, void *ctx)
{
	static const char *const hidden[] = { "/proc", "/sys", "/dev" };

	for (size_t i = 0; i < sizeof(hidden) / sizeof(*hidden); i++)
		if (sbx_path_under(path, hidden[i]))
			return -1;
	if (policy_check_path(p, SBX_OP_READ, path, NULL) == SBX_DENY)
		return -1;
	return fn(ctx, path);
}

/* May a hint name the whole directory? Never `/`, HOME or a top-level
 * directory: allowing one of them is never the narrow fix a hint is. */
static bool too_wide(const char *path, const char *home)
{
	return !strcmp(path, "/") || !strcmp(path, home) || !sbx_path_foldable(path, home);
}

/* A package manager's store of fetched data under HOME, as a whole: npm
 * refused one file in _cacache/tmp goes on to _cacache/index-v5, so
 * naming the directory of the first file only leads to the next refusal.
 * Only stores whose content the tool checks against a digest before use
 * (npm's content-addressed cache, cargo's index and .crate files, Go's
 * module download cache): never a whole tool directory, where a program
 * could leave what the host runs later unchecked (~/.npm/_npx,
 * ~/.cargo/registry/src, ~/.cache/NAME's tools). */
static const char *const tool_roots[] = {
	".npm/_cacache", ".cargo/registry/index", ".cargo/registry/cache",
	"go/pkg/mod/cache/download",
};

/* The length of the store `dir` is in (or is), 0 if none: `dir` is
 * HOME's `home_len` bytes, a `/` and the rest. */
static size_t tool_root_len(const char *dir, size_t home_len)
{
	const char *rel = dir + home_len + 1;

	for (size_t i = 0; i < sizeof(tool_roots) / sizeof(*tool_roots); i++) {
		size_t n = strlen(tool_roots[i]);
		if (!strncmp(rel, tool_roots[i], n) && (rel[n] == '/' || !rel[n]))
			return home_len + 1 + n;
	}
	return 0;
}

/* `dir` (a hint's directory) widened to the tool root it is in, when that
 * root exists and may be opened whole. */
static void widen_to_tool_root(const struct policy *p, char *dir, sbx_look_fn fn, void *ctx)
{
	const char *home = policy_home(p);
	size_t hl = strlen(home), n;
	char root[PATH_MAX];

	if (!sbx_path_under(dir, home) || !dir[hl] || !(n = tool_root_len(dir, hl)) || !dir[n])
		return;
	memcpy(root, dir, n);
	root[n] = '\0';
	if (!too_wide(root, home) && look(p, root, fn, ctx) == 1)
		memcpy(dir, root, n + 1);
}

/* Is `dir` a git directory (a bare repository, or a `.git`)? What git
 * itself looks for: HEAD, objects/ and refs/. */
static bool git_dir_at(const struct policy *p, const char *dir, sbx_look_fn fn, void *ctx)
{
	static const char *const parts[] = { "HEAD", "objects", "refs" };
	char probe[PATH_MAX];

	for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++) {
		int n = snprintf(probe, sizeof(probe), "%s/%s", dir, parts[i]);
		if (n < 0 || (size_t)n >= sizeof(probe) || look(p, probe, fn, ctx) != 1)
			return false;
	}
	return true;
}

/* `dir` (a hint's directory) widened to the git directory it is in: a
 * push to a bare repository outside writes objects/incoming-*, then
 * refs/heads/NAME.lock, then logs/, and naming the first directory only
 * leads to the next refusal. At most a few levels up, never to HOME or a
 * top-level directory. */
static void widen_to_git_dir(const struct policy *p, char *dir, sbx_look_fn fn, void *ctx)
{
	const char *home = policy_home(p);
	char a[PATH_MAX];

	snprintf(a, sizeof(a), "%s", dir);
	for (int up = 0; up < 6 && !too_wide(a, home); up++) {
		if (git_dir_at(p, a, fn, ctx)) {
			memcpy(dir, a, strlen(a) + 1); /* a prefix of dir: it fits */
			return;
		}
		char *slash = strrchr(a, '/');
		if (!slash || slash == a)
			return;
		*slash = '\0';
	}
}

/* The --allow-write that works as printed for a write refused outside the
 * writable roots: only a path that exists when the sandbox starts can be
 * made writable, or a directory named with a trailing `/`, which sbx
 * creates. The target's directory when it exists and may be opened whole
 * (not HOME, not a top-level directory); else the target when it exists;
 * else, for a new name, its nearest existing ancestor when that may be
 * opened whole, or the first missing directory on the way with a `/`; a
 * directory being made (the shim's trailing `/`) right in HOME or a
 * top-level directory, itself with a `/`. A new file right in HOME, `/`
 * or a top-level directory: the file itself, with *later set — it must
 * exist first (nothing narrower than the whole directory lets a new name
 * be made there, and that is never suggested). Empty: no hint (the target
 * is `/`, HOME or a top-level directory itself). */
static void write_fix(const struct policy *p, const char *target, bool made_dir,
		      sbx_look_fn fn, void *ctx, char *out, size_t outsz, bool *later)
{
	const char *home = policy_home(p);
	char dir[PATH_MAX], child[PATH_MAX];
	int at_target, at_dir;

	*later = false;
	out[0] = '\0';
	if (too_wide(target, home) && (!made_dir || !strcmp(target, "/") ||
				       !strcmp(target, home)))
		return;
	snprintf(dir, sizeof(dir), "%s", target);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	else if (slash)
		dir[1] = '\0';
	if ((at_target = look(p, target, fn, ctx)) < 0 || (at_dir = look(p, dir, fn, ctx)) < 0)
		return;
	if (at_target) {
		snprintf(out, outsz, "%s", !too_wide(dir, home) && at_dir ? dir : target);
		widen_to_git_dir(p, out, fn, ctx);
		widen_to_tool_root(p, out, fn, ctx);
		return;
	}
	if (made_dir && too_wide(dir, home) && at_dir && strlen(target) + 2 <= outsz) {
		size_t l = strlen(target); /* mkdir: the directory itself, made by sbx */
		memcpy(out, target, l);
		memcpy(out + l, "/", 2);
		return;
	}
	/* walk up to what exists, remembering the first missing directory */
	snprintf(child, sizeof(child), "%s", target);
	while (!at_dir && strcmp(dir, "/")) {
		snprintf(child, sizeof(child), "%s", dir);
		slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		if ((at_dir = look(p, dir, fn, ctx)) < 0)
			return;
	}
	if (!too_wide(dir, home)) {
		snprintf(out, outsz, "%s", dir);
		widen_to_git_dir(p, out, fn, ctx);
		widen_to_tool_root(p, out, fn, ctx);
	} else if ((strcmp(child, target) || made_dir) && strlen(child) + 2 <= outsz) {
		size_t l = strlen(child); /* with a `/`: sbx makes it */
		memcpy(out, child, l);
		memcpy(out + l, "/", 2);
	} else {
		snprintf(out, outsz, "%s", target);
		*later = true;
	}
}

/* The row of HOME's table (home.c) a write fix for `target` would open,
 * when that row is never offered: the fix's directory lies in one or
 * holds one (`~/.local/share` holds pnpm's home), or the target lies in
 * one. -1: none. */
struct look_ctx {
	const struct policy *p;
	sbx_look_fn fn;
	void *ctx;
};

static int look_at(void *c, const char *path)
{
	const struct look_ctx *l = c;

	return look(l->p, path, l->fn, l->ctx);
}

static int never_row(const struct policy *p, const char *target, const char *fixdir,
		     sbx_look_fn fn, void *ctx, char *where, size_t wsz, bool *above)
{
	struct look_ctx l = { p, fn, ctx };
	unsigned flags = 0;
	int row;

	*above = false;
	if (fixdir[0] && (row = policy_home_row(p, fixdir, false, where, wsz, &flags)) >= 0 &&
	    (flags & SBX_HOME_ROW_NEVER))
		return row;
	if (fixdir[0] && (row = policy_home_holds(p, fixdir, look_at, &l, where, wsz)) >= 0) {
		*above = true;
		return row;
	}
	if ((row = policy_home_row(p, target, false, where, wsz, &flags)) >= 0 &&
	    (flags & SBX_HOME_ROW_NEVER))
		return row;
	return -1;
}

/* Is a write refused for `why` one a --allow-write may lift: outside the
 * writable paths, or HOME's allow-list (an allow_write naming the place
 * lifts it)? */
static bool write_fixable(enum sbx_op op, const struct sbx_rule *why)
{
	return op == SBX_OP_WRITE && (!why || why->kind == SBX_RULE_HOME_KEPT);
}

void policy_hint_runs_later(const struct policy *p, enum sbx_op op, const char *target,
			    bool made_dir, const struct sbx_rule *why, sbx_look_fn fn,
			    void *ctx, char *out, size_t outsz)
{
	char dir[PATH_MAX], where[PATH_MAX], up[PATH_MAX], shown[PATH_MAX * 2 + 512];
	bool later, above;
	int row;

	out[0] = '\0';
	if (!write_fixable(op, why))
		return;
	write_fix(p, target, made_dir, fn, ctx, dir, sizeof(dir), &later);
	if ((row = never_row(p, target, dir, fn, ctx, where, sizeof(where), &above)) < 0 &&
	    (!dir[0] || (row = policy_home_row(p, dir, false, where, sizeof(where), NULL)) < 0) &&
	    (row = policy_home_row(p, target, false, where, sizeof(where), NULL)) < 0)
		return;
	policy_tildify(p, dir, up, sizeof(up));
	snprintf(shown, sizeof(shown), "%s%s%s: %s", above ? up : "", above ? " holds " : "",
		 where, policy_home_row_what(row));
	sbx_printable(shown, out, outsz, true);
}

/* A new name that stands for an existing file beside it: `.viminfo.tmp`
 * (vim), `.claude.json.tmp.4121.9f3` (Claude Code), `notes.txt.new`,
 * `notes.txt~`. Programs that replace a file whole write such a name and
 * rename it over the file. The file's path into `out` when it is there
 * (fn says), else "". */
static void replaced_by_rename(const struct policy *p, const char *target, sbx_look_fn fn,
			       void *ctx, char *out, size_t outsz)
{
	static const char *const marks[] = { ".tmp", ".new", "~" };
	const char *base = strrchr(target, '/');
	size_t cut = 0;

	out[0] = '\0';
	if (!base || !base[1])
		return;
	base++;
	for (size_t i = 0; i < sizeof(marks) / sizeof(*marks) && !cut; i++) {
		const char *m = strstr(base + 1, marks[i]); /* a name, not a mark alone */
		size_t ml = strlen(marks[i]);
		/* the mark ends the name, or a `.` follows it (.tmp.PID.HEX) */
		for (; m && !cut; m = strstr(m + 1, marks[i]))
			if (!m[ml] || (m[ml] == '.' && marks[i][0] == '.'))
				cut = (size_t)(m - target);
	}
	if (!cut || cut >= outsz)
		return;
	memcpy(out, target, cut);
	out[cut] = '\0';
	if (look(p, out, fn, ctx) != 1)
		out[0] = '\0';
}

void policy_hint_renames(const struct policy *p, enum sbx_op op, const char *target,
			 bool made_dir, const struct sbx_rule *why, sbx_look_fn fn, void *ctx,
			 char *out, size_t outsz)
{
	char dir[PATH_MAX], file[PATH_MAX];
	bool later;

	out[0] = '\0';
	if (!write_fixable(op, why) || made_dir)
		return;
	write_fix(p, target, made_dir, fn, ctx, dir, sizeof(dir), &later);
	if (!later)
		return;
	replaced_by_rename(p, target, fn, ctx, file, sizeof(file));
	if (file[0])
		policy_tildify(p, file, out, outsz);
}

void policy_hint_fix(const struct policy *p, enum sbx_op op, const char *target,
		     bool made_dir, const struct sbx_rule *why, sbx_look_fn fn, void *ctx,
		     char *out, size_t outsz)
{
	char tmp[PATH_MAX], shown[PATH_MAX], word[PATH_MAX], dir[PATH_MAX];
	int n = -1;

	out[0] = '\0';
	if (why && why->kind == SBX_RULE_DENY_READ) {
		policy_tildify(p, target, tmp, sizeof(tmp));
		if (made_dir && strlen(tmp) + 2 <= sizeof(tmp))
			strcat(tmp, "/");
		sbx_printable(tmp, shown, sizeof(shown), true);
		sbx_shell_word(shown, word, sizeof(word));
		n = snprintf(out, outsz, "--allow-read %s", word);
	} else if (write_fixable(op, why)) {
		bool later;
		write_fix(p, target, made_dir, fn, ctx, dir, sizeof(dir), &later);
		/* never a place a later program runs from: what it is is
		 * said instead (policy_hint_runs_later) */
		bool above;
		if (!dir[0] || never_row(p, target, dir, fn, ctx, tmp, sizeof(tmp), &above) >= 0)
			return;
		/* a new name a program renames over the file beside it: the
		 * file allowed once it exists would not let the name be made,
		 * nor the rename: no hint that fails (policy_hint_renames) */
		if (later) {
			replaced_by_rename(p, target, fn, ctx, tmp, sizeof(tmp));
			if (tmp[0])
				return;
		}
		policy_tildify(p, dir, tmp, sizeof(tmp));
		sbx_printable(tmp, shown, sizeof(shown), true);
		sbx_shell_word(shown, word, sizeof(word));
		n = snprintf(out, outsz, "--allow-write %s%s", word,
			     later ? " once the file exists (sbx creates only "
				     "directories, named with a trailing /)" : "");
	} else {
		return;
	}
	if (n < 0 || (size_t)n >= outsz)
		out[0] = '\0'; /* a cut hint would not work */
}
