/* tests/progs/netclient.c: a static client that resolves a name by itself
 * and connects, as a Go or musl program does (notify.sh builds it static
 * and runs it without the shim): the name through /etc/resolv.conf's first
 * nameserver (a raw A query over UDP) or getaddrinfo(), then a TCP connect
 * to the answer, blocking or not, then what the server sends.
 *   netclient dns|gai NAME|ADDRESS PORT [block|nonblock|unspec]
 * (unspec: blocking, then connect(AF_UNSPEC) on the connected socket;
 * fastopen=PORT: blocking, then, once the server has closed, two
 * sendto(MSG_FASTOPEN) to 127.0.0.1:PORT, which on a socket the kernel
 * takes for unconnected would connect it there)
 * Prints: ANSWER <address> / CONNECT ok|<strerror> / GOT <bytes> */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int nameserver(struct in_addr *ns)
{
	char line[256];
	FILE *f = fopen("/etc/resolv.conf", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char addr[64];
		if (sscanf(line, "nameserver %63s", addr) == 1 && inet_pton(AF_INET, addr, ns) == 1) {
			fclose(f);
			return 0;
		}
	}
	if (f)
		fclose(f);
	return -1;
}

static int by_dns(const char *name, struct in_addr *out)
{
	unsigned char q[512] = { 0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0 }, r[512];
	char copy[256];
	size_t o = 12;
	struct sockaddr_in ns = { .sin_family = AF_INET, .sin_port = htons(53) };

	if (inet_pton(AF_INET, name, out) == 1)
		return 0; /* an address: no lookup */
	if (nameserver(&ns.sin_addr))
		return -1;
	snprintf(copy, sizeof(copy), "%s", name);
	for (char *s = strtok(copy, "."); s; s = strtok(NULL, ".")) {
		q[o++] = (unsigned char)strlen(s);
		memcpy(q + o, s, strlen(s));
		o += strlen(s);
	}
	q[o++] = 0; q[o++] = 0; q[o++] = 1; q[o++] = 0; q[o++] = 1;
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	struct timeval tv = { 5, 0 };
	setsockopt(u, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	sendto(u, q, o, 0, (struct sockaddr *)&ns, sizeof(ns));
	ssize_t n = recv(u, r, sizeof(r), 0);
	close(u);
	if (n < (ssize_t)o + 16 || r[7] != 1)
		return -1;
	memcpy(out, r + o + 12, 4);
	return 0;
}

static int by_gai(const char *name, struct in_addr *out)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;

	if (getaddrinfo(name, NULL, &hints, &ai))
		return -1;
	*out = ((struct sockaddr_in *)ai->ai_addr)->sin_addr;
	freeaddrinfo(ai);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char buf[4096];

	if (argc < 4)
		return 2;
	setvbuf(stdout, NULL, _IONBF, 0);
	if ((!strcmp(argv[1], "gai") ? by_gai : by_dns)(argv[2], &a.sin_addr)) {
		printf("NOANSWER\n");
		return 1;
	}
	printf("ANSWER %s\n", inet_ntoa(a.sin_addr));
	a.sin_port = htons((unsigned short)atoi(argv[3]));
	bool nb = argc > 4 && !strcmp(argv[4], "nonblock");
	int s = socket(AF_INET, SOCK_STREAM | (nb ? SOCK_NONBLOCK : 0), 0);
	int rc = connect(s, (struct sockaddr *)&a, sizeof(a));
	if (rc && nb && errno == EINPROGRESS) {
		struct pollfd p = { s, POLLOUT, 0 };
		int err = 0;
		socklen_t el = sizeof(err);
		printf("INPROGRESS\n");
		poll(&p, 1, 10000);
		getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el);
		rc = err ? -1 : 0;
		errno = err;
	}
	if (rc) {
		printf("CONNECT %s\n", strerror(errno));
		return 1;
	}
	printf("CONNECT ok\n");
	if (argc > 4 && !strcmp(argv[4], "unspec")) {
		/* a socket connected outside may not be disconnected (and then
		 * reconnected, or made to listen, in the host's namespace) */
		struct sockaddr un = { .sa_family = AF_UNSPEC };
		printf("DISCONNECT %s\n", connect(s, &un, sizeof(un)) ? strerror(errno) : "ok");
	}
	if (nb) {
		int fl = fcntl(s, F_GETFL);
		printf("NONBLOCK %s\n", fl & O_NONBLOCK ? "kept" : "lost");
		fcntl(s, F_SETFL, fl & ~O_NONBLOCK);
	}
	send(s, "hello\n", 6, MSG_NOSIGNAL);
	shutdown(s, SHUT_WR);
	size_t got = 0;
	ssize_t n;
	while (got < sizeof(buf) - 1 && (n = read(s, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	printf("GOT %s\n", buf);
	if (argc > 4 && !strncmp(argv[4], "fastopen=", 9)) {
		struct sockaddr_in to = { .sin_family = AF_INET,
					  .sin_port = htons((unsigned short)atoi(argv[4] + 9)) };
		inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
		usleep(200000); /* the close handshake ends: the socket is TCP_CLOSE */
		for (int i = 1; i <= 2; i++) {
			ssize_t r = sendto(s, "x", 1, MSG_FASTOPEN | MSG_NOSIGNAL,
					   (struct sockaddr *)&to, sizeof(to));
			printf("FASTOPEN%d %s\n", i, r < 0 ? strerror(errno) : "sent");
		}
	}
	return 0;
}
