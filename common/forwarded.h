/* common/forwarded.h: the signals relayed to COMMAND. One table for the
 * supervisor (which relays them to sbx-init) and sbx-init (to COMMAND). */
#ifndef SBX_FORWARDED_H
#define SBX_FORWARDED_H

#include <signal.h>
#include <stdbool.h>

static const int sbx_forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				     SIGWINCH, SIGUSR1, SIGUSR2 };
#define SBX_NFORWARDED (sizeof(sbx_forwarded) / sizeof(sbx_forwarded[0]))

/* The ones the terminal sends to the whole foreground process group. */
static inline bool sbx_terminating(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
}

#endif
