/* supervisor/init-notify.h: sbx-init's side of the seccomp notify layer
 * (supervisor/notify.h is the supervisor's). */
#ifndef SBX_INIT_NOTIFY_H
#define SBX_INIT_NOTIFY_H

/* The rename actor is pid 1 itself (init-notify.c says why it exists and
 * why pid 1): one request per message on `sock`, answered with the errno.
 * 0 when one was served (or refused), -1 when the supervisor closed its
 * end. */
int init_notify_act_one(int sock);

/* Install the notify filter (gen-notify.c; `block`: the Unix-socket
 * variant; `nobind`: listen and bind notified, allow_local_binding =
 * false; `modes`: the nested mode's, a file's mode and owner only) on
 * the calling process: the listener, or -errno. Called in the child
 * that becomes COMMAND, before its exec. */
int init_notify_filter(int block, int nobind, int modes);

/* One descriptor over `sock` (SCM_RIGHTS, the byte `tag`): 0 or -errno. */
int init_notify_send_fd(int sock, char tag, int fd);
/* sendmsg() of descriptors, once more with the soft RLIMIT_NOFILE raised
 * to the hard one on ETOOMANYREFS: 0 or -errno. */
struct msghdr;
int init_sendmsg(int sock, const struct msghdr *mh);

/* The descriptor init_notify_send_fd sent: >= 0, or -errno (-EPIPE when
 * the sender closed its end first). */
int init_notify_recv_fd(int sock, char tag);

/* The "F" message on `ctl`: the listener and the supervisor's end of the
 * actor's socket; both are closed here. 0, or -errno. */
int init_notify_send_listener(int ctl, int listener, int act_sock);

/* The actor's protocol: a request is 'r', the renameat2 flags (4 bytes,
 * native order), the old name and the new name (each NUL-terminated, one
 * component), with the two directory descriptors (SCM_RIGHTS); the answer
 * is the errno as 4 bytes (0: done). An unlinkat is 'u', its flags (0 or
 * AT_REMOVEDIR) and one name, with one directory descriptor: a mount
 * point (a protected name bound read-only, a link kept as it is) is one
 * only in the sandbox's mount namespace, so a removal made from the host
 * would take it away. */
#define INIT_NOTIFY_REQ_MAX (1 + 4 + 2 * 256)

#endif
