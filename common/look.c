/* common/look.c: look.h. Linked into the shim too: nothing here calls
 * the C library but its string functions; every system call is the
 * caller's (struct look_ops). */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "common/look.h"

int look_walk(const char *path, const struct look_ops *ops)
{
	char comp[NAME_MAX + 1];
	struct stat st;
	int found = -1, fd;

	if (path[0] != '/' || (fd = ops->open_root()) < 0)
		return -1;
	if (path[strspn(path, "/")] == '\0')
		found = 1; /* `/` itself */
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0) {
			p++;
			continue;
		}
		if (n > NAME_MAX || (n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			break;
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		p += strspn(p, "/");
		if (ops->stat_at(fd, comp, &st)) {
			found = errno == ENOENT ? 0 : -1;
			break;
		}
		if (S_ISLNK(st.st_mode))
			break; /* a link, on the way or at the end: not looked through */
		if (!*p) {
			found = 1;
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			found = 0; /* as ENOTDIR: nothing is below a file */
			break;
		}
		int next = ops->open_dir(fd, comp);
		if (next < 0) {
			found = errno == ENOENT || errno == ENOTDIR ? 0 : -1;
			break;
		}
		ops->close_fd(fd);
		fd = next;
	}
	ops->close_fd(fd);
	return found;
}
