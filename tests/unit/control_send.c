/* tests/unit/control_send.c: one control message as ctl_send() frames it
 * (common/control.h): the type byte, the payload, the descriptors,
 * one datagram on the SOCK_SEQPACKET pair sbx-preload and sbx-init share. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common/control.h"

static int pair[2];

static void setup(void)
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
}

static void teardown(void)
{
	close(pair[0]);
	close(pair[1]);
}

/* One datagram: its bytes, and the descriptors of its SCM_RIGHTS. */
static ssize_t take(char *buf, size_t size, int *fds, size_t *nfds, int *flags)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(CTL_FDS_MAX * sizeof(int))];
	} cm;
	struct iovec iov = { buf, size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	ssize_t n = recvmsg(pair[1], &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	*nfds = 0;
	*flags = mh.msg_flags;
	for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c)) {
		cr_assert_eq(c->cmsg_level, SOL_SOCKET);
		cr_assert_eq(c->cmsg_type, SCM_RIGHTS);
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds + *nfds, CMSG_DATA(c), k * sizeof(int));
		*nfds += k;
	}
	return n;
}

TestSuite(control_send, .init = setup, .fini = teardown);

Test(control_send, type_then_payload_in_one_datagram)
{
	char buf[64];
	int fds[CTL_FDS_MAX];
	size_t nfds;
	int flags;

	cr_assert_eq(ctl_send(pair[0], CTL_OPTS, "--a\0--bb", 9, NULL, 0), 0);
	cr_assert_eq(ctl_send(pair[0], CTL_READY, NULL, 0, NULL, 0), 0);
	cr_assert_eq(take(buf, sizeof(buf), fds, &nfds, &flags), 10);
	cr_assert_eq(buf[0], 'A');
	cr_assert_eq(memcmp(buf + 1, "--a\0--bb", 9), 0);
	cr_assert_eq(nfds, 0);
	/* the next message is its own datagram: "R" alone */
	cr_assert_eq(take(buf, sizeof(buf), fds, &nfds, &flags), 1);
	cr_assert_eq(buf[0], 'R');
	cr_assert_eq(nfds, 0);
}

Test(control_send, descriptors_travel_with_their_message)
{
	char buf[64], kinds[] = { CTL_LISTEN_HTTP, CTL_LISTEN_SOCKS };
	int fds[CTL_FDS_MAX], out[2] = { open("/dev/null", O_RDONLY), open("/", O_RDONLY) };
	struct stat a, b;
	size_t nfds;
	int flags;

	cr_assert_eq(ctl_send(pair[0], CTL_LISTENERS, kinds, 2, out, 2), 0);
	cr_assert_eq(take(buf, sizeof(buf), fds, &nfds, &flags), 3);
	cr_assert_eq(memcmp(buf, "Nhs", 3), 0);
	cr_assert_eq(nfds, 2);
	cr_assert_eq(flags & (MSG_TRUNC | MSG_CTRUNC), 0);
	/* the same files, in order */
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(fstat(out[i], &a), 0);
		cr_assert_eq(fstat(fds[i], &b), 0);
		cr_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino, "descriptor %d", i);
		close(out[i]);
		close(fds[i]);
	}
}

Test(control_send, too_many_descriptors_refused_nothing_sent)
{
	int many[CTL_FDS_MAX + 1];
	char buf[8];
	int fds[CTL_FDS_MAX];
	size_t nfds;
	int flags;

	for (size_t i = 0; i < CTL_FDS_MAX + 1; i++)
		many[i] = 0;
	cr_assert_eq(ctl_send(pair[0], CTL_GO, NULL, 0, many, CTL_FDS_MAX + 1), -EINVAL);
	cr_assert_eq(take(buf, sizeof(buf), fds, &nfds, &flags), -1);
	cr_assert_eq(errno, EAGAIN);
}

Test(control_send, closed_peer_is_an_error_not_a_signal)
{
	close(pair[1]);
	pair[1] = open("/dev/null", O_RDONLY); /* for teardown */
	/* MSG_NOSIGNAL: EPIPE, and the test process is still here */
	cr_assert_eq(ctl_send(pair[0], CTL_GONE, "\0", 1, NULL, 0), -EPIPE);
}
