/* preload/print.c: `sbx-preload --print=json`: the wrapped command as
 * data, for a program that spawns it (Node's child_process.spawn, Python's
 * subprocess) without a shell and without quoting (docs/RECIPES.md). */
#include <stdio.h>
#include <string.h>

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
