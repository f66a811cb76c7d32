/* shim/shim.c: libsbx-preload.so — its front door: the constructor and
 * fork(). The rest of the library, from the ground up (a file includes
 * and calls only files on the floors below it):
 *
 *   sys.h, wire.c, elfcheck.c,  raw system calls, the report line, the
 *   namemap.c, string.c         ELF look, the stand-in addresses, the
 *                               string functions (the shim's own)
 *   core.c                      the state: start-up from SBX_SHIM, the
 *                               per-thread guard, the policy, REAL(), the
 *                               cwd cache and absolute paths, the reports
 *   dirfds.c, resolve.c, tell.c directory descriptors kept, symlinks
 *   decided.c                   followed, the refused program told, the
 *                               policy's "allowed" remembered per path
 *   check.c, netjudge.c         the check before a call, the look after;
 *                               the network policy of a name or address
 *   wrappers.c, exec.c,         the interposed libc functions
 *   syscall.c, net.c            (symbols.def; on macOS darwin.c's)
 *   shim.c                      the constructor and fork()
 *
 * The shim is advisory (README, docs/REPORTS.md): a static binary or a raw
 * syscall never meets it. The boundary is bubblewrap and seccomp.
 */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core.h"
#include "shim/exec.h"
#include "shim/wrap.h"

/* Start-up (core.c) when the library is loaded. */
__attribute__((constructor)) static void shim_constructor(void)
{
	shim_start();
}

/* fork(): the exec calls' next definitions looked up in the parent, once
 * (a child about to exec would otherwise pay dlsym's pages every time),
 * and errno's address (core.h, shim_errno: libc's __errno_location() is
 * a page the child would fault in); in the child its own pid for the cwd
 * cache (core.c, owns_cwd_cache) and its count of checks from 0
 * (decided.c's table is for busy processes). Not
 * pthread_atfork(): that registration costs every process start, forking
 * or not. _Fork(), vfork() and a raw clone() run neither, as they run no
 * atfork handler. */
SHIM_EXPORT pid_t fork(void)
{
	__typeof__(&fork) next = REAL(fork);
	pid_t pid;

	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	if (shim_ready()) {
		shim_exec_before_fork();
		(void)shim_errno();
	}
	pid = next();
	if (pid == 0)
		wrap_forked();
	return pid;
}
