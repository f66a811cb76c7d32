/* tests/darwin/fifo512.c: a FIFO that takes writes as macOS's does, in
 * the Linux builds that play the Mac's shim (the shim-dyld runner, the
 * shim-writer program; linked with -Wl,--wrap=write, so every write of
 * their own objects, the shim core's among them, comes here).
 *
 * POSIX makes a pipe take a write whole only up to PIPE_BUF: 512 bytes
 * on macOS, 4096 on Linux. Linux's FIFO would keep a 600-byte line whole
 * however many wrote at once, and so hide what a Mac does to it. Here a
 * write of more than 512 bytes into a FIFO goes in 512 bytes at a time
 * (a short write, which the writer must continue, as a non-blocking
 * write into a FIFO with little room gets), the processor given up
 * between the parts: another writer's bytes may come between them, as
 * on a Mac. Anything else is written as it is. */
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAC_PIPE_BUF 512

ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	struct stat st;

	if (n > MAC_PIPE_BUF && !fstat(fd, &st) && S_ISFIFO(st.st_mode)) {
		ssize_t w = __real_write(fd, buf, MAC_PIPE_BUF);
		sched_yield();
		return w;
	}
	return __real_write(fd, buf, n);
}
