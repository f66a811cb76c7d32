/* init/connect.h: sbx-init's two network duties, linked into
 * sbx-init only (docs/NETWORK.md).
 *
 * As pid 1: the filtering proxy's listening sockets, made in the sandbox's
 * network namespace and handed to the supervisor.
 *
 * As an ordinary program inside the sandbox, `sbx-init --socks-connect=PORT
 * HOST PORT`: ssh's ProxyCommand (GIT_SSH_COMMAND), a SOCKS5 client for the
 * sandbox's own listener that relays stdin and stdout to HOST:PORT.
 */
#ifndef SBX_INIT_CONNECT_H
#define SBX_INIT_CONNECT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/control.h" /* the listeners' kinds and counts: enum ctl_listen */

/* The sandbox's resolver: where /etc/resolv.conf points. */
#define INIT_DNS_ADDR 0x7f000035 /* 127.0.0.53 */
#define INIT_DNS_PORT 53

struct init_listen_plan {
	unsigned http, socks;  /* the proxy's ports */
	bool dns;              /* the resolver's sockets too */
	unsigned ports[CTL_HOST_PORTS_MAX]; /* host_ports */
	size_t nports;
};

/* Listening TCP sockets on 127.0.0.1:http and 127.0.0.1:socks, and on
 * [::1] at the same ports where the namespace has IPv6 on its loopback;
 * with dns, a UDP and a TCP socket on 127.0.0.53:53; per host port, a TCP
 * listener on 127.0.0.1:N (and [::1]:N). fds[i] is of kind kinds[i]
 * (enum ctl_listen); *n set. 0, or -errno with *what naming the address
 * that failed (nothing left open). */
int init_listen(const struct init_listen_plan *pl, int fds[CTL_LISTEN_MAX],
		char kinds[CTL_LISTEN_MAX], size_t *n, const char **what);

/* The sandbox's /etc/resolv.conf: a read-only file naming 127.0.0.53,
 * mounted over the host's (a detached tmpfs, so no path of the host's or
 * the sandbox's backs it). 0, 1 when the sandbox has no /etc/resolv.conf
 * to cover (C libraries then ask 127.0.0.1: no answer, no escape), or
 * -errno. */
int init_resolv_conf(void);

/* `--socks-connect=PORT HOST PORT`: exit status for sbx-init's main. */
int init_socks_connect(const char *proxy_port, const char *host, const char *port);

#endif
