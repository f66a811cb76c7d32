/* tests/unit/reports.c: a report as the person reads it, and as the log keeps it.
 *
 * report_explain() asks the policy which rule decided and how to lift it;
 * report_line() says it in one line. reports_new/feed/finish take the raw
 * pipe bytes (from every sandboxed process, so hostile), print one line per
 * new report, fold repeats, log every report as JSON and sum up at the end.
 * The stream tests write to real temp files and read them back.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/helpers.h"
#include "common/event.h"
#include "common/hostfs.h"
#include "preload/preload.h"

/* ---- building reports */

static struct wire_report wr(char decision, enum wire_op op, const char *target, int err)
{
	struct wire_report w;

	memset(&w, 0, sizeof(w));
	w.decision = decision;
	w.op = op;
	w.pid = 4121;
	w.err = err;
	snprintf(w.comm, sizeof(w.comm), "%s", "node");
	snprintf(w.target, sizeof(w.target), "%s", target);
	return w;
}

/* The explained line for one report. */
static const char *line_of(const struct policy *p, const struct wire_report *w,
			   struct report_expl *e)
{
	static char out[2048];
	size_t n;

	report_explain(p, w, e);
	n = report_line(w, e, out, sizeof(out));
	cr_assert_eq(n, strlen(out), "report_line returned %zu for %zu bytes", n, strlen(out));
	cr_assert_eq(strchr(out, '\n'), NULL, "one line: %s", out);
	return out;
}

/* ---- report_explain + report_line */

Test(reports, default_credential_deny_names_rule_and_fix)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_DENY, WIRE_READ, "/home/u/.ssh/id_ed25519", EACCES);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(e.verdict, SBX_DENY);
	cr_assert(e.has_rule);
	cr_assert_eq(e.kind, SBX_RULE_DENY_READ);
	cr_assert_str_eq(e.rule, "deny_read = ~/.ssh");
	cr_assert_str_eq(e.source, "default");
	cr_assert_str_eq(e.note, "built-in default");
	cr_assert_str_eq(e.shown, "~/.ssh/id_ed25519");
	cr_assert_str_eq(e.fix, "--allow-read ~/.ssh/id_ed25519");
	cr_assert_str_eq(l, "sbx: denied read of ~/.ssh/id_ed25519 by `deny_read = ~/.ssh` "
			    "(built-in default) (allow it with --allow-read ~/.ssh/id_ed25519) "
			    "— pid 4121 node");
	policy_free(p);
}

Test(reports, user_rule_names_its_file_and_line)
{
	struct policy *p = compile_ini("[filesystem]\n"
				       "; secrets of my own\n"
				       "deny_read = ~/secrets\n");
	struct wire_report w = wr(WIRE_DENY, WIRE_READ, "/home/u/secrets/db.txt", EACCES);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(e.verdict, SBX_DENY);
	cr_assert_str_eq(e.rule, "deny_read = ~/secrets");
	cr_assert_str_eq(e.source, "test.ini:3");
	cr_assert_str_eq(e.note, "test.ini:3");
	cr_assert_str_eq(e.fix, "--allow-read ~/secrets/db.txt");
	assert_contains(l, "sbx: denied read of ~/secrets/db.txt by `deny_read = ~/secrets` (test.ini:3)");
	assert_contains(l, "(allow it with --allow-read ~/secrets/db.txt)");
	policy_free(p);
}

Test(reports, flag_rule_names_the_flag)
{
	struct policy_builder *b = builder_ini(NULL);
	struct policy *p;
	struct wire_report w = wr(WIRE_DENY, WIRE_READ, "/w/private/f", EACCES);
	struct report_expl e;

	builder_set(b, "filesystem", "deny_read", "private", SBX_ORIGIN_FLAG, "--deny-read");
	p = compile_builder(b);
	assert_contains(line_of(p, &w, &e), "by `deny_read = private` (--deny-read)");
	cr_assert_str_eq(e.source, "--deny-read");
	policy_free(p);
}

/* The fix offered for a write outside the writable roots is one that works
 * as printed: only what exists at start (or a directory named with a `/`,
 * which sbx makes) can be made writable. Real directories: the fix depends
 * on what exists. */
Test(reports, write_outside_writable_paths_suggests_a_fix_that_works_as_printed)
{
	char home[] = "/var/tmp/sbx-unit-home.XXXXXX", path[256];
	cr_assert_not_null(mkdtemp(home));
	struct policy_ctx ctx = { .home = home, .cwd = "/w" };
	struct policy_builder *b = NULL;
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	struct policy *p = compile_builder(b);
	struct report_expl e;
	struct wire_report w;
	const char *l;

	/* a new file in a top-level directory: never the directory, the file
	 * once it exists */
	w = wr(WIRE_DENY, WIRE_WRITE, "/etc/sbx-unit-no-such-file", EROFS);
	l = line_of(p, &w, &e);
	cr_assert_eq(e.verdict, SBX_DENY);
	cr_assert_not(e.has_rule);
	cr_assert_str_eq(e.fix, "--allow-write /etc/sbx-unit-no-such-file once the file exists "
			 "(sbx creates only directories, named with a trailing /)");
	cr_assert_str_eq(l, "sbx: denied write of /etc/sbx-unit-no-such-file — outside the "
			    "writable paths (allow it with --allow-write /etc/sbx-unit-no-such-file "
			    "once the file exists (sbx creates only directories, named with a "
			    "trailing /)) — pid 4121 node");
	/* `/`, HOME and a top-level directory themselves: no hint at all */
	const char *wide[] = { "/", "/etc", "/sbx-unit-new", home };
	for (size_t i = 0; i < 4; i++) {
		w = wr(WIRE_DENY, WIRE_WRITE, wide[i], EROFS);
		line_of(p, &w, &e);
		cr_assert_str_eq(e.fix, "", "%s: %s", wide[i], e.fix);
	}
	/* a path through a link (here /proc's magic one) is never looked
	 * through, so the hint does not tell what is on the host there */
	w = wr(WIRE_DENY, WIRE_WRITE, "/proc/self/root/etc/hostname", EROFS);
	line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "", "%s", e.fix);
	snprintf(path, sizeof(path), "%s/lnk", home);
	cr_assert_eq(symlink("/etc", path), 0);
	snprintf(path, sizeof(path), "%s/lnk/hostname", home);
	w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
	line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "", "%s", e.fix); /* a link is never named */
	/* a name with blanks or quotes: one shell word, ~/ left outside */
	snprintf(path, sizeof(path), "%s/it's here", home);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/it's here/x", home);
	w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
	line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "--allow-write ~/'it'\\''s here'");
	/* an existing file in a top-level directory: the file */
	w = wr(WIRE_DENY, WIRE_WRITE, "/etc/hostname", EROFS);
	line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "--allow-write /etc/hostname");

	/* a file in an existing directory below HOME: the directory */
	snprintf(path, sizeof(path), "%s/.cache", home);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.cache/y.bin", home);
	w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
	l = line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "--allow-write ~/.cache");
	assert_contains(l, "denied write of ~/.cache/y.bin — outside the writable paths");
	/* a file in a missing directory of it: the existing one */
	snprintf(path, sizeof(path), "%s/.cache/new/y.bin", home);
	w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
	line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "--allow-write ~/.cache");

	/* a new file right in HOME: never HOME, the file once it exists */
	snprintf(path, sizeof(path), "%s/notes.txt", home);
	w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
	line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "--allow-write ~/notes.txt once the file exists (sbx creates "
			 "only directories, named with a trailing /)");
	/* an existing one: itself */
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fclose(f);
	line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "--allow-write ~/notes.txt");
	/* a new name beside it that stands for it (a save by rename): no
	 * flag (the file allowed would not let the name be made, nor the
	 * rename), the file named instead, and a quiet rule offered */
	static const char *const temps[] = { "notes.txt.tmp", "notes.txt.tmp.4121.9f3",
					     "notes.txt.new", "notes.txt~" };
	for (size_t i = 0; i < sizeof(temps) / sizeof(*temps); i++) {
		snprintf(path, sizeof(path), "%s/%s", home, temps[i]);
		w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
		l = line_of(p, &w, &e);
		cr_assert_str_eq(e.fix, "", "%s", temps[i]);
		cr_assert_str_eq(e.renames, "~/notes.txt", "%s", temps[i]);
		assert_contains(l, "(the program replaces ~/notes.txt by renaming this new name "
				"over it, and only all of ~ would let it");
		assert_contains(l, "`ignore_paths = ~/");
	}
	/* the same name with nothing beside it: an ordinary new file */
	snprintf(path, sizeof(path), "%s/other.tmp", home);
	w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
	line_of(p, &w, &e);
	cr_assert_str_eq(e.renames, "");
	assert_contains(e.fix, "--allow-write ~/other.tmp once the file exists");
	/* a directory made right in HOME (the shim's `/`): itself, with a `/` */
	snprintf(path, sizeof(path), "%s/.npm", home);
	w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
	w.dir = 1;
	l = line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "--allow-write ~/.npm/");
	assert_contains(l, "denied write of ~/.npm/ — outside");
	/* in a package manager's digest-checked store: the store, where the
	 * next refusal would be too (npm's _cacache/tmp, then its index);
	 * never the whole tool directory (~/.npm/_npx holds what npx runs) */
	const char *made[] = { ".npm/_cacache/tmp", ".npm/_npx/abc", ".cache/pip/http",
			       ".cargo/bin", ".cargo/registry/index/x", ".cargo/registry/src/idx",
			       ".npmx/a" };
	for (size_t i = 0; i < sizeof(made) / sizeof(*made); i++)
		make_dirs(home, made[i]);
	const char *tool[][2] = {
		{ ".npm/_cacache/tmp/5d5e34f0", "~/.npm/_cacache" },
		{ ".npm/_cacache/tmp", "~/.npm/_cacache" },
		{ ".npm/_npx/abc/run.js", "" },                        /* npx runs it: never */
		{ ".cache/pip/http/a/b/c", "~/.cache/pip/http" },       /* no store of ours */
		{ ".cache/y.bin", "~/.cache" },
		{ ".cargo/bin/ls", "" },                                /* on PATH: write-protected */
		{ ".cargo/registry/index/x/y", "~/.cargo/registry/index" },
		{ ".cargo/registry/src/idx/build.rs", "~/.cargo/registry/src/idx" }, /* built */
		{ ".npmx/a/b", "~/.npmx/a" },                           /* a longer name is another */
	};
	for (size_t i = 0; i < sizeof(tool) / sizeof(*tool); i++) {
		char want[256];
		snprintf(path, sizeof(path), "%s/%s", home, tool[i][0]);
		w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
		line_of(p, &w, &e);
		snprintf(want, sizeof(want), "%s%s", *tool[i][1] ? "--allow-write " : "", tool[i][1]);
		cr_assert_str_eq(e.fix, want, "%s: %s", tool[i][0], e.fix);
	}
	/* a cache a later install trusts: offered, and said what it is */
	snprintf(path, sizeof(path), "%s/.cache/pip/http/a/b/c", home);
	w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
	l = line_of(p, &w, &e);
	assert_contains(l, "(allow it with --allow-write ~/.cache/pip/http — ~/.cache/pip: "
			   "pip's cache: later pip installs install the wheels there)");
	/* in a git directory outside (a push to a bare repository): the
	 * repository, where the next write (refs/heads/NAME.lock) is too;
	 * a directory with objects/ alone is no repository */
	make_dirs(home, "up/bare.git/objects/incoming-1");
	make_dirs(home, "up/bare.git/refs/heads");
	make_dirs(home, "up/notgit/objects/x");
	snprintf(path, sizeof(path), "%s/up/bare.git/HEAD", home);
	write_file(path, "ref: refs/heads/main\n");
	const char *git[][2] = {
		{ "up/bare.git/objects/incoming-1/pack-1.pack", "~/up/bare.git" },
		{ "up/bare.git/refs/heads/main.lock", "~/up/bare.git" },
		{ "up/bare.git/objects/ab/new/obj", "~/up/bare.git" },
		{ "up/notgit/objects/x/f", "~/up/notgit/objects/x" },
	};
	for (size_t i = 0; i < sizeof(git) / sizeof(*git); i++) {
		char want[256];
		snprintf(path, sizeof(path), "%s/%s", home, git[i][0]);
		w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
		line_of(p, &w, &e);
		snprintf(want, sizeof(want), "--allow-write %s", git[i][1]);
		cr_assert_str_eq(e.fix, want, "%s: %s", git[i][0], e.fix);
	}
	/* a chain of new directories in HOME: the first, with a `/` */
	snprintf(path, sizeof(path), "%s/.config/a/b", home);
	w = wr(WIRE_DENY, WIRE_WRITE, path, EROFS);
	line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "--allow-write ~/.config/");
	policy_free(p);
	remove_tree(home);
}

Test(reports, mandatory_rule_has_no_fix_and_says_built_in)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_DENY, WIRE_WRITE, "/w/.git/hooks/pre-commit", EROFS);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(e.verdict, SBX_DENY);
	cr_assert(e.has_rule);
	cr_assert_eq(e.kind, SBX_RULE_MANDATORY);
	cr_assert_str_eq(e.fix, "");
	assert_contains(e.rule, "deny_write = ");
	assert_contains(e.rule, ".git/hooks");
	assert_contains(l, "built in; no setting lifts it");
	assert_not_contains(l, "allow it with");
	assert_not_contains(l, "remove that rule");

	w = wr(WIRE_DENY, WIRE_WRITE, "/w/sub/.env", EROFS);
	l = line_of(p, &w, &e);
	cr_assert(e.has_rule);
	cr_assert_str_eq(e.fix, "");
	assert_contains(l, "denied write of /w/sub/.env by `deny_write = ");
	policy_free(p);
}

Test(reports, user_deny_write_says_remove_that_rule)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_write = logs/\n");
	struct wire_report w = wr(WIRE_DENY, WIRE_WRITE, "/w/logs/app.log", EROFS);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(e.kind, SBX_RULE_DENY_WRITE);
	assert_contains(l, "(test.ini:2)");
	assert_contains(l, "(remove that rule to allow it)");
	policy_free(p);
}

/* socket(AF_UNIX) refused before any path: the fix is the key that allows
 * them, never `allow_unix_sockets = creation` (a word, not a path) */
Test(reports, unix_socket_creation_names_the_key_not_a_path)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_DENY, WIRE_UNIX, "socket", EPERM);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(strstr(l, "allow_unix_sockets = creation"), NULL, "%s", l);
	cr_assert_str_eq(l, "sbx: denied unix socket creation — a kind of Unix socket the "
			    "sandbox refuses (datagram ones name their peer at each send; without "
			    "the notify layer, every kind) (allow them all with "
			    "`allow_all_unix_sockets = true` under [network] in sandbox.ini) — "
			    "pid 4121 node");
	w = wr(WIRE_DENY, WIRE_UNIX, "/run/x.sock", 0);
	l = line_of(p, &w, &e);
	cr_assert_neq(strstr(l, "`allow_unix_sockets = /run/x.sock`"), NULL, "%s", l);
	policy_free(p);
}

Test(reports, dns_deny_suggests_allow_domain_for_the_host)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_DENY, WIRE_DNS, "example.com:443", 0);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(e.verdict, SBX_DENY);
	cr_assert_str_eq(e.fix, "--allow-domain example.com");
	cr_assert_str_eq(l, "sbx: denied lookup of example.com:443 — not in allow_domains "
			    "(allow it with --allow-domain example.com) — pid 4121 node");

	w = wr(WIRE_DENY, WIRE_DNS, "pypi.org", 0);
	line_of(p, &w, &e);
	cr_assert_str_eq(e.fix, "--allow-domain pypi.org");
	policy_free(p);
}

Test(reports, dns_deny_by_a_deny_domains_rule_names_it)
{
	struct policy *p = compile_ini("[network]\n"
				       "allow_domains = *.example.com\n"
				       "deny_domains = evil.example.com\n");
	struct wire_report w = wr(WIRE_DENY, WIRE_DNS, "evil.example.com:443", 0);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(e.verdict, SBX_DENY);
	cr_assert(e.has_rule);
	assert_contains(l, "deny_domains = evil.example.com");
	assert_contains(l, "(test.ini:3)");
	policy_free(p);
}

Test(reports, connect_deny_names_the_address)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_DENY, WIRE_CONNECT, "10.255.255.1:80", EPERM);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(e.verdict, SBX_DENY);
	assert_contains(l, "sbx: denied connect to 10.255.255.1:80 — not in allow_domains");
	assert_contains(l, "(allow it with --allow-domain 10.255.255.1:80)");
	assert_contains(l, "— pid 4121 node");

	w = wr(WIRE_DENY, WIRE_CONNECT, "[2001:db8::1]:443", EPERM);
	l = line_of(p, &w, &e);
	cr_assert_eq(e.verdict, SBX_DENY);
	assert_contains(l, "denied connect to [2001:db8::1]:443");
	policy_free(p);
}

Test(reports, network_open_allows_lookups)
{
	struct policy *p = compile_ini("[network]\nallow_domains = *\n");
	struct wire_report w = wr(WIRE_DENY, WIRE_DNS, "example.com", 0);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(e.verdict, SBX_ALLOW);
	cr_assert_str_eq(e.fix, "");
	/* a denial the policy does not explain is the sandbox's own */
	assert_contains(l, "refused by the sandbox");
	policy_free(p);
}

Test(reports, trace_line_for_an_allowed_access)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_ALLOW, WIRE_READ, "/w/src/main.c", 0);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(e.verdict, SBX_ALLOW);
	cr_assert_str_eq(l, "sbx: trace: read /w/src/main.c — pid 4121 node");

	policy_free(p);
	p = compile_ini("[network]\nallow_domains = example.com\n");
	w = wr(WIRE_ALLOW, WIRE_DNS, "example.com:443", 0);
	assert_contains(line_of(p, &w, &e), "sbx: trace: lookup of example.com:443 — pid 4121 node");
	policy_free(p);
}

Test(reports, claimed_allow_of_what_the_policy_denies_is_a_denial)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_ALLOW, WIRE_READ, "/home/u/.ssh/id_ed25519", 0);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	cr_assert_eq(e.decision, WIRE_DENY);
	cr_assert_eq(e.claimed, WIRE_ALLOW);
	assert_contains(l, "sbx: denied read of ~/.ssh/id_ed25519 by `deny_read = ~/.ssh` "
			   "(built-in default)");
	assert_contains(l, "(reported as allowed; the policy denies it) — pid 4121 node");
	w = wr(WIRE_ALLOW, WIRE_DNS, "localhost", 0);
	assert_contains(line_of(p, &w, &e), "sbx: denied lookup of localhost — not in allow_domains");
	policy_free(p);
}

Test(reports, claimed_refusal_of_what_the_policy_allows_stays_a_refusal_with_no_claim)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_DENY, WIRE_WRITE, "/w/new/file", EROFS);
	struct report_expl e;

	report_explain(p, &w, &e);
	cr_assert_eq(e.verdict, SBX_ALLOW);
	cr_assert_eq(e.decision, WIRE_DENY);
	cr_assert_eq(e.claimed, 0);
	policy_free(p);
}

Test(reports, learn_line_says_would_deny_and_what_was_learned)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_LEARN, WIRE_WRITE, "/home/u/notes.txt", 0);
	struct report_expl e;
	const char *l = line_of(p, &w, &e);

	assert_contains(l, "sbx: would deny write of ~/notes.txt");
	assert_contains(l, "(learned: --allow-write ");
	policy_free(p);
}

Test(reports, truncated_target_is_marked)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_DENY, WIRE_READ, "/home/u/.ssh/very-long", EACCES);
	struct report_expl e;

	w.truncated = 1;
	assert_contains(line_of(p, &w, &e), "~/.ssh/very-long… by");
	policy_free(p);
}

Test(reports, report_line_never_overruns_a_small_buffer)
{
	struct policy *p = compile_ini(NULL);
	struct wire_report w = wr(WIRE_DENY, WIRE_READ, "/home/u/.ssh/id_ed25519", EACCES);
	struct report_expl e;
	char out[32];
	size_t n;

	memset(out, 'Z', sizeof(out));
	report_explain(p, &w, &e);
	n = report_line(&w, &e, out, sizeof(out));
	cr_assert_lt(n, sizeof(out));
	cr_assert_eq(out[n], '\0');
	cr_assert_eq(strncmp(out, "sbx: denied read of ~/.ssh/", n < 27 ? n : 27), 0, "%s", out);
	policy_free(p);
}

/* ---- the stream: reports_new / feed / finish */

struct stream {
	char *dir;
	char out_path[PATH_MAX], log_path[PATH_MAX];
	int out_fd;
	struct policy *p, *relaxed;
	struct reports *r;
};

/* The stream's options beyond the policy and the mode. */
struct stream_opts {
	const char *relaxed_ini;      /* --learn's relaxed policy (NULL: none) */
	struct reports_limits limits; /* zeros: the defaults */
	bool fake_clock;              /* the rate limits read fake_now */
};

static unsigned long long fake_now = 1000000;
static unsigned long long fake_clock(void)
{
	return fake_now;
}

static void stream_open_with(struct stream *s, const char *ini, enum reports_mode mode,
			     const struct stream_opts *o)
{
	struct reports_cfg cfg;

	memset(s, 0, sizeof(*s));
	s->dir = make_tmpdir();
	snprintf(s->out_path, sizeof(s->out_path), "%s/stderr", s->dir);
	/* the log's directory does not exist yet: reports makes it */
	snprintf(s->log_path, sizeof(s->log_path), "%s/state/sbx/audit.jsonl", s->dir);
	s->out_fd = open(s->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(s->out_fd, 0);
	s->p = compile_ini(ini);
	if (o && o->relaxed_ini)
		s->relaxed = compile_ini(o->relaxed_ini);
	cfg = (struct reports_cfg){ .policy = s->p, .relaxed = s->relaxed,
				    .log_path = s->log_path, .run_id = "run-1", .mode = mode,
				    .out_fd = s->out_fd };
	if (o) {
		cfg.limits = o->limits;
		if (o->fake_clock)
			cfg.clock_ms = fake_clock;
	}
	cr_assert_eq(reports_new(&cfg, &s->r), 0);
}

static void stream_open(struct stream *s, const char *ini, enum reports_mode mode)
{
	stream_open_with(s, ini, mode, NULL);
}

static void feed(struct stream *s, const char *text)
{
	reports_feed(s->r, text, strlen(text));
}

static void stream_close(struct stream *s)
{
	reports_free(s->r);
	policy_free(s->p);
	policy_free(s->relaxed);
	close(s->out_fd);
	remove_tree(s->dir);
	free(s->dir);
}

/* ---- a small strict JSON checker: one object per line, nothing else */

static const char *json_value(const char *s);

static const char *json_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static const char *json_string(const char *s)
{
	if (*s++ != '"')
		return NULL;
	while (*s && *s != '"') {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20)
			return NULL;
		if (c == '\\') {
			s++;
			if (*s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)s[i]))
						return NULL;
				s += 5;
				continue;
			}
			if (!strchr("\"\\/bfnrt", *s) || !*s)
				return NULL;
		}
		s++;
	}
	return *s == '"' ? s + 1 : NULL;
}

static const char *json_value(const char *s)
{
	s = json_ws(s);
	if (*s == '"')
		return json_string(s);
	if (*s == '{') {
		s = json_ws(s + 1);
		if (*s == '}')
			return s + 1;
		for (;;) {
			if (!(s = json_string(json_ws(s))))
				return NULL;
			s = json_ws(s);
			if (*s++ != ':' || !(s = json_value(s)))
				return NULL;
			s = json_ws(s);
			if (*s == '}')
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	if (!strncmp(s, "true", 4))
		return s + 4;
	if (!strncmp(s, "false", 5))
		return s + 5;
	if (!strncmp(s, "null", 4))
		return s + 4;
	if (*s == '-' || isdigit((unsigned char)*s)) {
		s += *s == '-';
		if (!isdigit((unsigned char)*s))
			return NULL;
		while (isdigit((unsigned char)*s))
			s++;
		return s;
	}
	return NULL;
}

/* Every line of the log is one well-formed object; returns how many. */
static size_t json_lines(const char *log)
{
	size_t n = 0;
	const char *p = log;

	while (*p) {
		const char *e = strchr(p, '\n');
		cr_assert_not_null(e, "the log's last line has no newline: %s", p);
		char *line = strndup(p, (size_t)(e - p));
		const char *end = json_value(line);
		cr_assert(end && *json_ws(end) == '\0', "not one JSON object: %s", line);
		cr_assert_eq(line[0], '{', "not an object: %s", line);
		free(line);
		n++;
		p = e + 1;
	}
	return n;
}

/* The log line holding `needle`, or NULL. */
static char *log_line_with(const char *log, const char *needle)
{
	const char *q = strstr(log, needle);

	if (!q)
		return NULL;
	const char *b = q;
	while (b > log && b[-1] != '\n')
		b--;
	const char *e = strchr(q, '\n');
	return strndup(b, e ? (size_t)(e - b) : strlen(b));
}

Test(reports_stream, json_checker_knows_bad_json)
{
	/* the checker itself: it must refuse what a parser refuses */
	cr_assert_not_null(json_value("{\"a\":1,\"b\":{}}"));
	cr_assert_null(json_value("{\"a\":[1]}")); /* no arrays in the log */
	cr_assert_null(json_value("{\"a\":\"x\ny\"}"));
	cr_assert_null(json_value("{\"a\":\"\\x\"}"));
	cr_assert_null(json_value("{\"a\" 1}"));
	cr_assert_not_null(json_value("{\"a\":\"\\u00e9\\n\",\"b\":null,\"c\":-3,\"d\":true}"));
}

Test(reports_stream, deny_is_printed_once_logged_every_time_and_summed_up)
{
	struct stream s;

	stream_open(&s, "[filesystem]\ndeny_read = ~/secrets\n", REPORTS_ENFORCE);
	feed(&s, "SBX1 D read 3 cat /home/u/.ssh/id_ed25519 13\n");
	feed(&s, "SBX1 D read 4 cat /home/u/.ssh/id_ed25519 13\n");
	feed(&s, "SBX1 D read 5 cat /home/u/.ssh/id_ed25519 13\n");
	feed(&s, "SBX1 D read 6 python3 /home/u/secrets/db 13\n");
	feed(&s, "SBX1 D write 2 sh /etc/foo 30\n");
	feed(&s, "SBX1 D dns 7 python3 example.com:443 0\n");
	feed(&s, "SBX1 D connect 8 python3 10.255.255.1:80 1\n");
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(str_count(out, "sbx: denied read of ~/.ssh/id_ed25519 by `deny_read = ~/.ssh` "
				"(built-in default)"), 2, "first time and the fold: %s", out);
	assert_contains(out, "— pid 3 cat\n");
	cr_assert_eq(str_count(out, "— pid 4 cat"), 0, "a repeat was printed: %s", out);
	assert_contains(out, "(allow it with --allow-read ~/.ssh/id_ed25519) (x2 more)\n");
	assert_contains(out, "by `deny_read = ~/secrets` (test.ini:2)");
	assert_contains(out, "sbx: denied write of /etc/foo — outside the writable paths "
			     "(allow it with --allow-write /etc/foo once the file exists (sbx "
			     "creates only directories, named with a trailing /)) — pid 2 sh\n");
	assert_contains(out, "sbx: denied lookup of example.com:443");
	assert_contains(out, "sbx: denied connect to 10.255.255.1:80");
	assert_contains(out, "sbx: 4 denied reads, 1 denied write, 1 denied connect, "
			     "1 denied lookup — see ");
	assert_contains(out, s.log_path);

	cr_assert_eq(json_lines(log), 7, "%s", log);
	char *l = log_line_with(log, "\"pid\":3,");
	cr_assert_not_null(l, "%s", log);
	assert_contains(l, "\"layer\":\"shim\"");
	assert_contains(l, "\"op\":\"read\"");
	assert_contains(l, "\"target\":\"/home/u/.ssh/id_ed25519\"");
	assert_contains(l, "\"decision\":\"deny\"");
	assert_contains(l, "\"rule\":\"deny_read = ~/.ssh\"");
	assert_contains(l, "\"source\":\"default\"");
	assert_contains(l, "\"comm\":\"cat\"");
	assert_contains(l, "\"errno\":\"EACCES\"");
	assert_contains(l, "\"fix\":\"--allow-read ~/.ssh/id_ed25519\"");
	assert_contains(l, "\"run\":\"run-1\"");
	assert_contains(l, "\"truncated\":false");
	assert_contains(l, "\"ignored\":false");
	free(l);
	l = log_line_with(log, "\"op\":\"write\"");
	cr_assert_not_null(l);
	assert_contains(l, "\"rule\":null");
	assert_contains(l, "\"source\":null");
	assert_contains(l, "\"errno\":\"EROFS\"");
	assert_contains(l, "\"fix\":\"--allow-write /etc/foo once the file exists");
	free(l);
	l = log_line_with(log, "\"op\":\"dns\"");
	cr_assert_not_null(l);
	assert_contains(l, "\"errno\":null");
	free(l);
	l = log_line_with(log, "secrets/db");
	cr_assert_not_null(l);
	assert_contains(l, "\"source\":\"test.ini:2\"");
	free(l);

	struct stat st;
	cr_assert_eq(stat(s.log_path, &st), 0);
	cr_assert_eq(st.st_mode & 0077, 0, "the audit log is private: %o", st.st_mode & 0777);
	free(out);
	free(log);
	stream_close(&s);
}

/* hold: nothing reaches stderr until flushed, then every line at once, in
 * order; reports_finish flushes before its repeats and summary. */
Test(reports_stream, held_lines_wait_for_flush_and_keep_their_order)
{
	struct stream s;

	stream_open(&s, NULL, REPORTS_ENFORCE);
	reports_free(s.r);
	struct reports_cfg cfg = { .policy = s.p, .log_path = s.log_path, .run_id = "run-1",
				   .mode = REPORTS_ENFORCE, .out_fd = s.out_fd, .hold = true };
	cr_assert_eq(reports_new(&cfg, &s.r), 0);
	feed(&s, "SBX1 D write 2 sh /etc/one 30\n");
	feed(&s, "SBX1 D write 3 sh /etc/two 30\n");
	char *out = slurp(s.out_path);
	cr_assert_str_eq(out, "", "held, not written: %s", out);
	free(out);
	cr_assert(reports_pending(s.r));
	reports_flush(s.r);
	cr_assert(!reports_pending(s.r));
	out = slurp(s.out_path);
	char *one = strstr(out, "/etc/one"), *two = strstr(out, "/etc/two");
	cr_assert(one && two && one < two, "%s", out);
	cr_assert_eq(str_count(out, "\n"), 2, "%s", out);
	free(out);
	feed(&s, "SBX1 D write 4 sh /etc/three 30\n");
	reports_finish(s.r, 0);
	out = slurp(s.out_path);
	char *three = strstr(out, "/etc/three"), *sum = strstr(out, "sbx: 3 denied writes");
	cr_assert(three && sum && three < sum, "flushed before the summary: %s", out);
	free(out);
	stream_close(&s);
}

/* A shared stderr opened for writing only (2>log, an agent's tool
 * output): its last byte still says whether COMMAND is inside a line of
 * its own. Before, pread() on the write-only descriptor failed (EBADF)
 * and every line counted as finished, so held lines cut into the
 * program's. A pipe has no last byte: never inside a line. */
Test(reports_stream, midline_reads_a_write_only_file_and_not_a_pipe)
{
	struct stream s;
	off_t size;

	stream_open(&s, NULL, REPORTS_ENFORCE);
	cr_assert_eq(fcntl(s.out_fd, F_GETFL) & O_ACCMODE, O_WRONLY);
	cr_assert(!reports_midline(s.r, &size));
	cr_assert_eq(size, 0);
	cr_assert_eq(write(s.out_fd, "prog: cannot write x", 20), 20);
	cr_assert(reports_midline(s.r, &size));
	cr_assert_eq(size, 20);
	cr_assert_eq(write(s.out_fd, ": denied\n", 9), 9);
	cr_assert(!reports_midline(s.r, &size));
	cr_assert_eq(size, 29);
	stream_close(&s);

	int pfd[2];
	cr_assert_eq(pipe(pfd), 0);
	struct reports *r;
	struct reports_cfg cfg = { .mode = REPORTS_ENFORCE, .out_fd = pfd[1] };
	cr_assert_eq(reports_new(&cfg, &r), 0);
	cr_assert_eq(write(pfd[1], "half", 4), 4);
	cr_assert(!reports_midline(r, &size));
	cr_assert_eq(size, -1);
	reports_free(r);
	close(pfd[0]);
	close(pfd[1]);
}

/* A line of ours starts a line: in a shared file where COMMAND left one of
 * its own open, the held lines and the end's (summary) begin with a
 * newline; where its line is finished, none is added. Before, they were
 * glued to the program's text ("progress 99%sbx: denied ..."). */
Test(reports_stream, lines_in_a_shared_file_start_a_line_of_their_own)
{
	struct stream s;

	stream_open(&s, NULL, REPORTS_ENFORCE);
	reports_free(s.r);
	struct reports_cfg cfg = { .policy = s.p, .log_path = s.log_path, .run_id = "run-1",
				   .mode = REPORTS_ENFORCE, .out_fd = s.out_fd, .hold = true };
	cr_assert_eq(reports_new(&cfg, &s.r), 0);
	cr_assert_eq(write(s.out_fd, "prog: done\n", 11), 11);
	feed(&s, "SBX1 D write 2 sh /etc/one 30\n");
	reports_flush(s.r);
	cr_assert_eq(write(s.out_fd, "keep: ..", 8), 8);
	feed(&s, "SBX1 D write 2 sh /etc/two 30\n");
	reports_flush(s.r);
	cr_assert_eq(write(s.out_fd, "progress 99%", 12), 12);
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path);
	cr_assert(!strncmp(out, "prog: done\nsbx: denied write of /etc/one ", 41), "%s", out);
	assert_contains(out, "\nkeep: ..\nsbx: denied write of /etc/two ");
	assert_contains(out, "\nprogress 99%\nsbx: 2 denied writes");
	cr_assert_eq(str_count(out, "\n\n"), 0, "%s", out);
	free(out);
	stream_close(&s);
}

/* stderr a pipe that a program inside made non-blocking and filled
 * (issue 24): a flush while COMMAND runs writes nothing and loses nothing
 * -- the lines wait, and the loop is told to wait for room
 * (reports_room_fd) instead of being woken for them; once there is room
 * they go out in order, and the end writes what is left before the
 * summary. Before, the write said EAGAIN and the line was gone while the
 * summary, written later, counted it. */
Test(reports_stream, held_lines_wait_for_room_on_a_full_nonblocking_pipe)
{
	struct stream s;
	int p[2];
	char buf[4096], *got = NULL;
	size_t ngot = 0;
	FILE *m = open_memstream(&got, &ngot);

	cr_assert_eq(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	memset(buf, '.', sizeof(buf));
	while (write(p[1], buf, sizeof(buf)) > 0)
		;
	cr_assert_eq(errno, EAGAIN);
	stream_open(&s, NULL, REPORTS_ENFORCE);
	reports_free(s.r);
	struct reports_cfg cfg = { .policy = s.p, .log_path = s.log_path, .run_id = "run-1",
				   .mode = REPORTS_ENFORCE, .out_fd = p[1], .hold = true };
	cr_assert_eq(reports_new(&cfg, &s.r), 0);
	feed(&s, "SBX1 D write 2 sh /etc/one 30\n");
	feed(&s, "SBX1 D write 3 sh /etc/two 30\n");
	cr_assert(reports_pending(s.r));
	cr_assert_eq(reports_room_fd(s.r), -1, "nothing tried yet");
	reports_flush(s.r);
	cr_assert_not(reports_pending(s.r), "not pending: the loop would spin");
	cr_assert_eq(reports_room_fd(s.r), p[1], "waiting for room");
	/* the reader catches up, a page at a time (a line takes a page's
	 * slot of the pipe: the next waits for the next page) */
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(read(p[0], buf, sizeof(buf)), (ssize_t)sizeof(buf));
		reports_flush(s.r);
	}
	cr_assert_eq(reports_room_fd(s.r), -1);
	feed(&s, "SBX1 D write 4 sh /etc/three 30\n");
	/* the end waits for room as a blocking write would: read meanwhile */
	pid_t kid = fork();
	if (kid == 0) {
		reports_finish(s.r, 0);
		_exit(0);
	}
	close(p[1]);
	ssize_t n;
	for (;;) {
		n = read(p[0], buf, sizeof(buf));
		if (n > 0) {
			fwrite(buf, 1, (size_t)n, m);
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pf = { p[0], POLLIN, 0 };
			poll(&pf, 1, 1000);
			continue;
		}
		break;
	}
	int st;
	cr_assert_eq(waitpid(kid, &st, 0), kid);
	fclose(m);
	const char *one = strstr(got, "sbx: denied write of /etc/one"),
		   *two = strstr(got, "sbx: denied write of /etc/two"),
		   *three = strstr(got, "sbx: denied write of /etc/three"),
		   *sum = strstr(got, "sbx: 3 denied writes");
	cr_assert(one && two && three && sum && one < two && two < three && three < sum,
		  "every line, in order, before the summary: %s", got + strspn(got, "."));
	free(got);
	close(p[0]);
	stream_close(&s);
}

/* A refusal the boundary makes where no rule names the path (a
 * submodule's git directory): said to be the sandbox's, with no fix. */
/* A refusal the boundary makes where no rule names the path (a bare
 * repository's git directory): said to be the sandbox's, with no fix. */
Test(reports_stream, guarded_paths_are_explained_as_the_sandbox_s)
{
	struct stream s;
	char *const guarded[] = { "/w/bare.git/hooks" };

	stream_open(&s, NULL, REPORTS_ENFORCE);
	reports_free(s.r);
	struct reports_cfg cfg = { .policy = s.p, .log_path = s.log_path, .run_id = "run-1",
				   .mode = REPORTS_ENFORCE, .out_fd = s.out_fd,
				   .guarded = guarded, .nguarded = 1 };
	cr_assert_eq(reports_new(&cfg, &s.r), 0);
	feed(&s, "SBX1 D write 2 sh /w/bare.git/hooks/pre-commit 30\n");
	feed(&s, "SBX1 D write 3 sh /w/src/new.c 30\n");
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path);
	assert_contains(out, "denied write of /w/bare.git/hooks/pre-commit — the sandbox "
			     "keeps /w/bare.git/hooks read-only (it guards a git directory "
			     "or a protected file) — pid 2 sh\n");
	assert_contains(out, "/w/src/new.c — `allow_write = ");
	free(out);
	stream_close(&s);
}

Test(reports_stream, lines_split_across_calls_are_put_back_together)
{
	struct stream s;
	const char *text = "SBX1 D read 3 cat /home/u/.ssh/id_ed25519 13\n"
			   "SBX1 D write 2 sh /etc/foo 30\n"
			   "SBX1 A read 9 cat /w/src/main.c 0\n";

	stream_open(&s, NULL, REPORTS_TRACE);
	for (const char *c = text; *c; c++)
		reports_feed(s.r, c, 1);
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_contains(out, "sbx: denied read of ~/.ssh/id_ed25519");
	assert_contains(out, "sbx: denied write of /etc/foo");
	assert_contains(out, "sbx: trace: read /w/src/main.c — pid 9 cat\n");
	assert_contains(out, "sbx: 1 denied read, 1 denied write — see ");
	assert_not_contains(out, "malformed");
	cr_assert_eq(json_lines(log), 3);
	char *l = log_line_with(log, "/w/src/main.c");
	cr_assert_not_null(l);
	assert_contains(l, "\"decision\":\"allow\"");
	free(l);
	free(out);
	free(log);
	stream_close(&s);
}

Test(reports_stream, last_line_without_newline_is_still_taken)
{
	struct stream s;

	stream_open(&s, NULL, REPORTS_ENFORCE);
	feed(&s, "SBX1 D write 2 sh /etc/foo 30");
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path);
	assert_contains(out, "sbx: denied write of /etc/foo");
	assert_contains(out, "sbx: 1 denied write");
	free(out);
	stream_close(&s);
}

/* A line longer than macOS's FIFO takes whole comes as pieces (wire.h),
 * mixed with other lines, fed in any cut: joined, it is a report like
 * any; a joined line whose own pid is not its pieces' is malformed; a
 * line begun and never finished is a dropped report in the summary. */
Test(reports_stream, a_long_line_in_pieces_is_joined_and_an_unfinished_one_counted)
{
	struct stream s;
	static char target[1700], line[WIRE_MAX], all[8192];
	size_t n, o = 0, room = 512 - WIRE_PIECE_HEAD_MAX, off = 0;

	memcpy(target, "/home/u/.ssh/", 13);
	memset(target + 13, 'k', 1600);
	for (size_t i = 100; i < 1613; i += 100)
		target[i] = '/';
	target[1613] = '\0';
	n = wire_encode(line, WIRE_DENY, WIRE_READ, 9, "cat", target, 13) - 1;
	cr_assert_gt(n, 1024);
	unsigned np = (unsigned)((n + room - 1) / room);
	for (unsigned k = 1; k <= np; k++) {
		size_t m = n - off < room ? n - off : room;
		o += wire_piece(all + o, 9, 0xabcdef0123456789ULL, k, np, line + off, m);
		off += m;
		if (k == 1) /* another's whole line between two pieces */
			o += (size_t)sprintf(all + o, "SBX1 D write 3 sh /etc/between 30\n");
	}
	stream_open(&s, NULL, REPORTS_ENFORCE);
	for (size_t i = 0; i < o; i += 7)
		reports_feed(s.r, all + i, o - i < 7 ? o - i : 7);
	/* pieces of pid 4 that join into a line of pid 5's */
	feed(&s, "SBXP 4 0000000000000001 1 2 SBX1 D read 5 cat /home/u/.ssh/\n"
		 "SBXP 4 0000000000000001 2 2 liar 13\n");
	/* a line begun, never finished */
	feed(&s, "SBXP 6 0000000000000002 1 3 SBX1 D read 6 cat /home/u/.ssh/\n");
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	char shown[128];
	snprintf(shown, sizeof(shown), "sbx: denied read of ~/.ssh/%.40s", target + 13);
	assert_contains(out, shown);
	assert_contains(out, "sbx: denied write of /etc/between");
	cr_assert_null(strstr(out, "liar"), "a line whose pid lies was taken: %s", out);
	assert_contains(out, "1 report dropped");
	assert_contains(out, "1 malformed report line");
	/* the log has the whole target */
	char *rec = strstr(log, "\"target\":\"/home/u/.ssh/kkk");
	cr_assert_not_null(rec, "%s", log);
	cr_assert_not_null(strstr(rec, target + 1500), "the target cut: %.200s", rec);
	free(out);
	free(log);
	stream_close(&s);
}

Test(reports_stream, garbage_never_crashes_and_is_counted_as_malformed)
{
	struct stream s;
	size_t big = WIRE_MAX * 3;
	char *longline = malloc(big + 1);

	cr_assert_not_null(longline);
	stream_open(&s, NULL, REPORTS_ENFORCE);
	/* 1: an over-long line, fed in pieces, dropped to its newline; what
	 * follows that newline is a fresh line again */
	memset(longline, 'A', big);
	longline[big] = '\0';
	memcpy(longline, "SBX1 D read 3 cat /", 19);
	reports_feed(s.r, longline, WIRE_MAX - 10);
	reports_feed(s.r, longline + WIRE_MAX - 10, big - (WIRE_MAX - 10));
	feed(&s, "\nSBX1 D read 3 cat /home/u/.ssh/after-long 13\n");
	/* 2..7: malformed lines */
	feed(&s, "hello\n");
	feed(&s, "SBX1 D read 0 cat /home/u/.ssh/pid-zero 13\n");
	feed(&s, "SBX1 D read 3 cat relative/path 13\n");
	feed(&s, "SBX1 D read 3 cat /home/u/.ssh/x%00y 13\n");
	feed(&s, "SBX1 D read 3 cat /home/u/.ssh/id 13 trailing\n");
	static const char nul[] = "SBX1 D read 3 c\0t /home/u/.ssh/nul 13\n";
	reports_feed(s.r, nul, sizeof(nul) - 1);
	feed(&s, "SBX1 D write 2 sh /etc/ok-after-garbage 30\n");
	reports_finish(s.r, 0);

	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_contains(out, "sbx: denied read of ~/.ssh/after-long");
	assert_contains(out, "sbx: denied write of /etc/ok-after-garbage");
	assert_not_contains(out, "pid-zero");
	assert_not_contains(out, "relative/path");
	assert_not_contains(out, "AAAA");
	assert_contains(out, "sbx: 1 denied read, 1 denied write, 7 malformed report lines — see ");
	cr_assert_eq(str_count(log, "\"layer\":\"shim\""), 2, "only the two good reports are "
		     "logged: %s", log);
	cr_assert_eq(str_count(log, "\"notice\":\"malformed\""), 1, "malformed said once: %s", log);
	json_lines(log);
	free(out);
	free(log);
	free(longline);
	stream_close(&s);
}

Test(reports_stream, only_garbage_gives_a_summary_and_notices_in_the_log)
{
	struct stream s;

	stream_open(&s, NULL, REPORTS_ENFORCE);
	feed(&s, "not a report\nstill not\n");
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_contains(out, "sbx: 2 malformed report lines — see ");
	/* a forged stream is worth auditing: the first malformed line and
	 * the summary are notices, no report */
	cr_assert_eq(json_lines(log), 2, "%s", log);
	cr_assert_eq(str_count(log, "\"op\":\"notice\",\"notice\":\"malformed\""), 1, "%s", log);
	cr_assert_eq(str_count(log, "\"notice\":\"summary\""), 1, "%s", log);
	assert_contains(log, "\"malformed\":2,");
	assert_not_contains(log, "\"decision\"");
	free(out);
	free(log);
	stream_close(&s);
}

Test(reports_stream, dropped_reports_are_in_the_summary)
{
	struct stream s;

	stream_open(&s, NULL, REPORTS_ENFORCE);
	feed(&s, "SBX1 D read 3 cat /home/u/.ssh/id_ed25519 13\n");
	reports_finish(s.r, 5);
	char *out = slurp(s.out_path);
	assert_contains(out, "sbx: 1 denied read, 5 reports dropped (the supervisor fell behind)");
	free(out);
	stream_close(&s);
}

Test(reports_stream, clean_run_prints_nothing)
{
	struct stream s;

	stream_open(&s, NULL, REPORTS_ENFORCE);
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path);
	cr_assert_str_eq(out, "");
	free(out);
	stream_close(&s);
}

Test(reports_stream, odd_bytes_are_escaped_in_the_log)
{
	struct stream s;

	stream_open(&s, NULL, REPORTS_ENFORCE);
	/* a quote, a backslash, a stray byte, valid UTF-8 in the target; a
	 * newline and a tab in the process name (a program names itself) */
	feed(&s, "SBX1 D read 3 ca\"t%0A%09 /home/u/.ssh/a\"b\\c%FFf\xc3\xa9 13\n");
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(json_lines(log), 1, "%s", log);
	assert_contains(log, "\"target\":\"/home/u/.ssh/a\\\"b\\\\c\\ufffdf\xc3\xa9\"");
	assert_contains(log, "\"comm\":\"ca\\\"t\\n\\t\"");
	free(out);
	free(log);
	stream_close(&s);
}

/* out with control bytes shown as \xNN (a failure message must not clear
 * the screen of whoever runs the tests). */
static const char *visible(const char *out)
{
	static char buf[4096];
	size_t o = 0;

	for (; *out && o + 5 < sizeof(buf); out++) {
		unsigned char c = (unsigned char)*out;
		if (c == '\n' || c >= 0x20)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

Test(reports_stream, control_bytes_in_a_target_never_reach_the_terminal)
{
	struct stream s;

	/* Any sandboxed program chooses its file names: a newline must not
	 * forge a second `sbx:` line, an escape sequence must not drive the
	 * person's terminal. */
	stream_open(&s, NULL, REPORTS_ENFORCE);
	/* in a target: the line is refused (malformed), nothing printed */
	feed(&s, "SBX1 D read 3 cat /home/u/.ssh/x%0Asbx:%20all%20clear%1B[2J%07 13\n");
	/* in a process name: escaped */
	feed(&s, "SBX1 D read 3 e%1B]0;pwned%07 /home/u/.ssh/y 13\n");
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path);
	cr_assert_eq(str_count(out, "\n"), 2, "one report and the summary, one line each:\n%s",
		     visible(out));
	assert_contains(out, "— pid 3 e\\x1b]0;pwned\\x07\n");
	assert_contains(out, "1 malformed report line");
	cr_assert_eq(str_count(out, "\nsbx: all clear"), 0, "a forged line: %s", visible(out));
	for (const char *c = out; *c; c++)
		cr_assert(*c == '\n' || (unsigned char)*c >= 0x20,
			  "control byte 0x%02x on the terminal: %s", (unsigned char)*c, visible(out));
	free(out);
	stream_close(&s);
}

Test(reports_stream, ignore_paths_silences_stderr_but_logs_ignored)
{
	struct stream s;

	stream_open(&s, "[report]\nignore_paths = /w/build\nignore_domains = telemetry.example\n",
		     REPORTS_ENFORCE);
	/* not a normal path: malformed (it was once taken as under /w/build) */
	feed(&s, "SBX1 D write 3 make /w/build/../../etc/x 30\n");
	feed(&s, "SBX1 D write 3 make /w/build/out.o 30\n");
	feed(&s, "SBX1 D dns 4 node telemetry.example:443 0\n");
	feed(&s, "SBX1 D write 2 sh /etc/foo 30\n");
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_not_contains(out, "/w/build/out.o");
	assert_not_contains(out, "telemetry.example");
	assert_contains(out, "sbx: denied write of /etc/foo");
	cr_assert_eq(json_lines(log), 5, "%s", log);
	cr_assert_eq(str_count(log, "\"layer\":\"shim\""), 3, "%s", log);
	assert_contains(out, "1 malformed report line");
	char *l = log_line_with(log, "/w/build/out.o");
	cr_assert_not_null(l);
	assert_contains(l, "\"ignored\":true,\"quiet_rule\":\"ignore_paths = /w/build\","
			"\"quiet_source\":\"test.ini:2\"}");
	free(l);
	/* the summary counts the refusals said and, apart, those kept quiet */
	assert_contains(out, "sbx: 1 denied write, 2 expected refusals not shown (sbxctl status),");
	l = log_line_with(log, "telemetry.example");
	cr_assert_not_null(l);
	assert_contains(l, "\"ignored\":true");
	free(l);
	l = log_line_with(log, "/etc/foo");
	assert_contains(l, "\"ignored\":false");
	free(l);
	free(out);
	free(log);
	stream_close(&s);
}

struct each_ctx {
	size_t n;
	bool learned_notes;
};

static void each(void *c, const struct report_item *it)
{
	struct each_ctx *ctx = c;

	ctx->n++;
	if (it->decision == WIRE_LEARN && it->op == WIRE_WRITE && it->candidate &&
	    !strcmp(it->target, "/var/tmp/notes.txt"))
		ctx->learned_notes = true;
}

/* what main.c confines a --learn run by: the user's policy and /var/tmp,
 * not HOME (nothing of it changes on the host) */
#define RELAXED_INI "[filesystem]\nallow_write = /var/tmp\n"

Test(reports_stream, learn_mode_prints_denials_only_and_keeps_every_report)
{
	struct stream s;
	struct each_ctx ctx = { 0, false };
	struct stream_opts o = { .relaxed_ini = RELAXED_INI };

	stream_open_with(&s, NULL, REPORTS_LEARN, &o);
	feed(&s, "SBX1 L write 3 sh /var/tmp/notes.txt 0\n");
	feed(&s, "SBX1 L write 3 sh /var/tmp/notes.txt 0\n");
	feed(&s, "SBX1 A read 3 sh /w/a 0\n");
	feed(&s, "SBX1 D read 3 cat /home/u/.ssh/id_ed25519 13\n");
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	assert_not_contains(out, "would deny");
	assert_not_contains(out, "trace:");
	assert_contains(out, "sbx: denied read of ~/.ssh/id_ed25519");
	cr_assert_eq(json_lines(log), 4);
	assert_contains(log, "\"decision\":\"would-deny\"");
	reports_each(s.r, each, &ctx);
	cr_assert_eq(ctx.n, 3, "three distinct reports, got %zu", ctx.n);
	cr_assert(ctx.learned_notes);
	free(out);
	free(log);
	stream_close(&s);
}

/* ---- the stream is hostile: strict parsing (report_parse) */

struct parse_case {
	const char *why, *line;
	const char *target; /* NULL: malformed */
	int truncated;
};

Test(reports_parse, decodes_each_field_once_and_refuses_control_bytes_and_odd_paths)
{
	static const struct parse_case cases[] = {
		{ "a plain path", "SBX1 D read 3 cat /home/u/x 13", "/home/u/x", 0 },
		{ "the root", "SBX1 D read 3 cat / 13", "/", 0 },
		{ "%25 is a percent sign, decoded once", "SBX1 D write 3 sh /etc/a%250A 30",
		  "/etc/a%0A", 0 },
		{ "a space", "SBX1 D write 3 sh /etc/a%20b 30", "/etc/a b", 0 },
		{ "UTF-8 and stray bytes pass (replaced later)", "SBX1 D read 3 cat /w/\xc3\xa9\xff 13",
		  "/w/\xc3\xa9\xff", 0 },
		{ "a control byte in the process name is escaped later, not refused",
		  "SBX1 D read 3 c%1Bt /home/u/x 13", "/home/u/x", 0 },
		{ "a cut path may end in a slash", "SBX1 D read 3 cat /home/u/a/+ 13", "/home/u/a/", 1 },
		{ "a cut path may end in a dot", "SBX1 D read 3 cat /home/u/.+ 13", "/home/u/.", 1 },
		{ "a host", "SBX1 D dns 3 curl example.com:443 0", "example.com:443", 0 },
		{ "newline", "SBX1 D write 3 sh /home/u/a%0Aallow_read%20=%20~/.ssh 30", NULL, 0 },
		{ "carriage return", "SBX1 D write 3 sh /home/u/a%0D 30", NULL, 0 },
		{ "tab", "SBX1 D write 3 sh /home/u/a%09b 30", NULL, 0 },
		{ "escape", "SBX1 D write 3 sh /home/u/%1B[2J 30", NULL, 0 },
		{ "DEL", "SBX1 D write 3 sh /home/u/a%7F 30", NULL, 0 },
		{ "SOH", "SBX1 D write 3 sh /home/u/a%01 30", NULL, 0 },
		{ "a newline in a host", "SBX1 D dns 3 curl evil%0A.example 0", NULL, 0 },
		{ "..", "SBX1 D write 3 sh /w/build/../../etc/x 30", NULL, 0 },
		{ ". inside", "SBX1 D write 3 sh /etc/./x 30", NULL, 0 },
		{ "// inside", "SBX1 D write 3 sh /etc//x 30", NULL, 0 },
		{ "// at the start", "SBX1 D write 3 sh //etc/x 30", NULL, 0 },
		{ "a trailing / (mkdir: a directory being made)", "SBX1 D write 3 sh /etc/x/ 30", "/etc/x", 0 },
		{ "a trailing /.", "SBX1 D write 3 sh /etc/. 30", NULL, 0 },
		{ "a trailing /..", "SBX1 D write 3 sh /etc/.. 30", NULL, 0 },
		{ ".. made of escapes", "SBX1 D write 3 sh /etc/%2E%2E/x 30", NULL, 0 },
		{ "a / made of an escape", "SBX1 D write 3 sh /etc/%2F/x 30", NULL, 0 },
		{ "relative", "SBX1 D write 3 sh etc/x 30", NULL, 0 },
		{ "a cut path with .. before its end", "SBX1 D read 3 cat /a/../b+ 13", NULL, 0 },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct wire_report w;
		int rc = report_parse(cases[i].line, strlen(cases[i].line), &w);
		if (!cases[i].target) {
			cr_expect_neq(rc, 0, "accepted (%s): %s", cases[i].why, cases[i].line);
			continue;
		}
		cr_expect_eq(rc, 0, "refused (%s): %s", cases[i].why, cases[i].line);
		if (rc)
			continue;
		cr_expect_str_eq(w.target, cases[i].target, "%s", cases[i].why);
		cr_expect_eq(w.truncated, cases[i].truncated, "%s", cases[i].why);
	}
}

/* ---- the stream is hostile: text (report_utf8_next, report_printable,
 * report_json_string) */

struct utf8_case {
	const char *in;
	unsigned cp;
	size_t len;
};

Test(reports_text, utf8_next_takes_well_formed_characters_whole)
{
	static const struct utf8_case cases[] = {
		{ "a", 'a', 1 }, { "", 0, 0 }, { "\xc3\xa9", 0xe9, 2 }, { "\xc2\x9b", 0x9b, 2 },
		{ "\xe2\x82\xac", 0x20ac, 3 }, { "\xed\x9f\xbf", 0xd7ff, 3 },
		{ "\xee\x80\x80", 0xe000, 3 }, { "\xf0\x9f\x98\x80", 0x1f600, 4 },
		{ "\xf4\x8f\xbf\xbf", 0x10ffff, 4 }, { "\xef\xbf\xbd", 0xfffd, 3 },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		size_t len = 99;
		unsigned cp = report_utf8_next(cases[i].in, &len);
		cr_expect_eq(cp, cases[i].cp, "case %zu: U+%04X", i, cp);
		cr_expect_eq(len, cases[i].len, "case %zu: %zu bytes", i, len);
	}
}

Test(reports_text, utf8_next_makes_each_maximal_ill_formed_part_one_replacement)
{
	static const struct utf8_case cases[] = {
		{ "\xed\xa0\x80", 0xfffd, 1 },     /* a surrogate: ED, then A0, then 80 */
		{ "\xc0\x8a", 0xfffd, 1 },         /* an overlong newline */
		{ "\xc1\xbf", 0xfffd, 1 },
		{ "\xe0\x80\x80", 0xfffd, 1 },     /* overlong */
		{ "\xf0\x80\x80\x80", 0xfffd, 1 }, /* overlong */
		{ "\xf4\x90\x80\x80", 0xfffd, 1 }, /* past U+10FFFF */
		{ "\xf5\x80\x80\x80", 0xfffd, 1 },
		{ "\xff", 0xfffd, 1 },
		{ "\x80", 0xfffd, 1 },             /* a continuation alone */
		{ "\xe2\x82", 0xfffd, 2 },         /* cut at the end */
		{ "\xe2\x82" "A", 0xfffd, 2 },     /* cut before another character */
		{ "\xf0\x9f\x98", 0xfffd, 3 },
		{ "\xc3", 0xfffd, 1 },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		size_t len = 99;
		unsigned cp = report_utf8_next(cases[i].in, &len);
		cr_expect_eq(cp, cases[i].cp, "case %zu: U+%04X", i, cp);
		cr_expect_eq(len, cases[i].len, "case %zu: %zu bytes", i, len);
	}
}

#define FFFD "\xef\xbf\xbd"

struct text_case {
	const char *in, *out;
};

Test(reports_text, printable_replaces_ill_formed_bytes_and_escapes_every_control)
{
	/* the replacements are Python's bytes.decode("utf-8", "replace") */
	static const struct text_case cases[] = {
		{ "/home/u/caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "/home/u/caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "x\xed\xa0\x80\xc0\x8a\xf4\x90\x80\x80\xe2\x82",
		  "x" FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD },
		{ "a\x1b[2Jb\x07", "a\\x1b[2Jb\\x07" },
		{ "nl\nx", "nl\\x0ax" },
		{ "del\x7f", "del\\x7f" },
		{ "csi\xc2\x9b" "31m", "csi\\u009b31m" },
		{ "nel\xc2\x85 pad\xc2\x80", "nel\\u0085 pad\\u0080" },
		{ "rlo\xe2\x80\xae" "fdp.exe", "rlo\\u202efdp.exe" },
		{ "lri\xe2\x81\xa6", "lri\\u2066" },
		{ "a\\x1b", "a\\\\x1b" }, /* a backslash cannot pass for an escape */
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char out[256];
		size_t n = report_printable(cases[i].in, out, sizeof(out), true);
		cr_expect_str_eq(out, cases[i].out, "case %zu", i);
		cr_expect_eq(n, strlen(out));
	}
	char out[64];
	report_printable("a\\b", out, sizeof(out), false);
	cr_expect_str_eq(out, "a\\b", "backslashes kept when asked");
}

Test(reports_text, printable_cuts_between_characters_never_inside_one)
{
	char out[8];

	cr_assert_eq(report_printable("ab\xe2\x82\xac" "c", out, 5, true), 2);
	cr_assert_str_eq(out, "ab");
	cr_assert_eq(report_printable("ab\xe2\x82\xac" "c", out, 6, true), 5);
	cr_assert_str_eq(out, "ab\xe2\x82\xac");
	cr_assert_eq(report_printable("ab\x1b", out, 6, true), 2, "an escape whole or not at all");
	cr_assert_str_eq(out, "ab");
	cr_assert_eq(report_printable("abc", out, 1, true), 0);
	cr_assert_str_eq(out, "");
}

static char *json_of(const char *in)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	report_json_string(f, in);
	fclose(f);
	return text;
}

Test(reports_text, json_string_is_strict_utf8_with_every_control_escaped)
{
	static const struct text_case cases[] = {
		{ "plain /home/u/x", "\"plain /home/u/x\"" },
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
		{ "\n\t\x01\x1b\x7f", "\"\\n\\t\\u0001\\u001b\\u007f\"" },
		{ "\xc2\x80\xc2\x9b\xc2\x9f", "\"\\u0080\\u009b\\u009f\"" },
		{ "\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xae", "\"\\u2028\\u2029\\u202e\"" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },
		{ "\xc0\x8a", "\"\\ufffd\\ufffd\"" },
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
		{ "cut\xe2\x82", "\"cut\\ufffd\"" },
		{ "caf\xc3\xa9 " FFFD, "\"caf\xc3\xa9 " FFFD "\"" },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *j = json_of(cases[i].in);
		cr_expect_str_eq(j, cases[i].out, "case %zu", i);
		free(j);
	}
}

/* ---- the stream is hostile: the decision is the supervisor's */

Test(reports_stream, forged_allow_under_trace_is_logged_as_the_supervisors_deny_with_the_claim)
{
	struct stream s;

	stream_open(&s, NULL, REPORTS_TRACE);
	feed(&s, "SBX1 A read 3 cat /home/u/.ssh/id_ed25519 0\n");
	feed(&s, "SBX1 A read 3 cat /w/src/main.c 0\n");
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	char *l = log_line_with(log, "id_ed25519");
	cr_assert_not_null(l, "%s", log);
	assert_contains(l, "\"decision\":\"deny\",\"claimed\":\"allow\",\"rule\":\"deny_read = ~/.ssh\"");
	free(l);
	l = log_line_with(log, "main.c");
	assert_contains(l, "\"decision\":\"allow\"");
	assert_not_contains(l, "claimed");
	free(l);
	assert_contains(out, "sbx: denied read of ~/.ssh/id_ed25519 by `deny_read = ~/.ssh`");
	assert_contains(out, "(reported as allowed; the policy denies it) — pid 3 cat\n");
	assert_not_contains(out, "trace: read ~/.ssh");
	assert_contains(out, "sbx: 1 denied read, 1 report the policy contradicts");
	free(out);
	free(log);
	stream_close(&s);
}

Test(reports_stream, lines_a_mode_never_sends_are_malformed)
{
	struct stream s;

	/* without --trace no shim sends `A`, without --learn no `L` */
	stream_open(&s, NULL, REPORTS_ENFORCE);
	feed(&s, "SBX1 A read 3 cat /w/a 0\n");
	feed(&s, "SBX1 L write 3 sh /home/u/x 0\n");
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(str_count(log, "\"layer\":\"shim\""), 0, "%s", log);
	assert_contains(out, "sbx: 2 malformed report lines");
	free(out);
	free(log);
	stream_close(&s);

	stream_open(&s, NULL, REPORTS_TRACE);
	feed(&s, "SBX1 L write 3 sh /home/u/x 0\n");
	reports_finish(s.r, 0);
	out = slurp(s.out_path);
	assert_contains(out, "sbx: 1 malformed report line");
	free(out);
	stream_close(&s);
}

struct items {
	size_t n;
	struct {
		char decision;
		enum wire_op op;
		char target[128];
		bool candidate;
	} v[32];
};

static void collect_items(void *c, const struct report_item *it)
{
	struct items *x = c;

	if (x->n < ARRAY_LEN(x->v)) {
		x->v[x->n].decision = it->decision;
		x->v[x->n].op = it->op;
		snprintf(x->v[x->n].target, sizeof(x->v[x->n].target), "%s", it->target);
		x->v[x->n].candidate = it->candidate;
	}
	x->n++;
}

/* The item for (op, target), asserting there is exactly one. */
static const char *item(const struct items *x, enum wire_op op, const char *target,
			bool *candidate)
{
	static char d[2];
	size_t found = 0;

	for (size_t i = 0; i < x->n && i < ARRAY_LEN(x->v); i++)
		if (x->v[i].op == op && !strcmp(x->v[i].target, target)) {
			d[0] = x->v[i].decision;
			*candidate = x->v[i].candidate;
			found++;
		}
	cr_assert_eq(found, 1, "%s %s: %zu items", wire_op_name(op), target, found);
	return d;
}

struct learn_case {
	const char *line;
	enum wire_op op;
	const char *target;
	const char *decision;
	bool candidate;
};

Test(reports_learn, only_what_the_relaxed_run_allowed_and_no_rule_names_is_a_candidate)
{
	static const struct learn_case cases[] = {
		/* genuine: outside the writable paths, refused in HOME and
		 * recorded (the learning run writes nothing there) */
		{ "SBX1 L write 3 sh /home/u/notes.txt 0", WIRE_WRITE, "/home/u/notes.txt", "D", true },
		{ "SBX1 L write 3 sh /home/u/.cache/x/y 0", WIRE_WRITE, "/home/u/.cache/x/y", "D", true },
		/* inside the learning run's writable paths */
		{ "SBX1 L write 3 sh /var/tmp/x 0", WIRE_WRITE, "/var/tmp/x", "L", true },
		{ "SBX1 L dns 3 curl github.com:443 0", WIRE_DNS, "github.com:443", "L", true },
		{ "SBX1 L dns 3 curl Pypi.Org. 0", WIRE_DNS, "Pypi.Org.", "L", true },
		/* the learning run's boundary refuses these: they did not happen */
		{ "SBX1 L write 3 sh /etc/cron.d/evil 0", WIRE_WRITE, "/etc/cron.d/evil", "D", false },
		{ "SBX1 L write 3 sh /etc 0", WIRE_WRITE, "/etc", "D", false },
		{ "SBX1 L write 3 sh /home/u/.bashrc 0", WIRE_WRITE, "/home/u/.bashrc", "D", false },
		{ "SBX1 L write 3 sh /home/u/.ssh/authorized_keys 0", WIRE_WRITE,
		  "/home/u/.ssh/authorized_keys", "D", false },
		{ "SBX1 L read 3 sh /home/u/.aws/credentials 0", WIRE_READ,
		  "/home/u/.aws/credentials", "D", false },
		/* a rule of the user's names it: theirs to lift, never learned */
		{ "SBX1 L write 3 sh /home/u/keep/x 0", WIRE_WRITE, "/home/u/keep/x", "D", false },
		{ "SBX1 L dns 3 curl blocked.example 0", WIRE_DNS, "blocked.example", "L", false },
		/* not a host name allow_domains should get */
		{ "SBX1 L dns 3 curl *:443 0", WIRE_DNS, "*:443", "L", false },
		{ "SBX1 L dns 3 curl *.evil.example 0", WIRE_DNS, "*.evil.example", "L", false },
		{ "SBX1 L dns 3 curl 10.0.0.1:80 0", WIRE_DNS, "10.0.0.1:80", "L", false },
		{ "SBX1 L dns 3 curl [2001:db8::1]:443 0", WIRE_DNS, "[2001:db8::1]:443", "L", false },
		{ "SBX1 L dns 3 curl -bad.example 0", WIRE_DNS, "-bad.example", "L", false },
		{ "SBX1 L dns 3 curl a..example 0", WIRE_DNS, "a..example", "L", false },
		/* a cut path is not what was written */
		{ "SBX1 L write 3 sh /home/u/cut/pa+ 0", WIRE_WRITE, "/home/u/cut/pa", "D", false },
		/* a connect by address: listed, never learned */
		{ "SBX1 L connect 3 curl 10.0.0.1:80 0", WIRE_CONNECT, "10.0.0.1:80", "L", false },
		/* refused, said so: not would-deny */
		{ "SBX1 D dns 3 curl denied.example 0", WIRE_DNS, "denied.example", "D", false },
		/* the policy allows it: no would-deny, whatever the line says */
		{ "SBX1 L write 3 sh /w/ok 0", WIRE_WRITE, "/w/ok", "A", false },
	};
	struct stream s;
	struct stream_opts o = { .relaxed_ini = RELAXED_INI };
	struct items x = { 0 };

	stream_open_with(&s, "[filesystem]\ndeny_write = ~/keep\n[network]\n"
			     "deny_domains = blocked.example\n", REPORTS_LEARN, &o);
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		feed(&s, cases[i].line);
		feed(&s, "\n");
	}
	reports_finish(s.r, 0);
	reports_each(s.r, collect_items, &x);
	cr_assert_eq(x.n, ARRAY_LEN(cases));
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		bool cand;
		const char *d = item(&x, cases[i].op, cases[i].target, &cand);
		cr_expect_str_eq(d, cases[i].decision, "%s: decision", cases[i].line);
		cr_expect_eq(cand, cases[i].candidate, "%s: candidate %d", cases[i].line, cand);
	}
	char *log = slurp(s.log_path);
	char *l = log_line_with(log, "cron.d");
	assert_contains(l, "\"decision\":\"deny\",\"claimed\":\"would-deny\"");
	free(l);
	free(log);
	stream_close(&s);
}

Test(reports_learn, learned_file_gets_settings_from_candidates_only)
{
	struct stream s;
	struct stream_opts o = { .relaxed_ini = RELAXED_INI };
	char path[PATH_MAX];
	char *const command[] = { "sh", NULL };

	stream_open_with(&s, NULL, REPORTS_LEARN, &o);
	feed(&s, "SBX1 L write 3 sh /home/u/notes.txt 0\n"
		 "SBX1 L write 3 sh /etc/cron.d/evil 0\n"
		 "SBX1 L write 3 sh /home/u/.bashrc 0\n"
		 "SBX1 L write 3 sh /home/u/x%0Aallow_read%20=%20~/.ssh 0\n"
		 "SBX1 L dns 3 sh *:443 0\n"
		 "SBX1 L dns 3 sh evil%0Aallow_domains%20=%20* 0\n"
		 "SBX1 D dns 3 sh denied.example 0\n"
		 "SBX1 L dns 3 sh github.com:443 0\n");
	reports_finish(s.r, 0);
	snprintf(path, sizeof(path), "%s/learned.ini", s.dir);
	struct learn_in in = { .policy = s.p, .reports = s.r, .user_file = "",
			       .command = command };
	struct hostfs_err herr;
	cr_assert_eq(learn_write(&in, path, &herr), 0, "%s", herr.msg);
	char *ini = slurp(path);
	/* the settings: every line that is not a comment */
	char settings[4096] = "";
	for (char *line = strtok(ini, "\n"); line; line = strtok(NULL, "\n"))
		if (line[0] != ';') {
			strncat(settings, line, sizeof(settings) - strlen(settings) - 2);
			strcat(settings, "|");
		}
	cr_assert_str_eq(settings, "[filesystem]|allow_write = ~/notes.txt|[network]|"
				   "allow_domains = github.com|");
	free(ini);
	stream_close(&s);
}

/* ---- the stream is hostile: a flood costs bounded memory, lines, bytes */

static size_t count_items(const struct reports *r)
{
	struct items x = { 0 };

	reports_each(r, collect_items, &x);
	return x.n;
}

Test(reports_flood, the_table_of_distinct_reports_is_bounded_and_says_so_once)
{
	struct stream s;
	struct stream_opts o = { .limits = { .seen_max = 3 } };
	char line[128];

	stream_open_with(&s, NULL, REPORTS_ENFORCE, &o);
	for (int i = 0; i < 10; i++) {
		snprintf(line, sizeof(line), "SBX1 D write 2 sh /etc/t%d 30\n", i);
		feed(&s, line);
	}
	feed(&s, "SBX1 D write 2 sh /etc/t0 30\n"); /* a repeat still folds */
	cr_assert_eq(count_items(s.r), 3);
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(str_count(out, "sbx: 3 distinct reports: later new ones are not folded"), 1,
		     "%s", out);
	cr_assert_eq(str_count(log, "\"notice\":\"table-full\""), 1, "%s", log);
	assert_contains(out, "/etc/t0 — outside the writable paths (allow it with --allow-write "
			     "/etc/t0 once the file exists (sbx creates only directories, named "
			     "with a trailing /)) (x1 more)\n");
	assert_contains(out, "7 reports not folded (too many distinct)");
	cr_assert_eq(str_count(log, "\"layer\":\"shim\""), 11, "every report is still logged");
	json_lines(log);
	free(out);
	free(log);
	stream_close(&s);
}

Test(reports_flood, the_table_is_bounded_in_bytes_too)
{
	struct stream s;
	struct stream_opts o = { .limits = { .seen_bytes = 16 * 1024 } };
	char *line = malloc(WIRE_MAX);

	cr_assert_not_null(line);
	stream_open_with(&s, NULL, REPORTS_ENFORCE, &o);
	for (int i = 0; i < 40; i++) {
		int n = snprintf(line, WIRE_MAX, "SBX1 D write 2 sh /etc/%02d/", i);
		memset(line + n, 'y', 3000);
		strcpy(line + n + 3000, " 30\n");
		feed(&s, line);
	}
	size_t n = count_items(s.r);
	cr_assert(n >= 1 && n <= 3, "%zu reports of ~3 KiB kept in 16 KiB", n);
	free(line);
	stream_close(&s);
}

Test(reports_flood, terminal_lines_are_rate_limited_and_that_is_said_once)
{
	struct stream s;
	struct stream_opts o = { .limits = { .say_burst = 5, .say_per_sec = 2 },
				 .fake_clock = true };
	char line[128];

	stream_open_with(&s, NULL, REPORTS_ENFORCE, &o);
	for (int i = 0; i < 20; i++) {
		snprintf(line, sizeof(line), "SBX1 D write 2 sh /etc/a%d 30\n", i);
		feed(&s, line);
	}
	fake_now += 1000; /* a second later: two more */
	for (int i = 0; i < 5; i++) {
		snprintf(line, sizeof(line), "SBX1 D write 2 sh /etc/b%d 30\n", i);
		feed(&s, line);
	}
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(str_count(out, "sbx: denied write of /etc/a"), 5, "%s", out);
	cr_assert_eq(str_count(out, "sbx: denied write of /etc/b"), 2, "%s", out);
	cr_assert_eq(str_count(out, "more than 2 report lines a second"), 1, "%s", out);
	cr_assert_eq(str_count(log, "\"notice\":\"terminal-rate\""), 1, "%s", log);
	assert_contains(out, "18 report lines not shown (too many a second)");
	cr_assert_eq(str_count(log, "\"layer\":\"shim\""), 25, "the log keeps them all");
	free(out);
	free(log);
	stream_close(&s);
}

Test(reports_flood, log_records_are_rate_limited_and_that_is_said_once)
{
	struct stream s;
	struct stream_opts o = { .limits = { .log_burst = 4, .log_per_sec = 1 },
				 .fake_clock = true };
	char line[128];

	stream_open_with(&s, NULL, REPORTS_ENFORCE, &o);
	for (int i = 0; i < 10; i++) {
		snprintf(line, sizeof(line), "SBX1 D write 2 sh /etc/a%d 30\n", i);
		feed(&s, line);
	}
	fake_now += 2000;
	feed(&s, "SBX1 D write 2 sh /etc/later 30\n");
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(str_count(log, "\"layer\":\"shim\""), 5, "%s", log);
	assert_contains(log, "/etc/later");
	cr_assert_eq(str_count(log, "\"notice\":\"log-rate\""), 1, "%s", log);
	cr_assert_eq(str_count(out, "more than 1 reports a second"), 1, "%s", out);
	assert_contains(out, "6 reports not logged (a cap)");
	assert_contains(log, "\"not_logged\":6");
	json_lines(log);
	free(out);
	free(log);
	stream_close(&s);
}

Test(reports_flood, the_log_grows_at_most_by_the_runs_cap)
{
	struct stream s;
	struct stream_opts o = { .limits = { .log_max = 4096 } };
	char line[256];
	struct stat st;

	stream_open_with(&s, NULL, REPORTS_ENFORCE, &o);
	for (int i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "SBX1 D write 2 sh /etc/%03d 30\n", i);
		feed(&s, line);
	}
	cr_assert_eq(stat(s.log_path, &st), 0);
	cr_assert_leq(st.st_size, 4096 + 512, "log %lld bytes", (long long)st.st_size);
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path), *log = slurp(s.log_path);
	cr_assert_eq(str_count(out, "sbx: the audit log reached this run's cap (4 KiB)"), 1, "%s", out);
	cr_assert_eq(str_count(log, "\"notice\":\"log-cap\""), 1, "%s", log);
	/* nothing but the summary after the cap */
	char *cap = strstr(log, "\"notice\":\"log-cap\"");
	cr_assert_eq(str_count(cap, "\"layer\":\"shim\""), 0);
	cr_assert_eq(str_count(cap, "\n"), 2, "the cap notice and the summary: %s", cap);
	json_lines(log);
	free(out);
	free(log);
	stream_close(&s);
}

Test(reports_flood, repeats_at_exit_are_bounded_too)
{
	struct stream s;
	struct stream_opts o = { .limits = { .fold_lines = 2 }, .fake_clock = true };
	char line[128];

	stream_open_with(&s, NULL, REPORTS_ENFORCE, &o);
	for (int i = 0; i < 5; i++) {
		snprintf(line, sizeof(line), "SBX1 D write 2 sh /etc/r%d 30\n", i);
		feed(&s, line);
		feed(&s, line);
		fake_now += 1000;
	}
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path);
	cr_assert_eq(str_count(out, " (x1 more)\n"), 2, "%s", out);
	assert_contains(out, "sbx: and 3 more refusals repeated (see the log)\n");
	free(out);
	stream_close(&s);
}

/* A forged line sent while the terminal's budget is spent is not shown;
 * the real refusals of its key that come later fold into it. They must
 * still reach the terminal once (the shim's, and the notify layer's own
 * decision, which keys alike), or anything in the sandbox could hide a
 * refusal it is about to cause (before: 0 lines for the key). */
Test(reports_flood, a_repeat_of_a_line_never_shown_is_said_once_the_budget_allows)
{
	struct stream s;
	struct stream_opts o = { .limits = { .say_burst = 5, .say_per_sec = 2 },
				 .fake_clock = true };
	char line[128];

	stream_open_with(&s, NULL, REPORTS_ENFORCE, &o);
	for (int i = 0; i < 5; i++) { /* the budget spent */
		snprintf(line, sizeof(line), "SBX1 D write 2 sh /etc/a%d 30\n", i);
		feed(&s, line);
	}
	feed(&s, "SBX1 D read 3 cat /home/u/.ssh/id_ed25519 13\n");    /* forged */
	feed(&s, "SBX1 D write 3 sh /w/.git/hooks/pre-commit 30\n"); /* forged */
	fake_now += 1000;
	feed(&s, "SBX1 D read 4 cat /home/u/.ssh/id_ed25519 13\n");    /* real */
	reports_event(s.r, &(struct event){ .what = EVENT_ACCESS, .layer = EVENT_NOTIFY,
					    .decision = WIRE_DENY, .op = WIRE_WRITE,
					    .target = "/w/.git/hooks/pre-commit", .pid = 5,
					    .comm = "hook", .err = EACCES });
	feed(&s, "SBX1 D read 6 cat /home/u/.ssh/id_ed25519 13\n"); /* shown: folded */
	reports_finish(s.r, 0);
	char *out = slurp(s.out_path);
	/* each said once, by its first real one, and folded at the end */
	cr_assert_eq(str_count(out, "sbx: denied read of ~/.ssh/id_ed25519 by"), 2, "%s", out);
	assert_contains(out, "/id_ed25519) — pid 4 cat\n");
	cr_assert_eq(str_count(out, "sbx: denied write of /w/.git/hooks/pre-commit"), 2, "%s", out);
	assert_contains(out, "lifts it) — pid 5 hook (seccomp)\n");
	assert_contains(out, "lifts it) (x1 more)\n");
	assert_contains(out, "~/.ssh/id_ed25519 by `deny_read = ~/.ssh` (built-in default) (allow it "
			"with --allow-read ~/.ssh/id_ed25519) (x2 more)\n");
	assert_contains(out, "2 report lines not shown (too many a second)");
	free(out);
	stream_close(&s);
}
