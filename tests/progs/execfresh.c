/* tests/progs/execfresh.c: execve a program with a brand-new environment.
 *
 * execfresh PATH ARG...: prints `PID=<pid>`, then execve(PATH, ARG...) with
 * an envp of PATH= only: no LD_PRELOAD, no SBX_SHIM. The shim must put them
 * back, so the new program (same pid) is still reported.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };

	if (argc < 2)
		return 2;
	printf("PID=%d\n", (int)getpid());
	fflush(stdout);
	execve(argv[1], argv + 1, envp);
	printf("EXECFAIL %s\n", strerrorname_np(errno));
	return 1;
}
