/* tests/progs/notifyprobe.c: the calls the seccomp notify layer decides,
 * made by a static binary (no shim can be what refuses), one per mode:
 *
 *   notifyprobe create PATH            open(O_CREAT|O_WRONLY|O_TRUNC), write "evil"
 *   notifyprobe mkdirs PATH            mkdir of every missing component
 *   notifyprobe rename FROM TO         rename(2)
 *   notifyprobe link FROM TO           link(2)
 *   notifyprobe symlink TARGET LINK    symlink(2)
 *   notifyprobe unlink PATH            unlink(2)
 *   notifyprobe rmdir PATH             rmdir(2)
 *   notifyprobe chmod PATH             chmod(2) to 0666
 *   notifyprobe fchmod PATH            open(O_RDONLY), fchmod(2) to 0666
 *   notifyprobe setxattr PATH          setxattr(2) user.sbx = "evil"
 *   notifyprobe fsetxattr PATH         open(O_RDONLY), fsetxattr(2) the same
 *   notifyprobe removexattr PATH       removexattr(2) user.keep
 *   notifyprobe connect PATH WORD      AF_UNIX stream connect, then write WORD
 *   notifyprobe race-open GOOD BAD S   one thread flips a path buffer between
 *                                      GOOD and BAD for S seconds while another
 *                                      opens it with O_CREAT (and unlinks GOOD)
 *   notifyprobe race-connect GOOD BAD S  the same with connect() and WORD "race"
 *   notifyprobe race-bind-family PATH S  one thread flips a Unix socket's
 *                                      address between AF_INET and AF_UNIX
 *                                      (path PATH) for S seconds while another
 *                                      binds new Unix sockets to it
 *   notifyprobe race-bind-swap PATH S  the same with AF_NETLINK for AF_INET, and a
 *                                      third thread dup2()ing a netlink and a
 *                                      Unix socket in turn onto the number bound
 *   notifyprobe addrlen                bind and connect with address lengths from
 *                                      0 to past any address (and -1), one line
 *                                      each: the kernel's answers, to compare
 *   notifyprobe flood DIR THREADS N    THREADS threads each create N files in DIR
 *   notifyprobe churn DIR N            N children, each killed while it loops on
 *                                      creates, then one create more
 *   notifyprobe killflood DIR N T      N children of T threads each, looping on
 *                                      creates and on connect() to 192.0.2.7:80,
 *                                      each child SIGKILLed 0-6 ms after it
 *                                      started, then one create more
 *   notifyprobe hold DIR               create DIR/alive-PID, then loop on creates
 *   notifyprobe rounds DIR N           N rounds of the calls the notify layer
 *                                      answers by every way out: a file made,
 *                                      opened again, made again O_EXCL, a
 *                                      directory made twice, a link, a
 *                                      protected name, removals, a Unix socket
 *                                      bound and connected, connects to no
 *                                      socket; one line counting what worked
 *
 * Each step prints one line (`STEP: ok` or `STEP: <strerror>`).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <arpa/inet.h>
#include <netinet/in.h>
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

static int create(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, "evil\n", 5) != 5)
			fd = -1;
		close(fd);
	}
	return fd < 0 ? -1 : 0;
}

/* SQLite's way (unixOpen): O_RDWR | O_CREAT | O_NOFOLLOW, once to make the
 * file and again on the file that is there; both must be writable. */
static int reopen_nofollow(const char *path)
{
	for (int i = 0; i < 2; i++) {
		int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		int w = (int)write(fd, i ? "two\n" : "one\n", 4);
		close(fd);
		if (w != 4)
			return -1;
	}
	return 0;
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

static int unix_connect(const char *path, const char *word)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0)
		return -1;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	int rc = connect(s, (struct sockaddr *)&a, sizeof(a));
	if (!rc && write(s, word, strlen(word)) < 0)
		rc = -1;
	int e = errno;
	close(s);
	errno = e;
	return rc;
}

/* ---- the races */

static char shared[4096];
static const char *good, *bad;
static volatile int stop;

static void *flipper(void *arg)
{
	size_t gl = strlen(good), bl = strlen(bad);
	while (!stop) {
		memcpy(shared, bad, bl + 1);
		memcpy(shared, good, gl + 1);
	}
	return arg;
}

static int race_open(int seconds)
{
	pthread_t t;
	unsigned long ok = 0, refused = 0;
	time_t end = time(NULL) + seconds;

	memcpy(shared, good, strlen(good) + 1);
	pthread_create(&t, NULL, flipper, NULL);
	while (time(NULL) < end) {
		/* the path in the buffer the other thread rewrites */
		int fd = open(shared, O_CREAT | O_WRONLY, 0644);
		if (fd >= 0) {
			ok++;
			close(fd);
			unlink(good);
		} else {
			refused++;
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("race: %lu done, %lu refused\n", ok, refused);
	return 0;
}

/* connect() reads the address from the program's memory: for the race the
 * address itself must live where the flipper writes. */
static struct {
	sa_family_t family;
	char path[108];
} live_addr;

static void *flip_addr(void *arg)
{
	size_t gl = strlen(good), bl = strlen(bad);
	while (!stop) {
		memcpy(live_addr.path, bad, bl + 1);
		memcpy(live_addr.path, good, gl + 1);
	}
	return arg;
}

static int race_connect(int seconds)
{
	pthread_t t;
	unsigned long ok = 0, refused = 0;
	time_t end = time(NULL) + seconds;

	live_addr.family = AF_UNIX;
	memcpy(live_addr.path, good, strlen(good) + 1);
	pthread_create(&t, NULL, flip_addr, NULL);
	while (time(NULL) < end) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (!connect(s, (struct sockaddr *)&live_addr, sizeof(live_addr)) &&
		    write(s, "race", 4) == 4)
			ok++;
		else
			refused++;
		close(s);
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("race: %lu done, %lu refused\n", ok, refused);
	return 0;
}

/* bind() on a Unix socket with an address whose family a thread flips:
 * a check that sees AF_INET must not let the kernel read it again (it
 * would find AF_UNIX and a path nobody checked). */
static volatile sa_family_t other_family = AF_INET;

static void *flip_family(void *arg)
{
	while (!stop) {
		live_addr.family = other_family;
		__asm__ volatile("" ::: "memory");
		live_addr.family = AF_UNIX;
		__asm__ volatile("" ::: "memory");
	}
	return arg;
}

static int race_bind_family(const char *path, int seconds)
{
	pthread_t t;
	unsigned long bound = 0, refused = 0;
	time_t end = time(NULL) + seconds;

	live_addr.family = AF_UNIX;
	snprintf(live_addr.path, sizeof(live_addr.path), "%s", path);
	pthread_create(&t, NULL, flip_family, NULL);
	while (time(NULL) < end) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (!bind(s, (struct sockaddr *)&live_addr, sizeof(live_addr)))
			bound++; /* left there: the host sees what was made */
		else
			refused++;
		close(s);
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("race-bind: %lu bound, %lu refused\n", bound, refused);
	return 0;
}

/* bind() on a descriptor number a thread keeps turning from a netlink
 * socket into a Unix one, with an address flipping between the two
 * families: the check must not let the kernel look either up again. */
static volatile int swap_nl = -1, swap_un = -1;
#define SWAP_FD 100
#define NETLINK_ROUTE 0 /* linux/netlink.h: not in every libc's headers */

static void *swap_fd(void *arg)
{
	while (!stop) {
		dup2(swap_nl, SWAP_FD);
		dup2(swap_un, SWAP_FD);
	}
	return arg;
}

static int race_bind_swap(const char *path, int seconds)
{
	pthread_t t, u;
	unsigned long bound = 0, refused = 0;
	time_t end = time(NULL) + seconds;

	live_addr.family = AF_UNIX;
	snprintf(live_addr.path, sizeof(live_addr.path), "%s", path);
	other_family = AF_NETLINK;
	swap_nl = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	swap_un = socket(AF_UNIX, SOCK_STREAM, 0);
	if (swap_nl < 0 || swap_un < 0)
		return say("race-bind-swap socket", -1) ? 1 : 0;
	pthread_create(&t, NULL, flip_family, NULL);
	pthread_create(&u, NULL, swap_fd, NULL);
	while (time(NULL) < end) {
		if (!bind(SWAP_FD, (struct sockaddr *)&live_addr, sizeof(live_addr))) {
			if (!access(path, F_OK)) {
				bound++; /* left there: the host sees it */
				break;
			}
			/* a netlink socket took a port id: a fresh one */
			int old = swap_nl;
			swap_nl = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
			close(old);
		} else {
			refused++;
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	pthread_join(u, NULL);
	printf("race-bind-swap: %lu bound, %lu refused\n", bound, refused);
	return 0;
}

/* The address length, as the program chooses it: 0, short, exact, past
 * any address (the kernel: EINVAL), -1; and a Unix name of all 108 bytes,
 * without a NUL (bound here, in the working directory: "a..."). */
static void addr_try(int domain, const void *addr, unsigned len, const char *what)
{
	int s = socket(domain, SOCK_STREAM, 0);
	int rc = !strcmp(what, "bind") ? bind(s, addr, len) : connect(s, addr, len);
	printf("%s %s len %d: %s\n", domain == AF_UNIX ? "unix" : "inet", what, (int)len,
	       rc ? strerror(errno) : "ok");
	close(s);
}

static int addrlen(void)
{
	static const unsigned inet_lens[] = { 0, 1, 16, 128, 129, 200, 0xffffffffu };
	static const unsigned unix_lens[] = { 2, 110, 111, 128, 129 };
	struct sockaddr_storage to = { 0 }, at = { 0 };
	struct sockaddr_in *in = (struct sockaddr_in *)&to;
	char un[256];
	struct sockaddr_un su;

	in->sin_family = AF_INET;
	in->sin_port = htons(1);
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	((struct sockaddr_in *)&at)->sin_family = AF_INET;
	((struct sockaddr_in *)&at)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (size_t i = 0; i < sizeof(inet_lens) / sizeof(*inet_lens); i++) {
		addr_try(AF_INET, &to, inet_lens[i], "connect");
		addr_try(AF_INET, &at, inet_lens[i], "bind");
	}
	memset(&su, 'a', sizeof(su));
	su.sun_family = AF_UNIX;
	memset(un, 'b', sizeof(un));
	memcpy(un, &su, sizeof(su));
	for (size_t i = 0; i < sizeof(unix_lens) / sizeof(*unix_lens); i++) {
		addr_try(AF_UNIX, un, unix_lens[i], "bind");
		addr_try(AF_UNIX, un, unix_lens[i], "connect");
	}
	addr_try(AF_INET, NULL, 16, "connect");
	return 0;
}

/* ---- load */

static const char *flood_dir;
static int flood_n;

static void *flood_one(void *arg)
{
	char p[4096];
	long id = (long)arg;
	for (int i = 0; i < flood_n; i++) {
		snprintf(p, sizeof(p), "%s/t%ld-%d", flood_dir, id, i);
		if (create(p))
			return (void *)1;
	}
	return NULL;
}

static int flood(const char *dir, int threads, int n)
{
	pthread_t t[256];
	int failed = 0;

	flood_dir = dir;
	flood_n = n;
	if (threads > 256)
		threads = 256;
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, flood_one, (void *)i);
	for (int i = 0; i < threads; i++) {
		void *r;
		pthread_join(t[i], &r);
		failed += r != NULL;
	}
	printf("flood: %d threads failed\n", failed);
	return failed ? -1 : 0;
}

static int churn(const char *dir, int n)
{
	char p[4096];
	for (int i = 0; i < n; i++) {
		pid_t c = fork();
		if (c == 0) {
			for (int k = 0;; k++) {
				snprintf(p, sizeof(p), "%s/c%d-%d", dir, i, k % 50);
				create(p);
			}
		}
		usleep(20000);
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
	snprintf(p, sizeof(p), "%s/after-churn", dir);
	return say("after-churn", create(p));
}

/* killflood: threads in the middle of notified calls when SIGKILL comes,
 * some between the supervisor's poll() and its receive */
static const char *kf_dir;

static void *kf_thread(void *arg)
{
	char p[4096];
	long id = (long)arg;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(80) };

	inet_pton(AF_INET, "192.0.2.7", &sa.sin_addr);
	for (int k = 0;; k++) {
		if (id % 4 == 3) {
			int s = socket(AF_INET, SOCK_STREAM, 0);
			connect(s, (struct sockaddr *)&sa, sizeof(sa));
			close(s);
			continue;
		}
		snprintf(p, sizeof(p), "%s/k%d-%ld-%d", kf_dir, (int)getpid(), id, k % 8);
		create(p);
	}
	return NULL;
}

static int killflood(const char *dir, int n, int threads)
{
	char p[4096];

	kf_dir = dir;
	for (int i = 0; i < n; i++) {
		pid_t c = fork();
		if (c == 0) {
			pthread_t t;
			for (long k = 1; k < threads; k++)
				pthread_create(&t, NULL, kf_thread, (void *)k);
			kf_thread((void *)0);
		}
		usleep((useconds_t)(i % 7) * 1000);
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
	snprintf(p, sizeof(p), "%s/after-killflood", dir);
	return say("after-killflood", create(p));
}

static __attribute__((noreturn)) void hold(const char *dir)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/alive-%d", dir, (int)getpid());
	say("alive", create(p));
	for (int k = 0;; k++) {
		snprintf(p, sizeof(p), "%s/h%d", dir, k % 10);
		create(p);
		usleep(1000);
	}
}

static int rounds(const char *dir, int n)
{
	char p[4096], q[4096];
	int made = 0, refused = 0, wrong = 0;

	for (int i = 0; i < n; i++) {
		struct sockaddr_un su = { .sun_family = AF_UNIX };
		snprintf(p, sizeof(p), "%s/f%d", dir, i);
		made += !create(p);                      /* new */
		made += !create(p);                      /* there: opened again */
		int fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		wrong += fd >= 0 || errno != EEXIST;     /* there: EEXIST */
		if (fd >= 0)
			close(fd);
		snprintf(q, sizeof(q), "%s/d%d", dir, i);
		made += !mkdir(q, 0755);
		wrong += !mkdir(q, 0755) || errno != EEXIST;
		snprintf(q, sizeof(q), "%s/l%d", dir, i);
		made += !symlink("f0", q);
		snprintf(q, sizeof(q), "%s/d%d/.env", dir, i);
		refused += create(q) != 0;               /* deny_write = .env */
		refused += unlink(q) != 0;               /* protected, made or not */
		made += !unlink(p);
		snprintf(su.sun_path, sizeof(su.sun_path), "%s/s%d", dir, i);
		int s = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
		made += s >= 0 && !bind(s, (struct sockaddr *)&su, sizeof(su)) && !listen(s, 1) &&
			!connect(c, (struct sockaddr *)&su, sizeof(su));
		snprintf(su.sun_path, sizeof(su.sun_path), "%s/none%d", dir, i);
		wrong += !connect(c, (struct sockaddr *)&su, sizeof(su)); /* not there */
		snprintf(su.sun_path, sizeof(su.sun_path), "%s/d%d", dir, i);
		int c2 = socket(AF_UNIX, SOCK_STREAM, 0);
		wrong += !connect(c2, (struct sockaddr *)&su, sizeof(su)); /* no socket */
		close(c2);
		close(c);
		close(s);
	}
	printf("rounds: %d made, %d refused, %d wrong\n", made, refused, wrong);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "create"))
		return say("create", create(argv[2])) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "reopen-nofollow"))
		return say("reopen-nofollow", reopen_nofollow(argv[2])) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "mkdirs"))
		return say("mkdirs", mkdirs(argv[2])) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "rename"))
		return say("rename", rename(argv[2], argv[3])) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "link"))
		return say("link", link(argv[2], argv[3])) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "symlink"))
		return say("symlink", symlink(argv[2], argv[3])) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "unlink"))
		return say("unlink", unlink(argv[2])) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "rmdir"))
		return say("rmdir", rmdir(argv[2])) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "chmod"))
		return say("chmod", chmod(argv[2], 0666)) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "fchmod")) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		return say("fchmod", fd < 0 ? -1 : fchmod(fd, 0666)) ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "setxattr"))
		return say("setxattr", setxattr(argv[2], "user.sbx", "evil", 4, 0)) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "fsetxattr")) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		return say("fsetxattr", fd < 0 ? -1 : fsetxattr(fd, "user.sbx", "evil", 4, 0)) ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "removexattr"))
		return say("removexattr", removexattr(argv[2], "user.keep")) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "connect"))
		return say("connect", unix_connect(argv[2], argv[3])) ? 1 : 0;
	if (argc == 5 && !strcmp(argv[1], "race-open")) {
		good = argv[2];
		bad = argv[3];
		return race_open(atoi(argv[4]));
	}
	if (argc == 5 && !strcmp(argv[1], "race-connect")) {
		good = argv[2];
		bad = argv[3];
		return race_connect(atoi(argv[4]));
	}
	if (argc == 2 && !strcmp(argv[1], "addrlen"))
		return addrlen();
	if (argc == 4 && !strcmp(argv[1], "race-bind-swap"))
		return race_bind_swap(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "race-bind-family"))
		return race_bind_family(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "flood"))
		return flood(argv[2], atoi(argv[3]), atoi(argv[4])) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "churn"))
		return churn(argv[2], atoi(argv[3])) ? 1 : 0;
	if (argc == 5 && !strcmp(argv[1], "killflood"))
		return killflood(argv[2], atoi(argv[3]), atoi(argv[4])) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "rounds"))
		return rounds(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "hold"))
		hold(argv[2]);
	fprintf(stderr, "notifyprobe: unknown mode\n");
	return 2;
}
