/* bench/landlock-micro.c: what the nested mode's Landlock layer costs, and
 * what it would cost as a second filesystem layer under bubblewrap in the
 * normal mode (docs/PERFORMANCE.md, "Landlock").
 *
 *   build/bench/landlock-micro [ROUNDS [PAIRS]]   (make bench-landlock)
 *
 * A fake HOME (the default credential directories present) and a workspace
 * holding a git repository, under /var/tmp; the spec the default plan
 * gives for them (landlock_spec_from_plan on the plan's own operations).
 * Per round: the ruleset built (landlock_ruleset: the directory listings,
 * one O_PATH open and one add_rule per entry), then two children forked
 * in alternating order, one applying it (landlock_restrict, timed) before
 * PAIRS open()+close() of a workspace file, one not. Prints medians. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/linux/landlock.h"
#include "common/probe.h"
#include "preload/preload.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

static void mk(const char *base, const char *rel, bool dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	if (dir ? mkdir(p, 0755) : close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644))) {
		perror(p);
		exit(1);
	}
}

/* A child: the ruleset applied or not (timed), then `pairs` open+close
 * timed (ns per pair). Returns the restrict time in ns. */
static double child(int ruleset, const char *file, int pairs, double *per_pair)
{
	int fds[2];
	double r[2] = { 0, 0 };

	if (pipe(fds))
		exit(1);
	pid_t pid = fork();
	if (pid == 0) {
		double d[2], a = now();
		if (ruleset >= 0 && landlock_restrict(ruleset))
			_exit(2);
		d[0] = now() - a;
		a = now();
		for (int i = 0; i < pairs; i++)
			close(open(file, O_RDONLY | O_CLOEXEC));
		d[1] = (now() - a) / pairs;
		if (write(fds[1], d, sizeof(d)) != sizeof(d))
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], r, sizeof(r)) != sizeof(r))
		exit(1);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	*per_pair = r[1];
	return r[0];
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200, pairs = argc > 2 ? atoi(argv[2]) : 20000;
	char base[] = "/var/tmp/sbx-bench-landlock.XXXXXX", home[PATH_MAX], ws[PATH_MAX];
	char file[PATH_MAX + 16], ops[8][PATH_MAX + 32];
	int abi = probe_landlock_abi();

	if (abi < 1) {
		fprintf(stderr, "landlock-micro: this kernel has no Landlock\n");
		return 1;
	}
	if (!mkdtemp(base))
		return 1;
	snprintf(home, sizeof(home), "%s/home", base);
	snprintf(ws, sizeof(ws), "%s/ws", base);
	mk(base, "home", true);
	const char *hd[] = { ".ssh", ".aws", ".gnupg", ".config", ".config/gh", "proj", NULL };
	for (int i = 0; hd[i]; i++)
		mk(home, hd[i], true);
	mk(home, ".bashrc", false);
	mk(base, "ws", true);
	const char *wd[] = { ".git", ".git/hooks", ".git/objects", ".git/refs", "src", NULL };
	for (int i = 0; wd[i]; i++)
		mk(ws, wd[i], true);
	mk(ws, ".git/config", false);
	mk(ws, ".git/HEAD", false);
	mk(ws, "src/main.c", false);
	snprintf(file, sizeof(file), "%s/src/main.c", ws);

	/* the operations the default plan gives for this layout */
	struct plan pl = { 0 };
	const char *head[] = { "bwrap", "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--", "sbx-init",
			       "--unix=block", NULL };
	for (int i = 0; head[i]; i++)
		strv_add(&pl.argv, head[i]);
	pl.init_at = 7;
	snprintf(ops[0], sizeof(ops[0]), "--rw=%s", ws);
	snprintf(ops[1], sizeof(ops[1]), "--mask-dir=%s/.ssh", home);
	snprintf(ops[2], sizeof(ops[2]), "--mask-dir=%s/.aws", home);
	snprintf(ops[3], sizeof(ops[3]), "--mask-dir=%s/.gnupg", home);
	snprintf(ops[4], sizeof(ops[4]), "--mask-dir=%s/.config/gh", home);
	snprintf(ops[5], sizeof(ops[5]), "--ro=%s/.git/hooks", ws);
	snprintf(ops[6], sizeof(ops[6]), "--ro=%s/.git/config", ws);
	for (int i = 0; i < 7; i++)
		strv_add(&pl.argv, ops[i]);
	strv_add(&pl.argv, "--");
	pl.cmd_at = pl.argv.n;
	strv_add(&pl.argv, "true");
	struct landlock_spec spec;
	if (landlock_spec_from_plan(&pl, &spec))
		return 1;

	double *build = calloc((size_t)rounds, sizeof(double));
	double *with = calloc((size_t)rounds, sizeof(double));
	double *without = calloc((size_t)rounds, sizeof(double));
	double *pair_with = calloc((size_t)rounds, sizeof(double));
	double *pair_without = calloc((size_t)rounds, sizeof(double));
	char why[256];
	for (int r = 0; r < rounds; r++) {
		int fd;
		double t0 = now();
		if (landlock_ruleset(&spec, abi, &fd, why, sizeof(why))) {
			fprintf(stderr, "landlock-micro: %s\n", why);
			return 1;
		}
		build[r] = now() - t0;
		if (r & 1) {
			with[r] = child(fd, file, pairs, &pair_with[r]);
			without[r] = child(-1, file, pairs, &pair_without[r]);
		} else {
			without[r] = child(-1, file, pairs, &pair_without[r]);
			with[r] = child(fd, file, pairs, &pair_with[r]);
		}
		close(fd);
	}
	double b = median(build, rounds), w = median(with, rounds), wo = median(without, rounds);
	double pw = median(pair_with, rounds), pwo = median(pair_without, rounds);
	printf("Landlock ABI %d, %d rounds, %d open+close pairs per child\n", abi, rounds, pairs);
	printf("ruleset built (listings, opens, add_rule):  %8.1f us\n", b / 1e3);
	printf("no_new_privs + restrict_self:               %8.1f us\n", w / 1e3);
	printf("layer at start-up (build + restrict):       %8.1f us\n", (b + w) / 1e3);
	(void)wo;
	printf("open+close under the ruleset:               %8.1f ns  (without: %.1f ns, x%.3f)\n",
	       pw, pwo, pw / pwo);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	return system(cmd) ? 1 : 0;
}
