/* net/names.c: the run's stand-in addresses, one map for every
 * process of the sandbox.
 *
 * Real addresses never enter the sandbox. The sandbox's resolver
 * (dnsserve.c) answers an allowed name with an address from 198.19.0.0/16
 * (the upper half of RFC 2544's benchmarking range, never a destination of
 * its own; the shim's per-process fallback map uses the lower half) that
 * stands for the name; a connection to it reaches the proxy (the shim
 * carries it through the SOCKS listener as the address) and the proxy
 * asks this map for the name behind it, then decides on the name as for
 * any request. Because the map lives in the supervisor, an address keeps
 * its name whichever program got it, and the notify layer can use it too.
 *
 * A name keeps its address for the whole run and an address is never
 * given to a second name. The map is bounded (NET_NAMES_MAX): a full map
 * gives no new address (the resolver answers SERVFAIL and reports it).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "uthash.h"
#include "net/compat.h"

#define BASE 0xc6130000u /* 198.19.0.0 */

struct name {
	UT_hash_handle hh;
	uint32_t index; /* the address is BASE + 1 + index */
	char text[];
};

struct net_names {
	struct name *by_name;
	struct name **by_index; /* NET_NAMES_MAX, allocated as it grows */
	size_t n, cap;
};

int net_names_new(struct net_names **out)
{
	struct net_names *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	*out = m;
	return 0;
}

void net_names_free(struct net_names *m)
{
	struct name *e, *tmp;

	if (!m)
		return;
	HASH_ITER(hh, m->by_name, e, tmp) {
		HASH_DEL(m->by_name, e);
		free(e);
	}
	free(m->by_index);
	free(m);
}

int net_names_addr(struct net_names *m, const char *name, struct in_addr *out)
{
	struct name *e;
	size_t len = strlen(name);

	if (!len || len > 253)
		return -EINVAL;
	HASH_FIND(hh, m->by_name, name, len, e);
	if (!e) {
		if (m->n >= NET_NAMES_MAX)
			return -ENOSPC;
		if (m->n == m->cap) {
			size_t nc = m->cap ? m->cap * 2 : 64;
			void *nv = realloc(m->by_index, nc * sizeof(*m->by_index));
			if (!nv)
				return -ENOMEM;
			m->by_index = nv;
			m->cap = nc;
		}
		if (!(e = malloc(sizeof(*e) + len + 1)))
			return -ENOMEM;
		memset(&e->hh, 0, sizeof(e->hh));
		memcpy(e->text, name, len + 1);
		e->index = (uint32_t)m->n;
		m->by_index[m->n++] = e;
		HASH_ADD(hh, m->by_name, text[0], len, e);
	}
	out->s_addr = htonl(BASE + 1 + e->index);
	return 0;
}

bool net_names_is_standin(const struct in_addr *a)
{
	return (ntohl(a->s_addr) & 0xffff0000u) == BASE;
}

const char *net_names_name(const struct net_names *m, const struct in_addr *a)
{
	uint32_t v = ntohl(a->s_addr);

	if (!net_names_is_standin(a) || v == BASE || v - BASE - 1 >= m->n)
		return NULL;
	return m->by_index[v - BASE - 1]->text;
}

size_t net_names_count(const struct net_names *m)
{
	return m->n;
}

const char *const net_http_proxy_vars[] = {
	"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy",
	"npm_config_proxy", "npm_config_https_proxy",
	"YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "PIP_PROXY", "CARGO_HTTP_PROXY", NULL,
};

char *net_java_tool_options(const char *theirs, unsigned http_port)
{
	char *v;
	bool t = theirs && *theirs;

	if (asprintf(&v, "%s%s-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=%u "
		     "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=%u "
		     "-Dhttp.nonProxyHosts=localhost|127.*|[::1]", t ? theirs : "", t ? " " : "",
		     http_port, http_port) < 0)
		return NULL;
	return v;
}
