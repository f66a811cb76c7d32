/* tests/progs/dirfdstale.c: the shim's directory-descriptor hint
 * (shim/dirfds.c) never refuses what the kernel allows, and a refusal
 * through a kept descriptor is still explained. `dirfdstale DENIEDDIR
 * OTHERDIR NAME`:
 *   1. openat(DENIEDDIR's fd, NAME) through the hint: refused (EACCES);
 *   2. the descriptor closed behind the shim's back (close_range, which
 *      it does not watch) and its number reused for OTHERDIR, opened
 *      without O_DIRECTORY (not kept): openat(fd, NAME) is what the kernel
 *      says of OTHERDIR/NAME, never the stale hint's refusal.
 * Prints `same-fd yes|no`, then `first ERR|OK …` and `second ERR|OK …`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void say(const char *what, int fd)
{
	if (fd < 0)
		printf("%s ERR %s\n", what, strerrorname_np(errno));
	else
		printf("%s OK\n", what);
}

int main(int argc, char **argv)
{
	int a, b;

	if (argc != 4)
		return 2;
	a = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (a < 0) {
		perror(argv[1]);
		return 1;
	}
	say("first", openat(a, argv[3], O_RDONLY));
	syscall(SYS_close_range, a, a, 0);
	b = (int)syscall(SYS_openat, AT_FDCWD, argv[2], O_RDONLY, 0);
	printf("same-fd %s\n", a == b ? "yes" : "no");
	say("second", openat(b, argv[3], O_RDONLY));
	return 0;
}
