/* backend/linux/nested.h: the nested mode (docs/SECURITY.md, "The nested
 * mode"), for machines where bubblewrap cannot make namespaces. The same
 * plan as the normal mode (plan_build), given to the kernel as a Landlock
 * ruleset (landlock.h) instead of mounts; the same sbx-init, started
 * without bubblewrap (`--nested`), installs the same seccomp table and
 * starts COMMAND with the shim. main.c calls these in the order below. */
#ifndef SBX_NESTED_H
#define SBX_NESTED_H

#include <limits.h>
#include <stdbool.h>

#include "backend/linux/landlock.h"
#include "backend/backend.h"

struct net_loop;

struct nested {
	int abi;                 /* the kernel's Landlock ABI */
	bool proxied;            /* the filtering proxy serves this run */
	bool udp_block;          /* the network is not open: no UDP socket */
	bool notify_modes;       /* the supervisor decides chmod and chown (notify.h) */
	int listen[2];           /* its HTTP and SOCKS5 listeners on the host's 127.0.0.1 */
	unsigned http_port, socks_port; /* ... at ports the kernel chose */
	struct landlock_spec spec;
	struct strv env;         /* COMMAND's environment (the plan's --setenv...) */
	char cwd[PATH_MAX];
	char weaker[1024];       /* what the start-up line says is weaker */
	const char *why;         /* why this run is nested (main's, static) */
};
#define NESTED_NONE ((struct nested){ .listen = { -1, -1 } })

/* May the nested mode run here: Landlock's ABI probed into n->abi. 0, or
 * -EOPNOTSUPP with `why` saying what is missing. */
int nested_check(struct nested *n, const struct policy *p, char *why, size_t whysz);

/* Does the policy ask for host_ports the nested mode cannot hold (any,
 * unless the network is open: Landlock's TCP rules are by port, so the
 * host's 127.0.0.1:N cannot be granted without N on every address)?
 * true with `why` saying why; the run then goes without them (fallback =
 * warn) or not at all (mode.h, MODE_PART_MISSING). */
bool nested_host_ports(const struct policy *p, char *why, size_t whysz);

/* The proxy's listeners, on the host's loopback (there is no other one
 * here) at ports the kernel picks, so two runs and the host's own
 * services never clash; plan_in takes the ports. 0 or -errno. */
int nested_listen(struct nested *n);

/* The ruleset from the whole plan (plan_build) and the policy's network,
 * COMMAND's environment and directory from the plan's bubblewrap options,
 * then sbx-init started under the ruleset (sandbox_spawn_nested). 0, or
 * -errno with `why` naming what failed; nothing runs then. */
int nested_spawn(struct nested *n, const struct policy *p, const struct plan *pl,
		 const char *init, char *const *command, struct sandbox *sb,
		 char *why, size_t whysz);

/* sandbox_go() for the nested mode: sbx-init's own options only (it takes
 * no mount operation), no stand-in states. */
int nested_go(const struct nested *n, struct sandbox *sb, const struct plan *pl,
	      const int *fds, size_t nfds);

/* The listeners handed to the proxy's loop (which owns them from then
 * on), serving only connections from this run's user's processes (the
 * host's loopback is every local user's). 0 or -errno. */
int nested_serve(struct nested *n, struct net_loop *net);

/* What the start-up line says after "sandbox on": the layers, and what is
 * weaker than the full boundary. */
void nested_text(const struct nested *n, char *layers, size_t lsz);

/* After the run: sbx-preload is the subreaper of the run (set by
 * nested_spawn), so a process of COMMAND's whose sbx-init died comes here;
 * each is killed and reaped. */
void nested_reap(void);

void nested_free(struct nested *n);

#endif
