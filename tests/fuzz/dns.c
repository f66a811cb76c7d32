/* tests/fuzz/dns.c: libFuzzer harness for DNS messages (`make fuzz`): a
 * query from the sandbox is parsed and answered, and the same bytes are
 * read as a nameserver's answer; nothing may read or write out of bounds,
 * and an answer must fit what the caller gave. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	unsigned char *m = malloc(size ? size : 1), out[1024];
	struct net_dns_query q;
	struct sockaddr_storage addrs[NET_MAX_ADDRS];
	struct in_addr a = { htonl(0xc6130001) };
	size_t n;

	memcpy(m, data, size);
	int rc = net_dns_parse_query(m, size, &q);
	if (rc == 0 || rc == -ENOTSUP) {
		size_t len = net_dns_answer(m, &q, rc ? q.rcode : 0, rc ? NULL : &a, 300,
					    size & 1 ? NET_DNS_EDE_PROHIBITED : 0, "sbx: fuzz",
					    out, sizeof(out));
		if (len > sizeof(out))
			abort();
		if (rc == 0 && len && net_dns_parse_response(out, len, q.id, q.name, q.qtype, addrs,
							     NET_MAX_ADDRS, &n) == 0 &&
		    q.qtype == NET_DNS_A && n != 1)
			abort();
	}
	if (size > 2) {
		rc = net_dns_parse_response(m, size, (uint16_t)(m[0] << 8 | m[1]), "a.test",
					    size & 2 ? NET_DNS_AAAA : NET_DNS_A, addrs, NET_MAX_ADDRS, &n);
		if (rc == 0 && n > NET_MAX_ADDRS)
			abort();
	}
	free(m);
	return 0;
}
