/* preload/notify/internal.h: what the notify layer's files share
 * (notify.c: the listener and the file calls; preload/notify/net.c: connect() on
 * network sockets). Private to them; notify.h is the layer's API. */
#ifndef SBX_NOTIFY_INT_H
#define SBX_NOTIFY_INT_H

#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "preload/notify/notify.h"

struct net_loop;
struct net_dial;

/* What a refusal gets: a write or a name, EROFS, as from the shim and
 * the read-only binds (a program sees one answer for "protected"
 * whoever gives it); a Unix socket, EACCES, as the kernel gives for a
 * socket file one may not write. */
#define DENY_ERRNO EROFS
/* musl's open() follows O_CLOEXEC with an fcntl() (for kernels before
 * 2.6.23); openat() does not: every system call counts on this path. */
#define OPEN(path, flags, ...) openat(AT_FDCWD, path, (flags) | O_CLOEXEC, ##__VA_ARGS__)
#define DENY_UNIX EACCES
#define MAX_HOPS 40       /* symlinks followed by hand, as the kernel's limit */
#define MAX_GIT 4096      /* git directories the run made, remembered */
#define MAX_WAIT 64       /* FIFOs waiting for their reader */
#define MAX_CONNECTING 256 /* blocking connects we made, not done yet */
#define CONNECT_RETRY_MS 2 /* how often those are looked at */
#define MAX_OWN_SOCKETS 256 /* Unix sockets the run bound, remembered */

/* What tells a file from one that later reuses its inode: its file
 * handle (name_to_handle_at), which holds the inode's generation. ext4
 * gives a freed inode to the next file made at once, a directory or a
 * socket of a host program's too. type 0: the file system gives none (or
 * one longer than FID_MAX); then the inode alone tells. */
#define FID_MAX 128
struct fid {
	int type;
	unsigned len;
	unsigned char h[FID_MAX];
};

/* A socket file the run bound (notify_unix_bind): its servers' clients in
 * the sandbox may connect to it wherever it is. Known by its inode and
 * birth time (the change time where the file system keeps no birth), so
 * a host program's socket that reuses the inode after the run removed its
 * own is not taken for it -- and by its file handle: a birth time is as
 * coarse as the clock tick (ext4 gave a host socket bound within the tick
 * after the run freed its own the same inode and birth time, 197 times in
 * 200). */
struct own_socket {
	dev_t dev;
	ino_t ino;
	long long born;
	struct fid fid;
};

/* A git directory (or `.git` file) the run made: its inode and file
 * handle (a host's repository made later on the inode the run freed was
 * taken for the run's, its config written from the sandbox). */
struct gitdir {
	dev_t dev;
	ino_t ino;
	struct fid fid;
	char *path;
	bool file; /* a `.git` file: its gitdir: names a repository elsewhere */
};

/* A blocking connect() we made on the program's socket (connect_here)
 * that is still in progress: the program waits in connect(), as it would,
 * and we look again. */
struct connecting {
	uint64_t id;
	int s;  /* the program's socket (pidfd_getfd), ours to close */
	int fl; /* its file status flags, O_NONBLOCK to clear again */
};

/* A FIFO opened for writing whose reader has not come yet: the program
 * stays blocked in open(), as it would be, and we try again. */
struct waiting {
	uint64_t id;
	int opath;    /* the FIFO, held */
	int flags;    /* the open's flags, creation bits removed */
};

/* What the handler decided: an errno (0: success, result `val`), a
 * descriptor of ours to install (fd >= 0), or CONTINUE. */
struct answer {
	int err;
	long long val;
	int fd;
	unsigned fd_flags;
	bool cont;
	bool wait; /* queued (struct waiting): no answer now */
};

#define ERR(e) ((struct answer){ .err = (e), .fd = -1 })
#define OK(v) ((struct answer){ .val = (v), .fd = -1 })

/* A program's connect() the proxy is dialling for (preload/notify/net.c): the
 * program waits in connect() until done. */
#define MAX_DIALS 64
struct dialing {
	struct notify *n;
	bool used;
	uint64_t id;
	pid_t pid;       /* the calling thread */
	int sockfd;      /* its descriptor, replaced by the connected socket */
	bool nonblock, cloexec;
	char host[256];  /* where to (a restarted call asks again) */
	unsigned port;
	struct net_dial *d;
};

/* The seccomp table's refusals reported once per call and program
 * (preload/notify/net.c, notify_syscall). */
#define MAX_SAID 1024

struct notify {
	const struct policy *p;
	struct reports *r;
	bool trace, root;
	int fd;
	struct seccomp_notif_sizes sz;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	struct gitdir *git;
	size_t ngit;
	bool git_full;
	/* the core.worktree of each repository the run made, as vetted
	 * (preload/notify/gitcfg.c): no link or directory lands there; and the git
	 * directory it is relative to (wtgits[i]), which moves only with it */
	char **worktrees, **wtgits;
	/* when the layer was made, before COMMAND: a name born later is the
	 * run's own (keeps(): its removal loses nothing of the user's) */
	struct timespec made;
	size_t nworktrees;
	struct waiting wait[MAX_WAIT];
	size_t nwait;
	struct connecting *conn; /* MAX_CONNECTING, made when first needed */
	size_t nconn;
	int actor; /* the rename actor's socket (init/notify.c), -1 once lost */
	int root_fd; /* the sandbox's root (sandbox_root) */
	dev_t report_dev; /* the report pipe (notify_set_report); 0: none */
	ino_t report_ino;
	struct __user_cap_data_struct caps[2]; /* a root supervisor's own */
	bool low;          /* caps lowered for this serve (serve_begin) */
	mode_t umask_own;  /* the supervisor's umask */
	mode_t umask_now;  /* the one set now (a program's, during a serve) */
	struct { pid_t pid; int fd; } status[8]; /* /proc/PID/status held (prog_umask) */
	unsigned status_next;
	struct { int fd; char dir[PATH_MAX]; char path[PATH_MAX]; } last_dir; /* create_new */
	struct own_socket *own; /* Unix sockets the run bound (MAX_OWN_SOCKETS) */
	size_t nown;
	char **refused; /* notify_refuse(): paths never made, sorted */
	size_t nrefused;
	struct net_loop *net;  /* the proxy's loop, or NULL (no proxy this run) */
	uint64_t netns_cookie; /* the sandbox's network namespace (0: not known) */
	struct dialing dials[MAX_DIALS];
	/* the nested mode (notify_set_modes): only a file's mode and owner
	 * come here; Landlock's writable places and what the plan keeps */
	bool modes;
	char **modes_roots, **modes_kept;
	size_t nmodes_roots, nmodes_kept;
};

/* One request being decided. */
struct call {
	struct notify *n;
	uint64_t id;
	pid_t pid;
	int root; /* the sandbox's root (notify->root_fd) */
};

/* ---- preload/notify/call.c */

/* a root supervisor's effective capabilities, lowered (false) or back */
void notify_caps_effective(const struct notify *n, bool on);
/* Around every act on the program's files: its umask (NO_UMASK: nothing
 * is made) and no capability; notify_act_end after it. */
#define NO_UMASK ((mode_t)-1)
mode_t notify_act_begin(struct notify *n, mode_t umask_);
void notify_act_end(struct notify *n, mode_t old);
/* One serving turn of the listener: capabilities lowered for all of it,
 * the supervisor's umask put back at its end. */
void notify_serve_begin(struct notify *n);
void notify_serve_end(struct notify *n);
/* A NUL-terminated string at addr in the caller's memory: 0, -EFAULT,
 * -ENAMETOOLONG. Checked with notify_call_valid() after. */
int notify_read_str(const struct call *c, unsigned long long addr, char *out, size_t outsz);
/* The caller's umask (its /proc/PID/status, held open). */
mode_t notify_prog_umask(const struct call *c);

/* ---- preload/notify/paths.c: the calls that name a path */

enum make_kind { MAKE_DIR, MAKE_NODE, MAKE_LINK };
struct answer notify_open(struct call *c, int dirfd, unsigned long long paddr, int flags,
			  mode_t mode);
struct answer notify_truncate(struct call *c, unsigned long long paddr, long long len);
/* chmod, fchmod, fchmodat, fchmodat2 to a set-ID mode (the seccomp
 * table's row): done on a directory, the answer in *out, 0; 1 for
 * anything else, which the row refuses. */
int notify_chmod_dir(struct call *c, long nr, const unsigned long long *args,
		     struct answer *out);
/* unlink, unlinkat, rmdir: a protected name is not removed (at any depth,
 * as it is not made); the rest removed on the held parent. */
struct answer notify_remove(struct call *c, int dirfd, unsigned long long paddr, int flags);
/* chmod, fchmod, fchmodat, fchmodat2: refused on a protected name (what
 * the call would change, a link followed); any other mode but a set-ID
 * one changed here, the answer in *out, 0; 1 for a set-ID mode on what
 * is not protected (notify_chmod_dir, then the table's row). */
int notify_chmod(struct call *c, long nr, const unsigned long long *args, struct answer *out);
/* The nested mode's chmod and chown families (sbx_notify_modes): refused
 * on what the policy or the plan keeps and outside Landlock's writable
 * places, made here otherwise. */
struct answer notify_modes(struct call *c, long nr, const unsigned long long *args);
/* setxattr and the rest of its family: refused on a protected name, as
 * chmod is; made here otherwise. */
struct answer notify_xattr(struct call *c, long nr, const unsigned long long *args);
struct answer notify_make(struct call *c, enum make_kind kind, int dirfd,
			  unsigned long long paddr, mode_t mode, unsigned dev,
			  unsigned long long taddr);
struct answer notify_move(struct call *c, bool is_link, int olddfd, unsigned long long oaddr,
			  int newdfd, unsigned long long naddr, unsigned flags);
/* connect(): a Unix socket's by path here; an IP socket's by
 * notify_net_connect, another family's by notify_connect_here */
struct answer notify_connect(struct call *c, int sockfd, unsigned long long aaddr,
			     unsigned alen);
int notify_cmp_str(const void *a, const void *b);

/* ---- preload/notify/gitcfg.c */

/* A regular file renamed onto a git config the policy keeps (notify_move
 * decided it is one): done by the supervisor when the new content changes
 * no key that runs a program or loads a file, else refused with the key
 * named. as_new: the config of a repository the run made, judged whole
 * (gitcfg_risky_new). */
struct answer notify_gitcfg_rename(struct call *c, int ofd, const char *oname, int nfd,
				   const char *nname, const char *nfull, unsigned flags,
				   bool as_new);
/* The config beside an objects/ or refs/ about to be made: 0, -errno */
int notify_gitcfg_complete(struct call *c, int dfd, const char *dir, const char *name);
/* Would a directory or link landing at `path` land at (or above) the
 * work tree a vetted core.worktree names? */
bool notify_gitcfg_worktree_below(const struct notify *n, const char *path);
/* May the directory `from` move to `to` (or the two be exchanged), as far
 * as the vetted core.worktrees go? Refused, said, when a git directory
 * would move without the work tree its core.worktree names relative to
 * it (it would lead elsewhere: a link made there before). `apply`, after
 * the move: the remembered paths follow it. */
bool notify_gitcfg_worktree_moves(struct call *c, const char *from, const char *to,
				  bool exchange, bool apply);
/* Is the part `name` of a git directory in `dfd`: 1 yes,
 * 0 no, -1 not known */
int notify_git_part(int dfd, const char *name);

/* ---- preload/notify/net.c */

/* The blocking connects in progress (notify_connect_here): answered when
 * done, dropped when their caller is gone. */
void notify_net_retry(struct notify *n);

/* Around something of the supervisor's own during a serve (a report, the
 * proxy's dial): its umask, and as root its capabilities, until _end. */
void notify_own_begin(struct notify *n);
void notify_own_end(struct notify *n);
/* Forget the directory create_new holds (a rename, a new directory or
 * link may change what its path leads to). */
void notify_forget_last_dir(struct notify *n);
/* Is the request still waiting (the pid still the caller's)? */
bool notify_call_valid(const struct call *c);
/* n bytes at addr in the caller's memory. 0 or -EFAULT. */
int notify_read_mem(const struct call *c, unsigned long long addr, void *out, size_t n);
/* The address of a bind() or connect(), read from the caller into `out`
 * (zeroed first; *alen clamped to outsz), then the request checked still
 * waiting. 0, or the errno to answer: EINVAL (shorter than a family),
 * EFAULT, ENOENT (the caller left the call). */
int notify_read_addr(const struct call *c, unsigned long long aaddr, unsigned *alen, void *out,
		     size_t outsz);
/* One event into the run's reports, as the layer's: layer, pid, and
 * comm where ev has none, filled in here; nothing without reports. */
struct event;
void notify_report(const struct call *c, struct event *ev);
void notify_comm_of(pid_t pid, char *out, size_t outsz);
/* The caller's descriptor `fd`, as one of ours (pidfd_getfd), or -errno. */
int notify_take_fd(const struct call *c, int fd);
/* Send the answer (install its descriptor first). 0, or -errno when the
 * listener failed; a stale id is not an error. */
int notify_respond(struct notify *n, uint64_t id, struct answer a);

/* connect() made by us on the socket `s` we took (ours; closed or kept
 * here), with our copy of the address: never CONTINUE, which would let
 * the kernel look the descriptor number up again (another thread can
 * dup2() an AF_UNIX socket onto it after the check). A blocking connect
 * still in progress is answered later (the answer's `wait`). */
struct sockaddr_storage;
struct answer notify_connect_here(struct call *c, int s, const struct sockaddr_storage *ss,
				  unsigned alen);

/* preload/notify/net.c: the sandbox's network namespace noted (at attach). */
void notify_net_init(struct notify *n);
/* preload/notify/net.c: connect() on an AF_INET or AF_INET6 socket `s` (ours, from
 * pidfd_getfd; closed here) to the address at aaddr. */
struct answer notify_net_connect(struct call *c, int s, int sockfd, unsigned long long aaddr,
				 unsigned alen);

/* preload/notify/deny.c: a row of the seccomp table (its errno, reported once
 * per call and program), or ENOSYS for a call no row names. */
struct answer notify_deny(struct call *c, const struct seccomp_data *d);
/* The row of the table (gen-filters.c's sbx_deny_rows) that refuses the
 * call `d`, or -1 (exposed for the unit tests). */
int notify_deny_row(const struct seccomp_data *d);
/* allow_local_binding = false: listen() and bind(), decided on the socket. */
struct answer notify_listen(struct call *c, int sockfd, int backlog);
struct answer notify_bind(struct call *c, int sockfd, unsigned long long aaddr, unsigned alen);
/* bind() of the program's Unix socket `s` (taken: ours to use, not to
 * close) to the path in `su`: judged as a name made there, then bound by
 * us in the held parent; abstract and unnamed addresses bound as given. */
struct sockaddr_un;
struct answer notify_unix_bind(struct call *c, int s, const struct sockaddr_un *su, unsigned alen);

#endif
