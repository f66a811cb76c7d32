/* tests/progs/pathops.c: one path operation, as a C program makes it
 * through glibc: `pathops OP PATH` with OP one of read (open O_RDONLY),
 * stat (stat), realpath (realpath), readdir (opendir + readdir), write
 * (open O_WRONLY|O_CREAT) and exec (execv). Prints `OK` or `ERR <errno
 * name>`. Built dynamically (the shim is in it) and with -static (the
 * shim never is) for the coverage table (tests/integration/coverage.sh).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int op(const char *what, const char *path)
{
	struct stat st;
	char buf[PATH_MAX];
	DIR *d;
	int fd;

	if (!strcmp(what, "read")) {
		if ((fd = open(path, O_RDONLY)) < 0)
			return -1;
		close(fd);
	} else if (!strcmp(what, "stat")) {
		return stat(path, &st);
	} else if (!strcmp(what, "realpath")) {
		return realpath(path, buf) ? 0 : -1;
	} else if (!strcmp(what, "readdir")) {
		if (!(d = opendir(path)))
			return -1;
		while (readdir(d))
			;
		closedir(d);
	} else if (!strcmp(what, "write")) {
		if ((fd = open(path, O_WRONLY | O_CREAT, 0644)) < 0)
			return -1;
		close(fd);
	} else if (!strcmp(what, "exec")) {
		char *argv[] = { (char *)path, NULL };
		fflush(stdout);
		execv(path, argv);
		return -1;
	} else {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: pathops read|stat|realpath|readdir|write|exec PATH\n");
		return 2;
	}
	if (op(argv[1], argv[2]))
		printf("ERR %s\n", strerrorname_np(errno));
	else
		printf("OK\n");
	return 0;
}
