/* tests/progs/rawcalls.c: path calls through glibc's syscall(), as libuv
 * and Rust's std make them. `rawcalls HOME WS` prints one line per call:
 * `<name> OK` or `<name> ERR <errno name>`, and `errno kept` when an
 * unhandled number (getpid) left errno as it was.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void say(const char *name, long r)
{
	if (r < 0)
		printf("%s ERR %s\n", name, strerrorname_np(errno));
	else
		printf("%s OK\n", name);
}

int main(int argc, char **argv)
{
	char key[4096], out[4096];
	struct statx stx;
	struct stat st;
	struct open_how how = { .flags = O_RDONLY };

	if (argc != 3)
		return 2;
	snprintf(key, sizeof(key), "%s/.ssh/id_ed25519", argv[1]);
	snprintf(out, sizeof(out), "%s/proj/made", argv[1]);
	say("statx", syscall(SYS_statx, AT_FDCWD, key, 0, STATX_BASIC_STATS, &stx));
	say("newfstatat", syscall(SYS_newfstatat, AT_FDCWD, key, &st, 0));
	say("openat", syscall(SYS_openat, AT_FDCWD, key, O_RDONLY, 0));
	say("openat2", syscall(SYS_openat2, AT_FDCWD, key, &how, sizeof(how)));
	say("faccessat2", syscall(SYS_faccessat2, AT_FDCWD, key, R_OK, 0));
	say("mkdirat", syscall(SYS_mkdirat, AT_FDCWD, out, 0755));
	/* a relative path after a raw chdir: judged against the new cwd */
	say("chdir", syscall(SYS_chdir, argv[1]));
	say("statx-relative", syscall(SYS_statx, AT_FDCWD, ".ssh/id_ed25519", 0, STATX_BASIC_STATS, &stx));
	say("chdir-back", syscall(SYS_chdir, argv[2]));
	say("statx-allowed", syscall(SYS_statx, AT_FDCWD, "here", 0, STATX_BASIC_STATS, &stx));
	errno = 4242;
	syscall(SYS_getpid);
	printf("errno %s\n", errno == 4242 ? "kept" : "changed");
	/* an openat2 whose how pointer is bad: the kernel's EFAULT, no crash */
	say("openat2-efault", syscall(SYS_openat2, AT_FDCWD, key, (void *)8, sizeof(how)));
	return 0;
}
