/* backend/linux/linux.c: the Linux backends behind backend/backend.h.
 * Both start sbx-init and talk to it over the control socket (the
 * process driver: process.c); they differ in what holds the plan:
 * bubblewrap's namespaces and mounts, or the nested mode's Landlock
 * ruleset (nested.c, landlock.c). */
#include <errno.h>
#include <stddef.h>

#include "backend/backend.h"
#include "backend/linux/nested.h"
#include "backend/linux/process.h"

/* bubblewrap: started early (sandbox_spawn, before the policy), its
 * options sent once the plan's first part is made. */
static int bwrap_send_plan(struct backend *b, const struct plan *pl)
{
	return sandbox_send_args(&b->sb, pl);
}

static int bwrap_start(struct backend *b, const struct plan *pl, char *why, size_t whysz)
{
	return 0; /* running since the prepare phase */
}

static const char *bwrap_layers(const struct backend *b, char *out, size_t outsz)
{
	return NULL;
}

static int bwrap_go(struct backend *b, const struct plan *pl, const int *fds, size_t nfds)
{
	return sandbox_go(&b->sb, pl, fds, nfds);
}

static void bwrap_release(struct backend *b)
{
	if (b->sb.sfd >= 0)
		sandbox_abort(&b->sb); /* not waited for: nothing ran */
}

const struct backend_ops backend_bwrap = {
	.name = "bubblewrap",
	.send_plan = bwrap_send_plan,
	.start = bwrap_start,
	.layers = bwrap_layers,
	.serve = NULL, /* sbx-init's listeners, handed over in the wait */
	.go = bwrap_go,
	.waited = NULL, /* bubblewrap's pid namespace took what was left */
	.release = bwrap_release,
};

/* The nested mode: nothing to send before the whole plan is made; then
 * the plan as a Landlock ruleset, sbx-init started under it. */
static int nested_send_plan(struct backend *b, const struct plan *pl)
{
	return 0;
}

static int nested_start(struct backend *b, const struct plan *pl, char *why, size_t whysz)
{
	return nested_spawn(b->nest, b->policy, pl, b->init, b->command, &b->sb, why, whysz);
}

static const char *nested_layers(const struct backend *b, char *out, size_t outsz)
{
	nested_text(b->nest, out, outsz);
	return out;
}

static int nested_serve_ops(struct backend *b, struct net_loop *net)
{
	return nested_serve(b->nest, net);
}

static int nested_go_ops(struct backend *b, const struct plan *pl, const int *fds, size_t nfds)
{
	return nested_go(b->nest, &b->sb, pl, fds, nfds);
}

static void nested_waited(struct backend *b)
{
	nested_reap(); /* no pid namespace takes what sbx-init started */
}

static void nested_release(struct backend *b)
{
	if (b->sb.sfd >= 0)
		sandbox_abort(&b->sb);
	nested_reap(); /* no pid namespace takes what sbx-init started */
}

const struct backend_ops backend_nested = {
	.name = "nested",
	.send_plan = nested_send_plan,
	.start = nested_start,
	.layers = nested_layers,
	.serve = nested_serve_ops,
	.go = nested_go_ops,
	.waited = nested_waited,
	.release = nested_release,
};
