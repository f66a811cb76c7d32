/* preload/util.c: small helpers the supervisor's files share. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#include <stdint.h>
#endif

#include "preload/preload.h"

void shell_quote(const char *arg, char *out, size_t outsz)
{
	size_t o = strlen(out);
	bool plain = *arg != '\0';

	for (const char *c = arg; *c && plain; c++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789-_./=:,+@%", *c) != NULL;
	if (plain) {
		snprintf(out + o, outsz - o, "%s", arg);
		return;
	}
	/* '...' with each ' written as '\'' */
	if (o + 1 < outsz)
		out[o++] = '\'';
	for (const char *c = arg; *c && o + 5 < outsz; c++) {
		if (*c == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = *c;
		}
	}
	if (o + 1 < outsz)
		out[o++] = '\'';
	out[o < outsz ? o : outsz - 1] = '\0';
}

/* Where bubblewrap is looked for: system directories only, never $PATH.
 * bubblewrap runs on the host, outside every boundary; a PATH entry the
 * sandbox can write (`.`, an empty entry, ~/bin, node_modules/.bin) would
 * let one run plant the `bwrap` the next run starts. */
const char *const sbx_bwrap_dirs[] = { "/usr/bin", "/usr/local/bin", "/bin",
				       "/run/current-system/sw/bin", NULL };

int find_bwrap(char *out, size_t outsz)
{
	const char *env = getenv("SBX_BWRAP");
	struct stat st;

	if (env && *env) {
		if (env[0] != '/')
			return -EINVAL;
		if ((size_t)snprintf(out, outsz, "%s", env) >= outsz)
			return -ENAMETOOLONG;
		return access(out, X_OK) ? -errno : 0;
	}
	for (size_t i = 0; sbx_bwrap_dirs[i]; i++) {
		if ((size_t)snprintf(out, outsz, "%s/bwrap", sbx_bwrap_dirs[i]) >= outsz)
			continue;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

int self_path(char *out, size_t outsz)
{
#ifdef __APPLE__
	char raw[PATH_MAX];
	uint32_t n = sizeof(raw);

	if (_NSGetExecutablePath(raw, &n))
		return -ENAMETOOLONG;
	if (outsz < PATH_MAX)
		return -ENAMETOOLONG;
	return realpath(raw, out) ? 0 : -errno;
#else
	ssize_t n = readlink("/proc/self/exe", out, outsz - 1);

	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	if ((size_t)n >= outsz - 1)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
#endif
}
