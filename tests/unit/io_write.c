/* tests/unit/io_write.c: io_write_all() (common/io.h), the one writer of
 * whole buffers the supervisor's files (the shim's policy on macOS, the
 * walk's record) and sbx-init's SOCKS relay share: on through short
 * writes, and a failure's errno. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common/io.h"

#define BIG (1024 * 1024) /* many times a pipe's capacity */

struct drain {
	int fd;
	char *buf;
	size_t got;
};

static void *drain(void *arg)
{
	struct drain *d = arg;
	ssize_t n;

	while ((n = read(d->fd, d->buf + d->got, BIG - d->got)) > 0)
		d->got += (size_t)n;
	return NULL;
}

Test(io_write, a_buffer_larger_than_the_pipe_arrives_whole_and_in_order)
{
	int p[2];
	char *src = malloc(BIG);
	struct drain d = { .buf = malloc(BIG) };
	pthread_t t;

	cr_assert(src && d.buf);
	for (size_t i = 0; i < BIG; i++)
		src[i] = (char)(i * 7 + i / 251);
	cr_assert_eq(pipe(p), 0);
	d.fd = p[0];
	cr_assert_eq(pthread_create(&t, NULL, drain, &d), 0);
	cr_assert_eq(io_write_all(p[1], src, BIG), 0);
	close(p[1]);
	pthread_join(t, NULL);
	cr_assert_eq(d.got, (size_t)BIG);
	cr_assert(memcmp(src, d.buf, BIG) == 0);
	close(p[0]);
	free(src);
	free(d.buf);
}

/* A file size limit gives one short write, then EFBIG: what fits is
 * written, and the error is the second write's */
Test(io_write, a_short_write_goes_on_and_the_next_failure_is_its_errno)
{
	char path[] = "/tmp/sbx-io-write.XXXXXX";
	int fd = mkstemp(path);
	struct rlimit rl = { 100, 100 };
	char buf[300];
	struct stat st;

	cr_assert_geq(fd, 0);
	unlink(path);
	memset(buf, 'x', sizeof(buf));
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	cr_assert_eq(io_write_all(fd, buf, 60), 0);
	cr_assert_eq(io_write_all(fd, buf, sizeof(buf)), -EFBIG);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_size, 100);
	close(fd);
}

Test(io_write, a_reader_gone_is_epipe)
{
	int p[2];

	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(pipe(p), 0);
	close(p[0]);
	cr_assert_eq(io_write_all(p[1], "x", 1), -EPIPE);
	close(p[1]);
}

Test(io_write, nothing_to_write_writes_nothing)
{
	cr_assert_eq(io_write_all(-1, "", 0), 0);
}
