/*
 * bench/relay-floor: the least a relay can do, as a reference for
 * bench/runtimes. It accepts on 127.0.0.1 (an ephemeral port, written to
 * the file named by argv[2]), dials 127.0.0.1:argv[1] for each client, and
 * moves the bytes with splice(2) through a 1 MiB pipe per direction, one
 * blocking thread per direction: no sandbox, no policy, no handshake, no
 * event loop. What it reaches is what any user-space relay between two
 * loopback TCP connections can reach on the machine; sbx-preload's proxy is
 * that plus the CONNECT handshake, the policy and the sandbox.
 *
 *   relay-floor TARGET_PORT PORT_FILE
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

struct dir {
	int from, to;
};

static void *pump(void *arg)
{
	struct dir *d = arg;
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		goto out;
	(void)fcntl(p[1], F_SETPIPE_SZ, 1 << 20); /* as sbx's bulk tunnels */
	for (;;) {
		ssize_t n = splice(d->from, NULL, p[1], NULL, 1 << 20, SPLICE_F_MOVE);
		if (n <= 0)
			break;
		while (n > 0) {
			ssize_t m = splice(p[0], NULL, d->to, NULL, (size_t)n, SPLICE_F_MOVE);
			if (m <= 0)
				goto done;
			n -= m;
		}
	}
done:
	close(p[0]);
	close(p[1]);
out:
	shutdown(d->to, SHUT_WR);
	return NULL;
}

static void *serve(void *arg)
{
	int c = (int)(long)arg, t = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	const char *port = getenv("RELAY_FLOOR_TARGET");

	a.sin_port = htons((unsigned short)atoi(port));
	if (t >= 0 && connect(t, (struct sockaddr *)&a, sizeof a) == 0) {
		struct dir up = { c, t }, down = { t, c };
		pthread_t u;

		if (pthread_create(&u, NULL, pump, &up) == 0) {
			pump(&down);
			pthread_join(u, NULL);
		}
	}
	if (t >= 0)
		close(t);
	close(c);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: relay-floor TARGET_PORT PORT_FILE\n");
		return 2;
	}
	setenv("RELAY_FLOOR_TARGET", argv[1], 1);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 128) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0) {
		perror("relay-floor: listen");
		return 1;
	}
	f = fopen(argv[2], "w");
	if (!f || fprintf(f, "%d\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0) {
		perror(argv[2]);
		return 1;
	}
	for (;;) {
		int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		pthread_t t;

		if (c < 0)
			continue;
		if (pthread_create(&t, NULL, serve, (void *)(long)c) != 0)
			close(c);
		else
			pthread_detach(t);
	}
}
