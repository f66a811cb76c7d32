/* shim/carry.h: the shim carried into a program an exec or spawn starts
 * (exec.c on Linux, darwin.c on macOS). A child keeps the shim only if its
 * environment still names it in the loader's variable (SHIM_PRELOAD_ENTRY,
 * port.h: LD_PRELOAD, or DYLD_INSERT_LIBRARIES) and has SBX_SHIM: `env
 * -i`, a scrubbed execve() envp or a program that cleared its environment
 * would lose both, so every exec and spawn entry point puts them back,
 * ours first in the loader's list and the program's after. The new
 * environment is built on the stack (these calls run in vfork children,
 * where malloc is off limits) from shim_carry, set once at start-up
 * (core.c). Static, not inline (the compiler chooses as it did when they
 * were exec.c's own): each file that starts programs has its copy. */
#ifndef SBX_SHIM_CARRY_H
#define SBX_SHIM_CARRY_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "shim/core.h"

#define SHIM_ENV_EXTRA 2 /* entries shim_env_fix may add: SBX_SHIM, the loader's */

/* Does the loader variable's value (separated by `:` or spaces) name our
 * lib? By hand: this runs in a fork child about to exec, where every page
 * of libc first touched costs a fault (docs/PERFORMANCE.md). */
static __attribute__((unused)) bool shim_names_lib(const char *v)
{
	while (*v) {
		size_t n = 0;
		while (v[n] && v[n] != ':' && v[n] != ' ')
			n++;
		if (n == shim_carry.lib_len) {
			size_t i = 0;
			while (i < n && v[i] == shim_carry.lib[i])
				i++;
			if (i == n)
				return true;
		}
		v += n;
		while (*v == ':' || *v == ' ')
			v++;
	}
	return false;
}

/* Do the first n bytes of s match p's? The names compared are the ones
 * in shim_carry.buf ("SBX_SHIM=", the loader's), not string literals:
 * those would be a page of .rodata that a fork child faults in (the
 * buffer's page it has from its parent). */
static __attribute__((unused)) bool shim_has_prefix(const char *s, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != p[i])
			return false;
	return true;
}

/* Room shim_env_fix needs in its buffer for envp: 0 unless the loader's
 * variable is there without our lib (it is rewritten, ours first). */
static __attribute__((unused)) size_t shim_prebuf_need(char *const *envp)
{
	for (char *const *e = envp; e && *e; e++)
		if (shim_has_prefix(*e, shim_carry.preload_entry, SHIM_PRELOAD_LEN))
			return shim_names_lib(*e + SHIM_PRELOAD_LEN) ? 0 :
			       strlen(*e) + shim_carry.lib_len + 2;
	return 0;
}

/* Copy envp into out (room for count(envp) + SHIM_ENV_EXTRA + 1
 * pointers), making sure the loader's variable names the shim and
 * SBX_SHIM is ours. buf holds a rewritten loader variable. */
static __attribute__((unused)) char **shim_env_fix(char *const *envp, char **out, char *buf, size_t bufsz)
{
	size_t n = 0;
	bool have_shim = false, have_pre = false;

	for (char *const *e = envp; e && *e; e++) {
		if (shim_has_prefix(*e, shim_carry.shim_entry, 9)) {
			if (have_shim)
				continue;
			out[n++] = shim_carry.shim_entry;
			have_shim = true;
		} else if (shim_has_prefix(*e, shim_carry.preload_entry, SHIM_PRELOAD_LEN)) {
			if (have_pre)
				continue;
			have_pre = true;
			if (shim_names_lib(*e + SHIM_PRELOAD_LEN)) {
				out[n++] = *e;
			} else if (strlen(*e) + shim_carry.lib_len + 2 <= bufsz) {
				/* ours first, then theirs */
				size_t l = SHIM_PRELOAD_LEN + shim_carry.lib_len;
				memcpy(buf, shim_carry.preload_entry, l);
				buf[l] = ':';
				memcpy(buf + l + 1, *e + SHIM_PRELOAD_LEN,
				       strlen(*e + SHIM_PRELOAD_LEN) + 1);
				out[n++] = buf;
			} else {
				out[n++] = shim_carry.preload_entry;
			}
		} else {
			out[n++] = *e;
		}
	}
	if (!have_shim)
		out[n++] = shim_carry.shim_entry;
	if (!have_pre)
		out[n++] = shim_carry.preload_entry;
	out[n] = NULL;
	return out;
}

static __attribute__((unused)) size_t shim_env_count(char *const *envp)
{
	size_t n = 0;

	while (envp && envp[n])
		n++;
	return n;
}

static __attribute__((unused)) bool shim_carries(void)
{
	return shim_carry.lib && shim_started();
}

/* The environment the child gets: `fixed`, or envp itself when the shim
 * is off. Declares the stack storage in the caller's frame, sized to what
 * it holds: a fork child pays a fault for each page of stack it touches.
 * (Used after the check, so the check's frames and these buffers share
 * the same stack.) */
#define FIXED_ENV(envp, fixed)                                                \
	bool carry_ = shim_carries();                                         \
	size_t nenv_ = carry_ ? shim_env_count(envp) + SHIM_ENV_EXTRA + 1 : 1; \
	size_t npre_ = carry_ ? shim_prebuf_need(envp) : 0;                   \
	char *envbuf_[nenv_];                                                 \
	char prebuf_[npre_ ? npre_ : 1];                                      \
	char *const *fixed = carry_ ?                                         \
		shim_env_fix((envp), envbuf_, prebuf_, sizeof(prebuf_)) : (envp)

/* The execl family's arguments, counted, into an array `argv` on the
 * stack (no malloc: a vfork child may call these), the last the NULL;
 * then the v-form is called, as libc's own execl does. */
#define COLLECT_ARGS(arg0, argv)                                              \
	size_t nargs_ = 1;                                                    \
	va_list ap_;                                                          \
	va_start(ap_, arg0);                                                  \
	while (va_arg(ap_, char *))                                           \
		nargs_++;                                                     \
	va_end(ap_);                                                          \
	char *argv[nargs_ + 1];                                               \
	argv[0] = (char *)(arg0);                                             \
	va_start(ap_, arg0);                                                  \
	for (size_t i_ = 1; i_ <= nargs_; i_++)                               \
		argv[i_] = va_arg(ap_, char *); /* the last is the NULL */

#endif
