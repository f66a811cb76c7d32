/* bench/shim-micro.c: the cost of the calls the shim guards.
 *
 *   shim-micro OPENS STATS FILE
 * times OPENS open()+close() pairs and STATS stat() calls of FILE (a
 * workspace file) and prints "open_close_ns=N stat_ns=N" per call. Run
 * by bench/shim inside the same sandbox with and without the shim.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long opens, stats;
	struct stat st;
	double t0, t1, t2;

	if (argc != 4)
		return 2;
	opens = atol(argv[1]);
	stats = atol(argv[2]);
	t0 = now();
	for (long i = 0; i < opens; i++) {
		int fd = open(argv[3], O_RDONLY);
		if (fd < 0) {
			perror(argv[3]);
			return 1;
		}
		close(fd);
	}
	t1 = now();
	for (long i = 0; i < stats; i++)
		if (stat(argv[3], &st)) {
			perror(argv[3]);
			return 1;
		}
	t2 = now();
	printf("open_close_ns=%.1f stat_ns=%.1f\n", (t1 - t0) / opens, (t2 - t1) / stats);
	return 0;
}
