/* tests/progs/sysescape.c: system calls the seccomp table refuses, made raw
 * (built static, so no shim can be what refuses). Each step prints one line,
 * `STEP: ok` (with what it got) or `STEP: <strerror>`.
 *
 *   sysescape key-session DESC SECRET CMD...
 *                                   join a new session keyring, add a "user"
 *                                   key to it, exec CMD (which inherits it)
 *   sysescape key-read DESC         find it there and print its payload
 *   sysescape bpf                   create an array map
 *   sysescape perf                  a user-only task-clock counter on itself
 *   sysescape uffd                  userfaultfd(UFFD_USER_MODE_ONLY)
 *   sysescape mount                 unshare(CLONE_NEWNS), mount a tmpfs,
 *                                   fsopen("tmpfs")
 *   sysescape personality           set READ_IMPLIES_EXEC, then query
 *   sysescape packet                socket(AF_PACKET), socket(AF_INET, SOCK_RAW)
 *   sysescape netlink               NETLINK_ROUTE, then NETLINK_KOBJECT_UEVENT
 *   sysescape setns                 setns() into our own network namespace
 *   sysescape userns                unshare(CLONE_NEWUSER), clone(CLONE_NEWUSER)
 *   sysescape tiocsti               ioctl(0, TIOCSTI) (stdin is /dev/null: the
 *                                   kernel itself would say ENOTTY)
 *   sysescape uring                 io_uring_setup()
 *   sysescape vsock                 socket(AF_VSOCK) (a way to the VM's host)
 *   sysescape fastopen              sendto(MSG_FASTOPEN) on a fresh TCP socket
 *                                   to 127.0.0.1:9 (a connect past connect())
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef AF_PACKET
#define AF_PACKET 17
#endif

static long say(const char *step, long rc)
{
	if (rc < 0)
		printf("%s: %s\n", step, strerror(errno));
	else
		printf("%s: ok\n", step);
	fflush(stdout);
	return rc;
}

static long find_key(const char *desc)
{
	return syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", desc, 0);
}

/* A session keyring of our own (gone with the last process holding it),
 * the key in it, then CMD, which inherits the keyring. */
static int key_session(char **argv)
{
	if (say("join session keyring", syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL)) < 0 ||
	    say("add_key", syscall(SYS_add_key, "user", argv[0], argv[1], strlen(argv[1]),
				   KEY_SPEC_SESSION_KEYRING)) < 0)
		return 1;
	execvp(argv[2], argv + 2);
	return say("exec", -1), 1;
}

static int keys(const char *desc)
{
	char buf[256];
	long id, n;

	if ((id = say("keyctl search", find_key(desc))) < 0)
		return 1;
	n = say("keyctl read", syscall(SYS_keyctl, KEYCTL_READ, id, buf, sizeof(buf) - 1));
	if (n < 0)
		return 1;
	buf[n < (long)sizeof(buf) ? n : (long)sizeof(buf) - 1] = '\0';
	printf("payload: %s\n", buf);
	return 0;
}

static int bpf_map(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	return say("bpf", syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a))) < 0;
}

static int perf(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return say("perf_event_open", syscall(SYS_perf_event_open, &a, 0, -1, -1, 0)) < 0;
}

static int mounts(void)
{
	say("unshare", syscall(SYS_unshare, CLONE_NEWNS));
	say("mount", syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, NULL));
	return say("fsopen", syscall(SYS_fsopen, "tmpfs", 0)) < 0;
}

static int persona(void)
{
	long before = syscall(SYS_personality, 0xffffffffUL);
	long rc = say("personality READ_IMPLIES_EXEC",
		      syscall(SYS_personality, (unsigned long)(before | READ_IMPLIES_EXEC)));
	long after = syscall(SYS_personality, 0xffffffffUL);

	printf("query: %s\n", after & READ_IMPLIES_EXEC ? "READ_IMPLIES_EXEC set" : "unchanged");
	return rc < 0;
}

static int sockets(void)
{
	say("socket AF_PACKET", syscall(SYS_socket, AF_PACKET, SOCK_RAW, 0));
	return say("socket AF_INET SOCK_RAW", syscall(SYS_socket, AF_INET, SOCK_RAW, 1)) < 0;
}

static int netlink(void)
{
	say("NETLINK_ROUTE", syscall(SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE));
	return say("NETLINK_KOBJECT_UEVENT",
		   syscall(SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_KOBJECT_UEVENT)) < 0;
}

static int join(void)
{
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (say("open ns", fd) < 0)
		return 1;
	return say("setns", syscall(SYS_setns, fd, CLONE_NEWNET)) < 0;
}

static int userns(void)
{
	say("unshare CLONE_NEWUSER", syscall(SYS_unshare, CLONE_NEWUSER));
	long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		_exit(0);
	return say("clone CLONE_NEWUSER", pid) < 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "key-session") && argc >= 5)
		return key_session(argv + 2);
	if (!strcmp(m, "key-read") && argc == 3)
		return keys(argv[2]);
	if (!strcmp(m, "bpf"))
		return bpf_map();
	if (!strcmp(m, "perf"))
		return perf();
	if (!strcmp(m, "uffd"))
		return say("userfaultfd", syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY)) < 0;
	if (!strcmp(m, "mount"))
		return mounts();
	if (!strcmp(m, "personality"))
		return persona();
	if (!strcmp(m, "packet"))
		return sockets();
	if (!strcmp(m, "netlink"))
		return netlink();
	if (!strcmp(m, "setns"))
		return join();
	if (!strcmp(m, "userns"))
		return userns();
	if (!strcmp(m, "tiocsti"))
		return say("TIOCSTI", syscall(SYS_ioctl, 0, TIOCSTI, "x")) < 0;
	if (!strcmp(m, "vsock"))
		return say("socket AF_VSOCK", syscall(SYS_socket, AF_VSOCK, SOCK_STREAM, 0)) < 0;
	if (!strcmp(m, "fastopen")) {
		struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int s = socket(AF_INET, SOCK_STREAM, 0);
		return say("sendto MSG_FASTOPEN", syscall(SYS_sendto, s, "x", 1, MSG_FASTOPEN,
							  &to, sizeof(to))) < 0;
	}
	if (!strcmp(m, "uring")) {
		char params[120] = { 0 };
		return say("io_uring_setup", syscall(SYS_io_uring_setup, 1, params)) < 0;
	}
	fprintf(stderr, "usage: sysescape key-session|key-read|bpf|perf|uffd|mount|"
		"personality|packet|netlink|setns|userns|tiocsti|uring|vsock|fastopen [ARGS]\n");
	return 2;
}
