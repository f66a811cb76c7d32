/* tests/progs/readfile.c: read each file named on the command line.
 *
 * Prints `OK <path>: <first line>` or `ERR <path>: <errno name>` per file,
 * so a test can tell a refusal (and which errno) from a read. Built both
 * dynamically (the shim is in it) and with -static (the shim never is).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char buf[256] = "";
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			printf("ERR %s: %s\n", argv[i], strerrorname_np(errno));
			continue;
		}
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n < 0) {
			printf("ERR %s: read %s\n", argv[i], strerrorname_np(errno));
			continue;
		}
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		printf("OK %s: %s\n", argv[i], buf);
	}
	return 0;
}
