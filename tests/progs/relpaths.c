/* tests/progs/relpaths.c: relative paths after chdir and fchdir.
 *
 * relpaths WS HOME: from WS, opens (printing `OK name` / `ERR name errno`):
 *   data.txt                      (fills the shim's idea of the cwd)
 *   chdir sub/deeper
 *   ../../data.txt                allowed
 *   ../../../home/.ssh/canary     denied (WS and HOME are siblings)
 *   chdir ..
 *   ../data.txt                   allowed
 *   ../../home/.ssh/canary        denied
 *   fchdir(WS)
 *   data.txt                      allowed
 *   openat(HOME fd, .ssh/canary)  denied
 *   openat(WS fd, sub/deeper/../../../home/.ssh/canary)  denied
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void try(int dirfd, const char *name)
{
	char buf[64] = "";
	int fd = openat(dirfd, name, O_RDONLY);

	if (fd < 0) {
		printf("ERR %s %s\n", name, strerrorname_np(errno));
		return;
	}
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("OK %s %s\n", name, buf);
}

int main(int argc, char **argv)
{
	if (argc != 3 || chdir(argv[1]))
		return 2;
	int ws = open(argv[1], O_RDONLY | O_DIRECTORY);
	int home = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (ws < 0 || home < 0)
		return 3;
	try(AT_FDCWD, "data.txt");
	if (chdir("sub/deeper"))
		return 4;
	try(AT_FDCWD, "../../data.txt");
	try(AT_FDCWD, "../../../home/.ssh/canary");
	if (chdir(".."))
		return 5;
	try(AT_FDCWD, "../data.txt");
	try(AT_FDCWD, "../../home/.ssh/canary");
	if (fchdir(ws))
		return 6;
	try(AT_FDCWD, "data.txt");
	try(home, ".ssh/canary");
	try(ws, "sub/deeper/../../../home/.ssh/canary");
	return 0;
}
