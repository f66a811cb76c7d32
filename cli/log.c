/* cli/log.c: `sbxctl log`: the JSON Lines audit log, read back
 * (docs/REPORTS.md has the record format). Targets and program names in it
 * came from the sandboxed program: every string is escaped for the
 * terminal (report_printable) and a line that is not a record is skipped
 * and counted, never trusted. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uthash.h>

#include "preload/config.h"
#include "cli/sbxctl.h"
#include "preload/preload.h"

static const char log_usage[] =
"Usage: sbxctl log [OPTIONS] [FILE]\n"
"Read sbx's audit log (JSON Lines): FILE, else the configured one ([report]\n"
"log), else ~/.local/state/sbx/audit.jsonl. One line per record: time,\n"
"decision, operation, target, the deciding rule and its source, program.\n"
"  -s, --summary        denials grouped by operation, target and program, with\n"
"                       counts, most frequent first, in an aligned table\n"
"  -f, --follow         keep reading as runs append (Ctrl-C stops)\n"
"      --since WHEN     only records from WHEN on: 2026-11-27, 2026-11-27T10:00\n"
"                       (UTC, as the log writes it), or an age: 30s, 10m, 2h, 7d\n"
"      --op OP          only this operation: read, write, exec, connect, dns,\n"
"                       unix, socket, notice (repeatable)\n"
"      --decision D     only deny, allow or would-deny (repeatable)\n"
"      --json           the matching records as JSON lines, for scripts\n"
"  -c, --config FILE    the policy file that names the log (as sbx-preload)\n"
"Exit status: 0; 2 usage, or the log cannot be read.\n";

#define LOG_LINE_MAX (1 << 20)

struct filter {
	char since[40];        /* ISO UTC prefix to compare with, "" = none */
	const char *ops[8];
	size_t nops;
	const char *decisions[4];
	size_t ndecisions;
};

struct group {
	char *key;             /* op NUL target NUL comm */
	const char *op, *target, *comm; /* into key */
	unsigned long count;
	UT_hash_handle hh;
};

struct reader {
	struct filter f;
	bool json, summary, color;
	unsigned long records, skipped;
	struct group *groups;
};

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static bool in_list(const char *v, const char *const *list, size_t n)
{
	if (!n)
		return true;
	for (size_t i = 0; v && i < n; i++)
		if (!strcmp(v, list[i]))
			return true;
	return false;
}

static bool matches(const struct filter *f, json_t *r)
{
	const char *t = str(r, "time");

	if (f->since[0] && (!t || strcmp(t, f->since) < 0))
		return false;
	return in_list(str(r, "op"), f->ops, f->nops) &&
	       in_list(str(r, "decision"), f->decisions, f->ndecisions);
}

static void group_add(struct reader *rd, json_t *r)
{
	const char *d = str(r, "decision"), *op = str(r, "op"), *target = str(r, "target");
	const char *comm = str(r, "comm");
	const char *who = comm ? comm : (str(r, "layer") && !strcmp(str(r, "layer"), "proxy")) ?
			  "(proxy)" : "?";
	size_t lo = strlen(op) + 1, lt = strlen(target ? target : "") + 1, lc = strlen(who) + 1;
	struct group *g;
	char *key;

	if (!d || (strcmp(d, "deny") && strcmp(d, "would-deny")))
		return;
	/* op NUL target NUL comm: JSON strings hold no NUL (jansson refuses
	 * \u0000), so the three parts cannot run into each other */
	if (!(key = malloc(lo + lt + lc)))
		return;
	memcpy(key, op, lo);
	memcpy(key + lo, target ? target : "", lt);
	memcpy(key + lo + lt, who, lc);
	HASH_FIND(hh, rd->groups, key, lo + lt + lc, g);
	if (g) {
		g->count++;
		free(key);
		return;
	}
	if (!(g = calloc(1, sizeof(*g)))) {
		free(key);
		return;
	}
	g->key = key;
	g->op = key;
	g->target = key + lo;
	g->comm = key + lo + lt;
	g->count = 1;
	HASH_ADD_KEYPTR(hh, rd->groups, g->key, lo + lt + lc, g);
}

static void print_record(struct reader *rd, json_t *r)
{
	char t[64], target[PATH_MAX * 2], rule[PATH_MAX * 2], src[PATH_MAX], comm[128];
	const char *d = str(r, "decision"), *op = str(r, "op");
	json_t *pid = json_object_get(r, "pid");

	if (rd->json) {
		char *text = json_dumps(r, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
		if (text)
			printf("%s\n", text);
		free(text);
		return;
	}
	ctl_printable(str(r, "time") ? str(r, "time") : "?", t, sizeof(t));
	if (op && !strcmp(op, "notice")) {
		ctl_printable(str(r, "message") ? str(r, "message") : "", target, sizeof(target));
		printf("%s  %snotice%s  %s\n", t, ctl_sgr(rd->color, "\033[33m"),
		       ctl_sgr(rd->color, "\033[0m"), target);
		return;
	}
	bool deny = d && strcmp(d, "allow");
	ctl_printable(str(r, "target") ? str(r, "target") : "-", target, sizeof(target));
	ctl_printable(str(r, "rule") ? str(r, "rule") : "", rule, sizeof(rule));
	ctl_printable(str(r, "source") ? str(r, "source") : "", src, sizeof(src));
	ctl_printable(str(r, "comm") ? str(r, "comm") : "", comm, sizeof(comm));
	char dd[16], oo[16];
	ctl_printable(d ? d : "?", dd, sizeof(dd));
	ctl_printable(op ? op : "?", oo, sizeof(oo));
	printf("%s  %s%-10s%s %-7s %s", t, ctl_sgr(rd->color && deny, "\033[31m"), dd,
	       ctl_sgr(rd->color && deny, "\033[0m"), oo, target);
	if (rule[0])
		printf("  by `%s` (%s)", rule, src);
	if (json_is_integer(pid))
		printf("  pid %lld %s", (long long)json_integer_value(pid), comm);
	else if (comm[0])
		printf("  %s", comm);
	printf("\n");
}

static void take_line(struct reader *rd, const char *line, size_t len)
{
	json_error_t e;
	json_t *r;

	if (!len)
		return;
	r = json_loadb(line, len, 0, &e);
	if (!json_is_object(r) || !str(r, "op")) {
		rd->skipped++;
		json_decref(r);
		return;
	}
	if (matches(&rd->f, r)) {
		rd->records++;
		if (rd->summary)
			group_add(rd, r);
		else
			print_record(rd, r);
	}
	json_decref(r);
}

/* Whole lines from fd into the reader; a last partial line stays in
 * buf (*have bytes) for the next call. A line longer than the bound is
 * skipped to its end. */
static int read_lines(struct reader *rd, int fd, char *buf, size_t *have, bool *skipping)
{
	for (;;) {
		ssize_t n = read(fd, buf + *have, LOG_LINE_MAX - *have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		size_t end = *have + (size_t)n, start = 0;
		for (size_t i = *have; i < end; i++) {
			if (buf[i] != '\n')
				continue;
			if (!*skipping)
				take_line(rd, buf + start, i - start);
			*skipping = false;
			start = i + 1;
		}
		memmove(buf, buf + start, end - start);
		*have = end - start;
		if (*have == LOG_LINE_MAX) { /* no newline in 1 MiB: not a record */
			rd->skipped++;
			*have = 0;
			*skipping = true;
		}
	}
}

static int by_count(struct group *a, struct group *b)
{
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	int c = strcmp(a->op, b->op);
	return c ? c : strcmp(a->target, b->target);
}

static void print_summary(struct reader *rd)
{
	struct group *g, *tmp;
	size_t wop = 2, wt = 6, wc = 5;
	char t[PATH_MAX * 2], c[128], o[32];

	HASH_SORT(rd->groups, by_count);
	HASH_ITER(hh, rd->groups, g, tmp) {
		/* widths as printed (escapes included) */
		ctl_printable(g->op, o, sizeof(o));
		ctl_printable(g->target, t, sizeof(t));
		ctl_printable(g->comm, c, sizeof(c));
		wop = strlen(o) > wop ? strlen(o) : wop;
		wt = strlen(t) > wt ? strlen(t) : wt;
		wc = strlen(c) > wc ? strlen(c) : wc;
	}
	if (wt > 80)
		wt = 80; /* a long target runs on rather than widening every row */
	printf("%7s  %-*s  %-*s  %s\n", "COUNT", (int)wop, "OP", (int)wt, "TARGET", "PROGRAM");
	HASH_ITER(hh, rd->groups, g, tmp) {
		ctl_printable(g->op, o, sizeof(o));
		ctl_printable(g->target, t, sizeof(t));
		ctl_printable(g->comm, c, sizeof(c));
		printf("%7lu  %-*s  %-*s  %s\n", g->count, (int)wop, o, (int)wt, t, c);
	}
	if (!rd->groups)
		printf("(no denials%s)\n", rd->f.since[0] || rd->f.nops ? " matching" : "");
}

/* --since: a UTC time as the log writes it, or an age. */
int ctl_parse_since(const char *v, char *out, size_t outsz)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	unsigned long mul = 0;

	if (end != v && end[0] && !end[1])
		mul = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 :
		      *end == 'd' ? 86400 : 0;
	if (mul) {
		time_t at = time(NULL) - (time_t)(n * mul);
		struct tm tm;
		gmtime_r(&at, &tm);
		strftime(out, outsz, "%Y-%m-%dT%H:%M:%S", &tm);
		return 0;
	}
	/* a prefix of YYYY-MM-DDTHH:MM:SS (a space for the T is taken too) */
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	size_t len = strlen(v);
	if (len < 4 || len > sizeof(shape) - 1)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char want = shape[i], c = v[i] == ' ' && want == 'T' ? 'T' : v[i];
		if (want == 'd' ? (c < '0' || c > '9') : c != want)
			return -1;
		out[i] = c;
	}
	out[len] = '\0';
	return 0;
}

int ctl_log_path(const char *config, const char *given, char *out, size_t outsz)
{
	struct policy *p = NULL;
	char uf[PATH_MAX], cwd[PATH_MAX];

	if (given) {
		if (!getcwd(cwd, sizeof(cwd)) || path_join(cwd, given, out, outsz))
			return -ENAMETOOLONG;
		return 0;
	}
	if (ctl_policy(config, NULL, NULL, &p, NULL, uf, sizeof(uf)))
		return -EINVAL;
	if (policy_log_path(p)) {
		snprintf(out, outsz, "%s", policy_log_path(p));
	} else {
		const char *home = config_home_dir();
		char sdir[PATH_MAX];
		if (!home || config_own_dir(home, "XDG_STATE_HOME", ".local/state/sbx", sdir,
					    sizeof(sdir))) {
			policy_free(p);
			return -ENOENT;
		}
		if ((size_t)snprintf(out, outsz, "%s/audit.jsonl", sdir) >= outsz) {
			policy_free(p);
			return -ENAMETOOLONG;
		}
	}
	policy_free(p);
	return 0;
}

static int open_log(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	fcntl(fd, F_SETFL, 0); /* regular: reads never block anyway */
	return fd;
}

/* --follow: wait for the file to grow; start over when it was replaced
 * or cut (a rotation). */
static int follow(struct reader *rd, const char *path, int fd, char *buf, size_t *have,
		  bool *skipping)
{
	struct stat now, st;
	off_t at = lseek(fd, 0, SEEK_CUR);

	fflush(stdout);
	for (;;) {
		poll(NULL, 0, 250);
		if (stat(path, &now) == 0 && fstat(fd, &st) == 0 &&
		    (now.st_ino != st.st_ino || now.st_dev != st.st_dev || now.st_size < at)) {
			int nfd = open_log(path, &st);
			if (nfd >= 0) {
				close(fd);
				fd = nfd;
				*have = 0;
				*skipping = false;
			}
		}
		int rc = read_lines(rd, fd, buf, have, skipping);
		if (rc)
			return rc;
		at = lseek(fd, 0, SEEK_CUR);
		fflush(stdout);
	}
}

int cmd_log(int argc, char **argv)
{
	enum { O_SINCE = 256, O_OP, O_DECISION, O_JSON };
	static const struct option lo[] = {
		{ "summary", no_argument, NULL, 's' },
		{ "follow", no_argument, NULL, 'f' },
		{ "since", required_argument, NULL, O_SINCE },
		{ "op", required_argument, NULL, O_OP },
		{ "decision", required_argument, NULL, O_DECISION },
		{ "json", no_argument, NULL, O_JSON },
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const ops[] = { "read", "write", "exec", "connect", "dns", "unix",
					   "socket", "notice" };
	static const char *const decisions[] = { "deny", "allow", "would-deny" };
	struct reader rd = { .color = ctl_color(stdout) };
	const char *config = NULL;
	bool fol = false, skipping = false;
	char path[PATH_MAX], *buf = NULL;
	size_t have = 0;
	struct stat st;
	int opt, fd, rc = CTL_USAGE;

	if (ctl_common_flag("log", log_usage, argc, argv))
		return CTL_OK;
	while ((opt = getopt_long(argc, argv, "sfc:", lo, NULL)) != -1) {
		switch (opt) {
		case 's': rd.summary = true; break;
		case 'f': fol = true; break;
		case 'c': config = optarg; break;
		case O_JSON: rd.json = true; break;
		case O_SINCE:
			if (ctl_parse_since(optarg, rd.f.since, sizeof(rd.f.since))) {
				fprintf(stderr, "sbxctl log: --since takes a UTC time such as "
					"2026-11-27T10:00 or an age such as 30s, 10m, 2h, 7d; not "
					"`%s`\n", optarg);
				return CTL_USAGE;
			}
			break;
		case O_OP: case O_DECISION: {
			const char *const *known = opt == O_OP ? ops : decisions;
			size_t nk = opt == O_OP ? 7 : 3, i;
			for (i = 0; i < nk && strcmp(optarg, known[i]); i++)
				;
			if (i == nk) {
				fprintf(stderr, "sbxctl log: no %s `%s`\n", opt == O_OP ?
					"operation" : "decision", optarg);
				return CTL_USAGE;
			}
			if (opt == O_OP && rd.f.nops < 8)
				rd.f.ops[rd.f.nops++] = known[i];
			else if (opt == O_DECISION && rd.f.ndecisions < 4)
				rd.f.decisions[rd.f.ndecisions++] = known[i];
			break;
		}
		default:
			fprintf(stderr, "sbxctl: see `sbxctl log --help`\n");
			return CTL_USAGE;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "sbxctl log: one FILE at most\n");
		return CTL_USAGE;
	}
	if (rd.summary && (fol || rd.json)) {
		fprintf(stderr, "sbxctl log: --summary is a table of the whole log; not with "
			"--follow or --json\n");
		return CTL_USAGE;
	}
	if (ctl_log_path(config, optind < argc ? argv[optind] : NULL, path, sizeof(path))) {
		fprintf(stderr, "sbxctl log: cannot tell where the audit log is\n");
		return CTL_USAGE;
	}
	if ((fd = open_log(path, &st)) < 0) {
		fprintf(stderr, "sbxctl log: %s: %s\n", path, fd == -EINVAL ? "not a regular file" :
			fd == -ENOENT ? "no audit log yet (runs write it)" : strerror(-fd));
		return CTL_USAGE;
	}
	if (!(buf = malloc(LOG_LINE_MAX))) {
		close(fd);
		return CTL_USAGE;
	}
	int e = read_lines(&rd, fd, buf, &have, &skipping);
	if (!e && have && !fol) { /* a last line without its newline */
		take_line(&rd, buf, have);
		have = 0;
	}
	if (!e && fol)
		e = follow(&rd, path, fd, buf, &have, &skipping);
	else
		close(fd);
	if (e) {
		fprintf(stderr, "sbxctl log: reading %s: %s\n", path, strerror(-e));
		goto out;
	}
	if (rd.summary)
		print_summary(&rd);
	if (rd.skipped)
		fprintf(stderr, "sbxctl log: %lu line%s of %s %s not a record (skipped)\n",
			rd.skipped, rd.skipped == 1 ? "" : "s", path,
			rd.skipped == 1 ? "is" : "are");
	rc = CTL_OK;
out:
	free(buf);
	struct group *g, *tmp;
	HASH_ITER(hh, rd.groups, g, tmp) {
		HASH_DEL(rd.groups, g);
		free(g->key);
		free(g);
	}
	return rc;
}
