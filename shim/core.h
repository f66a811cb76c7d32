/* shim/core.h: the shim's ground floor (core.c) — its state in this
 * process and what every other file of the shim calls on it: start-up,
 * the per-thread guard, the policy, the mode, libc's next definitions,
 * the cwd cache and the path made absolute, the reports. Not installed,
 * not public. core.c includes no other file of the shim but the ground
 * ones (sys.h, wire.h, policy/); every file above includes this.
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
#ifndef SBX_SHIM_CORE_H
#define SBX_SHIM_CORE_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "policy/policy.h"

/* errno through a pointer each thread keeps (core.c): __errno_location()
 * is a page of libc's code that a fork child about to exec would
 * otherwise fault in just for the shim (docs/PERFORMANCE.md). The
 * pointer is the thread's own for its life, and a fork child's thread is
 * its parent's copy. */
/* Initial-exec TLS on ELF (no allocation on first use: the shim is
 * loaded at start-up); Mach-O's thread-local variables have no models. */
#ifdef __ELF__
#define SHIM_TLS __thread __attribute__((tls_model("initial-exec")))
#else
#define SHIM_TLS __thread
#endif
extern SHIM_TLS int *shim_errno_ptr;
static inline int *shim_errno(void)
{
	int *p = shim_errno_ptr;

	if (__builtin_expect(!p, 0))
		shim_errno_ptr = p = &errno;
	return p;
}
#define SYS_ERRNO (*shim_errno())

#include "shim/port.h"
#include "common/wire.h"

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
/* A variable one file defines and others read: hidden, so it is reached
 * directly, as a static one is, not through the GOT. */
#define SHIM_SHARED __attribute__((visibility("hidden")))

/* What start-up writes goes into .data, beside the GOT that the loader's
 * relocations write in every process anyway: zero-initialised, it would
 * sit in .bss and cost each process one more page (docs/PERFORMANCE.md). */
#ifdef __ELF__
#define SHIM_START_DATA __attribute__((section(".data.sbx_start")))
#else
#define SHIM_START_DATA /* Mach-O: the loader's page trick is ELF's */
#endif

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

/* Start the shim from SBX_SHIM, once (the constructor, shim.c; or the
 * first interposed call, when another library's constructor runs before
 * ours). The policy is read later, at the first check. */
void shim_start(void);
/* Is the shim on in this process? Maps the policy at the first call
 * (core.c, "start-up"). */
bool shim_ready(void);
/* Started from SBX_SHIM, the policy mapped or not yet: enough to carry
 * the shim into a child. */
bool shim_started(void);
enum shim_mode shim_mode(void);
const struct policy *shim_policy(void);
/* The SOCKS5 listener's port on the sandbox's loopback when the run has
 * the filtering proxy (SBX_SHIM's `socks=`), else 0. */
unsigned shim_socks_port(void);
/* the proxy's HTTP port inside (HTTP(S)_PROXY point there), or 0 */
unsigned shim_http_port(void);
/* `[report] tell_program` (SBX_SHIM's tell=1): tell.c writes a refusal
 * to the refused program's own stderr too. */
bool shim_tell_on(void);

/* A fork child's pid, on the thread that forked: written by fork()
 * (shim.c) in the child, read by the cwd cache (core.c). TLS: the page
 * the fork already wrote, while S's would cost the child a fault. */
extern SHIM_TLS pid_t shim_forked_pid;

/* Checks this thread made, counted up to SHIM_BUSY: from there on the
 * thread remembers what the policy allowed (check.c, decided.c). Set to 0
 * in a fork child, whose writes to the table would each copy a page. */
#define SHIM_BUSY 32
extern SHIM_TLS unsigned shim_checks_made;

/* What an exec must carry into a child for the shim to follow it:
 * "SBX_SHIM=<spec>" and "LD_PRELOAD=<lib>" (SHIM_PRELOAD_ENTRY, port.h),
 * set once at start-up (core.c) back to back in one buffer beside the
 * start-up state (SHIM_START_DATA: the few hundred bytes written share
 * the page the loader writes anyway), read by carry.h. */
struct shim_carry {
	char *shim_entry, *preload_entry;
	const char *lib; /* inside preload_entry; NULL: nothing to carry */
	size_t lib_len;
	char buf[1280];
};
extern struct shim_carry shim_carry SHIM_SHARED;

/* The per-thread guard: set while the shim is on this thread's stack
 * (initial-exec TLS: no allocation on first use), so that a libc
 * function the shim calls never comes back into it. shim_enter() is
 * false when the shim is off or already on this thread's stack. Inline:
 * every interposed call passes here. */
extern SHIM_TLS int shim_on_stack;
static inline bool shim_enter(void)
{
	if (shim_on_stack || !shim_ready())
		return false;
	shim_on_stack = 1;
	return true;
}

static inline void shim_leave(void)
{
	shim_on_stack = 0;
}

/* cwd cache: invalidated by chdir/fchdir. */
void shim_cwd_changed(void);

/* The absolute, lexically normalised form of (dirfd, path). 0, or -1 when
 * it cannot be told (a dirfd that names no directory, too long). */
int shim_abspath(int dirfd, const char *path, char *out, size_t outsz);

/* All of s[0..n) into fd, past EINTR, waiting up to wait_ms for room
 * where fd is non-blocking and full. false: not all of it went. */
bool shim_put(int fd, const char *s, size_t n, long wait_ms);

/* Report; decision is WIRE_DENY, WIRE_ALLOW or WIRE_LEARN. */
void shim_report(char decision, enum wire_op op, const char *target, int err);
/* --trace and --learn: report an allowed access once per process. */
void shim_trace(enum wire_op op, const char *target);

#endif
