/* backend/darwin/report.c: Seatbelt's refusals into the reports
 * (report.h). */
#include <errno.h>
#include <string.h>

#include "backend/darwin/report.h"
#include "common/wire.h"
#include "preload/preload.h"

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

void darwin_report(struct reports *r, const struct seatbelt_violation *v)
{
	enum wire_op op;

	switch (seatbelt_op_class(v)) {
	case SEATBELT_OP_READ:
		op = WIRE_READ;
		break;
	case SEATBELT_OP_WRITE:
		op = WIRE_WRITE;
		break;
	case SEATBELT_OP_EXEC:
		op = WIRE_EXEC;
		break;
	case SEATBELT_OP_UNIX:
		op = WIRE_UNIX;
		break;
	default:
		reports_syscall(r, v->pid, v->comm, v->op, v->target[0] ? v->target : NULL,
				why_other(v->op), "sbx's Seatbelt profile", EPERM);
		return;
	}
	/* a path the log hid ("<private>") or one not normal is said as the
	 * kernel gave it, never decided as a path */
	if (!seatbelt_path_normal(v->target)) {
		reports_syscall(r, v->pid, v->comm, v->op, v->target,
				"the system log did not give the path", "sbx's Seatbelt profile",
				EPERM);
		return;
	}
	reports_boundary(r, WIRE_DENY, op, v->pid, v->comm, v->target, EPERM, NULL);
}
