/* tests/fuzz/host.c: libFuzzer harness for host normalisation (`make
 * fuzz`): whatever parses must be stable (its canonical text parses to
 * itself) and never an IPv4-mapped IPv6 address. */
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct net_host h, again;
	unsigned port;

	memcpy(buf, data, size);
	if (net_host_parse(buf, size, &h) == 0) {
		if (net_host_parse(h.text, strlen(h.text), &again) || strcmp(h.text, again.text) ||
		    h.kind != again.kind)
			abort();
		if (h.kind == NET_HOST_V6 && IN6_IS_ADDR_V4MAPPED(&h.v6))
			abort();
	}
	if (net_hostport_parse(buf, size, size & 1 ? 80 : 0, &h, &port) == 0 &&
	    (port == 0 || port > 65535))
		abort();
	free(buf);
	return 0;
}
