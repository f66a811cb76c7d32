/* net/poller.c: the implementation this build chose (poller.h); the
 * portable build (compat.h) takes poll(), kqueue only when asked
 * (SBX_POLLER=kqueue: not yet run, net/poller_kqueue.c). */
#if defined(SBX_POLLER_KQUEUE)
#include "net/poller_kqueue.c"
#elif defined(SBX_POLLER_POLL) || defined(SBX_PORTABLE)
#include "net/poller_poll.c"
#elif defined(__linux__)
#include "net/poller_epoll.c"
#else
#include "net/poller_poll.c"
#endif

#include "net/compat.h"
