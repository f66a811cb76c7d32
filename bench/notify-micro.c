/* bench/notify-micro.c: what a notified call costs, and what an ordinary
 * one does not.
 *
 *   notify-micro N FILE DIR
 * times N of each and prints "name=ns" per call:
 *   read_open    open(FILE, O_RDONLY) + close   never notified
 *   stat         stat(FILE)                     never notified
 *   write_open   open(FILE, O_WRONLY) + close   notified (the supervisor opens)
 *   create       open(DIR/x, O_CREAT|O_WRONLY|O_TRUNC) + close, on an existing file
 *   new_file     open(/tmp/nN, O_CREAT|O_EXCL|O_WRONLY) + close: a new file each
 *                time, as a checkout makes them (N/4 of them, on the sandbox's
 *                own tmpfs, so no file system's allocator is timed with it;
 *                removed afterwards, untimed)
 *   mkdir        mkdir(DIR/d) + rmdir           mkdir notified, rmdir not
 *   refused      bpf(): the seccomp table refuses it; notified with the
 *                layer (the bare round trip: answered EPERM, reported once)
 *   connect_lo   socket + connect(127.0.0.1:1) + close: notified, the
 *                socket and its address checked, then CONTINUE (refused by
 *                the sandbox's own loopback: nothing listens there)
 * Run by bench/notify in the same sandbox with and without the notify
 * layer (SBX_NOTIFY=off), built static so no shim is involved.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int fail(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	char x[4096], d[4096];
	struct stat st;
	double t;
	long n;

	if (argc != 4)
		return 2;
	n = atol(argv[1]);
	snprintf(x, sizeof(x), "%s/x", argv[3]);
	snprintf(d, sizeof(d), "%s/d", argv[3]);

	t = now();
	for (long i = 0; i < n; i++) {
		int fd = open(argv[2], O_RDONLY);
		if (fd < 0)
			return fail(argv[2]);
		close(fd);
	}
	printf("read_open=%.1f ", (now() - t) / n);
	t = now();
	for (long i = 0; i < n; i++)
		if (stat(argv[2], &st))
			return fail(argv[2]);
	printf("stat=%.1f ", (now() - t) / n);
	t = now();
	for (long i = 0; i < n; i++) {
		int fd = open(argv[2], O_WRONLY);
		if (fd < 0)
			return fail(argv[2]);
		close(fd);
	}
	printf("write_open=%.1f ", (now() - t) / n);
	t = now();
	for (long i = 0; i < n; i++) {
		int fd = open(x, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0)
			return fail(x);
		close(fd);
	}
	printf("create=%.1f ", (now() - t) / n);
	long nn = n / 4 > 0 ? n / 4 : 1;
	char nf[64];
	t = now();
	for (long i = 0; i < nn; i++) {
		snprintf(nf, sizeof(nf), "/tmp/n%ld", i);
		int fd = open(nf, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			return fail(nf);
		close(fd);
	}
	printf("new_file=%.1f ", (now() - t) / nn);
	for (long i = 0; i < nn; i++) {
		snprintf(nf, sizeof(nf), "/tmp/n%ld", i);
		unlink(nf);
	}
	t = now();
	for (long i = 0; i < n; i++)
		if (mkdir(d, 0755) || rmdir(d))
			return fail(d);
	printf("mkdir=%.1f ", (now() - t) / n);
	t = now();
	for (long i = 0; i < n; i++)
		if (syscall(SYS_bpf, 0, NULL, 0) == 0)
			return fail("bpf allowed");
	printf("refused=%.1f ", (now() - t) / n);
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_port = htons(1),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	t = now();
	for (long i = 0; i < n; i++) {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&lo, sizeof(lo)) == 0)
			return fail("connect");
		close(s);
	}
	printf("connect_lo=%.1f\n", (now() - t) / n);
	return 0;
}
