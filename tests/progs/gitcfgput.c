/* tests/progs/gitcfgput.c: what git does to write its config, by hand:
 * `gitcfgput MODE DIR FILE [EXTRA]` writes FILE's bytes to DIR/config.lock
 * and renames it onto DIR/config (DIR/NAME with NAME from $GITCFG_NAME).
 * Built -static in the tests: the shim never sees it, the boundary
 * decides. MODE:
 *   put      as git does it;
 *   keep     keeps config.lock open for writing, renames, then appends
 *            EXTRA's bytes through that descriptor (the file renamed is
 *            the one the program still writes);
 *   symlink  config.lock is a symbolic link to FILE;
 *   hardlink config.lock is a hard link to FILE.
 * Prints `OK` or `ERR <errno name>` for the rename, then (keep) `WROTE`.
 * $GITCFG_LOOP=N repeats a `put` N times in one process and prints the
 * time per rename (docs/PERFORMANCE.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int copy(int to, const char *file)
{
	char buf[65536];
	ssize_t n;
	int from = open(file, O_RDONLY);

	if (from < 0)
		return -1;
	while ((n = read(from, buf, sizeof(buf))) > 0)
		if (write(to, buf, (size_t)n) != n)
			return -1;
	close(from);
	return n < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	char lock[4096], dst[4096];
	const char *name = getenv("GITCFG_NAME") ? getenv("GITCFG_NAME") : "config";
	int fd = -1;

	if (argc < 4) {
		fprintf(stderr, "usage: gitcfgput put|keep|symlink|hardlink DIR FILE [EXTRA]\n");
		return 2;
	}
	snprintf(lock, sizeof(lock), "%s/%s.lock", argv[2], name);
	snprintf(dst, sizeof(dst), "%s/%s", argv[2], name);
	if (getenv("GITCFG_LOOP") && !strcmp(argv[1], "put")) {
		long n = atol(getenv("GITCFG_LOOP"));
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long i = 0; i < n; i++) {
			fd = open(lock, O_RDWR | O_CREAT | O_EXCL, 0644);
			if (fd < 0 || copy(fd, argv[3]) || close(fd) || rename(lock, dst))
				return perror("loop"), 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%.1f us per rename\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / (double)n);
		return 0;
	}
	if (!strcmp(argv[1], "symlink")) {
		if (symlink(argv[3], lock))
			return perror("symlink"), 1;
	} else if (!strcmp(argv[1], "hardlink")) {
		if (link(argv[3], lock))
			return perror("link"), 1;
	} else {
		fd = open(lock, O_RDWR | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || copy(fd, argv[3]))
			return perror("config.lock"), 1;
	}
	if (rename(lock, dst)) {
		printf("ERR %s\n", strerrorname_np(errno));
		unlink(lock);
		return 0;
	}
	printf("OK\n");
	if (!strcmp(argv[1], "keep") && argc > 4) {
		lseek(fd, 0, SEEK_END);
		if (!copy(fd, argv[4]))
			printf("WROTE\n");
	}
	return 0;
}
