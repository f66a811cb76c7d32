/* bench/match-micro.c: what one policy_check_path() costs with the
 * built-in policy plus N user rules of every form, the compiled matcher
 * (policy/match.c) against trying every rule (tests/unit/matcher_ref.h,
 * the matcher before it), on the paths a build and the start-up walk ask
 * about. `make bench-match`; CPU time, ns per call, median of 5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/unit/matcher_ref.h"

static const char *const paths[] = {
	"/home/u/proj/src/main.c", "/home/u/proj/src/lib/util/strings.h",
	"/home/u/proj/.git/objects/ab/cdef0123", "/home/u/proj/node_modules/left-pad/index.js",
	"/home/u/proj/.env", "/home/u/.ssh/id_ed25519", "/usr/include/stdio.h",
	"/usr/lib/x86_64-linux-gnu/libc.so.6", "/tmp/cc123.o", "/home/u/proj/build/out/a.o",
};

static struct policy *compile(unsigned extra)
{
	static const char *const forms[][2] = {
		{ "secret", ".txt" }, { "*.key", "" }, { "cred", "_*" }, { "*tok", "*" },
		{ "k", "/id" }, { "~/private", "" }, { "~/.tool", "/*.json" }, { "/opt/none", "/**" },
		{ "**/vault", "/**/k" }, { "?pw", "" }, { "x", "*y" },
	};
	struct policy_ctx ctx = { .home = "/home/u", .cwd = "/home/u/proj" };
	struct policy_builder *b;
	struct policy *p;
	struct sbx_err err;
	size_t cap = 64 + extra * 64, o = 0;
	char *ini = malloc(cap);

	o += (size_t)snprintf(ini + o, cap - o, "[filesystem]\n");
	for (unsigned i = 0; i < extra; i++)
		o += (size_t)snprintf(ini + o, cap - o, "%s = %s%u%s\n",
				      i % 3 ? "deny_read" : "deny_write", forms[i % 11][0], i,
				      forms[i % 11][1]);
	if (policy_builder_new(&ctx, &b) ||
	    policy_builder_load_string(b, ini, "bench.ini", POLICY_LAYER_USER, &err) ||
	    policy_compile(b, &p, &err)) {
		fprintf(stderr, "match-micro: %s\n", err.msg);
		exit(1);
	}
	free(ini);
	return p;
}

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* ns per call, median of 5 rounds of `iters` calls over the paths */
static double measure(const struct policy *p, bool ref, unsigned iters)
{
	double t[5];
	volatile unsigned sink = 0;

	for (int r = 0; r < 5; r++) {
		double s = cpu_ns();
		for (unsigned i = 0; i < iters; i++) {
			const char *path = paths[i % (sizeof(paths) / sizeof(*paths))];
			const struct sbx_rule *why;
			enum sbx_op op = i & 1 ? SBX_OP_WRITE : SBX_OP_READ;
			sink += ref ? ref_check_path(p, op, path, &why) :
				      policy_check_path(p, op, path, &why);
		}
		t[r] = (cpu_ns() - s) / iters;
	}
	qsort(t, 5, sizeof(*t), cmp);
	(void)sink;
	return t[2];
}

int main(int argc, char **argv)
{
	unsigned iters = argc > 1 ? (unsigned)atoi(argv[1]) : 200000;
	static const unsigned extras[] = { 0, 50, 100, 500 };
	double base = 0;

	printf("policy_check_path, built-in policy + N user rules, ns per call "
	       "(read and write alternating, %u calls, median of 5)\n", iters);
	printf("  %5s %6s %12s %12s %8s\n", "N", "rules", "every rule", "compiled", "vs N=0");
	for (size_t i = 0; i < sizeof(extras) / sizeof(*extras); i++) {
		struct policy *p = compile(extras[i]);
		size_t n = 0;
		for (int k = 0; k < SBX_RULE_KIND_COUNT; k++)
			n += p->nby_kind[k];
		double old = measure(p, true, iters / 4), now = measure(p, false, iters);
		if (i == 0)
			base = now;
		printf("  %5u %6zu %12.1f %12.1f %7.2fx\n", extras[i], n, old, now, now / base);
		policy_free(p);
	}
	return 0;
}
