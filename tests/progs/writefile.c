/* tests/progs/writefile.c: write TEXT to each PATH, making its missing
 * parent directories first (mkdir -p).
 *
 *   writefile TEXT PATH...
 *
 * Prints `OK <path>` or `ERR <path>: <errno name>` per file. Built with
 * -static, so the preload shim never sees it: what stops it is the
 * boundary alone (tests/integration/learn.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int mkparents(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: writefile TEXT PATH...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		int fd = mkparents(argv[i]) ? -1 :
			 open(argv[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, argv[1], strlen(argv[1])) < 0 || write(fd, "\n", 1) < 0) {
			printf("ERR %s: %s\n", argv[i], strerrorname_np(errno));
			rc = 1;
		} else {
			printf("OK %s\n", argv[i]);
		}
		if (fd >= 0)
			close(fd);
	}
	return rc;
}
