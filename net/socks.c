/* net/socks.c: SOCKS5 (RFC 1928) greeting, request and reply.
 *
 * Only CONNECT with no authentication: the listener lives in the sandbox's
 * own network namespace, so whoever reaches it is the sandbox, and there is
 * nothing to authenticate. BIND and UDP ASSOCIATE would open a way in and a
 * datagram path the policy cannot name, so they get 0x07. Pure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "net/net.h"
#include "net/compat.h"

int net_socks_parse_greeting(const unsigned char *buf, size_t len, bool *noauth)
{
	*noauth = false;
	if (len < 1)
		return 0;
	if (buf[0] != 5) /* SOCKS4 or not SOCKS at all: nothing to answer in */
		return -EINVAL;
	if (len < 2)
		return 0;
	if (len < 2u + buf[1])
		return 0;
	for (unsigned i = 0; i < buf[1]; i++)
		if (buf[2 + i] == 0)
			*noauth = true;
	return 2 + buf[1];
}

int net_socks_parse_request(const unsigned char *buf, size_t len,
			    struct net_socks_req *r, uint8_t *rep)
{
	size_t need;

	memset(r, 0, sizeof(*r));
	*rep = NET_SOCKS_FAIL;
	if (len < 1)
		return 0;
	if (buf[0] != 5)
		return -EINVAL;
	if (len < 2)
		return 0;
	if (buf[1] != 1) { /* BIND (2), UDP ASSOCIATE (3), anything else */
		*rep = NET_SOCKS_BAD_CMD;
		return -EINVAL;
	}
	if (len < 4)
		return 0;
	if (buf[2] != 0)
		return -EINVAL;
	switch (buf[3]) {
	case 1:
		need = 4 + 4 + 2;
		if (len < need)
			return 0;
		r->host.kind = NET_HOST_V4;
		memcpy(&r->host.v4, buf + 4, 4);
		inet_ntop(AF_INET, &r->host.v4, r->host.text, sizeof(r->host.text));
		break;
	case 3:
		if (len < 5)
			return 0;
		need = 5 + (size_t)buf[4] + 2;
		if (len < need)
			return 0;
		/* the name is normalised like any other: `2130706433` as a
		 * name is 127.0.0.1, a NUL or a dot-dot is refused */
		if (net_host_parse((const char *)buf + 5, buf[4], &r->host))
			return -EINVAL;
		break;
	case 4: {
		char t[INET6_ADDRSTRLEN + 2];
		need = 4 + 16 + 2;
		if (len < need)
			return 0;
		struct in6_addr a;
		memcpy(&a, buf + 4, 16);
		inet_ntop(AF_INET6, &a, t, sizeof(t));
		if (net_host_parse(t, strlen(t), &r->host)) /* folds v4-mapped */
			return -EINVAL;
		break;
	}
	default:
		*rep = NET_SOCKS_BAD_ATYP;
		return -EINVAL;
	}
	r->port = (unsigned)buf[need - 2] << 8 | buf[need - 1];
	if (r->port == 0)
		return -EINVAL;
	*rep = NET_SOCKS_OK;
	return (int)need;
}

size_t net_socks_reply(uint8_t rep, unsigned char out[10])
{
	out[0] = 5;
	out[1] = rep;
	out[2] = 0;
	out[3] = 1;
	memset(out + 4, 0, 6);
	return 10;
}
