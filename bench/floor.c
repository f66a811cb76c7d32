/* bench/floor.c: the boundary alone, for bench/startup's floor.
 *
 * What a start costs with none of the supervisor's own work: bubblewrap
 * given exactly the options sbx-preload built, sbx-init given exactly its
 * options, mount identities, stand-in states and the shim's descriptors,
 * so the namespaces, sbx-init's mounts and filters, the holder, the
 * notify listener, the shim's load in COMMAND and the teardown are all
 * there; the policy, the plan, the walk and the supervisor's own start
 * are not (they were done once, when recorded).
 *
 *   SBX_FLOOR_RECORD=DIR SBX_BWRAP=build/bench/floor sbx-preload ... CMD
 *       sbx-preload runs this in bubblewrap's place; it writes to DIR what
 *       sbx-preload sent (bubblewrap's argv and --args, the environment,
 *       the control messages up to "go" and the descriptors "go" carried)
 *       and exits 125 (the run fails: nothing was started)
 *   floor DIR BWRAP
 *       replays it: BWRAP started as sbx-preload starts it (vfork, the
 *       same descriptor numbers), the control messages sent as recorded
 *       with new descriptors of the same kinds and contents, then the
 *       supervisor's side of the protocol with nothing behind it: "n" for
 *       the proxy's listeners, the notify listener held, and the exit at
 *       "X" with its status, as sbx-preload returns there.
 *
 * Replays only what needs no answer from the supervisor: a stand-in made
 * for the recorded run, or a notified call (neither of which /bin/true
 * in bench/startup's workspaces has), stops it with an error. The mount
 * identities are the recorded ones: a workspace changed since the
 * recording fails in sbx-init, as it should.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/control.h"

extern char **environ;

#define MSG_MAX 65536
#define NFD_MAX 8

static void die(const char *what, int err)
{
	dprintf(STDERR_FILENO, "floor: %s%s%s\n", what, err ? ": " : "",
		err ? strerror(err) : "");
	exit(125);
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path, errno);
	for (const char *c = p; n;) {
		ssize_t w = write(fd, c, n);
		if (w < 0)
			die(path, errno);
		c += w;
		n -= (size_t)w;
	}
	close(fd);
}

/* the whole of a descriptor, from its offset (malloc'ed; *n its length) */
static char *read_all(int fd, size_t *n, const char *what)
{
	size_t cap = 65536, len = 0;
	char *b = malloc(cap);
	for (;;) {
		if (!b)
			die(what, ENOMEM);
		ssize_t r = read(fd, b + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die(what, errno);
		if (r == 0)
			break;
		len += (size_t)r;
		if (len == cap)
			b = realloc(b, cap *= 2);
	}
	*n = len;
	return b;
}

static char *read_file(const char *dir, const char *name, size_t *n)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path, errno);
	char *b = read_all(fd, n, path);
	close(fd);
	return b;
}

/* NUL-separated strings as a NULL-terminated vector, with `first` before them */
static char **split(char *b, size_t n, const char *first)
{
	size_t k = 1;
	for (size_t i = 0; i < n; i++)
		k += !b[i];
	char **v = calloc(k + 2, sizeof(*v));
	if (!v)
		die("split", ENOMEM);
	k = 0;
	if (first)
		v[k++] = (char *)first;
	for (size_t i = 0; i < n; i += strlen(b + i) + 1)
		v[k++] = b + i;
	return v;
}

static int argv_fd(char **argv, const char *opt)
{
	size_t l = strlen(opt);
	for (int i = 1; argv[i]; i++) {
		if (!strcmp(argv[i], opt) && argv[i + 1])
			return atoi(argv[i + 1]);
		if (!strncmp(argv[i], opt, l) && argv[i][l] == '=')
			return atoi(argv[i] + l + 1);
	}
	return -1;
}

/* One datagram, with up to NFD_MAX descriptors; its length (0: the end) */
static ssize_t recv_msg(int sock, char *buf, int *fds, size_t *nfds)
{
	union {
		char b[CMSG_SPACE(NFD_MAX * sizeof(int)) + 256];
		struct cmsghdr h;
	} c;
	struct iovec io = { buf, MSG_MAX };
	struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = c.b,
			     .msg_controllen = sizeof(c.b) };
	ssize_t n;
	while ((n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (n < 0)
		die("control socket", errno);
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		die("control socket: a message too long", 0);
	*nfds = 0;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h; h = CMSG_NXTHDR(&mh, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
			*nfds = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(fds, CMSG_DATA(h), *nfds * sizeof(int));
		} else if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_PIDFD) {
			int pidfd;
			memcpy(&pidfd, CMSG_DATA(h), sizeof(pidfd));
			close(pidfd);
		}
	return n;
}

static int record(const char *dir, char **argv)
{
	/* argv: --args N -- sbx-init --ctl=M -- COMMAND... */
	size_t n = 0, len;
	for (int i = 1; argv[i]; i++)
		n += strlen(argv[i]) + 1;
	char *b = malloc(n + 1), *w = b;
	for (int i = 1; argv[i]; i++)
		w = stpcpy(w, argv[i]) + 1;
	write_file(dir, "argv", b, n);
	/* the environment, without the recording's own two */
	n = 0;
	for (char **e = environ; *e; e++)
		n += strlen(*e) + 1;
	b = realloc(b, n + 1);
	w = b;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "SBX_FLOOR_RECORD=", 17) && strncmp(*e, "SBX_BWRAP=", 10))
			w = stpcpy(w, *e) + 1;
	write_file(dir, "env", b, (size_t)(w - b));

	int args = argv_fd(argv, "--args"), ctl = argv_fd(argv, "--ctl");
	if (args < 0 || ctl < 0)
		die("not started as sbx-preload starts bubblewrap (--args, --ctl)", 0);
	b = read_all(args, &len, "--args");
	write_file(dir, "args", b, len);

	/* the control messages up to "go": u32 length, then the bytes */
	char msg[MSG_MAX], name[32];
	int fds[NFD_MAX];
	size_t nfds;
	FILE *out;
	snprintf(b = malloc(PATH_MAX), PATH_MAX, "%s/ctl", dir);
	if (!(out = fopen(b, "w")))
		die(b, errno);
	for (;;) {
		ssize_t m = recv_msg(ctl, msg, fds, &nfds);
		if (m <= 0)
			die("control socket: closed before \"go\"", 0);
		uint32_t l = (uint32_t)m;
		fwrite(&l, sizeof(l), 1, out);
		fwrite(msg, 1, (size_t)m, out);
		if (msg[0] != CTL_GO)
			continue;
		/* "go"'s descriptors: kind, access mode, seals; a memfd's bytes */
		FILE *d;
		snprintf(b, PATH_MAX, "%s/fds", dir);
		if (!(d = fopen(b, "w")))
			die(b, errno);
		for (size_t k = 0; k < nfds; k++) {
			struct stat st;
			if (fstat(fds[k], &st))
				die("fstat", errno);
			int fl = fcntl(fds[k], F_GETFL), seals = fcntl(fds[k], F_GET_SEALS);
			if (S_ISREG(st.st_mode)) {
				char *data = malloc((size_t)st.st_size + 1);
				if (pread(fds[k], data, (size_t)st.st_size, 0) != st.st_size)
					die("a descriptor's bytes", errno);
				snprintf(name, sizeof(name), "fd%zu", k);
				write_file(dir, name, data, (size_t)st.st_size);
				fprintf(d, "file %d %d\n", fl & O_ACCMODE, seals < 0 ? 0 : seals);
			} else if (S_ISFIFO(st.st_mode)) {
				fprintf(d, "pipe %d 0\n", fl & O_ACCMODE);
			} else {
				die("a descriptor in \"go\" of a kind the floor cannot make", 0);
			}
		}
		fclose(d);
		break;
	}
	fclose(out);
	return 125;
}

/* a descriptor like the recorded one k; *keep: the other end of a pipe */
static int make_fd(const char *dir, size_t k, const char *kind, int acc, int seals, int *keep)
{
	if (!strcmp(kind, "pipe")) {
		int p[2];
		if (pipe2(p, O_CLOEXEC))
			die("pipe", errno);
		*keep = acc == O_WRONLY ? p[0] : p[1];
		return acc == O_WRONLY ? p[1] : p[0];
	}
	char name[32];
	size_t n;
	snprintf(name, sizeof(name), "fd%zu", k);
	char *data = read_file(dir, name, &n);
	int fd = memfd_create("sbx-floor", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n)
		die("memfd", errno);
	free(data);
	if (seals && fcntl(fd, F_ADD_SEALS, seals))
		die("seals", errno);
	if (acc == O_RDONLY) { /* the recorded one was read-only: reopen so */
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		int ro = open(path, O_RDONLY | O_CLOEXEC);
		if (ro < 0)
			die("memfd, read-only", errno);
		close(fd);
		fd = ro;
	}
	return fd;
}

static void send_fds(int sock, const char *p, size_t n, const int *fds, size_t nfds)
{
	union {
		char b[CMSG_SPACE(NFD_MAX * sizeof(int))];
		struct cmsghdr h;
	} c;
	struct iovec io = { (void *)p, n };
	struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1 };
	if (nfds) {
		memset(&c, 0, sizeof(c));
		mh.msg_control = c.b;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(&c.h), fds, nfds * sizeof(int));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) != (ssize_t)n)
		die("control socket: send", errno);
}

static int replay(const char *dir, const char *bwrap)
{
	size_t n, alen, clen;
	char *ab = read_file(dir, "argv", &n);
	char **argv = split(ab, n, bwrap);
	char *eb = read_file(dir, "env", &n);
	char **envp = split(eb, n, NULL);
	char *args = read_file(dir, "args", &alen);
	char *ctlmsgs = read_file(dir, "ctl", &clen);
	int args_at = argv_fd(argv, "--args"), ctl_at = argv_fd(argv, "--ctl");
	int sv[2], as[2], one = 1;
	pid_t parent = getpid();

	if (args_at < 3 || ctl_at < 3)
		die("a recording without --args or --ctl", 0);
	/* ours above any number the child needs */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, as))
		die("socketpair", errno);
	for (int i = 0; i < 2; i++) {
		int s = fcntl(sv[i], F_DUPFD_CLOEXEC, 100), a = fcntl(as[i], F_DUPFD_CLOEXEC, 100);
		if (s < 0 || a < 0)
			die("fcntl", errno);
		close(sv[i]);
		close(as[i]);
		sv[i] = s;
		as[i] = a;
	}
	/* as sbx-preload's end (backend/linux/process.c) */
	setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	setsockopt(sv[0], SOL_SOCKET, SO_PASSPIDFD, &one, sizeof(one));
	pid_t pid = vfork();
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent ||
		    dup2(as[1], args_at) < 0 || dup2(sv[1], ctl_at) < 0)
			_exit(125);
		execve(bwrap, argv, envp);
		_exit(125);
	}
	if (pid < 0)
		die("vfork", errno);
	close(as[1]);
	close(sv[1]);
	for (const char *p = args; alen;) {
		ssize_t w = write(as[0], p, alen);
		if (w < 0)
			die("--args", errno);
		p += w;
		alen -= (size_t)w;
	}
	close(as[0]);

	/* the control messages as recorded; "go" with descriptors like its */
	int keep[NFD_MAX], nkeep = 0;
	for (size_t at = 0; at + 4 <= clen;) {
		uint32_t l;
		memcpy(&l, ctlmsgs + at, 4);
		const char *m = ctlmsgs + at + 4;
		at += 4 + l;
		if (m[0] != CTL_GO) {
			send_fds(sv[0], m, l, NULL, 0);
			continue;
		}
		for (uint32_t i = 1; i < l; i++)
			if (m[i] == CTL_NEW_MADE)
				die("the recorded run made a stand-in: the floor cannot replay it", 0);
		int fds[NFD_MAX];
		size_t nfds = 0;
		char path[PATH_MAX], kind[16];
		int acc, seals;
		snprintf(path, sizeof(path), "%s/fds", dir);
		FILE *d = fopen(path, "r");
		while (d && nfds < NFD_MAX && fscanf(d, "%15s %d %d", kind, &acc, &seals) == 3) {
			keep[nkeep] = -1;
			fds[nfds] = make_fd(dir, nfds, kind, acc, seals, &keep[nkeep]);
			nfds++;
			nkeep++;
		}
		if (d)
			fclose(d);
		send_fds(sv[0], m, l, fds, nfds);
		for (size_t k = 0; k < nfds; k++)
			close(fds[k]);
	}

	/* the supervisor's side, with nothing behind it */
	struct pollfd pf[2] = { { sv[0], POLLIN, 0 }, { -1, POLLIN, 0 } };
	char msg[MSG_MAX];
	for (;;) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll", errno);
		}
		if (pf[1].revents & POLLIN) {
			struct seccomp_notif req;
			memset(&req, 0, sizeof(req));
			if (ioctl(pf[1].fd, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0)
				dprintf(2, "floor: notified syscall %d\n", req.data.nr);
			die("a notified call: the floor does not serve the notify layer", 0);
		}
		if (pf[1].revents)
			pf[1].fd = -1;
		if (!pf[0].revents)
			continue;
		int fds[NFD_MAX];
		size_t nfds;
		ssize_t m = recv_msg(sv[0], msg, fds, &nfds);
		if (m <= 0) {
			int st;
			waitpid(pid, &st, 0);
			die("the sandbox ended without \"gone\"", 0);
		}
		switch (msg[0]) {
		case CTL_LISTENERS: /* held, never accepted on */
			send_fds(sv[0], (char[]){ CTL_LISTENERS_SERVED }, 1, NULL, 0);
			break;
		case CTL_NOTIFY:
			if (nfds != 2)
				die("control socket: \"F\" without its two descriptors", 0);
			pf[1].fd = fds[0];
			break;
		case CTL_GONE:
			return m == 2 ? (unsigned char)msg[1] : 125;
		default: /* "R", "S": nothing to do */
			break;
		}
	}
}

int main(int argc, char **argv)
{
	const char *rec = getenv("SBX_FLOOR_RECORD");
	if (rec && *rec)
		return record(rec, argv);
	if (argc != 3) {
		dprintf(STDERR_FILENO, "usage: floor DIR BWRAP (see bench/floor.c)\n");
		return 2;
	}
	return replay(argv[1], argv[2]);
}
