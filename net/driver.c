/* net/driver.c: build/sbx-proxy-test, the proxy on its own, for
 * tests and benchmarks until sbx-preload runs it (not installed).
 *
 *   sbx-proxy-test [-c sandbox.ini] [--allow-domain D]... [--deny-domain D]...
 *                  [--idle-ms N] [--handshake-ms N] [--max-conns N] [--no-splice]
 *                  [--chain-http PORT | --chain-socks PORT] [--host-port N]...
 *                  [--quiet]
 *
 * Listens on 127.0.0.1 (ports chosen by the kernel), prints `http PORT` and
 * `socks PORT` lines on stdout, then runs the loop the way the supervisor
 * does: poll() on net_loop_pollfds(), then net_loop_run_once(l, 0). Every report
 * is one stderr line. SBX_TEST_HOSTS (test-only) replaces DNS. Exits on
 * SIGTERM / SIGINT.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/net.h"
#include "net/compat.h"

static volatile sig_atomic_t stop;
static bool quiet;

static void on_signal(int sig) { stop = sig; }

static void report(void *ctx, const struct event *ev)
{
	static const char *const proto[] = { "CONNECT", "http", "socks5", "dns", "host_ports" };
	const char *src = ev->rule ? ev->rule->source : NULL;
	bool v6 = strchr(ev->target, ':') != NULL;

	(void)ctx;
	if (quiet && ev->decision == NET_EV_ALLOWED)
		return;
	switch (ev->decision) {
	case NET_EV_ALLOWED:
		fprintf(stderr, "sbx: trace: connect to %s%s%s:%u via %s, allowed by `%s = %s` (%s), at %s\n",
			v6 ? "[" : "", ev->target, v6 ? "]" : "", ev->port, proto[ev->via],
			ev->rule ? sbx_rule_key(ev->rule->kind) : "?", ev->rule ? ev->rule->value : "?",
			src ? src : "?", ev->address);
		break;
	case NET_EV_DENIED:
		fprintf(stderr, "sbx: denied connect to %s%s%s:%u — %s (%s%s) — %s from %s\n",
			v6 ? "[" : "", ev->target, v6 ? "]" : "", ev->port, ev->reason,
			ev->rule ? "" : "allow it with ", ev->fix, proto[ev->via], ev->client);
		break;
	case NET_EV_FAILED:
		fprintf(stderr, "sbx: proxy: %s:%u failed: %s — %s from %s\n", ev->target,
			ev->port, ev->reason, proto[ev->via], ev->client);
		break;
	case NET_EV_ERROR:
		fprintf(stderr, "sbx: proxy: refused a %s client: %s — from %s\n",
			proto[ev->via], ev->reason, ev->client);
		break;
	}
}

/* A socket on 127.0.0.1 at *port (0: the kernel's choice, written back). */
static int listen_local_type(int type, unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons((uint16_t)*port) };
	socklen_t al = sizeof(a);
	int fd = net_socket(AF_INET, type, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    (type == SOCK_STREAM && listen(fd, 4096)) ||
	    getsockname(fd, (struct sockaddr *)&a, &al)) {
		close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static int listen_local(unsigned *port)
{
	*port = 0;
	return listen_local_type(SOCK_STREAM, port);
}

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "sbx-proxy-test: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(125);
}

int main(int argc, char **argv)
{
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct net_loop *l = NULL;
	struct net_cfg cfg = { .report = report };
	struct sbx_err err = { .msg = "" };
	char cwd[4096];
	const char *home = getenv("HOME");
	struct policy_ctx ctx = { .home = home ? home : "/", .cwd = cwd };
	unsigned hport, sport, dport = 0, hostports[16], nhostports = 0;
	int hfd, sfd, ufd, tfd;

	if (!getcwd(cwd, sizeof(cwd)))
		die("getcwd", strerror(errno));
	if (policy_builder_new(&ctx, &b))
		die("out of memory", NULL);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;
		if (!strcmp(a, "--quiet")) {
			quiet = true;
			continue;
		}
		if (!strcmp(a, "--no-splice")) {
			cfg.no_splice = true;
			continue;
		}
		if (!v)
			die("missing value after", a);
		i++;
		if (!strcmp(a, "-c") || !strcmp(a, "--config"))
			rc = policy_builder_load_file(b, v, v, POLICY_LAYER_USER, &err);
		else if (!strcmp(a, "--allow-domain"))
			rc = policy_builder_set(b, "network", "allow_domains", v, SBX_ORIGIN_FLAG,
						"--allow-domain", &err);
		else if (!strcmp(a, "--deny-domain"))
			rc = policy_builder_set(b, "network", "deny_domains", v, SBX_ORIGIN_FLAG,
						"--deny-domain", &err);
		else if (!strcmp(a, "--idle-ms"))
			cfg.idle_ms = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--handshake-ms"))
			cfg.handshake_ms = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--max-conns"))
			cfg.max_conns = strtoul(v, NULL, 10);
		else if (!strcmp(a, "--chain-http"))
			cfg.chain_http_port = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--chain-socks"))
			cfg.chain_socks_port = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--host-port") && nhostports < 16)
			hostports[nhostports++] = (unsigned)strtoul(v, NULL, 10);
		else
			die("unknown option", a);
		if (rc)
			die(err.msg[0] ? err.msg : "cannot read the configuration", rc == -ENOENT ? v : NULL);
	}
	if (policy_compile(b, &p, &err))
		die(err.msg, NULL);

	/* 500 tunnels are 1000 sockets and 2000 pipe ends */
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	signal(SIGPIPE, SIG_IGN); /* splice(2) into a closed socket raises it */
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	cfg.test_hosts = getenv("SBX_TEST_HOSTS"); /* test-only, see net.h */
	cfg.test_dns = getenv("SBX_TEST_DNS");
	int rc = net_loop_new(p, &cfg, &l);
	if (rc)
		die("cannot start the proxy", strerror(-rc));
	hfd = listen_local(&hport);
	sfd = listen_local(&sport);
	if (hfd < 0 || sfd < 0 || net_loop_add_listener(l, hfd, NET_LISTEN_HTTP) ||
	    net_loop_add_listener(l, sfd, NET_LISTEN_SOCKS))
		die("cannot listen on 127.0.0.1", strerror(errno));
	/* the sandbox's resolver, UDP and TCP at one port: the kernel's
	 * choice for UDP may be a TCP port in use (an ephemeral port of a
	 * connection the tests made), so a few tries */
	for (int i = 0; i < 20; i++) {
		dport = 0;
		ufd = listen_local_type(SOCK_DGRAM, &dport);
		tfd = ufd < 0 ? -1 : listen_local_type(SOCK_STREAM, &dport);
		if (ufd < 0 || tfd >= 0)
			break;
		close(ufd);
		ufd = -1;
	}
	if (tfd < 0 || net_loop_add_listener(l, ufd, NET_LISTEN_DNS_UDP) ||
	    net_loop_add_listener(l, tfd, NET_LISTEN_DNS_TCP))
		die("cannot serve DNS on 127.0.0.1", strerror(errno));
	/* host ports: listened on 127.0.0.2 (the host's own 127.0.0.1:N is the
	 * target); the test connects to 127.0.0.2:N */
	for (unsigned i = 0; i < nhostports; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000002),
					 .sin_port = htons((uint16_t)hostports[i]) };
		int fd = net_socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 128) ||
		    net_loop_add_hostport(l, fd, hostports[i]))
			die("cannot listen for a host port on 127.0.0.2", strerror(errno));
	}
	/* how tunnels are relayed: splice(2) past their first 64 KiB, or
	 * every byte through the queue (--no-splice, a build without
	 * splice); and whether this is the portable build (net/compat.h) */
#ifdef SBX_PORTABLE
	const char *build = "portable";
#else
	const char *build = "native";
#endif
	printf("http %u\nsocks %u\ndns %u\nrelay %s\nbuild %s\n", hport, sport, dport,
	       NET_HAVE_SPLICE && !cfg.no_splice ? "splice" : "queue", build);
	fflush(stdout);

	while (!stop) {
		struct pollfd *pf;
		int k = net_loop_pollfds(l, &pf);
		int n = poll(pf, k, net_loop_timeout(l));
		if (n < 0 && errno != EINTR)
			die("poll", strerror(errno));
		if (net_loop_run_once(l, 0))
			die("the loop", strerror(errno));
	}
	net_loop_free(l);
	policy_free(p);
	return 0;
}
