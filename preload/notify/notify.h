/* preload/notify/notify.h: the seccomp user-notification listener.
 *
 * sbx-init installs a second seccomp filter (seccomp/gen-notify.c) with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER before COMMAND exists and hands the
 * listener to the supervisor ("F" on the control socket). The supervisor
 * serves it in its one poll loop (run.c): each notified call -- one that
 * makes, renames or links a name, connects a socket, or that the seccomp
 * table refuses -- is decided by
 * the policy, for every program, the ones the shim never sees included
 * (static binaries, raw system calls, programs that drop LD_PRELOAD).
 *
 * The rule that makes it a boundary (docs/SECURITY.md, "seccomp notify"):
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE lets the kernel read the arguments
 * again, after the check, from memory the program can rewrite in another
 * thread. So a call that may make a name is never continued: the
 * supervisor performs it itself, on the path it checked, in the program's
 * view (its root and cwd through /proc/PID), and either hands back the
 * result or installs the descriptor it opened (SECCOMP_IOCTL_NOTIF_ADDFD).
 * CONTINUE is given only where nothing is decided: connect() with
 * allow_all_unix_sockets = true, and a Unix socket's bind() under
 * allow_local_binding = false (preload/notify/deny.c). A connect() on any other
 * socket is made by the supervisor itself on the socket it took, with its
 * copy of the address (notify.c, connect_here()): CONTINUE would let the
 * kernel look the descriptor number up again, and another thread can
 * dup2() an AF_UNIX socket onto it after the check. A TCP connect() to an
 * address outside is dialled by the proxy and the connected socket
 * installed (preload/notify/net.c); the seccomp table's refusals are answered
 * with their errno and reported (preload/notify/deny.c).
 */
#ifndef SBX_NOTIFY_H
#define SBX_NOTIFY_H

#include <stdbool.h>

#include "policy/policy.h"

struct reports;
struct notify;

/* At most this many notifications handled per notify_serve() call, so the
 * loop's other descriptors (signals, reports, the proxy) get their turn
 * under a flood; the rest wait in the kernel, one per blocked thread. */
#define NOTIFY_BATCH 64

/* `p` is the policy the boundary was built from (borrowed; it outlives the
 * listener), `r` where decisions are reported (may be NULL), `trace`: also
 * report what was allowed. */
int notify_new(const struct policy *p, struct reports *r, bool trace, struct notify **out);
/* The listener and the rename actor's socket from sbx-init
 * (init/notify.h), owned from here on (closed on error). Checked: a
 * seccomp listener and a Unix seqpacket socket. 0, -EPROTO. */
int notify_attach(struct notify *n, int fd, int actor);
/* The proxy's loop (borrowed; NULL: no proxy this run): a program's TCP
 * connect() to an address outside is decided and dialled by it
 * (preload/notify/net.c). */
struct net_loop;
void notify_set_net(struct notify *n, struct net_loop *l);
/* The shim's report pipe (either end: one inode): its mode, write-only
 * (preload/main.c), is kept; a chmod of it is EPERM, as a file of
 * another owner's. A reader inside would take others' lines. */
void notify_set_report(struct notify *n, int fd);
/* Paths that must not be made although no rule names them (plan.c's
 * pl->refused_new: where a protected link leads, a protected name's real
 * place): creating one, or landing a directory or link above one, is
 * refused. Copied. 0, -ENOMEM. */
int notify_refuse(struct notify *n, char *const *paths, size_t np);
/* The nested mode: only chmod and chown and their families are notified
 * (sbx-init --notify=modes), decided as writes: a file's mode and owner
 * change only below one of `roots` (Landlock's writable places), never
 * at or below one of `kept` (the plan's masks and protects) unless a
 * root lies deeper, and never on a path the policy keeps. Copied. 0,
 * -ENOMEM. */
int notify_set_modes(struct notify *n, char *const *roots, size_t nroots, char *const *kept,
		     size_t nkept);
/* The descriptor to poll for input, -1 before notify_attach(). */
int notify_fd(const struct notify *n);
/* Milliseconds until a waiting call should be tried again (a FIFO opened
 * for writing, waiting for its reader), or -1. */
int notify_timeout(const struct notify *n);
/* Handle what is pending, without blocking. `ready`: the caller's own
 * poll() just saw the listener readable, so the first request is taken
 * without asking again (a request that vanished since, its caller killed,
 * makes the receive say ENOENT: it never blocks). 0, or -errno when the
 * listener itself failed (the run must stop: nothing else answers). */
int notify_serve(struct notify *n, bool ready);
/* The run is over: one line, and a log record, naming the git
 * repositories the run created (their configs vetted, preload/notify/gitcfg.c). */
void notify_finish(struct notify *n);
/* Is `path` (the sandbox's view) at or inside a git repository the run
 * created? notify_finish() names those; NULL n: false. */
bool notify_made_repo(const struct notify *n, const char *path);
void notify_free(struct notify *n); /* NULL is fine */

/* Exposed for the unit tests: may a directory (or a symlink, which acts as
 * one) be put at `path`? False when the protected rules of `p` could match
 * a name below it that is not protected now (renaming `.gxt` holding
 * `hooks/pre-commit` to `.git`). *why: the rule. */
bool notify_dir_may_land(const struct policy *p, const char *path, const struct sbx_rule **why);
/* Is `rest` (the part of a path after `/.git/`) one git writes into a git
 * directory it makes, plainly: `hooks`, `hooks/NAME.sample`? (Its config
 * only by a vetted rename: preload/notify/gitcfg.c.) */
bool notify_git_own(const char *rest);

#endif
