/* preload/learn.c: the sandbox.ini a --learn run needed.
 *
 * The run was confined loosely (writes allowed in HOME too) while the shim
 * judged every call by the user's real policy and reported, without
 * refusing, what that policy would have refused. Here those reports become
 * settings: writes outside the writable paths become allow_write
 * directories (folded together where they share a directory below HOME or
 * two levels below /), host names looked up become allow_domains. Never
 * learned: reads of denied paths (credential stores and the user's own
 * deny_read), writes refused by a deny_write or mandatory rule — those are
 * listed as comments, for the person to decide.
 *
 * The reports, and every file and link they name, were made by COMMAND:
 * the learned file must never be its way to widen the next run. So each
 * path is decided again here, by the policy, on where it really leads on
 * the host (its links resolved), and what is written is that real path,
 * never a link COMMAND could repoint later. No rule is written that would
 * allow HOME or a directory above it, `/` or a top-level directory, a
 * path a mandatory, deny_write or deny_read rule protects, or a value
 * inih would read otherwise than written (a newline, `;`, `#`, `,`, a
 * wildcard, a control byte, an over-long line): each is left out, said on
 * stderr and listed as a comment. The file itself is put in place through
 * hostfs (hostfs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/hostfs.h"
#include "preload/preload.h"

struct learned {
	const struct policy *p;
	struct strv dirs;    /* allow_write candidates */
	struct strv domains; /* allow_domains */
	struct strv kept;    /* comments: what stays denied */
	struct strv addrs;   /* connects by address */
	struct strv refused; /* comments: what could not be written safely */
	struct strv made;    /* directories a refused mkdir wanted: written with a / */
	int err;
};

static bool in_strv(const struct strv *s, const char *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], v))
			return true;
	return false;
}

static void add_unique(struct learned *l, struct strv *s, const char *v)
{
	if (!in_strv(s, v) && strv_add(s, v) < 0)
		l->err = -ENOMEM;
}

static size_t depth(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		d += *p == '/' && p[1];
	return d;
}

/* May `dir` be written as one allow_write for several paths below it? Not
 * HOME itself or anything above it, not `/` or a top-level directory. */
bool learn_foldable(const char *dir, const char *home)
{
	return sbx_path_foldable(dir, home);
}

/* inih reads lines of up to 200 bytes, `key = value` with the value trimmed,
 * ` ;` starting a comment; the policy splits lists at `,` and takes `*`,
 * `?` as wildcards. A value is written only where it reads back as
 * itself. */
#define VALUE_MAX 170
static const char *value_unsafe(const char *v, bool path)
{
	size_t n = strlen(v);

	if (!n)
		return "it is empty";
	if (n > VALUE_MAX)
		return "it is too long for one sandbox.ini line";
	if (v[0] == ' ' || v[n - 1] == ' ' || v[0] == '\t' || v[n - 1] == '\t')
		return "it starts or ends with a blank, which sandbox.ini drops";
	for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			return "it holds a newline or a control character";
		if (*c == ';' || *c == '#')
			return "it holds `;` or `#`, which sandbox.ini reads as a comment";
		if (path && (*c == ',' || *c == '%' || *c == '\\'))
			return "it holds `,`, `%` or `\\`, which sandbox.ini would not read back "
			       "as written";
		if (path && (*c == '*' || *c == '?' || *c == '[' || *c == ']'))
			return "it holds a wildcard character, which would match other paths";
	}
	return NULL;
}

/* Every row counts as there for a learned rule: the file is used later,
 * when a place missing now may have been made (a hint is for now). */
static int any_row(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	return 1;
}

const char *learn_refuse_path(const struct policy *p, const char *path)
{
	static char why[PATH_MAX + 128];
	const char *home = policy_home(p);
	const struct sbx_rule *rule;
	char norm[PATH_MAX], real[PATH_MAX];

	if (path[0] != '/' || path_join(NULL, path, norm, sizeof(norm)) || strcmp(norm, path))
		return "it is not an absolute, normal path";
	if (sbx_path_under(home, path))
		return strcmp(path, home) ? "it is above HOME: every file of yours would be "
					    "writable" : "it is HOME: every file of yours would be writable";
	if (!sbx_path_under(path, home) && depth(path) < 2)
		return "it is `/` or a top-level directory";
	/* what the next run will compile it to: the policy follows links */
	sbx_path_resolve(path, real, sizeof(real));
	if (strcmp(real, path)) {
		char shown[PATH_MAX];
		policy_tildify(p, real, shown, sizeof(shown));
		snprintf(why, sizeof(why), "a link on the way leads it to %s", shown);
		return why;
	}
	if (policy_check_path(p, SBX_OP_WRITE, path, &rule) == SBX_DENY && rule &&
	    rule->kind != SBX_RULE_HOME_KEPT) {
		snprintf(why, sizeof(why), "`%s = %s` protects it", sbx_rule_key(rule->kind),
			 rule->value);
		return why;
	}
	/* a place of HOME a later program runs from, or a directory holding
	 * one: never proposed, said what it is (policy/home.c) */
	char where[PATH_MAX];
	unsigned flags = 0;
	int row = policy_home_row(p, path, false, where, sizeof(where), &flags);
	bool above = false;
	if (row < 0 || !(flags & SBX_HOME_ROW_NEVER)) {
		row = policy_home_holds(p, path, any_row, NULL, where, sizeof(where));
		flags = SBX_HOME_ROW_NEVER;
		above = true;
	}
	if (row >= 0 && (flags & SBX_HOME_ROW_NEVER)) {
		snprintf(why, sizeof(why), "%s%s: %s; not proposed", above ? "it holds " : "",
			 where, policy_home_row_what(row));
		return why;
	}
	return value_unsafe(path, true);
}

const char *learn_refuse_host(const char *host)
{
	bool v6 = strchr(host, ':') != NULL;

	if (!*host || strlen(host) > VALUE_MAX)
		return "it is empty or too long";
	if (host[0] == '.' || host[0] == '-')
		return "it is no host name";
	for (const char *c = host; *c; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' ||
			  (!v6 && *c == '_') || (v6 && *c == ':');
		if (!ok)
			return "it holds a character no host name has (a wildcard, a "
			       "separator or a control character)";
	}
	return NULL;
}

static void refuse(struct learned *l, const char *what, const char *value, const char *why)
{
	char line[PATH_MAX * 2];

	snprintf(line, sizeof(line), "not learned: %s %s — %s", what, value, why);
	for (char *c = line; *c; c++) /* as the terminal and the file show it */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	if (!in_strv(&l->refused, line)) {
		msg("%s", line);
		add_unique(l, &l->refused, line);
	}
}

/* One distinct operation of the run, as the supervisor decided it. Only a
 * candidate (preload/preload.h, struct report_item: the learning run let it
 * happen, the user's policy would refuse it, no rule names it) becomes a
 * setting: the sandboxed program writes to the report stream too, so
 * nothing else may. */
static void collect(void *ctx, const struct report_item *it)
{
	struct learned *l = ctx;
	enum wire_op op = it->op;
	const char *target = it->target;
	struct wire_report w = { .decision = it->decision, .op = op };
	struct report_expl e;
	char line[PATH_MAX * 4];

	if (it->decision == WIRE_ALLOW)
		return;
	snprintf(w.target, sizeof(w.target), "%s", target);
	report_explain(l->p, &w, &e);
	if (e.verdict == SBX_ALLOW)
		return; /* refused by the kernel for another reason */
	if (op == WIRE_WRITE && it->candidate) {
		/* Decided again where the write really went: a link
		 * COMMAND made (~/.cache/pip -> ..) must not become a rule
		 * for what it points at, nor the rule name the link. */
		char real[PATH_MAX], dir[PATH_MAX];
		const struct sbx_rule *rule;
		struct stat st;
		if (target[0] != '/') {
			refuse(l, "a write of", e.shown, "not an absolute path");
			return;
		}
		sbx_path_resolve(target, real, sizeof(real));
		if (policy_check_path(l->p, SBX_OP_WRITE, real, &rule) == SBX_ALLOW)
			return; /* it lands in a writable root */
		/* HOME's allow-list is lifted by naming the place: a rule
		 * to learn, unless a later program runs from there
		 * (learn_refuse_path says so) */
		if (rule && rule->kind != SBX_RULE_HOME_KEPT) {
			char shown[PATH_MAX];
			policy_tildify(l->p, real, shown, sizeof(shown));
			snprintf(line, sizeof(line), "write of %s (leads to %s) — %s = %s",
				 e.shown, shown, sbx_rule_key(rule->kind), rule->value);
			add_unique(l, &l->kept, line);
			return;
		}
		/* a directory made: itself; a file: its directory where that
		 * may be allowed whole (not HOME, not /usr), else the file */
		snprintf(dir, sizeof(dir), "%s", real);
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir)
			*slash = '\0';
		/* a directory the learning run was refused making (HOME is
		 * not writable in it): itself, written with its / (sbx
		 * makes it) */
		bool made = it->dir && lstat(real, &st) && errno == ENOENT;
		if (made || (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) ||
		    !learn_foldable(dir, policy_home(l->p)) || learn_refuse_path(l->p, dir))
			snprintf(dir, sizeof(dir), "%s", real);
		if (made)
			add_unique(l, &l->made, real);
		add_unique(l, &l->dirs, dir);
		return;
	}
	if (op == WIRE_DNS && it->candidate) {
		char host[256];
		unsigned port;
		const char *why;
		if (sbx_split_target(target, host, sizeof(host), &port))
			return;
		if ((why = learn_refuse_host(host)))
			refuse(l, "allow_domains", e.shown, why);
		else
			add_unique(l, &l->domains, host);
		return;
	}
	if (op == WIRE_CONNECT && !e.has_rule) {
		add_unique(l, &l->addrs, target);
		return;
	}
	snprintf(line, sizeof(line), "%s of %s — %s%s%s", wire_op_name(op), e.shown,
		 e.has_rule ? e.rule : "refused", e.has_rule ? ", " : "",
		 e.has_rule ? e.note : "");
	add_unique(l, &l->kept, line);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The longest common directory of a and b. */
static void common_dir(const char *a, const char *b, char *out, size_t outsz)
{
	size_t i = 0, last = 0;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '/')
			last = i;
		i++;
	}
	if ((!a[i] || a[i] == '/') && (!b[i] || b[i] == '/'))
		last = i;
	snprintf(out, outsz, "%.*s", (int)(last ? last : 1), a);
}

/* Fold the candidates: drop those under another, then merge neighbours
 * (in sorted order) whose common directory may stand for both. */
static void fold(struct learned *l, const char *home)
{
	bool changed = true;

	while (changed && !l->err) {
		changed = false;
		if (l->dirs.n < 2)
			return;
		qsort(l->dirs.v, l->dirs.n, sizeof(char *), cmp_str);
		for (size_t i = 0; i + 1 < l->dirs.n; i++) {
			char c[PATH_MAX];
			if (sbx_path_under(l->dirs.v[i + 1], l->dirs.v[i])) {
				free(l->dirs.v[i + 1]);
				memmove(&l->dirs.v[i + 1], &l->dirs.v[i + 2],
					(l->dirs.n - i - 1) * sizeof(char *));
				l->dirs.n--;
				changed = true;
				break;
			}
			common_dir(l->dirs.v[i], l->dirs.v[i + 1], c, sizeof(c));
			if (learn_foldable(c, home) && !learn_refuse_path(l->p, c)) {
				char *dup = strdup(c);
				if (!dup) {
					l->err = -ENOMEM;
					return;
				}
				free(l->dirs.v[i]);
				l->dirs.v[i] = dup;
				changed = true;
				break;
			}
		}
	}
}

/* inih reads lines of up to 200 bytes: a comment is cut to fit, on one
 * line, with control characters shown as `?`. */
#define COMMENT_MAX 190
static void comment(FILE *f, const char *lead, const char *text)
{
	char c[COMMENT_MAX];
	size_t n = 0;

	for (; *text && n + 4 < sizeof(c); text++)
		c[n++] = ((unsigned char)*text < 0x20 || *text == 0x7f) ? '?' : *text;
	if (*text) {
		memcpy(c + n, "...", 3);
		n += 3;
	}
	c[n] = '\0';
	if (*lead == '\n') {
		fputc('\n', f);
		lead++;
	}
	fprintf(f, ";%s %s\n", lead, c);
}

/* What a learned directory in HOME's allow-list is, as a comment above its
 * line (docs/POLICY.md, "HOME is an allow-list when writable"): a row of
 * policy/home.c offered with what it is (a build cache a build trusts), or
 * a hidden entry sbx knows nothing of. Nothing for the rest. */
static void home_note(FILE *f, const struct policy *p, const char *dir)
{
	const char *home = policy_home(p);
	size_t hl = strlen(home);
	char where[PATH_MAX], c[PATH_MAX + 512];
	unsigned flags = 0;
	int row = policy_home_row(p, dir, true, where, sizeof(where), &flags);

	if (row >= 0) {
		snprintf(c, sizeof(c), "%s: %s", where, policy_home_row_what(row));
		comment(f, "", c);
	} else if (hl > 1 && !strncmp(dir, home, hl) && dir[hl] == '/' && dir[hl + 1] == '.') {
		char top[PATH_MAX];
		snprintf(top, sizeof(top), "~/%.*s", (int)strcspn(dir + hl + 1, "/"), dir + hl + 1);
		snprintf(c, sizeof(c), "%s: a hidden entry of HOME, read-only unless named; "
			 "sbx does not know what keeps it: check that no program runs what is "
			 "there", top);
		comment(f, "", c);
	}
}

static void write_list(FILE *f, const struct policy *p, const char *key,
		       const struct strv *s, bool paths, const struct strv *made)
{
	for (size_t i = 0; i < s->n; i++) {
		char shown[PATH_MAX];
		struct stat st;
		if (paths) {
			policy_tildify(p, s->v[i], shown, sizeof(shown));
			home_note(f, p, s->v[i]);
		} else {
			snprintf(shown, sizeof(shown), "%s", s->v[i]);
		}
		/* a directory is written with its trailing /: sbx makes it
		 * when it is missing, so the policy also works from a HOME
		 * that does not have it yet */
		fprintf(f, "%s = %s%s\n", key, shown,
			paths && ((lstat(s->v[i], &st) == 0 && S_ISDIR(st.st_mode)) ||
				  in_strv(made, s->v[i])) ? "/" : "");
	}
}

/* Leave out every folded candidate that may not be written (learn.h). */
static void drop_refused(struct learned *l)
{
	size_t k = 0;

	for (size_t i = 0; i < l->dirs.n; i++) {
		const char *why = learn_refuse_path(l->p, l->dirs.v[i]);
		if (why) {
			char shown[PATH_MAX];
			policy_tildify(l->p, l->dirs.v[i], shown, sizeof(shown));
			refuse(l, "allow_write", shown, why);
			free(l->dirs.v[i]);
			continue;
		}
		l->dirs.v[k++] = l->dirs.v[i];
	}
	l->dirs.n = k;
	if (l->dirs.v)
		l->dirs.v[k] = NULL;
}

/* The whole file, in memory: it goes to the disk in one piece (hostfs). */
static int render(const struct learn_in *in, struct learned *l, char **text, size_t *len)
{
	const char *home = policy_home(in->policy);
	char when[64];
	time_t now = time(NULL);
	struct tm tm;
	FILE *f = open_memstream(text, len), *src;

	if (!f)
		return -ENOMEM;
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	fprintf(f, "; sandbox.ini learned by `sbx-preload --learn` on %s from:\n", when);
	{
		char cmd[COMMENT_MAX] = "";
		for (char *const *c = in->command; *c; c++) {
			size_t o = strlen(cmd);
			snprintf(cmd + o, sizeof(cmd) - o, "%s%s", o ? " " : "", *c);
		}
		comment(f, "  ", cmd);
	}
	fprintf(f, "; Review it before you use it (sbx-preload --config THIS-FILE -- ...).\n");

	/* the settings the run already had: the user's file, verbatim */
	if (in->user_file[0]) {
		char real[PATH_MAX], c[PATH_MAX + 16];
		const char *up = in->user_file;
		if (up[0] == '~' && snprintf(real, sizeof(real), "%s%s", home, up + 1) > 0)
			up = real;
		if ((src = fopen(up, "re"))) {
			char buf[4096];
			size_t n;
			snprintf(c, sizeof(c), "---- from %s", in->user_file);
			comment(f, "\n", c);
			while ((n = fread(buf, 1, sizeof(buf), src)) > 0)
				fwrite(buf, 1, n, f);
			fclose(src);
			fputc('\n', f);
		}
	}
	/* and the flags it was given */
	if (in->nflags) {
		fprintf(f, "\n; ---- from the command line\n");
		for (size_t i = 0; i < in->nflags; i++) {
			const struct flag_setting *fl = &in->flags[i];
			const char *why;
			if (!strcmp(fl->key, "workspace"))
				continue;
			if ((why = value_unsafe(fl->value, false)))
				refuse(l, fl->flag, fl->value, why);
			else
				fprintf(f, "[%s]\n%s = %s\n", fl->section, fl->key, fl->value);
		}
	}

	fprintf(f, "\n; ---- what the run needed beyond that\n");
	if (!l->dirs.n && !l->domains.n)
		fprintf(f, "; nothing: the run stayed inside the policy\n");
	if (l->dirs.n) {
		fprintf(f, "[filesystem]\n");
		write_list(f, in->policy, "allow_write", &l->dirs, true, &l->made);
	}
	if (l->domains.n) {
		fprintf(f, "[network]\n");
		write_list(f, in->policy, "allow_domains", &l->domains, false, &l->made);
	}
	for (size_t i = 0; i < l->addrs.n; i++) {
		char c[COMMENT_MAX];
		snprintf(c, sizeof(c), "connected to %s by address: allow the host name "
			 "it belongs to", l->addrs.v[i]);
		comment(f, i ? "" : "\n", c);
	}
	if (l->kept.n) {
		fprintf(f, "\n; Kept denied (secrets and protected files are never learned):\n");
		for (size_t i = 0; i < l->kept.n; i++)
			comment(f, "  ", l->kept.v[i]);
	}
	if (l->refused.n) {
		fprintf(f, "\n; Not learned (they would widen the policy, or not read back "
			"as written):\n");
		for (size_t i = 0; i < l->refused.n; i++)
			comment(f, "  ", l->refused.v[i] + strlen("not learned: "));
	}
	return fclose(f) ? -ENOMEM : 0;
}

int learn_write(const struct learn_in *in, const char *path, struct hostfs_err *err)
{
	struct learned l = { .p = in->policy };
	struct hostfs_replace rep = { .fd = -1 };
	char dir[PATH_MAX], *text = NULL;
	const char *name;
	size_t len = 0;
	int rc, dfd = -1;

	snprintf(err->msg, sizeof(err->msg), "%s: out of memory", path);
	reports_each(in->reports, collect, &l);
	/* before folding too: HOME as a candidate would swallow the rest */
	drop_refused(&l);
	fold(&l, policy_home(in->policy));
	drop_refused(&l);
	if ((rc = l.err) || (rc = render(in, &l, &text, &len)))
		goto out;
	if (hostfs_split(path, dir, sizeof(dir), &name)) {
		snprintf(err->msg, sizeof(err->msg), "%s: not an absolute path to a file", path);
		rc = -EINVAL;
		goto out;
	}
	/* its directory held, the file replaced whole in it: a link or a
	 * file planted at any name there is never written through */
	if ((dfd = rc = hostfs_dir_open(dir, HOSTFS_CREATE, err)) < 0 ||
	    (rc = hostfs_replace_begin(dfd, dir, name, 0600, &rep, err)))
		goto out;
	for (size_t off = 0; off < len;) {
		ssize_t n = write(rep.fd, text + off, len - off);
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			snprintf(err->msg, sizeof(err->msg), "cannot write %s: %s", path,
				 strerror(-rc));
			hostfs_replace_abort(&rep);
			goto out;
		}
		off += (size_t)n;
	}
	rc = hostfs_replace_commit(&rep, err);
out:
	if (dfd >= 0)
		close(dfd);
	free(text);
	strv_free(&l.dirs);
	strv_free(&l.domains);
	strv_free(&l.kept);
	strv_free(&l.addrs);
	strv_free(&l.refused);
	strv_free(&l.made);
	return rc;
}
