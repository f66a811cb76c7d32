/* init/notify.h: sbx-init's side of the seccomp notify layer
 * (preload/notify/notify.h is the supervisor's). */
#ifndef SBX_INIT_NOTIFY_H
#define SBX_INIT_NOTIFY_H

/* The rename actor is pid 1 itself (init/notify.c says why it exists and
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

/* A descriptor sent alone with the one byte `tag` (ctl_send()): >= 0, or
 * -errno (-EPIPE when the sender closed its end first). */
int init_notify_recv_fd(int sock, char tag);

/* The CTL_NOTIFY message on `ctl`: the listener and the supervisor's end
 * of the actor's socket; both are closed here. 0, or -errno. */
int init_notify_send_listener(int ctl, int listener, int act_sock);

/* The actor's protocol is control.h's enum ctl_act. Unlinks go through it
 * too: a mount point (a protected name bound read-only, a link kept as it
 * is) is one only in the sandbox's mount namespace, so a removal made
 * from the host would take it away. */

#endif
