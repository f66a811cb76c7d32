/* supervisor/init-connect.h: sbx-init's two network duties, linked into
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

#include <stddef.h>

/* The listeners sbx-init makes: at most one per address family and kind. */
#define INIT_LISTEN_MAX 4
#define INIT_LISTEN_HTTP 'h'
#define INIT_LISTEN_SOCKS 's'

/* Listening TCP sockets on 127.0.0.1:http and 127.0.0.1:socks, and on
 * [::1] at the same ports where the namespace has IPv6 on its loopback.
 * fds[i] is of kind kinds[i] (INIT_LISTEN_*); *n set. 0, or -errno with
 * *what naming the address that failed (nothing left open). */
int init_listen(unsigned http, unsigned socks, int fds[INIT_LISTEN_MAX],
		char kinds[INIT_LISTEN_MAX], size_t *n, const char **what);

/* `--socks-connect=PORT HOST PORT`: exit status for sbx-init's main. */
int init_socks_connect(const char *proxy_port, const char *host, const char *port);

#endif
