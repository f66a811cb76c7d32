/* tests/unit/net_addr.c: every address is decided on one canonical form
 * (net_addr_canon; docs/NETWORK.md "Address forms"). Each class of
 * address (loopback, this host's own, private, link-local, metadata,
 * multicast, public) in each form an answer or a literal can take (plain
 * IPv4, IPv4-mapped, NAT64, 6to4, v4-compatible, plain IPv6) through the
 * whole resolved-address check: the IPv4 forms are the IPv4 address, the
 * v4-compatible one is reserved, a plain IPv6 address is its own class. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"
#include "net/net.h"

enum form { F_V4, F_MAPPED, F_NAT64, F_6TO4, F_V4COMPAT, F_V6, F_COUNT };
static const char *const form_names[] = { "plain IPv4", "mapped", "NAT64", "6to4",
					  "v4-compatible", "plain IPv6" };

struct cls {
	const char *name;
	const char *v4, *v6; /* one address of the class in each family */
	enum net_addr_class cls;
};

/* this host's own addresses: counted by net_ctx_add_self */
#define SELF4 "203.0.113.5"
#define SELF6 "2001:db8::5"

static const struct cls classes[] = {
	{ "loopback", "127.0.0.1", "::1", NET_ADDR_LOOPBACK },
	{ "self", SELF4, SELF6, NET_ADDR_SELF },
	{ "private", "10.1.2.3", "fd12:3456::1", NET_ADDR_PRIVATE },
	{ "link-local", "169.254.1.1", "fe80::1", NET_ADDR_LINK_LOCAL },
	{ "metadata", "169.254.169.254", "fd00:ec2::254", NET_ADDR_METADATA },
	{ "multicast", "224.0.0.1", "ff02::1", NET_ADDR_MULTICAST },
	{ "public", "93.184.216.34", "2606:2800:220:1::1", NET_ADDR_PUBLIC },
};

/* The address of class k in form f, as a resolver would answer it. */
static void make_addr(enum form f, const struct cls *k, unsigned port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (void *)ss;
	struct sockaddr_in6 *in6 = (void *)ss;
	struct in_addr v4;
	char t[INET6_ADDRSTRLEN + 16];

	memset(ss, 0, sizeof(*ss));
	cr_assert_eq(inet_pton(AF_INET, k->v4, &v4), 1);
	const uint8_t *b = (const uint8_t *)&v4;
	switch (f) {
	case F_V4:
		in->sin_family = AF_INET;
		in->sin_addr = v4;
		in->sin_port = htons((uint16_t)port);
		return;
	case F_MAPPED: snprintf(t, sizeof(t), "::ffff:%s", k->v4); break;
	case F_NAT64: snprintf(t, sizeof(t), "64:ff9b::%s", k->v4); break;
	case F_6TO4: snprintf(t, sizeof(t), "2002:%02x%02x:%02x%02x:1::9", b[0], b[1], b[2], b[3]); break;
	case F_V4COMPAT: snprintf(t, sizeof(t), "::%s", k->v4); break;
	default: snprintf(t, sizeof(t), "%s", k->v6); break;
	}
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons((uint16_t)port);
	cr_assert_eq(inet_pton(AF_INET6, t, &in6->sin6_addr), 1, "%s", t);
}

static struct net_ctx *ctx_with_self(void)
{
	struct net_ctx *c = NULL;
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

	cr_assert_eq(net_ctx_new(NULL, &c), 0);
	inet_pton(AF_INET, SELF4, &s4.sin_addr);
	inet_pton(AF_INET6, SELF6, &s6.sin6_addr);
	cr_assert_eq(net_ctx_add_self(c, (struct sockaddr *)&s4), 0);
	cr_assert_eq(net_ctx_add_self(c, (struct sockaddr *)&s6), 0);
	return c;
}

struct form_case {
	enum form f;
	size_t k; /* index into classes */
};

ParameterizedTestParameters(net_addr, every_form_of_every_class)
{
	static struct form_case cases[F_COUNT * ARRAY_LEN(classes)];
	size_t n = 0;

	for (int f = 0; f < F_COUNT; f++)
		for (size_t k = 0; k < ARRAY_LEN(classes); k++)
			cases[n++] = (struct form_case){ (enum form)f, k };
	return cr_make_param_array(struct form_case, cases, n);
}

ParameterizedTest(struct form_case *c, net_addr, every_form_of_every_class)
{
	const struct cls *k = &classes[c->k];
	struct policy *p = compile_ini("[network]\nallow_domains = *.test\n");
	struct net_ctx *ctx = ctx_with_self();
	struct sockaddr_storage a, canon;
	struct net_host target;
	struct net_decision d;
	/* what the check must say: IPv4 in IPv6 is that IPv4 address; the
	 * deprecated v4-compatible form is reserved whatever it carries */
	enum net_addr_class want = c->f == F_V4COMPAT ? NET_ADDR_RESERVED : k->cls;
	bool carries_v4 = c->f == F_V4 || c->f == F_MAPPED || c->f == F_NAT64 || c->f == F_6TO4;

	make_addr(c->f, k, 443, &a);
	/* the canonical form: the IPv4 address carried, port kept */
	enum net_addr_form form = net_addr_canon((struct sockaddr *)&a, &canon);
	if (carries_v4) {
		struct in_addr v4;
		inet_pton(AF_INET, k->v4, &v4);
		cr_assert_eq(canon.ss_family, AF_INET, "%s %s", form_names[c->f], k->name);
		cr_assert_eq(((struct sockaddr_in *)&canon)->sin_addr.s_addr, v4.s_addr);
		cr_assert_eq(ntohs(((struct sockaddr_in *)&canon)->sin_port), 443);
		cr_assert(net_addr_same((struct sockaddr *)&a, (struct sockaddr *)&canon));
	} else {
		cr_assert_eq(form, NET_FORM_V6);
		cr_assert_eq(memcmp(&canon, &a, sizeof(struct sockaddr_in6)), 0);
	}
	if (want != NET_ADDR_SELF)
		cr_assert_eq(net_addr_classify((struct sockaddr *)&a), want, "%s %s: %s",
			     form_names[c->f], k->name,
			     net_addr_class_name(net_addr_classify((struct sockaddr *)&a)));

	/* the whole check, for a name allowed by a wildcard */
	cr_assert_eq(net_host_parse("x.test", 6, &target), 0);
	memset(&d, 0, sizeof(d));
	net_decide_check(p, ctx, &target, 443, NULL, &a, 1, &d);
	if (want == NET_ADDR_PUBLIC) {
		cr_assert_eq(d.verdict, NET_ALLOW, "%s %s: %s", form_names[c->f], k->name, d.reason);
		cr_assert_eq(d.naddrs, 1);
		/* dialled as answered: a NAT64 answer goes through its gateway */
		cr_assert_eq(d.addrs[0].ss_family, a.ss_family);
	} else {
		char want_text[64];
		snprintf(want_text, sizeof(want_text), "a %s address", net_addr_class_name(want));
		cr_assert_eq(d.verdict, NET_DENY, "%s %s allowed", form_names[c->f], k->name);
		cr_assert_eq(d.naddrs, 0);
		assert_contains(d.reason, want_text);
	}
	net_ctx_free(ctx);
	policy_free(p);
}

/* An address literal the client names (CONNECT [64:ff9b::7f00:1]:80): the
 * same, through net_decide. */
Test(net_addr, literals_in_every_ipv4_form_are_the_ipv4_address)
{
	static const char *const hosts[] = { "[::ffff:127.0.0.1]", "[64:ff9b::7f00:1]",
					     "[2002:7f00:1::1]", "[64:ff9b::cb00:7105]",
					     "[::ffff:203.0.113.5]", "[2002:cb00:7105::]" };
	struct policy *p = compile_ini("[network]\nallow_domains = *\ndeny_domains = x.test\n");
	struct net_ctx *ctx = ctx_with_self();
	struct net_host h;
	struct net_decision d;

	for (size_t i = 0; i < ARRAY_LEN(hosts); i++) {
		cr_assert_eq(net_host_parse(hosts[i], strlen(hosts[i]), &h), 0);
		net_decide(p, ctx, &h, 80, &d);
		cr_assert_eq(d.verdict, NET_DENY, "%s allowed", hosts[i]);
		cr_assert(strstr(d.reason, "loopback") || strstr(d.reason, "this host's own"),
			  "%s: %s", hosts[i], d.reason);
	}
	net_ctx_free(ctx);
	policy_free(p);
}

struct rule_case {
	const char *allow, *deny;
	const char *answer; /* what x.test resolves to */
	enum net_verdict expect;
	const char *reason;
};

ParameterizedTestParameters(net_addr, rules_read_the_canonical_form)
{
	static struct rule_case cases[] = {
		/* a deny rule naming the IPv4 address refuses every form of it */
		{ "x.test", "93.184.216.34", "::ffff:93.184.216.34", NET_DENY, "93.184.216.34" },
		{ "x.test", "93.184.216.34", "64:ff9b::5db8:d822", NET_DENY, "64:ff9b::5db8:d822 (93.184.216.34)" },
		{ "x.test", "93.184.0.0/16", "2002:5db8:d822::1", NET_DENY, "denied by" },
		/* ... and one naming the form as answered still does */
		{ "x.test", "64:ff9b::/96", "64:ff9b::5db8:d822", NET_DENY, "`deny_domains = 64:ff9b::/96`" },
		{ "x.test", "[2002::/16]", "2002:5db8:d822::1", NET_DENY, "`deny_domains = [2002::/16]`" },
		{ "x.test", "", "64:ff9b::5db8:d822", NET_ALLOW, NULL },
		/* an allow rule is read on the IPv4 address the form carries */
		{ "x.test, 10.0.0.0/8", "", "64:ff9b::a01:203", NET_ALLOW, NULL },
		{ "x.test, 10.1.2.3:443", "", "::ffff:10.1.2.3", NET_ALLOW, NULL },
		{ "x.test, [64:ff9b::/96]", "", "64:ff9b::a01:203", NET_DENY, "a private address" },
		{ "x.test, [2002::/16]", "", "2002:7f00:1::", NET_DENY, "a loopback address" },
		/* forms nothing here can read the IPv4 address of: reserved */
		{ "x.test", "", "64:ff9b:1::a01:203", NET_DENY, "a reserved address" },
		{ "x.test", "", "2001:0:4136:e378:8000:63bf:3fff:fdd2", NET_DENY, "a reserved address" },
	};
	return cr_make_param_array(struct rule_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct rule_case *c, net_addr, rules_read_the_canonical_form)
{
	char ini[512];
	struct net_host target;
	struct net_decision d;
	struct sockaddr_storage a = { 0 };
	struct sockaddr_in6 *in6 = (void *)&a;

	snprintf(ini, sizeof(ini), "[network]\nallow_domains = %s\n%s%s\n", c->allow,
		 c->deny[0] ? "deny_domains = " : "", c->deny);
	struct policy *p = compile_ini(ini);
	struct net_ctx *ctx = ctx_with_self();

	in6->sin6_family = AF_INET6;
	cr_assert_eq(inet_pton(AF_INET6, c->answer, &in6->sin6_addr), 1);
	net_host_parse("x.test", 6, &target);
	memset(&d, 0, sizeof(d));
	net_decide_check(p, ctx, &target, 443, NULL, &a, 1, &d);
	cr_assert_eq(d.verdict, c->expect, "%s with allow=%s deny=%s: %s", c->answer, c->allow,
		     c->deny, d.reason);
	if (c->reason)
		assert_contains(d.reason, c->reason);
	net_ctx_free(ctx);
	policy_free(p);
}

Test(net_addr, a_refusal_of_a_wrapped_address_names_the_ipv4_address_to_allow)
{
	struct policy *p = compile_ini("[network]\nallow_domains = x.test\n");
	struct net_ctx *ctx = ctx_with_self();
	struct net_host h;
	struct net_decision d;

	net_host_parse("[64:ff9b::a01:203]", 18, &h);
	net_decide(p, ctx, &h, 5432, &d);
	cr_assert_eq(d.verdict, NET_DENY);
	cr_assert_str_eq(d.fix, "--allow-domain 10.1.2.3");
	net_ctx_free(ctx);
	policy_free(p);
}

Test(net_addr, one_address_answered_in_two_forms_is_dialled_once)
{
	struct policy *p = compile_ini("[network]\nallow_domains = x.test\n");
	struct net_ctx *ctx = ctx_with_self();
	struct sockaddr_storage a[2] = { 0 };
	struct sockaddr_in *in = (void *)&a[0];
	struct sockaddr_in6 *in6 = (void *)&a[1];
	struct net_host h;
	struct net_decision d;

	in->sin_family = AF_INET;
	inet_pton(AF_INET, "93.184.216.34", &in->sin_addr);
	in6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:93.184.216.34", &in6->sin6_addr);
	net_host_parse("x.test", 6, &h);
	memset(&d, 0, sizeof(d));
	net_decide_check(p, ctx, &h, 443, NULL, a, 2, &d);
	cr_assert_eq(d.verdict, NET_ALLOW);
	cr_assert_eq(d.naddrs, 1);
	cr_assert_eq(d.addrs[0].ss_family, AF_INET);
	net_ctx_free(ctx);
	policy_free(p);
}

Test(net_addr, an_interface_address_counts_in_every_form)
{
	/* the host's own address listed as IPv6-mapped (as some stacks
	 * report a dual-stack listener) is the IPv4 address too */
	struct net_ctx *c = NULL;
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	struct sockaddr_storage a = { 0 };
	struct sockaddr_in *in = (void *)&a;
	struct policy *p = compile_ini("[network]\nallow_domains = x.test\n");
	struct net_host h;
	struct net_decision d;

	cr_assert_eq(net_ctx_new(NULL, &c), 0);
	inet_pton(AF_INET6, "::ffff:198.51.100.7", &s6.sin6_addr);
	cr_assert_eq(net_ctx_add_self(c, (struct sockaddr *)&s6), 0);
	in->sin_family = AF_INET;
	inet_pton(AF_INET, "198.51.100.7", &in->sin_addr);
	net_host_parse("x.test", 6, &h);
	memset(&d, 0, sizeof(d));
	net_decide_check(p, c, &h, 443, NULL, &a, 1, &d);
	cr_assert_eq(d.verdict, NET_DENY);
	assert_contains(d.reason, "this host's own");
	net_ctx_free(c);
	policy_free(p);
}
