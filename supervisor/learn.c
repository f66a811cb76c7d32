/* supervisor/learn.c: the sandbox.ini a --learn run needed.
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

#include "supervisor.h"

struct learned {
	const struct policy *p;
	struct strv dirs;    /* allow_write candidates */
	struct strv domains; /* allow_domains */
	struct strv kept;    /* comments: what stays denied */
	struct strv addrs;   /* connects by address */
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
	if (path_under(dir, home))
		return depth(dir) > depth(home);
	return !path_under(home, dir) && depth(dir) >= 2;
}

/* One distinct operation of the run, as the supervisor decided it. Only a
 * candidate (supervisor.h, struct report_item: the learning run let it
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
		/* a directory made: itself; a file: its directory where that
		 * may be allowed whole (not HOME, not /usr), else the file */
		char dir[PATH_MAX];
		struct stat st;
		snprintf(dir, sizeof(dir), "%s", target);
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir)
			*slash = '\0';
		if ((stat(target, &st) == 0 && S_ISDIR(st.st_mode)) ||
		    !learn_foldable(dir, policy_home(l->p)))
			snprintf(dir, sizeof(dir), "%s", target);
		add_unique(l, &l->dirs, dir);
		return;
	}
	if (op == WIRE_DNS && it->candidate) {
		char host[256];
		unsigned port;
		if (sbx_split_target(target, host, sizeof(host), &port) == 0)
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
			if (path_under(l->dirs.v[i + 1], l->dirs.v[i])) {
				free(l->dirs.v[i + 1]);
				memmove(&l->dirs.v[i + 1], &l->dirs.v[i + 2],
					(l->dirs.n - i - 1) * sizeof(char *));
				l->dirs.n--;
				changed = true;
				break;
			}
			common_dir(l->dirs.v[i], l->dirs.v[i + 1], c, sizeof(c));
			if (learn_foldable(c, home)) {
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

static void write_list(FILE *f, const struct policy *p, const char *key,
		       const struct strv *s, bool paths)
{
	for (size_t i = 0; i < s->n; i++) {
		char shown[PATH_MAX];
		struct stat st;
		if (paths)
			policy_tildify(p, s->v[i], shown, sizeof(shown));
		else
			snprintf(shown, sizeof(shown), "%s", s->v[i]);
		/* a directory is written with its trailing /: sbx makes it
		 * when it is missing, so the policy also works from a HOME
		 * that does not have it yet */
		fprintf(f, "%s = %s%s\n", key, shown,
			paths && stat(s->v[i], &st) == 0 && S_ISDIR(st.st_mode) ? "/" : "");
	}
}

int learn_write(const struct learn_in *in, const char *path)
{
	struct learned l = { .p = in->policy };
	char tmp[PATH_MAX + 16], dir[PATH_MAX], when[64];
	const char *home = policy_home(in->policy);
	time_t now = time(NULL);
	struct tm tm;
	FILE *f, *src;
	int rc = 0;

	reports_each(in->reports, collect, &l);
	fold(&l, home);
	if (l.err) {
		rc = l.err;
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir_p(dir, 0700);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		goto out;
	}
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
		char real[PATH_MAX];
		const char *up = in->user_file;
		if (up[0] == '~' && snprintf(real, sizeof(real), "%s%s", home, up + 1) > 0)
			up = real;
		if ((src = fopen(up, "re"))) {
			char buf[4096];
			size_t n;
			fprintf(f, "\n; ---- from %s\n", in->user_file);
			while ((n = fread(buf, 1, sizeof(buf), src)) > 0)
				fwrite(buf, 1, n, f);
			fclose(src);
			fputc('\n', f);
		}
	}
	/* and the flags it was given */
	if (in->nflags) {
		fprintf(f, "\n; ---- from the command line\n");
		for (size_t i = 0; i < in->nflags; i++)
			if (strcmp(in->flags[i].key, "workspace"))
				fprintf(f, "[%s]\n%s = %s\n", in->flags[i].section,
					in->flags[i].key, in->flags[i].value);
	}

	fprintf(f, "\n; ---- what the run needed beyond that\n");
	if (!l.dirs.n && !l.domains.n)
		fprintf(f, "; nothing: the run stayed inside the policy\n");
	if (l.dirs.n) {
		fprintf(f, "[filesystem]\n");
		write_list(f, in->policy, "allow_write", &l.dirs, true);
	}
	if (l.domains.n) {
		fprintf(f, "[network]\n");
		write_list(f, in->policy, "allow_domains", &l.domains, false);
	}
	for (size_t i = 0; i < l.addrs.n; i++) {
		char c[COMMENT_MAX];
		snprintf(c, sizeof(c), "connected to %s by address: allow the host name "
			 "it belongs to", l.addrs.v[i]);
		comment(f, i ? "" : "\n", c);
	}
	if (l.kept.n) {
		fprintf(f, "\n; Kept denied (secrets and protected files are never learned):\n");
		for (size_t i = 0; i < l.kept.n; i++)
			comment(f, "  ", l.kept.v[i]);
	}
	if (fflush(f) || fsync(fileno(f))) {
		rc = -errno;
		fclose(f);
		unlink(tmp);
		goto out;
	}
	fclose(f);
	if (rename(tmp, path)) {
		rc = -errno;
		unlink(tmp);
	}
out:
	strv_free(&l.dirs);
	strv_free(&l.domains);
	strv_free(&l.kept);
	strv_free(&l.addrs);
	return rc;
}
