/* tests/unit/shim_wire.c: the report line between the shim and the supervisor.
 *
 * What the shim encodes the supervisor must decode to the same bytes, however
 * odd the path or the program name; a target too long for one atomic write
 * is cut and says so; and since any sandboxed program can write into the
 * report pipe, every line that is not exactly a report is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common/wire.h"

/* Encode, check the line's shape, decode; asserts the decode succeeded. */
static size_t round_trip(char decision, enum wire_op op, int pid, const char *comm,
			 const char *target, int err, struct wire_report *out)
{
	static char line[WIRE_MAX + 1];
	size_t n = wire_encode(line, decision, op, pid, comm, target, err);
	size_t spaces = 0;

	cr_assert_gt(n, 0);
	cr_assert_leq(n, WIRE_MAX, "one report must fit one atomic write (%zu bytes)", n);
	cr_assert_eq(line[n - 1], '\n', "a report ends with its newline");
	cr_assert_eq(memchr(line, '\n', n - 1), NULL, "a newline inside the line");
	cr_assert_eq(memchr(line, '\0', n), NULL, "a NUL inside the line");
	for (size_t i = 0; i < n - 1; i++)
		spaces += line[i] == ' ';
	cr_assert_eq(spaces, 6, "seven fields, six spaces, got %zu in %.*s", spaces,
		     (int)n, line);
	cr_assert_eq(wire_decode(line, n - 1, out), 0, "decode refused its own line: %.*s",
		     (int)n, line);
	return n;
}

Test(shim_wire, plain_round_trip)
{
	struct wire_report r;
	char line[WIRE_MAX];
	size_t n = wire_encode(line, WIRE_DENY, WIRE_READ, 4121, "node",
			       "/home/u/.ssh/id_ed25519", 13);

	cr_assert_eq(n, strlen("SBX1 D read 4121 node /home/u/.ssh/id_ed25519 13\n"));
	cr_assert_eq(memcmp(line, "SBX1 D read 4121 node /home/u/.ssh/id_ed25519 13\n", n), 0,
		     "%.*s", (int)n, line);
	round_trip(WIRE_DENY, WIRE_READ, 4121, "node", "/home/u/.ssh/id_ed25519", 13, &r);
	cr_assert_eq(r.decision, WIRE_DENY);
	cr_assert_eq(r.op, WIRE_READ);
	cr_assert_eq(r.pid, 4121);
	cr_assert_str_eq(r.comm, "node");
	cr_assert_str_eq(r.target, "/home/u/.ssh/id_ed25519");
	cr_assert_eq(r.err, 13);
	cr_assert_eq(r.truncated, 0);
}

Test(shim_wire, every_decision_and_op_round_trips)
{
	static const char decisions[] = { WIRE_DENY, WIRE_ALLOW, WIRE_LEARN };
	static const struct {
		enum wire_op op;
		const char *name, *target;
	} ops[] = {
		{ WIRE_READ, "read", "/etc/passwd" },
		{ WIRE_WRITE, "write", "/etc/foo" },
		{ WIRE_EXEC, "exec", "/usr/bin/git" },
		{ WIRE_CONNECT, "connect", "[2001:db8::1]:443" },
		{ WIRE_DNS, "dns", "example.com:443" },
		{ WIRE_UNIX, "unix", "/run/user/1000/bus" },
		{ WIRE_SOCKET, "socket", "AF_INET, SOCK_STREAM, protocol 256" },
	};

	for (size_t d = 0; d < sizeof(decisions); d++)
		for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			struct wire_report r;
			cr_assert_str_eq(wire_op_name(ops[i].op), ops[i].name);
			round_trip(decisions[d], ops[i].op, 1 + (int)i, "prog", ops[i].target,
				   (int)i, &r);
			cr_assert_eq(r.decision, decisions[d]);
			cr_assert_eq(r.op, ops[i].op);
			cr_assert_eq(r.pid, 1 + (int)i);
			cr_assert_str_eq(r.target, ops[i].target);
			cr_assert_eq(r.err, (int)i);
		}
	cr_assert_str_eq(wire_op_name(WIRE_OP_COUNT), "?");
}

Test(shim_wire, odd_bytes_in_target_and_comm_survive)
{
	/* spaces, the escape characters themselves, newlines, tabs, DEL,
	 * and bytes that are not UTF-8 */
	static const char *const targets[] = {
		"/w/my file.txt",
		"/w/100%.txt",
		"/w/a+b+",
		"/w/+",
		"/w/%41%",
		"/w/line1\nline2\r\n",
		"/w/tab\there\x7f",
		"/w/\xff\xfe\x80latin1-\xe9",
		"/w/ leading and trailing ",
		"/w/%00-not-a-nul",
	};
	static const char *const comms[] = {
		"a b", "100%", "c++", "new\nline", "\xff\xfe", "x+", "%",
	};

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		for (size_t c = 0; c < sizeof(comms) / sizeof(comms[0]); c++) {
			struct wire_report r;
			round_trip(WIRE_DENY, WIRE_WRITE, 77, comms[c], targets[i], 30, &r);
			cr_assert_str_eq(r.target, targets[i], "target %zu", i);
			cr_assert_str_eq(r.comm, comms[c], "comm %zu", c);
			cr_assert_eq(r.truncated, 0, "target %zu marked truncated", i);
			cr_assert_eq(r.pid, 77);
			cr_assert_eq(r.err, 30);
		}
}

Test(shim_wire, empty_comm_and_target_are_placeholders)
{
	char line[WIRE_MAX];
	struct wire_report r;
	size_t n = wire_encode(line, WIRE_DENY, WIRE_DNS, 5, "", "", 0);

	cr_assert_eq(wire_decode(line, n - 1, &r), 0, "%.*s", (int)n, line);
	cr_assert_str_eq(r.comm, "?");
	cr_assert_str_eq(r.target, "?");
	n = wire_encode(line, WIRE_DENY, WIRE_READ, 5, NULL, NULL, 0);
	/* a file report must name an absolute path: "?" is not one */
	cr_assert_neq(wire_decode(line, n - 1, &r), 0, "%.*s", (int)n, line);
}

Test(shim_wire, negative_errno_round_trips)
{
	struct wire_report r;

	round_trip(WIRE_DENY, WIRE_DNS, 9, "curl", "example.com", -3, &r);
	cr_assert_eq(r.err, -3);
}

Test(shim_wire, long_target_is_cut_and_marked_truncated)
{
	char target[5001];
	struct wire_report r;
	size_t n;

	target[0] = '/';
	for (size_t i = 1; i < 5000; i++)
		target[i] = (char)('a' + i % 26);
	target[5000] = '\0';
	n = round_trip(WIRE_DENY, WIRE_READ, 3, "cat", target, 13, &r);
	cr_assert_leq(n, WIRE_MAX);
	cr_assert_eq(r.truncated, 1);
	cr_assert_gt(strlen(r.target), 3500, "cut far too early: %zu", strlen(r.target));
	cr_assert_lt(strlen(r.target), 5000);
	cr_assert_eq(strncmp(r.target, target, strlen(r.target)), 0, "the kept part is a prefix");
	cr_assert_eq(r.err, 13, "the errno after a cut target is kept");
	cr_assert_str_eq(r.comm, "cat");
}

Test(shim_wire, long_target_of_escaped_bytes_is_cut_on_a_whole_escape)
{
	char target[3001];
	struct wire_report r;

	target[0] = '/';
	memset(target + 1, ' ', 2999); /* each one 3 bytes on the wire */
	target[3000] = '\0';
	round_trip(WIRE_DENY, WIRE_WRITE, 3, "sh", target, 30, &r);
	cr_assert_eq(r.truncated, 1);
	cr_assert_eq(strspn(r.target + 1, " "), strlen(r.target) - 1,
		     "only whole spaces decoded");
}

Test(shim_wire, target_that_just_fits_is_not_truncated)
{
	/* header "SBX1 D read 3 cat " is 18 bytes; the encoder keeps 16 for
	 * `+ `, the errno and the newline */
	size_t room = WIRE_MAX - 16 - 18;
	char *target = malloc(room + 1);
	struct wire_report r;

	cr_assert_not_null(target);
	target[0] = '/';
	memset(target + 1, 'x', room - 1);
	target[room] = '\0';
	round_trip(WIRE_DENY, WIRE_READ, 3, "cat", target, 13, &r);
	cr_assert_eq(r.truncated, 0);
	cr_assert_str_eq(r.target, target);
	free(target);
}

/* A line given with an explicit length, so a NUL can be part of it. */
struct bad {
	const char *why;
	const char *line;
	size_t len; /* 0: strlen */
};

Test(shim_wire, malformed_lines_are_refused)
{
	static const struct bad bad[] = {
		{ "empty", "", 0 },
		{ "magic only", "SBX1", 0 },
		{ "magic and space", "SBX1 ", 0 },
		{ "bad magic", "SBX2 D read 1 cat /etc/passwd 13", 0 },
		{ "lower-case magic", "sbx1 D read 1 cat /etc/passwd 13", 0 },
		{ "no space after magic", "SBX1D read 1 cat /etc/passwd 13", 0 },
		{ "unknown decision", "SBX1 X read 1 cat /etc/passwd 13", 0 },
		{ "decision too long", "SBX1 DD read 1 cat /etc/passwd 13", 0 },
		{ "unknown op", "SBX1 D open 1 cat /etc/passwd 13", 0 },
		{ "op in capitals", "SBX1 D READ 1 cat /etc/passwd 13", 0 },
		{ "pid 0", "SBX1 D read 0 cat /etc/passwd 13", 0 },
		{ "negative pid", "SBX1 D read -5 cat /etc/passwd 13", 0 },
		{ "non-numeric pid", "SBX1 D read abc cat /etc/passwd 13", 0 },
		{ "pid with junk", "SBX1 D read 12x cat /etc/passwd 13", 0 },
		{ "huge pid", "SBX1 D read 99999999999 cat /etc/passwd 13", 0 },
		{ "minus alone as pid", "SBX1 D read - cat /etc/passwd 13", 0 },
		{ "no errno", "SBX1 D read 1 cat /etc/passwd", 0 },
		{ "no target, no errno", "SBX1 D read 1 cat", 0 },
		{ "no comm", "SBX1 D read 1", 0 },
		{ "empty field", "SBX1 D read 1  /etc/passwd 13", 0 },
		{ "non-numeric errno", "SBX1 D read 1 cat /etc/passwd EACCES", 0 },
		{ "trailing garbage", "SBX1 D read 1 cat /etc/passwd 13 extra", 0 },
		{ "two trailing fields", "SBX1 D read 1 cat /etc/passwd 13 1 2", 0 },
		{ "NUL via %00 in target", "SBX1 D read 1 cat /etc/pass%00wd 13", 0 },
		{ "NUL via %00 in comm", "SBX1 D read 1 c%00t /etc/passwd 13", 0 },
		{ "raw NUL in target", "SBX1 D read 1 cat /etc\0/passwd 13", 33 },
		{ "raw control byte", "SBX1 D read 1 cat /etc/\x01passwd 13", 0 },
		{ "raw carriage return at the end", "SBX1 D read 1 cat /etc/passwd 13\r", 0 },
		{ "raw DEL", "SBX1 D read 1 cat /etc/\x7fpasswd 13", 0 },
		{ "bad escape", "SBX1 D read 1 cat /etc/%G1 13", 0 },
		{ "cut escape", "SBX1 D read 1 cat /etc/%4 13", 0 },
		{ "escape at the end", "SBX1 D read 1 cat /etc/% 13", 0 },
		{ "relative path for read", "SBX1 D read 1 cat etc/passwd 13", 0 },
		{ "relative path for write", "SBX1 D write 1 sh ./foo 30", 0 },
		{ "relative path for exec", "SBX1 D exec 1 sh bin/evil 1", 0 },
		{ "placeholder path for read", "SBX1 D read 1 cat ? 13", 0 },
		{ "comm too long to be a comm",
		  "SBX1 D read 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa /etc/passwd 13", 0 },
		{ "a second line inside", "SBX1 D read 1 cat /etc/passwd 13\nSBX1 D read 1 cat /x 13", 0 },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct wire_report r;
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].line);
		cr_expect_neq(wire_decode(bad[i].line, len, &r), 0, "accepted (%s): %s",
			      bad[i].why, bad[i].line);
	}
}

Test(shim_wire, target_longer_than_the_buffer_is_refused)
{
	/* a forged line whose target decodes past WIRE_TARGET_MAX */
	size_t n = 40 + WIRE_TARGET_MAX + 10;
	char *line = malloc(n + 1);
	struct wire_report r;
	size_t o = 0;

	cr_assert_not_null(line);
	o += (size_t)sprintf(line, "SBX1 D read 1 cat /");
	memset(line + o, 'x', WIRE_TARGET_MAX + 5);
	o += WIRE_TARGET_MAX + 5;
	o += (size_t)sprintf(line + o, " 13");
	cr_assert_neq(wire_decode(line, o, &r), 0);
	free(line);
}

Test(shim_wire, plus_marks_truncation_only_at_the_end_of_the_target)
{
	struct wire_report r;
	const char *l1 = "SBX1 D read 1 cat /a/long/pat+ 13";
	const char *l2 = "SBX1 D read 1 cat /a+b 13";

	cr_assert_eq(wire_decode(l1, strlen(l1), &r), 0);
	cr_assert_eq(r.truncated, 1);
	cr_assert_str_eq(r.target, "/a/long/pat");
	cr_assert_eq(wire_decode(l2, strlen(l2), &r), 0);
	cr_assert_eq(r.truncated, 0);
	cr_assert_str_eq(r.target, "/a+b");
}

Test(shim_wire, network_targets_need_not_be_paths)
{
	struct wire_report r;
	const char *dns = "SBX1 D dns 12 python3 example.com:443 0";
	const char *conn = "SBX1 D connect 12 curl 10.255.255.1:80 1";

	cr_assert_eq(wire_decode(dns, strlen(dns), &r), 0);
	cr_assert_eq(r.op, WIRE_DNS);
	cr_assert_str_eq(r.target, "example.com:443");
	cr_assert_eq(wire_decode(conn, strlen(conn), &r), 0);
	cr_assert_eq(r.op, WIRE_CONNECT);
	cr_assert_str_eq(r.target, "10.255.255.1:80");
	cr_assert_eq(r.err, 1);
}

Test(shim_wire, lower_case_hex_escapes_decode)
{
	struct wire_report r;
	const char *l = "SBX1 A read 1 cat /a%2fb%20c 0";

	cr_assert_eq(wire_decode(l, strlen(l), &r), 0);
	cr_assert_str_eq(r.target, "/a/b c");
}

Test(shim_wire, trailing_space_after_errno_is_refused)
{
	/* the line ends with the errno: a separator with no field after it is
	 * not a report the shim writes */
	struct wire_report r;
	const char *l = "SBX1 D read 1 cat /etc/passwd 13 ";

	cr_expect_neq(wire_decode(l, strlen(l), &r), 0, "accepted: \"%s\"", l);
}
