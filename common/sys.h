/* common/sys.h: the shim's own system calls, made directly.
 *
 * The shim exports syscall() (shim/syscall.c), so a call to syscall() from
 * inside the shim comes back to the shim's wrapper: harmless under the
 * guard, but it costs the wrapper's frame and libc's syscall() on every
 * one, and in a fork child about to exec every page first touched is a
 * page fault (about 15 µs each on a paravirtualised machine). On x86_64
 * and aarch64 the instruction is issued here; elsewhere libc's syscall()
 * is called by its symbol (sys_libc_syscall): in the shim the dynamic
 * linker binds that symbol to the shim's own wrapper, which passes the
 * call on under the guard. No file of the shim is included or named for
 * it: sys.h stands below every other.
 *
 *   sys_call(nr, args...)   up to six arguments; -1 and errno on failure,
 *                           as syscall() returns.
 *
 * Also compiled into sbx-preload (elfcheck.c), where it is the same call.
 */
#ifndef SBX_SHIM_SYS_H
#define SBX_SHIM_SYS_H

#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>

/* Where a failure's errno goes (core.h points it at its cached errno). */
#ifndef SYS_ERRNO
#define SYS_ERRNO errno
#endif

#if !defined(__x86_64__) && !defined(__aarch64__)
/* libc's variadic syscall(), by its symbol (see above). */
long sys_libc_syscall(long nr, ...) __asm__("syscall");
#endif

static inline long sys_call6(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	ret = x0;
#else
	return sys_libc_syscall(nr, a, b, c, d, e, f);
#endif
	if ((unsigned long)ret > -4096UL) {
		SYS_ERRNO = (int)-ret;
		return -1;
	}
	return ret;
}

/* sys_call(nr, ...): the missing arguments are zeros. */
#define SYS_PICK_(nr, a, b, c, d, e, f, ...)                                  \
	sys_call6((long)(nr), (long)(a), (long)(b), (long)(c), (long)(d),     \
		  (long)(e), (long)(f))
#define sys_call(...) SYS_PICK_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

#endif
