/* common/reap.h: a subreaper's end, where no pid namespace ends with it
 * (the nested mode: sbx-init, and sbx-preload above it). */
#ifndef SBX_COMMON_REAP_H
#define SBX_COMMON_REAP_H

/* SIGKILL every child /proc lists for the calling thread (never
 * kill(-1), which without a pid namespace is every process of the
 * user's): how many were listed, or -errno when the list cannot be
 * read. The caller reaps, then asks again (an orphan their death hands
 * a subreaper is its child from then on). */
int reap_kill_children(void);

#endif
