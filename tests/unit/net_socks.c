/* tests/unit/net_socks.c: the SOCKS5 greeting, request and reply
 * (RFC 1928; docs/NETWORK.md "SOCKS5"). */
#include <arpa/inet.h>
#include <errno.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"
#include "net/net.h"

Test(net_socks, greeting_with_no_auth_is_accepted)
{
	const unsigned char g[] = { 5, 2, 2, 0 };
	bool noauth;

	cr_assert_eq(net_socks_parse_greeting(g, sizeof(g), &noauth), 4);
	cr_assert(noauth);
}

Test(net_socks, greeting_without_no_auth_gets_no_method)
{
	const unsigned char g[] = { 5, 1, 2 };
	const unsigned char z[] = { 5, 0 };
	bool noauth = true;

	cr_assert_eq(net_socks_parse_greeting(g, sizeof(g), &noauth), 3);
	cr_assert_not(noauth);
	cr_assert_eq(net_socks_parse_greeting(z, sizeof(z), &noauth), 2);
	cr_assert_not(noauth);
}

Test(net_socks, truncated_greeting_waits_and_socks4_is_refused)
{
	const unsigned char g[] = { 5, 3, 0, 1, 2 };
	const unsigned char s4[] = { 4, 1, 0, 80, 127, 0, 0, 1, 0 };
	bool noauth;

	for (size_t n = 0; n < sizeof(g); n++)
		cr_assert_eq(net_socks_parse_greeting(g, n, &noauth), 0, "at %zu", n);
	cr_assert_eq(net_socks_parse_greeting(s4, sizeof(s4), &noauth), -EINVAL);
}

struct req_case {
	const char *name;
	unsigned char bytes[300];
	size_t len;
	int rc;          /* > 0 parsed (its length), 0 need more, -EINVAL */
	uint8_t rep;     /* on -EINVAL */
	const char *host;
	unsigned port;
};

ParameterizedTestParameters(net_socks, requests)
{
	static struct req_case cases[] = {
		{ "connect by name", { 5, 1, 0, 3, 9, 'a', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', 1, 187 },
		  16, 16, 0, "a.example", 443 },
		{ "connect by name, upper-case", { 5, 1, 0, 3, 4, 'A', '.', 'B', 'C', 0, 80 },
		  11, 11, 0, "a.bc", 80 },
		{ "connect by IPv4", { 5, 1, 0, 1, 93, 184, 216, 34, 0, 80 }, 10, 10, 0, "93.184.216.34", 80 },
		{ "connect by IPv6", { 5, 1, 0, 4, 0x20, 0x01, 0x0d, 0xb8, [19] = 1, [20] = 0, [21] = 22 },
		  22, 22, 0, "2001:db8::1", 22 },
		{ "IPv4-mapped IPv6 is IPv4", { 5, 1, 0, 4, [14] = 0xff, [15] = 0xff, [16] = 127, [19] = 1,
		  [21] = 80 }, 22, 22, 0, "127.0.0.1", 80 },
		{ "a name spelling loopback in decimal", { 5, 1, 0, 3, 10, '2', '1', '3', '0', '7', '0', '6',
		  '4', '3', '3', 0, 80 }, 17, 17, 0, "127.0.0.1", 80 },
		{ "BIND", { 5, 2, 0, 1, 1, 2, 3, 4, 0, 80 }, 10, -EINVAL, NET_SOCKS_BAD_CMD, NULL, 0 },
		{ "UDP ASSOCIATE", { 5, 3, 0, 1, 0, 0, 0, 0, 0, 0 }, 10, -EINVAL, NET_SOCKS_BAD_CMD, NULL, 0 },
		{ "UDP ASSOCIATE, two bytes", { 5, 3 }, 2, -EINVAL, NET_SOCKS_BAD_CMD, NULL, 0 },
		{ "unknown address type", { 5, 1, 0, 9, 1, 2, 3, 4, 0, 80 }, 10, -EINVAL, NET_SOCKS_BAD_ATYP, NULL, 0 },
		{ "port 0", { 5, 1, 0, 1, 1, 2, 3, 4, 0, 0 }, 10, -EINVAL, NET_SOCKS_FAIL, NULL, 0 },
		{ "empty name", { 5, 1, 0, 3, 0, 0, 80 }, 7, -EINVAL, NET_SOCKS_FAIL, NULL, 0 },
		{ "NUL in the name", { 5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80 }, 10, -EINVAL, NET_SOCKS_FAIL, NULL, 0 },
		{ "userinfo in the name", { 5, 1, 0, 3, 5, 'a', '@', 'b', '.', 'c', 0, 80 }, 12, -EINVAL,
		  NET_SOCKS_FAIL, NULL, 0 },
		{ "reserved byte set", { 5, 1, 1, 1, 1, 2, 3, 4, 0, 80 }, 10, -EINVAL, NET_SOCKS_FAIL, NULL, 0 },
		{ "wrong version", { 4, 1, 0, 1, 1, 2, 3, 4, 0, 80 }, 10, -EINVAL, NET_SOCKS_FAIL, NULL, 0 },
		{ "truncated name", { 5, 1, 0, 3, 9, 'a', '.' }, 7, 0, 0, NULL, 0 },
		{ "truncated port", { 5, 1, 0, 1, 1, 2, 3, 4, 0 }, 9, 0, 0, NULL, 0 },
	};
	return cr_make_param_array(struct req_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct req_case *c, net_socks, requests)
{
	struct net_socks_req r;
	uint8_t rep = 0xee;
	int rc = net_socks_parse_request(c->bytes, c->len, &r, &rep);

	cr_assert_eq(rc, c->rc, "%s: rc %d", c->name, rc);
	if (rc > 0) {
		cr_assert_str_eq(r.host.text, c->host, "%s", c->name);
		cr_assert_eq(r.port, c->port, "%s", c->name);
	} else if (rc < 0) {
		cr_assert_eq(rep, c->rep, "%s: reply %#x, expected %#x", c->name, rep, c->rep);
	}
}

Test(net_socks, every_truncation_of_a_request_waits_for_more)
{
	const unsigned char q[] = { 5, 1, 0, 3, 4, 'a', '.', 'b', 'c', 1, 187 };
	struct net_socks_req r;
	uint8_t rep;

	for (size_t n = 0; n < sizeof(q); n++)
		cr_assert_eq(net_socks_parse_request(q, n, &r, &rep), 0, "at %zu", n);
}

Test(net_socks, reply_carries_no_address)
{
	/* BND.ADDR would be the host's own source address: the one thing an
	 * attack on "this host's own address" needs (docs/NETWORK.md) */
	unsigned char out[10];

	cr_assert_eq(net_socks_reply(NET_SOCKS_OK, out), 10);
	const unsigned char want[] = { 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };
	cr_assert_arr_eq(out, want, sizeof(want));
	cr_assert_eq(net_socks_reply(NET_SOCKS_NOT_ALLOWED, out), 10);
	cr_assert_eq(out[1], 0x02);
}
