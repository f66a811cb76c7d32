/* common/event.h: one event for the run's reports, whoever saw it.
 *
 * Three layers see what the sandbox does: the shim (its report line, a
 * claim the supervisor decides again), the seccomp notify layer (its own
 * decisions) and the filtering proxy with the sandbox's resolver (net/);
 * on macOS, Seatbelt's refusals from the system log stand for the notify
 * layer's (backend/darwin/report.c).
 * Each fills one struct event and hands it to one entry, reports_event()
 * (preload/reports.c; net/ through its report callback, being below
 * preload/), which makes the terminal line with one writer and the JSON
 * record with another (docs/REPORTS.md). Every pointer is borrowed for
 * the call. */
#ifndef SBX_EVENT_H
#define SBX_EVENT_H

#include <stdbool.h>

#include "common/wire.h"

struct sbx_rule;

/* Who saw it: the JSON record's "layer". */
enum event_layer {
	EVENT_SHIM,
	EVENT_NOTIFY,
	EVENT_PROXY,
	EVENT_SEATBELT, /* macOS: Seatbelt's refusals, read from the system log (backend/darwin/) */
};

enum event_what {
	/* An operation judged by the path and domain rules (`op`: read,
	 * write, exec, connect, lookup, a Unix socket): the shim's line or
	 * the notify layer's decision on a file or a socket's path. */
	EVENT_ACCESS,
	/* A connection or lookup judged by the proxy's decision (net/):
	 * through the proxy, the resolver, host_ports, or a program's own
	 * connect the notify layer carried (`via`). */
	EVENT_NET,
	/* A system call the boundary refuses as such (a row of the seccomp
	 * table, a default ACL, a git config's new bytes, a server under
	 * allow_local_binding = false): `target` names the call. */
	EVENT_CALL,
	/* Words, no decision: the shim says a static binary started, or a
	 * connect to the sandbox's own loopback was refused (`op` says
	 * which). */
	EVENT_NOTE,
};

/* Decisions: common/wire.h's WIRE_DENY, WIRE_ALLOW and WIRE_LEARN
 * (would-deny), and for EVENT_NET these two: */
#define EVENT_FAILED 'F' /* allowed, but the connection or lookup failed */
#define EVENT_ERROR 'E'  /* the client spoke nonsense, timed out, or over the cap */

/* How an EVENT_NET came (the record's "via"). */
enum event_via {
	EVENT_VIA_CONNECT,  /* HTTP CONNECT tunnel */
	EVENT_VIA_HTTP,     /* plain HTTP request */
	EVENT_VIA_SOCKS,    /* SOCKS5 CONNECT */
	EVENT_VIA_DNS,      /* a lookup at the sandbox's resolver (port 0) */
	EVENT_VIA_HOSTPORT, /* a host_ports connection */
	EVENT_VIA_SECCOMP,  /* a program's own connect(), carried by the notify layer */
};

struct event {
	enum event_what what;
	enum event_layer layer;
	char decision;
	enum wire_op op;              /* EVENT_ACCESS, EVENT_NOTE */
	/* a path, "host:port" (ACCESS connect), a host (EVENT_NET, with
	 * `port`; "" when nothing parsed), or the call (EVENT_CALL); for the
	 * notify layer's file events a trailing `/` is a directory being
	 * made, as on the wire (wire.h) */
	const char *target;
	unsigned port;                /* EVENT_NET */
	bool truncated;               /* the target was cut (the shim's `…`) */
	bool dir;                     /* a directory being made (the shim's) */
	const struct sbx_rule *rule;  /* the deciding rule, or NULL */
	const char *rule_text;        /* EVENT_CALL: what refuses it, as text */
	const char *reason;           /* why, in words; EVENT_NET: "" for allowed */
	const char *fix;              /* EVENT_NET: "--allow-domain x", or "" */
	const char *on;               /* EVENT_CALL: what it was made on, or NULL */
	int pid;                      /* the calling process; 0: not known */
	/* the same process as it knows itself, where that differs (the
	 * notify layer's: getpid() in the sandbox's pid namespace, the
	 * number its shim's lines carry); 0: pid is that */
	int self_pid;
	const char *comm;             /* its name, or NULL */
	int err;                      /* the errno the caller got, or 0 */
	/* EVENT_NET */
	enum event_via via;
	const char *address;          /* the address dialled, "" if none */
	const char *client;           /* the sandbox side: "127.0.0.1:41234" */
	/* a refusal under --learn that allow_domains may learn (no rule
	 * refused it, none allowed it; never an address check's) */
	bool candidate;
};

#endif
