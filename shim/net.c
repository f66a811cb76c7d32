/* shim/net.c: name lookups and connections.
 *
 * A lookup of a host the network policy does not allow fails at once
 * (EAI_FAIL, HOST_NOT_FOUND) with a report, instead of a slow timeout in the
 * sandbox's empty network namespace. A connect or a datagram to an address
 * no rule allows fails with EPERM and a report naming the destination. The
 * sandbox's own loopback is always reachable (it is not the host's).
 *
 * The transparent path (runs with the filtering proxy: SBX_SHIM's socks=):
 * programs that ignore the proxy variables (`curl --noproxy '*'`, Python's
 * socket.create_connection, Node's net.connect and old fetch()) still get
 * exactly the policy, decided by name. A lookup of an allowed name is
 * answered with a stand-in address (namemap.c; the sandbox has no DNS), and
 * a TCP connect() to a stand-in, or to an allowed address outside the
 * sandbox, is carried through the SOCKS5 listener on the sandbox's loopback
 * with the name: the supervisor decides, resolves and dials. The program's
 * socket ends up connected to the proxy, which relays; getpeername() says
 * 127.0.0.1. A static binary (no shim) is the notify layer's: its connect()
 * to a stand-in of the sandbox's resolver is decided by the same name and
 * answered with a socket the supervisor connected (preload/notify/net.c);
 * without the notify layer it finds no route (fail closed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "shim/core.h"
#include "shim/namemap.h"
#include "shim/netjudge.h"
#include "shim/tell.h"

/* the sockets connected to the proxy's HTTP port (below: "a refusal by
 * the proxy, told to the program") */
#define PROXY_FDS 1024
static atomic_ulong proxy_fds[PROXY_FDS / 64];
static void proxy_mark(int fd, bool on);

/* socket(AF_UNIX) and a Unix socketpair fail with EPERM when the seccomp
 * filter blocks Unix sockets (allow_all_unix_sockets off): said, once per
 * run by the supervisor's de-duplication, so `ssh-agent`, `tmux` or a
 * docker client failing is explained. */
static void unix_refused(int domain)
{
	int err = errno;

	if (domain == AF_UNIX && err == EPERM && shim_ready() && shim_enter()) {
		if (!policy_allow_all_unix_sockets(shim_policy()))
			shim_report(WIRE_DENY, WIRE_UNIX, "socket", EPERM);
		shim_leave();
	}
	errno = err;
}

/* A socket of another kind the seccomp table refuses with EPERM: in the
 * nested mode with the network not open, whatever Landlock's TCP rules do
 * not see (an inet socket but a TCP stream: SMC, MPTCP, SCTP; a family
 * but Unix, inet and netlink). Said with the three numbers, named where
 * they are common. Not the rows the notify layer reports itself in the
 * normal mode (AF_PACKET, SOCK_RAW, SOCK_PACKET). */
static void socket_refused(int domain, int type, int protocol)
{
	int err = errno, t = type & 0xf;
	char target[96];
	size_t n = 0;

	if (err != EPERM || domain == AF_UNIX || domain == AF_PACKET || t == SOCK_RAW ||
	    t == 10 /* SOCK_PACKET */ || !shim_ready() || !shim_enter())
		return;
#define ADD(s) (memcpy(target + n, (s), strlen(s)), n += strlen(s))
	if (domain == AF_INET || domain == AF_INET6) {
		ADD(domain == AF_INET ? "AF_INET" : "AF_INET6");
	} else {
		ADD("domain ");
		n += wire_utoa((unsigned)domain, target + n);
	}
	ADD(t == SOCK_STREAM ? ", SOCK_STREAM" : t == SOCK_DGRAM ? ", SOCK_DGRAM" :
	    t == SOCK_SEQPACKET ? ", SOCK_SEQPACKET" : ", type ");
	if (t != SOCK_STREAM && t != SOCK_DGRAM && t != SOCK_SEQPACKET)
		n += wire_utoa((unsigned)t, target + n);
	ADD(", protocol ");
	n += wire_utoa((unsigned)protocol, target + n);
#undef ADD
	target[n] = '\0';
	shim_report(WIRE_DENY, WIRE_SOCKET, target, EPERM);
	shim_leave();
	errno = err;
}

SHIM_EXPORT int socket(int domain, int type, int protocol)
{
	int fd = REAL(socket)(domain, type, protocol);

	proxy_mark(fd, false);
	if (fd < 0) {
		unix_refused(domain);
		socket_refused(domain, type, protocol);
	}
	return fd;
}

SHIM_EXPORT int socketpair(int domain, int type, int protocol, int sv[2])
{
	int rc = REAL(socketpair)(domain, type, protocol, sv);

	if (rc < 0)
		unix_refused(domain);
	return rc;
}

/* ---- the name a Unix socket was bound to
 *
 * The notify layer makes every bind() of a Unix socket by path itself,
 * from the parent directory it checked and holds (sun_path takes no
 * directory descriptor: preload/notify/paths.c), so the kernel keeps
 * the last component only: getsockname() said `listener-x` where the
 * program had bound `/tmp/pymp-y/listener-x`, and Python's
 * multiprocessing.Manager() handed that name to its clients, who found
 * nothing there. The name as the program gave it is kept here and given
 * back, exactly as the kernel would have. Keyed by descriptor and the
 * socket's inode: a descriptor closed and reused for another socket is
 * another inode. Only the program's own view: the file is where the
 * supervisor made it either way. */
#define BOUND_MAX 32
#define SUN_PATH_MAX sizeof(((struct sockaddr_un *)0)->sun_path)

struct bound {
	int fd;
	ino_t ino;
	socklen_t len; /* of the whole address, as the kernel would say */
	char path[SUN_PATH_MAX];
};

static struct bound bound_names[BOUND_MAX];
static unsigned bound_next;
static bool bound_lock;

/* A signal handler that binds while we hold the lock gets the kernel's
 * answer, not a deadlock. */
static bool bound_try_lock(void)
{
	return !__atomic_test_and_set(&bound_lock, __ATOMIC_ACQUIRE);
}

static void bound_unlock(void)
{
	__atomic_clear(&bound_lock, __ATOMIC_RELEASE);
}

static bool socket_ino(int fd, ino_t *ino)
{
	struct stat st;

	if (sys_call(SYS_fstat, fd, &st) || !S_ISSOCK(st.st_mode))
		return false;
	*ino = st.st_ino;
	return true;
}

static void bound_remember(int fd, const struct sockaddr_un *su, socklen_t len)
{
	size_t off = offsetof(struct sockaddr_un, sun_path), pl = (size_t)len - off;
	struct bound b = { .fd = fd };

	pl = strnlen(su->sun_path, pl < SUN_PATH_MAX ? pl : SUN_PATH_MAX);
	if (!pl || !socket_ino(fd, &b.ino) || !bound_try_lock())
		return;
	memcpy(b.path, su->sun_path, pl);
	/* the kernel counts the terminating NUL when there is room for it */
	b.len = (socklen_t)(off + pl + (pl < SUN_PATH_MAX));
	unsigned slot = BOUND_MAX;
	for (unsigned i = 0; i < BOUND_MAX; i++)
		if (bound_names[i].len && bound_names[i].fd == fd)
			slot = i; /* the descriptor's earlier socket is gone */
	if (slot == BOUND_MAX)
		slot = bound_next++ % BOUND_MAX;
	bound_names[slot] = b;
	bound_unlock();
}

SHIM_EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	int rc = REAL(bind)(fd, sa, len), saved = errno;

	if (!rc && sa && sa->sa_family == AF_UNIX &&
	    len > (socklen_t)offsetof(struct sockaddr_un, sun_path) &&
	    ((const struct sockaddr_un *)sa)->sun_path[0] /* not abstract */)
		bound_remember(fd, (const struct sockaddr_un *)sa, len);
	errno = saved;
	return rc;
}

SHIM_EXPORT int getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	socklen_t room = len ? *len : 0;
	int rc = REAL(getsockname)(fd, sa, len), saved = errno;
	struct bound b = { .len = 0 };
	ino_t ino;

	if (rc || !sa || !len || room < sizeof(sa_family_t) || sa->sa_family != AF_UNIX ||
	    !__atomic_load_n(&bound_next, __ATOMIC_RELAXED) || !socket_ino(fd, &ino))
		return rc;
	if (bound_try_lock()) {
		for (unsigned i = 0; i < BOUND_MAX; i++)
			if (bound_names[i].len && bound_names[i].fd == fd && bound_names[i].ino == ino)
				b = bound_names[i];
		bound_unlock();
	}
	if (b.len) {
		/* as unix_getname(): as much as fits, and the whole length */
		struct sockaddr_un su = { .sun_family = AF_UNIX };
		memcpy(su.sun_path, b.path, sizeof(su.sun_path));
		memcpy(sa, &su, room < b.len ? room : b.len);
		*len = b.len;
	}
	errno = saved;
	return rc;
}

/* ---- the transparent path */

/* Whole buffers over the proxy connection, blocking (the caller's
 * O_NONBLOCK is off meanwhile). Raw system calls: nothing of ours in the
 * way. 0, or -errno (-ECONNRESET at end of file). */
static int io_all(int fd, void *buf, size_t n, bool out)
{
	char *p = buf;

	while (n) {
		long r = out ? sys_call(SYS_sendto, fd, p, n, MSG_NOSIGNAL, NULL, 0) :
			       sys_call(SYS_recvfrom, fd, p, n, 0, NULL, NULL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (r == 0)
			return -ECONNRESET;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int socks_errno(unsigned char rep)
{
	switch (rep) {
	case 0x02: return EPERM;        /* the policy refused (the proxy reported it) */
	case 0x03: return ENETUNREACH;
	case 0x04: return EHOSTUNREACH; /* also: the name does not resolve */
	case 0x05: return ECONNREFUSED;
	case 0x06: return ETIMEDOUT;
	default: return ECONNREFUSED;
	}
}

/* Connect fd to the proxy's SOCKS5 listener and ask it for host:port (a
 * name, or an address: `v4`/`v6` when not NULL). The socket's family picks
 * the listener: 127.0.0.1, or for IPv6 the mapped ::ffff:127.0.0.1 (one
 * socket, any destination), [::1] for an IPv6-only socket. 0 or -errno. */
static int tunnel(int fd, int family, const char *host, const struct in_addr *v4,
		  const struct in6_addr *v6, unsigned port)
{
	unsigned char req[4 + 1 + SHIM_NAME_MAX + 2], rep[4 + 256 + 2];
	struct sockaddr_storage ps;
	socklen_t pl;
	size_t n = 4, need;
	int fl = (int)sys_call(SYS_fcntl, fd, F_GETFL), rc, v6only = 0;
	socklen_t il = sizeof(v6only);

	memset(&ps, 0, sizeof(ps));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ps;
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		in->sin_port = htons((unsigned short)shim_socks_port());
		pl = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ps;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((unsigned short)shim_socks_port());
		getsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &il);
		if (v6only) {
			in6->sin6_addr = in6addr_loopback;
		} else {
			in6->sin6_addr.s6_addr[10] = in6->sin6_addr.s6_addr[11] = 0xff;
			in6->sin6_addr.s6_addr[12] = 127;
			in6->sin6_addr.s6_addr[15] = 1;
		}
		pl = sizeof(*in6);
	}
	if (fl < 0)
		return -errno;
	if ((fl & O_NONBLOCK) && sys_call(SYS_fcntl, fd, F_SETFL, fl & ~O_NONBLOCK))
		return -errno;
	rc = REAL(connect)(fd, (struct sockaddr *)&ps, pl) ? -errno : 0;
	/* no authentication, then CONNECT */
	req[0] = 5, req[1] = 1, req[2] = 0;
	if (!rc)
		rc = io_all(fd, req, 3, true);
	if (!rc)
		rc = io_all(fd, rep, 2, false);
	if (!rc && (rep[0] != 5 || rep[1] != 0))
		rc = -ECONNREFUSED;
	req[0] = 5, req[1] = 1, req[2] = 0;
	if (v4) {
		req[3] = 1;
		memcpy(req + 4, v4, 4);
		n += 4;
	} else if (v6) {
		req[3] = 4;
		memcpy(req + 4, v6, 16);
		n += 16;
	} else {
		size_t hl = strlen(host);
		req[3] = 3;
		req[4] = (unsigned char)hl;
		memcpy(req + 5, host, hl);
		n += 1 + hl;
	}
	req[n++] = (unsigned char)(port >> 8);
	req[n++] = (unsigned char)port;
	if (!rc)
		rc = io_all(fd, req, n, true);
	/* the reply: exactly its own bytes (a server that speaks first, as
	 * SSH does, may already have sent more) */
	if (!rc)
		rc = io_all(fd, rep, 4, false);
	if (!rc && (rep[0] != 5 || rep[1] != 0))
		rc = rep[0] != 5 ? -ECONNREFUSED : -socks_errno(rep[1]);
	if (!rc) {
		need = rep[3] == 1 ? 4 + 2 : rep[3] == 4 ? 16 + 2 : 0;
		if (rep[3] == 3 && !(rc = io_all(fd, rep + 4, 1, false)))
			need = (size_t)rep[4] + 2;
		if (!rc)
			rc = need ? io_all(fd, rep + 4, need, false) : -EPROTO;
	}
	if ((fl & O_NONBLOCK) && sys_call(SYS_fcntl, fd, F_SETFL, fl))
		rc = rc ? rc : -errno;
	return rc;
}

/* 1: a TCP socket of the inet families. */
static bool stream_socket(int fd)
{
	int type = 0;
	socklen_t l = sizeof(type);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) == 0 && type == SOCK_STREAM;
}

/* Is this connect() the proxy's to carry? Then carry it: 0 (connected) or
 * -errno. 1: not ours, go on as without the proxy. A stand-in address of
 * ours goes by its name; another address outside the sandbox goes as it is
 * when the policy allows it (the proxy decides again, with the
 * resolved-address check), and is refused as before when it does not. */
static int transparent(int fd, const struct sockaddr *sa, socklen_t len)
{
	char name[SHIM_NAME_MAX];
	struct in_addr a4;
	const struct in6_addr *a6 = NULL;
	unsigned port;
	int rc = 1;

	if (!sa || !shim_socks_port() || !shim_ready())
		return 1;
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;
		a4 = in->sin_addr;
		port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		port = ntohs(in6->sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			memcpy(&a4, in6->sin6_addr.s6_addr + 12, 4);
		else
			a6 = &in6->sin6_addr;
	} else {
		return 1;
	}
	if (!shim_enter())
		return 1;
	if (!a6 && shim_namemap_is_ours(&a4)) {
		/* ours by name; one we never gave out: no route, as before */
		if (!shim_namemap_name(&a4, name, sizeof(name)) && stream_socket(fd))
			rc = tunnel(fd, sa->sa_family, name, NULL, NULL, port);
	} else if (!a6 && (ntohl(a4.s_addr) & 0xffff0000u) == SHIM_RESOLVER_STANDINS) {
		/* the sandbox's resolver gave it out: the supervisor knows
		 * the name behind it and decides on that name */
		if (stream_socket(fd))
			rc = tunnel(fd, sa->sa_family, NULL, &a4, NULL, port);
	} else if (a6 ? !IN6_IS_ADDR_LOOPBACK(a6) && !IN6_IS_ADDR_UNSPECIFIED(a6) :
			(ntohl(a4.s_addr) >> 24) != 127 && a4.s_addr != 0) {
		char ip[INET6_ADDRSTRLEN];
		inet_ntop(a6 ? AF_INET6 : AF_INET, a6 ? (const void *)a6 : (const void *)&a4,
			  ip, sizeof(ip));
		if (policy_check_domain(shim_policy(), ip, port, NULL) == SBX_ALLOW &&
		    stream_socket(fd))
			rc = tunnel(fd, sa->sa_family, NULL, a6 ? NULL : &a4, a6, port);
	}
	shim_leave();
	return rc;
}

/* ---- a service on the host's loopback
 *
 * The sandbox has a loopback of its own: a connect to 127.0.0.1:5432 where
 * nothing inside listens is refused by the kernel, with no word of why,
 * though the host's database or dev server is right there and
 * `--host-port 5432` reaches it. A refused loopback connect is said as a
 * note (a claim about the program itself: the supervisor says it once per
 * target, never decides by it) and, with tell_program, to the program's
 * stderr. A non-blocking connect learns its refusal later, from
 * getsockopt(SO_ERROR): the loopback connects in progress are remembered
 * per descriptor in a small lossy table (a miss only costs the note). */
#define LOOP_SLOTS 32
static atomic_ulong loop_pending[LOOP_SLOTS]; /* (fd + 1) << 17 | v6 << 16 | port */

static unsigned loopback_port(const struct sockaddr *sa, socklen_t len, bool *v6)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;
		*v6 = false;
		return (ntohl(in->sin_addr.s_addr) >> 24) == 127 ? ntohs(in->sin_port) : 0;
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		const uint8_t *b = in6->sin6_addr.s6_addr;
		*v6 = !IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr);
		if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
		    (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && b[12] == 127))
			return ntohs(in6->sin6_port);
	}
	return 0;
}

static void loopback_refused(unsigned port, bool v6)
{
	char target[32], line[400];

	if (!port || !shim_ready() || !shim_enter())
		return;
	snprintf(target, sizeof(target), v6 ? "[::1]:%u" : "127.0.0.1:%u", port);
	shim_report(WIRE_NOTE, WIRE_CONNECT, target, ECONNREFUSED);
	snprintf(line, sizeof(line), "sbx: connect to %s refused: the sandbox has a loopback "
		 "of its own, where nothing listens on port %u; if the service runs on the "
		 "host, ask the user to allow it with --host-port %u\n", target, port, port);
	shim_tell_note(target, line);
	shim_leave();
}

/* ---- a refusal by the proxy, told to the program
 *
 * A program that honours HTTP(S)_PROXY connects to the proxy's HTTP port
 * and asks `CONNECT host:port`; a refused host then reaches it as a bare
 * 403 (curl and git: "CONNECT tunnel failed, response 403"), and the line
 * that explains it reaches only the person. With tell_program, a socket
 * connected to that port is marked (a bit per descriptor, cleared by
 * socket() and any other connect()) and its first send() read: when it asks
 * for a name the policy refuses, the program hears why, in the proxy's
 * words. The proxy decides, the shim only explains: an address, or a name
 * the policy allows (which the proxy may still refuse by its address),
 * gets nothing. send() only: Node writes with write()/writev(), which the
 * shim does not wrap (every program's hottest call), and hears the 403. */
static void proxy_mark(int fd, bool on)
{
	if (fd < 0 || fd >= PROXY_FDS)
		return;
	unsigned long bit = 1UL << (fd % 64);
	if (on)
		atomic_fetch_or_explicit(&proxy_fds[fd / 64], bit, memory_order_relaxed);
	else if (atomic_load_explicit(&proxy_fds[fd / 64], memory_order_relaxed) & bit)
		atomic_fetch_and_explicit(&proxy_fds[fd / 64], ~bit, memory_order_relaxed);
}

/* the first bytes a marked socket sends: `CONNECT host:port ` */
static void proxy_asks(const void *data, size_t n)
{
	char host[256], target[300], line[800];
	/* `CONNECT ` + a name of 255 + `:65535 `: copied without faulting
	 * (a buffer the program cannot read is the kernel's EFAULT to give,
	 * not a crash of the shim's making) */
	char buf[8 + 255 + 7];
	struct iovec local = { buf, n < sizeof(buf) ? n : sizeof(buf) },
		     remote = { (void *)(uintptr_t)data, n < sizeof(buf) ? n : sizeof(buf) };
	const struct sbx_rule *why = NULL;
	unsigned long port = 0;
	size_t h = 0, i = 8;
	long got;

	if (!data || n < 12)
		return;
	got = sys_call(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0);
	if (got < 12 || memcmp(buf, "CONNECT ", 8))
		return;
	n = (size_t)got;
	/* a DNS name in ASCII, nothing else (the line is printed as it is) */
	while (i < n && h + 1 < sizeof(host) && buf[i] && strchr("abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_", buf[i]))
		host[h++] = buf[i++];
	host[h] = '\0';
	if (!h || i >= n || buf[i++] != ':')
		return;
	while (i < n && buf[i] >= '0' && buf[i] <= '9' && port < 65536)
		port = port * 10 + (unsigned long)(buf[i++] - '0');
	if (i >= n || buf[i] != ' ' || !port || port > 65535 || shim_numeric_host(host) ||
	    shim_local_name(host))
		return;
	if (!shim_ready() || shim_mode() != SHIM_ENFORCE || !shim_enter())
		return;
	const struct policy *p = shim_policy();
	if (!policy_network_open(p) &&
	    policy_check_domain(p, host, (unsigned)port, &why) != SBX_ALLOW) {
		snprintf(target, sizeof(target), "%s:%lu", host, port);
		if (why)
			snprintf(line, sizeof(line), "sbx: connect to %s refused by policy "
				 "(%s = %s); ask the user to remove `%s = %s` (%s)\n", target,
				 sbx_rule_key(why->kind), why->value, sbx_rule_key(why->kind),
				 why->value, why->source);
		else
			snprintf(line, sizeof(line), "sbx: connect to %s refused by policy (not "
				 "in allow_domains); ask the user to allow it with --allow-domain "
				 "%s\n", target, host);
		shim_tell_note(target, line);
	}
	shim_leave();
}

SHIM_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	if (fd >= 0 && fd < PROXY_FDS &&
	    (atomic_load_explicit(&proxy_fds[fd / 64], memory_order_relaxed) & 1UL << (fd % 64))) {
		int saved = errno;
		proxy_mark(fd, false);
		proxy_asks(buf, n);
		errno = saved;
	}
	return REAL(send)(fd, buf, n, flags);
}

SHIM_EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	int saved = errno, t;
	unsigned port;
	bool v6 = false;

	proxy_mark(fd, false);
	t = transparent(fd, sa, len);

	if (t <= 0) {
		errno = t ? -t : saved;
		return t ? -1 : 0;
	}
	if (shim_judge_addr(sa, len)) {
		errno = EPERM;
		return -1;
	}
	int rc = REAL(connect)(fd, sa, len);
	saved = errno;
	if ((rc == 0 || saved == EINPROGRESS) && shim_tell_on() && shim_http_port() &&
	    loopback_port(sa, len, &v6) == shim_http_port())
		proxy_mark(fd, true);
	errno = saved;
	if (rc == 0 || fd < 0 || !(port = loopback_port(sa, len, &v6)))
		return rc;
	saved = errno;
	if (saved == ECONNREFUSED) {
		loopback_refused(port, v6);
	} else if (saved == EINPROGRESS) {
		atomic_store_explicit(&loop_pending[(unsigned)fd % LOOP_SLOTS],
				      ((unsigned long)fd + 1) << 17 | (unsigned long)v6 << 16 | port,
				      memory_order_relaxed);
	}
	errno = saved;
	return rc;
}

SHIM_EXPORT int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	int rc = REAL(getsockopt)(fd, level, name, val, len), saved = errno;

	if (rc || level != SOL_SOCKET || name != SO_ERROR || fd < 0 || !val || !len ||
	    *len < (socklen_t)sizeof(int))
		return rc;
	atomic_ulong *slot = &loop_pending[(unsigned)fd % LOOP_SLOTS];
	unsigned long v = atomic_load_explicit(slot, memory_order_relaxed);
	if (!v || (v >> 17) != (unsigned long)fd + 1)
		return rc;
	int err;
	memcpy(&err, val, sizeof(err));
	if (err == EINPROGRESS || err == EALREADY)
		return rc; /* still going */
	/* the outcome is known: said at most once */
	if (atomic_compare_exchange_strong(slot, &v, 0) && err == ECONNREFUSED)
		loopback_refused((unsigned)(v & 0xffff), (v >> 16) & 1);
	errno = saved;
	return rc;
}

SHIM_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
			   const struct sockaddr *sa, socklen_t len)
{
	if (!sa && fd >= 0 && fd < PROXY_FDS &&
	    (atomic_load_explicit(&proxy_fds[fd / 64], memory_order_relaxed) & 1UL << (fd % 64))) {
		int saved = errno;
		proxy_mark(fd, false);
		proxy_asks(buf, n);
		errno = saved;
	}
	if (shim_judge_addr(sa, len)) {
		errno = EPERM;
		return -1;
	}
	return REAL(sendto)(fd, buf, n, flags, sa, len);
}

SHIM_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	if (msg && shim_judge_addr(msg->msg_name, msg->msg_namelen)) {
		errno = EPERM;
		return -1;
	}
	return REAL(sendmsg)(fd, msg, flags);
}

/* In a proxied run, the stand-in address for an allowed name (the lookup
 * was judged already), as text libc parses as a numeric host: `out` is
 * then what to look up instead of the name. IPv6 asks get it IPv4-mapped
 * (the connect wrapper takes those too). false: look the name up as it is
 * (no proxy, a numeric or local name, a full table). */
static bool stand_in(const char *node, int family, char *out, size_t outsz)
{
	char name[SHIM_NAME_MAX], ip[INET_ADDRSTRLEN];
	struct in_addr a;
	size_t n;

	if (!node || !shim_socks_port() || shim_numeric_host(node) || shim_local_name(node))
		return false;
	n = strlen(node);
	if (n && node[n - 1] == '.')
		n--; /* one trailing dot: the same name */
	if (!n || n >= sizeof(name))
		return false;
	for (size_t i = 0; i < n; i++)
		name[i] = (char)(node[i] >= 'A' && node[i] <= 'Z' ? node[i] + 32 : node[i]);
	name[n] = '\0';
	if (shim_namemap_addr(name, &a) || !inet_ntop(AF_INET, &a, ip, sizeof(ip)))
		return false;
	snprintf(out, outsz, "%s%s", family == AF_INET6 ? "::ffff:" : "", ip);
	return true;
}

SHIM_EXPORT int getaddrinfo(const char *node, const char *service,
			    const struct addrinfo *hints, struct addrinfo **res)
{
	char alt[64];

	if (!(hints && (hints->ai_flags & AI_NUMERICHOST)) && shim_ready()) {
		if (shim_judge_lookup(node, service))
			return EAI_FAIL;
		if (node && shim_socks_port() && !shim_numeric_host(node)) {
			/* the sandbox's resolver first: its stand-ins mean the
			 * same name in every process (AI_ADDRCONFIG off: the
			 * sandbox has only loopback, which it does not count) */
			struct addrinfo h = { 0 };
			if (hints)
				h = *hints;
			h.ai_flags &= ~AI_ADDRCONFIG;
			int rc = REAL(getaddrinfo)(node, service, &h, res);
			if (rc == 0 || shim_local_name(node))
				return rc;
		}
		if (stand_in(node, hints ? hints->ai_family : AF_UNSPEC, alt, sizeof(alt))) {
			/* libc builds the answer (and freeaddrinfo frees it);
			 * AI_ADDRCONFIG off: the sandbox has only loopback, and
			 * the answer is ours anyway */
			struct addrinfo h = { 0 };
			if (hints)
				h = *hints;
			h.ai_flags = (h.ai_flags | AI_NUMERICHOST) & ~AI_ADDRCONFIG;
			return REAL(getaddrinfo)(alt, service, &h, res);
		}
	}
	return REAL(getaddrinfo)(node, service, hints, res);
}

SHIM_EXPORT struct hostent *gethostbyname(const char *name)
{
	char alt[64];

	if (shim_ready() && shim_judge_lookup(name, NULL)) {
		h_errno = HOST_NOT_FOUND;
		return NULL;
	}
	if (shim_ready() && stand_in(name, AF_INET, alt, sizeof(alt)))
		return REAL(gethostbyname)(alt);
	return REAL(gethostbyname)(name);
}

SHIM_EXPORT struct hostent *gethostbyname2(const char *name, int af)
{
	char alt[64];

	if (shim_ready() && shim_judge_lookup(name, NULL)) {
		h_errno = HOST_NOT_FOUND;
		return NULL;
	}
	if (shim_ready() && af == AF_INET && stand_in(name, AF_INET, alt, sizeof(alt)))
		return REAL(gethostbyname2)(alt, af);
	return REAL(gethostbyname2)(name, af);
}

SHIM_EXPORT int gethostbyname_r(const char *name, struct hostent *ret, char *buf,
				size_t buflen, struct hostent **result, int *h_errnop)
{
	char alt[64];

	if (shim_ready() && shim_judge_lookup(name, NULL)) {
		*result = NULL;
		*h_errnop = HOST_NOT_FOUND;
		return ENOENT;
	}
	if (shim_ready() && stand_in(name, AF_INET, alt, sizeof(alt)))
		return REAL(gethostbyname_r)(alt, ret, buf, buflen, result, h_errnop);
	return REAL(gethostbyname_r)(name, ret, buf, buflen, result, h_errnop);
}

SHIM_EXPORT int gethostbyname2_r(const char *name, int af, struct hostent *ret,
				 char *buf, size_t buflen, struct hostent **result,
				 int *h_errnop)
{
	char alt[64];

	if (shim_ready() && shim_judge_lookup(name, NULL)) {
		*result = NULL;
		*h_errnop = HOST_NOT_FOUND;
		return ENOENT;
	}
	if (shim_ready() && af == AF_INET && stand_in(name, AF_INET, alt, sizeof(alt)))
		return REAL(gethostbyname2_r)(alt, af, ret, buf, buflen, result, h_errnop);
	return REAL(gethostbyname2_r)(name, af, ret, buf, buflen, result, h_errnop);
}
