/* common/wire.c: encoding and decoding of report lines (see wire.h). */
#include <string.h>

#include "common/wire.h"

static const char *const op_names[WIRE_OP_COUNT] = {
	[WIRE_READ] = "read", [WIRE_WRITE] = "write", [WIRE_EXEC] = "exec",
	[WIRE_CONNECT] = "connect", [WIRE_DNS] = "dns", [WIRE_UNIX] = "unix",
	[WIRE_SOCKET] = "socket",
};

const char *wire_op_name(enum wire_op op)
{
	return (unsigned)op < WIRE_OP_COUNT ? op_names[op] : "?";
}

static const char hex[] = "0123456789ABCDEF";

/* Append s escaped, stopping (and returning 1) when fewer than `reserve`
 * bytes would be left. */
static int put_escaped(char *buf, size_t *o, size_t lim, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t need = (c <= 0x20 || c == 0x7f || c == '%' || c == '+') ? 3 : 1;
		if (*o + need > lim)
			return 1;
		if (need == 3) {
			buf[(*o)++] = '%';
			buf[(*o)++] = hex[c >> 4];
			buf[(*o)++] = hex[c & 15];
		} else {
			buf[(*o)++] = (char)c;
		}
	}
	return 0;
}

static void put_str(char *buf, size_t *o, const char *s)
{
	size_t n = strlen(s);
	memcpy(buf + *o, s, n);
	*o += n;
}

size_t wire_utoa(unsigned long v, char *out)
{
	char tmp[24];
	size_t n = 0, o = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		out[o++] = tmp[--n];
	out[o] = '\0';
	return o;
}

static void put_int(char *buf, size_t *o, long v)
{
	if (v < 0)
		buf[(*o)++] = '-';
	*o += wire_utoa(v < 0 ? 0UL - (unsigned long)v : (unsigned long)v, buf + *o);
}

size_t wire_encode(char *buf, char decision, enum wire_op op, int pid,
		   const char *comm, const char *target, int err)
{
	size_t o = 0;

	put_str(buf, &o, "SBX1 ");
	buf[o++] = decision;
	buf[o++] = ' ';
	put_str(buf, &o, wire_op_name(op));
	buf[o++] = ' ';
	put_int(buf, &o, pid);
	buf[o++] = ' ';
	/* comm is at most 16 bytes, 48 escaped: always fits */
	put_escaped(buf, &o, o + 64, comm && *comm ? comm : "?");
	buf[o++] = ' ';
	/* room for `+ `, the errno (at most 11) and the newline */
	if (put_escaped(buf, &o, WIRE_MAX - 16, target && *target ? target : "?"))
		buf[o++] = '+';
	buf[o++] = ' ';
	put_int(buf, &o, err);
	buf[o++] = '\n';
	return o;
}

static int unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The next space-separated field of [*p, end) into out (unescaped). */
static int field(const char **p, const char *end, char *out, size_t outsz,
		 int *plus)
{
	size_t o = 0;
	const char *s = *p;

	if (plus)
		*plus = 0;
	while (s < end && *s != ' ') {
		unsigned char c = (unsigned char)*s;
		if (c == '%') {
			int h, l;
			if (end - s < 3 || (h = unhex(s[1])) < 0 || (l = unhex(s[2])) < 0)
				return -1;
			c = (unsigned char)(h * 16 + l);
			if (!c)
				return -1; /* no NUL inside a field */
			s += 3;
		} else if (c < 0x20 || c == 0x7f) {
			return -1;
		} else if (c == '+' && plus && (s + 1 == end || s[1] == ' ')) {
			*plus = 1;
			s++;
			continue;
		} else {
			s++;
		}
		if (o + 1 >= outsz)
			return -1;
		out[o++] = (char)c;
	}
	if (o == 0)
		return -1;
	out[o] = '\0';
	*p = s < end ? s + 1 : s;
	return 0;
}

static int parse_int(const char *s, int *out)
{
	long v = 0;
	int neg = 0;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000000L)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = (int)(neg ? -v : v);
	return 0;
}

int wire_decode(const char *line, size_t len, struct wire_report *r)
{
	const char *p = line, *end = line + len;
	char tmp[32];

	memset(r, 0, sizeof(*r));
	if (len < 5 || memcmp(p, "SBX1 ", 5) || line[len - 1] == ' ')
		return -1;
	p += 5;
	if (end - p < 2 || p[1] != ' ' ||
	    (p[0] != WIRE_DENY && p[0] != WIRE_ALLOW && p[0] != WIRE_LEARN && p[0] != WIRE_NOTE))
		return -1;
	r->decision = p[0];
	p += 2;
	if (field(&p, end, tmp, sizeof(tmp), NULL))
		return -1;
	r->op = WIRE_OP_COUNT;
	for (int i = 0; i < WIRE_OP_COUNT; i++)
		if (!strcmp(tmp, op_names[i]))
			r->op = (enum wire_op)i;
	if (r->op == WIRE_OP_COUNT)
		return -1;
	if (field(&p, end, tmp, sizeof(tmp), NULL) || parse_int(tmp, &r->pid) || r->pid <= 0)
		return -1;
	if (field(&p, end, r->comm, sizeof(r->comm), NULL) ||
	    field(&p, end, r->target, sizeof(r->target), &r->truncated))
		return -1;
	if (field(&p, end, tmp, sizeof(tmp), NULL) || parse_int(tmp, &r->err) || p != end)
		return -1;
	if (r->op <= WIRE_EXEC && r->target[0] != '/')
		return -1; /* file operations name absolute paths */
	size_t tl = strlen(r->target);
	if (r->op <= WIRE_EXEC && !r->truncated && tl > 1 && r->target[tl - 1] == '/') {
		r->target[tl - 1] = '\0'; /* a directory being made */
		r->dir = 1;
	}
	return 0;
}

/* ---- pieces (wire.h): a line longer than one atomic write */

size_t wire_piece(char *buf, int pid, unsigned long long id, unsigned k, unsigned n,
		  const char *data, size_t len)
{
	size_t o = 0;

	put_str(buf, &o, "SBXP ");
	put_int(buf, &o, pid);
	buf[o++] = ' ';
	for (int i = 15; i >= 0; i--)
		buf[o++] = "0123456789abcdef"[(id >> (4 * i)) & 15];
	buf[o++] = ' ';
	o += wire_utoa(k, buf + o);
	buf[o++] = ' ';
	o += wire_utoa(n, buf + o);
	buf[o++] = ' ';
	memcpy(buf + o, data, len);
	o += len;
	buf[o++] = '\n';
	return o;
}

/* A decimal number of 1 to `digits` digits, no leading zero, then a
 * space; -1 if not. */
static long piece_num(const char **p, const char *end, int digits)
{
	long v = 0;
	int d = 0;

	if (*p >= end || **p == '0')
		return -1;
	while (*p < end && **p >= '0' && **p <= '9' && d < digits) {
		v = v * 10 + (**p - '0');
		(*p)++;
		d++;
	}
	if (!d || *p >= end || **p != ' ')
		return -1;
	(*p)++;
	return v;
}

int wire_piece_decode(const char *line, size_t len, struct wire_piece *out)
{
	const char *p = line, *end = line + len;
	long pid, k, n;

	memset(out, 0, sizeof(*out));
	if (len < 5 || memcmp(p, "SBXP ", 5))
		return -1;
	p += 5;
	if ((pid = piece_num(&p, end, 10)) < 1 || pid > 0x7fffffffL)
		return -1;
	if (end - p < 17 || p[16] != ' ')
		return -1;
	for (int i = 0; i < 16; i++, p++) {
		int h = unhex(*p);
		if (h < 0 || (*p >= 'A' && *p <= 'F'))
			return -1;
		out->id = out->id << 4 | (unsigned)h;
	}
	p++;
	if ((k = piece_num(&p, end, 2)) < 1 || (n = piece_num(&p, end, 2)) < 2 ||
	    n > WIRE_PIECES_MAX || k > n || p >= end)
		return -1;
	out->pid = (int)pid;
	out->k = (unsigned)k;
	out->n = (unsigned)n;
	out->data = p;
	out->len = (size_t)(end - p);
	return 0;
}
