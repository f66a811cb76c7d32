/* net/host.c: host names and addresses as the policy sees them.
 *
 * A client can spell one address many ways (`127.1`, `0x7f.1`, `2130706433`,
 * `[::ffff:127.0.0.1]`). The policy and the resolved-address check must see
 * the address itself, or `allow_domains = *` plus a denied literal would be
 * a spelling contest, so every spelling is folded to one canonical text
 * here, before anything is decided. Likewise an address: IPv4 carried in
 * IPv6 (mapped, NAT64, 6to4) is decided as the IPv4 address it carries
 * (net_addr_canon, the one place that knows the forms). Pure: no I/O, no
 * allocation.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "net/net.h"
#include "net/compat.h"

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* One IPv4 part as WHATWG's URL standard reads it (and inet_aton(3)):
 * 0x.. hex, a leading 0 octal, else decimal. -1 when it is not a number. */
static int parse_v4_part(const char *s, size_t n, uint64_t *v)
{
	unsigned base = 10;
	uint64_t r = 0;

	if (n == 0)
		return -1;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
	} else if (n >= 2 && s[0] == '0') {
		base = 8;
		s++;
		n--;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned d;
		char c = s[i];
		if (is_digit(c))
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		if (d >= base)
			return -1;
		r = r * base + d;
		if (r > 0xffffffffull)
			return -1;
	}
	*v = r;
	return 0;
}

/* Is this label a number in one of the spellings above? (It decides that
 * a host is meant as an IPv4 address, WHATWG's "ends in a number".) */
static bool numeric_label(const char *s, size_t n)
{
	if (n == 0)
		return false;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (size_t i = 2; i < n; i++)
			if (!is_hex(s[i]))
				return false;
		return true;
	}
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

/* 1..4 parts; the last fills the remaining bytes. */
static int parse_v4(const char *s, size_t n, struct in_addr *out)
{
	uint64_t parts[4];
	size_t np = 0, start = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (np == 4 || parse_v4_part(s + start, i - start, &parts[np]))
			return -1;
		np++;
		start = i + 1;
	}
	uint64_t v = 0;
	for (size_t i = 0; i + 1 < np; i++) {
		if (parts[i] > 255)
			return -1;
		v |= parts[i] << (8 * (3 - i));
	}
	if (parts[np - 1] >= (1ull << (8 * (5 - np))))
		return -1;
	v |= parts[np - 1];
	out->s_addr = htonl((uint32_t)v);
	return 0;
}

static void set_v4(struct net_host *h, struct in_addr a)
{
	h->kind = NET_HOST_V4;
	h->v4 = a;
	inet_ntop(AF_INET, &a, h->text, sizeof(h->text));
}

/* An IPv4-mapped address is the IPv4 address itself wherever it is
 * dialled (the kernel delivers it there), so the host is that: one host,
 * one text. NAT64 and 6to4 stay IPv6 hosts (they are dialled as such,
 * through their gateway); decisions see them canonical (net_addr_canon). */
static void set_v6(struct net_host *h, const struct in6_addr *a)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_addr = *a };
	struct sockaddr_storage c;

	if (net_addr_canon((const struct sockaddr *)&in6, &c) == NET_FORM_MAPPED) {
		set_v4(h, ((const struct sockaddr_in *)(const void *)&c)->sin_addr);
		return;
	}
	h->kind = NET_HOST_V6;
	h->v6 = *a;
	inet_ntop(AF_INET6, a, h->text, sizeof(h->text));
}

static int parse_v6(const char *s, size_t n, struct net_host *h)
{
	char buf[INET6_ADDRSTRLEN + 1];
	struct in6_addr a;

	/* no zone ids (`%eth0`): the sandbox has no business naming our links */
	if (n == 0 || n >= sizeof(buf) || memchr(s, '%', n))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET6, buf, &a) != 1)
		return -EINVAL;
	set_v6(h, &a);
	return 0;
}

int net_host_parse(const char *s, size_t n, struct net_host *h)
{
	memset(h, 0, sizeof(*h));
	if (n == 0 || n > 255)
		return -EINVAL;
	if (s[0] == '[') {
		if (n < 3 || s[n - 1] != ']')
			return -EINVAL;
		return parse_v6(s + 1, n - 2, h);
	}
	if (memchr(s, ':', n)) /* a bare IPv6 literal (SOCKS names, rules) */
		return parse_v6(s, n, h);
	if (s[n - 1] == '.')
		n--;
	if (n == 0 || n > 253)
		return -EINVAL;

	/* labels: 1..63 of [a-z0-9_-]; `_` is not a hostname character, but
	 * real names carry it (SRV-style, some CDNs) and it changes nothing
	 * about what is decided */
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		char c = i < n ? s[i] : '.';
		if (c == '.') {
			if (i == start || i - start > 63)
				return -EINVAL;
			start = i + 1;
			if (i < n)
				h->text[i] = '.';
			continue;
		}
		if (c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '-' || c == '_'))
			return -EINVAL;
		h->text[i] = c;
	}
	h->text[n] = '\0';

	/* the last label a number: meant as an IPv4 address, in any spelling;
	 * one that is no valid address is refused, not looked up */
	const char *last = strrchr(h->text, '.');
	last = last ? last + 1 : h->text;
	if (numeric_label(last, strlen(last))) {
		struct in_addr a;
		if (parse_v4(h->text, n, &a))
			return -EINVAL;
		set_v4(h, a);
		return 0;
	}
	h->kind = NET_HOST_NAME;
	return 0;
}

int net_hostport_parse(const char *s, size_t n, unsigned default_port,
		       struct net_host *host, unsigned *port)
{
	const char *colon = NULL;

	if (n == 0)
		return -EINVAL;
	if (s[0] == '[') {
		const char *rb = memchr(s, ']', n);
		if (!rb)
			return -EINVAL;
		if ((size_t)(rb - s) + 1 < n) {
			if (rb[1] != ':')
				return -EINVAL;
			colon = rb + 1;
		}
	} else {
		colon = memchr(s, ':', n);
		if (colon && memchr(colon + 1, ':', n - (size_t)(colon + 1 - s)))
			return -EINVAL; /* a bare v6 literal needs brackets here */
	}
	if (colon) {
		size_t pl = n - (size_t)(colon + 1 - s);
		unsigned long v = 0;
		if (pl == 0 || pl > 5)
			return -EINVAL;
		for (size_t i = 0; i < pl; i++) {
			if (!is_digit(colon[1 + i]))
				return -EINVAL;
			v = v * 10 + (unsigned)(colon[1 + i] - '0');
		}
		if (v == 0 || v > 65535)
			return -EINVAL;
		*port = (unsigned)v;
		n = (size_t)(colon - s);
	} else {
		if (!default_port)
			return -EINVAL;
		*port = default_port;
	}
	return net_host_parse(s, n, host);
}

/* ---- address forms: one canonical form for every decision */

enum net_addr_form net_addr_canon(const struct sockaddr *sa, struct sockaddr_storage *out)
{
	static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b }; /* 64:ff9b::/96 */
	struct sockaddr_in *o4 = (void *)out;
	enum net_addr_form form;
	const uint8_t *v4;

	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET) {
		memcpy(out, sa, sizeof(struct sockaddr_in));
		return NET_FORM_V4;
	}
	if (sa->sa_family != AF_INET6)
		return NET_FORM_OTHER;

	const struct sockaddr_in6 *in6 = (const void *)sa;
	const uint8_t *b = in6->sin6_addr.s6_addr;
	if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
		form = NET_FORM_MAPPED;
		v4 = b + 12;
	} else if (!memcmp(b, nat64, 12)) {
		form = NET_FORM_NAT64;
		v4 = b + 12;
	} else if (b[0] == 0x20 && b[1] == 0x02) {
		form = NET_FORM_6TO4;
		v4 = b + 2;
	} else {
		memcpy(out, sa, sizeof(struct sockaddr_in6));
		return NET_FORM_V6;
	}
	o4->sin_family = AF_INET;
	o4->sin_port = in6->sin6_port;
	memcpy(&o4->sin_addr, v4, 4);
	return form;
}

bool net_addr_same(const struct sockaddr *a, const struct sockaddr *b)
{
	struct sockaddr_storage ca, cb;

	if (net_addr_canon(a, &ca) == NET_FORM_OTHER || net_addr_canon(b, &cb) == NET_FORM_OTHER ||
	    ca.ss_family != cb.ss_family)
		return false;
	if (ca.ss_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)&ca)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)(const void *)&cb)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)(const void *)&ca)->sin6_addr,
		       &((const struct sockaddr_in6 *)(const void *)&cb)->sin6_addr, 16);
}

int net_host_from_addr(const struct sockaddr *sa, bool canon, struct net_host *h)
{
	struct sockaddr_storage c;

	memset(h, 0, sizeof(*h));
	if (net_addr_canon(sa, &c) == NET_FORM_OTHER)
		return -EINVAL;
	if (canon)
		sa = (const struct sockaddr *)&c;
	if (sa->sa_family == AF_INET)
		set_v4(h, ((const struct sockaddr_in *)(const void *)sa)->sin_addr);
	else
		set_v6(h, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr);
	return 0;
}

void net_host_addr(const struct net_host *h, unsigned port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (h->kind == NET_HOST_V4) {
		struct sockaddr_in *in = (void *)ss;
		in->sin_family = AF_INET;
		in->sin_addr = h->v4;
		in->sin_port = htons((uint16_t)port);
	} else if (h->kind == NET_HOST_V6) {
		struct sockaddr_in6 *in6 = (void *)ss;
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = h->v6;
		in6->sin6_port = htons((uint16_t)port);
	}
}

/* ---- address classes */

static enum net_addr_class classify_v4(uint32_t a) /* host order */
{
	if (a == 0xA9FEA9FEu /* 169.254.169.254: AWS, GCP, Azure, OpenStack */ ||
	    a == 0x646464C8u /* 100.100.100.200: Alibaba */ ||
	    a == 0xA83F8110u /* 168.63.129.16: Azure's wire server */)
		return NET_ADDR_METADATA;
	if ((a >> 24) == 0)
		return NET_ADDR_UNSPECIFIED;
	if ((a >> 24) == 127)
		return NET_ADDR_LOOPBACK;
	if ((a >> 24) == 10 || (a >> 20) == 0xAC1 || (a >> 16) == 0xC0A8)
		return NET_ADDR_PRIVATE;
	if ((a >> 22) == (100u << 2 | 1)) /* 100.64.0.0/10 */
		return NET_ADDR_CGNAT;
	if ((a >> 16) == 0xA9FE)
		return NET_ADDR_LINK_LOCAL;
	if ((a >> 28) == 0xE)
		return NET_ADDR_MULTICAST;
	if ((a >> 28) == 0xF) /* 240/4 and 255.255.255.255 */
		return NET_ADDR_RESERVED;
	return NET_ADDR_PUBLIC;
}

static enum net_addr_class classify_v6(const struct in6_addr *a)
{
	const uint8_t *b = a->s6_addr;
	static const uint8_t ec2[16] = { 0xfd, 0, 0x0e, 0xc2, [15] = 0x54, [14] = 0x02 };

	if (IN6_IS_ADDR_UNSPECIFIED(a))
		return NET_ADDR_UNSPECIFIED;
	if (IN6_IS_ADDR_LOOPBACK(a))
		return NET_ADDR_LOOPBACK;
	/* IPv4 in a form nothing here delivers as IPv6, or whose IPv4 we
	 * cannot find: in ::/8, ::a.b.c.d (v4-compatible, deprecated; a sit
	 * tunnel still takes it), ::ffff:0:a.b.c.d (SIIT's IPv4-translated)
	 * and 64:ff9b:1::/48 (RFC 8215: the IPv4 sits where the operator's
	 * prefix length puts it); Teredo 2001::/32 (a relay delivers to the
	 * client's IPv4, stored inverted). Reserved: refused unless a rule
	 * names the address. So is every other address outside the ranges
	 * below and global unicast (2000::/3): none is routed anywhere. */
	if (b[0] == 0 || (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0))
		return NET_ADDR_RESERVED;
	if (!memcmp(b, ec2, 16))
		return NET_ADDR_METADATA;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return NET_ADDR_LINK_LOCAL;
	if ((b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) || (b[0] & 0xfe) == 0xfc)
		return NET_ADDR_PRIVATE;
	if (b[0] == 0xff)
		return NET_ADDR_MULTICAST;
	if ((b[0] & 0xe0) != 0x20) /* 100::/64 (discard) and the unassigned */
		return NET_ADDR_RESERVED;
	return NET_ADDR_PUBLIC;
}

enum net_addr_class net_addr_classify(const struct sockaddr *sa)
{
	struct sockaddr_storage c;

	switch (net_addr_canon(sa, &c)) {
	case NET_FORM_OTHER:
		return NET_ADDR_RESERVED;
	case NET_FORM_V6:
		return classify_v6(&((const struct sockaddr_in6 *)(const void *)&c)->sin6_addr);
	default:
		return classify_v4(ntohl(((const struct sockaddr_in *)(const void *)&c)->sin_addr.s_addr));
	}
}

const char *net_addr_class_name(enum net_addr_class c)
{
	static const char *const names[] = {
		[NET_ADDR_PUBLIC] = "public",
		[NET_ADDR_LOOPBACK] = "loopback",
		[NET_ADDR_UNSPECIFIED] = "unspecified",
		[NET_ADDR_LINK_LOCAL] = "link-local",
		[NET_ADDR_MULTICAST] = "multicast",
		[NET_ADDR_PRIVATE] = "private",
		[NET_ADDR_CGNAT] = "carrier-grade NAT",
		[NET_ADDR_METADATA] = "cloud metadata",
		[NET_ADDR_RESERVED] = "reserved",
		[NET_ADDR_SELF] = "this host's own",
	};
	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}
