/* tests/unit/net_dns.c: DNS messages both ways (dns.c), the run's stand-in
 * map (names.c), and which runs get the proxy (docs/NETWORK.md, "The
 * sandbox's resolver"). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>

#include "tests/unit/helpers.h"
#include "net/net.h"

static size_t query(const char *name, uint16_t type, bool edns, unsigned char *out)
{
	size_t n = net_dns_build_query(0x4242, name, type, out, 512);

	if (edns) {
		static const unsigned char opt[] = { 0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0 };
		out[11] = 1;
		memcpy(out + n, opt, sizeof(opt));
		n += sizeof(opt);
	}
	return n;
}

Test(net_dns, a_built_query_parses_back)
{
	unsigned char m[512];
	struct net_dns_query q;
	size_t n = query("api.Example.com", NET_DNS_A, false, m);

	cr_assert_eq(net_dns_parse_query(m, n, &q), 0);
	cr_assert_str_eq(q.name, "api.Example.com");
	cr_assert_eq(q.qtype, NET_DNS_A);
	cr_assert_eq(q.qclass, 1);
	cr_assert_eq(q.id, 0x4242);
	cr_assert(q.rd);
	cr_assert_not(q.edns);
}

Test(net_dns, a_response_is_never_answered)
{
	unsigned char m[512];
	struct net_dns_query q;
	size_t n = query("a.test", NET_DNS_A, false, m);

	m[2] |= 0x80; /* QR: a reflection attempt */
	cr_assert_eq(net_dns_parse_query(m, n, &q), -EINVAL);
	cr_assert_eq(net_dns_parse_query(m, 5, &q), -EINVAL);
}

Test(net_dns, malformed_queries_get_formerr_or_notimp)
{
	unsigned char m[512];
	struct net_dns_query q;
	size_t n = query("a.test", NET_DNS_A, false, m);

	m[2] |= 0x10; /* opcode 2 (STATUS) */
	cr_assert_eq(net_dns_parse_query(m, n, &q), -ENOTSUP);
	cr_assert_eq(q.rcode, NET_DNS_NOTIMP);
	n = query("a.test", NET_DNS_A, false, m);
	m[5] = 2; /* two questions */
	cr_assert_eq(net_dns_parse_query(m, n, &q), -ENOTSUP);
	cr_assert_eq(q.rcode, NET_DNS_FORMERR);
	n = query("a.test", NET_DNS_A, false, m);
	m[13] = '/'; /* a byte no host name has */
	cr_assert_eq(net_dns_parse_query(m, n, &q), -ENOTSUP);
	n = query("a.test", NET_DNS_A, false, m);
	m[12] = 0xc0; /* a compression pointer in a question */
	cr_assert_eq(net_dns_parse_query(m, n, &q), -ENOTSUP);
	cr_assert_eq(net_dns_parse_query(m, n - 3, &q), -ENOTSUP); /* cut */
}

Test(net_dns, an_answer_carries_the_stand_in_and_the_question)
{
	unsigned char m[512], out[1024];
	struct net_dns_query q;
	struct in_addr a = { htonl(0xc6130007) };
	struct sockaddr_storage got[4];
	size_t n = query("a.test", NET_DNS_A, false, m), k;

	cr_assert_eq(net_dns_parse_query(m, n, &q), 0);
	size_t len = net_dns_answer(m, &q, NET_DNS_NOERROR, &a, 300, 0, NULL, out, sizeof(out));
	cr_assert_gt(len, n);
	cr_assert_eq(net_dns_parse_response(out, len, 0x4242, "A.TEST", NET_DNS_A, got, 4, &k), 0);
	cr_assert_eq(k, 1);
	cr_assert_eq(((struct sockaddr_in *)&got[0])->sin_addr.s_addr, a.s_addr);
}

Test(net_dns, a_refusal_with_edns_carries_the_extended_error_text)
{
	unsigned char m[512], out[1024];
	struct net_dns_query q;
	size_t n = query("evil.test", NET_DNS_A, true, m), k;
	struct sockaddr_storage got[1];

	cr_assert_eq(net_dns_parse_query(m, n, &q), 0);
	cr_assert(q.edns);
	size_t len = net_dns_answer(m, &q, NET_DNS_REFUSED, NULL, 0, NET_DNS_EDE_PROHIBITED,
				    "fix: --allow-domain evil.test", out, sizeof(out));
	cr_assert_eq(out[3] & 0x0f, NET_DNS_REFUSED);
	cr_assert_eq(out[11], 1); /* the OPT record */
	cr_assert(memmem(out, len, "fix: --allow-domain evil.test", 29));
	cr_assert_eq(out[len - 29 - 1], NET_DNS_EDE_PROHIBITED);
	cr_assert_eq(net_dns_parse_response(out, len, 0x4242, "evil.test", NET_DNS_A, got, 1, &k),
		     -EAGAIN);
}

Test(net_dns, a_response_follows_the_cname_chain_and_ignores_other_owners)
{
	/* a.test CNAME b.test; b.test A 1.2.3.4; other.test A 6.6.6.6 */
	unsigned char m[512];
	size_t n = net_dns_build_query(7, "a.test", NET_DNS_A, m, sizeof(m)), k;
	static const unsigned char an[] = {
		0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 8, 1, 'b', 4, 't', 'e', 's', 't', 0,
		1, 'b', 0xc0, 14, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 1, 2, 3, 4,
		5, 'o', 't', 'h', 'e', 'r', 0xc0, 14, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 6, 6, 6, 6,
	};
	struct sockaddr_storage got[4];

	m[2] = 0x81;
	m[3] = 0x80;
	m[7] = 3;
	memcpy(m + n, an, sizeof(an));
	cr_assert_eq(net_dns_parse_response(m, n + sizeof(an), 7, "a.test", NET_DNS_A, got, 4, &k), 0);
	cr_assert_eq(k, 1);
	cr_assert_eq(((struct sockaddr_in *)&got[0])->sin_addr.s_addr, htonl(0x01020304));
}

Test(net_dns, a_pointer_loop_or_a_forward_pointer_is_refused)
{
	unsigned char m[512];
	size_t n = net_dns_build_query(7, "a.test", NET_DNS_A, m, sizeof(m)), k;
	struct sockaddr_storage got[1];
	/* an answer whose name points at itself */
	unsigned char an[] = { 0xc0, 0, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 1, 2, 3, 4 };

	an[1] = (unsigned char)n;
	m[2] = 0x81;
	m[7] = 1;
	memcpy(m + n, an, sizeof(an));
	cr_assert_eq(net_dns_parse_response(m, n + sizeof(an), 7, "a.test", NET_DNS_A, got, 1, &k),
		     -EINVAL);
}

Test(net_dns, the_wrong_id_or_question_is_not_the_answer)
{
	unsigned char m[512], out[1024];
	struct net_dns_query q;
	struct in_addr a = { htonl(0x01020304) };
	struct sockaddr_storage got[1];
	size_t n = query("a.test", NET_DNS_A, false, m), k;

	net_dns_parse_query(m, n, &q);
	size_t len = net_dns_answer(m, &q, 0, &a, 60, 0, NULL, out, sizeof(out));
	cr_assert_eq(net_dns_parse_response(out, len, 0x4243, "a.test", NET_DNS_A, got, 1, &k), -EINVAL);
	cr_assert_eq(net_dns_parse_response(out, len, 0x4242, "b.test", NET_DNS_A, got, 1, &k), -EINVAL);
	cr_assert_eq(net_dns_parse_response(out, len, 0x4242, "a.test", NET_DNS_AAAA, got, 1, &k), -EINVAL);
}

Test(net_names, a_name_keeps_its_stand_in_and_maps_back)
{
	struct net_names *m;
	struct in_addr a, b, c;

	cr_assert_eq(net_names_new(&m), 0);
	cr_assert_eq(net_names_addr(m, "a.test", &a), 0);
	cr_assert_eq(net_names_addr(m, "b.test", &b), 0);
	cr_assert_eq(net_names_addr(m, "a.test", &c), 0);
	cr_assert_eq(a.s_addr, c.s_addr);
	cr_assert_neq(a.s_addr, b.s_addr);
	cr_assert(net_names_is_standin(&a));
	cr_assert_eq(ntohl(a.s_addr) >> 16, 0xc613); /* 198.19/16 */
	cr_assert_str_eq(net_names_name(m, &b), "b.test");
	net_names_free(m);
}

Test(net_names, an_address_given_out_to_no_name_means_nothing)
{
	struct net_names *m;
	struct in_addr a = { htonl(0xc6130063) }, base = { htonl(0xc6130000) },
		       shim = { htonl(0xc6120001) };

	cr_assert_eq(net_names_new(&m), 0);
	cr_assert_null(net_names_name(m, &a));
	cr_assert_null(net_names_name(m, &base));
	cr_assert_not(net_names_is_standin(&shim));
	net_names_free(m);
}

Test(net_names, a_full_map_gives_no_new_address)
{
	struct net_names *m;
	struct in_addr a;
	char name[32];

	cr_assert_eq(net_names_new(&m), 0);
	for (int i = 0; i < NET_NAMES_MAX; i++) {
		snprintf(name, sizeof(name), "h%d.test", i);
		cr_assert_eq(net_names_addr(m, name, &a), 0);
	}
	cr_assert_eq(net_names_addr(m, "one-more.test", &a), -ENOSPC);
	cr_assert_eq(net_names_addr(m, "h7.test", &a), 0); /* old names still answer */
	cr_assert_str_eq(net_names_name(m, &a), "h7.test");
	net_names_free(m);
}

Test(net_proxied, host_ports_and_learn_get_the_proxy_an_open_network_does_not)
{
	struct policy *plain = compile_ini("");
	struct policy *ports = compile_ini("[network]\nhost_ports = 5432, 6379, 5432\n");
	struct policy *open = compile_ini("[network]\nallow_domains = *\nhost_ports = 5432\n");
	unsigned got[4];

	cr_assert_not(net_run_proxied(plain, false));
	cr_assert(net_run_proxied(plain, true));
	cr_assert(net_run_proxied(ports, false));
	cr_assert_not(net_run_proxied(open, true));
	cr_assert_eq(net_host_ports(ports, got, 4), 2);
	cr_assert_eq(got[0], 5432);
	cr_assert_eq(got[1], 6379);
	policy_free(plain);
	policy_free(ports);
	policy_free(open);
}
