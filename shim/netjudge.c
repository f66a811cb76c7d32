/* shim/netjudge.c: the network policy asked of a name looked up or an
 * address connected to (netjudge.h): the judgement the Linux wrappers
 * (net.c) and the macOS ones (darwin.c) share. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include "shim/core.h"
#include "shim/netjudge.h"

/* Names that never leave the machine. */
bool shim_local_name(const char *h)
{
	static const char *const names[] = { "localhost", "localhost.localdomain",
					     "ip6-localhost", "ip6-loopback" };
	struct utsname u;
	size_t n = strlen(h);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(h, names[i]))
			return true;
	if (n > 10 && !strcasecmp(h + n - 10, ".localhost"))
		return true;
	/* the sandbox's own host name, which /etc/hosts answers */
	return uname(&u) == 0 && !strcasecmp(h, u.nodename);
}

bool shim_numeric_host(const char *h)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, h, buf) == 1 || inet_pton(AF_INET6, h, buf) == 1;
}

/* 0 to go ahead, or -1 when the policy refuses (reported). */
static int judge(enum wire_op op, const char *host, unsigned port, const char *target)
{
	const struct policy *p = shim_policy();
	enum sbx_verdict v;
	int rc = 0;

	if (!shim_enter())
		return 0;
	if (policy_network_open(p)) {
		if (shim_mode() != SHIM_ENFORCE)
			shim_trace(op, target);
		goto out;
	}
	v = op == WIRE_DNS ? policy_check_host(p, host, NULL) :
			     policy_check_domain(p, host, port, NULL);
	if (v == SBX_ALLOW) {
		if (shim_mode() != SHIM_ENFORCE)
			shim_trace(op, target);
	} else if (shim_mode() == SHIM_LEARN) {
		shim_report(WIRE_LEARN, op, target, 0);
	} else {
		shim_report(WIRE_DENY, op, target, op == WIRE_DNS ? 0 : EPERM);
		rc = -1;
	}
out:
	shim_leave();
	return rc;
}

int shim_judge_lookup(const char *node, const char *service)
{
	char target[300];
	size_t n;

	if (!node || !*node || shim_numeric_host(node) || shim_local_name(node))
		return 0;
	n = strlen(node);
	if (n >= 256)
		return 0;
	memcpy(target, node, n + 1);
	if (service && *service && strspn(service, "0123456789") == strlen(service) &&
	    strlen(service) <= 5) {
		target[n] = ':';
		memcpy(target + n + 1, service, strlen(service) + 1);
	}
	return judge(WIRE_DNS, node, 0, target);
}

/* A destination address, unless it is the sandbox's own loopback. */
int shim_judge_addr(const struct sockaddr *sa, socklen_t len)
{
	char ip[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN + 10];
	unsigned port;
	size_t n;

	if (!sa || len < (socklen_t)sizeof(sa_family_t) || !shim_ready())
		return 0;
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;
		if ((ntohl(in->sin_addr.s_addr) >> 24) == 127 || in->sin_addr.s_addr == 0)
			return 0;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		port = ntohs(in->sin_port);
		n = strlen(ip);
		memcpy(target, ip, n);
	} else if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) || IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) ||
		    (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127))
			return 0;
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		port = ntohs(in6->sin6_port);
		target[0] = '[';
		n = strlen(ip);
		memcpy(target + 1, ip, n);
		target[++n] = ']';
		n++;
	} else {
		return 0; /* unix sockets: the seccomp filter's business */
	}
	target[n++] = ':';
	wire_utoa(port, target + n);
	return judge(WIRE_CONNECT, ip, port, target);
}
