/* tests/unit/net_host.c: how the proxy reads a host, and what kind of
 * address it is (docs/NETWORK.md "Hosts and addresses"). */
#include <arpa/inet.h>
#include <errno.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"
#include "net/net.h"

struct host_case {
	const char *in;
	int rc;                 /* 0 or -EINVAL */
	enum net_host_kind kind;
	const char *text;       /* canonical */
};

ParameterizedTestParameters(net_host, normalised)
{
	static struct host_case cases[] = {
		/* names: lower-case, one trailing dot dropped */
		{ "GitHub.COM", 0, NET_HOST_NAME, "github.com" },
		{ "github.com.", 0, NET_HOST_NAME, "github.com" },
		{ "a-b_c.example", 0, NET_HOST_NAME, "a-b_c.example" },
		{ "xn--bcher-kva.example", 0, NET_HOST_NAME, "xn--bcher-kva.example" },
		{ "localhost", 0, NET_HOST_NAME, "localhost" },
		{ "1.2.3.com", 0, NET_HOST_NAME, "1.2.3.com" },
		/* IPv4 in every spelling a resolver or URL parser accepts */
		{ "127.0.0.1", 0, NET_HOST_V4, "127.0.0.1" },
		{ "127.1", 0, NET_HOST_V4, "127.0.0.1" },
		{ "0x7f.1", 0, NET_HOST_V4, "127.0.0.1" },
		{ "2130706433", 0, NET_HOST_V4, "127.0.0.1" },
		{ "0x7f000001", 0, NET_HOST_V4, "127.0.0.1" },
		{ "017700000001", 0, NET_HOST_V4, "127.0.0.1" },
		{ "0177.0.0.1", 0, NET_HOST_V4, "127.0.0.1" },
		{ "0x7F.0.0.0x1", 0, NET_HOST_V4, "127.0.0.1" },
		{ "169.254.43518", 0, NET_HOST_V4, "169.254.169.254" },
		{ "127.0.0.1.", 0, NET_HOST_V4, "127.0.0.1" },
		/* IPv6: bracketed or bare; v4-mapped is the v4 address */
		{ "[::1]", 0, NET_HOST_V6, "::1" },
		{ "::1", 0, NET_HOST_V6, "::1" },
		{ "[0:0:0:0:0:0:0:1]", 0, NET_HOST_V6, "::1" },
		{ "[2001:DB8::1]", 0, NET_HOST_V6, "2001:db8::1" },
		{ "[::ffff:127.0.0.1]", 0, NET_HOST_V4, "127.0.0.1" },
		{ "[::ffff:7f00:1]", 0, NET_HOST_V4, "127.0.0.1" },
		/* refused: not a valid address, yet numeric; odd bytes */
		{ "1.2.3.4.5", -EINVAL, 0, NULL },
		{ "256.1.1.1", -EINVAL, 0, NULL },
		{ "1.2.3.256", -EINVAL, 0, NULL },
		{ "08.1.1.1", -EINVAL, 0, NULL },
		{ "4294967296", -EINVAL, 0, NULL },
		{ "example.123", -EINVAL, 0, NULL },
		{ "", -EINVAL, 0, NULL },
		{ ".", -EINVAL, 0, NULL },
		{ "a..b", -EINVAL, 0, NULL },
		{ ".a", -EINVAL, 0, NULL },
		{ "a b", -EINVAL, 0, NULL },
		{ "allowed.com@evil.com", -EINVAL, 0, NULL },
		{ "evil.com/x", -EINVAL, 0, NULL },
		{ "b\xc3\xbc" "cher.example", -EINVAL, 0, NULL },
		{ "[::1", -EINVAL, 0, NULL },
		{ "[fe80::1%eth0]", -EINVAL, 0, NULL },
		{ "[]", -EINVAL, 0, NULL },
		{ "[127.0.0.1]", -EINVAL, 0, NULL },
		{ "a.0123456789012345678901234567890123456789012345678901234567890123.b", -EINVAL, 0, NULL },
	};
	return cr_make_param_array(struct host_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct host_case *c, net_host, normalised)
{
	struct net_host h;
	int rc = net_host_parse(c->in, strlen(c->in), &h);

	cr_assert_eq(rc, c->rc, "%s: rc %d, expected %d", c->in, rc, c->rc);
	if (rc)
		return;
	cr_assert_eq(h.kind, c->kind, "%s: kind %d", c->in, h.kind);
	cr_assert_str_eq(h.text, c->text, "%s", c->in);
}

Test(net_host, a_nul_inside_the_name_is_refused)
{
	struct net_host h;

	cr_assert_eq(net_host_parse("good.test\0evil", 14, &h), -EINVAL);
}

struct hp_case {
	const char *in;
	unsigned dflt;
	int rc;
	const char *text;
	unsigned port;
};

ParameterizedTestParameters(net_host, with_port)
{
	static struct hp_case cases[] = {
		{ "example.com:443", 0, 0, "example.com", 443 },
		{ "[::1]:8080", 0, 0, "::1", 8080 },
		{ "example.com", 80, 0, "example.com", 80 },
		{ "example.com", 0, -EINVAL, NULL, 0 },      /* CONNECT needs a port */
		{ "example.com:", 80, -EINVAL, NULL, 0 },
		{ "example.com:0", 0, -EINVAL, NULL, 0 },
		{ "example.com:65536", 0, -EINVAL, NULL, 0 },
		{ "example.com:+443", 0, -EINVAL, NULL, 0 },
		{ "example.com:443x", 0, -EINVAL, NULL, 0 },
		{ "::1:443", 0, -EINVAL, NULL, 0 },          /* v6 needs brackets */
		{ "[::1]443", 0, -EINVAL, NULL, 0 },
		{ "a@b:443", 0, -EINVAL, NULL, 0 },
	};
	return cr_make_param_array(struct hp_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct hp_case *c, net_host, with_port)
{
	struct net_host h;
	unsigned port = 0;
	int rc = net_hostport_parse(c->in, strlen(c->in), c->dflt, &h, &port);

	cr_assert_eq(rc, c->rc, "%s: rc %d", c->in, rc);
	if (rc)
		return;
	cr_assert_str_eq(h.text, c->text);
	cr_assert_eq(port, c->port);
}

struct class_case {
	const char *addr;
	enum net_addr_class cls;
};

ParameterizedTestParameters(net_addr, classes)
{
	static struct class_case cases[] = {
		{ "93.184.216.34", NET_ADDR_PUBLIC },
		{ "2606:2800:220:1::1", NET_ADDR_PUBLIC },
		{ "127.0.0.1", NET_ADDR_LOOPBACK },
		{ "127.255.0.9", NET_ADDR_LOOPBACK },
		{ "::1", NET_ADDR_LOOPBACK },
		{ "0.0.0.0", NET_ADDR_UNSPECIFIED },
		{ "0.1.2.3", NET_ADDR_UNSPECIFIED },
		{ "::", NET_ADDR_UNSPECIFIED },
		{ "10.1.2.3", NET_ADDR_PRIVATE },
		{ "172.16.0.1", NET_ADDR_PRIVATE },
		{ "172.31.255.255", NET_ADDR_PRIVATE },
		{ "172.32.0.1", NET_ADDR_PUBLIC },
		{ "192.168.1.1", NET_ADDR_PRIVATE },
		{ "fd12:3456::1", NET_ADDR_PRIVATE },
		{ "fc00::1", NET_ADDR_PRIVATE },
		{ "100.64.0.1", NET_ADDR_CGNAT },
		{ "100.127.255.255", NET_ADDR_CGNAT },
		{ "100.128.0.1", NET_ADDR_PUBLIC },
		{ "169.254.1.1", NET_ADDR_LINK_LOCAL },
		{ "fe80::1", NET_ADDR_LINK_LOCAL },
		{ "169.254.169.254", NET_ADDR_METADATA },
		{ "fd00:ec2::254", NET_ADDR_METADATA },
		{ "100.100.100.200", NET_ADDR_METADATA },
		{ "224.0.0.1", NET_ADDR_MULTICAST },
		{ "ff02::1", NET_ADDR_MULTICAST },
		{ "240.0.0.1", NET_ADDR_RESERVED },
		{ "255.255.255.255", NET_ADDR_RESERVED },
		/* IPv4 carried in IPv6 is judged as that IPv4 address */
		{ "::ffff:127.0.0.1", NET_ADDR_LOOPBACK },
		{ "::ffff:169.254.169.254", NET_ADDR_METADATA },
		{ "64:ff9b::a9fe:a9fe", NET_ADDR_METADATA },
		{ "64:ff9b::5db8:d822", NET_ADDR_PUBLIC },
		{ "2002:7f00:1::", NET_ADDR_LOOPBACK },
		{ "::127.0.0.1", NET_ADDR_RESERVED },
		/* IPv4 carried where nothing here reads it, and the unrouted */
		{ "::ffff:0:7f00:1", NET_ADDR_RESERVED },
		{ "64:ff9b:1::7f00:1", NET_ADDR_RESERVED },
		{ "2001:0:4136:e378:8000:63bf:3fff:fdd2", NET_ADDR_RESERVED },
		{ "100::1", NET_ADDR_RESERVED },
		{ "4000::1", NET_ADDR_RESERVED },
		{ "2001:db8::1", NET_ADDR_PUBLIC },
	};
	return cr_make_param_array(struct class_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct class_case *c, net_addr, classes)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in = (void *)&ss;
	struct sockaddr_in6 *in6 = (void *)&ss;

	if (inet_pton(AF_INET, c->addr, &in->sin_addr) == 1)
		in->sin_family = AF_INET;
	else {
		cr_assert_eq(inet_pton(AF_INET6, c->addr, &in6->sin6_addr), 1, "%s", c->addr);
		in6->sin6_family = AF_INET6;
	}
	enum net_addr_class got = net_addr_classify((struct sockaddr *)&ss);
	cr_assert_eq(got, c->cls, "%s: %s, expected %s", c->addr, net_addr_class_name(got),
		     net_addr_class_name(c->cls));
}
