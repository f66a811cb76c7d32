/* common/reap.c: reap.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/reap.h"

int reap_kill_children(void)
{
	char path[64], buf[4096];
	int fd, e, n = 0;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	e = errno;
	close(fd);
	if (len < 0)
		return -e;
	buf[len] = '\0';
	for (char *q = buf; *q; n++) {
		char *end;
		long pid = strtol(q, &end, 10);
		if (end == q)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
		q = end;
	}
	return n;
}
