/* preload/reports.c: every report of a run, in one stream.
 *
 * The shims of all sandboxed processes write report lines (common/wire.h) into
 * one pipe, and so can any program in the sandbox: the holder that keeps the
 * pipe open is dumpable, so /proc/<holder>/fd/N opens for anything running
 * as the same user. A line is therefore only a claim. It is parsed strictly
 * (report_parse); the operation is decided again with the supervisor's own
 * policy, never the shim's word (report_explain, learn_decide); every string
 * is made valid UTF-8 with no control character before it reaches the
 * terminal or the log (report_printable, report_json_string); and a flood
 * costs bounded memory, terminal lines and log bytes (struct reports_limits).
 * Then: one friendly line per new report on stderr, repeats folded, one JSON
 * object per report in the audit log, and a summary at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <uthash.h>

#include "common/event.h"
#include "net/net.h"
#include "common/hostfs.h"
#include "common/wire_join.h"
#include "preload/preload.h"

/* The defaults of struct reports_limits. A genuine run stays far below
 * them (a shim reports each (op, target) once per process); a forger
 * meets them within a second. */
#define SEEN_MAX 16384
#define SEEN_BYTES (8u << 20)
#define SAY_BURST 500
#define SAY_PER_SEC 50
#define LOG_BURST 10000
#define LOG_PER_SEC 1000
#define LOG_MAX (16ull << 20)
#define FOLD_LINES 20 /* "(xN more)" lines at the end, then one line counting the rest */

struct seen {
	char *key;          /* decision, op, cut mark, target: one allocation */
	const char *target; /* inside key */
	char decision;      /* the supervisor's */
	enum wire_op op;
	bool candidate;
	bool dir;           /* a directory being made (the shim's trailing /) */
	bool shown;         /* its first line reached the terminal */
	bool boundary;      /* proxy_seen: a program's own connect (seccomp), not the proxy's */
	unsigned long count;
	char *line;         /* denials: as printed the first time, without the pid */
	UT_hash_handle hh;
};

/* One refusal of a deferred name (deferred_name()) said by one layer
 * whose word from the other layer is still to come: that word is its
 * echo, not a second refusal (take_report). By the side that said it, the
 * process as it knows itself and the report's key; at most `until` (a
 * process's own refusal comes within it, and a number reused after it
 * matches nothing). Kept apart from the table of lines said, so a refusal
 * a quiet rule keeps off the terminal (never in that table) and one past
 * its bounds still has one record; in the order last awaited, so the
 * oldest goes first; an entry goes when its last echo came. */
struct echo {
	char *key;
	size_t klen;
	unsigned long n;
	unsigned long long until; /* now_ms() */
	UT_hash_handle hh;
};

/* A token bucket, in thousandths of a token. */
struct bucket {
	unsigned long long last, milli;
};

struct reports {
	struct reports_cfg cfg;
	struct reports_limits lim;
	int log_fd;
	int tail_fd;       /* out_fd's file, to read (open_tail()) */
	bool out_chr;      /* out_fd may be a terminal (a character device) */
	bool own_tail;
	bool log_failed, log_capped;
	unsigned long long log_bytes; /* what this run added to the log */
	char buf[WIRE_MAX + 1];
	size_t len;
	bool skipping; /* inside an over-long line */
	bool said_static; /* a static binary started: said once per run */
	struct seen *seen;
	size_t nseen, seen_bytes;
	unsigned long denied[WIRE_OP_COUNT], learned, allowed, malformed, ignored;
	unsigned long quiet; /* refusals a quiet rule kept off the terminal */
	unsigned long denied_calls; /* refused calls (take_call), each counted */
	unsigned long contradicted; /* lines whose claim the policy contradicts */
	unsigned long not_shown, not_logged, not_kept;
	struct bucket say_b, log_b;
	bool said_malformed, said_say_rate, said_log_rate, said_log_cap, said_full;
	bool said_nofile;  /* reports_nofile() */
	char *held;        /* lines kept for reports_flush() (cfg.hold) */
	size_t nheld, capheld;
	bool held_busy;    /* some were held because the terminal was busy */
	bool stalled;      /* held lines wait for room on out_fd (reports_room_fd) */
	unsigned long not_held; /* lines past the hold buffer while it could not be written */
	struct seen *proxy_seen; /* events said once (take_net, take_call, notes), repeats counted */
	struct echo *echoes;     /* shim lines still to come as echoes (struct echo) */
	size_t nechoes, echo_bytes;
	struct wire_join join;   /* long lines' pieces (common/wire_join.h) */
};

static unsigned long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;
}

static unsigned long long now_ms(const struct reports *r)
{
	return r->cfg.clock_ms ? r->cfg.clock_ms() : mono_ms();
}

/* `burst` at once, then `per_sec` a second. */
static bool take(struct bucket *b, unsigned burst, unsigned per_sec, unsigned long long now)
{
	unsigned long long cap = (unsigned long long)burst * 1000;

	if (now > b->last) {
		unsigned long long add = (now - b->last) * per_sec;
		b->milli = cap - b->milli < add ? cap : b->milli + add;
		b->last = now;
	}
	if (b->milli < 1000)
		return false;
	b->milli -= 1000;
	return true;
}

/* Would take() give a token now? (Nothing taken: a copy is.) */
static bool has_token(const struct bucket *b, unsigned burst, unsigned per_sec,
		      unsigned long long now)
{
	struct bucket c = *b;

	return take(&c, burst, per_sec, now);
}

/* Where reports_midline() reads out_fd's last byte when out_fd is a
 * regular file: out_fd itself when it is open for reading, else the same
 * file opened again for reading (2>log and an agent's tool output are
 * opened for writing only, and pread() refuses those); -1 for neither.
 * *own: the descriptor is ours to close. */
static int open_tail(int fd, bool *own)
{
	char proc[32];
	struct stat st;
	int fl;

	*own = false;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || (fl = fcntl(fd, F_GETFL)) < 0)
		return -1;
	if ((fl & O_ACCMODE) != O_WRONLY)
		return fd;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	int t = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat ts;
	/* the same file, or none: /proc/self/fd/N names no other */
	if (t >= 0 && (fstat(t, &ts) || ts.st_dev != st.st_dev || ts.st_ino != st.st_ino)) {
		close(t);
		t = -1;
	}
	*own = t >= 0;
	return t;
}

int reports_new(const struct reports_cfg *cfg, struct reports **out)
{
	struct reports *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->cfg = *cfg;
	r->lim = cfg->limits;
#define DEFAULT(field, v) if (!r->lim.field) r->lim.field = (v)
	DEFAULT(seen_max, SEEN_MAX);
	DEFAULT(seen_bytes, SEEN_BYTES);
	DEFAULT(say_burst, SAY_BURST);
	DEFAULT(say_per_sec, SAY_PER_SEC);
	DEFAULT(log_burst, LOG_BURST);
	DEFAULT(log_per_sec, LOG_PER_SEC);
	DEFAULT(log_max, LOG_MAX);
	DEFAULT(fold_lines, FOLD_LINES);
#undef DEFAULT
	r->say_b = (struct bucket){ now_ms(r), r->lim.say_burst * 1000ULL };
	r->log_b = (struct bucket){ now_ms(r), r->lim.log_burst * 1000ULL };
	r->log_fd = -1;
	r->tail_fd = open_tail(cfg->out_fd, &r->own_tail);
	/* what an open file is stays so: a file, a pipe or a socket is
	 * never asked again whether it is a terminal in raw mode */
	struct stat st;
	r->out_chr = fstat(cfg->out_fd, &st) || S_ISCHR(st.st_mode);
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
		free(s->line);
		free(s);
	}
	HASH_ITER(hh, r->proxy_seen, s, tmp) {
		HASH_DEL(r->proxy_seen, s);
		free(s->key);
		free(s);
	}
	struct echo *e, *etmp;
	HASH_ITER(hh, r->echoes, e, etmp) {
		HASH_DEL(r->echoes, e);
		free(e->key);
		free(e);
	}
	if (r->log_fd >= 0)
		close(r->log_fd);
	if (r->own_tail)
		close(r->tail_fd);
	free(r->held);
	wire_join_free(&r->join);
	free(r);
}

/* ---- text: strict UTF-8, no control characters */

/* The text functions are policy/hint.c's, shared with the shim. */
unsigned report_utf8_next(const char *str, size_t *len)
{
	return sbx_utf8_next(str, len);
}

static bool bidi_control(unsigned cp) { return sbx_bidi_control(cp); }
static bool control(unsigned cp) { return sbx_control(cp); }

size_t report_printable(const char *s, char *out, size_t outsz, bool backslash)
{
	return sbx_printable(s, out, outsz, backslash);
}

void report_json_string(FILE *f, const char *s)
{
	size_t n;

	fputc('"', f);
	for (const char *p = s; *p; p += n) {
		/* plain ASCII in one go */
		for (n = 0; p[n] >= 0x20 && p[n] < 0x7f && p[n] != '"' && p[n] != '\\'; n++)
			;
		if (n) {
			fwrite(p, 1, n, f);
			continue;
		}
		unsigned cp = report_utf8_next(p, &n);

		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (char)cp);
		else if (cp == '\n')
			fputs("\\n", f);
		else if (cp == '\t')
			fputs("\\t", f);
		else if (control(cp) || bidi_control(cp) || cp == 0x2028 || cp == 0x2029)
			fprintf(f, "\\u%04x", cp); /* 2028/2029 end a line in JavaScript */
		else if (cp == 0xfffd && (n != 3 || memcmp(p, "\xef\xbf\xbd", 3)))
			fputs("\\ufffd", f);
		else
			fwrite(p, 1, n, f);
	}
	fputc('"', f);
}

/* ---- parsing one line */

static bool file_op(enum wire_op op)
{
	return op == WIRE_READ || op == WIRE_WRITE || op == WIRE_EXEC;
}

/* Absolute, and no empty, `.` or `..` component: what the shim sends (it
 * folds paths lexically, as policy_check_path() needs them). A cut target
 * may end anywhere in its last component. */
static bool normal_path(const char *p, bool cut)
{
	if (p[0] != '/')
		return false;
	for (const char *s = p; *s; s++) {
		if (*s != '/')
			continue;
		const char *c = s + 1;
		size_t n = strcspn(c, "/");
		if (!c[n] && cut)
			break;
		if (n == 0 && (c[0] || s != p))
			return false; /* `//`, or a trailing `/` (but `/` itself) */
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
	}
	return true;
}

int report_parse(const char *line, size_t len, struct wire_report *w)
{
	/* wire_decode() takes each %XX once: `%250A` is the text `%0A` */
	if (wire_decode(line, len, w))
		return -EBADMSG;
	/* A name holding a newline or an escape is refused outright rather
	 * than escaped: it would end a line in a learned sandbox.ini, and no
	 * report needs one. (A genuine file so named is still refused by the
	 * shim and the boundary; only its report is lost, counted.) */
	for (const unsigned char *c = (const unsigned char *)w->target; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return -EBADMSG;
	if (file_op(w->op) && !normal_path(w->target, w->truncated))
		return -EBADMSG;
	return 0;
}

/* Which decisions a shim sends in each mode: refusals always, allowed
 * accesses under --trace and --learn, would-deny under --learn, notes (a
 * static binary started) always. Any other
 * line is not a shim's. */
static bool claim_expected(enum reports_mode m, char d)
{
	return d == WIRE_DENY || d == WIRE_NOTE || (d == WIRE_ALLOW && m != REPORTS_ENFORCE) ||
	       (d == WIRE_LEARN && m == REPORTS_LEARN);
}

/* ---- explaining one report */

static enum sbx_op sbx_op_of(enum wire_op op)
{
	return op == WIRE_WRITE ? SBX_OP_WRITE : op == WIRE_EXEC ? SBX_OP_EXEC : SBX_OP_READ;
}

/* What is on the host at a path, for a hint (policy_hint_fix): looked
 * at through held directories, never through a link (hostfs.h). */
static int host_look(void *ctx, const char *path)
{
	(void)ctx;
	return hostfs_look(path);
}

/* The rule that decided, as the line names it (`deny_write = .git/hooks/`
 * for a mandatory one too: that is how the person would write it; the
 * words are policy/hint.c's, which the shim gives the program). */
static void expl_rule(struct report_expl *e, const struct sbx_rule *why)
{
	policy_rule_text(why, e->rule, sizeof(e->rule));
	snprintf(e->source, sizeof(e->source), "%s", why->source);
	snprintf(e->note, sizeof(e->note), "%s", policy_rule_note(why));
	e->kind = why->kind;
	e->has_rule = true;
}

/* The decision, the rule and, when `words`, how to allow it (the hints
 * look at the disk: hostfs_look). */
static void explain(const struct policy *p, const struct wire_report *w,
		    struct report_expl *e, bool words);

void report_explain(const struct policy *p, const struct wire_report *w,
		    struct report_expl *e)
{
	explain(p, w, e, true);
}

static void explain(const struct policy *p, const struct wire_report *w,
		    struct report_expl *e, bool words)
{
	const struct sbx_rule *why = NULL;
	char shown[PATH_MAX], host[256], tmp[PATH_MAX + 32];

	memset(e, 0, sizeof(*e));
	if (w->op == WIRE_UNIX) {
		/* socket(AF_UNIX) refused by the seccomp filter: no path yet;
		 * or a socket's path (the notify layer's connect) */
		e->verdict = policy_allow_all_unix_sockets(p) ? SBX_ALLOW : SBX_DENY;
		if (w->target[0] == '/')
			policy_tildify(p, w->target, shown, sizeof(shown));
		else
			snprintf(shown, sizeof(shown), "%s", w->target[0] == '@' ? w->target :
				 "creation");
	} else if (w->op == WIRE_SOCKET) {
		/* a socket the seccomp table refuses: no rule allows it */
		e->verdict = SBX_DENY;
		snprintf(shown, sizeof(shown), "%s", w->target);
	} else if (file_op(w->op)) {
		e->verdict = policy_check_path(p, sbx_op_of(w->op), w->target, &why);
		policy_tildify(p, w->target, shown, sizeof(shown));
		size_t sl = strlen(shown);
		if (w->dir && sl + 1 < sizeof(shown)) /* shown as made: `~/.cache/` */
			memcpy(shown + sl, "/", 2);
	} else {
		unsigned port;
		if (sbx_split_target(w->target, host, sizeof(host), &port))
			e->verdict = SBX_DENY; /* not a destination: nothing allows it */
		else if (policy_network_open(p))
			e->verdict = SBX_ALLOW;
		else
			e->verdict = w->op == WIRE_DNS ? policy_check_host(p, host, &why) :
				     policy_check_domain(p, host, port, &why);
		snprintf(shown, sizeof(shown), "%s", w->target);
	}
	report_printable(shown, e->shown, sizeof(e->shown), true);
	/* A device node the kernel refused (the nested mode gives only a few,
	 * and of the terminals only the run's own: landlock_spec_dev). A
	 * claimed refusal: it cannot widen anything, and no setting lifts it. */
	if (file_op(w->op) && w->decision == WIRE_DENY && !strncmp(w->target, "/dev/", 5) &&
	    !sbx_path_under(w->target, "/dev/shm")) {
		e->device = !strncmp(w->target, "/dev/pts/", 9) || !strncmp(w->target, "/dev/tty", 8) ||
			    !strcmp(w->target, "/dev/console") ? 1 : 2;
		e->verdict = SBX_DENY;
		e->decision = WIRE_DENY;
		return;
	}
	/* The decision is ours. What the policy denies is a denial (or, in a
	 * learning run, would be), whatever the line claimed. A claimed
	 * refusal of what the policy allows stays a refusal: the boundary
	 * refuses more than the policy names (a path made after the start,
	 * a guarded git directory), and such a claim cannot widen anything. */
	if (e->verdict == SBX_DENY)
		e->decision = w->decision == WIRE_LEARN ? WIRE_LEARN : WIRE_DENY;
	else
		e->decision = w->decision == WIRE_DENY ? WIRE_DENY : WIRE_ALLOW;
	e->claimed = w->decision != e->decision ? w->decision : 0;
	if (w->op == WIRE_UNIX || w->op == WIRE_SOCKET)
		return; /* no rule and no flag: report_line says what allows it */
	if (why && e->verdict == SBX_ALLOW && why->kind == SBX_RULE_ALLOW_WRITE &&
	    w->op == WIRE_WRITE && w->decision == WIRE_DENY) {
		/* allowed, yet the kernel refused: the path was not there to
		 * be made writable when the sandbox started */
		snprintf(e->rule, sizeof(e->rule), "allow_write = %s", why->value);
		snprintf(e->source, sizeof(e->source), "%s", why->source);
		e->unbound = true;
	}
	if (why && e->verdict == SBX_DENY)
		expl_rule(e, why);
	if (e->verdict == SBX_ALLOW || !words)
		return;
	/* how to allow it, when a setting can (the same words the shim
	 * gives the refused program: policy/hint.c) */
	if (file_op(w->op)) {
		policy_hint_fix(p, sbx_op_of(w->op), w->target, w->dir, why, host_look, NULL,
				e->fix, sizeof(e->fix));
		policy_hint_runs_later(p, sbx_op_of(w->op), w->target, w->dir, why, host_look,
				       NULL, e->runs_later, sizeof(e->runs_later));
		if (!e->fix[0] && !e->runs_later[0]) {
			policy_hint_renames(p, sbx_op_of(w->op), w->target, w->dir, why,
					    host_look, NULL, tmp, sizeof(tmp));
			report_printable(tmp, e->renames, sizeof(e->renames), true);
		}
	} else if (!file_op(w->op) && !why) {
		snprintf(tmp, sizeof(tmp), "--allow-domain %s", w->op == WIRE_DNS ? host : w->target);
		report_printable(tmp, e->fix, sizeof(e->fix), true);
	}
}

/* A host name as allow_domains takes it: LDH labels (and `_`), no
 * wildcard, no address (a last label of digits alone). */
static bool plain_host(const char *target)
{
	char host[256];
	unsigned port;
	size_t label = 0, len;
	bool digits = true;

	if (sbx_split_target(target, host, sizeof(host), &port))
		return false;
	len = strlen(host);
	if (len && host[len - 1] == '.')
		host[--len] = '\0';
	if (!len || len > 253)
		return false;
	for (size_t i = 0; i <= len; i++) {
		char c = host[i];
		if (c == '.' || !c) {
			if (!label || label > 63 || host[i - 1] == '-')
				return false;
			if (!c)
				break;
			label = 0;
			digits = true;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_') || (c == '-' && !label))
			return false;
		digits = digits && c >= '0' && c <= '9';
		label++;
	}
	return !digits;
}

/* --learn: the shim judges by the user's policy and refuses nothing; the
 * relaxed boundary is what decided. A would-deny that boundary refuses did
 * not happen (the shim would have said D): it is a denial, never learned.
 * What remains may become a setting only when no rule of the user's
 * policy names it — a rule (deny_read, deny_write, mandatory, deny_domains)
 * is the user's or sbx's word that it stays closed. */
static void learn_decide(const struct reports *r, const struct wire_report *w,
			 struct report_expl *e)
{
	const struct policy *box = r->cfg.relaxed ? r->cfg.relaxed : r->cfg.policy;
	const struct sbx_rule *why = NULL, *bwhy = NULL;
	char real[PATH_MAX];

	/* a write refused in HOME (the shim's D after the kernel's EROFS,
	 * or the notify layer's) may be one to record, below */
	if (e->decision != WIRE_LEARN && !(e->decision == WIRE_DENY && w->op == WIRE_WRITE))
		return;
	if (file_op(w->op)) {
		enum sbx_op op = sbx_op_of(w->op);
		/* HOME's allow-list is lifted by naming the place: what the
		 * run wrote there may be learned (learn.c decides which) */
		bool named = e->has_rule && e->kind == SBX_RULE_HOME_KEPT;
		bool refused = policy_check_path(box, op, w->target, &bwhy) == SBX_DENY;
		if (!refused && e->decision == WIRE_DENY)
			return; /* refused for another reason: not learned */
		if (refused) {
			e->decision = WIRE_DENY;
			e->claimed = w->decision == WIRE_LEARN ? WIRE_LEARN : 0;
			/* The learning run writes nothing to HOME (nothing of
			 * it changes on the host): a write refused there for
			 * no rule is still what the run needed, recorded to be
			 * learned. Only there, as when the run could write it:
			 * a write to /etc refused stays a denial. */
			const char *home = policy_home(box);
			if (w->op != WIRE_WRITE || (bwhy && bwhy->kind != SBX_RULE_HOME_KEPT) ||
			    !sbx_path_under(w->target, home))
				return;
			e->claimed = 0;
		}
		if (w->op != WIRE_WRITE || (e->has_rule && !named) || w->truncated)
			return;
		/* and where it leads: a link made during the run must not
		 * turn a learned directory into a way to a protected one */
		sbx_path_resolve(w->target, real, sizeof(real));
		if ((!refused && policy_check_path(box, op, real, NULL) == SBX_DENY) ||
		    (policy_check_path(r->cfg.policy, op, real, &why) == SBX_DENY && why &&
		     why->kind != SBX_RULE_HOME_KEPT))
			return;
		e->candidate = true;
		return;
	}
	e->candidate = w->op == WIRE_DNS && !e->has_rule && plain_host(w->target);
}

static const char *verb(enum wire_op op)
{
	switch (op) {
	case WIRE_CONNECT: return "connect to";
	case WIRE_DNS: return "lookup of";
	case WIRE_UNIX: return "unix socket";
	case WIRE_SOCKET: return "socket";
	default: return NULL;
	}
}

size_t report_line(const struct wire_report *w, const struct report_expl *e,
		   char *out, size_t outsz)
{
	char raw[REPORT_LINE_MAX];
	size_t o = 0, outlen = sizeof(raw);
	const char *v = verb(w->op);
	char d = e->decision ? e->decision : w->decision;

#define PUT(...)                                                              \
	do {                                                                  \
		int n_ = snprintf(raw + o, o < outlen ? outlen - o : 0, __VA_ARGS__); \
		if (n_ > 0)                                                   \
			o += (size_t)n_;                                      \
	} while (0)
	if (d == WIRE_ALLOW)
		PUT("sbx: trace: %s %s", v ? v : wire_op_name(w->op), e->shown);
	else
		PUT("sbx: %s %s%s%s%s", d == WIRE_LEARN ? "would deny" : "denied",
		    v ? v : wire_op_name(w->op), v ? " " : " of ", e->shown,
		    w->truncated ? "…" : "");
	if (d != WIRE_ALLOW) {
		if (e->device == 1)
			PUT(" — not the sandbox's own terminal: a program inside reaches only "
			    "the run's own pty, never the person's terminals (docs/SECURITY.md, "
			    "\"The terminal is the sandbox's own\")");
		else if (e->device)
			PUT(" — a device the sandbox does not give (inside, /dev holds null, "
			    "zero, full, random, urandom, tty, ptmx, shm and the run's own "
			    "terminal)");
		else if (e->has_rule)
			PUT(" by `%s` (%s)", e->rule, e->note);
		else if (e->unbound && w->err == EBUSY)
			PUT(" — `%s` (%s) allows it, but the directory being moved or "
			    "replaced is kept in place by the sandbox: it holds a protected "
			    "path (a git directory or a protected file)", e->rule, e->source);
		else if (e->unbound)
			PUT(" — `%s` (%s) allows it, but it did not exist when the sandbox "
			    "started, and only an existing path can be made writable "
			    "(create it first, or allow a directory with a trailing /, "
			    "which sbx creates)", e->rule, e->source);
		else if (e->nested_eperm)
			PUT(" — the nested mode refuses every change of extended attributes "
			    "(ACLs) and, as root, of modes and owners: Landlock has no right for "
			    "them and a seccomp filter cannot read the path (docs/SECURITY.md, "
			    "\"The nested mode\")");
		else if (e->guarded)
			PUT(" — the sandbox keeps %s read-only (it guards a git "
			    "directory or a protected file)", e->guarded);
		else if (e->verdict == SBX_ALLOW)
			PUT(" — refused by the sandbox");
		else if (w->op == WIRE_UNIX && w->target[0] != '/' && w->target[0] != '@')
			/* socket(2) itself: no path to name yet */
			PUT(" — a kind of Unix socket the sandbox refuses (datagram ones name "
			    "their peer at each send; without the notify layer, every kind) "
			    "(allow them all with `allow_all_unix_sockets = true` under "
			    "[network] in sandbox.ini)");
		else if (w->op == WIRE_UNIX)
			PUT(" — not in allow_unix_sockets (allow that one socket with "
			    "`allow_unix_sockets = %s` under [network] in sandbox.ini)", e->shown);
		else if (w->op == WIRE_SOCKET)
			PUT(" — the seccomp table refuses it: in the nested mode every socket "
			    "Landlock's TCP rules do not see (only allow_domains = * allows it; "
			    "docs/SECURITY.md, \"The nested mode\")");
		else if (file_op(w->op))
			PUT(" — outside the writable paths");
		else
			PUT(" — not in allow_domains");
		if (e->fix[0] && e->runs_later[0])
			PUT(" (%s %s — %s)", d == WIRE_LEARN ? "learned:" : "allow it with",
			    e->fix, e->runs_later);
		else if (e->fix[0])
			PUT(" (%s %s)", d == WIRE_LEARN ? "learned:" : "allow it with", e->fix);
		else if (e->runs_later[0])
			PUT(" (%s — no flag is offered for it: change it outside the sandbox)",
			    e->runs_later);
		else if (e->renames[0]) {
			/* "once the file exists" would not work: the name is new
			 * at every save, and the rename needs its directory */
			char dir[PATH_MAX];
			const char *slash = strrchr(e->renames, '/');
			snprintf(dir, sizeof(dir), "%.*s", slash && slash != e->renames ?
				 (int)(slash - e->renames) : 1, e->renames);
			PUT(" (the program replaces %s by renaming this new name over it, and "
			    "only all of %s would let it, which no hint offers: give the "
			    "program a file in a directory of its own, or quiet this with "
			    "`ignore_paths = %s` under [report])", e->renames, dir, e->shown);
		} else if (e->has_rule && e->kind == SBX_RULE_DENY_WRITE &&
			   !strstr(e->note, "no setting")) {
			PUT(" (remove that rule to allow it)");
		}
	}
	/* the line said otherwise: say so, the decision above is ours */
	if (e->claimed == WIRE_ALLOW && d == WIRE_DENY)
		PUT(" (reported as allowed; the policy denies it)");
	else if (e->claimed == WIRE_LEARN && d == WIRE_DENY)
		PUT(" (reported as done; the sandbox refuses it)");
	char comm[sizeof(w->comm) * 6];
	report_printable(w->comm, comm, sizeof(comm), true);
	PUT(" — pid %d %s%s", w->pid, comm,
	    !e->boundary ? "" : e->seatbelt ? " (Seatbelt)" : " (seccomp)");
#undef PUT
	/* the rule and its source come from configuration files, a project's
	 * among them: no control character of theirs reaches the terminal
	 * either (the fields above are printable already; no backslash is
	 * doubled twice) */
	return report_printable(raw, out, outsz, false);
}

/* ---- the audit log */

static void json_opt(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	if (v && *v)
		report_json_string(f, v);
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
		E(EPROTONOSUPPORT), E(EISCONN),
	};
#undef E
	for (size_t i = 0; e > 0 && i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	return NULL;
}

static void stamp(FILE *f)
{
	char when[40];
	struct timeval tv;
	struct tm tm;

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "{\"time\":\"%s.%03dZ\"", when, (int)(tv.tv_usec / 1000));
}

/* One record, whole, counted against the run's cap by the caller. */
static void log_write(struct reports *r, const char *text, size_t len)
{
	int fd = open_log(r);

	if (fd < 0)
		return;
	if (write(fd, text, len) != (ssize_t)len && !r->log_failed) {
		r->log_failed = true;
		msg("writing the audit log %s failed: %s", r->cfg.log_path, strerror(errno));
	}
	r->log_bytes += len;
}

/* A record about the stream itself (a cap met, a malformed line, the
 * summary of what was refused or lost): "op":"notice", no "decision".
 * Each kind is written once a run (the summary at the end), so notices
 * pass the caps. `counts`: more fields, JSON, starting with a comma. */
static void log_notice(struct reports *r, const char *kind, const char *message,
		       const char *counts)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!r->cfg.log_path || r->log_failed || !(f = open_memstream(&text, &len)))
		return;
	stamp(f);
	fprintf(f, ",\"layer\":\"supervisor\",\"op\":\"notice\",\"notice\":\"%s\"", kind);
	json_opt(f, "message", message);
	json_opt(f, "run", r->cfg.run_id);
	fprintf(f, "%s}\n", counts ? counts : "");
	fclose(f);
	if (text)
		log_write(r, text, len);
	free(text);
}

void reports_notice(struct reports *r, const char *kind, const char *message)
{
	log_notice(r, kind, message, NULL);
}

static void say(struct reports *r, const char *text);

/* A cap met: once on stderr, once in the log. */
static void cap_met(struct reports *r, bool *said, const char *kind, const char *message)
{
	char line[512];

	if (*said)
		return;
	*said = true;
	snprintf(line, sizeof(line), "sbx: %s", message);
	say(r, line);
	log_notice(r, kind, message, NULL);
}

/* May one more record go to the log now? Within the rate (said once when
 * not), and not after the run's cap. Every record the stream or the proxy
 * causes passes here: both are the sandbox's doing. */
static bool log_gate(struct reports *r)
{
	char m[256];

	if (!r->cfg.log_path || r->log_failed)
		return false;
	if (r->log_capped) {
		r->not_logged++;
		return false;
	}
	if (!take(&r->log_b, r->lim.log_burst, r->lim.log_per_sec, now_ms(r))) {
		r->not_logged++;
		snprintf(m, sizeof(m), "more than %u reports a second: the audit log leaves "
			 "out the rest while that lasts (counted)", r->lim.log_per_sec);
		cap_met(r, &r->said_log_rate, "log-rate", m);
		return false;
	}
	return true;
}

/* One record out, unless it would pass the run's cap (then none more). */
static void log_commit(struct reports *r, const char *text, size_t len)
{
	char m[256];

	if (!text)
		return;
	if (r->log_bytes + len > r->lim.log_max) {
		r->not_logged++;
		r->log_capped = true;
		bool mib = !(r->lim.log_max & ((1u << 20) - 1));
		snprintf(m, sizeof(m), "the audit log reached this run's cap (%llu %s): no more "
			 "records for this run (counted)", r->lim.log_max >> (mib ? 20 : 10),
			 mib ? "MiB" : "KiB");
		cap_met(r, &r->said_log_cap, "log-cap", m);
		return;
	}
	log_write(r, text, len);
}

/* The end of a record: "ignored", and the quiet rule that kept it off
 * the terminal (ignore_paths / ignore_domains) with its source, so the
 * log says which setting hid it and `sbxctl status` can list it. */
static void json_quiet(FILE *f, const struct sbx_rule *q)
{
	char rule[PATH_MAX + 32];

	fprintf(f, ",\"ignored\":%s", q ? "true" : "false");
	if (!q)
		return;
	policy_rule_text(q, rule, sizeof(rule));
	json_opt(f, "quiet_rule", rule);
	json_opt(f, "quiet_source", q->source);
}

/* One audit record, whatever layer made it (the shim's line, the notify
 * layer's decision or refused call, the proxy's event): one shape, one
 * writer, the fields in this order. The first eight and "run" are in
 * every record (a NULL one as null); the others in the records of the
 * layers that have them (`has`), "claimed" only when there is a claim. */
enum {
	REC_ERRNO = 1 << 0,
	REC_REASON = 1 << 1,
	REC_FIX = 1 << 2,
	REC_VIA = 1 << 3,
	REC_ADDRESS = 1 << 4,
	REC_CLIENT = 1 << 5,
	REC_TRUNCATED = 1 << 6,
	REC_QUIET = 1 << 7,
};
struct record {
	unsigned has;
	const char *layer, *op, *target, *decision, *claimed, *rule, *source;
	int pid;
	bool pid_null;        /* "pid":null: no process is known (the proxy's) */
	const char *comm, *err, *reason, *fix, *via, *address, *client;
	bool truncated;
	const struct sbx_rule *quiet; /* "ignored", and the quiet rule if any */
};

static void record_write(struct reports *r, const struct record *rec)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!log_gate(r) || open_log(r) < 0 || !(f = open_memstream(&text, &len)))
		return;
	stamp(f);
	json_opt(f, "layer", rec->layer);
	json_opt(f, "op", rec->op);
	json_opt(f, "target", rec->target);
	json_opt(f, "decision", rec->decision);
	if (rec->claimed)
		json_opt(f, "claimed", rec->claimed);
	json_opt(f, "rule", rec->rule);
	json_opt(f, "source", rec->source);
	if (rec->pid_null)
		fputs(",\"pid\":null", f);
	else
		fprintf(f, ",\"pid\":%d", rec->pid);
	json_opt(f, "comm", rec->comm);
	if (rec->has & REC_ERRNO)
		json_opt(f, "errno", rec->err);
	if (rec->has & REC_REASON)
		json_opt(f, "reason", rec->reason);
	if (rec->has & REC_FIX)
		json_opt(f, "fix", rec->fix);
	if (rec->has & REC_VIA)
		json_opt(f, "via", rec->via);
	if (rec->has & REC_ADDRESS)
		json_opt(f, "address", rec->address);
	if (rec->has & REC_CLIENT)
		json_opt(f, "client", rec->client);
	json_opt(f, "run", r->cfg.run_id);
	if (rec->has & REC_TRUNCATED)
		fprintf(f, ",\"truncated\":%s", rec->truncated ? "true" : "false");
	if (rec->has & REC_QUIET)
		json_quiet(f, rec->quiet);
	fputs("}\n", f);
	fclose(f);
	log_commit(r, text, len);
	free(text);
}

static void log_report(struct reports *r, const struct wire_report *w,
		       const struct report_expl *e, const struct sbx_rule *quiet,
		       bool boundary)
{
	record_write(r, &(struct record){
		.layer = !boundary ? "shim" : e->seatbelt ? "seatbelt" : "notify",
		.op = wire_op_name(w->op),
		.target = w->target, .decision = decision_name(e->decision),
		.claimed = e->claimed ? decision_name(e->claimed) : NULL,
		.rule = e->has_rule ? e->rule : NULL, .source = e->has_rule ? e->source : NULL,
		.pid = w->pid, .comm = w->comm, .err = errno_name(w->err), .fix = e->fix,
		.truncated = w->truncated, .quiet = quiet,
		.has = REC_ERRNO | REC_FIX | REC_TRUNCATED | REC_QUIET });
}

/* ---- one line from the pipe */

/* ---- the terminal ([report] stderr) */

/* A full-screen program (an agent's TUI, vim, less) puts the terminal in
 * raw mode (no ICANON) while it draws: a line written then lands inside
 * its screen. The supervisor's stderr is that same terminal, so it can ask
 * without seeing the program's output. */
static bool terminal_busy(const struct reports *r)
{
	struct termios t;

	if (!r->out_chr)
		return false;
	if (r->cfg.tty_busy)
		return r->cfg.tty_busy(r->cfg.out_fd);
	return tcgetattr(r->cfg.out_fd, &t) == 0 && !(t.c_lflag & ICANON);
}

/* May lines be written to out_fd now? */
static bool may_write_now(const struct reports *r)
{
	switch (r->cfg.tty) {
	case SBX_REPORT_LIVE:
		return true;
	case SBX_REPORT_AUTO:
		return !terminal_busy(r);
	default:
		return false;
	}
}

/* Room on out_fd now for a line (up to PIPE_BUF bytes: a pipe with room
 * takes that whole)? */
static bool room_now(const struct reports *r)
{
	struct pollfd pf = { r->cfg.out_fd, POLLOUT, 0 };

	return poll(&pf, 1, 0) != 0;
}

/* A line of ours starts a line. In a file shared with COMMAND whose last
 * byte is no newline (its last line written without one, a progress bar,
 * a line it keeps open so that ours are glued to its text, where `^sbx: `
 * finds none): a newline first. A pipe or a terminal is not read back. */
static void own_line(struct reports *r)
{
	off_t size;

	if (reports_midline(r, &size))
		sbx_write_text(r->cfg.out_fd, "\n", 1);
}

/* The held lines out. While COMMAND runs (!wait), only as far as out_fd
 * has room now, line by line: stderr's open file description is
 * COMMAND's too, and a program inside may make it non-blocking (Node does
 * with its stdio pipes); a full pipe then said EAGAIN and the line was
 * lost (issue 24), and waiting for room here would stall every notified
 * call and the proxy with us. The rest stays held (r->stalled) until the
 * loop sees room (reports_room_fd). At the end (wait), all of it, waiting
 * for room as a blocking write would (util.c). */
static void write_held(struct reports *r, bool wait)
{
	size_t off = 0;

	if (!r->nheld)
		return;
	r->stalled = false;
	if (!wait && !room_now(r)) {
		r->stalled = true;
		return;
	}
	own_line(r);
	/* said once per batch held back, so the person knows these lines
	 * are late, not happening now */
	if (r->held_busy)
		sbx_dprintf(r->cfg.out_fd, "sbx: reports held while %s:\n",
			r->cfg.tty == SBX_REPORT_END ? "COMMAND ran ([report] stderr = end)" :
			"the terminal was in full-screen use");
	r->held_busy = false;
	if (wait) {
		sbx_write_text(r->cfg.out_fd, r->held, r->nheld); /* stops where stderr is gone */
		r->nheld = 0;
		return;
	}
	while (off < r->nheld) {
		const char *nl = memchr(r->held + off, '\n', r->nheld - off);
		size_t len = (nl ? (size_t)(nl - r->held) + 1 : r->nheld) - off;
		if (off && !room_now(r)) {
			r->stalled = true;
			break;
		}
		sbx_write_text(r->cfg.out_fd, r->held + off, len);
		off += len;
	}
	memmove(r->held, r->held + off, r->nheld - off);
	r->nheld -= off;
}

/* One line for the person: now, or held for reports_flush(). */
static void say(struct reports *r, const char *text)
{
	size_t len = strlen(text);
	bool now = may_write_now(r), hold = r->cfg.hold || !now;

	if (r->cfg.tty == SBX_REPORT_OFF)
		return;
	if (!now)
		r->held_busy = true;
	if (hold && r->nheld + len + 1 > 64 * 1024) {
		if (now)
			reports_flush(r);
		if (r->nheld + len + 1 > 64 * 1024) {
			r->not_held++; /* the log has it */
			return;
		}
	}
	if (hold && r->nheld + len + 1 > r->capheld) {
		size_t cap = r->capheld ? r->capheld * 2 : 8192;
		while (cap < r->nheld + len + 1)
			cap *= 2;
		char *n = realloc(r->held, cap);
		if (n) {
			r->held = n;
			r->capheld = cap;
		}
	}
	if (!hold || r->nheld + len + 1 > r->capheld) {
		if (!now) {
			r->not_held++;
			return;
		}
		reports_flush(r);
		own_line(r);
		sbx_dprintf(r->cfg.out_fd, "%s\n", text);
		return;
	}
	memcpy(r->held + r->nheld, text, len);
	r->held[r->nheld + len] = '\n';
	r->nheld += len + 1;
}

/* May one more report line reach the terminal now? Counted and said once
 * when not. */
static bool may_say(struct reports *r)
{
	char m[256];

	if (take(&r->say_b, r->lim.say_burst, r->lim.say_per_sec, now_ms(r)))
		return true;
	r->not_shown++;
	snprintf(m, sizeof(m), "more than %u report lines a second: the rest are counted, "
		 "not shown, while that lasts (the audit log keeps them)", r->lim.say_per_sec);
	cap_met(r, &r->said_say_rate, "terminal-rate", m);
	return false;
}

static void malformed(struct reports *r)
{
	r->malformed++;
	if (r->said_malformed)
		return;
	r->said_malformed = true;
	log_notice(r, "malformed", "a report line that is not one the shim writes (anything "
		   "in the sandbox can write to the report pipe): not acted on; any more are "
		   "counted in the summary", NULL);
}

static bool seen_room(const struct reports *r)
{
	return r->nseen < r->lim.seen_max && r->seen_bytes < r->lim.seen_bytes;
}

/* A distinct report into the table, within its bounds; NULL when it is
 * full (said once). `text` may be NULL only when !seen_room(). */
static struct seen *remember(struct reports *r, const char *key, size_t klen,
			     const struct wire_report *w, const struct report_expl *e,
			     const char *text)
{
	bool keep_line = e->decision == WIRE_DENY && r->cfg.mode != REPORTS_LEARN;
	size_t cost = sizeof(struct seen) + klen + 1 + 2 * sizeof(void *);
	struct seen *s;
	char m[256];

	if (seen_room(r) && keep_line)
		cost += strlen(text) + 1;
	if (!seen_room(r) || r->seen_bytes + cost > r->lim.seen_bytes) {
		r->not_kept++;
		snprintf(m, sizeof(m), "%zu distinct reports: later new ones are not folded%s "
			 "(counted)", r->nseen, r->cfg.mode == REPORTS_LEARN ? " or learned" : "");
		cap_met(r, &r->said_full, "table-full", m);
		return NULL;
	}
	if (!(s = calloc(1, sizeof(*s))) || !(s->key = malloc(klen + 1))) {
		free(s);
		return NULL;
	}
	memcpy(s->key, key, klen + 1);
	s->target = s->key + 3;
	s->decision = e->decision;
	s->op = w->op;
	s->candidate = e->candidate;
	s->dir = w->dir;
	s->count = 1;
	if (keep_line && (s->line = strdup(text))) {
		/* folded repeats may come from other processes: no pid */
		char *pid = NULL;
		for (char *q = strstr(s->line, " — pid "); q; q = strstr(q + 1, " — pid "))
			pid = q;
		if (pid)
			*pid = '\0';
	}
	HASH_ADD_KEYPTR(hh, r->seen, s->key, klen, s);
	r->nseen++;
	r->seen_bytes += cost;
	return s;
}

static void take_report(struct reports *r, const struct wire_report *wr, enum event_layer layer,
			const struct sbx_rule *why, int pid);

static bool proxy_seen_add(struct reports *r, const char *key, struct seen **out);

/* ---- the terminal line of an event */

static const char *const via_name[] = { "CONNECT", "http", "socks5", "dns", "host_ports",
					"seccomp" };

/* How an EVENT_NET came, in the record's words ("?" for a value no
 * producer gives). */
static const char *via_text(enum event_via v)
{
	return (unsigned)v < sizeof(via_name) / sizeof(via_name[0]) ? via_name[v] : "?";
}

/* What a line says besides its event, each string printable: the
 * explanation of an access, the shown forms of the rest. */
struct words {
	const struct wire_report *w;   /* EVENT_ACCESS */
	const struct report_expl *e;   /* EVENT_ACCESS */
	const char *target;            /* EVENT_NET, EVENT_CALL: shown */
	const char *reason, *fix, *rule; /* EVENT_NET */
	const char *comm;              /* EVENT_NET (seccomp), EVENT_CALL */
	const char *on;                /* EVENT_CALL: what the call was on */
	unsigned long port;            /* EVENT_NOTE: a loopback connect's port */
};

/* event_line()'s text, as it comes: its words are not all printable. */
static void event_text(const struct event *ev, const struct words *wd, char *out,
		       size_t outsz)
{
	const char *t = wd->target, *reason = wd->reason, *fix = wd->fix, *rule = wd->rule;
	const char *src = ev->rule ? ev->rule->source : "?";
	char who[120];
	int n = 0;

	out[0] = '\0';
	switch (ev->what) {
	case EVENT_ACCESS:
		break; /* report_line()'s */
	case EVENT_NOTE:
		if (ev->op == WIRE_EXEC)
			n = snprintf(out, outsz, "sbx: note: %s is a static binary (pid %d): the "
				     "shim cannot see inside it, so what the sandbox refuses it will "
				     "fail without an explanation here (the boundary holds all the "
				     "same)", t, ev->pid);
		else
			n = snprintf(out, outsz, "sbx: note: connect to %s refused — the sandbox "
				     "has a loopback of its own, where nothing listens on port %lu; a "
				     "service on the host's 127.0.0.1:%lu is reachable with "
				     "--host-port %lu — pid %d %s", t, wd->port, wd->port, wd->port,
				     ev->pid, wd->comm);
		break;
	case EVENT_CALL:
		n = snprintf(out, outsz, "sbx: denied %s%s%s — %s — pid %d %s (%s)", t,
			     wd->on[0] ? " on " : "", wd->on, reason, ev->pid, wd->comm,
			     ev->layer == EVENT_SEATBELT ? "Seatbelt" : "seccomp");
		break;
	case EVENT_NET:
		if (ev->via == EVENT_VIA_DNS) {
			if (ev->decision == WIRE_DENY && ev->rule)
				n = snprintf(out, outsz, "sbx: denied lookup of %s — %s (remove that "
					     "rule to allow it) — by the sandbox's resolver (REFUSED)",
					     t, reason);
			else if (ev->decision == WIRE_DENY)
				n = snprintf(out, outsz, "sbx: denied lookup of %s — %s (allow it "
					     "with %s) — by the sandbox's resolver (REFUSED)", t, reason,
					     fix);
			else if (ev->decision == WIRE_ALLOW)
				n = snprintf(out, outsz, "sbx: trace: lookup of %s by the sandbox's "
					     "resolver, allowed by `%s` (%s), answered %s (a stand-in)",
					     t, rule, src, ev->address);
			else
				n = snprintf(out, outsz, "sbx: lookup of %s failed in the sandbox's "
					     "resolver — %s", t, reason);
			break;
		}
		if (ev->via == EVENT_VIA_HOSTPORT) {
			n = snprintf(out, outsz, ev->decision == WIRE_ALLOW ?
				     "sbx: trace: connect to %s via host_ports (the host's own port)" :
				     "sbx: connect to %s via host_ports failed — %s", t, reason);
			break;
		}
		/* who: the proxy, or the program whose own connect it was */
		if (ev->via == EVENT_VIA_SECCOMP)
			snprintf(who, sizeof(who), "pid %d %s (seccomp)", ev->pid, wd->comm);
		else
			snprintf(who, sizeof(who), "via the proxy");
		switch (ev->decision) {
		case WIRE_DENY:
			/* the rule's own words ("denied by `deny_domains = x`
			 * (file:3)") or why no rule allows it, and how to change
			 * that */
			if (ev->rule)
				n = snprintf(out, outsz, "sbx: denied connect to %s — %s (remove "
					     "that rule to allow it) — %s", t, reason, who);
			else if (!fix[0]) /* nothing would allow it */
				n = snprintf(out, outsz, "sbx: denied connect to %s — %s — %s", t,
					     reason, who);
			else
				n = snprintf(out, outsz, "sbx: denied connect to %s — %s (allow it "
					     "with %s) — %s", t, reason, fix, who);
			break;
		case WIRE_ALLOW:
			if (ev->via == EVENT_VIA_SECCOMP)
				n = snprintf(out, outsz, "sbx: trace: connect to %s by %s, allowed by "
					     "`%s` (%s), to %s", t, who, rule, src, ev->address);
			else
				n = snprintf(out, outsz, "sbx: trace: connect to %s via the proxy "
					     "(%s), allowed by `%s` (%s), to %s", t, via_text(ev->via),
					     rule, src, ev->address);
			break;
		case EVENT_FAILED:
			if (ev->via == EVENT_VIA_SECCOMP)
				n = snprintf(out, outsz, "sbx: connect to %s failed — %s (the policy "
					     "allows it) — %s", t, reason, who);
			else
				n = snprintf(out, outsz, "sbx: connect to %s failed in the proxy — %s "
					     "(the policy allows it)", t, reason);
			break;
		default:
			if (ev->via == EVENT_VIA_SECCOMP)
				n = snprintf(out, outsz, "sbx: connect to %s failed — %s (the policy "
					     "allows it) — %s", t, reason, who);
			else
				n = snprintf(out, outsz, "sbx: the proxy refused a %s client: %s",
					     via_text(ev->via), reason);
			break;
		}
		break;
	}
	if (n < 0)
		out[0] = '\0';
}

/* The one writer of an event's terminal line, into out (NUL-terminated);
 * the length. Its pieces from the sandbox are printable already, not
 * every word between them: a reason names paths from trees the sandbox
 * writes (the git directory a refused move would take away), a rule and
 * its source come from a project's file. No control character of theirs
 * reaches the terminal either (no backslash is doubled twice). */
static size_t event_line(const struct event *ev, const struct words *wd, char *out,
			 size_t outsz)
{
	char raw[REPORT_LINE_MAX];

	if (ev->what == EVENT_ACCESS)
		return report_line(wd->w, wd->e, out, outsz);
	event_text(ev, wd, raw, sizeof(raw));
	return report_printable(raw, out, outsz, false);
}

/* A loopback connect refused inside (shim/net.c): the sandbox's loopback
 * is its own, and the host's service there is one flag away. The
 * program's claim about itself, so only words: once per port, only for
 * the sandbox's loopback addresses, never a decision. */
static void loopback_note(struct reports *r, const struct event *ev)
{
	char key[80], text[REPORT_LINE_MAX], comm[32 * 6];
	unsigned long port;
	char *end;
	const char *t = ev->target;
	const char *digits = !strncmp(t, "127.0.0.1:", 10) ? t + 10 :
			     !strncmp(t, "[::1]:", 6) ? t + 6 : NULL;
	const char *colon = digits ? digits - 1 : NULL;
	struct seen *s;

	/* exactly the address and a port: the target is the line's, and
	 * anything between them (a C1 control, a bidi override) would reach
	 * the person's terminal as it came */
	if (!digits || *digits < '1' || *digits > '9' || strspn(digits, "0123456789") > 5)
		return;
	port = strtoul(digits, &end, 10);
	if (*end || !port || port > 65535)
		return;
	snprintf(key, sizeof(key), "N %.*s:%lu", (int)(colon - t), t, port);
	if (proxy_seen_add(r, key, &s) || !may_say(r))
		return;
	report_printable(ev->comm ? ev->comm : "", comm, sizeof(comm), true);
	event_line(ev, &(struct words){ .target = t, .comm = comm, .port = port }, text,
		   sizeof(text));
	say(r, text);
}

/* The shim's words that decide nothing (a claim the command can forge,
 * and harmless): a line, once. */
static void take_note(struct reports *r, const struct event *ev)
{
	char text[REPORT_LINE_MAX];

	if (ev->op == WIRE_EXEC && !r->said_static) {
		char tmp[PATH_MAX], shown[PATH_MAX];
		r->said_static = true;
		policy_tildify(r->cfg.policy, ev->target, tmp, sizeof(tmp));
		report_printable(tmp, shown, sizeof(shown), true);
		event_line(ev, &(struct words){ .target = shown }, text, sizeof(text));
		say(r, text);
	}
	if (ev->op == WIRE_CONNECT)
		loopback_note(r, ev);
}

/* One line from the pipe: parsed strictly, then an event like every
 * other layer's, decided again below (take_access). pid: the one its
 * pieces carried (a joined line), which its own must be; 0: a line
 * written whole. */
static void handle(struct reports *r, const char *line, size_t len, int pid)
{
	struct wire_report w;

	if (report_parse(line, len, &w) || !claim_expected(r->cfg.mode, w.decision) ||
	    (pid && w.pid != pid)) {
		malformed(r);
		return;
	}
	reports_event(r, &(struct event){
		.what = w.decision == WIRE_NOTE ? EVENT_NOTE : EVENT_ACCESS,
		.layer = EVENT_SHIM, .decision = w.decision, .op = w.op, .target = w.target,
		.truncated = w.truncated, .dir = w.dir, .pid = w.pid, .comm = w.comm,
		.err = w.err });
}

/* The notify layer's decision, in its own words: the socket's path (the
 * shim's unix reports have none), and the rule it decided by when that is
 * not the path's own (a directory renamed to `.git` would complete
 * `.git/hooks/` with what it holds). */
static void boundary_explain(const struct policy *p, const struct wire_report *w,
			     struct report_expl *e, const struct sbx_rule *why)
{
	char tmp[PATH_MAX];

	if (w->op == WIRE_UNIX) {
		policy_tildify(p, w->target, tmp, sizeof(tmp));
		report_printable(tmp, e->shown, sizeof(e->shown), true);
	}
	if (!why || e->decision != WIRE_DENY)
		return;
	expl_rule(e, why);
	e->unbound = false;
	e->fix[0] = '\0';
}

/* A write refused by a name rule at any depth (`.bashrc`, a
 * `deny_write = *.lock`): the shim lets the kernel answer those and then
 * names the refusal itself (shim/check.c, deferred()), so where the
 * boundary refused, both layers say it. On Linux the notify layer
 * refuses inside the call and says it first; the shim's line after it is
 * its echo. On macOS the shim's line comes first and Seatbelt's record
 * from the system log a moment later (or, the log being quick, before
 * the shim's line is read): the second is the echo. */
static bool deferred_name(const struct reports *r, const struct wire_report *w)
{
	const struct sbx_rule *why;

	return w->op == WIRE_WRITE && w->decision == WIRE_DENY &&
	       policy_check_path(r->cfg.policy, SBX_OP_WRITE, w->target, &why) == SBX_DENY &&
	       why && why->pat == SBX_PAT_ANYWHERE &&
	       (why->kind == SBX_RULE_MANDATORY || why->kind == SBX_RULE_DENY_WRITE);
}

/* How long an echo is awaited: the shim's line follows the boundary's
 * refusal as the call returns; Seatbelt's record follows the shim's line
 * as late as the system log delivers (the end sentinel's wait, 10 s:
 * docs/MACOS.md). */
#define ECHO_CALL_MS 3000
#define ECHO_LOG_MS 10000

static size_t echo_cost(size_t klen)
{
	return sizeof(struct echo) + klen + 1 + 2 * sizeof(void *);
}

static void echo_drop(struct reports *r, struct echo *e)
{
	HASH_DEL(r->echoes, e);
	r->nechoes--;
	r->echo_bytes -= echo_cost(e->klen);
	free(e->key);
	free(e);
}

/* The echoes no longer awaited go, oldest first (the table is in the
 * order last awaited; one awaited longer further on goes when looked up). */
static void echo_expire(struct reports *r, unsigned long long now)
{
	while (r->echoes && r->echoes->until <= now)
		echo_drop(r, r->echoes);
}

/* The echo's key: the side that said the refusal ('b' the boundary, 's'
 * the shim), the process as it knows itself, the report's key. */
static size_t echo_key(char *out, size_t outsz, char side, int pid, const char *key)
{
	int n = snprintf(out, outsz, "%c%d %s", side, pid, key);

	return n < 0 || (size_t)n >= outsz ? 0 : (size_t)n;
}

/* `side` said a refusal of a deferred name: the other side's word for it
 * is awaited until now + ms. Within the table's bounds (those of the
 * lines said): past them, the echo is counted as a refusal of its own. */
static void echo_expect(struct reports *r, char side, int pid, const char *key,
			unsigned long long ms)
{
	char ek[WIRE_TARGET_MAX + 32];
	size_t klen = echo_key(ek, sizeof(ek), side, pid, key);
	unsigned long long now = now_ms(r);
	struct echo *e;

	echo_expire(r, now);
	if (!klen || pid <= 0)
		return;
	HASH_FIND(hh, r->echoes, ek, klen, e);
	if (e) {
		HASH_DEL(r->echoes, e); /* to the end: the order last awaited */
	} else {
		if (r->nechoes >= r->lim.seen_max ||
		    r->echo_bytes + echo_cost(klen) > r->lim.seen_bytes ||
		    !(e = calloc(1, sizeof(*e))))
			return;
		if (!(e->key = malloc(klen + 1))) {
			free(e);
			return;
		}
		memcpy(e->key, ek, klen + 1);
		e->klen = klen;
		r->nechoes++;
		r->echo_bytes += echo_cost(klen);
	}
	HASH_ADD_KEYPTR(hh, r->echoes, e->key, klen, e);
	e->n++;
	e->until = now + ms;
}

/* Is this the echo of a refusal `side` said, for the same process, still
 * awaited? Taken if so. */
static bool echo_take(struct reports *r, char side, int pid, const char *key)
{
	char ek[WIRE_TARGET_MAX + 32];
	size_t klen = echo_key(ek, sizeof(ek), side, pid, key);
	unsigned long long now = now_ms(r);
	struct echo *e;

	echo_expire(r, now);
	if (!klen || pid <= 0)
		return false;
	HASH_FIND(hh, r->echoes, ek, klen, e);
	if (!e)
		return false;
	if (e->until <= now) {
		echo_drop(r, e);
		return false;
	}
	if (--e->n == 0)
		echo_drop(r, e);
	return true;
}

/* One refusal, one record: is this one's word the echo of what the other
 * layer said of it already (then taken, and nothing more is said)? Else
 * its echo is awaited. The first word is kept: the notify layer's on
 * Linux (inside the call), on macOS the shim's or Seatbelt's, whichever
 * came first. Matched for the same process only: a static binary's
 * refusal, which no shim line follows, never takes another process's
 * refusal of the same name for its echo. */
static bool echo_of_said(struct reports *r, enum event_layer layer, int pid, const char *key)
{
	if (layer == EVENT_SHIM) {
		if (echo_take(r, 'b', pid, key))
			return true;
		if (r->cfg.log_after)
			echo_expect(r, 's', pid, key, ECHO_LOG_MS);
		return false;
	}
	if (layer != EVENT_NOTIFY && layer != EVENT_SEATBELT)
		return false;
	if (layer == EVENT_SEATBELT && echo_take(r, 's', pid, key))
		return true;
	echo_expect(r, 'b', pid, key, ECHO_CALL_MS);
	return false;
}

/* A report decided: explained, logged, folded, said. A layer other than
 * the shim's is the boundary's own decision (the notify layer's, or
 * Seatbelt's from the system log), not a claim from the pipe. `pid`: the
 * process as it knows itself (its shim's number). */
static void take_report(struct reports *r, const struct wire_report *wr, enum event_layer layer,
			const struct sbx_rule *why, int pid)
{
	struct wire_report w = *wr;
	struct report_expl e;
	struct seen *s;
	char key[WIRE_TARGET_MAX + 8], text[REPORT_LINE_MAX];
	const struct sbx_rule *quiet;

	bool boundary = layer != EVENT_SHIM;

	/* The hint's words cost looks at the disk: made only when something
	 * may carry them (a terminal line, a log record, the fold table's
	 * line, a learning run). A flood past every cap is counted and costs
	 * no look: a forger's 1 MiB backlog, drained at the end, took a
	 * loaded machine seconds before sbx-preload could exit. */
	unsigned long long now_t = now_ms(r);
	bool words = r->cfg.mode == REPORTS_LEARN || seen_room(r) ||
		     has_token(&r->say_b, r->lim.say_burst, r->lim.say_per_sec, now_t) ||
		     (r->cfg.log_path && !r->log_failed && !r->log_capped &&
		      has_token(&r->log_b, r->lim.log_burst, r->lim.log_per_sec, now_t));
	explain(r->cfg.policy, &w, &e, words);
	e.seatbelt = layer == EVENT_SEATBELT;
	/* Seatbelt's rules name paths, not mounts: an allow_write of a file
	 * not there yet lets it be made, so the hint needs no "once the file
	 * exists" (policy_hint's caveat is bubblewrap's) */
	char *caveat = e.seatbelt ? strstr(e.fix, " once the file exists") : NULL;
	if (caveat)
		*caveat = '\0';
	if (boundary) {
		/* what the supervisor did, not a claim to weigh */
		e.decision = w.decision;
		e.claimed = 0;
		e.boundary = true;
		boundary_explain(r->cfg.policy, &w, &e, why);
		/* a write the notify layer refused in HOME: recorded to be
		 * learned as the shim's are (learn_decide) */
		if (r->cfg.mode == REPORTS_LEARN && w.decision == WIRE_DENY && w.op == WIRE_WRITE)
			learn_decide(r, &w, &e);
	} else if (r->cfg.mode == REPORTS_LEARN) {
		learn_decide(r, &w, &e);
	}
	/* the nested mode's [nested] rows refuse what the policy allows: a
	 * file's extended attributes, and root's chmod and chown. Elsewhere
	 * the shim's EPERM of an attribute the policy allows is the notify
	 * layer's refusal (a default ACL), which that layer says itself. */
	if (!boundary && w.op == WIRE_WRITE && w.err == EPERM && e.verdict == SBX_ALLOW &&
	    e.decision == WIRE_DENY) {
		if (!r->cfg.nested)
			return;
		e.nested_eperm = true;
		e.unbound = false;
	}
	if (e.unbound && file_op(w.op))
		for (size_t i = 0; i < r->cfg.nguarded; i++)
			if (sbx_path_under(w.target, r->cfg.guarded[i])) {
				e.unbound = false;
				e.guarded = r->cfg.guarded[i];
				e.fix[0] = '\0';
				break;
			}
	int klen = snprintf(key, sizeof(key), "%c%c%c%s", e.decision, 'a' + (int)w.op,
			    w.truncated ? '+' : '=', w.target);
	/* one refusal, one record: the other layer's said it */
	if (e.decision == WIRE_DENY && deferred_name(r, &w) && echo_of_said(r, layer, pid, key))
		return;
	if (e.claimed)
		r->contradicted++;
	quiet = policy_report_quiet(r->cfg.policy, file_op(w.op), w.target);
	log_report(r, &w, &e, quiet, boundary);
	if (quiet) {
		r->ignored++;
		r->quiet += e.decision == WIRE_DENY;
		return;
	}
	if (e.decision == WIRE_DENY)
		r->denied[w.op]++;
	else if (e.decision == WIRE_LEARN)
		r->learned++;
	else
		r->allowed++;

	/* --learn says it all at the end; the rest say it now. The line is
	 * made only when it goes somewhere: a flood meets a full table and
	 * an empty terminal budget at once, and then costs no line. */
	bool now = r->cfg.mode != REPORTS_LEARN || e.decision == WIRE_DENY;
	HASH_FIND(hh, r->seen, key, (size_t)klen, s);
	if (s) {
		s->count++;
		/* A repeat of what never reached the terminal (said while the
		 * rate limit was met) is said now, if the budget allows: else a
		 * forged line sent into a flood hid every later real one of
		 * its key (the first folds them; only a shown one is said at
		 * the end). Said without counting: the first was counted. */
		if (!s->shown && now && take(&r->say_b, r->lim.say_burst, r->lim.say_per_sec,
					     now_ms(r))) {
			report_line(&w, &e, text, sizeof(text));
			say(r, text);
			s->shown = true;
		}
		return;
	}
	bool say_it = now && may_say(r);
	bool room = seen_room(r);
	if (say_it || room)
		report_line(&w, &e, text, sizeof(text));
	s = remember(r, key, (size_t)klen, &w, &e, room ? text : NULL);
	if (say_it)
		say(r, text);
	if (s)
		s->shown = say_it;
}

/* An access (EVENT_ACCESS): the shim's claim, decided again here, or the
 * notify layer's own decision, with the rule it decided by (a shim line
 * brings none: it would be a claim too). */
static void take_access(struct reports *r, const struct event *ev)
{
	struct wire_report w = { .decision = ev->decision, .op = ev->op, .pid = ev->pid,
				 .err = ev->err, .truncated = ev->truncated, .dir = ev->dir };
	bool boundary = ev->layer != EVENT_SHIM;

	snprintf(w.comm, sizeof(w.comm), "%s", ev->comm ? ev->comm : "");
	if (snprintf(w.target, sizeof(w.target), "%s", ev->target) >= (int)sizeof(w.target))
		w.truncated = 1;
	size_t tl = strlen(w.target);
	if (boundary && file_op(w.op) && !w.truncated && tl > 1 && w.target[tl - 1] == '/') {
		w.target[tl - 1] = '\0'; /* a directory being made (mkdir) */
		w.dir = 1;
	}
	take_report(r, &w, ev->layer, boundary ? ev->rule : NULL,
		    ev->self_pid > 0 ? ev->self_pid : ev->pid);
}

bool reports_pending(const struct reports *r)
{
	/* lines the terminal cannot take now are not pending: the loop
	 * would wake for nothing; the next report or the end writes them.
	 * Nor are lines waiting for room: the loop waits for that. */
	return r->nheld > 0 && !r->stalled && may_write_now(r);
}

bool reports_midline(const struct reports *r, off_t *size)
{
	struct stat st;
	char last;

	/* a file shared with COMMAND (2>log, an agent's tool output): its
	 * last byte says whether the program is inside a line of its own */
	*size = -1;
	if (r->tail_fd < 0 || fstat(r->tail_fd, &st))
		return false;
	*size = st.st_size;
	return st.st_size > 0 && pread(r->tail_fd, &last, 1, st.st_size - 1) == 1 &&
	       last != '\n';
}

int reports_room_fd(const struct reports *r)
{
	return r->stalled && r->nheld ? r->cfg.out_fd : -1;
}

void reports_flush(struct reports *r)
{
	if (may_write_now(r))
		write_held(r, false);
	else if (r->nheld)
		r->held_busy = true;
}

/* A line, or a piece of one (wire.h: a line longer than the channel
 * takes whole), joined first (common/wire_join.h). */
static void line_in(struct reports *r, const char *line, size_t len)
{
	const char *whole;
	size_t wlen;
	int pid;

	if (len < 5 || memcmp(line, "SBXP ", 5)) {
		handle(r, line, len, 0);
		return;
	}
	switch (wire_join_take(&r->join, line, len, &whole, &wlen, &pid)) {
	case WIRE_JOIN_WHOLE:
		handle(r, whole, wlen, pid);
		break;
	case WIRE_JOIN_MALFORMED:
		malformed(r);
		break;
	case WIRE_JOIN_HELD:
		break;
	}
}

void reports_feed(struct reports *r, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = data[i];
		if (c == '\n') {
			if (!r->skipping)
				line_in(r, r->buf, r->len);
			r->len = 0;
			r->skipping = false;
			continue;
		}
		if (r->skipping)
			continue;
		if (r->len >= WIRE_MAX) {
			malformed(r);
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

/* [report] stderr = off: the summary's counts go to the log only. */
static void finish_log_only(struct reports *r, unsigned long dropped)
{
	char counts[256];

	if (!(r->malformed || r->contradicted || r->not_logged || r->not_kept || dropped))
		return;
	snprintf(counts, sizeof(counts),
		 ",\"malformed\":%lu,\"contradicted\":%lu,\"dropped\":%lu,"
		 "\"not_logged\":%lu,\"not_folded\":%lu", r->malformed, r->contradicted,
		 dropped, r->not_logged, r->not_kept);
	log_notice(r, "summary", "the run's counts ([report] stderr = off)", counts);
}

/* A line of the end's (a fold, the summary), where a line starts. */
static void end_line(struct reports *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void end_line(struct reports *r, const char *fmt, ...)
{
	char *text;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	own_line(r);
	sbx_write_text(r->cfg.out_fd, text, (size_t)n);
	free(text);
}

void reports_finish(struct reports *r, unsigned long dropped)
{
	struct seen *s, *tmp;
	char sum[1024] = "", logshown[PATH_MAX], counts[512];
	unsigned long repeats = 0, unsaid = 0;
	static const char *const names[WIRE_OP_COUNT][2] = {
		[WIRE_READ] = { "denied read", "denied reads" },
		[WIRE_WRITE] = { "denied write", "denied writes" },
		[WIRE_EXEC] = { "denied exec", "denied execs" },
		[WIRE_CONNECT] = { "denied connect", "denied connects" },
		[WIRE_DNS] = { "denied lookup", "denied lookups" },
		[WIRE_UNIX] = { "denied unix socket", "denied unix sockets" },
		[WIRE_SOCKET] = { "denied socket", "denied sockets" },
	};

	if (r->len && !r->skipping)
		line_in(r, r->buf, r->len); /* a last line without its newline */
	r->len = 0;
	/* long lines begun and never finished: dropped reports too */
	dropped += wire_join_end(&r->join);
	if (r->cfg.tty == SBX_REPORT_OFF) {
		finish_log_only(r, dropped);
		return;
	}
	write_held(r, true);
	/* The repeats of what was shown, the shim's and the proxy's: a few
	 * lines (a flood of distinct names each asked twice, A and AAAA, made
	 * one each), then a count; the log has every one. Each says what was
	 * refused: a lookup, a connect through the proxy, a program's own. */
	if (r->cfg.mode != REPORTS_LEARN)
		HASH_ITER(hh, r->seen, s, tmp)
			if (s->count > 1 && s->decision == WIRE_DENY && s->line && s->shown) {
				if (repeats++ < r->lim.fold_lines)
					end_line(r, "%s (x%lu more)\n", s->line, s->count - 1);
				else
					unsaid++;
			}
	HASH_ITER(hh, r->proxy_seen, s, tmp) {
		if (s->count < 2 || s->decision != WIRE_DENY || !s->shown)
			continue;
		if (repeats++ >= r->lim.fold_lines)
			unsaid++;
		else if (s->op == WIRE_DNS)
			end_line(r, "sbx: denied lookup of %s (by the sandbox's resolver, x%lu more)\n",
				 s->target, s->count - 1);
		else
			end_line(r, "sbx: denied connect to %s (%s, x%lu more)\n", s->target,
				 s->boundary ? "seccomp" : "via the proxy", s->count - 1);
	}
	if (unsaid)
		end_line(r, "sbx: and %lu more refusals repeated (see the log)\n", unsaid);
	for (int op = 0; op < WIRE_OP_COUNT; op++)
		if (r->denied[op])
			count(sum, sizeof(sum), r->denied[op], names[op][0], names[op][1]);
	if (r->denied_calls)
		count(sum, sizeof(sum), r->denied_calls, "denied system call", "denied system calls");
	if (r->learned)
		count(sum, sizeof(sum), r->learned, "access the policy would refuse",
		      "accesses the policy would refuse");
	/* apart from the refusals said: what quiet rules kept off the
	 * terminal, and where to see them */
	if (r->quiet)
		count(sum, sizeof(sum), r->quiet, "expected refusal not shown (sbxctl status)",
		      "expected refusals not shown (sbxctl status)");
	if (dropped)
		count(sum, sizeof(sum), dropped, "report dropped (the supervisor fell behind)",
		      "reports dropped (the supervisor fell behind)");
	if (r->malformed)
		count(sum, sizeof(sum), r->malformed, "malformed report line",
		      "malformed report lines");
	if (r->contradicted)
		count(sum, sizeof(sum), r->contradicted,
		      "report the policy contradicts (\"claimed\" in the log)",
		      "reports the policy contradicts (\"claimed\" in the log)");
	if (r->not_shown)
		count(sum, sizeof(sum), r->not_shown, "report line not shown (too many a second)",
		      "report lines not shown (too many a second)");
	if (r->not_logged)
		count(sum, sizeof(sum), r->not_logged, "report not logged (a cap)",
		      "reports not logged (a cap)");
	if (r->not_kept)
		count(sum, sizeof(sum), r->not_kept, "report not folded (too many distinct)",
		      "reports not folded (too many distinct)");
	if (r->not_held)
		count(sum, sizeof(sum), r->not_held, "report line not held (64 KiB held already)",
		      "report lines not held (64 KiB held already)");
	if (r->malformed || r->contradicted || r->not_shown || r->not_logged || r->not_kept ||
	    dropped) {
		snprintf(counts, sizeof(counts),
			 ",\"malformed\":%lu,\"contradicted\":%lu,\"dropped\":%lu,\"not_shown\":%lu,"
			 "\"not_logged\":%lu,\"not_folded\":%lu", r->malformed, r->contradicted,
			 dropped, r->not_shown, r->not_logged, r->not_kept);
		log_notice(r, "summary", sum, counts);
	}
	if (!sum[0])
		return;
	if (r->cfg.log_path && r->log_fd >= 0) {
		policy_tildify(r->cfg.policy, r->cfg.log_path, logshown,
				 sizeof(logshown));
		end_line(r, "sbx: %s — see %s\n", sum, logshown);
	} else {
		end_line(r, "sbx: %s\n", sum);
	}
}

/* ---- what --learn needs */

void reports_each(const struct reports *r,
		  void (*fn)(void *ctx, const struct report_item *it), void *ctx)
{
	const struct seen *s;

	for (s = r->seen; s; s = s->hh.next) {
		struct report_item it = { .decision = s->decision, .op = s->op,
					  .target = s->target, .candidate = s->candidate,
					  .dir = s->dir };
		fn(ctx, &it);
	}
	/* the proxy's refusals of hosts no rule names (event.candidate):
	 * learned as lookups of that host, the same setting */
	for (s = r->proxy_seen; s; s = s->hh.next)
		if (s->candidate) {
			struct report_item it = { .decision = WIRE_DENY, .op = WIRE_DNS,
						  .target = s->target, .candidate = true };
			fn(ctx, &it);
		}
}

/* ---- the events of the proxy's decision (net/): EVENT_NET
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
 * sandbox): no pid, no comm. A program's own connect the notify layer
 * carried (EVENT_VIA_SECCOMP) is the boundary's, and its caller is known:
 * layer "notify", pid and comm. */

/* A proxy or boundary line's key in the table of lines said once: true
 * when there is nothing more to say (seen before: counted; or the table is
 * full, with the same bounds as the stream's: not kept). Else *out is the
 * new entry (NULL when memory ran out: the line is said all the same). */
static bool proxy_seen_add(struct reports *r, const char *key, struct seen **out)
{
	struct seen *s;

	*out = NULL;
	HASH_FIND_STR(r->proxy_seen, key, s);
	if (s) {
		s->count++;
		return true;
	}
	size_t cost = sizeof(*s) + strlen(key) + 1 + 2 * sizeof(void *);
	if (!seen_room(r) || r->seen_bytes + cost > r->lim.seen_bytes) {
		r->not_kept++;
		cap_met(r, &r->said_full, "table-full", "too many distinct reports: later new "
			"ones are not folded (counted)");
		return true;
	}
	if ((s = calloc(1, sizeof(*s))) && (s->key = strdup(key))) {
		s->decision = key[0];
		s->count = 1;
		HASH_ADD_KEYPTR(hh, r->proxy_seen, s->key, strlen(s->key), s);
		r->nseen++;
		r->seen_bytes += cost;
		*out = s;
	} else {
		free(s);
	}
	return false;
}

static void take_net(struct reports *r, const struct event *ev)
{
	char target[300], line[REPORT_LINE_MAX], rule[640] = "", key[320];
	const char *host = ev->target ? ev->target : "";
	bool v6 = strchr(host, ':') != NULL, deny = ev->decision == WIRE_DENY;
	bool trace = r->cfg.mode == REPORTS_TRACE, dns = ev->via == EVENT_VIA_DNS;
	const struct sbx_rule *quiet;
	/* a static program's connect, carried by the notify layer: the
	 * boundary's, and its caller is known */
	bool sc = ev->via == EVENT_VIA_SECCOMP;
	const char *decision = deny ? "deny" : ev->decision == WIRE_ALLOW ? "allow" :
			       ev->decision == EVENT_FAILED ? "fail" : "error";

	if (ev->decision == WIRE_ALLOW && !trace)
		return;
	if (host[0] && dns) /* a lookup has no port */
		snprintf(target, sizeof(target), "%s", host);
	else if (host[0])
		snprintf(target, sizeof(target), "%s%s%s:%u", v6 ? "[" : "", host,
			 v6 ? "]" : "", ev->port);
	else
		snprintf(target, sizeof(target), "?");
	char raw[sizeof(target)];
	snprintf(raw, sizeof(raw), "%s", target);
	report_printable(raw, target, sizeof(target), true);
	/* [report] ignore_domains: logged, not said */
	quiet = host[0] ? policy_report_quiet(r->cfg.policy, false, target) : NULL;
	if (ev->rule)
		snprintf(rule, sizeof(rule), "%s = %s", sbx_rule_key(ev->rule->kind),
			 ev->rule->value);

	/* the audit log */
	record_write(r, &(struct record){
		.layer = sc ? "notify" : "proxy", .op = dns ? "dns" : "connect",
		.target = host[0] ? target : NULL, .decision = decision,
		.rule = ev->rule ? rule : NULL, .source = ev->rule ? ev->rule->source : NULL,
		.pid = ev->pid, .pid_null = !(sc && ev->pid > 0), .comm = sc ? ev->comm : NULL,
		.reason = ev->reason, .fix = ev->fix, .via = via_text(ev->via),
		.address = ev->address, .client = ev->client, .quiet = quiet,
		.has = REC_REASON | REC_FIX | REC_VIA | REC_ADDRESS | REC_CLIENT | REC_QUIET });

	/* the line, once per outcome, kind (a lookup, a connect through the
	 * proxy, a program's own) and target */
	struct seen *s;
	snprintf(key, sizeof(key), "%c%c %s", ev->decision, dns ? 'l' : sc ? 's' : 'p', target);
	if (quiet) {
		r->ignored++;
		r->quiet += deny;
		return;
	}
	if (ev->decision == EVENT_ERROR && !trace && sbx_verbosity < V_VERBOSE)
		return; /* logged; said with --trace or -v */
	if (deny)
		r->denied[dns ? WIRE_DNS : WIRE_CONNECT]++;
	if (proxy_seen_add(r, key, &s))
		return;
	if (s) {
		s->candidate = ev->candidate && r->cfg.mode == REPORTS_LEARN && host[0];
		s->target = s->key + (strlen(key) - strlen(target)); /* the target, inside key */
		s->op = dns ? WIRE_DNS : WIRE_CONNECT;
		s->boundary = sc;
	}
	if (!may_say(r))
		return;
	if (s)
		s->shown = true;
	char reason[700], fix[450], comm[16 * 6] = ""; /* the decision's, 640 and 400 at most */
	report_printable(ev->reason ? ev->reason : "", reason, sizeof(reason), true);
	report_printable(ev->fix ? ev->fix : "", fix, sizeof(fix), true);
	if (sc)
		report_printable(ev->comm ? ev->comm : "", comm, sizeof(comm), true);
	event_line(ev, &(struct words){ .target = target, .reason = reason, .fix = fix,
					.rule = rule, .comm = comm }, line, sizeof(line));
	say(r, line);
}

/* ---- a call the boundary refuses as such: EVENT_CALL
 *
 * (the seccomp table's rows, a server under allow_local_binding = false):
 * said and logged once per call, reason and program (comm), as a program
 * that is refused tends to try again; the others are counted. The words
 * are the supervisor's; comm and `on` came from the sandbox and are shown
 * printable. */
static void take_call(struct reports *r, const struct event *ev)
{
	char key[512], line[REPORT_LINE_MAX], shown_comm[16 * 6], shown[600];
	const char *call = ev->target ? ev->target : "?", *why = ev->reason ? ev->reason : "";
	struct seen *s;

	report_printable(ev->comm ? ev->comm : "", shown_comm, sizeof(shown_comm), true);
	report_printable(ev->on ? ev->on : "", shown, sizeof(shown), true);
	/* the reason tells rows of one call apart (socket: AF_PACKET, raw);
	 * a write's file too (git config refused in two repositories) */
	snprintf(key, sizeof(key), "S %s %s %.120s %.100s", call, shown_comm, why,
		 strcmp(call, "write") ? "" : shown);
	r->denied_calls++;
	if (proxy_seen_add(r, key, &s))
		return;
	if (s)
		s->target = s->key + 2;
	record_write(r, &(struct record){
		.layer = ev->layer == EVENT_SEATBELT ? "seatbelt" : "notify", .op = "syscall",
		.target = call, .decision = "deny", .rule = ev->rule_text, .source = "built-in", .pid = ev->pid, .comm = ev->comm,
		.err = errno_name(ev->err), .reason = why, .address = ev->on,
		.has = REC_ERRNO | REC_REASON | REC_ADDRESS });
	if (!may_say(r))
		return;
	event_line(ev, &(struct words){ .target = call, .reason = why, .comm = shown_comm,
					.on = shown }, line, sizeof(line));
	say(r, line);
}

/* ---- the one entry */

void reports_event(struct reports *r, const struct event *ev)
{
	switch (ev->what) {
	case EVENT_ACCESS:
		take_access(r, ev);
		break;
	case EVENT_NET:
		take_net(r, ev);
		break;
	case EVENT_CALL:
		take_call(r, ev);
		break;
	case EVENT_NOTE:
		take_note(r, ev);
		break;
	}
}

void reports_nofile(struct reports *r)
{
	struct rlimit rl;
	char line[400], lim[64] = "";

	if (!r || r->said_nofile)
		return;
	r->said_nofile = true;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		snprintf(lim, sizeof(lim), " (%llu, RLIMIT_NOFILE)", (unsigned long long)rl.rlim_cur);
	snprintf(line, sizeof(line), "sbx: the supervisor is out of file descriptors%s: new "
		 "connections through the proxy wait and connects fail until some of the "
		 "sandbox's connections close (said once)", lim);
	log_notice(r, "out-of-descriptors", line + 5, NULL);
	say(r, line);
}

void reports_say_notice(struct reports *r, const char *kind, const char *line)
{
	char shown[REPORT_LINE_MAX];

	report_printable(line, shown, sizeof(shown), false);
	log_notice(r, kind, shown, NULL);
	say(r, shown);
}
