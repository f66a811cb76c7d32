/* shim/netjudge.h: the network policy asked before a lookup or a
 * connection (netjudge.c), by net.c's wrappers and darwin.c's. Each
 * judge reports a refusal itself (core.c) and runs under the guard. */
#ifndef SBX_SHIM_NETJUDGE_H
#define SBX_SHIM_NETJUDGE_H

#include <stdbool.h>
#include <sys/socket.h>

/* localhost and the like, and the machine's own name: never leave it */
bool shim_local_name(const char *h);
/* an IPv4 or IPv6 address written as text */
bool shim_numeric_host(const char *h);
/* 0 to go ahead, -1 when the policy refuses the lookup of node (reported;
 * numeric and local names are not judged) */
int shim_judge_lookup(const char *node, const char *service);
/* 0 to go ahead, -1 when the policy refuses a connection or a datagram
 * to sa (reported; loopback and Unix sockets are not judged here) */
int shim_judge_addr(const struct sockaddr *sa, socklen_t len);

#endif
