/* common/control.c: sending one control message (control.h), the same
 * code in sbx-preload and sbx-init. No allocation: sbx-init links it. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "common/control.h"

static ssize_t send_again(int sock, const struct msghdr *mh)
{
	ssize_t n;

	while ((n = sendmsg(sock, mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	return n;
}

int ctl_send(int sock, char type, const void *payload, size_t len, const int *fds,
	     size_t nfds)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(CTL_FDS_MAX * sizeof(int))];
	} cm;
	struct iovec iov[2] = { { &type, 1 }, { (void *)payload, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	struct rlimit rl, hi;

	if (nfds > CTL_FDS_MAX)
		return -EINVAL;
	if (nfds) {
		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.b;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	if (send_again(sock, &mh) >= 0)
		return 0;
	if (errno != ETOOMANYREFS || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return -errno;
	hi = (struct rlimit){ rl.rlim_max, rl.rlim_max };
	if (setrlimit(RLIMIT_NOFILE, &hi))
		return -ETOOMANYREFS;
	ssize_t n = send_again(sock, &mh);
	int e = errno;
	setrlimit(RLIMIT_NOFILE, &rl);
	return n >= 0 ? 0 : -e;
}
