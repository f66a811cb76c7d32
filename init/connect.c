/* init/connect.c: the proxy's listeners, and ssh's ProxyCommand.
 *
 * A socket stays in the network namespace it was made in. So the listeners
 * the sandbox's programs reach on 127.0.0.1 are made here, by pid 1 inside
 * the sandbox's namespace, and handed to the supervisor, which accepts on
 * them and dials in the host's namespace: nothing relays inside the sandbox
 * and the sandbox's namespace keeps no route out (docs/NETWORK.md).
 *
 * ssh honours no proxy variable, so git over ssh gets a ProxyCommand
 * (GIT_SSH_COMMAND, set by the plan) that runs this file's SOCKS5 client:
 * it asks the sandbox's SOCKS listener for HOST:PORT by name -- the
 * supervisor decides on the name -- and then relays stdin and stdout. It
 * lives in sbx-init because sbx-init is the one static program of ours
 * that is always reachable inside (bound in when it lives under /tmp),
 * so it needs no netcat on the machine.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/io.h"
#include "init/connect.h"

/* ---- the listeners (pid 1) */

static int listen_on_addr(int family, int type, uint32_t v4, unsigned port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, fd, e;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(v4);
		in->sin_port = htons((unsigned short)port);
		len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_loopback;
		in6->sin6_port = htons((unsigned short)port);
		len = sizeof(*in6);
	}
	fd = socket(family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* [::1] only: the IPv4 port is its own listener */
	if ((family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&ss, len) ||
	    (type == SOCK_STREAM && listen(fd, 4096))) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int init_listen(const struct init_listen_plan *pl, int fds[CTL_LISTEN_MAX],
		char kinds[CTL_LISTEN_MAX], size_t *n, const char **what)
{
	struct {
		int family, type;
		uint32_t v4;
		unsigned port;
		char kind;
		const char *name;
	} want[CTL_LISTEN_MAX] = {
		{ AF_INET, SOCK_STREAM, INADDR_LOOPBACK, pl->http, CTL_LISTEN_HTTP, "127.0.0.1 (HTTP proxy)" },
		{ AF_INET, SOCK_STREAM, INADDR_LOOPBACK, pl->socks, CTL_LISTEN_SOCKS, "127.0.0.1 (SOCKS5 proxy)" },
		{ AF_INET6, SOCK_STREAM, 0, pl->http, CTL_LISTEN_HTTP, "[::1] (HTTP proxy)" },
		{ AF_INET6, SOCK_STREAM, 0, pl->socks, CTL_LISTEN_SOCKS, "[::1] (SOCKS5 proxy)" },
	};
	size_t nw = 4;

	if (pl->dns) {
		want[nw++] = (typeof(want[0])){ AF_INET, SOCK_DGRAM, INIT_DNS_ADDR, INIT_DNS_PORT,
			CTL_LISTEN_DNS_UDP, "127.0.0.53:53 (the sandbox's resolver, UDP)" };
		want[nw++] = (typeof(want[0])){ AF_INET, SOCK_STREAM, INIT_DNS_ADDR, INIT_DNS_PORT,
			CTL_LISTEN_DNS_TCP, "127.0.0.53:53 (the sandbox's resolver, TCP)" };
	}
	for (size_t i = 0; i < pl->nports && i < CTL_HOST_PORTS_MAX; i++) {
		want[nw++] = (typeof(want[0])){ AF_INET, SOCK_STREAM, INADDR_LOOPBACK, pl->ports[i],
			CTL_LISTEN_HOST_PORT, "127.0.0.1 (a host port)" };
		want[nw++] = (typeof(want[0])){ AF_INET6, SOCK_STREAM, 0, pl->ports[i],
			CTL_LISTEN_HOST_PORT, "[::1] (a host port)" };
	}
	*n = 0;
	for (size_t i = 0; i < nw; i++) {
		int fd = listen_on_addr(want[i].family, want[i].type, want[i].v4, want[i].port);
		/* No IPv6 in this kernel, or none on the namespace's loopback
		 * (disable_ipv6): then nothing inside can reach [::1] either,
		 * and the IPv4 listeners serve alone. */
		if (want[i].family == AF_INET6 && (fd == -EAFNOSUPPORT || fd == -EADDRNOTAVAIL))
			continue;
		if (fd < 0) {
			*what = want[i].name;
			while (*n)
				close(fds[--*n]);
			return fd;
		}
		fds[*n] = fd;
		kinds[(*n)++] = want[i].kind;
	}
	return 0;
}

/* ---- the sandbox's /etc/resolv.conf (pid 1) */

static const char resolv_conf[] =
	"# sbx: the sandbox's resolver, answered by sbx-preload (docs/NETWORK.md):\n"
	"# an allowed name gets a stand-in address, a refused one REFUSED\n"
	"nameserver 127.0.0.53\n"
	"options edns0 trust-ad\n";

int init_resolv_conf(void)
{
	struct stat st;
	int fs = -1, mnt = -1, f = -1, tree = -1, rc;

	/* a dangling link (resolved's stub file where /run is not the
	 * host's) or no file: nothing to cover */
	if (stat("/etc/resolv.conf", &st) || !S_ISREG(st.st_mode))
		return 1;
	fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "16k", 0) ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		goto fail;
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0)
		goto fail;
	f = openat(mnt, "resolv.conf", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (f < 0 || write(f, resolv_conf, sizeof(resolv_conf) - 1) != sizeof(resolv_conf) - 1)
		goto fail;
	tree = (int)syscall(SYS_open_tree, mnt, "resolv.conf", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		goto fail;
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
					     MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC };
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &ro, sizeof(ro)) ||
	    syscall(SYS_move_mount, tree, "", AT_FDCWD, "/etc/resolv.conf",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_SYMLINKS))
		goto fail;
	rc = 0;
	goto out;
fail:
	rc = -errno;
out:
	if (f >= 0)
		close(f);
	if (tree >= 0)
		close(tree);
	if (mnt >= 0)
		close(mnt);
	if (fs >= 0)
		close(fs);
	return rc;
}

/* ---- --socks-connect (any process inside) */

static void say(const char *host, const char *port, const char *why)
{
	dprintf(STDERR_FILENO, "sbx: --socks-connect %s:%s: %s\n", host, port, why);
}

static int parse_port(const char *s)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || *end || v < 1 || v > 65535 ? -1 : (int)v;
}

static int read_exact(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static const char *socks_error(unsigned char rep)
{
	switch (rep) {
	case 0x02: return "refused by the sandbox's network policy (sbx reports which rule)";
	case 0x03: return "network unreachable";
	case 0x04: return "host unreachable or no such name";
	case 0x05: return "connection refused";
	case 0x06: return "timed out";
	case 0x07: return "command not supported";
	case 0x08: return "address type not supported";
	default: return "the proxy failed";
	}
}

/* Bytes both ways until the far end is done. Our stdin ending is passed
 * on as a half-close, so the far end still answers. */
static int relay(int s)
{
	static char buf[65536];
	struct pollfd pf[2] = { { STDIN_FILENO, POLLIN, 0 }, { s, POLLIN, 0 } };

	for (;;) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (pf[0].revents) {
			ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				shutdown(s, SHUT_WR);
				pf[0].fd = -1;
			} else if (io_write_all(s, buf, (size_t)n)) {
				return 1;
			}
		}
		if (pf[1].revents) {
			ssize_t n = read(s, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0;
			if (io_write_all(STDOUT_FILENO, buf, (size_t)n))
				return 1;
		}
	}
}

int init_socks_connect(const char *proxy_port, const char *host, const char *port)
{
	unsigned char req[4 + 1 + 255 + 2], rep[4 + 255 + 2];
	struct sockaddr_in pa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int pp = parse_port(proxy_port), dp = parse_port(port);
	size_t hl = strlen(host), skip;
	int s;

	if (pp < 0 || dp < 0 || hl == 0 || hl > 255) {
		dprintf(STDERR_FILENO, "usage: sbx-init --socks-connect=PROXYPORT HOST PORT "
			"(ssh's ProxyCommand inside the sandbox)\n");
		return 2;
	}
	pa.sin_port = htons((unsigned short)pp);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&pa, sizeof(pa))) {
		say(host, port, "the sandbox's proxy is not listening (is this run "
		    "with allow_domains?)");
		return 1;
	}
	/* no authentication; then CONNECT by name: the supervisor resolves
	 * and decides (an address literal is a name it recognises) */
	req[0] = 5, req[1] = 1, req[2] = 0;
	if (io_write_all(s, req, 3) || read_exact(s, rep, 2) || rep[0] != 5 || rep[1] != 0) {
		say(host, port, "the proxy did not accept the SOCKS5 greeting");
		return 1;
	}
	req[0] = 5, req[1] = 1, req[2] = 0, req[3] = 3, req[4] = (unsigned char)hl;
	memcpy(req + 5, host, hl);
	req[5 + hl] = (unsigned char)(dp >> 8);
	req[6 + hl] = (unsigned char)dp;
	if (io_write_all(s, req, 7 + hl) || read_exact(s, rep, 4) || rep[0] != 5) {
		say(host, port, "the proxy closed the connection");
		return 1;
	}
	if (rep[1] != 0) {
		say(host, port, socks_error(rep[1]));
		return 1;
	}
	/* the bound address, which we do not need */
	if (rep[3] == 1)
		skip = 4 + 2;
	else if (rep[3] == 4)
		skip = 16 + 2;
	else if (rep[3] == 3 && !read_exact(s, rep + 4, 1))
		skip = (size_t)rep[4] + 2;
	else
		skip = sizeof(rep) + 1;
	if (skip > sizeof(rep) - 4 || read_exact(s, rep + 4, skip)) {
		say(host, port, "malformed SOCKS5 reply");
		return 1;
	}
	return relay(s);
}
