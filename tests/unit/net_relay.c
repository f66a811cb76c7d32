/* tests/unit/net_relay.c: the proxy's relay (net/loop.c), end to end in
 * one process: the loop in a thread of its own, a CONNECT tunnel through
 * its HTTP listener to a server of the test's on loopback, and every byte
 * checked against the pattern it was sent as. Each test runs the loop
 * twice: as built (on Linux, a busy direction moves to splice(2) after
 * 64 KiB) and with no_splice (the bounded queue alone, which is all the
 * portable build has: net/compat.h, make check-portable). What they
 * show: megabytes both ways arrive whole and in order, either side's
 * half-close reaches the other while the other direction still flows, a
 * client that stops reading stops the server with a bounded amount in
 * between, and a client gone mid-transfer ends the server's side too,
 * also where a send into its socket is EPIPE (no SIGPIPE: NET_NOSIGNAL,
 * net/compat.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tests/unit/helpers.h"
#include "net/net.h"

/* A Mac has no MSG_NOSIGNAL: the test's sockets take SO_NOSIGPIPE instead
 * (nosigpipe(), where each is made or accepted) */
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif
static void nosigpipe(int fd)
{
#ifdef SO_NOSIGPIPE
	int one = 1;
	cr_assert_eq(setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one)), 0);
#else
	(void)fd;
#endif
}

#define MiB (1u << 20)
#define IO_TIMEOUT_S 30 /* a blocked call fails the test rather than hang it */

/* ---- the bytes: the stream's byte i is a function of (seed, i), so a
 * byte lost, doubled, moved or changed anywhere is seen where it lands */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void pattern(uint32_t seed, uint64_t off, unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t at = off + i;
		b[i] = (unsigned char)(mix(((uint64_t)seed << 40) ^ (at >> 3)) >> ((at & 7) * 8));
	}
}

/* n bytes of stream `seed` from offset *off onwards, sent whole: 0, or
 * the errno of the send that failed (the helpers assert nothing: the
 * servers' threads call them, and only the test's own may assert) */
static int send_pattern(int fd, uint32_t seed, uint64_t *off, uint64_t n)
{
	unsigned char b[65536];
	while (n) {
		size_t k = n < sizeof(b) ? (size_t)n : sizeof(b);
		pattern(seed, *off, b, k);
		for (size_t done = 0; done < k;) {
			ssize_t w = send(fd, b + done, k - done, MSG_NOSIGNAL);
			if (w <= 0)
				return w < 0 ? errno : EPIPE;
			done += (size_t)w;
			*off += (uint64_t)w;
		}
		n -= k;
	}
	return 0;
}

/* Bytes read until EOF, each compared with stream `seed` from offset 0,
 * counted in *got: 0 at the EOF, EILSEQ at the first read holding a byte
 * that differs (*got: where that read began), else the errno of the
 * read that failed. */
static int recv_pattern(int fd, uint32_t seed, uint64_t *got)
{
	unsigned char b[65536], want[65536];
	*got = 0;
	for (;;) {
		ssize_t r = recv(fd, b, sizeof(b), 0);
		if (r < 0)
			return errno;
		if (!r)
			return 0;
		pattern(seed, *got, want, (size_t)r);
		if (memcmp(b, want, (size_t)r))
			return EILSEQ;
		*got += (uint64_t)r;
	}
}

/* what ended a recv_pattern() */
static const char *ended(int err)
{
	return !err ? "EOF" : err == EILSEQ ? "a byte not as sent" : strerror(err);
}

static void timeouts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static void small_buffers(int fd)
{
	int sz = 65536;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
}

static int listen_local(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert(s >= 0 && !bind(s, (struct sockaddr *)&a, sizeof(a)) && !listen(s, 8));
	cr_assert(!getsockname(s, (struct sockaddr *)&a, &al));
	*port = ntohs(a.sin_port);
	return s;
}

/* ---- the proxy: its loop in a thread, served until stopped */

struct proxy {
	struct policy *pol;
	struct net_loop *l;
	pthread_t th;
	atomic_bool stop;
	unsigned port; /* its HTTP listener */
};

static void *serve(void *arg)
{
	struct proxy *px = arg;
	while (!atomic_load(&px->stop))
		net_loop_run_once(px->l, 20);
	return NULL;
}

static void proxy_start(struct proxy *px, unsigned server_port, bool no_splice)
{
	char ini[100];
	snprintf(ini, sizeof(ini), "[network]\nallow_domains = 127.0.0.1:%u\n", server_port);
	struct net_cfg cfg = { .no_splice = no_splice };
	px->pol = compile_ini(ini);
	cr_assert_eq(net_loop_new(px->pol, &cfg, &px->l), 0);
	int fd = listen_local(&px->port);
	cr_assert_eq(net_loop_add_listener(px->l, fd, NET_LISTEN_HTTP), 0);
	atomic_init(&px->stop, false);
	cr_assert_eq(pthread_create(&px->th, NULL, serve, px), 0);
}

/* the loop stopped and freed; the connections it still held then */
static size_t proxy_stop(struct proxy *px)
{
	atomic_store(&px->stop, true);
	pthread_join(px->th, NULL);
	size_t n = net_loop_conns(px->l);
	net_loop_free(px->l);
	policy_free(px->pol);
	return n;
}

/* A client of the proxy, tunnelled to 127.0.0.1:port (small buffers:
 * what is held on the way is the proxy's, not the client's). */
static int tunnel(const struct proxy *px, unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons((uint16_t)px->port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char req[100], head[200];
	size_t n = 0;

	cr_assert(fd >= 0);
	nosigpipe(fd);
	small_buffers(fd);
	timeouts(fd);
	cr_assert(!connect(fd, (struct sockaddr *)&a, sizeof(a)), "%s", strerror(errno));
	int len = snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n", port);
	cr_assert_eq(send(fd, req, (size_t)len, 0), len);
	/* the answer head, a byte at a time: what follows it is the server's */
	while (n < sizeof(head) - 1 && (n < 4 || memcmp(head + n - 4, "\r\n\r\n", 4))) {
		cr_assert_eq(recv(fd, head + n, 1, 0), 1, "the proxy's answer ended early");
		n++;
	}
	head[n] = '\0';
	cr_assert(!strncmp(head, "HTTP/1.1 200 ", 13), "%s", head);
	return fd;
}

/* ---- the servers: one connection each, in a thread */

enum role { ECHO, SINK_THEN_ANSWER, GREET_THEN_SINK, FIREHOSE, SINK_THEN_FIREHOSE };

struct server {
	int ls;
	unsigned port;
	enum role role;
	uint64_t n;             /* FIREHOSE, *_THEN_*: bytes to send */
	uint64_t got;           /* *_THEN_*: the client's bytes received, as sent */
	int recv_err, send_err; /* recv_pattern's, send_pattern's (0, EILSEQ, errno) */
	atomic_ullong sent;     /* FIREHOSE: bytes the kernel took so far */
	pthread_t th;
};

#define CLIENT_SEED 1
#define SERVER_SEED 2

static void *server_run(void *arg)
{
	struct server *s = arg;
	int fd = accept(s->ls, NULL, NULL);
	if (fd >= 0)
		nosigpipe(fd);
	uint64_t off = 0;
	unsigned char b[65536];

	if (fd < 0) {
		s->recv_err = s->send_err = errno;
		return NULL;
	}
	timeouts(fd);
	switch (s->role) {
	case ECHO: /* back as it comes, then our EOF after theirs */
		for (;;) {
			ssize_t r = recv(fd, b, sizeof(b), 0);
			if (r <= 0) {
				s->recv_err = r < 0 ? errno : 0;
				break;
			}
			for (ssize_t done = 0; done < r && !s->send_err;) {
				ssize_t w = send(fd, b + done, (size_t)(r - done), MSG_NOSIGNAL);
				if (w <= 0)
					s->send_err = w < 0 ? errno : EPIPE;
				done += w;
			}
		}
		shutdown(fd, SHUT_WR);
		break;
	case SINK_THEN_ANSWER: /* all of theirs to EOF, then ours */
		s->recv_err = recv_pattern(fd, CLIENT_SEED, &s->got);
		s->send_err = send_pattern(fd, SERVER_SEED, &off, s->n);
		break;
	case GREET_THEN_SINK: /* ours and our EOF, then all of theirs */
		s->send_err = send_pattern(fd, SERVER_SEED, &off, s->n);
		shutdown(fd, SHUT_WR);
		s->recv_err = recv_pattern(fd, CLIENT_SEED, &s->got);
		break;
	case SINK_THEN_FIREHOSE: /* theirs to EOF, then as FIREHOSE */
		while ((s->recv_err = (int)recv(fd, b, sizeof(b), 0)) > 0)
			;
		s->recv_err = s->recv_err < 0 ? errno : 0;
		/* fall through */
	case FIREHOSE: /* n bytes as fast as taken, counted */
		small_buffers(fd);
		while (off < s->n) {
			size_t k = s->n - off < sizeof(b) ? (size_t)(s->n - off) : sizeof(b);
			pattern(SERVER_SEED, off, b, k);
			ssize_t w = send(fd, b, k, MSG_NOSIGNAL);
			if (w <= 0) {
				s->send_err = w < 0 ? errno : EPIPE;
				break;
			}
			off += (uint64_t)w;
			atomic_store(&s->sent, off);
		}
		break;
	}
	close(fd);
	return NULL;
}

static void server_start(struct server *s, enum role role, uint64_t n)
{
	s->ls = listen_local(&s->port);
	s->role = role;
	s->n = n;
	atomic_init(&s->sent, 0);
	cr_assert_eq(pthread_create(&s->th, NULL, server_run, s), 0);
}

static void server_join(struct server *s)
{
	pthread_join(s->th, NULL);
	close(s->ls);
}

/* ---- the tests */

/* 12 MiB each way at once (sent while the echo is read), then the
 * client's half-close: the echo server sees the EOF only once every byte
 * before it is through, answers with its own, and the client reads the
 * whole echo to that EOF. */
static void both_ways(bool no_splice)
{
	struct server s = { 0 };
	struct proxy px = { 0 };
	const uint64_t n = 12 * MiB;

	server_start(&s, ECHO, 0);
	proxy_start(&px, s.port, no_splice);
	int fd = tunnel(&px, s.port);
	unsigned char b[65536], want[65536];
	uint64_t out = 0, in = 0;
	bool shut = false;

	while (!shut || in < n) {
		struct pollfd pf = { .fd = fd, .events = POLLIN | (shut ? 0 : POLLOUT) };
		cr_assert(poll(&pf, 1, IO_TIMEOUT_S * 1000) > 0, "stuck: %llu out, %llu in",
			  (unsigned long long)out, (unsigned long long)in);
		if (pf.revents & POLLIN) {
			ssize_t r = recv(fd, b, sizeof(b), MSG_DONTWAIT);
			cr_assert(r > 0, "the echo ended after %llu of %llu bytes",
				  (unsigned long long)in, (unsigned long long)n);
			pattern(CLIENT_SEED, in, want, (size_t)r);
			cr_assert(!memcmp(b, want, (size_t)r), "the echo differs within bytes "
				  "%llu..%llu", (unsigned long long)in,
				  (unsigned long long)(in + (uint64_t)r));
			in += (uint64_t)r;
		}
		if (!shut && (pf.revents & POLLOUT)) {
			size_t k = n - out < sizeof(b) ? (size_t)(n - out) : sizeof(b);
			pattern(CLIENT_SEED, out, b, k);
			ssize_t w = send(fd, b, k, MSG_DONTWAIT | MSG_NOSIGNAL);
			cr_assert(w >= 0 || errno == EAGAIN, "%s", strerror(errno));
			out += w > 0 ? (uint64_t)w : 0;
			if (out == n) {
				shutdown(fd, SHUT_WR);
				shut = true;
			}
		}
	}
	cr_assert_eq(in, n);
	cr_assert_eq(recv(fd, b, 1, 0), 0, "the server's EOF did not follow the echo");
	close(fd);
	server_join(&s);
	proxy_stop(&px);
	cr_assert(!s.recv_err && !s.send_err, "the echo server: %s / %s", strerror(s.recv_err),
		  strerror(s.send_err));
}

Test(net_relay, megabytes_both_ways_then_the_clients_eof_are_exact)
{
	both_ways(false);
}

Test(net_relay, megabytes_both_ways_then_the_clients_eof_are_exact_without_splice)
{
	both_ways(true);
}

/* The client sends 5 MiB and half-closes; the server reads to that EOF
 * (it could not, were the EOF lost or early), then answers 7 MiB over the
 * half-closed tunnel; then the other way round: the server's greeting and
 * EOF first, the client's upload after it. */
static void half_close(bool no_splice, bool client_first)
{
	struct server s = { 0 };
	struct proxy px = { 0 };
	const uint64_t up = 5 * MiB, down = 7 * MiB;
	uint64_t off = 0;

	server_start(&s, client_first ? SINK_THEN_ANSWER : GREET_THEN_SINK, down);
	proxy_start(&px, s.port, no_splice);
	int fd = tunnel(&px, s.port);
	uint64_t got;
	int rerr, serr;
	if (client_first) {
		serr = send_pattern(fd, CLIENT_SEED, &off, up);
		shutdown(fd, SHUT_WR);
		rerr = recv_pattern(fd, SERVER_SEED, &got);
	} else {
		rerr = recv_pattern(fd, SERVER_SEED, &got);
		serr = send_pattern(fd, CLIENT_SEED, &off, up);
		shutdown(fd, SHUT_WR);
	}
	close(fd);
	server_join(&s);
	proxy_stop(&px);
	cr_assert(!s.recv_err && s.got == up, "the server got %llu of the client's %llu bytes, "
		  "then %s", (unsigned long long)s.got, (unsigned long long)up,
		  ended(s.recv_err));
	cr_assert(!rerr && got == down, "the client got %llu of the server's %llu bytes, then %s",
		  (unsigned long long)got, (unsigned long long)down, ended(rerr));
	cr_assert(!serr && !s.send_err, "send: client %s, server %s", strerror(serr),
		  strerror(s.send_err));
}

Test(net_relay, the_clients_half_close_reaches_the_server_and_the_answer_follows)
{
	half_close(false, true);
}

Test(net_relay, the_clients_half_close_reaches_the_server_and_the_answer_follows_without_splice)
{
	half_close(true, true);
}

Test(net_relay, the_servers_half_close_reaches_the_client_and_the_upload_follows)
{
	half_close(false, false);
}

Test(net_relay, the_servers_half_close_reaches_the_client_and_the_upload_follows_without_splice)
{
	half_close(true, false);
}

/* the most a connection can hold between a server and a client that
 * stops reading: the kernel's socket buffers on the way (the proxy's
 * receive buffer from the server and send buffer to the client, as
 * large as autotuning lets them grow) and the proxy's own queue or pipe
 * (at most 1 MiB) */
static uint64_t in_flight_bound(void)
{
	unsigned long r[3] = { 0 }, w[3] = { 0 };
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_rmem", "r");
	if (f) {
		if (fscanf(f, "%lu %lu %lu", &r[0], &r[1], &r[2]) != 3)
			r[2] = 0;
		fclose(f);
	}
	f = fopen("/proc/sys/net/ipv4/tcp_wmem", "r");
	if (f) {
		if (fscanf(f, "%lu %lu %lu", &w[0], &w[1], &w[2]) != 3)
			w[2] = 0;
		fclose(f);
	}
	if (!r[2] || !w[2])
		r[2] = w[2] = 8 * MiB;
	/* the test's two small buffers, the kernel's doubling of them */
	return 2 * ((uint64_t)r[2] + w[2]) + 2 * MiB;
}

/* The server would send bound + 16 MiB; the client reads nothing. The
 * server is stopped short of it (its send() blocks: back-pressure) with
 * at most the bound taken; then the client reads it all, exact. */
static void stalled_reader(bool no_splice)
{
	struct server s = { 0 };
	struct proxy px = { 0 };
	const uint64_t bound = in_flight_bound(), n = bound + 16 * MiB;

	server_start(&s, FIREHOSE, n);
	proxy_start(&px, s.port, no_splice);
	int fd = tunnel(&px, s.port);
	/* the stall: what the server got taken stops growing. A second with
	 * no progress is taken as stopped; on a machine too busy to move a
	 * byte in a second the count is lower, never higher, so this waits
	 * for a state and asserts no speed. */
	unsigned long long last = 0, now;
	for (int quiet = 0; quiet < 10;) {
		usleep(100 * 1000);
		now = atomic_load(&s.sent);
		quiet = now == last ? quiet + 1 : 0;
		last = now;
		cr_assert(now < n, "the server sent all %llu bytes to a client reading "
			  "none: nothing held it back", now);
	}
	cr_assert(last <= bound, "%llu bytes taken from the server for a client reading "
		  "none (bound %llu)", last, (unsigned long long)bound);
	cr_assert(last > 0);
	/* the client reads again: everything, in order */
	uint64_t got;
	int rerr = recv_pattern(fd, SERVER_SEED, &got);
	close(fd);
	server_join(&s);
	proxy_stop(&px);
	cr_assert(!rerr && got == n, "the client got %llu of %llu bytes, then %s",
		  (unsigned long long)got, (unsigned long long)n, ended(rerr));
	cr_assert(!s.send_err, "%s", strerror(s.send_err));
	cr_log_info("stalled after %llu bytes (bound %llu)", last, (unsigned long long)bound);
}

Test(net_relay, a_client_that_stops_reading_stops_the_server_and_loses_nothing)
{
	stalled_reader(false);
}

Test(net_relay, a_client_that_stops_reading_stops_the_server_and_loses_nothing_without_splice)
{
	stalled_reader(true);
}

/* A client reset in the middle of a download: the proxy closes the
 * server's side (its send() fails, it does not wait forever) and holds
 * no connection after it. */
static void gone_mid_transfer(bool no_splice)
{
	struct server s = { 0 };
	struct proxy px = { 0 };

	server_start(&s, FIREHOSE, UINT64_MAX / 2);
	proxy_start(&px, s.port, no_splice);
	int fd = tunnel(&px, s.port);
	unsigned char b[65536];
	uint64_t in = 0;
	while (in < 3 * MiB) { /* past the first 64 KiB: spliced if it ever is */
		ssize_t r = recv(fd, b, sizeof(b), 0);
		cr_assert(r > 0);
		in += (uint64_t)r;
	}
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd); /* a reset, with the proxy's buffers full */
	server_join(&s);
	cr_assert(s.send_err == EPIPE || s.send_err == ECONNRESET,
		  "the server's send ended with %s", strerror(s.send_err));
	cr_assert_eq(proxy_stop(&px), 0, "the proxy still holds the connection");
}

Test(net_relay, a_client_gone_mid_transfer_ends_the_servers_side)
{
	gone_mid_transfer(false);
}

Test(net_relay, a_client_gone_mid_transfer_ends_the_servers_side_without_splice)
{
	gone_mid_transfer(true);
}

/* A client that sends its bytes and closes (a FIN: nothing unread) before
 * the answer: its EOF reaches the server, which only then sends, without
 * end. The proxy's first send to the closed client draws a reset, in the
 * state where the next one is EPIPE (CLOSE_WAIT): it must take that as
 * the end (the server's send fails), never as a SIGPIPE. */
Test(net_relay, a_client_closed_before_the_answer_ends_the_servers_side)
{
	struct server s = { 0 };
	struct proxy px = { 0 };

	signal(SIGPIPE, SIG_DFL); /* the proxy's process need not ignore it */
	server_start(&s, SINK_THEN_FIREHOSE, UINT64_MAX / 2);
	proxy_start(&px, s.port, true);
	int fd = tunnel(&px, s.port);
	cr_assert_eq(send(fd, "hello", 5, 0), 5);
	close(fd);
	server_join(&s);
	cr_assert_eq(s.recv_err, 0, "the server's read ended with %s", strerror(s.recv_err));
	cr_assert(s.send_err == EPIPE || s.send_err == ECONNRESET,
		  "the server's send ended with %s", strerror(s.send_err));
	cr_assert_eq(proxy_stop(&px), 0, "the proxy still holds the connection");
}
