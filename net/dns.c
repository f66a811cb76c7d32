/* net/dns.c: DNS messages (RFC 1035), both directions, pure.
 *
 * Two users: the sandbox's resolver (dnsserve.c) parses the queries the
 * sandbox sends and builds the answers, and the supervisor's own resolver
 * (resolve.c) builds queries and parses what the host's nameserver says.
 * Both inputs are hostile -- the sandbox's queries plainly, the network's
 * answers because anyone on the path can forge one -- so every read is
 * bounds-checked, a compressed name may only point backwards (no loops),
 * and nothing here allocates.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "net/net.h"
#include "net/compat.h"

#define HDR 12
#define TYPE_OPT 41
#define OPT_EDE 15 /* RFC 8914, Extended DNS Errors */

static unsigned get16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

/* A name at m[*off], as dotted text (no trailing dot, "" for the root),
 * *off moved past it. Compression pointers are followed only backwards
 * (RFC 1035 4.1.4 allows nothing else), so a hostile message cannot loop.
 * Label bytes other than [A-Za-z0-9_-] make it -EINVAL: no such name is
 * ever ours to serve or to trust. 0 or -EINVAL. */
static int get_name(const unsigned char *m, size_t len, size_t *off, bool allow_ptr,
		    char out[256])
{
	size_t p = *off, o = 0, end = 0;
	bool jumped = false;

	for (int hops = 0;; hops++) {
		if (p >= len || hops > 127)
			return -EINVAL;
		unsigned l = m[p];
		if ((l & 0xc0) == 0xc0) {
			if (!allow_ptr || p + 1 >= len)
				return -EINVAL;
			size_t to = (l & 0x3f) << 8 | m[p + 1];
			if (to >= p)
				return -EINVAL;
			if (!jumped)
				end = p + 2;
			jumped = true;
			p = to;
			continue;
		}
		if (l & 0xc0)
			return -EINVAL;
		if (l == 0) {
			if (!jumped)
				end = p + 1;
			break;
		}
		if (p + 1 + l > len || o + l + 1 > 254)
			return -EINVAL;
		if (o)
			out[o++] = '.';
		for (unsigned i = 0; i < l; i++) {
			unsigned char c = m[p + 1 + i];
			bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				  (c >= '0' && c <= '9') || c == '-' || c == '_';
			if (!ok)
				return -EINVAL;
			out[o++] = (char)c;
		}
		p += 1 + l;
	}
	out[o] = '\0';
	*off = end;
	return 0;
}

int net_dns_parse_query(const unsigned char *m, size_t len, struct net_dns_query *q)
{
	size_t off = HDR;

	memset(q, 0, sizeof(*q));
	if (len < HDR)
		return -EINVAL; /* too short to answer: dropped */
	q->id = (uint16_t)get16(m);
	q->rd = m[2] & 0x01;
	q->rcode = NET_DNS_FORMERR;
	if (m[2] & 0x80)
		return -EINVAL; /* a response: never answered (no reflection) */
	if (((m[2] >> 3) & 0x0f) != 0) {
		q->rcode = NET_DNS_NOTIMP; /* only QUERY */
		return -ENOTSUP;
	}
	if (get16(m + 4) != 1 || get16(m + 6) || get16(m + 8) || get16(m + 10) > 1)
		return -ENOTSUP;
	if (get_name(m, len, &off, false, q->name) || off + 4 > len)
		return -ENOTSUP;
	q->qtype = (uint16_t)get16(m + off);
	q->qclass = (uint16_t)get16(m + off + 2);
	q->qend = off + 4;
	if (get16(m + 10)) { /* one OPT record (EDNS): its name is the root */
		off = q->qend;
		if (off + 11 > len || m[off] != 0 || get16(m + off + 1) != TYPE_OPT)
			return -ENOTSUP;
		q->edns = true;
	}
	q->rcode = NET_DNS_NOERROR;
	return 0;
}

size_t net_dns_answer(const unsigned char *qmsg, const struct net_dns_query *q, unsigned rcode,
		      const struct in_addr *a, unsigned ttl, unsigned ede, const char *ede_text,
		      unsigned char *out, size_t outsz)
{
	size_t qlen = q->qend > HDR ? q->qend - HDR : 0;
	size_t tl = ede_text ? strlen(ede_text) : 0, o;

	if (tl > 400)
		tl = 400;
	if (outsz < HDR + qlen + 16 + 11 + 6 + tl)
		return 0;
	memset(out, 0, HDR);
	put16(out, q->id);
	out[2] = (unsigned char)(0x80 | (q->rd ? 1 : 0)); /* QR, opcode 0, RD copied */
	out[3] = (unsigned char)(0x80 | (rcode & 0x0f));  /* RA */
	put16(out + 4, qlen ? 1 : 0);
	put16(out + 6, a ? 1 : 0);
	put16(out + 10, q->edns ? 1 : 0);
	memcpy(out + HDR, qmsg + HDR, qlen);
	o = HDR + qlen;
	if (a) {
		put16(out + o, 0xc000 | HDR); /* the question's name */
		put16(out + o + 2, NET_DNS_A);
		put16(out + o + 4, 1);
		out[o + 6] = (unsigned char)(ttl >> 24);
		out[o + 7] = (unsigned char)(ttl >> 16);
		out[o + 8] = (unsigned char)(ttl >> 8);
		out[o + 9] = (unsigned char)ttl;
		put16(out + o + 10, 4);
		memcpy(out + o + 12, &a->s_addr, 4);
		o += 16;
	}
	if (q->edns) {
		/* the OPT record, and with a refusal an Extended DNS Error
		 * (RFC 8914): `dig` shows its code and text, so a person
		 * sees a policy refusal, not a broken network */
		size_t rdl = ede ? 4 + 2 + tl : 0;
		out[o] = 0;
		put16(out + o + 1, TYPE_OPT);
		put16(out + o + 3, 1232);
		memset(out + o + 5, 0, 4);
		put16(out + o + 9, (unsigned)rdl);
		o += 11;
		if (ede) {
			put16(out + o, OPT_EDE);
			put16(out + o + 2, (unsigned)(2 + tl));
			put16(out + o + 4, ede);
			memcpy(out + o + 6, ede_text, tl);
			o += rdl;
		}
	}
	return o;
}

size_t net_dns_build_query(uint16_t id, const char *name, uint16_t qtype, unsigned char *out,
			   size_t outsz)
{
	size_t n = strlen(name), o = HDR;

	if (!n || n > 253 || outsz < HDR + n + 2 + 4)
		return 0;
	memset(out, 0, HDR);
	put16(out, id);
	out[2] = 0x01; /* RD */
	put16(out + 4, 1);
	for (const char *s = name; *s;) {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);
		if (!l || l > 63)
			return 0;
		out[o++] = (unsigned char)l;
		memcpy(out + o, s, l);
		o += l;
		s += l + (dot ? 1 : 0);
		if (dot && !*s)
			break;
	}
	out[o++] = 0;
	put16(out + o, qtype);
	put16(out + o + 2, 1);
	return o + 4;
}

int net_dns_parse_response(const unsigned char *m, size_t len, uint16_t id, const char *name,
			   uint16_t qtype, struct sockaddr_storage *addrs, size_t max, size_t *n)
{
	char qn[256], owner[256], chain[8][256];
	size_t off = HDR, nchain = 1;

	*n = 0;
	if (len < HDR || get16(m) != id || !(m[2] & 0x80) || get16(m + 4) != 1)
		return -EINVAL;
	if (get_name(m, len, &off, true, qn) || strcasecmp(qn, name) || off + 4 > len ||
	    get16(m + off) != qtype || get16(m + off + 2) != 1)
		return -EINVAL;
	unsigned rcode = m[3] & 0x0f;
	if (rcode == NET_DNS_NXDOMAIN)
		return -ENOENT;
	if (rcode != NET_DNS_NOERROR)
		return -EAGAIN;
	off += 4;
	snprintf(chain[0], sizeof(chain[0]), "%s", name);
	unsigned an = get16(m + 6);
	bool tc = m[2] & 0x02; /* truncated: what arrived whole is used */
	/* Answers in order; a CNAME whose owner is on the chain adds its
	 * target (a resolver sends the chain first, then the addresses). */
	for (unsigned i = 0; i < an; i++) {
		if (get_name(m, len, &off, true, owner) || off + 10 > len)
			return tc ? 0 : -EINVAL;
		unsigned type = get16(m + off), cls = get16(m + off + 2), rdl = get16(m + off + 8);
		size_t rd = off + 10;
		if (rd + rdl > len)
			return tc ? 0 : -EINVAL;
		off = rd + rdl;
		bool ours = false;
		for (size_t k = 0; k < nchain && !ours; k++)
			ours = !strcasecmp(owner, chain[k]);
		if (!ours || cls != 1)
			continue;
		if (type == 5 /* CNAME */ && nchain < 8) {
			size_t t = rd;
			if (!get_name(m, rd + rdl, &t, true, chain[nchain]))
				nchain++;
		} else if (type == NET_DNS_A && qtype == NET_DNS_A && rdl == 4 && *n < max) {
			struct sockaddr_in *in = (void *)&addrs[*n];
			memset(&addrs[*n], 0, sizeof(addrs[0]));
			in->sin_family = AF_INET;
			memcpy(&in->sin_addr, m + rd, 4);
			(*n)++;
		} else if (type == NET_DNS_AAAA && qtype == NET_DNS_AAAA && rdl == 16 && *n < max) {
			struct sockaddr_in6 *in6 = (void *)&addrs[*n];
			memset(&addrs[*n], 0, sizeof(addrs[0]));
			in6->sin6_family = AF_INET6;
			memcpy(&in6->sin6_addr, m + rd, 16);
			(*n)++;
		}
	}
	return 0;
}
