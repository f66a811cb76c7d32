/* backend/darwin/report.c: Seatbelt's refusals into the reports
 * (report.h), as events of their own layer (common/event.h). */
#include <errno.h>
#include <string.h>

#include "backend/darwin/report.h"
#include "common/event.h"
#include "common/wire.h"

/* The words for a refusal no path rule explains. */
static const char *why_other(const char *op)
{
	if (!strcmp(op, "mach-lookup"))
		return "not one of the system services the profile opens (trustd, user "
		       "names, the system log, notifications)";
	if (!strncmp(op, "network", 7))
		return "the network goes out only through sbx's proxy, as allow_domains says";
	if (!strcmp(op, "appleevent-send"))
		return "no Apple Events: a script of another application acts outside the sandbox";
	if (!strncmp(op, "process-info", 12) || !strcmp(op, "signal"))
		return "only the sandbox's own processes";
	return "not in sbx's Seatbelt profile";
}

void darwin_event(const struct seatbelt_violation *v,
		  void (*fn)(void *ctx, const struct event *ev), void *ctx)
{
	struct event ev = { .layer = EVENT_SEATBELT, .decision = WIRE_DENY, .pid = v->pid,
			    .comm = v->comm, .err = EPERM };

	switch (seatbelt_op_class(v)) {
	case SEATBELT_OP_READ:
		ev.op = WIRE_READ;
		break;
	case SEATBELT_OP_WRITE:
		ev.op = WIRE_WRITE;
		break;
	case SEATBELT_OP_EXEC:
		ev.op = WIRE_EXEC;
		break;
	case SEATBELT_OP_UNIX:
		ev.op = WIRE_UNIX;
		break;
	default:
		ev.what = EVENT_CALL;
		ev.target = v->op;
		ev.on = v->target;
		ev.reason = why_other(v->op);
		ev.rule_text = "sbx's Seatbelt profile";
		fn(ctx, &ev);
		return;
	}
	/* a path the log hid ("<private>") or one not normal is said as the
	 * kernel gave it, never decided as a path */
	if (!seatbelt_path_normal(v->target)) {
		ev.what = EVENT_CALL;
		ev.target = v->op;
		ev.on = v->target;
		ev.reason = "the system log did not give the path";
		ev.rule_text = "sbx's Seatbelt profile";
		fn(ctx, &ev);
		return;
	}
	ev.what = EVENT_ACCESS;
	ev.target = v->target;
	fn(ctx, &ev);
}
