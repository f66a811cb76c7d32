/* common/io.h: a descriptor written to the end, for every program of
 * sbx's that writes whole buffers (the supervisor's files, sbx-init's
 * SOCKS relay). */
#ifndef SBX_COMMON_IO_H
#define SBX_COMMON_IO_H

#include <stddef.h>

/* All n bytes of buf into fd, through short writes and EINTR: 0, or
 * -errno (-EIO when a write takes nothing). A descriptor that would
 * block (O_NONBLOCK) fails with -EAGAIN: what is written is lost. */
int io_write_all(int fd, const void *buf, size_t n);

#endif
