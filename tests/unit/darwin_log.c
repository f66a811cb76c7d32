/* tests/unit/darwin_log.c: Seatbelt's refusals read from the unified log
 * (backend/darwin/logstream.c). No Mac here: the lines are records as
 * public sources show them, each cited where it is used, and hostile
 * variations of them.
 *
 * Where they come from (stored public files, by the search index's id, and
 * public pages):
 *  [K] a Rust parser's test of a kernel record it calls real, one line of
 *      `log stream --style ndjson` (stored file 70147711785):
 *      {"processImagePath":"\/kernel","senderImagePath":"\/System\/Library\/
 *      Extensions\/Sandbox.kext\/Contents\/MacOS\/Sandbox","eventMessage":
 *      "Sandbox: cat(22304) deny(1) file-read-data \/private\/tmp\/a b\/.env",
 *      "processID":0}; the same file's duplicate, parenthesised-name, ioctl
 *      and bind messages;
 *  [J] every field of a kernel record as `log show --style json` prints it
 *      (a public note on mount events, stored file 45629938345): traceID,
 *      backtrace (nested), processImagePath "\/kernel", processID 0...;
 *  [T] a tagged rule's message after the refusal, on a line of its own:
 *      "Sandbox: sh(1503) deny(1) file-read-data /private/tmp/foo\nTAG"
 *      (a Go test, stored file 56146824952; a TypeScript one, 58548577762);
 *  [C] Codex's `debug seatbelt --log-denials` (the commit message quoted at
 *      dev.pivoine.art/valknar/llmx/src/tag/original-codex-tag/codex-rs/cli):
 *      "(bash) file-write-create /Users/nornagon/foo.txt", "(bash)
 *      sysctl-read kern.ngroups";
 *  [M] "Sandbox: codex(14485) deny(1) mach-lookup com.apple.logd" and a
 *      record with subsystem "com.apple.sandbox.reporting" and a MetaData
 *      object (a Rust test, stored file 52168652402).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "backend/darwin/logstream.h"

#define TAG "sbx-20260101-000000-42-0123456789abcdef"

static enum seatbelt_log_kind parse(const char *line, struct seatbelt_violation *v)
{
	return seatbelt_log_parse(line, strlen(line), TAG, v);
}

/* [K], with the run's tag after the message as [T] shows it. */
static const char real_k[] =
	"{\"processImagePath\":\"\\/kernel\",\"senderImagePath\":\"\\/System\\/Library\\/"
	"Extensions\\/Sandbox.kext\\/Contents\\/MacOS\\/Sandbox\",\"eventMessage\":\"Sandbox: "
	"cat(22304) deny(1) file-read-data \\/private\\/tmp\\/a b\\/.env\\n" TAG "\","
	"\"processID\":0}";

Test(darwin_log, a_kernel_refusal_with_our_tag_is_ours)
{
	struct seatbelt_violation v;

	cr_assert_eq(parse(real_k, &v), SEATBELT_LOG_OURS);
	cr_assert_str_eq(v.comm, "cat");
	cr_assert_eq(v.pid, 22304);
	cr_assert_str_eq(v.op, "file-read-data");
	cr_assert_str_eq(v.target, "/private/tmp/a b/.env");
	cr_assert_eq(v.repeats, 1);
	cr_assert_eq(seatbelt_op_class(&v), SEATBELT_OP_READ);
}

Test(darwin_log, every_field_of_a_record_is_read_past)
{
	/* [J]'s fields, one line as ndjson has them, with [C]'s refusal */
	static const char line[] =
		"{\"timezoneName\":\"\",\"messageType\":\"Error\",\"eventType\":\"logEvent\","
		"\"source\":null,\"formatString\":\"%s\",\"userID\":0,\"activityIdentifier\":0,"
		"\"subsystem\":\"\",\"category\":\"\",\"threadID\":597794,"
		"\"senderImageUUID\":\"080CCAD9-1651-3258-B38F-027B76E7DCFE\","
		"\"backtrace\":{\"frames\":[{\"imageOffset\":215404,"
		"\"imageUUID\":\"080CCAD9-1651-3258-B38F-027B76E7DCFE\"}]},"
		"\"bootUUID\":\"E312ED28-914E-4C3C-9B9E-4926AFCCD890\","
		"\"processImagePath\":\"\\/kernel\",\"senderImagePath\":\"\\/System\\/Library\\/"
		"Extensions\\/Sandbox.kext\\/Contents\\/MacOS\\/Sandbox\","
		"\"timestamp\":\"2025-07-27 15:31:22.695081-0400\",\"machTimestamp\":2008018969949,"
		"\"eventMessage\":\"Sandbox: bash(4121) deny(1) file-write-create "
		"\\/Users\\/nornagon\\/foo.txt\\n" TAG "\","
		"\"processImageUUID\":\"CBC2F718-53E4-3C8D-BEC7-FB6DDC3318E1\","
		"\"traceID\":176338472796164,\"processID\":0,\"senderProgramCounter\":215404,"
		"\"parentActivityIdentifier\":0}";
	struct seatbelt_violation v;

	cr_assert_eq(parse(line, &v), SEATBELT_LOG_OURS);
	cr_assert_str_eq(v.comm, "bash");
	cr_assert_str_eq(v.op, "file-write-create");
	cr_assert_str_eq(v.target, "/Users/nornagon/foo.txt");
	cr_assert_eq(seatbelt_op_class(&v), SEATBELT_OP_WRITE);
}

Test(darwin_log, other_operations_keep_their_target)
{
	static const struct {
		const char *msg, *comm, *op, *target;
		enum seatbelt_op_class cls;
		unsigned repeats;
	} rows[] = {
		/* [M] */
		{ "Sandbox: codex(14485) deny(1) mach-lookup com.apple.logd", "codex",
		  "mach-lookup", "com.apple.logd", SEATBELT_OP_OTHER, 1 },
		/* [K]: a name with parentheses, an ioctl, a bind, duplicates */
		{ "Sandbox: Codex (Service)(123) deny(1) mach-lookup com.apple.pasteboard.1",
		  "Codex (Service)", "mach-lookup", "com.apple.pasteboard.1", SEATBELT_OP_OTHER, 1 },
		{ "Sandbox: sh(9) deny(1) file-ioctl path:\\/dev\\/dtracehelper ioctl-command:(_IO x)",
		  "sh", "file-ioctl", "path:/dev/dtracehelper ioctl-command:(_IO x)",
		  SEATBELT_OP_OTHER, 1 },
		{ "Sandbox: nc(9) deny(1) network-bind local:*:18777", "nc", "network-bind",
		  "local:*:18777", SEATBELT_OP_OTHER, 1 },
		{ "41 duplicate reports for Sandbox: cat(22304) deny(1) file-read-data \\/x", "cat",
		  "file-read-data", "/x", SEATBELT_OP_READ, 41 },
		{ "1 duplicate report for Sandbox: cat(7) deny(1) file-read-data \\/x", "cat",
		  "file-read-data", "/x", SEATBELT_OP_READ, 1 },
		/* [C]: no target word after the operation is fine too */
		{ "Sandbox: bash(5) deny(1) sysctl-read kern.ngroups", "bash", "sysctl-read",
		  "kern.ngroups", SEATBELT_OP_OTHER, 1 },
		{ "Sandbox: bash(5) deny(1) process-exec* \\/opt\\/x", "bash", "process-exec*",
		  "/opt/x", SEATBELT_OP_EXEC, 1 },
		{ "Sandbox: ssh(5) deny(1) network-outbound \\/private\\/tmp\\/agent.sock", "ssh",
		  "network-outbound", "/private/tmp/agent.sock", SEATBELT_OP_UNIX, 1 },
		{ "Sandbox: curl(5) deny(1) network-outbound *:443", "curl", "network-outbound",
		  "*:443", SEATBELT_OP_OTHER, 1 },
		{ "Sandbox: x(5) deny(1) default", "x", "default", "", SEATBELT_OP_OTHER, 1 },
	};
	char line[2048];
	struct seatbelt_violation v;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(line, sizeof(line), "{\"eventMessage\":\"%s\\n" TAG "\",\"processID\":0,"
			 "\"subsystem\":\"com.apple.sandbox.reporting\",\"category\":\"violation\","
			 "\"MetaData\":{\"operation\":\"x\",\"pid\":1}}", rows[i].msg);
		cr_assert_eq(parse(line, &v), SEATBELT_LOG_OURS, "%s", rows[i].msg);
		cr_assert_str_eq(v.comm, rows[i].comm);
		cr_assert_str_eq(v.op, rows[i].op);
		cr_assert_str_eq(v.target, rows[i].target);
		cr_assert_eq(seatbelt_op_class(&v), rows[i].cls, "%s", rows[i].msg);
		cr_assert_eq(v.repeats, rows[i].repeats);
	}
}

/* ---- hostile and foreign lines */

Test(darwin_log, a_lookalike_from_a_program_is_not_ours)
{
	/* any program may os_log "Sandbox: ... deny(1) ..." with our tag
	 * (the tag is in the profile, which is no secret inside): the log
	 * records its own pid, never 0 */
	char forged[sizeof(real_k) + 16];
	struct seatbelt_violation v;
	const char *at = strstr(real_k, "\"processID\":0");

	snprintf(forged, sizeof(forged), "%.*s\"processID\":24017}", (int)(at - real_k), real_k);
	cr_assert_eq(parse(forged, &v), SEATBELT_LOG_OTHER);
	cr_assert_eq(v.pid, 0);
	/* no processID at all */
	snprintf(forged, sizeof(forged), "%.*s\"x\":0}", (int)(at - real_k), real_k);
	cr_assert_eq(parse(forged, &v), SEATBELT_LOG_OTHER);
	/* processID as a string is no record of log's */
	snprintf(forged, sizeof(forged), "%.*s\"processID\":\"0\"}", (int)(at - real_k), real_k);
	cr_assert_eq(parse(forged, &v), SEATBELT_LOG_MALFORMED);
	/* processID twice: the second cannot undo the first */
	snprintf(forged, sizeof(forged), "%.*s\"processID\":9,\"processID\":0}",
		 (int)(at - real_k), real_k);
	cr_assert_eq(parse(forged, &v), SEATBELT_LOG_MALFORMED);
}

Test(darwin_log, another_runs_tag_or_none_is_not_ours)
{
	static const char *const msgs[] = {
		/* no tag: a refusal of a sandbox not ours */
		"Sandbox: cat(1) deny(1) file-read-data \\/x",
		/* another run's tag, ours as its prefix */
		"Sandbox: cat(1) deny(1) file-read-data \\/x\\n" TAG "0",
		/* ours, but not at the end */
		"Sandbox: cat(1) deny(1) file-read-data \\/x\\n" TAG "\\nsbx-other",
		/* ours, then another run's of the same length on a line of its own */
		"Sandbox: cat(1) deny(1) file-read-data \\/x\\n" TAG
		"\\nsbx-20260101-000000-42-ffffffffffffffff",
		/* ours inside the path a program chose, another run's at the end */
		"Sandbox: cat(1) deny(1) file-read-data \\/w\\/a\\n" TAG "\\nsbx-other",
		/* ours glued to the path, no separator */
		"Sandbox: cat(1) deny(1) file-read-data \\/x" TAG,
		/* not a refusal of Seatbelt's */
		"System Policy: Python(25511) deny(1) file-read-data \\/x\\n" TAG,
		"Sandbox: garbage\\n" TAG,
		"Sandbox: cat(x) deny(1) file-read-data \\/x\\n" TAG,
		"Sandbox: (1) deny(1) file-read-data \\/x\\n" TAG,
		"Sandbox: cat(1) deny(1) File-Read \\/x\\n" TAG,
		"12 duplicates for Sandbox: cat(1) deny(1) file-read-data \\/x\\n" TAG,
	};
	char line[1024];
	struct seatbelt_violation v;

	for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		snprintf(line, sizeof(line), "{\"eventMessage\":\"%s\",\"processID\":0}", msgs[i]);
		cr_assert_eq(parse(line, &v), SEATBELT_LOG_OTHER, "%s", msgs[i]);
	}
	cr_assert_eq(parse("Filtering the log data using \"processID == 0\"", &v),
		     SEATBELT_LOG_OTHER);
	cr_assert_eq(seatbelt_log_parse(real_k, strlen(real_k), "", &v), SEATBELT_LOG_OTHER);
}

Test(darwin_log, our_tag_inside_a_chosen_path_is_still_the_path)
{
	/* the program names a file "a\n<our tag>": the kernel's line ends
	 * with the real tag, and the path keeps what the program put in it */
	static const char line[] = "{\"eventMessage\":\"Sandbox: cat(1) deny(1) file-read-data "
				   "\\/w\\/a\\n" TAG "\\n" TAG "\",\"processID\":0}";
	struct seatbelt_violation v;

	cr_assert_eq(parse(line, &v), SEATBELT_LOG_OURS);
	cr_assert_str_eq(v.target, "/w/a\n" TAG);
	cr_assert_not(seatbelt_path_normal("/w/..")); /* (and a normal path is asked for) */
}

Test(darwin_log, a_name_with_a_deny_inside_takes_the_kernels_fields)
{
	/* a program that names itself `a(1) deny(` */
	static const char line[] = "{\"eventMessage\":\"Sandbox: a(1) deny((77) deny(1) "
				   "file-read-data \\/etc\\/x\\n" TAG "\",\"processID\":0}";
	struct seatbelt_violation v;

	cr_assert_eq(parse(line, &v), SEATBELT_LOG_OURS);
	cr_assert_str_eq(v.comm, "a(1) deny(");
	cr_assert_eq(v.pid, 77);
	cr_assert_str_eq(v.target, "/etc/x");
}

/* A name that forges a whole first refusal (`a(9) deny(1) file-write-data `,
 * no `/` in it as in any name) and a Mach service named like the rest of
 * one: two refusals read from one line, either may be the kernel's, so
 * neither is taken (before: pid 9, file-write-data, said as the kernel's).
 * A path holding one is the kernel's target (a name never holds `/`). */
Test(darwin_log, a_forged_refusal_in_a_name_or_service_is_not_taken)
{
	static const char name[] = "{\"eventMessage\":\"Sandbox: a(9) deny(1) file-write-data "
				   "(1234) deny(1) file-read-data \\/Users\\/u\\/x\\n" TAG
				   "\",\"processID\":0}";
	static const char svc[] = "{\"eventMessage\":\"Sandbox: sh(1234) deny(1) mach-lookup "
				  "x(5) deny(1) file-write-data \\/Users\\/u\\/.zshrc\\n" TAG
				  "\",\"processID\":0}";
	static const char path[] = "{\"eventMessage\":\"Sandbox: sh(1234) deny(1) file-read-data "
				   "\\/w\\/a(5) deny(1) file-write-data \\/x\\n" TAG
				   "\",\"processID\":0}";
	struct seatbelt_violation v;

	cr_assert_eq(parse(name, &v), SEATBELT_LOG_OTHER);
	cr_assert_eq(v.pid, 0);
	cr_assert_eq(parse(svc, &v), SEATBELT_LOG_OTHER);
	cr_assert_eq(parse(path, &v), SEATBELT_LOG_OURS);
	cr_assert_eq(v.pid, 1234);
	cr_assert_str_eq(v.op, "file-read-data");
	cr_assert_str_eq(v.target, "/w/a(5) deny(1) file-write-data /x");
}

Test(darwin_log, control_bytes_escaped_are_kept_raw_ones_refused)
{
	static const char esc[] = "{\"eventMessage\":\"Sandbox: cat(1) deny(1) file-read-data "
				  "\\/w\\/\\u001b[31mred\\n" TAG "\",\"processID\":0}";
	static const char nul[] = "{\"eventMessage\":\"Sandbox: cat(1) deny(1) file-read-data "
				  "\\/w\\/a\\u0000b\\n" TAG "\",\"processID\":0}";
	char raw[256];
	struct seatbelt_violation v;

	cr_assert_eq(parse(esc, &v), SEATBELT_LOG_OURS);
	cr_assert_str_eq(v.target, "/w/\033[31mred"); /* said escaped by reports.c */
	cr_assert_eq(parse(nul, &v), SEATBELT_LOG_MALFORMED);
	/* a raw control byte inside a JSON string is not JSON */
	snprintf(raw, sizeof(raw), "{\"eventMessage\":\"Sandbox: cat(1) deny(1) file-read-data "
		 "/w/\033x\\n" TAG "\",\"processID\":0}");
	cr_assert_eq(parse(raw, &v), SEATBELT_LOG_MALFORMED);
	/* a NUL byte in the line */
	cr_assert_eq(seatbelt_log_parse(real_k, sizeof(real_k), TAG, &v), SEATBELT_LOG_MALFORMED);
	/* surrogates: a pair is one character, a lone one U+FFFD */
	static const char sur[] = "{\"eventMessage\":\"Sandbox: cat(1) deny(1) file-read-data "
				  "\\/\\ud83d\\ude00\\ud800\\n" TAG "\",\"processID\":0}";
	cr_assert_eq(parse(sur, &v), SEATBELT_LOG_OURS);
	cr_assert_str_eq(v.target, "/\xf0\x9f\x98\x80\xef\xbf\xbd");
}

Test(darwin_log, every_truncation_of_a_record_is_refused)
{
	/* `log` killed mid-line, or a pipe read cut short: no prefix of a
	 * record is taken for one */
	struct seatbelt_violation v;
	size_t n = strlen(real_k);

	for (size_t l = 0; l < n; l++)
		cr_assert_neq(seatbelt_log_parse(real_k, l, TAG, &v), SEATBELT_LOG_OURS,
			      "a record cut at %zu bytes was taken", l);
	cr_assert_eq(seatbelt_log_parse(real_k, n, TAG, &v), SEATBELT_LOG_OURS);
	/* and trailing garbage after the object */
	char more[sizeof(real_k) + 8];
	snprintf(more, sizeof(more), "%s{}", real_k);
	cr_assert_eq(parse(more, &v), SEATBELT_LOG_MALFORMED);
}

Test(darwin_log, deep_nesting_and_huge_lines_are_refused)
{
	char line[SEATBELT_LOG_LINE_MAX + 64];
	struct seatbelt_violation v;
	size_t l = (size_t)snprintf(line, sizeof(line), "{\"a\":");

	for (int i = 0; i < 40; i++)
		line[l++] = '[';
	for (int i = 0; i < 40; i++)
		line[l++] = ']';
	l += (size_t)snprintf(line + l, sizeof(line) - l, ",\"processID\":0}");
	cr_assert_eq(seatbelt_log_parse(line, l, TAG, &v), SEATBELT_LOG_MALFORMED);
	memset(line, ' ', sizeof(line));
	memcpy(line, real_k, strlen(real_k));
	cr_assert_eq(seatbelt_log_parse(line, SEATBELT_LOG_LINE_MAX + 1, TAG, &v),
		     SEATBELT_LOG_MALFORMED);
}

Test(darwin_log, the_predicate_names_the_kernel_and_the_tag_only)
{
	char pred[256];

	cr_assert_eq(seatbelt_log_predicate(TAG, pred, sizeof(pred)), 0);
	cr_assert_str_eq(pred, "processID == 0 AND eventMessage ENDSWITH \"" TAG "\"");
	cr_assert_eq(seatbelt_log_predicate("x\" OR 1 == 1", pred, sizeof(pred)), -EINVAL);
	cr_assert_eq(seatbelt_log_predicate("", pred, sizeof(pred)), -EINVAL);
	cr_assert_eq(seatbelt_log_predicate(TAG, pred, 10), -ENAMETOOLONG);
}

Test(darwin_log, normal_paths)
{
	cr_assert(seatbelt_path_normal("/"));
	cr_assert(seatbelt_path_normal("/private/tmp/a b/.env"));
	cr_assert_not(seatbelt_path_normal("x"));
	cr_assert_not(seatbelt_path_normal("/a//b"));
	cr_assert_not(seatbelt_path_normal("/a/./b"));
	cr_assert_not(seatbelt_path_normal("/a/../b"));
	cr_assert_not(seatbelt_path_normal("/a/"));
	cr_assert_not(seatbelt_path_normal("<private>"));
}
