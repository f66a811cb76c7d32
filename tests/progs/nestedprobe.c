/* tests/progs/nestedprobe.c: what tests/integration/nested.sh asks a static
 * program to do under the nested mode (built there with cc -static, so the
 * preload shim cannot be what refuses it: Landlock and the seccomp table
 * are). Each mode prints one line: what it got, or the errno's name.
 *   nestedprobe read PATH          print the file's first line
 *   nestedprobe write PATH TEXT    create or truncate PATH, write TEXT
 *   nestedprobe append PATH TEXT   append TEXT to an existing PATH
 *   nestedprobe connect PORT [IP]  TCP connect to 127.0.0.1:PORT (or IP:PORT)
 *   nestedprobe udp PORT           a UDP datagram to 127.0.0.1:PORT
 *   nestedprobe abstract NAME      connect to the abstract Unix socket @NAME
 *   nestedprobe kill PID           SIGTERM to PID
 *   nestedprobe truncate PATH      truncate(2) PATH to 0 bytes
 *   nestedprobe otrunc PATH MODE   open PATH with O_TRUNC and access mode
 *                                  MODE (0 O_RDONLY, 1, 2, 3), by openat
 *   nestedprobe openat2 PATH       openat2(O_RDONLY|O_TRUNC) on PATH
 *   nestedprobe socket D T P       socket(D, T, P), numbers
 *   nestedprobe xattr PATH NAME V  setxattr(2) NAME = V on PATH (raw call)
 *   nestedprobe fxattr PATH NAME V fsetxattr(2) on PATH opened read-only
 *   nestedprobe link OLD NEW       link(2) OLD to NEW, then NEW's first line
 *   nestedprobe chmod HOW PATH MODE  a mode (octal) by HOW: path (chmod),
 *                                  nofollow (fchmodat2 AT_SYMLINK_NOFOLLOW),
 *                                  fd (fchmod on an O_RDONLY descriptor),
 *                                  opath (fchmodat2 "" AT_EMPTY_PATH on an
 *                                  O_PATH one), proc (chmod /proc/self/fd/N
 *                                  of an O_PATH one)
 *   nestedprobe chown HOW PATH     our own uid and gid (what any user may
 *                                  ask) by HOW: path, nofollow (lchown),
 *                                  fd (fchown), opath (fchownat "" AT_EMPTY_PATH)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(const char *what)
{
	static const struct { int e; const char *name; } names[] = {
		{ EACCES, "EACCES" }, { EPERM, "EPERM" }, { EROFS, "EROFS" },
		{ ENOENT, "ENOENT" }, { ECONNREFUSED, "ECONNREFUSED" },
		{ ENOSYS, "ENOSYS" }, { EPROTONOSUPPORT, "EPROTONOSUPPORT" },
		{ EAFNOSUPPORT, "EAFNOSUPPORT" }, { ESOCKTNOSUPPORT, "ESOCKTNOSUPPORT" },
		{ EINVAL, "EINVAL" }, { EXDEV, "EXDEV" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ EBADF, "EBADF" },
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
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "connect")) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[2])),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (argc == 4 && inet_pton(AF_INET, argv[3], &a.sin_addr) != 1)
			return 2;
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
	if (argc == 3 && !strcmp(argv[1], "truncate")) {
		if (truncate(argv[2], 0))
			return fail("truncate");
		printf("truncated\n");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "otrunc")) {
		int fd = openat(AT_FDCWD, argv[2], O_TRUNC | O_CLOEXEC | atoi(argv[3]));
		if (fd < 0)
			return fail("open");
		printf("opened\n");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "openat2")) {
		/* struct open_how: flags, mode, resolve */
		unsigned long long how[3] = { O_RDONLY | O_TRUNC | O_CLOEXEC, 0, 0 };
		long fd = syscall(437 /* SYS_openat2 */, AT_FDCWD, argv[2], how, sizeof(how));
		if (fd < 0)
			return fail("openat2");
		printf("opened\n");
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "socket")) {
		int s = socket(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
		if (s < 0)
			return fail("socket");
		printf("socket made\n");
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "xattr")) {
		if (syscall(SYS_setxattr, argv[2], argv[3], argv[4], strlen(argv[4]), 0))
			return fail("setxattr");
		printf("set\n");
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "fxattr")) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail("open");
		if (syscall(SYS_fsetxattr, fd, argv[3], argv[4], strlen(argv[4]), 0))
			return fail("fsetxattr");
		printf("set\n");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "link")) {
		char buf[256] = "";
		if (syscall(SYS_linkat, AT_FDCWD, argv[2], AT_FDCWD, argv[3], 0))
			return fail("link");
		FILE *f = fopen(argv[3], "re");
		if (!f)
			return fail("open");
		if (!fgets(buf, sizeof(buf), f))
			return fail("read");
		printf("read: %s", buf);
		return 0;
	}
	if ((argc == 5 && !strcmp(argv[1], "chmod")) || (argc == 4 && !strcmp(argv[1], "chown"))) {
		const char *how = argv[2], *path = argv[3];
		bool mod = argc == 5;
		mode_t m = mod ? (mode_t)strtoul(argv[4], NULL, 8) : 0;
		uid_t u = getuid();
		gid_t g = getgid();
		char proc[64];
		long r = -1;
		int fd = -1;
		if (!strcmp(how, "fd") || !strcmp(how, "opath") || !strcmp(how, "proc")) {
			fd = open(path, (strcmp(how, "fd") ? O_PATH : O_RDONLY) | O_CLOEXEC);
			if (fd < 0)
				return fail("open");
		}
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (!strcmp(how, "path"))
			r = mod ? syscall(SYS_chmod, path, m) : syscall(SYS_chown, path, u, g);
		else if (!strcmp(how, "nofollow"))
			r = mod ? syscall(452 /* fchmodat2 */, AT_FDCWD, path, m, AT_SYMLINK_NOFOLLOW) :
				  syscall(SYS_lchown, path, u, g);
		else if (!strcmp(how, "fd"))
			r = mod ? syscall(SYS_fchmod, fd, m) : syscall(SYS_fchown, fd, u, g);
		else if (!strcmp(how, "opath"))
			r = mod ? syscall(452, fd, "", m, AT_EMPTY_PATH) :
				  syscall(SYS_fchownat, fd, "", u, g, AT_EMPTY_PATH);
		else if (!strcmp(how, "proc") && mod)
			r = syscall(SYS_chmod, proc, m);
		else
			return 2;
		if (r)
			return fail(argv[1]);
		printf("%s: ok\n", argv[1]);
		return 0;
	}
	fprintf(stderr, "usage: see tests/progs/nestedprobe.c\n");
	return 2;
}
