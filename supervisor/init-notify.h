/* supervisor/init-notify.h: sbx-init's side of the seccomp notify layer
 * (supervisor/notify.h is the supervisor's). */
#ifndef SBX_INIT_NOTIFY_H
#define SBX_INIT_NOTIFY_H

/* The rename actor: a child of pid 1 that runs in the sandbox's namespaces
 * without capabilities and renames for the supervisor (one request per
 * message on `sock`, answered with the errno). Never returns. */
void init_notify_actor(int sock) __attribute__((noreturn));

/* Install the notify filter (gen-notify.c; `block`: the Unix-socket
 * variant; `nobind`: listen and bind notified, allow_local_binding =
 * false) on the calling process and send its listener and the actor's
 * socket to the supervisor in an "F" message on `ctl`; both are closed
 * here. 0, or -errno with *what naming the step. */
int init_notify_install(int ctl, int block, int nobind, int act_sock, const char **what);

/* The actor's protocol: a request is 'r', the renameat2 flags (4 bytes,
 * native order), the old name and the new name (each NUL-terminated, one
 * component), with the two directory descriptors (SCM_RIGHTS); the answer
 * is the errno as 4 bytes (0: done). */
#define INIT_NOTIFY_REQ_MAX (1 + 4 + 2 * 256)

#endif
