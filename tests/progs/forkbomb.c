/* tests/progs/forkbomb.c: a real fork bomb, held at its peak for counting.
 *
 *   forkbomb DIR
 *
 * Every process forks in a loop, and every child does the same. A fork that
 * fails is retried 20 ms later. The first process, at its first failure,
 * writes DIR/full (with the error), then goes on until DIR/stop exists and
 * exits 0; sbx-init then kills the rest. Built static: the shim plays no
 * part. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char full[4096], stop[4096];
	pid_t top = getpid();
	int said = 0;

	if (argc != 2)
		return 2;
	snprintf(full, sizeof(full), "%s/full", argv[1]);
	snprintf(stop, sizeof(stop), "%s/stop", argv[1]);
	for (;;) {
		pid_t p = fork();
		if (p == 0)
			continue; /* the child joins in */
		if (p > 0)
			continue;
		if (getpid() == top) {
			if (!said++) {
				int fd = open(full, O_WRONLY | O_CREAT | O_TRUNC, 0644);
				dprintf(fd, "fork: %s\n", strerror(errno));
				close(fd);
			}
			if (access(stop, F_OK) == 0) {
				printf("stopped after the first refused fork\n");
				return 0;
			}
		}
		usleep(20000);
	}
}
