/* tests/fuzz/socks.c: libFuzzer harness for the SOCKS5 greeting and
 * request parsers (`make fuzz`). */
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct net_socks_req req;
	bool noauth;
	uint8_t rep;

	memcpy(buf, data, size);
	int g = net_socks_parse_greeting(buf, size, &noauth);
	if (g > (int)size)
		abort();
	size_t off = g > 0 ? (size_t)g : 0;
	int rc = net_socks_parse_request(buf + off, size - off, &req, &rep);
	if (rc > (int)(size - off))
		abort();
	if (rc > 0 && (req.port == 0 || !req.host.text[0] || rep != NET_SOCKS_OK))
		abort();
	if (rc < 0 && rep == NET_SOCKS_OK)
		abort();
	free(buf);
	return 0;
}
