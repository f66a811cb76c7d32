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
#include <sys/file.h>
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

/* What the disk says grows with the repositories in the writable roots,
 * which a run may make by the thousand (a bare one is four names; 2,000
 * of them made the next run's profile 2.2 MB): past ARG_MAX no spawn of
 * sandbox-exec starts (E2BIG, said as "Argument list too long" and
 * nothing more). The start fails before any, naming the cause and what
 * to do, and nothing runs. */
Test(darwin_backend, a_profile_past_arg_max_fails_the_start_naming_the_kept_paths)
{
	static struct fake f;
	static struct darwin d;
	static struct plan pl;
	char path[1600];

	fake_make(&f);
	struct policy *p = compile_ini(NULL);
	d = DARWIN_NONE;
	d.run_id = "r";
	d.watch.sandbox_exec = f.sbexec;
	d.watch.log = f.log;
	d.watch.tmpdir = f.dir;
	d.watch.wait_ms = 2000;
	char *caller[] = { "PATH=/usr/bin:/bin", NULL };
	d.environ = caller;
	char ran[PATH_MAX + 64];
	snprintf(ran, sizeof(ran), "touch '%s/ran'", f.dir);
	char *command[] = { "/bin/sh", "-c", ran, NULL };
	struct backend b = { .ops = &backend_darwin, .policy = p, .command = command,
			     .darwin = &d };
	char why[1024] = "";
	/* each a regex of at least 4 bytes a letter: ARG_MAX / 4000 of them
	 * hold more than ARG_MAX */
	long max = sysconf(_SC_ARG_MAX);
	size_t n = (size_t)max / 4000 + 16;
	memset(path, 'h', sizeof(path));
	path[0] = '/';
	for (size_t i = 0; i < n; i++) {
		snprintf(path + 1400, sizeof(path) - 1400, "/r%zu.git/hooks", i);
		cr_assert_eq(strv_add(&pl.guarded, path), 0);
	}
	cr_assert_eq(b.ops->start(&b, &pl, why, sizeof(why)), -E2BIG, "%s", why);
	cr_assert(strstr(why, "ARG_MAX"), "%s", why);
	char kept[64];
	snprintf(kept, sizeof(kept), "it keeps %zu paths read-only", n);
	cr_assert(strstr(why, kept), "%s", why);
	cr_assert(strstr(why, "-w DIR"), "%s", why);
	cr_assert_neq(b.ops->go(&b, &pl, NULL, 0), 0);
	b.ops->release(&b);
	cr_assert_eq(access(strcat(strcpy((char[PATH_MAX]){ 0 }, f.dir), "/ran"), F_OK), -1,
		     "COMMAND ran");
	strv_free(&pl.guarded);
	policy_free(p);
	fake_free(&f);
}

/* The shim's hand-over as start() makes it (docs/MACOS.md): in the held
 * state directory, the policy file byte for byte the blob Linux seals in
 * its memfd, the FIFO held (a report written into it is read, a drop
 * counted), all named in SBX_SHIM and the profile, gone at release; a
 * name in the way fails the start and is not ours to remove. */
Test(darwin_backend, the_shims_handover_is_made_named_and_removed)
{
	static struct fake f;
	static struct darwin d;
	char why[512] = "", path[PATH_MAX];
	struct stat st;

	fake_make(&f);
	struct policy *p = compile_ini(NULL);
	char *caller[] = { "PATH=/usr/bin:/bin", "SBX_SHIM=1;policy=/tmp/theirs", NULL };
	char *command[] = { "/bin/true", NULL };
	struct backend b = { .ops = &backend_darwin, .policy = p, .command = command,
			     .darwin = &d };
	int sfd = open(f.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(sfd, 0);
	d = DARWIN_NONE;
	d.run_id = "20260101-000000-9";
	d.shim_lib = "/opt/sbx/lib/libsbx-preload.dylib";
	d.state_fd = sfd;
	d.state_dir = f.dir;
	d.watch.sandbox_exec = f.sbexec;
	d.watch.log = f.log;
	d.watch.tmpdir = f.dir;
	d.watch.wait_ms = 5000;
	d.environ = caller;
	cr_assert_eq(b.ops->start(&b, NULL, why, sizeof(why)), 0, "%s", why);

	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/shim-20260101-000000-9", f.dir);
	cr_assert_eq(lstat(dir, &st), 0);
	cr_assert(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700 && st.st_uid == getuid());
	/* the policy: the blob itself, read-only */
	void *blob;
	size_t len;
	cr_assert_eq(policy_to_blob(p, &blob, &len), 0);
	snprintf(path, sizeof(path), "%s/policy", dir);
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0400);
	cr_assert_eq((size_t)st.st_size, len);
	char *got = malloc(len);
	int fd = open(path, O_RDONLY);
	cr_assert_eq(read(fd, got, len), (ssize_t)len);
	close(fd);
	cr_assert_eq(memcmp(got, blob, len), 0, "the policy file is not the blob");
	free(got);
	free(blob);
	snprintf(path, sizeof(path), "%s/reports", dir);
	/* written only, by their modes too: the state directory is readable
	 * from every run, and a run's profile guards its own FIFO only */
	cr_assert(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode) && (st.st_mode & 07777) == 0200,
		  "the report FIFO is %o", st.st_mode & 07777);
	snprintf(path, sizeof(path), "%s/dropped", dir);
	cr_assert(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0200,
		  "the counters file is %o", st.st_mode & 07777);
	snprintf(path, sizeof(path), "%s/reports", dir);
	/* named: SBX_SHIM ours (the caller's dropped), the lib first in
	 * DYLD_INSERT_LIBRARIES, the directory in the profile */
	char want[2 * PATH_MAX];
	snprintf(want, sizeof(want), "SBX_SHIM=1;mode=enforce;policy=%s/policy;report=%s/reports;"
		 "counters=%s/dropped;lib=/opt/sbx/lib/libsbx-preload.dylib", dir, dir, dir);
	size_t nshim = 0;
	bool dyld = false;
	for (size_t i = 0; i < d.envp.n; i++) {
		nshim += !strncmp(d.envp.v[i], "SBX_SHIM=", 9);
		cr_assert(strncmp(d.envp.v[i], "SBX_SHIM=", 9) || !strcmp(d.envp.v[i], want),
			  "%s", d.envp.v[i]);
		dyld |= !strcmp(d.envp.v[i],
				"DYLD_INSERT_LIBRARIES=/opt/sbx/lib/libsbx-preload.dylib");
	}
	cr_assert_eq(nshim, 1);
	cr_assert(dyld);
	bool named = false;
	for (size_t i = 0; i < d.profile.nparams; i++)
		named |= strstr(d.profile.params[i].value, "shim-20260101-000000-9/policy") != NULL;
	cr_assert(named, "the profile does not name the policy file");
	/* a report into the FIFO is there to read; a drop is counted */
	fd = open(path, O_WRONLY | O_NONBLOCK);
	cr_assert_geq(fd, 0, "no reader holds the FIFO");
	cr_assert_eq(write(fd, "SBX1 D read 7 cat /x 13\n", 24), 24);
	close(fd);
	char buf[64];
	cr_assert_eq(read(d.shim.rd, buf, sizeof(buf)), 24);
	cr_assert_eq(read(d.shim.rd, buf, sizeof(buf)), -1, "the FIFO read its end");
	snprintf(path, sizeof(path), "%s/dropped", dir);
	fd = open(path, O_WRONLY | O_APPEND);
	cr_assert_eq(write(fd, "+", 1), 1);
	close(fd);
	cr_assert_eq(darwin_shim_dropped(&d), 1);
	b.ops->release(&b);
	cr_assert_eq(lstat(dir, &st), -1, "the hand-over was left behind");
	cr_assert_null(d.shim_spec);

	/* a name in the way, a live run's (its lock held): the start fails,
	 * naming it; it stays */
	d = DARWIN_NONE;
	d.run_id = "20260101-000000-10";
	d.shim_lib = "/opt/sbx/lib/libsbx-preload.dylib";
	d.state_fd = sfd;
	d.state_dir = f.dir;
	d.watch.sandbox_exec = f.sbexec;
	d.watch.log = f.log;
	d.watch.tmpdir = f.dir;
	d.environ = caller;
	snprintf(dir, sizeof(dir), "%s/shim-20260101-000000-10", f.dir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	int held = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0);
	cr_assert_eq(b.ops->start(&b, NULL, why, sizeof(why)), -EEXIST, "%s", why);
	cr_assert(strstr(why, "cannot make the shim's hand-over directory") &&
		  strstr(why, dir), "%s", why);
	cr_assert_eq(access(f.fifo, F_OK), 0);
	b.ops->release(&b);
	cr_assert_eq(lstat(dir, &st), 0, "a directory not of this run's making was removed");
	close(held);
	close(sfd);
	policy_free(p);
	fake_free(&f);
}

/* handover DIR: the three files a run hands over, as shim_make makes them */
static void handover(const char *dir)
{
	char p[PATH_MAX];
	int fd;

	cr_assert_eq(mkdir(dir, 0700), 0, "%s", dir);
	snprintf(p, sizeof(p), "%s/policy", dir);
	cr_assert((fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0400)) >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/reports", dir);
	cr_assert_eq(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/dropped", dir);
	cr_assert((fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0600)) >= 0);
	close(fd);
}

static void said(void *ctx, const char *name, int rc)
{
	char *log = ctx;

	snprintf(log + strlen(log), 4096 - strlen(log), "%s=%d ", name, rc);
}

Test(darwin_backend, a_sweep_removes_only_the_handovers_of_runs_that_are_gone)
{
	char *sd = make_tmpdir(), *out = make_tmpdir(), p[PATH_MAX], q[PATH_MAX], log[4096] = "";
	struct stat st;
	int sfd = open(sd, O_RDONLY | O_DIRECTORY), fd;

	cr_assert(sfd >= 0);
	/* gone: removed, with its three files */
	snprintf(p, sizeof(p), "%s/shim-dead", sd);
	handover(p);
	/* alive: its lock held (flock conflicts between two opens in one
	 * process as between two processes) */
	snprintf(p, sizeof(p), "%s/shim-live", sd);
	handover(p);
	int held = open(p, O_RDONLY | O_DIRECTORY);
	cr_assert(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0);
	/* a link to a directory holding the three names: never followed */
	snprintf(q, sizeof(q), "%s/target", out);
	handover(q);
	snprintf(p, sizeof(p), "%s/shim-link", sd);
	cr_assert_eq(symlink(q, p), 0);
	/* what sbx does not make there: another name; one of its names of
	 * another kind (reports a regular file, policy a directory) */
	snprintf(p, sizeof(p), "%s/shim-foreign", sd);
	handover(p);
	snprintf(q, sizeof(q), "%s/notes", p);
	cr_assert((fd = open(q, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/shim-kind", sd);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(q, sizeof(q), "%s/reports", p);
	cr_assert((fd = open(q, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/shim-dir", sd);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(q, sizeof(q), "%s/policy", p);
	cr_assert_eq(mkdir(q, 0700), 0);
	/* not a hand-over's name at all */
	snprintf(p, sizeof(p), "%s/audit-shim-x", sd);
	handover(p);
	/* a start's, made a moment ago, not yet locked (shim_make between
	 * its mkdir and its flock): empty and fresh, kept */
	snprintf(p, sizeof(p), "%s/shim-fresh", sd);
	cr_assert_eq(mkdir(p, 0700), 0);

	cr_assert_eq(darwin_shim_sweep(sfd, sd, said, log), 1, "%s", log);
	snprintf(p, sizeof(p), "%s/shim-dead", sd);
	cr_assert_eq(lstat(p, &st), -1);
	char f1[64], f2[64], f3[64];
	snprintf(f1, sizeof(f1), "shim-foreign=%d ", -ENOTEMPTY);
	snprintf(f2, sizeof(f2), "shim-kind=%d ", -ENOTEMPTY);
	snprintf(f3, sizeof(f3), "shim-dir=%d ", -ENOTEMPTY);
	cr_assert(strstr(log, "shim-dead=1 ") && strstr(log, f1) && strstr(log, f2) &&
		  strstr(log, f3) &&
		  !strstr(log, "shim-live") && !strstr(log, "shim-link") && !strstr(log, "audit") &&
		  !strstr(log, "shim-fresh"),
		  "%s", log);
	snprintf(p, sizeof(p), "%s/shim-fresh", sd);
	cr_assert(lstat(p, &st) == 0 && S_ISDIR(st.st_mode), "a start's fresh directory swept");
	const char *kept[] = { "shim-live/policy", "shim-live/reports", "shim-live/dropped",
			       "shim-foreign/notes", "shim-foreign/policy", "shim-kind/reports",
			       "shim-dir/policy", "audit-shim-x/policy" };
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", sd, kept[i]);
		cr_assert_eq(lstat(p, &st), 0, "%s was removed", kept[i]);
	}
	snprintf(p, sizeof(p), "%s/shim-link", sd);
	cr_assert(lstat(p, &st) == 0 && S_ISLNK(st.st_mode));
	snprintf(q, sizeof(q), "%s/target/reports", out);
	cr_assert(lstat(q, &st) == 0 && S_ISFIFO(st.st_mode), "the link was followed");

	/* the live run ends without its own removal (SIGKILL): the next
	 * sweep takes it */
	close(held);
	log[0] = '\0';
	cr_assert_eq(darwin_shim_sweep(sfd, sd, said, log), 1, "%s", log);
	snprintf(p, sizeof(p), "%s/shim-live", sd);
	cr_assert_eq(lstat(p, &st), -1);
	close(sfd);
	remove_tree(sd);
	remove_tree(out);
	free(sd);
	free(out);
}
