/* tests/fuzz/addr.c: libFuzzer harness for the address normaliser
 * (net_addr_canon, `make fuzz`). Whatever the bytes: the canonical form
 * is a fixed point, names the same address as the input (net_addr_same,
 * both ways), keeps the port, is classified as the input is, carries no
 * IPv4 in IPv6 any more, and its host text parses back to itself. */
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

static void check_host(const struct sockaddr *sa, bool canon)
{
	struct net_host h, again;

	if (net_host_from_addr(sa, canon, &h))
		abort();
	if (h.kind == NET_HOST_NAME)
		abort();
	if (net_host_parse(h.text, strlen(h.text), &again) || again.kind != h.kind ||
	    strcmp(again.text, h.text))
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct sockaddr_storage in, c, cc;
	struct sockaddr_in *in4 = (void *)&in;
	struct sockaddr_in6 *in6 = (void *)&in;
	uint16_t port;

	if (size < 3)
		return 0;
	memset(&in, 0, sizeof(in));
	/* first byte: the family (mostly v4 or v6, sometimes anything) */
	switch (data[0] & 3) {
	case 0:
		in4->sin_family = AF_INET;
		memcpy(&in4->sin_port, data + 1, 2);
		memcpy(&in4->sin_addr, data + 3, size - 3 < 4 ? size - 3 : 4);
		break;
	case 3:
		in.ss_family = data[0] >> 2;
		break;
	default:
		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_port, data + 1, 2);
		memcpy(&in6->sin6_addr, data + 3, size - 3 < 16 ? size - 3 : 16);
		/* steer towards the forms: mapped, NAT64, 6to4 prefixes */
		if ((data[0] & 0x0c) == 0x04)
			memcpy(in6->sin6_addr.s6_addr, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
		else if ((data[0] & 0x0c) == 0x08)
			memcpy(in6->sin6_addr.s6_addr, "\0\x64\xff\x9b\0\0\0\0\0\0\0\0", 12);
		else if ((data[0] & 0x0c) == 0x0c)
			memcpy(in6->sin6_addr.s6_addr, "\x20\x02", 2);
		break;
	}
	const struct sockaddr *sa = (const struct sockaddr *)&in;
	enum net_addr_form f = net_addr_canon(sa, &c);

	if (in.ss_family != AF_INET && in.ss_family != AF_INET6) {
		if (f != NET_FORM_OTHER || c.ss_family != AF_UNSPEC ||
		    net_addr_classify(sa) != NET_ADDR_RESERVED)
			abort();
		return 0;
	}
	if (f == NET_FORM_OTHER)
		abort();
	/* IPv4 carried in IPv6 comes out as AF_INET, anything else as it was */
	bool wrapped = f == NET_FORM_MAPPED || f == NET_FORM_NAT64 || f == NET_FORM_6TO4;
	if ((f == NET_FORM_V4 || wrapped) != (c.ss_family == AF_INET))
		abort();
	if (f == NET_FORM_V6 && memcmp(&c, &in, sizeof(struct sockaddr_in6)))
		abort();
	port = c.ss_family == AF_INET ? ((struct sockaddr_in *)&c)->sin_port :
	       ((struct sockaddr_in6 *)&c)->sin6_port;
	if (port != (in.ss_family == AF_INET ? in4->sin_port : in6->sin6_port))
		abort();
	/* a fixed point */
	enum net_addr_form f2 = net_addr_canon((const struct sockaddr *)&c, &cc);
	if ((f2 != NET_FORM_V4 && f2 != NET_FORM_V6) || memcmp(&c, &cc, sizeof(c)))
		abort();
	if (!net_addr_same(sa, (const struct sockaddr *)&c) ||
	    !net_addr_same((const struct sockaddr *)&c, sa))
		abort();
	if (net_addr_classify(sa) != net_addr_classify((const struct sockaddr *)&c))
		abort();
	check_host(sa, false);
	check_host(sa, true);
	return 0;
}
