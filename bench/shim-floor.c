/* bench/shim-floor.c: what any LD_PRELOAD costs a fork+exec, beside the
 * shim's own share.
 *
 *   shim-floor ROUNDS SHIM_SO EMPTY_SO STUBS_SO [VARIANT]
 *
 * Each round starts /bin/true once per variant, the variants in turn (so
 * the machine's noise hits them alike):
 *
 *   none      no LD_PRELOAD
 *   empty     LD_PRELOAD=EMPTY_SO: a library with nothing in it
 *   stubs     LD_PRELOAD=STUBS_SO: as many exported functions, of the same
 *             names, as the shim (each traps if called: /bin/true calls none)
 *   shim off  LD_PRELOAD=SHIM_SO without SBX_SHIM: loaded, relocated, its
 *             constructor finds no SBX_SHIM and turns it off
 *   shim      LD_PRELOAD=SHIM_SO with this process's SBX_SHIM: on in the child
 *   shim exec the child calls libc's execv(): the shim's wrapper (the
 *             exec check, the static look, the environment carried) when
 *             this process runs with the shim, as bench/shim micro's
 *             fork+exec does
 *
 * The first five exec with a raw system call (the shim wraps execve() and
 * syscall(), and would put itself back into the environment). Run inside
 * a sandbox with the shim (bench/shim floor): SBX_SHIM names its holder's
 * descriptors. VARIANT (a number from 0, in the order above) runs that
 * one alone (for perf). Prints per variant the median over rounds of the CPU time
 * of the fork, the child and the wait (µs) and the child's page faults.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { NONE, EMPTY, STUBS, SHIM_OFF, SHIM_ON, SHIM_EXEC, NVAR };
static const char *const names[NVAR] = { "none", "empty", "stubs", "shim off", "shim",
					 "shim exec" };

static long raw_execve(const char *path, char *const *argv, char *const *envp)
{
#if defined(__x86_64__)
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_execve), "D"(path), "S"(argv), "d"(envp)
			 : "rcx", "r11", "memory");
	return r;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_execve;
	register long x0 __asm__("x0") = (long)path;
	register long x1 __asm__("x1") = (long)argv;
	register long x2 __asm__("x2") = (long)envp;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
#else
#error "bench/shim-floor.c: raw execve for this architecture"
#endif
}

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	long rounds, nenv = 0;
	int only = -1;
	const char *shim_spec = NULL;
	char *envs[NVAR][512], pre[3][4096];
	double *us[NVAR], *flt[NVAR];

	if ((argc != 5 && argc != 6) || (rounds = atol(argv[1])) <= 0)
		return 2;
	if (argc == 6 && ((only = atoi(argv[5])) < 0 || only >= NVAR))
		return 2;
	for (int v = 0; v < NVAR; v++) {
		us[v] = calloc((size_t)rounds, sizeof(double));
		flt[v] = calloc((size_t)rounds, sizeof(double));
		if (!us[v] || !flt[v])
			return 1;
	}
	/* the environment without LD_PRELOAD and SBX_SHIM */
	for (char **e = environ; *e && nenv < 500; e++) {
		if (!strncmp(*e, "SBX_SHIM=", 9))
			shim_spec = *e;
		else if (strncmp(*e, "LD_PRELOAD=", 11))
			for (int v = 0; v < NVAR; v++)
				envs[v][nenv] = *e;
		if (strncmp(*e, "SBX_SHIM=", 9) && strncmp(*e, "LD_PRELOAD=", 11))
			nenv++;
	}
	for (int i = 0; i < 3; i++)
		snprintf(pre[i], sizeof(pre[i]), "LD_PRELOAD=%s", argv[i == 0 ? 3 : i == 1 ? 4 : 2]);
	envs[NONE][nenv] = NULL;
	envs[EMPTY][nenv] = pre[0];
	envs[EMPTY][nenv + 1] = NULL;
	envs[STUBS][nenv] = pre[1];
	envs[STUBS][nenv + 1] = NULL;
	envs[SHIM_OFF][nenv] = pre[2];
	envs[SHIM_OFF][nenv + 1] = NULL;
	envs[SHIM_ON][nenv] = pre[2];
	envs[SHIM_ON][nenv + 1] = (char *)shim_spec;
	envs[SHIM_ON][nenv + 2] = NULL;
	if (!shim_spec)
		fprintf(stderr, "shim-floor: no SBX_SHIM here (run it with the shim): "
				"\"shim\" and \"shim exec\" are the shim off\n");

	for (long r = 0; r < rounds; r++) {
		for (int v = 0; v < NVAR; v++) {
			if (only >= 0 && v != only)
				continue;
			char *av[] = { "true", NULL };
			struct rusage ru;
			int status;
			double t0 = cpu_ns(), t1;
			pid_t p = fork();

			if (p == 0) {
				if (v == SHIM_EXEC)
					execv("/bin/true", av);
				else
					raw_execve("/bin/true", av, envs[v]);
				_exit(127);
			}
			if (p < 0 || wait4(p, &status, 0, &ru) != p || !WIFEXITED(status) ||
			    WEXITSTATUS(status)) {
				fprintf(stderr, "shim-floor: %s: /bin/true failed\n", names[v]);
				return 1;
			}
			t1 = cpu_ns();
			us[v][r] = ((t1 - t0) + (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
				    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3) / 1e3;
			flt[v][r] = (double)ru.ru_minflt + (double)ru.ru_majflt;
		}
	}
	for (int v = 0; v < NVAR; v++)
		if (only < 0 || v == only)
			printf("%s%s=%.1f,%.0f", v > (only < 0 ? 0 : only) ? ";" : "", names[v],
			       median(us[v], rounds), median(flt[v], rounds));
	printf("\n");
	return 0;
}
