/* preload/darwin_programs.h: where sbx on macOS finds the programs it
 * runs and the shim it inserts, for sbx-preload (darwin_main.c) and
 * sbxctl (cli/machine_darwin.c) alike, so `sbxctl doctor` looks where a
 * run looks. */
#ifndef SBX_DARWIN_PROGRAMS_H
#define SBX_DARWIN_PROGRAMS_H

#include <stddef.h>

/* Apple's program NAME (sandbox-exec, log, csrutil): /usr/bin/NAME, never
 * from PATH or the environment. The Linux test build (compiled with
 * SBX_DARWIN_STANDINS, a directory name) takes SBX_DARWIN_STANDINS/NAME
 * beside `self` (the running program's path) instead: a choice made at
 * build time, which no variable of the caller's moves. 0, or -ENOENT
 * (self has no directory), -ENAMETOOLONG. */
int darwin_program(const char *self, const char *name, char *out, size_t outsz);

/* The shim, libsbx-preload.dylib: beside the running program or in
 * ../lib/sbx/ ($SBX_SHIM_DYLIB names another), as Linux's is found; the
 * test build's stand-in file in SBX_DARWIN_STANDINS beside `self`. 0 with
 * its path (readable), or -errno: none. */
int darwin_find_shim(const char *self, char *out, size_t outsz);

#endif
