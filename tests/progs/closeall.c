/* tests/progs/closeall.c: close every descriptor, then open a denied file.
 *
 *   closeall high DENIED   close 3 and up (close_range, else a loop to
 *                          1024), open DENIED, then write to stdout and to
 *                          out.txt, which gets a low descriptor
 *   closeall all DENIED    close 0 to 1023 as well, open DENIED, then
 *                          open out.txt (descriptor 0) and write there
 *
 * What it writes must arrive intact: the shim must not have kept a
 * descriptor that the program's own files now reuse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void close_from(unsigned first)
{
	if (close_range(first, ~0U, 0) == 0)
		return;
	for (int fd = (int)first; fd < 1024; fd++)
		close(fd);
}

static void put(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

int main(int argc, char **argv)
{
	char line[128];

	if (argc != 3)
		return 2;
	int all = !strcmp(argv[1], "all");
	close_from(all ? 0 : 3);
	int fd = open(argv[2], O_RDONLY);
	int err = fd < 0 ? errno : 0;
	int out = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return 3;
	snprintf(line, sizeof(line), "DENIED-OPEN %s\n", err ? strerrorname_np(err) : "OK");
	put(out, line);
	for (int i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "PAYLOAD-%03d\n", i);
		put(out, line);
		/* a second denied attempt between writes */
		if (i == 50 && open(argv[2], O_RDONLY) >= 0)
			put(out, "SECOND-OPEN-OK\n");
		if (!all)
			put(1, line);
	}
	close(out);
	return 0;
}
