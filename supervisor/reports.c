/* supervisor/reports.c: every report of a run, in one stream.
 *
 * The shims of all sandboxed processes write report lines (shim/wire.h) into
 * one pipe; this file reads them as hostile input, asks the policy which rule
 * decided (the shim's word is never taken for a rule), prints one friendly
 * line per new violation on stderr, folds repeats, appends every report as
 * one JSON object per line to the audit log, and sums up at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <uthash.h>

#include "net/net.h"
#include "hostfs.h"
#include "supervisor.h"

struct seen {
	char *key; /* decision, op, target */
	char decision;
	enum wire_op op;
	char *target;
	unsigned long count;
	char *line; /* as printed the first time, without the pid */
	UT_hash_handle hh;
};

struct reports {
	struct reports_cfg cfg;
	int log_fd;
	bool log_failed;
	char buf[WIRE_MAX + 1];
	size_t len;
	bool skipping; /* inside an over-long line */
	bool said_static; /* a static binary started: said once per run */
	struct seen *seen;
	unsigned long denied[WIRE_OP_COUNT], learned, allowed, malformed, ignored;
	char *held;        /* lines kept for reports_flush() (cfg.hold) */
	size_t nheld, capheld;
	struct seen *proxy_seen; /* reports_proxy(): lines said once, repeats counted */
};

int reports_new(const struct reports_cfg *cfg, struct reports **out)
{
	struct reports *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->cfg = *cfg;
	r->log_fd = -1;
	*out = r;
	return 0;
}

void reports_free(struct reports *r)
{
	struct seen *s, *tmp;

	if (!r)
		return;
	HASH_ITER(hh, r->seen, s, tmp) {
		HASH_DEL(r->seen, s);
		free(s->key);
		free(s->target);
		free(s->line);
		free(s);
	}
	HASH_ITER(hh, r->proxy_seen, s, tmp) {
		HASH_DEL(r->proxy_seen, s);
		free(s->key);
		free(s);
	}
	if (r->log_fd >= 0)
		close(r->log_fd);
	free(r->held);
	free(r);
}

/* ---- explaining one report */

static bool file_op(enum wire_op op)
{
	return op == WIRE_READ || op == WIRE_WRITE || op == WIRE_EXEC;
}

static enum sbx_op sbx_op_of(enum wire_op op)
{
	return op == WIRE_WRITE ? SBX_OP_WRITE : op == WIRE_EXEC ? SBX_OP_EXEC : SBX_OP_READ;
}

static const char *origin_note(const struct sbx_rule *r)
{
	switch (r->origin) {
	case SBX_ORIGIN_MANDATORY: return "built in; no setting lifts it";
	case SBX_ORIGIN_DEFAULT:
		/* deny wins over allow for writes: a default deny_write stays */
		return r->kind == SBX_RULE_DENY_WRITE ? "built-in default; no setting lifts it" :
		       "built-in default";
	default: return r->source;
	}
}

/* For the terminal: a name may hold anything, and must not be able to
 * move the cursor, clear the screen or start a line that looks like ours.
 * Control bytes are shown as \xNN (a backslash as \\). In place. */
static void printable(char *s, size_t sz)
{
	char tmp[PATH_MAX * 2];
	size_t o = 0;

	for (const char *p = s; *p && o + 5 < sizeof(tmp); p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(tmp + o, sizeof(tmp) - o, "\\x%02x", c);
		} else if (c == '\\') {
			tmp[o++] = '\\';
			tmp[o++] = '\\';
		} else {
			tmp[o++] = (char)c;
		}
	}
	tmp[o] = '\0';
	if (o >= sz) /* cut: a name this long was cut on the wire already */
		o = sz - 1;
	memcpy(s, tmp, o);
	s[o] = '\0';
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* The --allow-write that works as printed for a write refused outside the
 * writable roots: only a path that exists when the sandbox starts can be
 * made writable, or a directory named with a trailing `/`, which sbx
 * creates. The target's directory when it exists and may be opened whole
 * (not HOME, not a top-level directory); else the target when it exists;
 * else, for a new name, its nearest existing ancestor when that may be
 * opened whole, or the first missing directory on the way with a `/`; a
 * directory being made (the shim's trailing `/`) right in HOME or a
 * top-level directory, itself with a `/`; and a new file there, that
 * directory itself: nothing narrower lets a new name be made there. */
static void write_fix(const struct policy *p, const char *target, bool made_dir,
		      char *out, size_t outsz)
{
	const char *home = policy_home(p);
	char dir[PATH_MAX], child[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", target);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	if (exists(target)) {
		snprintf(out, outsz, "%s", learn_foldable(dir, home) && exists(dir) ? dir : target);
		return;
	}
	if (made_dir && !learn_foldable(dir, home) && exists(dir) && strlen(target) + 2 <= outsz) {
		size_t l = strlen(target); /* mkdir: the directory itself, made by sbx */
		memcpy(out, target, l);
		memcpy(out + l, "/", 2);
		return;
	}
	/* walk up to what exists, remembering the first missing directory */
	snprintf(child, sizeof(child), "%s", target);
	while (!exists(dir) && strcmp(dir, "/")) {
		snprintf(child, sizeof(child), "%s", dir);
		slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	}
	if (learn_foldable(dir, home))
		snprintf(out, outsz, "%s", dir);
	else if (strcmp(child, target) && strlen(child) + 2 <= outsz) {
		size_t l = strlen(child); /* with a `/`: sbx makes it */
		memcpy(out, child, l);
		memcpy(out + l, "/", 2);
	}
	else
		snprintf(out, outsz, "%s", dir);
}

void report_explain(const struct policy *p, const struct wire_report *w,
		    struct report_expl *e)
{
	const struct sbx_rule *why = NULL;
	char shown[PATH_MAX], dir[PATH_MAX], host[256];

	memset(e, 0, sizeof(*e));
	if (w->op == WIRE_UNIX) {
		/* socket(AF_UNIX) refused by the seccomp filter: no path yet */
		e->verdict = policy_allow_all_unix_sockets(p) ? SBX_ALLOW : SBX_DENY;
		snprintf(e->shown, sizeof(e->shown), "creation");
		return;
	}
	if (file_op(w->op)) {
		e->verdict = policy_check_path(p, sbx_op_of(w->op), w->target, &why);
		policy_tildify(p, w->target, e->shown, sizeof(e->shown));
		size_t sl = strlen(e->shown);
		if (w->dir && sl + 1 < sizeof(e->shown)) /* shown as made: `~/.cache/` */
			memcpy(e->shown + sl, "/", 2);
	} else {
		unsigned port;
		if (sbx_split_target(w->target, host, sizeof(host), &port))
			e->verdict = SBX_DENY; /* not a destination: nothing allows it */
		else if (policy_network_open(p))
			e->verdict = SBX_ALLOW;
		else
			e->verdict = w->op == WIRE_DNS ? policy_check_host(p, host, &why) :
				     policy_check_domain(p, host, port, &why);
		snprintf(e->shown, sizeof(e->shown), "%s", w->target);
	}
	printable(e->shown, sizeof(e->shown));
	if (why && e->verdict == SBX_ALLOW && why->kind == SBX_RULE_ALLOW_WRITE &&
	    w->op == WIRE_WRITE && w->decision == WIRE_DENY) {
		/* allowed, yet the kernel refused: the path was not there to
		 * be made writable when the sandbox started */
		snprintf(e->rule, sizeof(e->rule), "allow_write = %s", why->value);
		snprintf(e->source, sizeof(e->source), "%s", why->source);
		e->unbound = true;
	}
	if (why && e->verdict == SBX_DENY) {
		snprintf(e->rule, sizeof(e->rule), "%s = %s",
			 why->kind == SBX_RULE_MANDATORY ? "deny_write" : sbx_rule_key(why->kind),
			 why->value);
		snprintf(e->source, sizeof(e->source), "%s", why->source);
		snprintf(e->note, sizeof(e->note), "%s", origin_note(why));
		e->kind = why->kind;
		e->has_rule = true;
	}
	if (e->verdict == SBX_ALLOW)
		return;
	/* how to allow it, when a setting can */
	if (file_op(w->op) && why && why->kind == SBX_RULE_DENY_READ) {
		snprintf(e->fix, sizeof(e->fix), "--allow-read %s", e->shown);
	} else if (w->op == WIRE_WRITE && !why) {
		write_fix(p, w->target, w->dir, dir, sizeof(dir));
		policy_tildify(p, dir, shown, sizeof(shown));
		if (!strcmp(dir, policy_home(p)))
			snprintf(shown, sizeof(shown), "~/");
		printable(shown, sizeof(shown));
		snprintf(e->fix, sizeof(e->fix), "--allow-write %s", shown);
	} else if (!file_op(w->op) && !why) {
		snprintf(e->fix, sizeof(e->fix), "--allow-domain %s",
			 w->op == WIRE_DNS ? host : w->target);
		printable(e->fix, sizeof(e->fix));
	}
}

static const char *verb(enum wire_op op)
{
	switch (op) {
	case WIRE_CONNECT: return "connect to";
	case WIRE_DNS: return "lookup of";
	case WIRE_UNIX: return "unix socket";
	default: return NULL;
	}
}

size_t report_line(const struct wire_report *w, const struct report_expl *e,
		   char *out, size_t outsz)
{
	size_t o = 0;
	const char *v = verb(w->op);

#define PUT(...)                                                              \
	do {                                                                  \
		int n_ = snprintf(out + o, o < outsz ? outsz - o : 0, __VA_ARGS__); \
		if (n_ > 0)                                                   \
			o += (size_t)n_;                                      \
	} while (0)
	if (w->decision == WIRE_ALLOW)
		PUT("sbx: trace: %s %s", v ? v : wire_op_name(w->op), e->shown);
	else
		PUT("sbx: %s %s%s%s%s", w->decision == WIRE_LEARN ? "would deny" : "denied",
		    v ? v : wire_op_name(w->op), v ? " " : " of ", e->shown,
		    w->truncated ? "…" : "");
	if (w->decision != WIRE_ALLOW) {
		if (e->has_rule)
			PUT(" by `%s` (%s)", e->rule, e->note);
		else if (e->unbound)
			PUT(" — `%s` (%s) allows it, but it did not exist when the sandbox "
			    "started, and only an existing path can be made writable "
			    "(create it first, or allow a directory with a trailing /, "
			    "which sbx creates)", e->rule, e->source);
		else if (e->guarded)
			PUT(" — the sandbox keeps %s read-only (it guards a git "
			    "directory or a protected file)", e->guarded);
		else if (e->verdict == SBX_ALLOW)
			PUT(" — refused by the sandbox");
		else if (w->op == WIRE_UNIX)
			PUT(" — Unix sockets are blocked in the sandbox (ssh-agent, tmux, docker, "
			    "X and Wayland use them): allow them all with "
			    "`allow_all_unix_sockets = true` under [network] in sandbox.ini; "
			    "allowing one socket by path needs seccomp notification, not "
			    "built yet");
		else if (file_op(w->op))
			PUT(" — outside the writable paths");
		else
			PUT(" — not in allow_domains");
		if (e->fix[0])
			PUT(" (%s %s)", w->decision == WIRE_LEARN ? "learned:" : "allow it with", e->fix);
		else if (e->has_rule && e->kind == SBX_RULE_DENY_WRITE &&
			 !strstr(e->note, "no setting"))
			PUT(" (remove that rule to allow it)");
	}
	char comm[sizeof(w->comm) * 4];
	snprintf(comm, sizeof(comm), "%s", w->comm);
	printable(comm, sizeof(comm));
	PUT(" — pid %d %s", w->pid, comm);
#undef PUT
	if (o >= outsz)
		o = outsz - 1;
	return o;
}

/* ---- the audit log */

static void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		unsigned char c = *p;
		/* valid UTF-8 sequences pass; a stray byte becomes U+FFFD */
		size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
			   (c & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = n > 0;
		for (size_t i = 1; ok && i < n; i++)
			ok = (p[i] & 0xc0) == 0x80;
		if (!ok) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
		p++;
	}
	fputc('"', f);
}

static void json_opt(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	if (v && *v)
		json_str(f, v);
	else
		fputs("null", f);
}

/* The log is opened once COMMAND runs, in a tree it may write: never
 * through a link, a hard link or a file not the user's (hostfs.h). */
static int open_log(struct reports *r)
{
	struct hostfs_err err;

	if (r->log_fd >= 0 || r->log_failed || !r->cfg.log_path)
		return r->log_fd;
	r->log_fd = hostfs_append_path(r->cfg.log_path, HOSTFS_CREATE, 0600, &err);
	if (r->log_fd < 0) {
		r->log_failed = true;
		msg("cannot write the audit log: %s (reports go to stderr only)", err.msg);
	}
	return r->log_fd;
}

static const char *decision_name(char d)
{
	return d == WIRE_DENY ? "deny" : d == WIRE_ALLOW ? "allow" : "would-deny";
}

/* The symbolic name of an errno the shim reports ("EACCES"), or NULL.
 * Our own table: strerrorname_np() is glibc's alone (2.32 and later), and
 * sbx-preload is built against musl where it can be. */
static const char *errno_name(int e)
{
#define E(x) { x, #x }
	static const struct { int e; const char *name; } names[] = {
		E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
		E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
		E(EFAULT), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR),
		E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ETXTBSY), E(EFBIG),
		E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE), E(ENAMETOOLONG),
		E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(EDQUOT), E(ENOTSUP),
		E(EAFNOSUPPORT), E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN),
		E(ENETUNREACH), E(ECONNABORTED), E(ECONNRESET), E(ETIMEDOUT),
		E(ECONNREFUSED), E(EHOSTUNREACH), E(EALREADY), E(EINPROGRESS),
	};
#undef E
	for (size_t i = 0; e > 0 && i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	return NULL;
}

static void log_report(struct reports *r, const struct wire_report *w,
		       const struct report_expl *e, bool ignored)
{
	char *text = NULL, stamp[40], ms[8];
	size_t len = 0;
	struct timeval tv;
	struct tm tm;
	FILE *f;
	int fd = open_log(r);

	if (fd < 0 || !(f = open_memstream(&text, &len)))
		return;
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ms, sizeof(ms), ".%03dZ", (int)(tv.tv_usec / 1000));
	fprintf(f, "{\"time\":\"%s%s\",\"layer\":\"shim\",\"op\":\"%s\"", stamp, ms,
		wire_op_name(w->op));
	json_opt(f, "target", w->target);
	fprintf(f, ",\"decision\":\"%s\"", decision_name(w->decision));
	json_opt(f, "rule", e->has_rule ? e->rule : NULL);
	json_opt(f, "source", e->has_rule ? e->source : NULL);
	fprintf(f, ",\"pid\":%d", w->pid);
	json_opt(f, "comm", w->comm);
	json_opt(f, "errno", errno_name(w->err));
	json_opt(f, "fix", e->fix);
	json_opt(f, "run", r->cfg.run_id);
	fprintf(f, ",\"truncated\":%s,\"ignored\":%s}\n", w->truncated ? "true" : "false",
		ignored ? "true" : "false");
	fclose(f);
	if (text && write(fd, text, len) != (ssize_t)len && !r->log_failed) {
		r->log_failed = true;
		msg("writing the audit log %s failed: %s", r->cfg.log_path, strerror(errno));
	}
	free(text);
}

/* ---- one line from the pipe */

/* One line for the person: now, or held for reports_flush(). */
static void say(struct reports *r, const char *text)
{
	size_t len = strlen(text);

	if (r->cfg.hold && r->nheld + len + 1 > 64 * 1024)
		reports_flush(r);
	if (r->cfg.hold && r->nheld + len + 1 > r->capheld) {
		size_t cap = r->capheld ? r->capheld * 2 : 8192;
		while (cap < r->nheld + len + 1)
			cap *= 2;
		char *n = realloc(r->held, cap);
		if (n) {
			r->held = n;
			r->capheld = cap;
		}
	}
	if (!r->cfg.hold || r->nheld + len + 1 > r->capheld) {
		reports_flush(r);
		dprintf(r->cfg.out_fd, "%s\n", text);
		return;
	}
	memcpy(r->held + r->nheld, text, len);
	r->held[r->nheld + len] = '\n';
	r->nheld += len + 1;
}

static void handle(struct reports *r, const char *line, size_t len)
{
	struct wire_report w;
	struct report_expl e;
	struct seen *s;
	char key[WIRE_TARGET_MAX + 32], text[REPORT_LINE_MAX];
	bool ignored;

	if (wire_decode(line, len, &w)) {
		r->malformed++;
		return;
	}
	if (w.decision == WIRE_NOTE) {
		/* a claim the command can forge, and harmless: a line, once */
		if (w.op == WIRE_EXEC && !r->said_static) {
			char shown[PATH_MAX];
			r->said_static = true;
			policy_tildify(r->cfg.policy, w.target, shown, sizeof(shown));
			printable(shown, sizeof(shown));
			snprintf(text, sizeof(text), "sbx: note: %s is a static binary (pid %d): the "
				 "shim cannot see inside it, so what the sandbox refuses it will "
				 "fail without an explanation here (the boundary holds all the same)",
				 shown, w.pid);
			say(r, text);
		}
		return;
	}
	report_explain(r->cfg.policy, &w, &e);
	if (e.unbound && file_op(w.op))
		for (size_t i = 0; i < r->cfg.nguarded; i++)
			if (path_under(w.target, r->cfg.guarded[i])) {
				e.unbound = false;
				e.guarded = r->cfg.guarded[i];
				e.fix[0] = '\0';
				break;
			}
	ignored = policy_report_ignored(r->cfg.policy, file_op(w.op), w.target);
	log_report(r, &w, &e, ignored);
	if (ignored) {
		r->ignored++;
		return;
	}
	if (w.decision == WIRE_DENY)
		r->denied[w.op]++;
	else if (w.decision == WIRE_LEARN)
		r->learned++;
	else
		r->allowed++;

	snprintf(key, sizeof(key), "%c %s %s", w.decision, wire_op_name(w.op), w.target);
	HASH_FIND_STR(r->seen, key, s);
	if (s) {
		s->count++;
		return;
	}
	report_line(&w, &e, text, sizeof(text));
	if ((s = calloc(1, sizeof(*s)))) {
		s->key = strdup(key);
		s->target = strdup(w.target);
		if (!s->key || !s->target) {
			free(s->key);
			free(s->line);
			free(s->target);
			free(s);
			s = NULL;
		}
	}
	if (s) {
		s->decision = w.decision;
		s->op = w.op;
		s->count = 1;
		/* folded repeats may come from other processes: no pid */
		s->line = strdup(text);
		char *pid = NULL;
		for (char *q = s->line ? strstr(s->line, " — pid ") : NULL; q;
		     q = strstr(q + 1, " — pid "))
			pid = q;
		if (pid)
			*pid = '\0';
		HASH_ADD_KEYPTR(hh, r->seen, s->key, strlen(s->key), s);
	}
	/* --learn says it all at the end; the rest say it now */
	if (r->cfg.mode != REPORTS_LEARN || w.decision == WIRE_DENY)
		say(r, text);
}

bool reports_pending(const struct reports *r)
{
	return r->nheld > 0;
}

void reports_flush(struct reports *r)
{
	size_t off = 0;

	while (off < r->nheld) {
		ssize_t w = write(r->cfg.out_fd, r->held + off, r->nheld - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* stderr gone: nothing else to do with them */
		off += (size_t)w;
	}
	r->nheld = 0;
}

void reports_feed(struct reports *r, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = data[i];
		if (c == '\n') {
			if (!r->skipping)
				handle(r, r->buf, r->len);
			r->len = 0;
			r->skipping = false;
			continue;
		}
		if (r->skipping)
			continue;
		if (r->len >= WIRE_MAX) {
			r->malformed++;
			r->skipping = true; /* longer than any report: drop to the newline */
			continue;
		}
		r->buf[r->len++] = c;
	}
}

/* ---- the end */

static void count(char *out, size_t outsz, unsigned long n, const char *one,
		  const char *many)
{
	size_t o = strlen(out);
	snprintf(out + o, outsz - o, "%s%lu %s", o ? ", " : "", n, n == 1 ? one : many);
}

void reports_finish(struct reports *r, unsigned long dropped)
{
	struct seen *s, *tmp;
	char sum[512] = "", logshown[PATH_MAX];
	static const char *const names[WIRE_OP_COUNT][2] = {
		[WIRE_READ] = { "denied read", "denied reads" },
		[WIRE_WRITE] = { "denied write", "denied writes" },
		[WIRE_EXEC] = { "denied exec", "denied execs" },
		[WIRE_CONNECT] = { "denied connect", "denied connects" },
		[WIRE_DNS] = { "denied lookup", "denied lookups" },
		[WIRE_UNIX] = { "denied unix socket", "denied unix sockets" },
	};

	reports_flush(r);

	if (r->len && !r->skipping)
		handle(r, r->buf, r->len); /* a last line without its newline */
	r->len = 0;
	if (r->cfg.mode != REPORTS_LEARN)
		HASH_ITER(hh, r->seen, s, tmp)
			if (s->count > 1 && s->decision == WIRE_DENY && s->line)
				dprintf(r->cfg.out_fd, "%s (x%lu more)\n", s->line, s->count - 1);
	HASH_ITER(hh, r->proxy_seen, s, tmp)
		if (s->count > 1 && s->decision == WIRE_DENY)
			dprintf(r->cfg.out_fd, "sbx: denied connect to %s (via the proxy, x%lu more)\n",
				s->key + 2, s->count - 1);
	for (int op = 0; op < WIRE_OP_COUNT; op++)
		if (r->denied[op])
			count(sum, sizeof(sum), r->denied[op], names[op][0], names[op][1]);
	if (r->learned)
		count(sum, sizeof(sum), r->learned, "access the policy would refuse",
		      "accesses the policy would refuse");
	if (dropped)
		count(sum, sizeof(sum), dropped, "report dropped (the supervisor fell behind)",
		      "reports dropped (the supervisor fell behind)");
	if (r->malformed)
		count(sum, sizeof(sum), r->malformed, "malformed report line",
		      "malformed report lines");
	if (!sum[0])
		return;
	if (r->cfg.log_path && r->log_fd >= 0) {
		policy_tildify(r->cfg.policy, r->cfg.log_path, logshown,
				 sizeof(logshown));
		dprintf(r->cfg.out_fd, "sbx: %s — see %s\n", sum, logshown);
	} else {
		dprintf(r->cfg.out_fd, "sbx: %s\n", sum);
	}
}

/* ---- what --learn needs */

void reports_each(const struct reports *r,
		  void (*fn)(void *ctx, char decision, enum wire_op op,
			     const char *target),
		  void *ctx)
{
	const struct seen *s;

	for (s = r->seen; s; s = s->hh.next)
		fn(ctx, s->decision, s->op, s->target);
}

/* ---- the proxy's events (supervisor/net/)
 *
 * The proxy decides with the supervisor's own policy, so an event is not
 * hostile input like a shim line: its rule and reason are the decision's.
 * The host came from the sandbox, though, and is shown through printable().
 * A refusal is one line on stderr (once per target; repeats counted at the
 * end) and one JSON line with layer "proxy"; a connection that was allowed
 * but failed (no such name, refused, timed out) too, so a 502 is not taken
 * for the policy; a client error is logged, and said with --trace or -v;
 * an allowed connection only under --trace. The process behind a
 * connection is not known (the listener sees an address inside the
 * sandbox): no pid, no comm. */
void reports_proxy(struct reports *r, const struct net_event *ev)
{
	static const char *const via[] = { "CONNECT", "http", "socks5" };
	char target[300], line[REPORT_LINE_MAX], rule[640] = "", key[320], *text = NULL, stamp[40];
	bool v6 = strchr(ev->host, ':') != NULL, deny = ev->outcome == NET_EV_DENIED;
	bool trace = r->cfg.mode == REPORTS_TRACE, ignored;
	const char *decision = deny ? "deny" : ev->outcome == NET_EV_ALLOWED ? "allow" :
			       ev->outcome == NET_EV_FAILED ? "fail" : "error";
	size_t len = 0;

	if (ev->outcome == NET_EV_ALLOWED && !trace)
		return;
	if (ev->host[0])
		snprintf(target, sizeof(target), "%s%s%s:%u", v6 ? "[" : "", ev->host,
			 v6 ? "]" : "", ev->port);
	else
		snprintf(target, sizeof(target), "?");
	printable(target, sizeof(target));
	/* [report] ignore_domains: logged, not said */
	ignored = ev->host[0] && policy_report_ignored(r->cfg.policy, false, target);
	if (ev->rule)
		snprintf(rule, sizeof(rule), "%s = %s", sbx_rule_key(ev->rule->kind),
			 ev->rule->value);

	/* the audit log */
	int fd = open_log(r);
	FILE *f = fd >= 0 ? open_memstream(&text, &len) : NULL;
	if (f) {
		struct timeval tv;
		struct tm tm;
		gettimeofday(&tv, NULL);
		gmtime_r(&tv.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(f, "{\"time\":\"%s.%03dZ\",\"layer\":\"proxy\",\"op\":\"connect\"", stamp,
			(int)(tv.tv_usec / 1000));
		json_opt(f, "target", ev->host[0] ? target : NULL);
		fprintf(f, ",\"decision\":\"%s\"", decision);
		json_opt(f, "rule", ev->rule ? rule : NULL);
		json_opt(f, "source", ev->rule ? ev->rule->source : NULL);
		fputs(",\"pid\":null,\"comm\":null", f);
		json_opt(f, "reason", ev->reason);
		json_opt(f, "fix", ev->fix);
		fprintf(f, ",\"via\":\"%s\"", via[ev->proto]);
		json_opt(f, "address", ev->address);
		json_opt(f, "client", ev->client);
		json_opt(f, "run", r->cfg.run_id);
		fprintf(f, ",\"ignored\":%s}\n", ignored ? "true" : "false");
		fclose(f);
		if (text && write(fd, text, len) != (ssize_t)len && !r->log_failed) {
			r->log_failed = true;
			msg("writing the audit log %s failed: %s", r->cfg.log_path, strerror(errno));
		}
		free(text);
	}

	/* the line, once per outcome and target */
	struct seen *s;
	snprintf(key, sizeof(key), "%c %s", deny ? WIRE_DENY : ev->outcome == NET_EV_ALLOWED ?
		 WIRE_ALLOW : ev->outcome == NET_EV_FAILED ? 'F' : 'E', target);
	if (ignored) {
		r->ignored++;
		return;
	}
	if (ev->outcome == NET_EV_ERROR && !trace && sbx_verbosity < V_VERBOSE)
		return; /* logged; said with --trace or -v */
	if (deny)
		r->denied[WIRE_CONNECT]++;
	HASH_FIND_STR(r->proxy_seen, key, s);
	if (s) {
		s->count++;
		return;
	}
	if ((s = calloc(1, sizeof(*s))) && (s->key = strdup(key))) {
		s->decision = key[0];
		s->count = 1;
		HASH_ADD_KEYPTR(hh, r->proxy_seen, s->key, strlen(s->key), s);
	} else {
		free(s);
	}
	char reason[700], fix[450]; /* the decision's, 640 and 400 at most */
	snprintf(reason, sizeof(reason), "%s", ev->reason);
	printable(reason, sizeof(reason));
	snprintf(fix, sizeof(fix), "%s", ev->fix);
	printable(fix, sizeof(fix));
	switch (ev->outcome) {
	case NET_EV_DENIED:
		/* the rule's own words ("denied by `deny_domains = x` (file:3)")
		 * or why no rule allows it, and how to change that */
		if (ev->rule)
			snprintf(line, sizeof(line), "sbx: denied connect to %s — %s (remove that "
				 "rule to allow it) — via the proxy", target, reason);
		else
			snprintf(line, sizeof(line), "sbx: denied connect to %s — %s (allow it "
				 "with %s) — via the proxy", target, reason, fix);
		break;
	case NET_EV_ALLOWED:
		snprintf(line, sizeof(line), "sbx: trace: connect to %s via the proxy (%s), "
			 "allowed by `%s` (%s), to %s", target, via[ev->proto], rule,
			 ev->rule ? ev->rule->source : "?", ev->address);
		break;
	case NET_EV_FAILED:
		snprintf(line, sizeof(line), "sbx: connect to %s failed in the proxy — %s (the "
			 "policy allows it)", target, reason);
		break;
	case NET_EV_ERROR:
		snprintf(line, sizeof(line), "sbx: the proxy refused a %s client: %s", via[ev->proto],
			 reason);
		break;
	}
	say(r, line);
}
