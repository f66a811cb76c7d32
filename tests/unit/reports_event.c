/* tests/unit/reports_event.c: one event type, one entry (common/event.h,
 * reports_event()): what each kind of event becomes on the terminal and
 * in the audit log, byte for byte, whichever layer made it. (The proxy's
 * EVENT_NET: reports_proxy.c; the shim's line parsed: reports.c.)
 * Written to real temp files and read back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"
#include "common/event.h"
#include "preload/preload.h"

struct estream {
	char *dir;
	char out_path[PATH_MAX], log_path[PATH_MAX];
	int out_fd;
	struct policy *p;
	struct reports *r;
};

static void open_stream(struct estream *s, const char *ini)
{
	struct reports_cfg cfg;

	memset(s, 0, sizeof(*s));
	s->dir = make_tmpdir();
	snprintf(s->out_path, sizeof(s->out_path), "%s/stderr", s->dir);
	snprintf(s->log_path, sizeof(s->log_path), "%s/audit.jsonl", s->dir);
	s->out_fd = open(s->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(s->out_fd, 0);
	s->p = compile_ini(ini);
	cfg = (struct reports_cfg){ .policy = s->p, .log_path = s->log_path,
				    .run_id = "run-1", .mode = REPORTS_ENFORCE,
				    .out_fd = s->out_fd };
	cr_assert_eq(reports_new(&cfg, &s->r), 0);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	int c;

	if (!f)
		return strdup("");
	FILE *m = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

static void close_stream(struct estream *s)
{
	reports_free(s->r);
	policy_free(s->p);
	close(s->out_fd);
	remove_tree(s->dir);
	free(s->dir);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *q = strstr(hay, needle); q; q = strstr(q + 1, needle))
		n++;
	return n;
}

Test(reports_event, a_refused_call_is_one_line_and_one_syscall_record_per_program_counted_each_time)
{
	struct estream s;
	struct event ev = { .what = EVENT_CALL, .layer = EVENT_NOTIFY, .decision = WIRE_DENY,
			    .target = "keyctl", .pid = 12, .comm = "tool",
			    .reason = "the caller's session keyring holds secrets",
			    .rule_text = "the seccomp table (keyctl)", .err = EPERM };

	open_stream(&s, "");
	reports_event(s.r, &ev);
	ev.pid = 13; /* the same program again: counted, not said nor logged */
	reports_event(s.r, &ev);
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert(!strncmp(out, "sbx: denied keyctl — the caller's session keyring holds secrets "
			   "— pid 12 tool (seccomp)\nsbx: 2 denied system calls — see ",
			   strlen("sbx: denied keyctl — the caller's session keyring holds secrets "
				  "— pid 12 tool (seccomp)\nsbx: 2 denied system calls — see ")),
		  "%s", out);
	cr_assert_eq(count(log, "\n"), 1, "%s", log);
	assert_contains(log, ",\"layer\":\"notify\",\"op\":\"syscall\",\"target\":\"keyctl\","
			     "\"decision\":\"deny\",\"rule\":\"the seccomp table (keyctl)\","
			     "\"source\":\"built-in\",\"pid\":12,\"comm\":\"tool\","
			     "\"errno\":\"EPERM\",\"reason\":\"the caller's session keyring "
			     "holds secrets\",\"address\":null,\"run\":\"run-1\"}\n");
	free(out);
	free(log);
	close_stream(&s);
}

Test(reports_event, a_refused_call_on_a_target_names_it_printable)
{
	struct estream s;

	open_stream(&s, "");
	reports_event(s.r, &(struct event){
		.what = EVENT_CALL, .layer = EVENT_NOTIFY, .decision = WIRE_DENY,
		.target = "write", .on = "/w/.git/config\x1b[2J", .pid = 3, .comm = "git",
		.reason = "it names a program to run", .rule_text = "git config", .err = EACCES });
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path);
	assert_contains(out, "sbx: denied write on /w/.git/config\\x1b[2J — it names a program "
			     "to run — pid 3 git (seccomp)\n");
	free(out);
	close_stream(&s);
}

Test(reports_event, the_notify_layers_access_is_said_with_the_rule_it_decided_by)
{
	struct estream s;
	const struct sbx_rule *why = NULL;

	open_stream(&s, "[filesystem]\nallow_write = /w\ndeny_write = /w/notes.txt\n");
	cr_assert_eq(policy_check_path(s.p, SBX_OP_WRITE, "/w/notes.txt", &why), SBX_DENY);
	reports_event(s.r, &(struct event){
		.what = EVENT_ACCESS, .layer = EVENT_NOTIFY, .decision = WIRE_DENY,
		.op = WIRE_WRITE, .target = "/w/notes.txt", .pid = 7, .comm = "static",
		.err = EROFS, .rule = why });
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_contains(out, "sbx: denied write of /w/notes.txt by `deny_write = /w/notes.txt`");
	assert_contains(out, " — pid 7 static (seccomp)\n");
	assert_contains(log, ",\"layer\":\"notify\",\"op\":\"write\",\"target\":\"/w/notes.txt\","
			     "\"decision\":\"deny\",\"rule\":\"deny_write = /w/notes.txt\",");
	free(out);
	free(log);
	close_stream(&s);
}

/* A shim's event is a claim, its rule too: the supervisor explains it by
 * its own policy, never by a rule the line brought. */
Test(reports_event, a_shim_access_is_explained_by_the_policy_not_by_a_rule_it_brings)
{
	struct estream s;
	const struct sbx_rule *other = NULL;

	open_stream(&s, "[filesystem]\nallow_write = /w\ndeny_read = /secret\n");
	cr_assert_eq(policy_check_path(s.p, SBX_OP_READ, "/secret/x", &other), SBX_DENY);
	reports_event(s.r, &(struct event){
		.what = EVENT_ACCESS, .layer = EVENT_SHIM, .decision = WIRE_DENY,
		.op = WIRE_READ, .target = "/w/file", .pid = 5, .comm = "cat", .err = EACCES,
		.rule = other });
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_contains(out, "sbx: denied read of /w/file — refused by the sandbox — pid 5 cat\n");
	cr_assert_null(strstr(out, "deny_read"), "%s", out);
	assert_contains(log, ",\"layer\":\"shim\",\"op\":\"read\",\"target\":\"/w/file\","
			     "\"decision\":\"deny\",\"rule\":null,");
	free(out);
	free(log);
	close_stream(&s);
}

Test(reports_event, a_note_of_a_static_binary_is_said_once_and_never_logged)
{
	struct estream s;
	struct event ev = { .what = EVENT_NOTE, .layer = EVENT_SHIM, .decision = WIRE_NOTE,
			    .op = WIRE_EXEC, .target = "/opt/static-tool", .pid = 9,
			    .comm = "sh" };

	open_stream(&s, "");
	reports_event(s.r, &ev);
	reports_event(s.r, &ev);
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_str_eq(out, "sbx: note: /opt/static-tool is a static binary (pid 9): the shim "
			      "cannot see inside it, so what the sandbox refuses it will fail "
			      "without an explanation here (the boundary holds all the same)\n");
	cr_assert_str_eq(log, "");
	free(out);
	free(log);
	close_stream(&s);
}

Test(reports_event, a_loopback_note_names_the_port_once)
{
	struct estream s;
	struct event ev = { .what = EVENT_NOTE, .layer = EVENT_SHIM, .decision = WIRE_NOTE,
			    .op = WIRE_CONNECT, .target = "127.0.0.1:8080", .pid = 4,
			    .comm = "curl" };

	open_stream(&s, "");
	reports_event(s.r, &ev);
	reports_event(s.r, &ev);
	ev.target = "127.0.0.1:80\x1b"; /* not an address and a port: no words */
	reports_event(s.r, &ev);
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path);
	cr_assert_str_eq(out, "sbx: note: connect to 127.0.0.1:8080 refused — the sandbox has a "
			      "loopback of its own, where nothing listens on port 8080; a service "
			      "on the host's 127.0.0.1:8080 is reachable with --host-port 8080 — "
			      "pid 4 curl\n");
	free(out);
	close_stream(&s);
}
