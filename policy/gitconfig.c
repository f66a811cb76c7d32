/* policy/gitconfig.c: git's config files, read as git reads them, and the
 * keys in them that make a later git run a program or load another file.
 *
 * Why: a repository's config (`.git/config`, a submodule's, a linked
 * worktree's config.worktree) and a work tree's `.gitmodules` are
 * executes-later files (execlater.c): git on the host reads them at its
 * next start, and `core.fsmonitor = CMD` runs CMD there. Yet most of what
 * git writes into them is harmless and everyday (`git config user.email`,
 * `git remote add`, `git branch --set-upstream-to`, `git submodule
 * init`). So the notify layer lets a new version of such a file replace
 * the old one when the two differ only in keys that can do neither
 * (docs/POLICY.md, "Git's config files"), and this file decides that.
 *
 * The parser follows git's own (config.c, git_parse_source() and its
 * helpers, read in git 2.39): a UTF-8 BOM skipped; `#`/`;` comments;
 * `[section]`, `[section "subsection"]` (the subsection as written, `\"`
 * and `\\` escaped, any other backslash dropped), and the old `[section.
 * subsection]` (lowercased); a key may follow `]` on the same line; key
 * names of letters, digits and `-`, lowercased; a value with `"` quoting,
 * the escapes \n \t \b \\ \" and a backslash-newline continuation, any
 * other escape an error; whitespace runs outside quotes kept as that many
 * spaces, trailing ones dropped; CRLF as LF. What git would refuse to read
 * is an error here too (git then refuses to run at all), so no file is
 * read one way here and another way by git. A NUL byte is refused (git
 * reads up to it and stops without an error on some paths).
 *
 * The keys are a table of patterns with what each one does, kept as the
 * explanation of the principle: a key whose value names a program to run,
 * a file to load, or a place git writes. The principle itself is the last row: a
 * section git does not document belongs to some other tool (git-lfs,
 * git-annex...), which may run what it says; a change there is refused
 * too, so a key missing from the table fails closed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/internal.h"

/* More than any real config; a bigger one is refused, not parsed. */
#define GITCFG_MAX_BYTES (1u << 20)
#define GITCFG_MAX_ENTRIES 65536u

struct gitcfg_entry {
	char *key;   /* canonical: section and name lowercased, subsection as written */
	char *value; /* NULL: the key alone (boolean true) */
	unsigned line;
};

struct gitcfg {
	struct gitcfg_entry *v;
	size_t n, cap;
};

/* Patterns: "section" (every key of it), "section.name" (no subsection),
 * "section.*.name" (any subsection). Compared without regard to case in
 * the section and name, as git does. `does` completes "KEY would ...". */
const struct gitcfg_row gitcfg_rows[] = {
	{ "core.fsmonitor", "run a program", "git status, add, commit, checkout: the fsmonitor hook" },
	{ "core.hooksPath", "run a program", "every git command that runs hooks: the directory they come from" },
	{ "core.sshCommand", "run a program", "fetch, push, clone over ssh" },
	{ "core.gitProxy", "run a program", "git:// fetches" },
	{ "core.pager", "run a program", "every command that pages (log, diff, show)" },
	{ "core.editor", "run a program", "commit, rebase -i, tag -a" },
	{ "core.askPass", "run a program", "any prompt for a password" },
	{ "core.alternateRefsCommand", "run a program", "fetch and receive-pack with alternates" },
	{ "core.worktree", "make git write elsewhere",
	  "checkout, reset, stash write the work tree there: a directory of the sandbox's now may be a link to HOME later" },
	{ "core.bare", "run a program",
	  "fetch and every hook: bare, git runs from where it is started, so a relative core.hooksPath names a directory the sandbox may make" },
	{ "core.excludesFile", "load another file", "status, add" },
	{ "core.attributesFile", "load another file", "attributes pick filter and diff drivers" },
	{ "credential", "run a program", "credential.helper runs at every authenticated fetch and push" },
	{ "filter", "run a program", "clean, smudge and process run on checkout and add" },
	{ "diff.external", "run a program", "git diff" },
	{ "diff.tool", "run a program", "git difftool" },
	{ "diff.guitool", "run a program", "git difftool -g" },
	{ "diff.orderFile", "load another file", "git diff" },
	{ "diff.*.command", "run a program", "git diff with that driver" },
	{ "diff.*.textconv", "run a program", "git diff, log -p, blame with that driver" },
	{ "difftool", "run a program", "git difftool: cmd, path" },
	{ "merge.tool", "run a program", "git mergetool" },
	{ "merge.guitool", "run a program", "git mergetool -g" },
	{ "merge.*.driver", "run a program", "every merge with that driver" },
	{ "mergetool", "run a program", "git mergetool: cmd, path" },
	{ "interactive.diffFilter", "run a program", "git add -p" },
	{ "alias", "run a program", "an alias starting with ! is a shell command; any alias may pass -c settings" },
	{ "include", "load another file", "every git command reads it as config" },
	{ "includeIf", "load another file", "every git command reads it as config" },
	{ "gpg.program", "run a program", "commit -S, tag -s, verify" },
	{ "gpg.*.program", "run a program", "signing and verifying" },
	{ "gpg.ssh.defaultKeyCommand", "run a program", "ssh signing" },
	{ "gpg.ssh.allowedSignersFile", "load another file", "verifying ssh signatures" },
	{ "gpg.ssh.revocationFile", "load another file", "verifying ssh signatures" },
	{ "user.signingKey", "load another file", "ssh signing takes the key from a file" },
	{ "sequence.editor", "run a program", "git rebase -i" },
	{ "pager", "run a program", "pager.<cmd> names the pager of that command" },
	{ "remote.*.uploadpack", "run a program", "fetch over a local or ssh transport" },
	{ "remote.*.receivepack", "run a program", "push over a local or ssh transport" },
	{ "remote.*.vcs", "run a program", "fetch and push through git-remote-<vcs>" },
	{ "uploadpack", "run a program", "packObjectsHook runs at every fetch served" },
	{ "protocol", "run a program", "allowing the ext:: transport, whose URL is a command" },
	{ "submodule.*.update", "run a program", "git submodule update: a value starting with ! is a command" },
	{ "web.browser", "run a program", "git help --web, instaweb" },
	{ "browser", "run a program", "browser.<tool>.cmd and path" },
	{ "help.browser", "run a program", "git help --web" },
	{ "man", "run a program", "man.viewer and man.<tool>.cmd, path" },
	{ "instaweb", "run a program", "git instaweb: httpd, browser, module path" },
	{ "sendemail", "run a program", "send-email: smtpServer may be a program, toCmd, ccCmd, sendmailCmd" },
	{ "imap.tunnel", "run a program", "git imap-send" },
	{ "guitool", "run a program", "git gui's tools: cmd" },
	{ "tar.*.command", "run a program", "git archive" },
	{ "init.templateDir", "load another file", "hooks copied into every repository git init makes" },
	{ "commit.template", "load another file", "git commit" },
	{ "format.signatureFile", "load another file", "git format-patch" },
	{ "format.outputDirectory", "make git write outside the sandbox", "git format-patch" },
	{ "mailmap.file", "load another file", "log, shortlog, blame" },
	{ "blame.ignoreRevsFile", "load another file", "git blame" },
	{ "http.cookieFile", "load another file", "fetch and push over http (and saveCookies writes it)" },
	{ "http.*.cookieFile", "load another file", "fetch and push over http (and saveCookies writes it)" },
	{ "http.sslCert", "load another file", "fetch and push over https" },
	{ "http.*.sslCert", "load another file", "fetch and push over https" },
	{ "http.sslKey", "load another file", "fetch and push over https" },
	{ "http.*.sslKey", "load another file", "fetch and push over https" },
	{ "http.sslCAInfo", "load another file", "fetch and push over https: which servers are trusted" },
	{ "http.*.sslCAInfo", "load another file", "fetch and push over https: which servers are trusted" },
	{ "http.sslCAPath", "load another file", "fetch and push over https: which servers are trusted" },
	{ "http.*.sslCAPath", "load another file", "fetch and push over https: which servers are trusted" },
	{ "http.proxySSLCert", "load another file", "fetch and push through an https proxy" },
	{ "http.proxySSLKey", "load another file", "fetch and push through an https proxy" },
	{ "http.proxySSLCAInfo", "load another file", "fetch and push through an https proxy" },
	{ "fsmonitor.socketDir", "make git write outside the sandbox", "the fsmonitor daemon's socket" },
	{ "trace2", "make git write outside the sandbox", "every git command appends to the target" },
	{ "gitcvs", "run a program", "git cvsserver: its database driver and log file" },
	{ "hook", "run a program", "hook.<name>.command (git 2.46 and later): a hook by config" },
	{ "lfs.customtransfer", "run a program", "git-lfs: lfs.customtransfer.<name>.path" },
	{ "lfs.extension", "run a program", "git-lfs: lfs.extension.<name>.clean, smudge" },
};

const size_t gitcfg_nrows = sizeof(gitcfg_rows) / sizeof(gitcfg_rows[0]);

/* The sections git documents (git-config(1), 2.39, "Variables"), and
 * lfs (git-lfs writes lfs.repositoryformatversion on every `git lfs
 * install`; its program keys are rows above). A key in any other section
 * is refused when it changes (the file's header says why). */
static const char *const known_sections[] = {
	"add", "advice", "alias", "am", "apply", "blame", "branch", "browser", "bundle",
	"checkout", "clean", "clone", "color", "column", "commit", "commitgraph", "completion",
	"core", "credential", "credentialcache", "credentialstore", "diff", "difftool",
	"extensions", "fastimport", "feature", "fetch", "filter", "format", "fsck", "fsmonitor",
	"gc", "gitcvs", "gitweb", "gpg", "grep", "gui", "guitool", "help", "hook", "http", "i18n",
	"imap", "include", "includeif", "index", "init", "instaweb", "interactive", "lfs", "log",
	"lsrefs", "mailinfo", "mailmap", "maintenance", "man", "merge", "mergetool", "notes",
	"pack", "pager", "pretty", "protocol", "pull", "push", "rebase", "receive", "remote",
	"remotes", "repack", "rerere", "revert", "safe", "sendemail", "sequence", "showbranch",
	"sparse", "splitindex", "ssh", "stash", "status", "submodule", "tag", "tar", "trace2",
	"transfer", "uploadarchive", "uploadpack", "uploadpackfilter", "url", "user",
	"versionsort", "web", "worktree",
};

static const struct gitcfg_row unknown_row = {
	"*", "belong to a tool git does not know (it may run a program)",
	"a section git does not document: git-lfs, git-annex and other tools read their own"
};

/* ---- the parser */

struct src {
	const unsigned char *p, *end;
	unsigned line;
	bool eof;
};

/* git's get_next_char(): CRLF as LF; the end of the input as a last LF. */
static int next_char(struct src *s)
{
	int c;

	if (s->p >= s->end) {
		s->eof = true;
		return '\n';
	}
	c = *s->p++;
	if (c == '\r' && s->p < s->end && *s->p == '\n')
		c = *s->p++;
	if (c == '\n')
		s->line++;
	return c;
}

/* git's own character classes (sane_ctype): ASCII only, whatever the
 * locale, and a space is one of " \t\n\r" (not \v or \f) */
static bool g_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool g_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int g_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool keychar(int c)
{
	return g_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

struct sbuf {
	char *b;
	size_t n, cap;
};

static int sb_add(struct sbuf *sb, char c)
{
	if (sb->n + 2 > sb->cap) {
		size_t cap = sb->cap ? sb->cap * 2 : 64;
		char *nb = realloc(sb->b, cap);
		if (!nb)
			return -ENOMEM;
		sb->b = nb;
		sb->cap = cap;
	}
	sb->b[sb->n++] = c;
	sb->b[sb->n] = '\0';
	return 0;
}

/* git's parse_value(): 0, or -EINVAL (an unknown escape, an open quote). */
static int parse_value(struct src *s, struct sbuf *v)
{
	bool quote = false, comment = false;
	size_t space = 0;

	v->n = 0;
	if (sb_add(v, ' '))
		return -ENOMEM;
	v->b[v->n = 0] = '\0';
	for (;;) {
		int c = next_char(s);
		if (c == '\n')
			return quote ? -EINVAL : 0;
		if (comment)
			continue;
		if (g_space(c) && !quote) {
			if (v->n)
				space++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--)
			if (sb_add(v, ' '))
				return -ENOMEM;
		if (c == '\\') {
			c = next_char(s);
			switch (c) {
			case '\n':
				continue; /* a continuation (at the end too, as git) */
			case 't': c = '\t'; break;
			case 'b': c = '\b'; break;
			case 'n': c = '\n'; break;
			case '\\': case '"': break;
			default: return -EINVAL;
			}
			if (sb_add(v, (char)c))
				return -ENOMEM;
			continue;
		}
		if (c == '"') {
			quote = !quote;
			continue;
		}
		if (sb_add(v, (char)c))
			return -ENOMEM;
	}
}

/* git's get_base_var() and get_extended_base_var(), after the `[`. */
static int parse_section(struct src *s, struct sbuf *name)
{
	for (;;) {
		int c = next_char(s);
		if (s->eof)
			return -EINVAL;
		if (c == ']')
			return name->n ? 0 : -EINVAL;
		if (g_space(c)) {
			if (!name->n)
				return -EINVAL;
			do {
				if (c == '\n')
					return -EINVAL;
				c = next_char(s);
			} while (g_space(c));
			if (c != '"' || sb_add(name, '.'))
				return -EINVAL;
			for (;;) {
				c = next_char(s);
				if (c == '\n')
					return -EINVAL;
				if (c == '"')
					break;
				if (c == '\\') {
					c = next_char(s);
					if (c == '\n')
						return -EINVAL;
				}
				if (sb_add(name, (char)c))
					return -ENOMEM;
			}
			return next_char(s) == ']' ? 0 : -EINVAL;
		}
		if (!keychar(c) && c != '.')
			return -EINVAL;
		if (sb_add(name, (char)g_lower(c)))
			return -ENOMEM;
	}
}

static int add_entry(struct gitcfg *g, const char *key, const char *value, unsigned line)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		struct gitcfg_entry *nv;
		if (g->n >= GITCFG_MAX_ENTRIES)
			return -E2BIG;
		if (!(nv = realloc(g->v, cap * sizeof(*nv))))
			return -ENOMEM;
		g->v = nv;
		g->cap = cap;
	}
	struct gitcfg_entry *e = &g->v[g->n];
	e->key = strdup(key);
	e->value = value ? strdup(value) : NULL;
	e->line = line;
	if (!e->key || (value && !e->value)) {
		free(e->key);
		free(e->value);
		return -ENOMEM;
	}
	g->n++;
	return 0;
}

static void fail(struct gitcfg_err *err, unsigned line, const char *what)
{
	if (err) {
		err->line = line;
		snprintf(err->msg, sizeof(err->msg), "%s", what);
	}
}

int gitcfg_parse(const char *buf, size_t len, struct gitcfg **out, struct gitcfg_err *err)
{
	struct src s = { (const unsigned char *)buf, (const unsigned char *)buf + len, 1, false };
	struct sbuf sect = { 0 }, var = { 0 }, val = { 0 };
	struct gitcfg *g;
	bool comment = false;
	int rc = 0;

	*out = NULL;
	if (len > GITCFG_MAX_BYTES) {
		fail(err, 0, "larger than 1 MiB");
		return -E2BIG;
	}
	if (memchr(buf, '\0', len)) {
		fail(err, 0, "holds a NUL byte");
		return -EINVAL;
	}
	if (!(g = calloc(1, sizeof(*g))))
		return -ENOMEM;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		s.p += 3;
	for (;;) {
		unsigned line = s.line;
		int c = next_char(&s);
		if (c == '\n') {
			if (s.eof)
				break;
			comment = false;
			continue;
		}
		if (comment || g_space(c))
			continue;
		if (c == '#' || c == ';') {
			comment = true;
			continue;
		}
		if (c == '[') {
			sect.n = 0;
			if ((rc = parse_section(&s, &sect))) {
				fail(err, line, "a bad section header");
				break;
			}
			continue;
		}
		if (!g_alpha(c)) {
			rc = -EINVAL;
			fail(err, line, "a line that is no key, section or comment");
			break;
		}
		var.n = 0;
		for (size_t i = 0; !rc && i < sect.n; i++)
			rc = sb_add(&var, sect.b[i]);
		if (!rc && sect.n)
			rc = sb_add(&var, '.');
		if (!rc)
			rc = sb_add(&var, (char)g_lower(c));
		for (; !rc;) {
			c = next_char(&s);
			if (s.eof || !keychar(c))
				break;
			rc = sb_add(&var, (char)g_lower(c));
		}
		while (!rc && (c == ' ' || c == '\t'))
			c = next_char(&s);
		bool has_value = false;
		if (!rc && c != '\n') {
			if (c != '=')
				rc = -EINVAL;
			else if (!(rc = parse_value(&s, &val)))
				has_value = true;
		}
		if (!rc)
			rc = add_entry(g, var.b, has_value ? val.b : NULL, line);
		if (rc) {
			fail(err, line, rc == -ENOMEM ? "out of memory" : rc == -E2BIG ?
			     "too many entries" : "a bad key or value");
			break;
		}
		if (s.eof)
			break;
	}
	free(sect.b);
	free(var.b);
	free(val.b);
	if (rc) {
		gitcfg_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

void gitcfg_free(struct gitcfg *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].key);
		free(g->v[i].value);
	}
	free(g->v);
	free(g);
}

size_t gitcfg_count(const struct gitcfg *g)
{
	return g ? g->n : 0;
}

const char *gitcfg_key(const struct gitcfg *g, size_t i)
{
	return g->v[i].key;
}

const char *gitcfg_value(const struct gitcfg *g, size_t i)
{
	return g->v[i].value;
}

const char *gitcfg_get(const struct gitcfg *g, const char *key, bool *set)
{
	const char *v = NULL;

	if (set)
		*set = false;
	for (size_t i = 0; g && i < g->n; i++)
		if (!strcmp(g->v[i].key, key)) {
			v = g->v[i].value;
			if (set)
				*set = true;
		}
	return v;
}

/* ---- the keys */

/* key's parts: section [0, s1), subsection (s1, s2) or none, name (s2, end) */
static void split(const char *key, size_t *s1, size_t *s2)
{
	const char *first = strchr(key, '.'), *last = strrchr(key, '.');

	*s1 = first ? (size_t)(first - key) : strlen(key);
	*s2 = last ? (size_t)(last - key) : strlen(key);
}

static bool row_matches(const char *pat, const char *key)
{
	size_t p1, p2, k1, k2;

	split(pat, &p1, &p2);
	split(key, &k1, &k2);
	if (p1 != k1 || strncasecmp(pat, key, p1))
		return false;
	if (!pat[p1])
		return true; /* the whole section */
	bool pat_sub = p2 > p1, key_sub = k2 > k1;
	if (pat_sub != key_sub)
		return false;
	if (pat_sub && strncmp(pat + p1 + 1, "*", p2 - p1 - 1) &&
	    (p2 - p1 != k2 - k1 || strncmp(pat + p1 + 1, key + k1 + 1, p2 - p1 - 1)))
		return false;
	return !strcasecmp(pat + p2 + 1, key + k2 + 1);
}

static bool known_section(const char *key)
{
	size_t s1, s2;

	split(key, &s1, &s2);
	for (size_t i = 0; i < sizeof(known_sections) / sizeof(known_sections[0]); i++)
		if (strlen(known_sections[i]) == s1 && !strncmp(known_sections[i], key, s1))
			return true;
	return false;
}

/* The row that makes an entry one to keep, or NULL. */
static const struct gitcfg_row *row_of(const char *key, const char *value)
{
	if (!strchr(key, '.'))
		return NULL; /* no section: git reads it as nothing */
	if (!known_section(key))
		return &unknown_row;
	for (size_t i = 0; i < gitcfg_nrows; i++) {
		const struct gitcfg_row *r = &gitcfg_rows[i];
		/* lfs.customtransfer.<name>.path: the row names a section
		 * and a subsection's first part */
		if (!strncasecmp(r->pattern, "lfs.", 4)) {
			size_t pl = strlen(r->pattern);
			if (!strncasecmp(key, r->pattern, pl) && key[pl] == '.')
				return r;
			continue;
		}
		if (!row_matches(r->pattern, key))
			continue;
		if (!strcasecmp(r->pattern, "submodule.*.update"))
			return value && value[0] == '!' ? r : NULL;
		return r;
	}
	return NULL;
}

const struct gitcfg_row *gitcfg_row_of(const char *key, const char *value)
{
	return row_of(key, value);
}

static bool same_value(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The entries of `g` a row keeps, from index *i on: the next one. */
static const struct gitcfg_entry *next_kept(const struct gitcfg *g, size_t *i,
					     const struct gitcfg_row **row)
{
	for (; g && *i < g->n; (*i)++)
		if ((*row = row_of(g->v[*i].key, g->v[*i].value)))
			return &g->v[(*i)++];
	return NULL;
}

int gitcfg_risky_change(const struct gitcfg *old, const struct gitcfg *new, char *key,
			size_t keysz, const struct gitcfg_row **row)
{
	size_t i = 0, j = 0;

	/* the kept entries of both, in order, must be the same */
	for (;;) {
		const struct gitcfg_row *ro = NULL, *rn = NULL;
		const struct gitcfg_entry *a = next_kept(old, &i, &ro);
		const struct gitcfg_entry *b = next_kept(new, &j, &rn);
		if (!a && !b)
			return 0;
		if (a && b && !strcmp(a->key, b->key) && same_value(a->value, b->value))
			continue;
		const struct gitcfg_entry *d = b ? b : a;
		if (key && keysz)
			snprintf(key, keysz, "%s", d->key);
		if (row)
			*row = b ? rn : ro;
		return 1;
	}
}

int gitcfg_risky_new(const struct gitcfg *new, gitcfg_worktree_fn *worktree_ok, void *ctx,
		     char *key, size_t keysz, const struct gitcfg_row **row)
{
	const struct gitcfg_row *r = NULL;
	const struct gitcfg_entry *e;

	for (size_t i = 0; (e = next_kept(new, &i, &r));) {
		if (!strcmp(e->key, "core.bare"))
			continue;
		if (!strcmp(e->key, "core.worktree") && e->value && worktree_ok &&
		    worktree_ok(e->value, ctx))
			continue;
		if (key && keysz)
			snprintf(key, keysz, "%s", e->key);
		if (row)
			*row = r;
		return 1;
	}
	return 0;
}

/* ---- a config and the files it pulls in */

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

/* git's own limit on nested includes (config.c, MAX_INCLUDE_DEPTH) */
#define GITCFG_INCLUDE_DEPTH 10
#define GITCFG_MAX_FILES 64

struct walk {
	const char *home;
	gitcfg_file_fn *cb;
	void *ctx;
	char *seen[GITCFG_MAX_FILES];
	size_t nseen;
};

/* A regular file's bytes (a FIFO or a device planted as a config must not
 * hold the start-up: opened non-blocking, refused). */
static int slurp(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st = { 0 };
	char *b = NULL;
	size_t n = 0;

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (off_t)GITCFG_MAX_BYTES ||
	    !(b = malloc((size_t)st.st_size + 1))) {
		int rc = S_ISREG(st.st_mode) && st.st_size > (off_t)GITCFG_MAX_BYTES ? -E2BIG : -EINVAL;
		close(fd);
		return rc;
	}
	for (ssize_t r; n < (size_t)st.st_size &&
	     (r = read(fd, b + n, (size_t)st.st_size - n)) != 0;) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*out = b;
	*len = n;
	return 0;
}

bool gitcfg_read(const char *path, struct gitcfg **out)
{
	char *buf = NULL;
	size_t len = 0;

	*out = NULL;
	/* a regular file too big to parse is there all the same (git reads
	 * it): the caller then reads what it needs by lines */
	int rc = slurp(path, &buf, &len);
	if (rc)
		return rc == -E2BIG;
	gitcfg_parse(buf, len, out, NULL);
	free(buf);
	return true;
}

static void walk_got(struct walk *w, const char *path, bool there, const struct gitcfg *g,
		     unsigned depth);
static void walk_include(struct walk *w, const char *path, const char *v, unsigned depth);
static void walk_scanned(struct walk *w, const char *path, unsigned depth);

static void walk_file(struct walk *w, const char *path, unsigned depth)
{
	struct gitcfg *g = NULL;
	bool there;

	if (depth > GITCFG_INCLUDE_DEPTH || w->nseen == GITCFG_MAX_FILES)
		return;
	for (size_t i = 0; i < w->nseen; i++)
		if (!strcmp(w->seen[i], path))
			return;
	if (!(w->seen[w->nseen] = strdup(path)))
		return;
	w->nseen++;
	there = gitcfg_read(path, &g);
	walk_got(w, path, there, g, depth);
	gitcfg_free(g);
}

/* path (seen, read: there and g) said to the callback, then what it
 * includes */
static void walk_got(struct walk *w, const char *path, bool there, const struct gitcfg *g,
		     unsigned depth)
{
	w->cb(path, there, g, w->ctx);
	/* every include, whatever its condition: a condition that holds for
	 * some git run is enough (more files, never fewer) */
	for (size_t i = 0; g && i < g->n; i++) {
		const char *k = g->v[i].key, *v = g->v[i].value;
		size_t kl = strlen(k);
		if (!v || !v[0] || kl < 5 || strcmp(k + kl - 5, ".path") ||
		    (strcmp(k, "include.path") && strncmp(k, "includeif.", 10)))
			continue;
		walk_include(w, path, v, depth);
	}
	if (there && !g)
		walk_scanned(w, path, depth);
}

/* One include.path value v of the file `path`. */
static void walk_include(struct walk *w, const char *path, const char *v, unsigned depth)
{
	char dir[PATH_MAX], inc[PATH_MAX];

	if (v[0] == '~' && v[1] == '/') {
		if (!w->home || snprintf(inc, sizeof(inc), "%s%s", w->home, v + 1) >= (int)sizeof(inc))
			return;
	} else {
		/* relative to the including file's directory */
		snprintf(dir, sizeof(dir), "%s", path);
		char *slash = strrchr(dir, '/');
		if (!slash)
			return;
		*(slash == dir ? slash + 1 : slash) = '\0';
		if (path_join(dir, v, inc, sizeof(inc)))
			return;
	}
	walk_file(w, inc, depth + 1);
}

/* The value after `=` as git reads it: quotes taken off, a `\` escape
 * taken as the character it escapes, an unquoted `#` or `;` ending it,
 * trailing blanks dropped. Is it non-empty? */
static bool scan_value(const char *v, char *out, size_t outsz)
{
	size_t o = 0;
	bool q = false;

	v += strspn(v, " \t");
	for (; *v && o + 1 < outsz; v++) {
		if (*v == '"') {
			q = !q;
			continue;
		}
		if (!q && (*v == '#' || *v == ';'))
			break;
		if (*v == '\\' && v[1])
			v++;
		out[o++] = *v;
	}
	while (o && (out[o - 1] == ' ' || out[o - 1] == '\t'))
		o--;
	out[o] = '\0';
	return o > 0;
}

/* Does the line go on on the next one, as git reads it: it ends in a
 * `\` that is neither escaped nor in a comment? */
static bool scan_continues(const char *l)
{
	bool q = false;

	if (*l == '#' || *l == ';')
		return false;
	for (; *l; l++) {
		if (*l == '"')
			q = !q;
		else if (!q && (*l == '#' || *l == ';'))
			return false;
		else if (*l == '\\' && !*++l)
			return true;
	}
	return false;
}

/* whole lines (getline): a piece of a long one taken as a line of its own
 * could say `[x]` and end the section early */
char *gitcfg_scan_line(FILE *f, char **buf, size_t *cap)
{
	char *more = NULL;
	size_t mcap = 0;

	if (getline(buf, cap, f) < 0)
		return NULL;
	for (;;) {
		(*buf)[strcspn(*buf, "\r\n")] = '\0';
		char *l = *buf + strspn(*buf, " \t");
		if (!scan_continues(l) || getline(&more, &mcap, f) < 0)
			break;
		size_t n = strlen(*buf) - 1, m = strlen(more); /* the `\` off */
		char *nb = realloc(*buf, n + m + 1);
		if (!nb)
			break;
		memcpy(nb + n, more, m + 1);
		*buf = nb;
		*cap = n + m + 1;
	}
	free(more);
	return *buf + strspn(*buf, " \t");
}

/* After a section header `[name...]` on the line l: is it the section
 * whose header starts with `prefix` (any case), and where the rest of the
 * line begins (git takes `[core] key = v` on one line)? */
static bool scan_section(char **l, const char *prefix)
{
	bool in = !strncasecmp(*l, prefix, strlen(prefix));
	char *close = strchr(*l, ']');

	*l = close ? close + 1 + strspn(close + 1, " \t") : *l + strlen(*l);
	return in;
}

bool gitcfg_scan_core(const char *file, const char *key, char *out, size_t outsz)
{
	char *buf = NULL;
	size_t cap = 0, kl = strlen(key);
	bool in_core = false, found = false;
	FILE *f = sbx_fopen_file(file);

	if (!f)
		return false;
	for (char *l; (l = gitcfg_scan_line(f, &buf, &cap));) {
		if (*l == '[')
			in_core = scan_section(&l, "[core]");
		if (!in_core || strncasecmp(l, key, kl) || (l[kl] != ' ' && l[kl] != '\t' && l[kl] != '='))
			continue;
		char *v = l + kl + strspn(l + kl, " \t");
		if (*v++ == '=')
			found = scan_value(v, out, outsz); /* the last one, as git */
	}
	free(buf);
	fclose(f);
	return found;
}

/* A file that is there but not parsed (over 1 MiB, or one the parser
 * refuses that git may still read: a NUL byte in a comment): its includes
 * by lines, `path = V` under any `[include...` header. More files, never
 * fewer. */
static void walk_scanned(struct walk *w, const char *path, unsigned depth)
{
	char *buf = NULL, v[PATH_MAX];
	size_t cap = 0;
	bool in_inc = false;
	FILE *f = sbx_fopen_file(path);

	if (!f)
		return;
	for (char *l; (l = gitcfg_scan_line(f, &buf, &cap));) {
		if (*l == '[')
			in_inc = scan_section(&l, "[include");
		if (!in_inc || strncasecmp(l, "path", 4))
			continue;
		l += 4 + strspn(l + 4, " \t");
		if (*l++ == '=' && scan_value(l, v, sizeof(v)))
			walk_include(w, path, v, depth);
	}
	free(buf);
	fclose(f);
}

void gitcfg_each_file(const char *file, const char *home, gitcfg_file_fn *cb, void *ctx)
{
	struct walk w = { .home = home, .cb = cb, .ctx = ctx };

	walk_file(&w, file, 0);
	for (size_t i = 0; i < w.nseen; i++)
		free(w.seen[i]);
}

void gitcfg_each_file_read(const char *file, bool there, const struct gitcfg *g,
			   const char *home, gitcfg_file_fn *cb, void *ctx)
{
	struct walk w = { .home = home, .cb = cb, .ctx = ctx };

	if ((w.seen[0] = strdup(file))) {
		w.nseen = 1;
		walk_got(&w, file, there, g, 0);
	}
	for (size_t i = 0; i < w.nseen; i++)
		free(w.seen[i]);
}
