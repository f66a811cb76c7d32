/* tests/unit/net_gone.c: a client gone while the proxy looks up its name
 * is ended at once (loop.c: its hang-up, reported unasked), by whichever
 * poller this build has (net-unit: poll(); unit-tests: the build's). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "net/net.h"
#include "tests/unit/helpers.h"

static int bound(int type, unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, type, 0);

	cr_assert(fd >= 0);
	cr_assert(!bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
		  !getsockname(fd, (struct sockaddr *)&a, &al));
	if (type == SOCK_STREAM)
		cr_assert(!listen(fd, 16));
	*port = ntohs(a.sin_port);
	return fd;
}

/* A client asks for a name the nameserver never answers, and once its
 * query is seen (the connection resolving) resets its connection. The
 * next turn of the loop, which does not wait, ends it. (A client that
 * only closes sends a FIN, which no poller here says unasked: it is found
 * when the answer is written.) */
Test(net_gone, a_client_reset_while_its_name_is_resolved_is_ended)
{
	unsigned dport, lport;
	int dns = bound(SOCK_DGRAM, &dport), ls = bound(SOCK_STREAM, &lport);
	char server[32], ini[] = "[network]\nallow_domains = slow.example\n";
	snprintf(server, sizeof(server), "127.0.0.1:%u", dport);
	struct net_cfg cfg = { .test_dns = server };
	struct policy *pol = compile_ini(ini);
	struct net_loop *l;

	cr_assert_eq(net_loop_new(pol, &cfg, &l), 0);
	cr_assert_eq(net_loop_add_listener(l, ls, NET_LISTEN_HTTP), 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons((uint16_t)lport) };
	int c = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert(!connect(c, (struct sockaddr *)&a, sizeof(a)));
	const char req[] = "CONNECT slow.example:443 HTTP/1.1\r\nHost: slow.example\r\n\r\n";
	cr_assert_eq(send(c, req, sizeof(req) - 1, 0), (ssize_t)(sizeof(req) - 1));
	struct pollfd q = { .fd = dns, .events = POLLIN };
	for (int i = 0; i < 200 && !poll(&q, 1, 0); i++)
		cr_assert_geq(net_loop_run_once(l, 50), 0);
	cr_assert(q.revents & POLLIN, "the proxy never asked the nameserver");
	cr_assert_eq(net_loop_conns(l), 1, "resolving");
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	cr_assert(!setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	close(c);
	cr_assert_geq(net_loop_run_once(l, 0), 0);
	cr_assert_eq(net_loop_conns(l), 0, "a client reset while resolving is still held");
	net_loop_free(l);
	policy_free(pol);
	close(dns);
}
