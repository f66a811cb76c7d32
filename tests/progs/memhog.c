/* tests/progs/memhog.c: takes memory 1 MiB at a time, touching every page,
 * and says how far it got on stdout (one line per MiB, written before the
 * next is taken, so a process the kernel kills still shows it).
 *
 *   memhog MIB      stop after MIB MiB and print "survived"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	for (long i = 1; i <= n; i++) {
		char *p = malloc(1 << 20);
		if (!p) {
			printf("malloc failed at %ld MiB\n", i);
			return 1;
		}
		memset(p, (int)i, 1 << 20);
		dprintf(1, "MiB %ld\n", i);
	}
	printf("survived\n");
	return 0;
}
