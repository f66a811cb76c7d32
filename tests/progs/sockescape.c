/* tests/progs/sockescape.c: ways to make a Unix socket that a seccomp filter
 * reading only the 64-bit system call number and arguments would miss.
 * Built static (no shim can be what refuses) and non-PIE (its data sits
 * below 4 GiB, where the i386 entry point can address it).
 *
 *   sockescape wide ADDR      socket(0x100000001, SOCK_STREAM): the kernel
 *                             truncates the int to AF_UNIX
 *   sockescape uring-setup    io_uring_setup() only
 *   sockescape uring ADDR     the socket made by IORING_OP_SOCKET, which
 *                             no filter sees, then a plain connect()
 *   sockescape i386 ADDR      socket/connect/write through int $0x80
 *   sockescape x32 ADDR       socket with the x32 bit (0x40000000) in the nr
 *   sockescape pair ADDR      a stream socketpair (must work), then a
 *                             datagram one whose sendto() names ADDR, a
 *                             datagram socket
 *
 * ADDR is a path, or @NAME for an abstract name. Each step prints one line
 * on stdout (`STEP: ok` or `STEP: <strerror>`) before the next starts, so a
 * process the filter kills still shows how far it got. After a connect the
 * program writes its mode's name to the socket, for the server to record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

/* Globals, not locals: the i386 entry point truncates pointers to 32 bits. */
static struct sockaddr_un addr;
static socklen_t addrlen;
static char word[16];

static void say(const char *step, long rc)
{
	if (rc < 0)
		dprintf(1, "%s: %s\n", step, strerror(errno));
	else
		dprintf(1, "%s: ok\n", step);
}

static int set_addr(const char *a)
{
	size_t n = strlen(a);

	if (n >= sizeof(addr.sun_path))
		return -1;
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path, a, n);
	if (a[0] == '@')
		addr.sun_path[0] = '\0'; /* abstract: no trailing NUL counted */
	addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (a[0] != '@'));
	return 0;
}

static int finish(long fd, const char *mode)
{
	long rc;

	if (fd < 0)
		return 1;
	rc = connect((int)fd, (struct sockaddr *)&addr, addrlen);
	say("connect", rc);
	if (rc < 0)
		return 1;
	rc = write((int)fd, mode, strlen(mode));
	say("write", rc);
	return rc < 0;
}

static int wide(const char *mode)
{
	/* syscall(), not socket(): the libc prototype would truncate it first. */
	long fd = syscall(SYS_socket, 0x100000000L | AF_UNIX, (long)SOCK_STREAM, 0L);

	say("socket", fd);
	return finish(fd, mode);
}

static long uring_setup(struct io_uring_params *p)
{
	memset(p, 0, sizeof(*p));
	return syscall(SYS_io_uring_setup, 4L, p);
}

static int uring(const char *mode)
{
	struct io_uring_params p;
	long ring = uring_setup(&p);

	say("io_uring_setup", ring);
	if (ring < 0)
		return 1;
	size_t sqlen = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
	size_t cqlen = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	char *sq = mmap(NULL, sqlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			(int)ring, IORING_OFF_SQ_RING);
	char *cq = mmap(NULL, cqlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			(int)ring, IORING_OFF_CQ_RING);
	struct io_uring_sqe *sqes = mmap(NULL, p.sq_entries * sizeof(*sqes),
					 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
					 (int)ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		say("mmap", -1);
		return 1;
	}
	unsigned *sq_tail = (unsigned *)(sq + p.sq_off.tail);
	unsigned *sq_array = (unsigned *)(sq + p.sq_off.array);
	unsigned *cq_head = (unsigned *)(cq + p.cq_off.head);
	unsigned *cq_tail = (unsigned *)(cq + p.cq_off.tail);
	struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	unsigned tail = __atomic_load_n(sq_tail, __ATOMIC_ACQUIRE);
	unsigned i = tail & *(unsigned *)(sq + p.sq_off.ring_mask);

	memset(&sqes[i], 0, sizeof(sqes[i]));
	sqes[i].opcode = IORING_OP_SOCKET;
	sqes[i].fd = AF_UNIX;       /* domain */
	sqes[i].off = SOCK_STREAM;  /* type */
	sqes[i].len = 0;            /* protocol */
	sq_array[i] = i;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
	long rc = syscall(SYS_io_uring_enter, ring, 1L, 1L, (long)IORING_ENTER_GETEVENTS, NULL, 0L);
	say("io_uring_enter", rc);
	if (rc < 0)
		return 1;
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head) {
		dprintf(1, "IORING_OP_SOCKET: no completion\n");
		return 1;
	}
	int res = cqes[*cq_head & *(unsigned *)(cq + p.cq_off.ring_mask)].res;
	if (res < 0) {
		errno = -res;
		say("IORING_OP_SOCKET", -1);
		return 1;
	}
	say("IORING_OP_SOCKET", res);
	return finish(res, mode);
}

#if defined(__x86_64__)
/* A system call through the i386 entry point (arch AUDIT_ARCH_I386). */
static long int80(long nr, long a, long b, long c)
{
	long rc;

	__asm__ volatile("int $0x80"
			 : "=a"(rc)
			 : "a"(nr), "b"(a), "c"(b), "d"(c)
			 : "memory");
	return rc;
}

static long as_errno(long rc)
{
	if (rc < 0 && rc > -4096) {
		errno = (int)-rc;
		return -1;
	}
	return rc;
}

static int via_int80(const char *mode)
{
	/* i386 numbers: socket 359, connect 362, write 4 (Linux >= 4.3). */
	long fd = as_errno(int80(359, AF_UNIX, SOCK_STREAM, 0));

	say("i386 socket", fd);
	if (fd < 0)
		return 1;
	long rc = as_errno(int80(362, fd, (long)(uintptr_t)&addr, addrlen));
	say("i386 connect", rc);
	if (rc < 0)
		return 1;
	strcpy(word, mode);
	rc = as_errno(int80(4, fd, (long)(uintptr_t)word, (long)strlen(word)));
	say("i386 write", rc);
	return rc < 0;
}

static int via_x32(const char *mode)
{
	/* x32 shares x86_64's arch and numbers, with bit 30 set in the nr. */
	long fd = syscall(0x40000000L | SYS_socket, (long)AF_UNIX, (long)SOCK_STREAM, 0L);

	say("x32 socket", fd);
	return finish(fd, mode);
}
#else
static int via_int80(const char *mode)
{
	dprintf(1, "%s: x86_64 only\n", mode);
	return 3;
}
#define via_x32 via_int80
#endif

static int pair(const char *mode)
{
	int sv[2];
	long rc = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);

	say("socketpair stream", rc);
	rc = socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv);
	say("socketpair dgram", rc);
	if (rc < 0)
		return 1;
	rc = sendto(sv[0], mode, strlen(mode), 0, (struct sockaddr *)&addr, addrlen);
	say("sendto", rc);
	return rc < 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "uring-setup")) {
		struct io_uring_params p;
		long ring = uring_setup(&p);
		say("io_uring_setup", ring);
		return ring < 0;
	}
	if (argc != 3 || set_addr(argv[2])) {
		dprintf(2, "usage: sockescape wide|uring|i386|x32|pair PATH|@NAME\n");
		return 2;
	}
	if (!strcmp(argv[1], "wide"))
		return wide(argv[1]);
	if (!strcmp(argv[1], "uring"))
		return uring(argv[1]);
	if (!strcmp(argv[1], "i386"))
		return via_int80(argv[1]);
	if (!strcmp(argv[1], "pair"))
		return pair(argv[1]);
	if (!strcmp(argv[1], "x32"))
		return via_x32(argv[1]);
	dprintf(2, "sockescape: unknown mode %s\n", argv[1]);
	return 2;
}
