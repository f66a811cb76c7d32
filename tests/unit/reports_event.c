/* tests/unit/reports_event.c: the events of every layer (common/event.h)
 * in the report stream, through the one entry, reports_event(): what each
 * kind becomes on the terminal and in the audit log, byte for byte. (The
 * shim's line parsed and decided again: reports.c.)
 *
 * The proxy's (suite reports_proxy): an EVENT_NET, made by net/'s
 * net_event(), becomes one line per refused target, with the rule and the
 * fix, and one JSON object with layer "proxy"; the events here carry the
 * decision's own words (net_decide_policy), as the loop's do. Written to
 * real temp files and read back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"
#include "common/event.h"
#include "net/net.h"
#include "preload/preload.h"

struct pstream {
	char *dir;
	char out_path[PATH_MAX], log_path[PATH_MAX];
	int out_fd;
	struct policy *p;
	struct reports *r;
};

static void open_stream(struct pstream *s, const char *ini, enum reports_mode mode)
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
				    .run_id = "run-1", .mode = mode, .out_fd = s->out_fd };
	cr_assert_eq(reports_new(&cfg, &s->r), 0);
}

static void close_stream(struct pstream *s)
{
	reports_free(s->r);
	policy_free(s->p);
	close(s->out_fd);
	remove_tree(s->dir);
	free(s->dir);
}

/* What the loop reports for host:port over `proto`, decided by the policy
 * alone (the resolved-address check's refusals look the same, with their
 * own reason and fix). */
static void decide_and_report(struct pstream *s, const char *host, unsigned port,
			      enum net_proto proto)
{
	struct net_host h;
	struct net_decision d;

	cr_assert_eq(net_host_parse(host, strlen(host), &h), 0, "%s", host);
	net_decide_policy(s->p, &h, port, &d);
	struct event ev = net_event(d.verdict == NET_ALLOW ? NET_EV_ALLOWED : NET_EV_DENIED, proto,
				    h.text, port, d.rule, d.reason, d.fix);

	ev.address = d.verdict == NET_ALLOW ? "192.0.2.10:443" : "";
	ev.client = "127.0.0.1:41234";
	reports_event(s->r, &ev);
}

Test(reports_proxy, refusal_is_one_line_with_the_fix_and_one_proxy_record)
{
	struct pstream s;

	open_stream(&s, "[network]\nallow_domains = github.com\n", REPORTS_ENFORCE);
	decide_and_report(&s, "evil.example", 443, NET_PROTO_CONNECT);
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_contains(out, "sbx: denied connect to evil.example:443 — not in allow_domains "
			     "(allow it with --allow-domain evil.example) — via the proxy\n");
	assert_contains(out, "sbx: 1 denied connect — see ");
	cr_assert_eq(str_count(log, "\n"), 1, "%s", log);
	assert_contains(log, "\"layer\":\"proxy\",\"op\":\"connect\",\"target\":\"evil.example:443\","
			     "\"decision\":\"deny\",\"rule\":null,\"source\":null,\"pid\":null,"
			     "\"comm\":null,\"reason\":\"not in allow_domains\","
			     "\"fix\":\"--allow-domain evil.example\",\"via\":\"CONNECT\","
			     "\"address\":null,\"client\":\"127.0.0.1:41234\",\"run\":\"run-1\","
			     "\"ignored\":false}\n");
	free(out);
	free(log);
	close_stream(&s);
}

Test(reports_proxy, refusal_by_a_deny_rule_names_the_rule_and_where_it_was_written)
{
	struct pstream s;

	open_stream(&s, "[network]\nallow_domains = *\ndeny_domains = *.evil.example\n",
		    REPORTS_ENFORCE);
	decide_and_report(&s, "cdn.evil.example", 80, NET_PROTO_HTTP);
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_contains(out, "sbx: denied connect to cdn.evil.example:80 — denied by "
			     "`deny_domains = *.evil.example` (test.ini:3) (remove that rule to "
			     "allow it) — via the proxy\n");
	assert_contains(log, "\"rule\":\"deny_domains = *.evil.example\",\"source\":\"test.ini:3\"");
	assert_contains(log, "\"via\":\"http\"");
	free(out);
	free(log);
	close_stream(&s);
}

Test(reports_proxy, repeats_are_said_once_logged_every_time_and_counted)
{
	struct pstream s;

	open_stream(&s, "[network]\nallow_domains = github.com\n", REPORTS_ENFORCE);
	decide_and_report(&s, "evil.example", 443, NET_PROTO_CONNECT);
	decide_and_report(&s, "evil.example", 443, NET_PROTO_SOCKS);
	decide_and_report(&s, "evil.example", 443, NET_PROTO_CONNECT);
	decide_and_report(&s, "[2001:db8::1]", 22, NET_PROTO_SOCKS);
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(str_count(out, "sbx: denied connect to evil.example:443 — "), 1, "%s", out);
	assert_contains(out, "sbx: denied connect to evil.example:443 (via the proxy, x2 more)\n");
	assert_contains(out, "sbx: denied connect to [2001:db8::1]:22 — not in allow_domains "
			     "(allow it with --allow-domain [2001:db8::1])");
	assert_contains(out, "sbx: 4 denied connects — see ");
	cr_assert_eq(str_count(log, "\"layer\":\"proxy\""), 4, "%s", log);
	assert_contains(log, "\"target\":\"[2001:db8::1]:22\"");
	free(out);
	free(log);
	close_stream(&s);
}

Test(reports_proxy, allowed_connections_only_under_trace)
{
	struct pstream s;

	open_stream(&s, "[network]\nallow_domains = github.com\n", REPORTS_ENFORCE);
	decide_and_report(&s, "github.com", 443, NET_PROTO_CONNECT);
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_str_eq(out, "");
	cr_assert_str_eq(log, "");
	free(out);
	free(log);
	close_stream(&s);

	open_stream(&s, "[network]\nallow_domains = github.com\n", REPORTS_TRACE);
	decide_and_report(&s, "GitHub.com.", 443, NET_PROTO_CONNECT);
	reports_finish(s.r, 0);
	out = slurp(s.out_path);
	log = slurp(s.log_path);
	assert_contains(out, "sbx: trace: connect to github.com:443 via the proxy (CONNECT), "
			     "allowed by `allow_domains = github.com` (test.ini:2), to 192.0.2.10:443\n");
	assert_contains(log, "\"decision\":\"allow\",\"rule\":\"allow_domains = github.com\"");
	assert_contains(log, "\"address\":\"192.0.2.10:443\"");
	free(out);
	free(log);
	close_stream(&s);
}

Test(reports_proxy, ignore_domains_logs_the_refusal_as_ignored_and_says_nothing)
{
	struct pstream s;

	open_stream(&s, "[network]\nallow_domains = github.com\n[report]\n"
			"ignore_domains = telemetry.example\n", REPORTS_ENFORCE);
	decide_and_report(&s, "telemetry.example", 443, NET_PROTO_CONNECT);
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_not_contains(out, "telemetry.example");
	assert_contains(log, "\"target\":\"telemetry.example:443\",\"decision\":\"deny\"");
	assert_contains(log, "\"ignored\":true,\"quiet_rule\":\"ignore_domains = "
			"telemetry.example\",\"quiet_source\":\"test.ini:4\"}");
	/* counted apart, with where to see it */
	assert_contains(out, "sbx: 1 expected refusal not shown (sbxctl status)");
	assert_not_contains(out, "denied connect");
	free(out);
	free(log);
	close_stream(&s);
}

Test(reports_proxy, an_allowed_host_that_cannot_be_reached_is_said_not_to_be_the_policy)
{
	struct pstream s;
	struct event ev = net_event(NET_EV_FAILED, NET_PROTO_SOCKS, "github.com", 443, NULL,
				    "cannot resolve github.com: Name does not resolve", "");

	ev.client = "127.0.0.1:5000";

	open_stream(&s, "[network]\nallow_domains = github.com\n", REPORTS_ENFORCE);
	reports_event(s.r, &ev);
	ev.decision = NET_EV_ERROR;
	ev.target = "";
	ev.reason = "request head too large";
	reports_event(s.r, &ev); /* a client's nonsense: not without --trace or -v */
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_contains(out, "sbx: connect to github.com:443 failed in the proxy — cannot "
			     "resolve github.com: Name does not resolve (the policy allows it)\n");
	assert_not_contains(out, "too large");
	assert_not_contains(out, "denied");
	assert_contains(log, "\"decision\":\"fail\"");
	assert_contains(log, "\"target\":null,\"decision\":\"error\"");
	free(out);
	free(log);
	close_stream(&s);
}

Test(reports_proxy, a_flood_of_repeated_lookups_folds_into_twenty_lines_and_a_count)
{
	struct pstream s;
	char host[64];

	open_stream(&s, "[network]\nallow_domains = github.com\n", REPORTS_ENFORCE);
	for (int i = 0; i < 100; i++) {
		snprintf(host, sizeof(host), "n%d.evil.example", i);
		decide_and_report(&s, host, 0, NET_PROTO_DNS); /* A */
		decide_and_report(&s, host, 0, NET_PROTO_DNS); /* and AAAA */
	}
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path);
	cr_assert_eq(str_count(out, "sbx: denied lookup of n"), 100 + 20, "%s", out);
	cr_assert_eq(str_count(out, " (by the sandbox's resolver, x1 more)\n"), 20, "%s", out);
	assert_contains(out, "sbx: and 80 more refusals repeated (see the log)\n");
	assert_not_contains(out, "denied connect");
	assert_contains(out, "sbx: 200 denied lookups — see ");
	free(out);
	close_stream(&s);
}

Test(reports_proxy, each_fold_says_what_was_refused)
{
	struct pstream s;
	struct event sc = net_event(NET_EV_DENIED, NET_PROTO_SECCOMP, "evil.example", 443, NULL,
				    "not in allow_domains", "--allow-domain evil.example");

	sc.client = "pid 7";
	sc.pid = 7;
	sc.comm = "static-net";

	open_stream(&s, "[network]\nallow_domains = github.com\n", REPORTS_ENFORCE);
	for (int i = 0; i < 3; i++) {
		decide_and_report(&s, "evil.example", 0, NET_PROTO_DNS);
		decide_and_report(&s, "evil.example", 443, NET_PROTO_CONNECT);
		reports_event(s.r, &sc);
	}
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path);
	assert_contains(out, "sbx: denied lookup of evil.example (by the sandbox's resolver, x2 more)\n");
	assert_contains(out, "sbx: denied connect to evil.example:443 (via the proxy, x2 more)\n");
	assert_contains(out, "sbx: denied connect to evil.example:443 (seccomp, x2 more)\n");
	cr_assert_eq(str_count(out, " more)\n"), 3, "%s", out);
	free(out);
	close_stream(&s);
}

/* ---- the notify layer's and the shim's events (suite reports_event) */

Test(reports_event, a_refused_call_is_one_line_and_one_syscall_record_per_program_counted_each_time)
{
	struct pstream s;
	struct event ev = { .what = EVENT_CALL, .layer = EVENT_NOTIFY, .decision = WIRE_DENY,
			    .target = "keyctl", .pid = 12, .comm = "tool",
			    .reason = "the caller's session keyring holds secrets",
			    .rule_text = "the seccomp table (keyctl)", .err = EPERM };

	open_stream(&s, "", REPORTS_ENFORCE);
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
	cr_assert_eq(str_count(log, "\n"), 1, "%s", log);
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
	struct pstream s;

	open_stream(&s, "", REPORTS_ENFORCE);
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
	struct pstream s;
	const struct sbx_rule *why = NULL;

	open_stream(&s, "[filesystem]\nallow_write = /w\ndeny_write = /w/notes.txt\n",
		    REPORTS_ENFORCE);
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

/* A name rule at any depth: the notify layer refuses making the name and
 * says so; the shim, which lets the kernel answer those, then names the
 * same refusal. One refusal is one line, one record and one in the sum
 * (before: two records, "2 denied writes" and an "(x1 more)" for a
 * repeat that never was). A second attempt is counted again; a shim line
 * with no refusal of the notify layer before it (the kernel's, at a
 * read-only mount) is the only word for it and counted too. */
Test(reports_event, the_shim_s_echo_of_a_notify_refusal_is_not_a_second_refusal)
{
	struct pstream s;
	const struct sbx_rule *why = NULL;

	open_stream(&s, "[filesystem]\nallow_write = /w\ndeny_write = locked*\n",
		    REPORTS_ENFORCE);
	cr_assert_eq(policy_check_path(s.p, SBX_OP_WRITE, "/w/locked1", &why), SBX_DENY);
	struct event notify = { .what = EVENT_ACCESS, .layer = EVENT_NOTIFY,
				.decision = WIRE_DENY, .op = WIRE_WRITE, .target = "/w/locked1",
				.pid = 4242, .self_pid = 2, .comm = "python3", .err = EROFS,
				.rule = why };
	struct event shim = notify;
	shim.layer = EVENT_SHIM;
	shim.pid = 2;
	shim.self_pid = 0;
	shim.rule = NULL;
	reports_event(s.r, &notify);
	reports_event(s.r, &shim);
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(str_count(out, "sbx: denied write of /w/locked1"), 1, "%s", out);
	assert_contains(out, "sbx: 1 denied write ");
	cr_assert_eq(str_count(log, "\"target\":\"/w/locked1\""), 1, "%s", log);
	assert_contains(log, "\"layer\":\"notify\"");
	free(out);
	free(log);
	close_stream(&s);

	open_stream(&s, "[filesystem]\nallow_write = /w\ndeny_write = locked*\n",
		    REPORTS_ENFORCE);
	cr_assert_eq(policy_check_path(s.p, SBX_OP_WRITE, "/w/locked1", &why), SBX_DENY);
	notify.rule = why; /* this policy's */
	reports_event(s.r, &notify);
	reports_event(s.r, &shim);
	reports_event(s.r, &notify);
	reports_event(s.r, &shim);
	reports_event(s.r, &shim); /* the kernel's refusal, said by the shim alone */
	reports_finish(s.r, 0);
	out = slurp(s.out_path);
	log = slurp(s.log_path);
	assert_contains(out, "sbx: 3 denied writes ");
	cr_assert_eq(str_count(log, "\"target\":\"/w/locked1\""), 3, "%s", log);
	free(out);
	free(log);
	close_stream(&s);
}

/* The echo of a refusal a quiet rule keeps off the terminal, and of one
 * past the bounds of the table of lines said: one record each all the
 * same. Before, the notify layer's expectation lived in that table, which
 * a quiet refusal never enters and a flood fills: two records, "2
 * expected refusals not shown" for one, and "2 denied writes". */
Test(reports_event, the_shim_s_echo_of_a_quiet_or_unkept_refusal_is_not_a_second_one)
{
	struct pstream s;
	const struct sbx_rule *why = NULL;

	open_stream(&s, "[filesystem]\nallow_write = /w\ndeny_write = locked*\n"
		    "[report]\nignore_paths = /w/locked1\n", REPORTS_ENFORCE);
	cr_assert_eq(policy_check_path(s.p, SBX_OP_WRITE, "/w/locked1", &why), SBX_DENY);
	struct event notify = { .what = EVENT_ACCESS, .layer = EVENT_NOTIFY,
				.decision = WIRE_DENY, .op = WIRE_WRITE, .target = "/w/locked1",
				.pid = 4242, .self_pid = 2, .comm = "python3", .err = EROFS,
				.rule = why };
	struct event shim = notify;
	shim.layer = EVENT_SHIM;
	shim.pid = 2;
	shim.self_pid = 0;
	shim.rule = NULL;
	reports_event(s.r, &notify);
	reports_event(s.r, &shim);
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(str_count(out, "denied write of /w/locked1"), 0, "%s", out);
	assert_contains(out, "sbx: 1 expected refusal not shown ");
	cr_assert_eq(str_count(log, "\"target\":\"/w/locked1\""), 1, "%s", log);
	assert_contains(log, "\"layer\":\"notify\"");
	free(out);
	free(log);
	close_stream(&s);

	/* the table of lines said holds one: full after /w/other */
	struct reports_cfg cfg;
	open_stream(&s, "[filesystem]\nallow_write = /w\ndeny_write = locked*\n",
		    REPORTS_ENFORCE);
	reports_free(s.r);
	cfg = (struct reports_cfg){ .policy = s.p, .log_path = s.log_path, .run_id = "run-1",
				    .mode = REPORTS_ENFORCE, .out_fd = s.out_fd,
				    .limits = { .seen_max = 1 } };
	cr_assert_eq(reports_new(&cfg, &s.r), 0);
	cr_assert_eq(policy_check_path(s.p, SBX_OP_WRITE, "/w/locked1", &why), SBX_DENY);
	struct event other = notify;
	other.target = "/w/other.txt";
	other.rule = NULL;
	notify.rule = why; /* this policy's */
	reports_event(s.r, &other);
	reports_event(s.r, &notify);
	reports_event(s.r, &shim);
	reports_finish(s.r, 0);
	out = slurp(s.out_path);
	log = slurp(s.log_path);
	assert_contains(out, "sbx: 2 denied writes");
	cr_assert_eq(str_count(log, "\"target\":\"/w/locked1\""), 1, "%s", log);
	free(out);
	free(log);
	close_stream(&s);
}

/* A clock the echo tests move (the time an echo is awaited). */
static unsigned long long echo_now = 1000000;
static unsigned long long echo_clock(void)
{
	return echo_now;
}

static void open_stream_clock(struct pstream *s, const char *ini, bool log_after)
{
	struct reports_cfg cfg;

	open_stream(s, ini, REPORTS_ENFORCE);
	reports_free(s->r);
	cfg = (struct reports_cfg){ .policy = s->p, .log_path = s->log_path, .run_id = "run-1",
				    .mode = REPORTS_ENFORCE, .out_fd = s->out_fd,
				    .clock_ms = echo_clock, .log_after = log_after };
	cr_assert_eq(reports_new(&cfg, &s->r), 0);
}

/* The echo awaited is the same process's, and not for long. A static
 * binary's refusal of a deferred name (the notify layer's, no shim line
 * after it) left its echo awaited for the rest of the run: a shim's own
 * later refusal of the same name by another process (a protected name
 * at the top of the workspace, which the shim refuses itself) was taken
 * for it, and dropped: one record, "1 denied write" for two. Now: by
 * the process as it knows itself, and within ECHO_CALL_MS. */
Test(reports_event, a_static_binary_s_refusal_does_not_take_another_s_for_its_echo)
{
	struct pstream s;
	const struct sbx_rule *why = NULL;
	const char *ini = "[filesystem]\nallow_write = /w\ndeny_write = locked*\n";

	open_stream_clock(&s, ini, false);
	cr_assert_eq(policy_check_path(s.p, SBX_OP_WRITE, "/w/locked1", &why), SBX_DENY);
	struct event notify = { .what = EVENT_ACCESS, .layer = EVENT_NOTIFY,
				.decision = WIRE_DENY, .op = WIRE_WRITE, .target = "/w/locked1",
				.pid = 4247, .self_pid = 4, .comm = "writefile", .err = EROFS,
				.rule = why };
	struct event shim = { .what = EVENT_ACCESS, .layer = EVENT_SHIM, .decision = WIRE_DENY,
			      .op = WIRE_WRITE, .target = "/w/locked1", .pid = 6,
			      .comm = "python3", .err = EROFS };
	reports_event(s.r, &notify);
	reports_event(s.r, &shim); /* pid 6's own: not the static binary's echo */
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_contains(out, "sbx: 2 denied writes ");
	cr_assert_eq(str_count(log, "\"target\":\"/w/locked1\""), 2, "%s", log);
	assert_contains(log, "\"layer\":\"notify\"");
	assert_contains(log, "\"layer\":\"shim\",\"op\":\"write\"");
	free(out);
	free(log);
	close_stream(&s);

	/* the same process, once the echo is no longer awaited: its own */
	open_stream_clock(&s, ini, false);
	cr_assert_eq(policy_check_path(s.p, SBX_OP_WRITE, "/w/locked1", &why), SBX_DENY);
	notify.rule = why;
	shim.pid = 4;
	reports_event(s.r, &notify);
	echo_now += 3000;
	reports_event(s.r, &shim);
	/* and within it: the echo */
	reports_event(s.r, &notify);
	echo_now += 2999;
	reports_event(s.r, &shim);
	reports_finish(s.r, 0);
	out = slurp(s.out_path);
	log = slurp(s.log_path);
	assert_contains(out, "sbx: 3 denied writes ");
	cr_assert_eq(str_count(log, "\"target\":\"/w/locked1\""), 3, "%s", log);
	free(out);
	free(log);
	close_stream(&s);
}

/* macOS: the shim's line for a deferred name comes first, Seatbelt's
 * record from the system log a moment later (seconds, at most the end
 * sentinel's 10 s); or, the log being quick, before the shim's line is
 * read. Either way one refusal is one line, one record (the first
 * word's) and one in the sum; before, two of each. Only the same
 * process's record for the same operation and path is the echo: a
 * forged shim line for one path hides no refusal of another path, of
 * another process, or one that comes after ECHO_LOG_MS. */
Test(reports_event, on_macos_seatbelt_s_record_of_a_refusal_the_shim_said_is_its_echo)
{
	struct pstream s;
	const struct sbx_rule *why = NULL;
	const char *ini = "[filesystem]\nallow_write = /w\ndeny_write = locked*\n";

	open_stream_clock(&s, ini, true);
	cr_assert_eq(policy_check_path(s.p, SBX_OP_WRITE, "/w/locked1", &why), SBX_DENY);
	struct event shim = { .what = EVENT_ACCESS, .layer = EVENT_SHIM, .decision = WIRE_DENY,
			      .op = WIRE_WRITE, .target = "/w/locked1", .pid = 501,
			      .comm = "python3", .err = EPERM };
	struct event sb = shim;
	sb.layer = EVENT_SEATBELT;
	sb.comm = "python3.12";
	reports_event(s.r, &shim);
	echo_now += 9999;
	reports_event(s.r, &sb);
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(str_count(out, "denied write of /w/locked1"), 1, "%s", out);
	assert_contains(out, "sbx: 1 denied write ");
	cr_assert_eq(str_count(log, "\"target\":\"/w/locked1\""), 1, "%s", log);
	assert_contains(log, "\"layer\":\"shim\"");
	free(out);
	free(log);
	close_stream(&s);

	/* the log first: Seatbelt's kept, the shim's line its echo */
	open_stream_clock(&s, ini, true);
	reports_event(s.r, &sb);
	reports_event(s.r, &shim);
	reports_finish(s.r, 0);
	out = slurp(s.out_path);
	log = slurp(s.log_path);
	cr_assert_eq(str_count(out, "denied write of /w/locked1"), 1, "%s", out);
	assert_contains(out, "sbx: 1 denied write ");
	cr_assert_eq(str_count(log, "\"target\":\"/w/locked1\""), 1, "%s", log);
	assert_contains(log, "\"layer\":\"seatbelt\"");
	free(out);
	free(log);
	close_stream(&s);

	/* a claim for /w/locked1 by pid 501 hides no refusal of /w/locked2,
	 * none of pid 502, none past the bound; Seatbelt's own twice for
	 * one claim: the second is a refusal of its own (and the shim's
	 * line after it, its echo) */
	open_stream_clock(&s, ini, true);
	struct event other_path = sb, other_pid = sb;
	other_path.target = "/w/locked2";
	other_pid.pid = 502;
	reports_event(s.r, &shim);       /* 1 */
	reports_event(s.r, &other_path); /* 2 */
	reports_event(s.r, &other_pid);  /* 3 */
	reports_event(s.r, &sb);         /* the echo of 1 */
	reports_event(s.r, &sb);         /* 4 */
	reports_event(s.r, &shim);       /* the echo of 4 */
	reports_event(s.r, &shim);       /* 5 */
	echo_now += 10000;
	reports_event(s.r, &sb);         /* 6: 5's echo is no longer awaited */
	reports_finish(s.r, 0);
	out = slurp(s.out_path);
	log = slurp(s.log_path);
	assert_contains(out, "sbx: 6 denied writes ");
	cr_assert_eq(str_count(log, "\"target\":\"/w/locked1\""), 5, "%s", log);
	cr_assert_eq(str_count(log, "\"target\":\"/w/locked2\""), 1, "%s", log);
	free(out);
	free(log);
	close_stream(&s);
}

/* A shim's event is a claim, its rule too: the supervisor explains it by
 * its own policy, never by a rule the line brought. */
Test(reports_event, a_shim_access_is_explained_by_the_policy_not_by_a_rule_it_brings)
{
	struct pstream s;
	const struct sbx_rule *other = NULL;

	open_stream(&s, "[filesystem]\nallow_write = /w\ndeny_read = /secret\n", REPORTS_ENFORCE);
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
	struct pstream s;
	struct event ev = { .what = EVENT_NOTE, .layer = EVENT_SHIM, .decision = WIRE_NOTE,
			    .op = WIRE_EXEC, .target = "/opt/static-tool", .pid = 9,
			    .comm = "sh" };

	open_stream(&s, "", REPORTS_ENFORCE);
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
	struct pstream s;
	struct event ev = { .what = EVENT_NOTE, .layer = EVENT_SHIM, .decision = WIRE_NOTE,
			    .op = WIRE_CONNECT, .target = "127.0.0.1:8080", .pid = 4,
			    .comm = "curl" };

	open_stream(&s, "", REPORTS_ENFORCE);
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

/* The producers are sbx's own, but the table of ways is indexed by the
 * event's value: one out of range is "?", never a read past the table. */
Test(reports_event, a_net_event_of_no_known_way_is_logged_as_via_unknown)
{
	struct pstream s;
	struct event ev = net_event(NET_EV_DENIED, NET_PROTO_CONNECT, "evil.example", 443, NULL,
				    "not in allow_domains", "--allow-domain evil.example");

	ev.via = (enum event_via)99;
	open_stream(&s, "", REPORTS_ENFORCE);
	reports_event(s.r, &ev);
	reports_finish(s.r, 0);

	char *log = slurp(s.log_path);
	assert_contains(log, "\"via\":\"?\"");
	free(log);
	close_stream(&s);
}
