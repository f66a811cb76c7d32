/* preload/print.c: `sbx-preload --print=json`: the wrapped command as
 * data, for a program that spawns it (Node's child_process.spawn, Python's
 * subprocess) without a shell and without quoting (docs/RECIPES.md); and
 * `--print=seatbelt`: the policy as a macOS profile (docs/MACOS.md). */
#include <stdio.h>
#include <string.h>

#include "backend/darwin/darwin.h"
#include "backend/darwin/seatbelt.h"
#include "preload/preload.h"

/* {"argv":[...],"cwd":"...","env":{"set":{...},"unset":[...]}}: argv runs
 * the sandbox as is, with the caller's own environment; the environment
 * COMMAND will see differs by `env` (bubblewrap applies it inside, from
 * the --setenv/--unsetenv in argv: listed so the caller need not parse
 * them). One line on stdout. */
void print_plan_json(const struct plan *pl, const char *cwd)
{
	size_t end = pl->init_at ? pl->init_at : pl->argv.n;
	bool first;

	fputs("{\"argv\":[", stdout);
	for (size_t i = 0; i < pl->argv.n; i++) {
		if (i)
			fputc(',', stdout);
		report_json_string(stdout, pl->argv.v[i]);
	}
	fputs("],\"cwd\":", stdout);
	report_json_string(stdout, cwd);
	fputs(",\"env\":{\"set\":{", stdout);
	first = true;
	for (size_t i = 0; i + 2 < end; i++) {
		if (strcmp(pl->argv.v[i], "--setenv"))
			continue;
		if (!first)
			fputc(',', stdout);
		report_json_string(stdout, pl->argv.v[i + 1]);
		fputc(':', stdout);
		report_json_string(stdout, pl->argv.v[i + 2]);
		first = false;
		i += 2;
	}
	fputs("},\"unset\":[", stdout);
	first = true;
	for (size_t i = 0; i + 1 < end; i++) {
		if (strcmp(pl->argv.v[i], "--unsetenv"))
			continue;
		if (!first)
			fputc(',', stdout);
		report_json_string(stdout, pl->argv.v[i + 1]);
		first = false;
		i += 1;
	}
	fputs("]}}\n", stdout);
}

/* The ports are the proxy's own defaults: a Mac user running the command
 * by hand starts the proxy there (the darwin backend will pass its own).
 * What the disk says stays unwritten is in it as a run's (plan_guards():
 * it only looks), as it is now; and, as in a run's, no run's shim
 * hand-over in state_dir is read from inside (seatbelt.h, shim_others). */
int print_seatbelt(const struct policy *p, const char *run_id, const char *state_dir,
		   char *const *command)
{
	struct seatbelt_opts so = { .run_id = run_id, .http_port = SBX_PROXY_HTTP_PORT,
				    .socks_port = SBX_PROXY_SOCKS_PORT,
				    .shim_others = state_dir && state_dir[0] ? state_dir : NULL };
	struct seatbelt_profile sp;
	struct plan pl;
	char err[512];
	extern char **environ;
	struct plan_in in = { .policy = p, .environ = environ, .ctl_fd = -1,
			      .make_placeholders = true, .notify = true };

	int rc = plan_guards(&in, &pl);
	if (rc) {
		msg("--print=seatbelt: looking for what must stay read-only: %s; nothing was "
		    "printed", strerror(-rc));
		return SBX_EXIT_SETUP;
	}
	so.kept = pl.guarded.v;
	so.nkept = pl.guarded.n;
	so.pinned = pl.pinned.v;
	so.npinned = pl.pinned.n;
	rc = seatbelt_compile(p, &so, &sp, err, sizeof(err));
	plan_free(&pl);
	if (rc) {
		msg("--print=seatbelt: %s; nothing was printed", err);
		return SBX_EXIT_SETUP;
	}
	seatbelt_print_command(stdout, &sp, command);
	/* what it cannot do, as comment lines a shell passes over */
	for (unsigned i = 0; i < darwin_nlimits; i++)
		printf("# sbx on macOS, %s: %s.\n", darwin_limits[i].what, darwin_limits[i].text);
	seatbelt_profile_free(&sp);
	return fflush(stdout) ? SBX_EXIT_SETUP : 0;
}
