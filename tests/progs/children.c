/* tests/progs/children.c: start a child three ways, each reading a file.
 *
 *   children fork  FILE   fork(), the child opens FILE itself (no exec)
 *   children vfork FILE   vfork() + execve("/bin/cat", FILE), environ kept
 *   children spawn FILE   posix_spawn("/bin/cat", FILE) with an EMPTY envp
 *
 *   children forkcd DIR NAME
 *                         fork(), the child changes to DIR and opens NAME
 *                         (relative) there; after it exits, the parent
 *                         opens NAME relative to its own directory
 *
 * Prints `CHILD=<pid>` and, for fork and forkcd, the child's own result
 * (`CHILD-OPEN <errno name>` or `CHILD-OPEN OK`), then `STATUS=<n>`; for
 * forkcd then `PARENT-OPEN <errno name>` or `PARENT-OPEN <first line>`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	pid_t pid;
	int status = 0;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[1], "forkcd")))
		return 2;
	const char *mode = argv[1], *file = argv[argc - 1];
	char *cat_argv[] = { "cat", (char *)file, NULL };

	if (!strcmp(mode, "fork")) {
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			int fd = open(file, O_RDONLY);
			printf("CHILD=%d\nCHILD-OPEN %s\n", (int)getpid(),
			       fd < 0 ? strerrorname_np(errno) : "OK");
			fflush(stdout);
			_exit(0);
		}
	} else if (!strcmp(mode, "forkcd")) {
		/* the shim's cwd cache is the parent's memory, copied: the
		 * child must judge NAME from its new directory, and the
		 * parent from its own, after the child changed its copy */
		open(file, O_RDONLY); /* the parent's cache filled first */
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			int fd = chdir(argv[2]) ? -1 : open(file, O_RDONLY);
			printf("CHILD=%d\nCHILD-OPEN %s\n", (int)getpid(),
			       fd < 0 ? strerrorname_np(errno) : "OK");
			fflush(stdout);
			_exit(0);
		}
	} else if (!strcmp(mode, "vfork")) {
		pid = vfork();
		if (pid == 0) {
			execve("/bin/cat", cat_argv, environ);
			_exit(127);
		}
		printf("CHILD=%d\n", (int)pid);
	} else if (!strcmp(mode, "spawn")) {
		char *empty[] = { NULL };
		int e = posix_spawn(&pid, "/bin/cat", NULL, NULL, cat_argv, empty);
		if (e) {
			printf("SPAWNFAIL %s\n", strerrorname_np(e));
			return 1;
		}
		printf("CHILD=%d\n", (int)pid);
	} else {
		return 2;
	}
	if (pid < 0) {
		printf("FORKFAIL %s\n", strerrorname_np(errno));
		return 1;
	}
	waitpid(pid, &status, 0);
	printf("STATUS=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	if (!strcmp(mode, "forkcd")) {
		char line[128] = "";
		FILE *f = fopen(file, "r");
		if (!f || !fgets(line, sizeof(line), f))
			printf("PARENT-OPEN %s\n", strerrorname_np(errno));
		else
			printf("PARENT-OPEN %s", line);
		if (f)
			fclose(f);
	}
	return 0;
}
