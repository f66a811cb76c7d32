/* bench/filter-micro.c: what sbx-init's seccomp filter costs an allowed
 * system call.
 *
 *   build/bench/filter-micro [ROUNDS [PAIRS]]   (make bench-filter)
 *
 * Each round forks two children, in alternating order: one times PAIRS
 * open()+close() pairs of /dev/null as it is, the other first installs
 * sbx_filter_unix_block (the generated filter, build/gen/filters.h) under
 * no_new_privs. Prints the medians per pair and their ratio. */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gen/filters.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per pair, from a child (through a pipe) */
static double measure(int filtered, long pairs)
{
	int p[2];
	double ns = -1;

	if (pipe(p))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		if (filtered) {
			struct sock_fprog prog = {
				sizeof(sbx_filter_unix_block) / sizeof(sbx_filter_unix_block[0]),
				(struct sock_filter *)sbx_filter_unix_block };
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
			    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
				_exit(1);
		}
		double t0 = now();
		for (long i = 0; i < pairs; i++)
			close(open("/dev/null", O_RDONLY));
		double r = (now() - t0) / pairs;
		if (write(p[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &ns, sizeof(ns)) != sizeof(ns))
		ns = -1;
	close(p[0]);
	waitpid(pid, NULL, 0);
	return ns;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 21;
	long pairs = argc > 2 ? atol(argv[2]) : 200000;
	double *off = calloc(rounds, sizeof(double)), *on = calloc(rounds, sizeof(double));

	if (!off || !on || rounds < 1)
		return 2;
	for (int i = 0; i < rounds; i++) {
		if (i % 2) {
			on[i] = measure(1, pairs);
			off[i] = measure(0, pairs);
		} else {
			off[i] = measure(0, pairs);
			on[i] = measure(1, pairs);
		}
		if (on[i] < 0 || off[i] < 0) {
			fprintf(stderr, "filter-micro: a child failed\n");
			return 1;
		}
	}
	qsort(off, rounds, sizeof(double), cmp);
	qsort(on, rounds, sizeof(double), cmp);
	printf("open+close, %d rounds of %ld pairs, median per pair: no filter %.1f ns, "
	       "sbx filter (%zu instructions) %.1f ns, ratio %.3fx (target <= 1.03x)\n",
	       rounds, pairs, off[rounds / 2],
	       sizeof(sbx_filter_unix_block) / sizeof(sbx_filter_unix_block[0]),
	       on[rounds / 2], on[rounds / 2] / off[rounds / 2]);
	return 0;
}
