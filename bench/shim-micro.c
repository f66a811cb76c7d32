/* bench/shim-micro.c: the cost of the calls the shim guards.
 *
 *   shim-micro OPENS STATS FILE [FORKS WALKDIR]
 * times OPENS open()+close() pairs and STATS stat() calls of FILE (a
 * workspace file) and prints "open_close_ns=N stat_ns=N" per call; with
 * FORKS and WALKDIR also FORKS fork()+execv("/bin/true")+waitpid
 * ("fork_exec_us=N" per child) and a find-style walk of WALKDIR:
 * descriptor-relative openat(O_DIRECTORY) + fdopendir + readdir +
 * fstatat(AT_SYMLINK_NOFOLLOW) of every entry, as fts (find, du, rm -r)
 * does ("walk_ns=N" per entry, "walk_entries=N"), and the real `find
 * WALKDIR -xdev` ("find_ms=N"). CPU time of the process and its children,
 * not wall time. Run by bench/shim inside the same sandbox with and
 * without the shim.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* CPU time (this process and its waited-for children), not wall time:
 * on a shared machine waiting for a CPU is not the shim's cost */
static double now(void)
{
	struct timespec ts;
	struct rusage ru;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	getrusage(RUSAGE_CHILDREN, &ru);
	return ts.tv_sec * 1e9 + ts.tv_nsec +
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

/* run argv with stdout on /dev/null; 0 when it exited 0 */
static int run(char **argv)
{
	pid_t p = fork();
	int status;

	if (p == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	return p < 0 || waitpid(p, &status, 0) != p || !WIFEXITED(status) ||
	       WEXITSTATUS(status);
}

static long walk(int dirfd)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;
	struct stat st;
	long n = 0;

	if (!d) {
		close(dirfd);
		return 0;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				n += walk(sub);
		}
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	long opens, stats;
	struct stat st;
	double t0, t1, t2;

	if (argc != 4 && argc != 6)
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
	printf("open_close_ns=%.1f stat_ns=%.1f", (t1 - t0) / opens, (t2 - t1) / stats);
	if (argc == 6) {
		long forks = atol(argv[4]), entries;
		double t3, t4, t5;
		t3 = now();
		for (long i = 0; i < forks; i++) {
			pid_t p = fork();
			if (p == 0) {
				char *av[] = { "true", NULL };
				execv("/bin/true", av);
				_exit(127);
			}
			if (p < 0 || waitpid(p, NULL, 0) != p) {
				perror("fork");
				return 1;
			}
		}
		t4 = now();
		entries = walk(open(argv[5], O_RDONLY | O_DIRECTORY | O_CLOEXEC));
		t5 = now();
		char *find[] = { "find", argv[5], "-xdev", NULL };
		if (run(find))
			return 1;
		printf(" fork_exec_us=%.1f walk_ns=%.1f walk_entries=%ld find_ms=%.2f",
		       (t4 - t3) / forks / 1000, entries ? (t5 - t4) / entries : 0, entries,
		       (now() - t5) / 1e6);
	}
	printf("\n");
	return 0;
}
