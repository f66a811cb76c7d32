/* tests/unit/darwin_backend.c: backend_darwin's ops run on Linux
 * (backend/darwin/darwin.c), with stand-ins for /usr/bin/sandbox-exec and
 * /usr/bin/log: shell scripts that run the command as sandbox-exec would
 * (after -D, -p and --) and carry "kernel" records through a FIFO the way
 * `log stream` prints them. What they check is the backend's part: the
 * start sentinel awaited, COMMAND started with its environment, its exit
 * status, a refusal from the log said and logged, the sentinels not
 * reported, the end sentinel drained, and nothing left behind. Whether
 * Seatbelt itself refuses is the macOS workflow's to show. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "backend/backend.h"
#include "backend/darwin/darwin.h"
#include "common/event.h"
#include "preload/preload.h"
#include "tests/unit/helpers.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

static void to_reports(void *ctx, const struct event *ev)
{
	reports_event(ctx, ev);
}

static void feed(void *ctx, const char *data, size_t n)
{
	reports_feed(ctx, data, n);
}

static bool pending(void *ctx)
{
	return reports_pending(ctx);
}

static void flush(void *ctx)
{
	reports_flush(ctx);
}

static void script(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	cr_assert_eq(chmod(path, 0700), 0);
}

struct fake {
	char *dir;
	char fifo[PATH_MAX], sbexec[PATH_MAX], log[PATH_MAX], out[PATH_MAX], audit[PATH_MAX];
};

static void fake_make(struct fake *f)
{
	char text[8192];

	f->dir = make_tmpdir();
	snprintf(f->fifo, sizeof(f->fifo), "%s/log.fifo", f->dir);
	snprintf(f->sbexec, sizeof(f->sbexec), "%s/sandbox-exec", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/log", f->dir);
	snprintf(f->out, sizeof(f->out), "%s/stderr", f->dir);
	snprintf(f->audit, sizeof(f->audit), "%s/audit.jsonl", f->dir);
	cr_assert_eq(mkfifo(f->fifo, 0600), 0);
	/* log: its arguments kept, then whatever reaches the FIFO */
	snprintf(text, sizeof(text), "#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s/log.args'\n"
		 "exec 3<>'%s'\nexec cat <&3\n", f->dir, f->fifo);
	script(f->log, text);
	/* sandbox-exec: options read, the tag taken from the profile; a
	 * refused `cat` of a sentinel is a kernel record; COMMAND runs with
	 * SBX_TEST_TAG and SBX_TEST_FIFO to write records of its own */
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n"
		 "while [ $# -gt 0 ]; do case \"$1\" in\n"
		 "  -D) shift 2;;\n"
		 "  -p) prof=$2; shift 2;;\n"
		 "  --) shift; break;;\n"
		 "  *) break;;\n"
		 "esac; done\n"
		 "tag=$(printf '%%s' \"$prof\" | sed -n 's/.*(with message \"\\([^\"]*\\)\").*/\\1/p' | head -n1)\n"
		 "if [ \"$1\" = /bin/cat ] && [ \"${2##*/sbx-sentinel-}\" != \"$2\" ]; then\n"
		 "  printf '{\"processImagePath\":\"\\\\/kernel\",\"eventMessage\":\"Sandbox: cat(%%d) deny(1) file-read-data %%s\\\\n%%s\",\"processID\":0}\\n' $$ \"$2\" \"$tag\" > '%s'\n"
		 "  exit 1\nfi\n"
		 "printf '%%s\\n' \"$prof\" > '%s/profile'\n"
		 "export SBX_TEST_TAG=\"$tag\" SBX_TEST_FIFO='%s'\n"
		 "exec \"$@\"\n", f->fifo, f->dir, f->fifo);
	script(f->sbexec, text);
}

static void fake_free(struct fake *f)
{
	remove_tree(f->dir);
	free(f->dir);
}

Test(darwin_backend, runs_command_reports_its_refusal_and_drains_the_log)
{
	static struct fake f;
	static struct darwin d;
	char cmdline[2048];

	fake_make(&f);
	struct policy *p = compile_ini(NULL);
	d = DARWIN_NONE;
	d.run_id = "20260101-000000-7";
	d.watch.sandbox_exec = f.sbexec;
	d.watch.log = f.log;
	d.watch.tmpdir = f.dir;
	d.watch.wait_ms = 5000;
	char *caller[] = { "PATH=/usr/bin:/bin", "GITHUB_TOKEN=ghp_secret", NULL };
	d.environ = caller;
	/* COMMAND: a refusal the kernel would log, its environment kept, 3 */
	snprintf(cmdline, sizeof(cmdline),
		 "printf '{\"eventMessage\":\"Sandbox: cat(4121) deny(1) file-read-data "
		 "\\\\/home\\\\/u\\\\/.ssh\\\\/id_rsa\\\\n%%s\",\"processID\":0}\\n' \"$SBX_TEST_TAG\" "
		 "> \"$SBX_TEST_FIFO\"; env > '%s/env'; exit 3", f.dir);
	char *command[] = { "/bin/sh", "-c", cmdline, NULL };
	struct backend b = { .ops = &backend_darwin, .policy = p, .command = command,
			     .darwin = &d };
	char why[512] = "";

	cr_assert_eq(b.ops->send_plan(&b, NULL), 0);
	int out = open(f.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct reports *r;
	struct reports_cfg cfg = { .policy = p, .log_path = f.audit, .run_id = "r-1",
				   .mode = REPORTS_ENFORCE, .out_fd = out };
	cr_assert_eq(reports_new(&cfg, &r), 0);
	d.report = to_reports;
	d.report_ctx = r;
	cr_assert_eq(b.ops->start(&b, NULL, why, sizeof(why)), 0, "%s", why);
	cr_assert(d.watch.live, "the start sentinel never came through the log");
	cr_assert_geq(d.watch.seen[0], 1);

	struct darwin_io io = { .report_fd = -1, .feed = feed, .pending = pending,
				.flush = flush, .ctx = r };
	bool ready = false;

	cr_assert_eq(b.ops->go(&b, NULL, NULL, 0), 0);
	int status = darwin_wait(&b, &io, &ready);
	reports_finish(r, 0);
	cr_assert(ready);
	cr_assert_eq(status, 3, "COMMAND's status: %d", status);
	cr_assert_geq(d.watch.seen[1], 1, "the end sentinel was not awaited");

	char *said = slurp(f.out), *log = slurp(f.audit), *env = slurp(strcat(strcpy(
		(char[PATH_MAX]){ 0 }, f.dir), "/env"));
	cr_assert(strstr(said, "sbx: denied read of ~/.ssh/id_rsa by `deny_read = ~/.ssh`"),
		  "%s", said);
	cr_assert(strstr(said, "pid 4121 cat (Seatbelt)"), "%s", said);
	cr_assert_null(strstr(said, "sbx-sentinel"), "a sentinel was reported: %s", said);
	cr_assert(strstr(log, "\"layer\":\"seatbelt\""), "%s", log);
	cr_assert(strstr(env, "SBX_SANDBOX=1\n"), "%s", env);
	cr_assert_null(strstr(env, "GITHUB_TOKEN"), "%s", env);
	/* the profile reached sandbox-exec; log was asked for our tag only */
	char *prof = slurp(strcat(strcpy((char[PATH_MAX]){ 0 }, f.dir), "/profile"));
	cr_assert(!strncmp(prof, "(version 1)", 11), "%s", prof);
	char *largs = slurp(strcat(strcpy((char[PATH_MAX]){ 0 }, f.dir), "/log.args"));
	cr_assert(strstr(largs, "stream\n--style\nndjson\n--predicate\nprocessID == 0 AND "
				"eventMessage ENDSWITH \"sbx-20260101-000000-7-"), "%s", largs);

	b.ops->release(&b);
	cr_assert_eq(d.watch.log_pid, -1);
	cr_assert_eq(access(d.watch.sentinel[0], F_OK), -1, "the sentinel was left behind");
	free(said);
	free(log);
	free(env);
	free(prof);
	free(largs);
	reports_free(r);
	close(out);
	policy_free(p);
	fake_free(&f);
}

Test(darwin_backend, a_log_that_never_shows_a_refusal_stops_the_run_before_command)
{
	static struct fake f;
	static struct darwin d;

	fake_make(&f);
	/* a log that prints nothing */
	char quiet[PATH_MAX + 64];
	snprintf(quiet, sizeof(quiet), "#!/bin/sh\nexec 3<>'%s'\nexec sleep 60\n", f.fifo);
	script(f.log, quiet);
	struct policy *p = compile_ini("[network]\nallow_domains = example.com\n");
	d = DARWIN_NONE;
	d.run_id = "r";
	d.watch.sandbox_exec = f.sbexec;
	d.watch.log = f.log;
	d.watch.tmpdir = f.dir;
	d.watch.wait_ms = 300;
	char *caller[] = { "PATH=/usr/bin:/bin", NULL };
	d.environ = caller;
	char ran[PATH_MAX + 64];
	snprintf(ran, sizeof(ran), "touch '%s/ran'", f.dir);
	char *command[] = { "/bin/sh", "-c", ran, NULL };
	struct backend b = { .ops = &backend_darwin, .policy = p, .command = command,
			     .darwin = &d };
	char why[512] = "";

	/* no reports, no run: start fails, and go() has nothing to start */
	cr_assert_eq(b.ops->start(&b, NULL, why, sizeof(why)), -ETIMEDOUT, "%s", why);
	cr_assert(strstr(why, "could not be reported"), "%s", why);
	cr_assert_not(d.watch.live);
	cr_assert_neq(b.ops->go(&b, NULL, NULL, 0), 0);
	cr_assert_eq(d.cmd_pid, -1);
	/* proxied: two listeners on localhost, their ports in the profile */
	cr_assert_gt(d.ports[0], 0);
	cr_assert_gt(d.ports[1], 0);
	char port[16];
	snprintf(port, sizeof(port), "%u", d.ports[0]);
	bool found = false;
	for (size_t i = 0; i < d.profile.nparams; i++)
		found = found || (!strcmp(d.profile.params[i].name, "HTTP_PROXY_PORT") &&
				  !strcmp(d.profile.params[i].value, port));
	cr_assert(found, "the profile does not name the proxy's port %s", port);
	b.ops->release(&b);
	cr_assert_eq(d.watch.log_pid, -1);
	cr_assert_eq(d.listen[0], -1);
	cr_assert_eq(access(strcat(strcpy((char[PATH_MAX]){ 0 }, f.dir), "/ran"), F_OK), -1,
		     "COMMAND ran");
	policy_free(p);
	fake_free(&f);
}
