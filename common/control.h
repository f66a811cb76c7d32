/* common/control.h: the control protocol between sbx-preload (the
 * supervisor, run.c) and sbx-init (pid 1 of the sandbox), one definition
 * both programs include.
 *
 * Framing. sbx-preload makes an AF_UNIX SOCK_SEQPACKET socketpair
 * (backend/linux/process.c: SO_PASSCRED and SO_PASSPIDFD on its end) and hands the other to
 * sbx-init as --ctl=FD. Every message is one datagram: its first byte is
 * its type (enum ctl_msg), the payload follows, and descriptors travel as
 * one SCM_RIGHTS control message. Each receiver re-validates what it gets
 * (a closed set of types, the exact length, descriptors only where the
 * type carries them, each at most once and in order, nothing truncated:
 * MSG_TRUNC/MSG_CTRUNC) and fails closed: sbx-init exits 125 with
 * "control socket: malformed ...", sbx-preload stops the run. End of file
 * means the other side is gone, or gave up and said why.
 *
 * The order of a run:
 *
 *   sbx-preload                               sbx-init (pid 1)
 *   "A"... "I"... "G" (+ shim fds)  ------>   waits for "G", then mounts
 *                                  <------   "N" (+ listeners)  [proxy]
 *   "n"                             ------>   (COMMAND starts only now)
 *                                  <------   "F" (+ 2 fds)      [notify]
 *                                  <------   "R" (SCM_CREDENTIALS)
 *                                  <------   "S" sig  [COMMAND stopped]
 *   "Cf" / "Cb"                     ------>   [terminal: go on]
 *                                  <------   "X" status  (the end)
 *
 * In the nested mode (nested.c, no mount namespace): "A" and "G" without
 * identities or stand-in states, no "N"/"n" (the proxy listens on the
 * host's loopback) and no "F" (no notify layer); the rest as here.
 */
#ifndef SBX_CONTROL_H
#define SBX_CONTROL_H

#include <stddef.h>
#include <sys/socket.h>

/* Linux 6.5: each message on the control socket comes with a pidfd of its
 * sender (Debian 12's headers predate them; the values are the generic
 * ones). Older kernels refuse the option, and the pid is turned into a
 * pidfd at once instead. */
#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif
#ifndef SCM_PIDFD
#define SCM_PIDFD 0x04
#endif

enum ctl_msg {
	/* ---- sbx-preload -> sbx-init, in this order, before anything
	 * else: sbx-init reads them before it mounts. */

	/* sbx-init's options (those that depend on the compiled policy, so
	 * cannot be in its argv): whole NUL-terminated strings, each taken
	 * as an argv option is (take_opt(), from_ctl) and --ctl/--nested
	 * refused. As many "A" as needed, each at most 64 KiB (sbx-init's
	 * buffer), 1 MiB in all. No descriptors. */
	CTL_OPTS = 'A',
	/* What each mount is to land on (mountids.c): struct mount_id
	 * (pathwalk.h: dev, ino, 2 x uint64_t, native order) per path
	 * operation, in the operations' order; CTL_IDS_PER at most per
	 * message, as many messages as needed. No descriptors. */
	CTL_IDS = 'I',
	/* "Go": one enum ctl_new_state byte per --ro-new placeholder (as many
	 * as the options named), and SCM_RIGHTS with the shim's three
	 * descriptors (policy blob, report pipe, counters) when COMMAND gets
	 * the shim, none otherwise. The last of the start. */
	CTL_GO = 'G',

	/* ---- sbx-init -> sbx-preload, before "ready" */

	/* The proxy's listeners, made in the sandbox's network namespace:
	 * one enum ctl_listen kind byte per descriptor, SCM_RIGHTS with the
	 * descriptors (at most CTL_LISTEN_MAX). At most one, before "ready";
	 * sbx-preload checks each (a listening socket of the kind, at the
	 * planned port, on the sandbox's loopback) and answers
	 * CTL_LISTENERS_SERVED, or closes the socket. */
	CTL_LISTENERS = 'N',
	/* The answer: no payload, no descriptors. */
	CTL_LISTENERS_SERVED = 'n',
	/* The notify layer: no payload; SCM_RIGHTS with exactly two
	 * descriptors, the seccomp listener and sbx-preload's end of the
	 * rename actor's socket (enum ctl_act). Once, before "ready". */
	CTL_NOTIFY = 'F',
	/* Ready, COMMAND is starting: no payload; the kernel attaches
	 * SCM_CREDENTIALS (sbx-init's pid as sbx-preload sees it) and, where
	 * it has SO_PASSPIDFD, SCM_PIDFD. */
	CTL_READY = 'R',

	/* ---- after "ready" */

	/* sbx-init -> sbx-preload: COMMAND stopped; one byte, the signal
	 * (1..31). */
	CTL_STOPPED = 'S',
	/* sbx-preload -> sbx-init: go on, one byte: CTL_CONT_FG (COMMAND's
	 * group gets the terminal's foreground) or CTL_CONT_BG (sbx-init
	 * keeps it); then sbx-init sends SIGCONT. Only with a terminal. */
	CTL_CONT = 'C',
	/* sbx-init -> sbx-preload: every process of COMMAND's is gone
	 * (killed and reaped); one byte, the exit status (128+N for a
	 * signal). The last message. */
	CTL_GONE = 'X',
};

/* CTL_CONT's byte */
enum ctl_cont {
	CTL_CONT_FG = 'f',
	CTL_CONT_BG = 'b',
};

/* CTL_GO's bytes: what became of each placeholder (standin.c) */
enum ctl_new_state {
	CTL_NEW_MADE = 'm',  /* we made it: cover it, remove it after */
	CTL_NEW_THERE = 'e', /* there already (another run's, or appeared meanwhile): cover it */
	CTL_NEW_SKIP = '-',  /* we could not make it, nor can COMMAND */
};

/* CTL_LISTENERS' kind bytes (init/connect.c makes them) */
enum ctl_listen {
	CTL_LISTEN_HTTP = 'h',      /* the HTTP proxy, 127.0.0.1 and [::1] */
	CTL_LISTEN_SOCKS = 's',     /* the SOCKS5 proxy, the same */
	CTL_LISTEN_DNS_UDP = 'd',   /* the resolver, 127.0.0.53:53 */
	CTL_LISTEN_DNS_TCP = 't',
	CTL_LISTEN_HOST_PORT = 'p', /* a host port, 127.0.0.1 and [::1] */
};
/* [network] host_ports at most; the listeners: the proxy's four, the
 * resolver's two, two per host port. */
#define CTL_HOST_PORTS_MAX 16
#define CTL_LISTEN_MAX (4 + 2 + 2 * CTL_HOST_PORTS_MAX)

/* CTL_IDS: identities per message (the message within sbx-init's 64 KiB) */
#define CTL_IDS_PER 4095

/* The rename actor's socket (CTL_NOTIFY hands sbx-preload its end;
 * init/notify.c says why pid 1 renames): a request is one type byte, the
 * flags (uint32_t, native order) and NUL-terminated single components;
 * the answer is the errno as an int32_t (0: done). */
enum ctl_act {
	/* renameat2: the flags, the old name, the new name; SCM_RIGHTS with
	 * the two directories */
	CTL_ACT_RENAME = 'r',
	/* unlinkat: the flags (0 or AT_REMOVEDIR), one name; SCM_RIGHTS with
	 * the directory */
	CTL_ACT_UNLINK = 'u',
};
#define CTL_ACT_REQ_MAX (1 + 4 + 2 * 256)

/* Inside sbx-init, the child that becomes COMMAND and pid 1 (a socketpair
 * of their own): the child sends its notify listener (CTL_IN_LISTENER,
 * SCM_RIGHTS), pid 1 answers CTL_IN_UNDER_TABLE once it is under the deny
 * table itself. */
enum ctl_in {
	CTL_IN_LISTENER = 'L',
	CTL_IN_UNDER_TABLE = 'k',
};

/* One message: the type byte, `len` bytes of payload (may be 0) and
 * `nfds` descriptors (SCM_RIGHTS; at most CTL_FDS_MAX, else -EINVAL),
 * sent whole
 * (MSG_NOSIGNAL, retried on EINTR). The kernel refuses to pass
 * descriptors (ETOOMANYREFS) while the user's descriptors in flight
 * outnumber the sender's soft RLIMIT_NOFILE (with [limits] nofile low,
 * as sbx-init sets it early): then tried once more with the soft limit at
 * the hard one, and the limit put back. 0 or -errno. */
#define CTL_FDS_MAX CTL_LISTEN_MAX
int ctl_send(int sock, char type, const void *payload, size_t len, const int *fds,
	     size_t nfds);

#endif
