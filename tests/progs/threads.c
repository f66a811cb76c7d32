/* tests/progs/threads.c: many threads opening denied and allowed files.
 *
 * threads N DENIED1 DENIED2 ALLOWED1 ALLOWED2: 8 threads, each N rounds of
 * opening both denied files (each must fail with EACCES) and reading both
 * allowed ones (each must give its own first line, `A1` and `A2`). Prints
 * one line per thread and `ALL-OK` when every thread saw what it should.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NTHREADS 8

static int rounds;
static const char *denied[2], *allowed[2];
static const char *const want[2] = { "A1", "A2" };

struct result {
	int id, denied, eacces, other_errno, allowed_ok, wrong;
};

static void *worker(void *arg)
{
	struct result *r = arg;

	for (int i = 0; i < rounds; i++) {
		for (int k = 0; k < 2; k++) {
			int fd = open(denied[k], O_RDONLY);
			r->denied++;
			if (fd >= 0) {
				close(fd);
				r->wrong++;
			} else if (errno == EACCES) {
				r->eacces++;
			} else {
				r->other_errno++;
			}
		}
		for (int k = 0; k < 2; k++) {
			char buf[16] = "";
			int fd = open(allowed[k], O_RDONLY);
			if (fd < 0) {
				r->wrong++;
				continue;
			}
			ssize_t n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n >= 2 && !strncmp(buf, want[k], 2))
				r->allowed_ok++;
			else
				r->wrong++;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];
	struct result res[NTHREADS];
	int bad = 0;

	if (argc != 6)
		return 2;
	rounds = atoi(argv[1]);
	denied[0] = argv[2];
	denied[1] = argv[3];
	allowed[0] = argv[4];
	allowed[1] = argv[5];
	for (int i = 0; i < NTHREADS; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		res[i].id = i;
		if (pthread_create(&t[i], NULL, worker, &res[i]))
			return 3;
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		printf("T%d denied=%d eacces=%d other=%d allowed_ok=%d wrong=%d\n", i,
		       res[i].denied, res[i].eacces, res[i].other_errno, res[i].allowed_ok,
		       res[i].wrong);
		bad |= res[i].eacces != 2 * rounds || res[i].allowed_ok != 2 * rounds ||
		       res[i].wrong || res[i].other_errno;
	}
	if (!bad)
		printf("ALL-OK\n");
	return bad;
}
