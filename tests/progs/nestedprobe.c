/* tests/progs/nestedprobe.c: what tests/integration/nested.sh asks a static
 * program to do under the nested mode (built there with cc -static, so the
 * preload shim cannot be what refuses it: Landlock and the seccomp table
 * are). Each mode prints one line: what it got, or the errno's name.
 *   nestedprobe read PATH          print the file's first line
 *   nestedprobe write PATH TEXT    create or truncate PATH, write TEXT
 *   nestedprobe append PATH TEXT   append TEXT to an existing PATH
 *   nestedprobe connect PORT       TCP connect to 127.0.0.1:PORT
 *   nestedprobe udp PORT           a UDP datagram to 127.0.0.1:PORT
 *   nestedprobe abstract NAME      connect to the abstract Unix socket @NAME
 *   nestedprobe kill PID           SIGTERM to PID
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(const char *what)
{
	static const struct { int e; const char *name; } names[] = {
		{ EACCES, "EACCES" }, { EPERM, "EPERM" }, { EROFS, "EROFS" },
		{ ENOENT, "ENOENT" }, { ECONNREFUSED, "ECONNREFUSED" },
	};
	int e = errno;

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (names[i].e == e) {
			printf("%s: %s\n", what, names[i].name);
			return 1;
		}
	printf("%s: errno %d\n", what, e);
	return 1;
}

static int put(const char *path, const char *text, int flags)
{
	int fd = open(path, flags | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return fail("open");
	if (write(fd, text, strlen(text)) < 0)
		return fail("write");
	close(fd);
	printf("written\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "read")) {
		char buf[256] = "";
		FILE *f = fopen(argv[2], "re");
		if (!f)
			return fail("open");
		if (!fgets(buf, sizeof(buf), f))
			return fail("read");
		printf("read: %s", buf);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "write"))
		return put(argv[2], argv[3], O_CREAT | O_TRUNC);
	if (argc == 4 && !strcmp(argv[1], "append"))
		return put(argv[2], argv[3], O_APPEND);
	if (argc == 3 && !strcmp(argv[1], "connect")) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[2])),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0)
			return fail("socket");
		if (connect(s, (struct sockaddr *)&a, sizeof(a)))
			return fail("connect");
		printf("connected\n");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "udp")) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[2])),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		if (s < 0)
			return fail("socket");
		if (sendto(s, "udp-canary", 10, 0, (struct sockaddr *)&a, sizeof(a)) < 0)
			return fail("sendto");
		printf("sent\n");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "abstract")) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		size_t n = strlen(argv[2]);
		if (s < 0)
			return fail("socket");
		memcpy(a.sun_path + 1, argv[2], n);
		if (connect(s, (struct sockaddr *)&a, (socklen_t)(sizeof(sa_family_t) + 1 + n)))
			return fail("connect");
		printf("connected\n");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "kill")) {
		if (kill(atoi(argv[2]), SIGTERM))
			return fail("kill");
		printf("killed\n");
		return 0;
	}
	fprintf(stderr, "usage: see tests/progs/nestedprobe.c\n");
	return 2;
}
