/* common/msg.h: the supervisor's own lines for the person, one line on
 * stderr prefixed `sbx: `, the text writer the terminal relay hooks, and
 * the exit statuses of the contract.
 * Below preload/ and backend/, which both speak. */
#ifndef SBX_MSG_H
#define SBX_MSG_H

#include <stddef.h>

/* Exit statuses of the contract. */
#define SBX_EXIT_SETUP 125   /* the sandbox could not be set up; nothing ran */
#define SBX_EXIT_NOEXEC 126
#define SBX_EXIT_NOTFOUND 127

enum verbosity { V_QUIET, V_NORMAL, V_VERBOSE, V_DEBUG };
extern enum verbosity sbx_verbosity;
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  /* always */
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* not with -q */
void vmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  /* --verbose */
void dmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  /* --debug */
/* Text for the person (msg(), the reports' lines): written whole to fd, or
 * through the hook while a terminal is relayed (backend/relay.c: in
 * order with COMMAND's output, \r\n in raw mode). */
extern void (*sbx_text_hook)(int fd, const char *s, size_t n);
void sbx_write_text(int fd, const char *s, size_t n);
/* All of s to fd, past EINTR, as it is (no hook), waiting for room where
 * fd is non-blocking; stops where fd fails. */
void sbx_write_plain(int fd, const char *s, size_t n);
int sbx_dprintf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
