/* shim/shim.h: what the shim's files share. Not installed, not public.
 *
 * Rules for everything the shim runs inside someone else's program:
 *  - no malloc, no locks, no stdio on any path an interposed call takes;
 *    buffers live on the stack, state is set once at start-up;
 *  - errno is what the real call left, or the errno the shim chose;
 *  - every check runs under a per-thread guard, so a libc function the shim
 *    itself calls never comes back into the shim;
 *  - safe in a vfork child and a signal handler: only syscalls and plain
 *    memory reads.
 */
#ifndef SBX_SHIM_H
#define SBX_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

/* errno through a pointer each thread keeps (shim.c): __errno_location()
 * is a page of libc's code that a fork child about to exec would
 * otherwise fault in just for the shim (docs/PERFORMANCE.md). The
 * pointer is the thread's own for its life, and a fork child's thread is
 * its parent's copy. */
extern __thread int *shim_errno_ptr __attribute__((tls_model("initial-exec")));
static inline int *shim_errno(void)
{
	int *p = shim_errno_ptr;

	if (__builtin_expect(!p, 0))
		shim_errno_ptr = p = &errno;
	return p;
}
#define SYS_ERRNO (*shim_errno())

#include "sys.h"
#include "wire.h"

/* Does s start with prefix? By hand, not strncmp(): see shim_errno. */
static inline bool shim_starts(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return false;
	return true;
}

/* Exported symbols are the interposed libc functions; everything else is
 * hidden (-fvisibility=hidden), so the shim's own names and the policy
 * code linked into it never collide with the program's. */
#define SHIM_EXPORT __attribute__((visibility("default")))

/* What start-up writes goes into .data, beside the GOT that the loader's
 * relocations write in every process anyway: zero-initialised, it would
 * sit in .bss and cost each process one more page (docs/PERFORMANCE.md). */
#define SHIM_START_DATA __attribute__((section(".data.sbx_start")))

/* Resolve the next definition of a libc function, once, lazily.
 * GNU C (statement expression, __typeof__): the pointer gets the exact type
 * of libc's own declaration, so a wrapper that forwarded the wrong
 * arguments would not compile. Relaxed atomics: two threads racing here
 * both store the same address. */
#define REAL(name)                                                            \
	({                                                                    \
		static __typeof__(&name) sym_;                                \
		__typeof__(&name) f_ = __atomic_load_n(&sym_, __ATOMIC_RELAXED); \
		if (!f_) {                                                    \
			f_ = (__typeof__(&name))shim_dlsym(#name);            \
			__atomic_store_n(&sym_, f_, __ATOMIC_RELAXED);        \
		}                                                             \
		f_;                                                           \
	})

void *shim_dlsym(const char *name);

enum shim_mode {
	SHIM_ENFORCE, /* deny, report denials */
	SHIM_TRACE,   /* deny, report every access */
	SHIM_LEARN,   /* never deny: report what would be denied, and every access */
};

/* How a path argument is used. */
enum {
	HOW_FOLLOW = 0,        /* the call follows a final symlink */
	HOW_NOFOLLOW = 1 << 0, /* it acts on the link itself */
	HOW_EMPTY_OK = 1 << 1, /* AT_EMPTY_PATH: "" means the dirfd itself */
	/* For a refused write, the kernel's answer comes first where it would
	 * differ: EEXIST for creating what exists (mkdir -p relies on it),
	 * ENOENT for changing what does not (rm -f relies on it). */
	HOW_CREATE = 1 << 2,
	HOW_EXISTING = 1 << 3,
	/* it makes a directory (mkdir): a refusal's target is reported with
	 * a trailing `/`, so the fix offered is one that makes a directory */
	HOW_DIR = 1 << 4,
};

/* How the *at calls' flags use the path. */
static inline int at_how(int flags)
{
	return ((flags & AT_SYMLINK_NOFOLLOW) ? HOW_NOFOLLOW : HOW_FOLLOW) |
	       ((flags & AT_EMPTY_PATH) ? HOW_EMPTY_OK : 0);
}

/* linkat follows the old path only when asked to */
static inline int link_how(int flags)
{
	return ((flags & AT_SYMLINK_FOLLOW) ? HOW_FOLLOW : HOW_NOFOLLOW) |
	       ((flags & AT_EMPTY_PATH) ? HOW_EMPTY_OK : 0);
}

/* open's flags: a read, or a write (also O_CREAT/O_TRUNC/O_TMPFILE) */
enum sbx_op shim_open_op(int flags);
/* O_CREAT|O_EXCL never follows a final symlink, and fails on what exists;
 * a write without O_CREAT needs the file to be there */
int shim_open_how(int flags);

/* One path of a call, kept from the check to after the real call. */
struct pending {
	int dirfd;
	const char *path;
	enum sbx_op op;
	int how;
	bool active; /* look again if the real call fails */
	bool learn;  /* --learn: the policy would refuse; report if it works */
};

/* Is the shim on in this process? Maps the policy at the first call
 * (shim.c, "start-up"). */
bool shim_ready(void);
/* Started from SBX_SHIM, the policy mapped or not yet: enough to carry
 * the shim into a child. */
bool shim_started(void);
enum shim_mode shim_mode(void);
const struct policy *shim_policy(void);

/* Check one path before the real call. 0: go ahead (pd filled, for
 * shim_after); otherwise the errno to fail with, the report sent. */
int shim_check(struct pending *pd, int dirfd, const char *path,
	       enum sbx_op op, int how);
/* The same, for an open: the absolute path judged is also copied into
 * absout ("" when none was), for dirfds.c to keep when it was a
 * directory. */
int shim_check_open(struct pending *pd, int dirfd, const char *path,
		    enum sbx_op op, int how, char *absout, size_t absoutsz);

/* dirfds.c: where directory descriptors point, as the shim saw them
 * opened — a hint for the check, never the ground for a refusal. */
#define SHIM_DIRFD_PATH 256
void shim_dirfd_remember(int fd, const char *abs); /* "" or NULL: forget */
void shim_dirfd_forget(int fd);
void shim_dirfd_copy(int from, int to); /* dup, dup2, F_DUPFD: `to` as `from` */
int shim_dirfd_path(int fd, char *out, size_t outsz); /* 0, or -1: unknown */
/* No deny_read rule can match in the kept directory (a hint as well). */
bool shim_dirfd_read_clear(int fd);

/* After the real call, when it failed or a check was left for --learn:
 * a refusal by the kernel (EACCES, EPERM, EROFS; ENOTDIR and EEXIST at a
 * placeholder file standing for a directory) of a path the policy
 * denies is reported; under --learn, so is a call the policy would have
 * refused that went through (one that changed nothing, such as mkdir of
 * an existing directory, is not). errno is kept. */
void shim_after(const struct pending *pd, int n, bool failed);
#define SHIM_AFTER_NEEDED(pd, n, failed)                                      \
	((n) && ((failed) || (pd)[0].learn || ((n) > 1 && (pd)[1].learn)))

/* Report; decision is WIRE_DENY, WIRE_ALLOW or WIRE_LEARN. */
void shim_report(char decision, enum wire_op op, const char *target, int err);
/* --trace and --learn: report an allowed access once per process. */
void shim_trace(enum wire_op op, const char *target);

/* The per-thread guard: shim_enter() is false when the shim is off or
 * already on this thread's stack. */
bool shim_enter(void);
void shim_leave(void);

/* cwd cache: invalidated by chdir/fchdir. */
void shim_cwd_changed(void);

/* The absolute, lexically normalised form of (dirfd, path). 0, or -1 when
 * it cannot be told (a dirfd that names no directory, too long). */
int shim_abspath(int dirfd, const char *path, char *out, size_t outsz);

/* resolve.c */
/* Follow every symlink of an absolute, normalised path, as the kernel
 * would (the final one only when `follow`); a missing tail is kept as
 * written. readlink(2) only: no allocation. */
void shim_resolve(const char *abs, bool follow, char *out, size_t outsz);

/* namemap.c: allowed names as stand-in addresses in 198.18.0.0/15, for the
 * transparent path through the proxy (net.c). Lock-free, no allocation. */
#define SHIM_NAMEMAP_SLOTS 1024
/* The sandbox resolver's stand-ins (supervisor/net/names.c): 198.19.0.0/16. */
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

/* The SOCKS5 listener's port on the sandbox's loopback when the run has
 * the filtering proxy (SBX_SHIM's `socks=`), else 0. */
unsigned shim_socks_port(void);

/* tell.c: `[report] tell_program` (SBX_SHIM's tell=1): a refusal's line
 * also on the refused program's own stderr, once per target, explained
 * as the supervisor explains the report (the rule that denies `abs`).
 * by_policy false: the boundary refused what the policy allows. errno
 * kept. */
void shim_tell_init(bool on);
void shim_tell(enum sbx_op op, const char *abs, bool made_dir, bool by_policy);

/* exec.c: the environment a child must keep for the shim to follow it. */
void shim_exec_init(const char *spec, const char *libpath);
/* fork(): the exec calls' next definitions looked up in the parent, so a
 * fork child does not pay for it. */
void shim_exec_before_fork(void);
#define SHIM_ENV_EXTRA 2 /* entries shim_env_fix may add: SBX_SHIM, LD_PRELOAD */
/* Copy envp into out (room for count(envp) + SHIM_ENV_EXTRA + 1
 * pointers), making sure LD_PRELOAD names the shim and SBX_SHIM is ours.
 * buf (PATH_MAX * 2 bytes) holds a rewritten LD_PRELOAD. */
char **shim_env_fix(char *const *envp, char **out, char *buf, size_t bufsz);

#endif
