/* tests/unit/net_decide.c: may the sandbox reach host:port, and at which
 * address (docs/NETWORK.md "The decision"). Names resolve through a test
 * hosts file (SBX_TEST_HOSTS's format), never through DNS. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"
#include "net/net.h"

#define HOSTS \
	"93.184.216.34 public.test\n" \
	"127.0.0.1 loop.test\n" \
	"169.254.169.254 meta.test\n" \
	"10.1.2.3 private.test\n" \
	"100.64.1.1 cgnat.test\n" \
	"fe80::1 ll6.test\n" \
	"fd00:ec2::254 meta6.test\n" \
	"2606:2800:220:1::1 public6.test\n" \
	"93.184.216.34 mixed.test\n" \
	"127.0.0.1 mixed.test   # one bad answer spoils the name\n" \
	"203.0.113.5 self.test\n" \
	"224.0.0.1 mcast.test\n" \
	"0.0.0.0 zero.test\n"

static struct net_ctx *test_ctx_new(void)
{
	char *dir = make_tmpdir(), path[4096];
	struct net_ctx *c = NULL;
	struct sockaddr_in self = { .sin_family = AF_INET };

	snprintf(path, sizeof(path), "%s/hosts", dir);
	write_file(path, HOSTS);
	cr_assert_eq(net_ctx_new(path, &c), 0);
	remove_tree(dir);
	free(dir);
	inet_pton(AF_INET, "203.0.113.5", &self.sin_addr);
	cr_assert_eq(net_ctx_add_self(c, (struct sockaddr *)&self), 0);
	return c;
}

struct decide_case {
	const char *allow, *deny; /* allow_domains, deny_domains */
	const char *host;         /* as the client wrote it */
	unsigned port;
	enum net_verdict expect;
	const char *rule;         /* the deciding rule's value, "" none */
	const char *reason;       /* part of the reason (deny, fail) */
};

ParameterizedTestParameters(net_decide, table)
{
	static struct decide_case cases[] = {
		/* the policy's word */
		{ "public.test", "", "public.test", 443, NET_ALLOW, "public.test", NULL },
		{ "public.test", "", "PUBLIC.test.", 443, NET_ALLOW, "public.test", NULL },
		{ "public.test", "", "other.test", 443, NET_DENY, "", "not in allow_domains" },
		{ "*", "public.test", "public.test", 443, NET_DENY, "public.test", "deny_domains" },
		{ "*.test", "", "public.test", 443, NET_ALLOW, "*.test", NULL },
		/* a port-less rule allows every port; a port rule only its own */
		{ "public.test", "", "public.test", 22, NET_ALLOW, "public.test", NULL },
		{ "public.test:443", "", "public.test", 80, NET_DENY, "", "not in allow_domains" },
		{ "*", "public.test:25", "public.test", 25, NET_DENY, "public.test:25", NULL },
		{ "*", "public.test:25", "public.test", 443, NET_ALLOW, "*", NULL },
		/* the resolved-address check */
		{ "loop.test", "", "loop.test", 80, NET_DENY, "", "resolves to 127.0.0.1, a loopback" },
		{ "*", "", "loop.test", 80, NET_DENY, "", "loopback" },
		{ "meta.test", "", "meta.test", 80, NET_DENY, "", "cloud metadata" },
		{ "meta6.test", "", "meta6.test", 80, NET_DENY, "", "cloud metadata" },
		{ "private.test", "", "private.test", 80, NET_DENY, "", "private" },
		{ "cgnat.test", "", "cgnat.test", 80, NET_DENY, "", "carrier-grade NAT" },
		{ "ll6.test", "", "ll6.test", 80, NET_DENY, "", "link-local" },
		{ "mcast.test", "", "mcast.test", 80, NET_DENY, "", "multicast" },
		{ "zero.test", "", "zero.test", 80, NET_DENY, "", "unspecified" },
		{ "self.test", "", "self.test", 80, NET_DENY, "", "this host's own" },
		{ "mixed.test", "", "mixed.test", 80, NET_DENY, "", "127.0.0.1" },
		{ "public6.test", "", "public6.test", 443, NET_ALLOW, "public6.test", NULL },
		/* ... unless that address, or a range holding it, is allowed itself */
		{ "loop.test, 127.0.0.1", "", "loop.test", 80, NET_ALLOW, "loop.test", NULL },
		{ "loop.test, 127.0.0.1:80", "", "loop.test", 80, NET_ALLOW, "loop.test", NULL },
		{ "loop.test, 127.0.0.1:81", "", "loop.test", 80, NET_DENY, "", "loopback" },
		{ "private.test, 10.0.0.0/8", "", "private.test", 80, NET_ALLOW, "private.test", NULL },
		{ "private.test, 10.0.0.0/8:5432", "", "private.test", 80, NET_DENY, "", "private" },
		{ "private.test, 10.0.0.0/8:5432", "", "private.test", 5432, NET_ALLOW, "private.test", NULL },
		{ "private.test, 10.2.0.0/16", "", "private.test", 80, NET_DENY, "", "private" },
		{ "ll6.test, [fe80::/10]:80", "", "ll6.test", 80, NET_ALLOW, "ll6.test", NULL },
		/* ... and deny_domains may name an address a name resolves to */
		{ "*", "93.184.216.34", "public.test", 443, NET_DENY, "93.184.216.34", "resolves to 93.184.216.34" },
		{ "*", "93.184.0.0/16", "public.test", 443, NET_DENY, "93.184.0.0/16", NULL },
		/* IP literals: the same checks, whatever the spelling */
		{ "*", "", "127.0.0.1", 80, NET_DENY, "", "127.0.0.1 is a loopback address" },
		{ "*", "", "0x7f.1", 80, NET_DENY, "", "loopback" },
		{ "*", "", "2130706433", 80, NET_DENY, "", "loopback" },
		{ "*", "", "[::ffff:127.0.0.1]", 80, NET_DENY, "", "loopback" },
		{ "*", "", "[::1]", 80, NET_DENY, "", "loopback" },
		{ "*", "", "169.254.169.254", 80, NET_DENY, "", "cloud metadata" },
		{ "*", "", "[fd00:ec2::254]", 80, NET_DENY, "", "cloud metadata" },
		{ "*", "", "93.184.216.34", 443, NET_ALLOW, "*", NULL },
		{ "127.0.0.1:8080", "", "127.1", 8080, NET_ALLOW, "127.0.0.1:8080", NULL },
		{ "127.0.0.1:8080", "", "127.0.0.1", 8081, NET_DENY, "", "not in allow_domains" },
		{ "[::1]:8080", "", "[::1]", 8080, NET_ALLOW, "[::1]:8080", NULL },
		{ "::1", "", "[0::1]", 9, NET_ALLOW, "::1", NULL },
		{ "10.0.0.0/8", "", "10.9.8.7", 22, NET_ALLOW, "10.0.0.0/8", NULL },
		{ "*", "127.0.0.1", "0177.0.0.1", 80, NET_DENY, "127.0.0.1", "deny_domains" },
		/* allowed but nowhere to go */
		{ "nowhere.test", "", "nowhere.test", 443, NET_FAIL, "nowhere.test", "not in the test hosts file" },
	};
	return cr_make_param_array(struct decide_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct decide_case *c, net_decide, table)
{
	char ini[512];
	struct net_host h;
	struct net_decision d;

	snprintf(ini, sizeof(ini), "[network]\nallow_domains = %s\n%s%s\n", c->allow,
		 c->deny[0] ? "deny_domains = " : "", c->deny);
	struct policy *p = compile_ini(ini);
	struct net_ctx *ctx = test_ctx_new();

	cr_assert_eq(net_host_parse(c->host, strlen(c->host), &h), 0, "%s", c->host);
	net_decide(p, ctx, &h, c->port, &d);
	cr_assert_eq(d.verdict, c->expect, "%s:%u with allow=%s deny=%s: verdict %d (%s), expected %d",
		     c->host, c->port, c->allow, c->deny, d.verdict, d.reason, c->expect);
	if (c->rule[0]) {
		cr_assert_not_null(d.rule, "%s: no rule", c->host);
		cr_assert_str_eq(d.rule->value, c->rule);
	} else {
		cr_assert_null(d.rule, "%s: rule %s", c->host, d.rule ? d.rule->value : "");
	}
	if (c->reason)
		assert_contains(d.reason, c->reason);
	if (d.verdict == NET_ALLOW)
		cr_assert_gt(d.naddrs, 0);
	net_ctx_free(ctx);
	policy_free(p);
}

Test(net_decide, allowed_name_hands_back_the_checked_address_with_the_port)
{
	struct policy *p = compile_ini("[network]\nallow_domains = public.test\n");
	struct net_ctx *ctx = test_ctx_new();
	struct net_host h;
	struct net_decision d;
	char ip[64];

	net_host_parse("public.test", 11, &h);
	net_decide(p, ctx, &h, 8443, &d);
	cr_assert_eq(d.verdict, NET_ALLOW);
	cr_assert_eq(d.naddrs, 1);
	const struct sockaddr_in *in = (const void *)&d.addrs[0];
	cr_assert_eq(in->sin_family, AF_INET);
	cr_assert_eq(ntohs(in->sin_port), 8443);
	inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
	cr_assert_str_eq(ip, "93.184.216.34");
	net_ctx_free(ctx);
	policy_free(p);
}

Test(net_decide, a_refusal_names_the_fix)
{
	struct policy *p = compile_ini("[network]\nallow_domains = public.test, loop.test\n");
	struct net_ctx *ctx = test_ctx_new();
	struct net_host h;
	struct net_decision d;

	net_host_parse("evil.example", 12, &h);
	net_decide(p, ctx, &h, 443, &d);
	cr_assert_str_eq(d.fix, "--allow-domain evil.example");
	net_host_parse("loop.test", 9, &h);
	net_decide(p, ctx, &h, 8080, &d);
	assert_contains(d.fix, "--allow-domain 127.0.0.1:8080");
	net_ctx_free(ctx);
	policy_free(p);
}

Test(net_decide, deny_rule_names_its_source)
{
	struct policy *p = compile_ini("[network]\nallow_domains = *\ndeny_domains = *.evil.test\n");
	struct net_host h;
	struct net_decision d;

	net_host_parse("x.evil.test", 11, &h);
	net_decide_policy(p, &h, 443, &d);
	cr_assert_eq(d.verdict, NET_DENY);
	cr_assert_str_eq(d.rule->source, "test.ini:3");
	assert_contains(d.reason, "`deny_domains = *.evil.test` (test.ini:3)");
	policy_free(p);
}

Test(net_ctx, a_bad_test_hosts_file_is_refused)
{
	char *dir = make_tmpdir(), path[4096];
	struct net_ctx *c = NULL;

	snprintf(path, sizeof(path), "%s/hosts", dir);
	write_file(path, "not-an-address name.test\n");
	cr_assert_eq(net_ctx_new(path, &c), -EINVAL);
	write_file(path, "127.0.0.1 bad..name\n");
	cr_assert_eq(net_ctx_new(path, &c), -EINVAL);
	snprintf(path, sizeof(path), "%s/missing", dir);
	cr_assert_eq(net_ctx_new(path, &c), -ENOENT);
	remove_tree(dir);
	free(dir);
}
