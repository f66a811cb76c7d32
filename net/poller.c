/* net/poller.c: the implementation this build chose (poller.h). */
#if defined(SBX_POLLER_POLL)
#include "net/poller_poll.c"
#elif defined(__linux__)
#include "net/poller_epoll.c"
#else
#include "net/poller_poll.c"
#endif
