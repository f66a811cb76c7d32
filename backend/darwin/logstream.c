/* backend/darwin/logstream.c: one line of `log stream --style ndjson`
 * read as a Seatbelt refusal (logstream.h). A strict reader of just the
 * JSON `log` writes: one object, its members strings, numbers, literals,
 * and nested objects and arrays (the backtrace), which are skipped. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/darwin/logstream.h"

#define NEST_MAX 32

struct js {
	const char *p, *end;
	int depth;
};

static void ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

static int hex4(const char *s, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t utf8_put(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at j->p (its opening quote), decoded into out (NUL-terminated;
 * out NULL: skipped). A NUL (\u0000) ends no C string of ours: refused.
 * A lone surrogate becomes U+FFFD. -1: not a string, or longer than out. */
static int str(struct js *j, char *out, size_t outsz)
{
	size_t l = 0;

	if (j->p >= j->end || *j->p != '"')
		return -1;
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		char buf[8];
		size_t n = 1;
		unsigned char c = (unsigned char)*j->p;
		if (c < 0x20)
			return -1; /* raw control bytes are escaped in JSON */
		if (c != '\\') {
			buf[0] = (char)c;
			j->p++;
		} else {
			if (j->end - j->p < 2)
				return -1;
			char e = j->p[1];
			j->p += 2;
			switch (e) {
			case '"': case '\\': case '/': buf[0] = e; break;
			case 'b': buf[0] = '\b'; break;
			case 'f': buf[0] = '\f'; break;
			case 'n': buf[0] = '\n'; break;
			case 'r': buf[0] = '\r'; break;
			case 't': buf[0] = '\t'; break;
			case 'u': {
				unsigned cp, lo;
				if (j->end - j->p < 4 || hex4(j->p, &cp))
					return -1;
				j->p += 4;
				if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' &&
				    j->p[1] == 'u' && !hex4(j->p + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
					j->p += 6;
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				} else if (cp >= 0xd800 && cp < 0xe000) {
					cp = 0xfffd;
				}
				if (cp == 0)
					return -1;
				n = utf8_put(buf, cp);
				break;
			}
			default:
				return -1;
			}
		}
		if (out) {
			if (l + n >= outsz)
				return -1;
			memcpy(out + l, buf, n);
		}
		l += n;
	}
	if (j->p >= j->end)
		return -1; /* cut inside the string */
	j->p++;
	if (out)
		out[l] = '\0';
	return 0;
}

/* An integer (a JSON number without fraction or exponent). */
static int num(struct js *j, long long *out)
{
	const char *s = j->p;
	bool neg = false;
	unsigned long long v = 0;

	if (s < j->end && *s == '-') {
		neg = true;
		s++;
	}
	if (s >= j->end || *s < '0' || *s > '9')
		return -1;
	while (s < j->end && *s >= '0' && *s <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (unsigned)(*s++ - '0');
	}
	if (s < j->end && (*s == '.' || *s == 'e' || *s == 'E')) {
		/* a fraction: skipped, never one of ours */
		s++;
		while (s < j->end && strchr("0123456789+-eE.", *s))
			s++;
		v = 0;
	}
	if (v > INT64_MAX)
		return -1;
	j->p = s;
	*out = neg ? -(long long)v : (long long)v;
	return 0;
}

static int value(struct js *j, char *out, size_t outsz, long long *n, bool *isnum);

/* An object or array at j->p, skipped. */
static int skip_nested(struct js *j)
{
	char close = *j->p == '{' ? '}' : ']';
	bool obj = close == '}';

	if (++j->depth > NEST_MAX)
		return -1;
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		ws(j);
		if (obj) {
			if (str(j, NULL, 0))
				return -1;
			ws(j);
			if (j->p >= j->end || *j->p != ':')
				return -1;
			j->p++;
			ws(j);
		}
		if (value(j, NULL, 0, NULL, NULL))
			return -1;
		ws(j);
		if (j->p >= j->end)
			return -1;
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p != close)
			return -1;
		j->p++;
		j->depth--;
		return 0;
	}
}

static int value(struct js *j, char *out, size_t outsz, long long *n, bool *isnum)
{
	long long dummy;

	if (isnum)
		*isnum = false;
	if (j->p >= j->end)
		return -1;
	switch (*j->p) {
	case '"':
		return str(j, out, outsz);
	case '{':
	case '[':
		return skip_nested(j);
	case 't':
	case 'f':
	case 'n': {
		static const char *const lits[] = { "true", "false", "null" };
		for (size_t i = 0; i < 3; i++) {
			size_t l = strlen(lits[i]);
			if ((size_t)(j->end - j->p) >= l && !memcmp(j->p, lits[i], l)) {
				j->p += l;
				return 0;
			}
		}
		return -1;
	}
	default:
		if (num(j, n ? n : &dummy))
			return -1;
		if (isnum)
			*isnum = true;
		return 0;
	}
}

/* The fields of `NAME(PID) deny(N) OP[ TARGET]` if the `) deny(` at m is
 * where the name ends: 0; -1 not there (v untouched); -2 there, its
 * target too long. */
static int body_at(const char *b, const char *m, struct seatbelt_violation *v)
{
	static const char mark[] = ") deny(";
	const char *open = NULL;

	for (const char *s = m - 1; s > b; s--)
		if (*s == '(') {
			open = s;
			break;
		}
	if (!open || open == b)
		return -1;
	char *end;
	long pid = strtol(open + 1, &end, 10);
	if (end != m || open[1] < '0' || open[1] > '9' || pid <= 0 || pid > 0x7fffffff)
		return -1;
	const char *c = m + sizeof(mark) - 1;
	if (*c < '0' || *c > '9')
		return -1;
	while (*c >= '0' && *c <= '9')
		c++;
	if (c[0] != ')' || c[1] != ' ')
		return -1;
	const char *op = c + 2, *oe = op;
	while ((*oe >= 'a' && *oe <= 'z') || (*oe >= '0' && *oe <= '9') || *oe == '-' || *oe == '*')
		oe++;
	const char *t = *oe ? oe + 1 : oe;
	if (oe == op || (*oe && *oe != ' ') || (size_t)(oe - op) >= sizeof(v->op) ||
	    (size_t)(open - b) >= sizeof(v->comm))
		return -1;
	if (strlen(t) >= sizeof(v->target))
		return -2; /* the rest of the line is the target: no later one */
	memcpy(v->comm, b, (size_t)(open - b));
	v->comm[open - b] = '\0';
	v->pid = (int)pid;
	memcpy(v->op, op, (size_t)(oe - op));
	v->op[oe - op] = '\0';
	strcpy(v->target, t);
	return 0;
}

/* `NAME(PID) deny(N) OP[ TARGET]` after "Sandbox: ". The name is the
 * program's own choice and may hold `(`, `)` and even `) deny(`, and so
 * may a target (a path, a Mach service's name): the first `) deny(` after
 * which a count, an operation of Seatbelt's form and (optionally) a target
 * follow is taken, unless another such one follows with no `/` before it
 * (a name `a(9) deny(1) file-write-data ` forges a whole first one, and
 * the kernel's name never holds a `/`): then which is the kernel's is not
 * known, and the line is not taken as a refusal (-1). */
static int parse_body(const char *b, struct seatbelt_violation *v)
{
	static const char mark[] = ") deny(";
	struct seatbelt_violation other;

	for (const char *m = strstr(b, mark); m; m = strstr(m + 1, mark)) {
		int rc = body_at(b, m, v);
		if (rc == -1)
			continue;
		if (rc)
			return -1;
		for (const char *n = strstr(m + 1, mark); n; n = strstr(n + 1, mark))
			if (!memchr(b, '/', (size_t)(n - b)) && body_at(b, n, &other) != -1)
				return -1;
		return 0;
	}
	return -1;
}

enum seatbelt_log_kind seatbelt_log_parse(const char *line, size_t len, const char *tag,
					  struct seatbelt_violation *v)
{
	struct js j = { line, line + len, 0 };
	char msg[SEATBELT_LOG_LINE_MAX];
	bool have_msg = false, have_pid = false, kernel = false;

	memset(v, 0, sizeof(*v));
	if (len > SEATBELT_LOG_LINE_MAX || memchr(line, '\0', len))
		return SEATBELT_LOG_MALFORMED;
	ws(&j);
	if (j.p >= j.end || *j.p != '{')
		/* `log` starts with "Filtering the log data using ..." (the
		 * line is len bytes, not a C string) */
		return len >= 22 && !memcmp(line, "Filtering the log data", 22) ?
			SEATBELT_LOG_OTHER : SEATBELT_LOG_MALFORMED;
	j.p++;
	ws(&j);
	if (j.p < j.end && *j.p == '}')
		j.p++;
	else
		for (;;) {
			char key[64];
			ws(&j);
			const char *at = j.p;
			if (str(&j, key, sizeof(key))) {
				/* a key longer than any of ours: read past it */
				j.p = at;
				if (str(&j, NULL, 0))
					return SEATBELT_LOG_MALFORMED;
				key[0] = '\0';
			}
			ws(&j);
			if (j.p >= j.end || *j.p != ':')
				return SEATBELT_LOG_MALFORMED;
			j.p++;
			ws(&j);
			long long n = 0;
			bool isnum;
			if (!strcmp(key, "eventMessage")) {
				if (have_msg || str(&j, msg, sizeof(msg)))
					return SEATBELT_LOG_MALFORMED;
				have_msg = true;
			} else if (!strcmp(key, "processID")) {
				if (have_pid || value(&j, NULL, 0, &n, &isnum) || !isnum)
					return SEATBELT_LOG_MALFORMED;
				have_pid = true;
				kernel = n == 0;
			} else if (value(&j, NULL, 0, NULL, NULL)) {
				return SEATBELT_LOG_MALFORMED;
			}
			ws(&j);
			if (j.p >= j.end)
				return SEATBELT_LOG_MALFORMED; /* cut */
			if (*j.p == ',') {
				j.p++;
				continue;
			}
			if (*j.p != '}')
				return SEATBELT_LOG_MALFORMED;
			j.p++;
			break;
		}
	ws(&j);
	if (j.p != j.end)
		return SEATBELT_LOG_MALFORMED;
	/* only the kernel's own records: any program may log a lookalike */
	if (!have_msg || !have_pid || !kernel || !tag || !*tag)
		return SEATBELT_LOG_OTHER;
	/* the run's tag ends the message, on a line of its own (or after a
	 * space); anything after it, or another run's tag, is not ours */
	size_t ml = strlen(msg), tl = strlen(tag);
	if (ml <= tl || strcmp(msg + ml - tl, tag) ||
	    (msg[ml - tl - 1] != '\n' && msg[ml - tl - 1] != ' '))
		return SEATBELT_LOG_OTHER;
	msg[ml - tl - 1] = '\0';
	const char *body = msg;
	v->repeats = 1;
	/* "N duplicate report(s) for Sandbox: ..." */
	if (*body >= '1' && *body <= '9') {
		char *end;
		unsigned long n = strtoul(body, &end, 10);
		if (!strncmp(end, " duplicate reports for ", 23))
			body = end + 23;
		else if (!strncmp(end, " duplicate report for ", 22))
			body = end + 22;
		else
			return SEATBELT_LOG_OTHER;
		v->repeats = n > 1000000 ? 1000000 : (unsigned)n;
	}
	if (strncmp(body, "Sandbox: ", 9) || parse_body(body + 9, v)) {
		memset(v, 0, sizeof(*v));
		return SEATBELT_LOG_OTHER;
	}
	return SEATBELT_LOG_OURS;
}

int seatbelt_log_predicate(const char *tag, char *out, size_t outsz)
{
	if (!tag || !*tag)
		return -EINVAL;
	for (const char *s = tag; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return -EINVAL;
	int n = snprintf(out, outsz, "processID == 0 AND eventMessage ENDSWITH \"%s\"", tag);
	return n < 0 || (size_t)n >= outsz ? -ENAMETOOLONG : 0;
}

enum seatbelt_op_class seatbelt_op_class(const struct seatbelt_violation *v)
{
	if (!strncmp(v->op, "file-read", 9))
		return SEATBELT_OP_READ;
	if (!strncmp(v->op, "file-write", 10) || !strcmp(v->op, "file-link"))
		return SEATBELT_OP_WRITE;
	if (!strncmp(v->op, "process-exec", 12))
		return SEATBELT_OP_EXEC;
	if (!strcmp(v->op, "network-outbound") && v->target[0] == '/')
		return SEATBELT_OP_UNIX;
	return SEATBELT_OP_OTHER;
}

bool seatbelt_path_normal(const char *s)
{
	if (s[0] != '/')
		return false;
	if (!s[1])
		return true;
	for (const char *c = s; *c; ) {
		/* at a `/`: the component after it */
		const char *n = c + 1, *e = n;
		while (*e && *e != '/')
			e++;
		size_t l = (size_t)(e - n);
		if (l == 0 || (l == 1 && n[0] == '.') || (l == 2 && n[0] == '.' && n[1] == '.'))
			return false;
		c = e;
	}
	return true;
}

static void feed_line(struct seatbelt_log_buf *lb, const char *tag, const char *s, size_t n,
		      void (*on)(void *ctx, const struct seatbelt_violation *v), void *ctx)
{
	struct seatbelt_violation v;

	switch (seatbelt_log_parse(s, n, tag, &v)) {
	case SEATBELT_LOG_OURS:
		lb->ours++;
		if (on)
			on(ctx, &v);
		break;
	case SEATBELT_LOG_OTHER:
		lb->other++;
		break;
	default:
		lb->malformed++;
		break;
	}
}

void seatbelt_log_feed(struct seatbelt_log_buf *lb, const char *tag, const char *data, size_t n,
		       void (*on)(void *ctx, const struct seatbelt_violation *v), void *ctx)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) : n;
		if (!lb->skipping && lb->len + take > SEATBELT_LOG_LINE_MAX) {
			lb->skipping = true;
			lb->malformed++;
		}
		if (!lb->skipping) {
			memcpy(lb->buf + lb->len, data, take);
			lb->len += take;
		}
		if (!nl)
			return;
		if (!lb->skipping && lb->len)
			feed_line(lb, tag, lb->buf, lb->len, on, ctx);
		lb->len = 0;
		lb->skipping = false;
		data = nl + 1;
		n -= take + 1;
	}
}
