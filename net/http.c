/* net/http.c: HTTP/1.1 heads, as a proxy must read them.
 *
 * Strict on purpose: a proxy that reads a head differently from the server
 * behind it can be talked into smuggling a second request past the policy
 * (RFC 9112 11.2). So anything two readers could disagree about is refused
 * rather than guessed at: a bare CR or LF, obs-fold, whitespace before the
 * colon, two Host headers, Content-Length next to Transfer-Encoding, two
 * different lengths, userinfo in the target, a Host header naming another
 * host than the target, a Connection header naming a framing header (the
 * rewrite drops what Connection names, so the next reader would frame the
 * message differently from the checks here). Pure: no I/O, no allocation.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "net/net.h"
#include "net/compat.h"

static bool tchar(unsigned char c)
{
	/* RFC 9110 5.6.2 token characters */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool vchar_or_ws(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static bool ieq(const char *a, size_t an, const char *b)
{
	return an == strlen(b) && strncasecmp(a, b, an) == 0;
}

/* Is `tok` one of the comma-separated tokens of list[0..n)? */
static bool has_token(const char *list, size_t n, const char *tok, size_t tn)
{
	size_t i = 0;

	while (i < n) {
		while (i < n && (list[i] == ' ' || list[i] == '\t' || list[i] == ','))
			i++;
		size_t s = i;
		while (i < n && list[i] != ',')
			i++;
		size_t e = i;
		while (e > s && (list[e - 1] == ' ' || list[e - 1] == '\t'))
			e--;
		if (e - s == tn && strncasecmp(list + s, tok, tn) == 0)
			return true;
	}
	return false;
}

/* A Connection (or Proxy-Connection) list naming Host, Content-Length or
 * Transfer-Encoding: those headers are hop-by-hop then, and copy_headers()
 * drops them after the checks that read them (`Connection: content-length`
 * turns a checked body into the start of the next request; `Connection:
 * host` sends a request without the Host the policy was asked about). No
 * client needs it, so it is refused, not guessed at. */
static bool names_framing(const char *v, size_t n)
{
	return has_token(v, n, "host", 4) || has_token(v, n, "content-length", 14) ||
	       has_token(v, n, "transfer-encoding", 17);
}

/* Find the end of a head: 0 need more, -EINVAL for a bare CR or LF or a
 * NUL, -E2BIG past `max`; else the offset just past CRLFCRLF. */
static long head_end(const char *buf, size_t len, size_t start, size_t max)
{
	size_t lim = len < max ? len : max;

	for (size_t i = start; i < lim; i++) {
		char c = buf[i];
		if (c == '\0')
			return -EINVAL;
		if (c == '\n' && (i == start || buf[i - 1] != '\r'))
			return -EINVAL;
		if (c == '\r') {
			if (i + 1 >= lim)
				break;
			if (buf[i + 1] != '\n')
				return -EINVAL;
		}
		if (c == '\n' && i >= start + 3 && buf[i - 2] == '\n')
			return (long)(i + 1);
		/* an empty head ("\r\n" alone) was skipped by the caller */
	}
	return len >= max ? -E2BIG : 0;
}

/* One header line [s, e) (no CRLF): name and value (OWS trimmed). */
static int split_header(const char *s, const char *e, const char **name, size_t *nl,
			const char **val, size_t *vl)
{
	const char *c = s;

	if (s == e || *s == ' ' || *s == '\t')
		return -EINVAL; /* obs-fold or an empty name */
	while (c < e && *c != ':') {
		if (!tchar((unsigned char)*c))
			return -EINVAL; /* includes whitespace before the colon */
		c++;
	}
	if (c == e || c == s)
		return -EINVAL;
	*name = s;
	*nl = (size_t)(c - s);
	c++;
	while (c < e && (*c == ' ' || *c == '\t'))
		c++;
	while (e > c && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	for (const char *v = c; v < e; v++)
		if (!vchar_or_ws((unsigned char)*v))
			return -EINVAL;
	*val = c;
	*vl = (size_t)(e - c);
	return 0;
}

static int parse_length(const char *v, size_t n, uint64_t *out)
{
	uint64_t r = 0;

	if (n == 0 || n > 15) /* < 10^15: no overflow, and larger than any body we relay */
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -EINVAL;
		r = r * 10 + (uint64_t)(v[i] - '0');
	}
	*out = r;
	return 0;
}

/* The target of a request that is not CONNECT: absolute-form http:// only. */
static int parse_absolute(const char *t, size_t n, struct net_http_req *r, size_t toff,
			  int *status)
{
	const char *colon = memchr(t, ':', n);

	if (n && t[0] == '/') {
		*status = 400; /* origin-form: a request for us, not through us */
		return -EINVAL;
	}
	if (!colon || (size_t)(colon - t) + 3 > n || colon[1] != '/' || colon[2] != '/') {
		*status = 400;
		return -EINVAL;
	}
	if (!ieq(t, (size_t)(colon - t), "http")) {
		*status = 501; /* https:// through a plain proxy, ftp://, ... */
		return -ENOTSUP;
	}
	const char *a = colon + 3, *end = t + n, *ae = a;
	while (ae < end && *ae != '/' && *ae != '?' && *ae != '#')
		ae++;
	if (memchr(t, '#', n) || memchr(a, '@', (size_t)(ae - a))) {
		/* a fragment is never sent; userinfo (`allowed.com@evil.com`)
		 * is where URL readers disagree about the host */
		*status = 400;
		return -EINVAL;
	}
	if (net_hostport_parse(a, (size_t)(ae - a), 80, &r->host, &r->port)) {
		*status = 400;
		return -EINVAL;
	}
	r->path_off = toff + (size_t)(ae - t);
	r->path_len = (size_t)(end - ae);
	return 0;
}

int net_http_parse_request(const char *buf, size_t len, struct net_http_req *r,
			   int *status)
{
	size_t i = 0;
	int rc = -EINVAL, hosts = 0, tes = 0, lens = 0;
	bool conn_close = false;
	const char *host_v = NULL;
	size_t host_vl = 0;

	memset(r, 0, sizeof(*r));
	*status = 400;
	while (i + 1 < len && buf[i] == '\r' && buf[i + 1] == '\n' && i < NET_HEAD_MAX)
		i += 2;
	long end = head_end(buf, len, i, NET_HEAD_MAX);
	if (end == 0)
		return 0;
	if (end < 0) {
		if (end == -E2BIG)
			*status = 431;
		return (int)end;
	}

	/* request line: method SP target SP HTTP/1.x */
	const char *line = buf + i, *eol = memchr(line, '\r', (size_t)end - i);
	const char *sp1 = memchr(line, ' ', (size_t)(eol - line));
	if (!sp1 || sp1 == line || (size_t)(sp1 - line) >= sizeof(r->method))
		goto out;
	for (const char *c = line; c < sp1; c++)
		if (!tchar((unsigned char)*c))
			goto out;
	memcpy(r->method, line, (size_t)(sp1 - line));
	const char *tgt = sp1 + 1, *sp2 = memchr(tgt, ' ', (size_t)(eol - tgt));
	if (!sp2 || sp2 == tgt)
		goto out;
	for (const char *c = tgt; c < sp2; c++)
		if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f)
			goto out;
	const char *ver = sp2 + 1;
	size_t vl = (size_t)(eol - ver);
	if (vl == 8 && !memcmp(ver, "HTTP/1.", 7) && (ver[7] == '0' || ver[7] == '1')) {
		r->minor = (unsigned)(ver[7] - '0');
	} else if (vl == 8 && !memcmp(ver, "HTTP/", 5) && ver[5] >= '0' && ver[5] <= '9' &&
		   ver[6] == '.' && ver[7] >= '0' && ver[7] <= '9') {
		*status = 505;
		rc = -EPROTONOSUPPORT;
		goto out;
	} else {
		goto out;
	}

	r->connect = !strcmp(r->method, "CONNECT");
	if (r->connect) {
		if (net_hostport_parse(tgt, (size_t)(sp2 - tgt), 0, &r->host, &r->port))
			goto out;
	} else {
		rc = parse_absolute(tgt, (size_t)(sp2 - tgt), r, (size_t)(tgt - buf), status);
		if (rc)
			goto out;
		rc = -EINVAL;
	}

	/* headers */
	size_t nh = 0;
	const char *h = eol + 2;
	while (h < buf + end - 2) {
		const char *he = memchr(h, '\r', (size_t)(buf + end - h));
		const char *name, *val;
		size_t nl, vlen;

		if (++nh > NET_HEADERS_MAX) {
			*status = 431;
			rc = -E2BIG;
			goto out;
		}
		if (split_header(h, he, &name, &nl, &val, &vlen))
			goto out;
		if (ieq(name, nl, "host")) {
			hosts++;
			host_v = val;
			host_vl = vlen;
		} else if (ieq(name, nl, "content-length")) {
			uint64_t v;
			if (parse_length(val, vlen, &v) || (lens && v != r->content_length))
				goto out;
			r->content_length = v;
			lens++;
		} else if (ieq(name, nl, "transfer-encoding")) {
			tes++;
			if (!ieq(val, vlen, "chunked")) {
				/* gzip, chunked and friends: nothing we relay needs them */
				*status = 501;
				rc = -ENOTSUP;
				goto out;
			}
		} else if (ieq(name, nl, "connection") || ieq(name, nl, "proxy-connection")) {
			if (names_framing(val, vlen))
				goto out;
			conn_close |= has_token(val, vlen, "close", 5);
		} else if (ieq(name, nl, "accept")) {
			for (size_t k = 0; k + 16 <= vlen; k++)
				if (!strncasecmp(val + k, "application/json", 16))
					r->accept_json = true;
		}
		h = he + 2;
	}
	if (hosts > 1 || tes > 1 || (tes && lens))
		goto out;
	if (hosts) {
		struct net_host hh;
		unsigned hp;
		/* a CONNECT's Host without a port names the target's host;
		 * an absolute-form request's means port 80 */
		if (net_hostport_parse(host_v, host_vl, r->connect ? r->port : 80, &hh, &hp) ||
		    strcmp(hh.text, r->host.text) || hp != r->port)
			goto out;
	}
	if (!r->connect) {
		r->body = tes ? NET_BODY_CHUNKED : lens ? NET_BODY_LENGTH : NET_BODY_NONE;
		/* HTTP/1.0 keep-alive is not offered: one request, then close */
		r->keep_alive = r->minor == 1 && !conn_close;
	} else {
		r->content_length = 0;
	}
	r->head_len = (size_t)end;
	*status = 0;
	return (int)end;
out:
	return rc;
}

/* Hop-by-hop headers (RFC 9110 7.6.1), which a proxy must not forward. */
static bool hop_by_hop(const char *name, size_t nl)
{
	static const char *const hop[] = { "connection", "proxy-connection", "keep-alive",
					   "proxy-authorization", "proxy-authenticate",
					   "te", "upgrade" };
	for (size_t i = 0; i < sizeof(hop) / sizeof(hop[0]); i++)
		if (ieq(name, nl, hop[i]))
			return true;
	return false;
}

/* Copy the header lines of buf[hs, he) to out, minus hop-by-hop ones and
 * those the Connection headers name. Returns the new length, -E2BIG. */
static long copy_headers(const char *buf, const char *hs, const char *he, char *out,
			 size_t o, size_t outsz)
{
	for (const char *h = hs; h < he;) {
		const char *e = memchr(h, '\r', (size_t)(he - h)), *name, *val;
		size_t nl, vl;
		bool drop = false;

		if (!e)
			e = he;
		if (split_header(h, e, &name, &nl, &val, &vl))
			return -EINVAL;
		drop = hop_by_hop(name, nl);
		for (const char *c = hs; !drop && c < he;) {
			const char *ce = memchr(c, '\r', (size_t)(he - c)), *cn, *cv;
			size_t cnl, cvl;
			if (!ce)
				ce = he;
			if (!split_header(c, ce, &cn, &cnl, &cv, &cvl) &&
			    (ieq(cn, cnl, "connection") || ieq(cn, cnl, "proxy-connection")) &&
			    has_token(cv, cvl, name, nl))
				drop = true;
			c = ce + 2;
		}
		if (!drop) {
			size_t l = (size_t)(e - h) + 2;
			if (o + l > outsz)
				return -E2BIG;
			memcpy(out + o, h, l);
			o += l;
		}
		h = e + 2;
	}
	(void)buf;
	return (long)o;
}

int net_http_rewrite(const char *buf, const struct net_http_req *r, char *out,
		     size_t outsz)
{
	const char *path = buf + r->path_off;
	int n = snprintf(out, outsz, "%s %s%.*s HTTP/1.%u\r\n", r->method,
			 r->path_len && path[0] == '/' ? "" : "/", (int)r->path_len, path,
			 r->minor);
	if (n < 0 || (size_t)n >= outsz)
		return -E2BIG;

	/* the header lines start after the request line's CRLF */
	const char *hs = memchr(buf + r->path_off, '\n', r->head_len - r->path_off);
	if (!hs)
		return -EINVAL;
	long o = copy_headers(buf, hs + 1, buf + r->head_len - 2, out, (size_t)n, outsz);
	static const char tail[] = "Connection: close\r\n\r\n";
	if (o < 0)
		return (int)o;
	if ((size_t)o + sizeof(tail) - 1 > outsz)
		return -E2BIG;
	memcpy(out + o, tail, sizeof(tail) - 1);
	return (int)(o + (long)sizeof(tail) - 1);
}

int net_http_parse_response(const char *buf, size_t len, bool head_request,
			    struct net_http_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	long end = head_end(buf, len, 0, NET_HEAD_MAX);
	bool chunked = false, has_len = false;
	uint64_t clen = 0;

	if (end <= 0)
		return end == -E2BIG ? -EINVAL : (int)end;
	/* HTTP/1.x SP 3DIGIT [SP reason] */
	if (end < 14 || memcmp(buf, "HTTP/1.", 7) || buf[8] != ' ' ||
	    buf[9] < '1' || buf[9] > '5' || buf[10] < '0' || buf[10] > '9' ||
	    buf[11] < '0' || buf[11] > '9' || (buf[12] != ' ' && buf[12] != '\r'))
		return -EINVAL;
	resp->status = (unsigned)((buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0'));
	const char *h = memchr(buf, '\n', (size_t)end) + 1;
	while (h < buf + end - 2) {
		const char *he = memchr(h, '\r', (size_t)(buf + end - h)), *name, *val;
		size_t nl, vl;
		uint64_t v;
		if (split_header(h, he, &name, &nl, &val, &vl))
			return -EINVAL;
		if (ieq(name, nl, "content-length")) {
			if (parse_length(val, vl, &v) || (has_len && v != clen))
				return -EINVAL;
			has_len = true;
			clen = v;
		} else if (ieq(name, nl, "transfer-encoding")) {
			chunked = vl >= 7 && !strncasecmp(val + vl - 7, "chunked", 7);
			if (!chunked)
				return -EINVAL;
		} else if ((ieq(name, nl, "connection") || ieq(name, nl, "proxy-connection")) &&
			   names_framing(val, vl)) {
			return -EINVAL; /* the client would frame it without them */
		}
		h = he + 2;
	}
	resp->head_len = (size_t)end;
	/* 1xx: a final response follows, which we do not read: the client
	 * finds its end by EOF then */
	resp->self_delimited = resp->status >= 200 &&
		(head_request || resp->status == 204 || resp->status == 304 ||
		 (chunked != has_len));
	return (int)end;
}

int net_http_rewrite_response(const char *buf, const struct net_http_resp *resp,
			      bool keep_alive, char *out, size_t outsz)
{
	const char *sl = memchr(buf, '\n', resp->head_len) + 1;
	size_t n = (size_t)(sl - buf);
	static const char closing[] = "Connection: close\r\n\r\n", open_[] = "\r\n";
	const char *tail = keep_alive ? open_ : closing;
	size_t tl = strlen(tail);

	if (n > outsz)
		return -E2BIG;
	memcpy(out, buf, n);
	if (keep_alive)
		out[7] = '1'; /* our own version (RFC 9110 6.2): HTTP/1.1 keeps it open */
	long o = copy_headers(buf, sl, buf + resp->head_len - 2, out, n, outsz);
	if (o < 0)
		return (int)o;
	if ((size_t)o + tl > outsz)
		return -E2BIG;
	memcpy(out + o, tail, tl);
	return (int)(o + (long)tl);
}
