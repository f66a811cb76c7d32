/* tests/darwin/shimwriter.c: the shim's real core, as macOS builds it,
 * refused at once in many processes and threads on long paths, under the
 * darwin test build of sbx-preload (tests/integration/darwin.sh).
 *
 * Linux cannot load the dylib, so this program links what it would hold
 * (the wrappers, shim/darwin.c, and the check core, built as the shim-dyld
 * runner builds them: SBX_PORTABLE, WIRE_ATOMIC 512, and a FIFO that
 * takes a longer write in 512-byte parts, tests/darwin/fifo512.c) and
 * calls the wrappers itself, with the SBX_SHIM sbx-preload gave it: the
 * reports go through the real hand-over into the real FIFO the
 * supervisor reads.
 *
 *   shim-writer PROCS THREADS EACH READ_DIR WRITE_DIR
 *
 * Each thread of each process: EACH reads of paths of 600 to 3000 bytes
 * under READ_DIR (a deny_read), and EACH renames of a long path to one
 * under WRITE_DIR (outside the writable roots). Each target it expects
 * refused goes to stdout, one a line; the exit status is 0 when every
 * call was refused with the boundary's errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int sbx_dyld_open(const char *path, int flags, ...);
int sbx_dyld_rename(const char *a, const char *b);

static int each;
static const char *read_dir, *write_dir;

/* A path of `len` bytes under dir naming (p, t, i, kind): names of 200
 * bytes, then one to make up the length. */
static void long_path(char *out, size_t len, const char *dir, int p, int t, int i, char kind)
{
	size_t o = (size_t)snprintf(out, len + 1, "%s/%c-%d-%d-%d", dir, kind, p, t, i);

	while (o < len) {
		size_t n = len - o - 1 < 200 ? len - o - 1 : 200;
		out[o++] = '/';
		memset(out + o, (char)('a' + (o / 201) % 26), n);
		o += n;
	}
	out[len] = '\0';
}

static size_t long_len(int p, int t, int i, int k)
{
	return 600 + (size_t)((p * 131 + t * 977 + i * 613 + k * 389) % 2401);
}

struct arg {
	int p, t, failed;
};

static void *thread(void *v)
{
	struct arg *a = v;
	char path[3100], from[3100];

	for (int i = 0; i < each; i++) {
		long_path(path, long_len(a->p, a->t, i, 0), read_dir, a->p, a->t, i, 'r');
		if (sbx_dyld_open(path, O_RDONLY) != -1 || errno != EACCES)
			a->failed++;
		long_path(from, long_len(a->p, a->t, i, 1), ".", a->p, a->t, i, 'f');
		long_path(path, long_len(a->p, a->t, i, 2), write_dir, a->p, a->t, i, 'w');
		if (sbx_dyld_rename(from, path) != -1 || errno != EROFS)
			a->failed++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int procs, threads, failed = 0;
	char path[3100];
	pid_t pids[64];

	if (argc != 6 || (procs = atoi(argv[1])) < 1 || procs > 64 ||
	    (threads = atoi(argv[2])) < 1 || threads > 64 || (each = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: shim-writer PROCS THREADS EACH READ_DIR WRITE_DIR\n");
		return 2;
	}
	read_dir = argv[4];
	write_dir = argv[5];
	for (int p = 0; p < procs; p++)
		for (int t = 0; t < threads; t++)
			for (int i = 0; i < each; i++) {
				long_path(path, long_len(p, t, i, 0), read_dir, p, t, i, 'r');
				printf("read %s\n", path);
				long_path(path, long_len(p, t, i, 2), write_dir, p, t, i, 'w');
				printf("write %s\n", path);
			}
	fflush(stdout);
	/* room in the FIFO for all of them (Linux's F_SETPIPE_SZ): a drop
	 * would be a full FIFO on a busy machine, not what this checks */
	const char *spec = getenv("SBX_SHIM"), *r = spec ? strstr(spec, ";report=") : NULL;
	if (r) {
		char fifo[256];
		snprintf(fifo, sizeof(fifo), "%.*s", (int)strcspn(r + 8, ";"), r + 8);
		int fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0)
			fcntl(fd, F_SETPIPE_SZ, 1 << 20);
		if (fd >= 0)
			close(fd);
	}
	/* the shim started before any thread (a first call starts it: a
	 * thread racing that start is let through unjudged, shim/core.c's
	 * ST_STARTING, which is not what this checks) */
	int fd = sbx_dyld_open("/", O_RDONLY | O_DIRECTORY);
	if (fd >= 0)
		close(fd);
	for (int p = 0; p < procs; p++) {
		if ((pids[p] = fork()) < 0)
			return 3;
		if (pids[p])
			continue;
		pthread_t th[64];
		struct arg a[64];
		for (int t = 0; t < threads; t++) {
			a[t] = (struct arg){ .p = p, .t = t };
			if (pthread_create(&th[t], NULL, thread, &a[t]))
				_exit(3);
		}
		for (int t = 0; t < threads; t++) {
			pthread_join(th[t], NULL);
			failed += a[t].failed;
		}
		_exit(failed ? 1 : 0);
	}
	for (int p = 0; p < procs; p++) {
		int st;
		if (waitpid(pids[p], &st, 0) != pids[p] || !WIFEXITED(st) || WEXITSTATUS(st))
			failed++;
	}
	return failed ? 1 : 0;
}
