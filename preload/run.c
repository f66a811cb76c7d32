/* preload/run.c: the run's wait: signals relayed, the control socket,
 * the reports, the proxy and the notify layer served (the process it
 * waits for: backend/linux/process.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/linux/process.h"
#include "common/control.h"
#include "common/forwarded.h"
#include "net/net.h"
#include "preload/notify/notify.h"
#include "preload/preload.h"

/* The proxy's listeners from sbx-init's CTL_LISTENERS message, at most
 * this many (control.h) */
#define LISTEN_MAX CTL_LISTEN_MAX

/* What one "N" message brought: the descriptors and a kind byte for each. */
struct listeners {
	bool got;           /* an "N" came (at most one may) */
	bool bad;           /* malformed: more descriptors than fit, truncated */
	int fds[LISTEN_MAX];
	char kinds[LISTEN_MAX];
	size_t nfds, nkinds;
};

/* "S" and the signal: COMMAND stopped (sbx-init's loop); 0 when none came. */
static int stopped_by;

/* Read sbx-init's message: "R" (ready; its pid comes with it, as we see
 * it, and where the kernel gives one, a pidfd: *init_pidfd), "N" (the
 * proxy's listeners, into *ls), "S" and a signal (COMMAND stopped:
 * stopped_by) or "X" and the exit status (every process of COMMAND's is
 * gone, *gone set). */
static int read_ctl(int fd, pid_t *init_pid, int *init_pidfd, bool *gone, int *code,
		    struct listeners *ls, int notify_in[2], bool *notify_bad)
{
	char buf[2 + LISTEN_MAX];
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int)) +
		       CMSG_SPACE(LISTEN_MAX * sizeof(int))];
	} cm;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	bool listeners = n > 0 && buf[0] == CTL_LISTENERS && !ls->got && *init_pid <= 0;
	/* "F": the notify filter's listener and the rename actor's socket
	 * (sbx-init's install_notify), two descriptors, once, before "ready" */
	bool listener = n == 1 && buf[0] == CTL_NOTIFY && notify_in[0] < 0 && !*notify_bad &&
			*init_pid <= 0 && !(mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC));

	if (n <= 0)
		return n == 0 || (errno != EAGAIN && errno != EINTR) ? -1 : 0;
	if (buf[0] == CTL_GONE && n == 2 && *init_pid > 0) {
		*gone = true;
		*code = (unsigned char)buf[1];
	}
	if (buf[0] == CTL_STOPPED && n == 2 && *init_pid > 0 && buf[1] > 0 && buf[1] < 32)
		stopped_by = buf[1];
	if (buf[0] == CTL_LISTENERS) {
		/* a second one, or one after "ready", is out of order */
		ls->bad |= !listeners || (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) ||
			   (size_t)n - 1 > LISTEN_MAX;
		ls->got = true;
		ls->nkinds = (size_t)n - 1 <= LISTEN_MAX ? (size_t)n - 1 : 0;
		memcpy(ls->kinds, buf + 1, ls->nkinds);
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred uc;
			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			if (buf[0] == CTL_READY)
				*init_pid = uc.pid;
		} else if (c->cmsg_type == SCM_PIDFD || c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < k; i++) {
				int pfd;
				memcpy(&pfd, CMSG_DATA(c) + i * sizeof(int), sizeof(pfd));
				if (buf[0] == CTL_READY && c->cmsg_type == SCM_PIDFD &&
				    *init_pidfd < 0) {
					*init_pidfd = pfd;
				} else if (listeners && c->cmsg_type == SCM_RIGHTS &&
					   ls->nfds < LISTEN_MAX) {
					ls->fds[ls->nfds++] = pfd;
				} else if (listener && c->cmsg_type == SCM_RIGHTS &&
					   notify_in[1] < 0) {
					notify_in[notify_in[0] < 0 ? 0 : 1] = pfd;
				} else {
					*notify_bad |= buf[0] == CTL_NOTIFY &&
						       c->cmsg_type == SCM_RIGHTS;
					/* a pidfd with every message; anything else
					 * in an "N" is more than it may carry */
					ls->bad |= listeners && c->cmsg_type == SCM_RIGHTS;
					close(pfd);
				}
			}
		}
	}
	if (buf[0] == CTL_NOTIFY && (!listener || notify_in[1] < 0))
		*notify_bad = true;
	/* Without SCM_PIDFD: a pidfd from the pid at once, while sbx-init
	 * (which just wrote) lives; from then on a signal cannot reach
	 * another process that got its pid. */
	if (buf[0] == CTL_READY && *init_pid > 0 && *init_pidfd < 0)
		*init_pidfd = (int)syscall(SYS_pidfd_open, *init_pid, 0);
	return 1;
}

/* CTL_CONT: COMMAND goes on in the terminal's foreground or background */
static void tell_cont(int ctl, bool fg)
{
	char how = fg ? CTL_CONT_FG : CTL_CONT_BG;

	ctl_send(ctl, CTL_CONT, &how, 1, NULL, 0);
}

/* Relay a signal to sbx-init by its pidfd (kill by pid only on a kernel
 * without pidfds, before 5.3). */
static void relay(pid_t pid, int pidfd, int sig)
{
	if (pidfd >= 0)
		syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
	else if (pid > 0)
		kill(pid, sig);
}

/* Is fd a listening TCP socket on the sandbox's loopback (127.0.0.1 or
 * [::1]) at `port`? *v6 says which. sbx-init made it, before COMMAND
 * existed; checked all the same (what comes over the socket is re-validated
 * by the receiver). */
static bool loopback_socket(int fd, int want_type, uint32_t v4, unsigned port, bool *v6)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int type = 0, acc = 0, proto = 0;
	socklen_t il = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &il) || type != want_type ||
	    (type == SOCK_STREAM &&
	     (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &il) || !acc)) ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &il) ||
	    proto != (type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len))
		return false;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)&ss;
		*v6 = false;
		return in->sin_addr.s_addr == htonl(v4) && ntohs(in->sin_port) == port;
	}
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)&ss;
		*v6 = true;
		return v4 == INADDR_LOOPBACK && IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) &&
		       ntohs(in6->sin6_port) == port;
	}
	return false;
}

static bool loopback_listener(int fd, unsigned port, bool *v6)
{
	return loopback_socket(fd, SOCK_STREAM, INADDR_LOOPBACK, port, v6);
}

/* The resolver's sockets and the host ports' listeners of an "N" message:
 * kind CTL_LISTEN_DNS_UDP a UDP and _TCP a TCP socket on 127.0.0.53:53
 * (one each, both when the run has the resolver), CTL_LISTEN_HOST_PORT
 * a listener on the sandbox's
 * loopback at one of the planned host ports (127.0.0.1 for each, [::1]
 * where there is IPv6). Handed to the loop; 0 or -EPROTO. */
static int check_extra(const struct run_in *ri, const int *fds, const char *kinds, size_t n)
{
	unsigned dns = 0;
	uint64_t v4seen[1] = { 0 }, v6seen[1] = { 0 }; /* bit per planned port */
	bool v6;

	if (ri->nhost_ports > 64)
		return -EPROTO;
	for (size_t i = 0; i < n; i++) {
		if (kinds[i] == CTL_LISTEN_DNS_UDP || kinds[i] == CTL_LISTEN_DNS_TCP) {
			unsigned bit = kinds[i] == CTL_LISTEN_DNS_UDP ? 1 : 2;
			if (!ri->dns || (dns & bit) ||
			    !loopback_socket(fds[i],
					     kinds[i] == CTL_LISTEN_DNS_UDP ? SOCK_DGRAM : SOCK_STREAM,
					     0x7f000035, 53, &v6) || v6)
				return -EPROTO;
			dns |= bit;
			continue;
		}
		if (kinds[i] != CTL_LISTEN_HOST_PORT)
			continue;
		size_t k;
		for (k = 0; k < ri->nhost_ports; k++)
			if (loopback_listener(fds[i], ri->host_ports[k], &v6))
				break;
		uint64_t *seen = v6 ? v6seen : v4seen;
		if (k == ri->nhost_ports || (*seen & (1ull << k)))
			return -EPROTO;
		*seen |= 1ull << k;
	}
	if ((ri->dns && dns != 3) ||
	    v4seen[0] != (ri->nhost_ports ? (ri->nhost_ports == 64 ? ~0ull :
					      (1ull << ri->nhost_ports) - 1) : 0))
		return -EPROTO;
	return 0;
}

/* The listeners of an "N" message, checked -- each kind at the port the
 * plan gave it, at most one per address family, IPv4 for both kinds --
 * and handed to the loop, which owns them from then on. 0, or -EPROTO
 * (the rest closed). */
static int serve_listeners(const struct run_in *ri, struct listeners *ls)
{
	unsigned seen = 0; /* bit: kind (0 http, 1 socks) * 2 + v6 */
	size_t i;
	int rc = ls->bad || ls->nfds != ls->nkinds || ls->nfds < 2 ? -EPROTO : 0;

	if (!rc)
		rc = check_extra(ri, ls->fds, ls->kinds, ls->nfds);
	for (i = 0; !rc && i < ls->nfds; i++) {
		bool v6 = false, socks = ls->kinds[i] == CTL_LISTEN_SOCKS;
		unsigned bit;
		if (ls->kinds[i] == CTL_LISTEN_DNS_UDP || ls->kinds[i] == CTL_LISTEN_DNS_TCP ||
		    ls->kinds[i] == CTL_LISTEN_HOST_PORT)
			continue; /* checked above */
		if ((ls->kinds[i] != CTL_LISTEN_HTTP && !socks) ||
		    !loopback_listener(ls->fds[i], socks ? ri->socks_port : ri->http_port, &v6) ||
		    (seen & (bit = 1u << (socks * 2 + v6)))) {
			rc = -EPROTO;
			break;
		}
		seen |= bit;
	}
	if (!rc && (seen & 5) != 5) /* 127.0.0.1 for both */
		rc = -EPROTO;
	for (i = 0; i < ls->nfds; i++) {
		if (rc) {
			close(ls->fds[i]);
			continue;
		}
		char k = ls->kinds[i];
		if (k == CTL_LISTEN_HOST_PORT) {
			struct sockaddr_in6 a;
			socklen_t al = sizeof(a);
			getsockname(ls->fds[i], (struct sockaddr *)&a, &al); /* checked above */
			rc = net_loop_add_hostport(ri->net, ls->fds[i], ntohs(a.sin6_port));
		} else {
			rc = net_loop_add_listener(ri->net, ls->fds[i],
						   k == CTL_LISTEN_SOCKS ? NET_LISTEN_SOCKS :
						   k == CTL_LISTEN_DNS_UDP ? NET_LISTEN_DNS_UDP :
						   k == CTL_LISTEN_DNS_TCP ? NET_LISTEN_DNS_TCP :
						   NET_LISTEN_HTTP);
		}
	}
	ls->nfds = 0;
	return rc;
}

/* How long report lines wait for a quiet pipe, and at most; in a file
 * shared with COMMAND, how long they wait once its open line of its own
 * stopped growing, and at most in all. */
#define REPORT_QUIET_MS 3
#define REPORT_HOLD_MS 50
#define REPORT_OPEN_LINE_MAX_MS 2000

static long ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* What the report pipe holds: while COMMAND runs, slices of 16 KiB for
 * at most REPORT_SLICE_MS (budget true); at the end, until it is empty.
 * false at end of file. Anything in the sandbox can write to the pipe as
 * fast as we read, and each line costs a decision and a look at the disk
 * for its hint (forged ones too): a bound in bytes let a flood keep a
 * loaded machine's loop here for seconds, and a SIGTERM waited (stream.sh
 * flood_never_stalls_...). Between two budgets signals and sbx-init's
 * messages are served; the pipe is still drained at full speed. */
#define REPORT_SLICE_MS 10
static bool drain_reports(const struct run_in *ri, bool budget)
{
	char buf[16384];
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		ssize_t n = read(ri->report_fd, buf, sizeof(buf));
		if (n > 0) {
			reports_feed(ri->reports, buf, (size_t)n);
			if (budget && ms_since(&start) >= REPORT_SLICE_MS)
				return true;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && errno == EAGAIN;
	}
}

/* The wait's descriptors, by name: their places in poll()'s array. */
enum wait_slot {
	SLOT_SIGNALS,               /* the signalfd: the forwarded signals, SIGCHLD */
	SLOT_CTL,                   /* sbx-init's messages (control.h) */
	SLOT_REPORTS,               /* the shim's report pipe */
	SLOT_NET,                   /* the proxy's loop (its others after NSLOTS) */
	SLOT_NOTIFY,                /* the seccomp notify listener, once attached */
	SLOT_RELAY,                 /* the terminal relay's three (relay.c) */
	SLOT_ROOM = SLOT_RELAY + 3, /* room on the report output for held lines */
	NSLOTS
};

/* What the wait keeps between two wake-ups. */
struct waiting {
	struct sandbox *sb;
	struct run_in *ri;
	struct pollfd *pf;       /* NSLOTS, then the proxy's beyond its first */
	struct pollfd slots[NSLOTS];
	size_t npf;              /* pf's room: slots, or the heap's */
	int status;              /* bubblewrap's, once reaped */
	int killed_by;           /* the signal that ended the set-up */
	int code;                /* COMMAND's status, from "X" */
	pid_t init_pid;          /* sbx-init's, from "R": the sandbox stands */
	int init_pidfd;
	bool gone;               /* "X": nothing of COMMAND's is left */
	bool failed;             /* we stopped the run (stop()) */
	bool serving;            /* the proxy's listeners served */
	struct listeners ls;
	int notify_in[2];        /* "F"'s two descriptors, until attached */
	bool notify_bad, attached;
	struct timespec held_since; /* report lines held since */
	off_t line_size;            /* the shared file's size, last seen */
	struct timespec line_moved; /* ... and when it last changed */
	int look_ms;                /* may_flush(): when to look again */
	bool looked;                /* ... it looked on this wake-up */
};

/* The one way a run we cannot go on with ends: why said, bubblewrap
 * killed (and with it the sandbox: --die-with-parent) and reaped; the
 * status is then SBX_EXIT_SETUP. `unready`: whatever sbx-init said, the
 * sandbox is not taken to have stood (COMMAND was not started). */
static void stop(struct waiting *w, bool unready, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void stop(struct waiting *w, bool unready, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	msg("%s", text);
	w->failed = true;
	if (unready)
		w->init_pid = 0;
	sandbox_kill(w->sb->pid);
	while (waitpid(w->sb->pid, &w->status, 0) < 0 && errno == EINTR)
		;
	w->sb->pid = -1;
}

/* Report lines came while none were held: held from now on. */
static void held_from_now(struct waiting *w, bool was)
{
	if (!was && w->ri->reports && reports_pending(w->ri->reports)) {
		clock_gettime(CLOCK_MONOTONIC, &w->held_since);
		w->line_size = -2; /* not seen yet */
	}
}

static bool holding(const struct waiting *w)
{
	return w->ri->reports && reports_pending(w->ri->reports);
}

/* May the held lines be written now? `quiet`: nothing came for
 * REPORT_QUIET_MS. The refused program is usually writing its own error
 * line just then. Into a pipe or a terminal: written once quiet,
 * REPORT_HOLD_MS at most. Into a file shared with it (2>log, an agent's
 * tool output), whose last byte says whether a line of the program's is
 * open: once quiet with no line open, or once the file stood still
 * REPORT_HOLD_MS, a line open or not (a loaded machine stretches the
 * program's pauses past any quiet time); REPORT_OPEN_LINE_MAX_MS at most.
 * A cap counted from the first held line would cut into a line the
 * program is still writing; and right after a refusal, with its last
 * line just ended, it is about to write the next. A file standing still
 * is not: a program that keeps the loop busy (a refusal after another)
 * and writes nothing gets its lines then, not after the 2 s cap.
 * Asked once a wake-up (a look is an fstat and a pread); w->look_ms says
 * when to look again: REPORT_QUIET_MS, to hear the quiet and a growing
 * line's end, but once an open line stood still a whole look, at its
 * REPORT_HOLD_MS mark (a paused program: anything it does wakes the
 * loop before). */
static bool may_flush(struct waiting *w, bool quiet)
{
	off_t size;
	bool open = reports_midline(w->ri->reports, &size);

	w->looked = true;
	w->look_ms = REPORT_QUIET_MS;
	if (size < 0)
		return quiet || ms_since(&w->held_since) >= REPORT_HOLD_MS;
	long held = ms_since(&w->held_since);
	if (held >= REPORT_OPEN_LINE_MAX_MS)
		return true;
	bool moved = size != w->line_size;
	if (moved) {
		w->line_size = size;
		clock_gettime(CLOCK_MONOTONIC, &w->line_moved);
	}
	long still = ms_since(&w->line_moved);
	if ((quiet && !open) || still >= REPORT_HOLD_MS)
		return true;
	if (quiet && !moved) {
		long to_mark = REPORT_HOLD_MS - still, to_cap = REPORT_OPEN_LINE_MAX_MS - held;
		w->look_ms = (int)(to_mark < to_cap ? to_mark : to_cap);
	}
	return false;
}

/* poll()'s timeout: the soonest of the held lines', the proxy's timers'
 * and the notify layer's; -1 for none. */
static int wait_timeout(struct waiting *w)
{
	struct run_in *ri = w->ri;
	int timeout = -1;

	/* held report lines: written when may_flush() says (asked on a
	 * quiet wake-up already: its answer holds) */
	if (holding(w)) {
		if (!w->looked && may_flush(w, false))
			reports_flush(ri->reports);
		else
			timeout = w->look_ms;
	}
	w->looked = false;
	/* the proxy's own timers (handshake, connect, idle) */
	if (ri->net && (timeout < 0 || net_loop_timeout(ri->net) < timeout))
		timeout = net_loop_timeout(ri->net);
	/* a FIFO open waiting for its reader (notify.c) */
	if (ri->notify && notify_timeout(ri->notify) >= 0 &&
	    (timeout < 0 || notify_timeout(ri->notify) < timeout))
		timeout = notify_timeout(ri->notify);
	return timeout;
}

/* The proxy's loop, when its descriptor has events or its timers are
 * due: not at every wake-up (a notified call's would pay an epoll_wait()
 * that finds nothing). false: the run was stopped. */
static bool serve_net(struct waiting *w)
{
	struct run_in *ri = w->ri;

	if (!ri->net || (!w->pf[SLOT_NET].revents && net_loop_timeout(ri->net) != 0))
		return true;
	/* proxy events become report lines: held like the shim's */
	bool was = holding(w);
	int e = net_loop_run_once(ri->net, 0);
	if (e) {
		stop(w, false, "sandbox: the proxy failed: %s; stopping the run", strerror(-e));
		return false;
	}
	held_from_now(w, was);
	return true;
}

/* The proxy's descriptors into the wait's (net_loop_pollfds): its first
 * in SLOT_NET, any others after NSLOTS. The count to poll, 0 when there
 * is no memory for them. */
static size_t net_poll_set(struct waiting *w)
{
	struct pollfd *npf;
	int k = w->ri->net ? net_loop_pollfds(w->ri->net, &npf) : 0;

	w->pf[SLOT_NET] = k > 0 ? npf[0] : (struct pollfd){ -1, POLLIN, 0 };
	if (k <= 1)
		return NSLOTS;
	size_t n = NSLOTS + (size_t)k - 1;
	if (n > w->npf) {
		size_t cap = n * 2;
		struct pollfd *pf = malloc(cap * sizeof(*pf));
		if (!pf)
			return 0;
		memcpy(pf, w->pf, NSLOTS * sizeof(*pf));
		if (w->pf != w->slots)
			free(w->pf);
		w->pf = pf;
		w->npf = cap;
	}
	memcpy(w->pf + NSLOTS, npf + 1, ((size_t)k - 1) * sizeof(*npf));
	return n;
}

/* The notify layer's requests and timers. false: the run was stopped. */
static bool serve_notify(struct waiting *w)
{
	struct run_in *ri = w->ri;
	short revents = w->pf[SLOT_NOTIFY].revents;

	if (!ri->notify || (!revents && notify_timeout(ri->notify) < 0))
		return true;
	/* the notify layer's decisions become report lines too */
	bool was = holding(w);
	int e = notify_serve(ri->notify, revents & POLLIN);
	if (e) {
		stop(w, false, "sandbox: the seccomp notify listener failed: %s; stopping "
		     "the run", strerror(-e));
		return false;
	}
	held_from_now(w, was);
	/* Hung up: no process is under the filter any more (the last of
	 * COMMAND's and the holder were reaped; pid 1 is not under it), so
	 * no request can come. Polled still, it would wake this loop at once
	 * until "gone". */
	if (revents & (POLLHUP | POLLERR | POLLNVAL))
		w->pf[SLOT_NOTIFY].fd = -1;
	return true;
}

static void serve_reports(struct waiting *w)
{
	bool was = reports_pending(w->ri->reports);

	if (!drain_reports(w->ri, true))
		w->pf[SLOT_REPORTS].fd = -1;
	held_from_now(w, was);
}

/* One message of sbx-init's. false: the run was stopped. */
static bool serve_ctl(struct waiting *w, bool *ready)
{
	struct sandbox *sb = w->sb;
	struct run_in *ri = w->ri;
	bool had = w->ls.got;

	if (read_ctl(sb->ctl, &w->init_pid, &w->init_pidfd, &w->gone, &w->code, &w->ls,
		     w->notify_in, &w->notify_bad) < 0)
		w->pf[SLOT_CTL].fd = -1; /* closed: sbx-init is gone */
	/* The proxy's listeners: served, then sbx-init is told to go on and
	 * start COMMAND. Listeners we did not ask for, or "ready" without
	 * them, stop the run before COMMAND exists (sbx-init waits for our
	 * answer). */
	int e = 0;
	if (w->ls.got && !had)
		e = !ri->net ? -EPROTO : serve_listeners(ri, &w->ls);
	if (!e && w->ls.got && !had)
		e = ctl_send(sb->ctl, CTL_LISTENERS_SERVED, NULL, 0, NULL, 0);
	if (!e && w->ls.got && !had)
		w->serving = true;
	if (!e && ri->net && w->init_pid > 0 && !w->serving && !ri->served)
		e = -EPROTO;
	if (e) {
		stop(w, true, "sandbox set-up failed: the proxy's listeners from sbx-init: "
		     "%s; nothing was run", strerror(-e));
		return false;
	}
	/* The notify listener: served from now on. One we did not ask for, a
	 * malformed one, or "ready" without it stops the run: COMMAND's
	 * calls would wait for an answer no one gives. */
	if (w->notify_in[1] >= 0 && !w->attached && !w->notify_bad) {
		/* notify_attach owns both, also when it refuses */
		if (ri->notify && !notify_attach(ri->notify, w->notify_in[0], w->notify_in[1])) {
			w->pf[SLOT_NOTIFY].fd = notify_fd(ri->notify);
			w->attached = true;
		} else {
			if (!ri->notify) {
				close(w->notify_in[0]);
				close(w->notify_in[1]);
			}
			w->notify_bad = true;
		}
		w->notify_in[0] = w->notify_in[1] = -1;
	}
	if (w->notify_bad || (ri->notify && w->init_pid > 0 && !w->attached)) {
		stop(w, true, "sandbox set-up failed: the seccomp notify listener from "
		     "sbx-init: %s; nothing was run", strerror(EPROTO));
		return false;
	}
	if (w->init_pid > 0 && !*ready) {
		*ready = true;
		relay_start();
		/* brought to the foreground since "go" */
		if (sandbox_started_bg() && !relay_background())
			tell_cont(sb->ctl, true);
	}
	/* COMMAND stopped (Ctrl-Z on its terminal, a read in the background):
	 * the run stops as one job, and goes on at our SIGCONT */
	if (stopped_by && relay_on() && relay_stop(stopped_by))
		tell_cont(sb->ctl, true);
	stopped_by = 0;
	return true;
}

/* One signal from the signalfd. true: bubblewrap was reaped. */
static bool serve_signal(struct waiting *w, bool ready)
{
	struct sandbox *sb = w->sb;
	struct signalfd_siginfo si;

	if (read(sb->sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return false;
	int sig = (int)si.ssi_signo;
	if (sig == SIGCHLD) {
		if (waitpid(sb->pid, &w->status, WNOHANG) == sb->pid) {
			sb->pid = -1;
			return true;
		}
		return false;
	}
	if (!ready) {
		/* Nothing runs yet: a stop request ends the set-up. */
		if (sbx_terminating(sig) && !w->killed_by) {
			w->killed_by = sig;
			sandbox_kill(sb->pid);
		}
		return false;
	}
	/* The sandbox is a session of its own (sbx-init's setsid): nothing
	 * the person's terminal sends reaches COMMAND but through us. With
	 * its own terminal: the size onto it (the kernel signals its
	 * foreground), the signal keys of a terminal left cooked to its
	 * foreground, as that terminal's would; fg and bg told to sbx-init. */
	if (sig == SIGCONT) {
		bool fg;
		if (relay_continued(&fg))
			tell_cont(sb->ctl, fg);
		return false;
	}
	if (sig == SIGWINCH && relay_on()) {
		relay_winch();
		return false;
	}
	if ((sig == SIGTSTP || ((sig == SIGINT || sig == SIGQUIT) && si.ssi_code == SI_KERNEL)) &&
	    relay_signal(sig) == 0)
		return false;
	if (sig != SIGTSTP)
		relay(w->init_pid, w->init_pidfd, sig);
	return false;
}

/* The loop ended: the last messages and reports taken, everything of
 * the wait's closed; the exit status to give. */
static int wait_end(struct waiting *w, struct plan *pl, bool *ready)
{
	struct sandbox *sb = w->sb;
	struct run_in *ri = w->ri;

	/* bwrap ended first: sbx-init may have written before exiting. */
	while (!w->gone && !w->failed && w->pf[SLOT_CTL].fd >= 0 &&
	       read_ctl(sb->ctl, &w->init_pid, &w->init_pidfd, &w->gone, &w->code, &w->ls,
			w->notify_in, &w->notify_bad) > 0)
		;
	for (size_t i = 0; i < w->ls.nfds; i++)
		close(w->ls.fds[i]);
	/* a malformed "F" that never reached notify_attach */
	for (int i = 0; i < 2; i++)
		if (w->notify_in[i] >= 0)
			close(w->notify_in[i]);
	ri->stopped = w->failed;
	if (w->init_pidfd >= 0)
		close(w->init_pidfd);
	*ready = w->init_pid > 0;
	if (w->gone)
		plan_remove_placeholders(pl);
	/* Whatever the sandbox wrote before it ended. "gone" came after every
	 * process of the sandbox was reaped, so all of it is in the pipe. */
	if (ri->reports && w->pf[SLOT_REPORTS].fd >= 0)
		drain_reports(ri, false);
	/* the rest of COMMAND's output, then the person's terminal as it was,
	 * before any line of ours that follows (the summary) */
	relay_end();
	close(sb->sfd);
	close(sb->ctl);
	sb->sfd = sb->ctl = -1;
	sigprocmask(SIG_SETMASK, &sb->orig, NULL);
	if (w->gone)
		return w->code;
	if (w->failed)
		return SBX_EXIT_SETUP;
	/* we stopped the set-up for this signal: that is the answer, even if
	 * sbx-init's "ready" came in meanwhile (bubblewrap's own status is
	 * our SIGKILL) */
	if (w->killed_by)
		return 128 + w->killed_by;
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return WEXITSTATUS(w->status);
}

int sandbox_wait(struct sandbox *sb, struct plan *pl, struct run_in *ri, bool *ready)
{
	struct waiting w = { .sb = sb, .ri = ri, .init_pidfd = -1, .notify_in = { -1, -1 } };

	w.pf = w.slots;
	w.npf = NSLOTS;

	*ready = false;
	ri->stopped = false;
	for (size_t i = 0; i < NSLOTS; i++)
		w.pf[i] = (struct pollfd){ -1, POLLIN, 0 };
	w.pf[SLOT_SIGNALS].fd = sb->sfd;
	w.pf[SLOT_CTL].fd = sb->ctl;
	w.pf[SLOT_REPORTS].fd = ri->reports ? ri->report_fd : -1;
	while (!w.gone) {
		int timeout = wait_timeout(&w);
		relay_poll_set(w.pf + SLOT_RELAY);
		w.pf[SLOT_ROOM] = (struct pollfd){ ri->reports ? reports_room_fd(ri->reports) : -1,
						   POLLOUT, 0 };
		size_t n = net_poll_set(&w);
		if (!n) {
			stop(&w, false, "sandbox: waiting failed: %s; stopping it", strerror(ENOMEM));
			break;
		}
		int np = poll(w.pf, n, timeout);
		for (size_t i = NSLOTS; np > 0 && i < n; i++)
			w.pf[SLOT_NET].revents |= w.pf[i].revents;
		if (np < 0) {
			if (errno == EINTR)
				continue;
			/* never a status 0 for a run we lost track of */
			stop(&w, false, "sandbox: waiting failed: %s; stopping it", strerror(errno));
			break;
		}
		if (np > 0)
			relay_poll_run(w.pf + SLOT_RELAY);
		if (w.pf[SLOT_ROOM].revents)
			reports_flush(ri->reports);
		if (!serve_net(&w) || !serve_notify(&w))
			break;
		/* quiet: written, unless the program's own line in a
		 * shared file is still open (may_flush()) */
		if (np == 0 && ri->reports) {
			if (!holding(&w) || may_flush(&w, true))
				reports_flush(ri->reports);
			continue;
		}
		if (w.pf[SLOT_REPORTS].revents)
			serve_reports(&w);
		if (w.pf[SLOT_CTL].revents && !serve_ctl(&w, ready))
			break;
		if (!w.gone && w.pf[SLOT_SIGNALS].revents && serve_signal(&w, *ready))
			break;
	}
	int rc = wait_end(&w, pl, ready);
	if (w.pf != w.slots)
		free(w.pf);
	return rc;
}
