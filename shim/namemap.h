/* shim/namemap.h: allowed names as stand-in addresses in 198.18.0.0/15,
 * for the transparent path through the proxy (net.c). Lock-free, no
 * allocation (namemap.c). */
#ifndef SBX_SHIM_NAMEMAP_H
#define SBX_SHIM_NAMEMAP_H

#include <stdbool.h>
#include <stddef.h>

#define SHIM_NAMEMAP_SLOTS 1024
/* The sandbox resolver's stand-ins (net/names.c): 198.19.0.0/16. */
#define SHIM_RESOLVER_STANDINS 0xc6130000u
#define SHIM_NAME_MAX 256
struct in_addr;
/* The address standing for `name` (normalised: lower-case, no trailing
 * dot), the same every time in this process. 0, -EINVAL (empty or too
 * long) or -ENOSPC (the table is full). */
int shim_namemap_addr(const char *name, struct in_addr *out);
/* Is `a` in the stand-in range at all? */
bool shim_namemap_is_ours(const struct in_addr *a);
/* The name `a` stands for, in this process. 0, or -ENOENT (not one of
 * ours: another process's, or never given out), -ENAMETOOLONG. */
int shim_namemap_name(const struct in_addr *a, char *out, size_t outsz);

#endif
