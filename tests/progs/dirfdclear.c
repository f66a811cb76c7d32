/* tests/progs/dirfdclear.c: the shim's "clear" mark on a kept directory
 * (shim/dirfds.c: no deny_read rule can match in it, so a read of a name
 * in it is not judged at all). `dirfdclear CLEARDIR DENIEDDIR NAME`:
 *   1. fstatat(CLEARDIR's fd, NAME) and openat(…, NAME): what the kernel
 *      says (the mark lets them through unjudged);
 *   2. that descriptor closed behind the shim's back (close_range, which
 *      it does not watch) and its number reused for DENIEDDIR, opened
 *      without O_DIRECTORY (not kept, the mark is stale): openat(fd,
 *      NAME) and a read — the boundary still decides, and its refusal is
 *      explained.
 * Prints `same-fd yes|no`, then one line per call: `stat OK|ERR <errno>`,
 * `open OK <first line>|ERR <errno>`, `stale OK <first line>|ERR <errno>`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show_open(const char *what, int fd)
{
	char buf[128];
	ssize_t n;

	if (fd < 0) {
		printf("%s ERR %s\n", what, strerrorname_np(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		printf("%s ERR %s\n", what, strerrorname_np(errno));
	} else {
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		printf("%s OK %s\n", what, buf);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	struct stat st;
	int a, b;

	if (argc != 4)
		return 2;
	a = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (a < 0) {
		perror(argv[1]);
		return 1;
	}
	if (fstatat(a, argv[3], &st, AT_SYMLINK_NOFOLLOW))
		printf("stat ERR %s\n", strerrorname_np(errno));
	else
		printf("stat OK\n");
	show_open("open", openat(a, argv[3], O_RDONLY));
	syscall(SYS_close_range, a, a, 0);
	b = (int)syscall(SYS_openat, AT_FDCWD, argv[2], O_RDONLY, 0);
	printf("same-fd %s\n", a == b ? "yes" : "no");
	show_open("stale", openat(b, argv[3], O_RDONLY));
	return 0;
}
