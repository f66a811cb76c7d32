/* preload/darwin_programs.c: the programs and the shim sbx on macOS uses
 * (darwin_programs.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "policy/policy.h"
#include "preload/config.h"
#include "preload/darwin_programs.h"

#ifdef SBX_DARWIN_STANDINS
/* SBX_DARWIN_STANDINS/NAME in the directory of self */
static int standin(const char *self, const char *name, char *out, size_t outsz)
{
	const char *slash = self ? strrchr(self, '/') : NULL;

	if (!slash)
		return -ENOENT;
	return sbx_path_fmt(out, outsz, "%.*s/%s/%s", (int)(slash - self), self,
			    SBX_DARWIN_STANDINS, name) ? -ENAMETOOLONG : 0;
}
#endif

int darwin_program(const char *self, const char *name, char *out, size_t outsz)
{
#ifdef SBX_DARWIN_STANDINS
	return standin(self, name, out, outsz);
#else
	(void)self;
	return sbx_path_fmt(out, outsz, "/usr/bin/%s", name) ? -ENAMETOOLONG : 0;
#endif
}

int darwin_find_shim(const char *self, char *out, size_t outsz)
{
#ifdef SBX_DARWIN_STANDINS
	int rc = standin(self, "libsbx-preload.dylib", out, outsz);
	return rc ? rc : access(out, R_OK) ? -errno : 0;
#else
	(void)self;
	return config_find_helper("libsbx-preload.dylib", "SBX_SHIM_DYLIB", R_OK, out, outsz);
#endif
}
