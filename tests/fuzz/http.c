/* tests/fuzz/http.c: libFuzzer harness for the HTTP head parsers and
 * rewrites (`make fuzz`). Any input must be refused or parsed, and a
 * parsed head must rewrite into a buffer of the documented size. */
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* a copy of exactly `size` bytes, so ASan sees any read past it */
	char *buf = malloc(size ? size : 1);
	struct net_http_req req;
	struct net_http_resp resp;
	int status;

	memcpy(buf, data, size);
	int rc = net_http_parse_request(buf, size, &req, &status);
	if (rc > 0) {
		if ((size_t)rc > size || (size_t)rc != req.head_len)
			abort();
		if (!req.connect) {
			size_t outsz = req.head_len + 64;
			char *out = malloc(outsz);
			if (net_http_rewrite(buf, &req, out, outsz) < 0)
				abort(); /* the documented size always suffices */
			free(out);
		}
	} else if (rc < 0 && !status) {
		abort();
	}
	rc = net_http_parse_response(buf, size, size & 1, &resp);
	if (rc > 0) {
		size_t outsz = resp.head_len + 32;
		char *out = malloc(outsz);
		if (net_http_rewrite_response(buf, &resp, size & 2, out, outsz) < 0)
			abort();
		free(out);
	}
	free(buf);
	return 0;
}
