/* tests/unit/policy_gitconfig.c: git's config files as git reads them
 * (policy/gitconfig.c), and which changes to them a sandboxed git may
 * make (docs/POLICY.md, "Git's config files"). The expected keys were
 * checked against `git config --file F --list` (git 2.39). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

static struct gitcfg *parse(const char *text)
{
	struct gitcfg *g = NULL;
	struct gitcfg_err err;
	int rc = gitcfg_parse(text, strlen(text), &g, &err);

	cr_assert_eq(rc, 0, "parse failed at line %u: %s\n%s", err.line, err.msg, text);
	return g;
}

/* "key=value\n" per entry, "key\n" for a key alone */
static void listing(const struct gitcfg *g, char *out, size_t outsz)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < gitcfg_count(g); i++) {
		const char *v = gitcfg_value(g, i);
		n += (size_t)snprintf(out + n, outsz - n, "%s%s%s\n", gitcfg_key(g, i), v ? "=" : "",
				      v ? v : "");
	}
}

struct parse_case {
	const char *text;
	const char *list;
};

static struct parse_case parse_cases[] = {
	{ "[core]\n\tbare = false\n", "core.bare=false\n" },
	{ "[Core] FsMonitor = x\n", "core.fsmonitor=x\n" },
	{ "[core]fsmonitor=x", "core.fsmonitor=x\n" },
	{ "[remote \"Origin\"]\n url = a b  c # note\n", "remote.Origin.url=a b  c\n" },
	{ "[core.X]\nk=v\n", "core.x.k=v\n" },
	{ "[a \"q\\\"uo\\\\te\\x\"]\nk=v\n", "a.q\"uo\\tex.k=v\n" },
	{ "[s]\nk = \"  quoted ; # \" tail ; c\n", "s.k=  quoted ; #  tail\n" },
	{ "[s]\nk = one\\\n two\n", "s.k=one two\n" },
	{ "[s]\nk = a\\tb\\nc\\\\d\\\"e\n", "s.k=a\tb\nc\\d\"e\n" },
	{ "[s]\nflag\nk\t=\tv\r\n", "s.flag\ns.k=v\n" },
	{ "\xef\xbb\xbf[s]\nk=v\n", "s.k=v\n" },
	{ "; only a comment\n# another\n\n", "" },
	{ "[s]\nk = a\tb\n", "s.k=a b\n" },
	{ "[s]\nk =\n", "s.k=\n" },
	{ "[s]\nk=v\\", "s.k=v\n" },
	{ "[x \"y\"] [z] k = 1", "z.k=1\n" },
};

ParameterizedTestParameters(policy_gitconfig, parsed_as_git_lists_it)
{
	return cr_make_param_array(struct parse_case, parse_cases,
				   sizeof(parse_cases) / sizeof(parse_cases[0]));
}

ParameterizedTest(struct parse_case *pc, policy_gitconfig, parsed_as_git_lists_it)
{
	char out[1024];
	struct gitcfg *g = parse(pc->text);

	listing(g, out, sizeof(out));
	cr_expect_str_eq(out, pc->list, "for:\n%s", pc->text);
	gitcfg_free(g);
}

struct bad_case {
	const char *text;
	unsigned line;
};

/* what git refuses too ("bad config line N") */
static struct bad_case bad_cases[] = {
	{ "[core\n", 1 },
	{ "[]\n", 1 },
	{ "[s \"x\n\"]\n", 1 },
	{ "[s \"x\" ]\n", 1 },
	{ "[s]\nk = \"open\n", 2 },
	{ "[s]\nk = bad\\q\n", 2 },
	{ "[s]\n1k = v\n", 2 },
	{ "[s]\nk ; v\n", 2 },
	{ "[s]\n\vk = v\n", 2 },
	{ "[s]\n=v\n", 2 },
	{ "\xef\xbb[s]\n", 1 },
};

ParameterizedTestParameters(policy_gitconfig, malformed_is_an_error_with_its_line)
{
	return cr_make_param_array(struct bad_case, bad_cases,
				   sizeof(bad_cases) / sizeof(bad_cases[0]));
}

ParameterizedTest(struct bad_case *bc, policy_gitconfig, malformed_is_an_error_with_its_line)
{
	struct gitcfg *g = (struct gitcfg *)1;
	struct gitcfg_err err = { 0 };

	cr_expect_eq(gitcfg_parse(bc->text, strlen(bc->text), &g, &err), -EINVAL, "%s", bc->text);
	cr_expect_null(g);
	cr_expect_eq(err.line, bc->line, "line %u, not %u: %s", err.line, bc->line, bc->text);
	cr_expect(err.msg[0]);
}

Test(policy_gitconfig, a_nul_byte_and_a_huge_file_are_refused_not_parsed)
{
	struct gitcfg *g;
	struct gitcfg_err err;
	size_t big = (1u << 20) + 1;
	char *buf = malloc(big);

	cr_assert(buf);
	cr_expect_eq(gitcfg_parse("[s]\nk=a\0b\n", 10, &g, &err), -EINVAL);
	memset(buf, '#', big);
	cr_expect_eq(gitcfg_parse(buf, big, &g, &err), -E2BIG);
	free(buf);
}

Test(policy_gitconfig, every_prefix_of_a_config_parses_or_fails_cleanly)
{
	const char *text = "\xef\xbb\xbf[core \"a\\\"b\"]\n\tfsmonitor = \"x ; y\" # c\\\n"
			   "[remote.o]url=u\\\n v\n[s]k\n";
	size_t n = strlen(text);

	for (size_t i = 0; i <= n; i++) {
		char *copy = malloc(i ? i : 1); /* exactly i bytes: ASan sees a read past */
		struct gitcfg *g = NULL;
		struct gitcfg_err err;
		memcpy(copy, text, i);
		int rc = gitcfg_parse(copy, i, &g, &err);
		cr_expect(rc == 0 || rc == -EINVAL, "prefix %zu: %d", i, rc);
		gitcfg_free(g);
		free(copy);
	}
}

struct change_case {
	const char *old, *new;
	const char *key; /* NULL: allowed */
};

static struct change_case change_cases[] = {
	/* everyday */
	{ "[core]\n\tbare = false\n", "[core]\n\tbare = false\n[user]\n\temail = x@y\n", NULL },
	{ "[core]\n\tbare = false\n", "[core]\n\tbare = false\n[remote \"up\"]\n\turl = https://h/x\n"
	  "\tfetch = +refs/heads/*:refs/remotes/up/*\n", NULL },
	{ "", "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", NULL },
	{ "[submodule \"lib\"]\n\tactive = true\n", "[submodule \"lib\"]\n\tactive = true\n\turl = ../lib\n", NULL },
	{ "[submodule \"lib\"]\n\tupdate = checkout\n", "[submodule \"lib\"]\n\tupdate = rebase\n", NULL },
	{ "[core]\n\tpager = less\n[user]\n\tname = a\n", "[user]\n\tname = b\n[core]\n\tpager = less\n", NULL },
	{ "[core]\n\tfsmonitor = x\n", "[core]\n# a comment now\n\tfsmonitor = \"x\"\n", NULL },
	{ "[lfs]\n\trepositoryformatversion = 0\n", "", NULL },
	/* a key that runs a program or loads a file, added, changed or removed */
	{ "[core]\n\tbare = false\n", "[core]\n\tbare = false\n\tfsmonitor = touch /tmp/p\n", "core.fsmonitor" },
	{ "", "[Core] FsMonitor = x\n", "core.fsmonitor" },
	{ "", "[core]\n\thooksPath = .githooks\n", "core.hookspath" },
	{ "[core]\n\tpager = less\n", "[core]\n\tpager = evil\n", "core.pager" },
	{ "[core]\n\tpager = less\n", "", "core.pager" },
	{ "", "[core]\n\tsshCommand = x\n", "core.sshcommand" },
	{ "", "[credential]\n\thelper = !x\n", "credential.helper" },
	{ "", "[credential \"https://h\"]\n\thelper = x\n", "credential.https://h.helper" },
	{ "", "[filter \"lfs\"]\n\tsmudge = x\n", "filter.lfs.smudge" },
	{ "", "[diff \"a.b\"]\n\ttextconv = x\n", "diff.a.b.textconv" },
	{ "", "[diff]\n\texternal = x\n", "diff.external" },
	{ "", "[merge \"m\"]\n\tdriver = x\n", "merge.m.driver" },
	{ "", "[alias]\n\tco = !sh -c x\n", "alias.co" },
	{ "", "[alias]\n\tst = -c core.pager=x status\n", "alias.st" },
	{ "", "[include]\n\tpath = ../x\n", "include.path" },
	{ "", "[includeIf \"gitdir:/\"]\n\tpath = x\n", "includeif.gitdir:/.path" },
	{ "", "[gpg \"ssh\"]\n\tprogram = x\n", "gpg.ssh.program" },
	{ "", "[sequence]\n\teditor = x\n", "sequence.editor" },
	{ "", "[remote \"o\"]\n\tuploadpack = x\n", "remote.o.uploadpack" },
	{ "", "[remote \"o\"]\n\treceivepack = x\n", "remote.o.receivepack" },
	{ "", "[protocol \"ext\"]\n\tallow = always\n", "protocol.ext.allow" },
	{ "", "[submodule \"lib\"]\n\tupdate = !touch /tmp/p\n", "submodule.lib.update" },
	{ "", "[pager]\n\tlog = x\n", "pager.log" },
	{ "", "[http \"https://h.example/\"]\n\tsslCert = /x\n", "http.https://h.example/.sslcert" },
	{ "", "[lfs \"customtransfer.x\"]\n\tpath = x\n", "lfs.customtransfer.x.path" },
	{ "", "[init]\n\ttemplateDir = x\n", "init.templatedir" },
	{ "", "[tar \"tgz\"]\n\tcommand = x\n", "tar.tgz.command" },
	{ "", "[annex]\n\tweb-download-command = x\n", "annex.web-download-command" },
	/* the old way of writing a subsection: still the key git reads */
	{ "", "[diff.x]\n\ttextconv = y\n", "diff.x.textconv" },
	/* a key with no section before it is nothing to git: harmless */
	{ "", "fsmonitor = x\n", NULL },
	/* a subsection under core is not core's key */
	{ "", "[core \"x\"]\n\tfsmonitor = y\n", NULL },
};

ParameterizedTestParameters(policy_gitconfig, change_allowed_only_without_a_kept_key)
{
	return cr_make_param_array(struct change_case, change_cases,
				   sizeof(change_cases) / sizeof(change_cases[0]));
}

ParameterizedTest(struct change_case *cc, policy_gitconfig, change_allowed_only_without_a_kept_key)
{
	struct gitcfg *o = parse(cc->old), *n = parse(cc->new);
	char key[256] = "";
	const struct gitcfg_row *row = NULL;
	int rc = gitcfg_risky_change(o, n, key, sizeof(key), &row);

	if (!cc->key) {
		cr_expect_eq(rc, 0, "refused %s for\n%s---\n%s", key, cc->old, cc->new);
	} else {
		cr_expect_eq(rc, 1, "allowed:\n%s---\n%s", cc->old, cc->new);
		cr_expect_str_eq(key, cc->key);
		cr_expect(row && row->does && row->does[0]);
	}
	gitcfg_free(o);
	gitcfg_free(n);
}

Test(policy_gitconfig, core_worktree_may_not_change)
{
	struct gitcfg *o = parse("[core]\n\tbare = false\n\tworktree = ../../../lib\n");
	struct gitcfg *same = parse("[core]\n\tbare = false\n\tfilemode = true\n\tworktree = ../../../lib\n");
	struct gitcfg *far = parse("[core]\n\tbare = false\n\tworktree = ../../../x\n");
	char key[64];

	cr_expect_eq(gitcfg_risky_change(o, same, key, sizeof(key), NULL), 0);
	cr_expect_eq(gitcfg_risky_change(o, far, key, sizeof(key), NULL), 1);
	cr_expect_str_eq(key, "core.worktree");
	cr_expect_eq(gitcfg_risky_change(NULL, same, key, sizeof(key), NULL), 1);
	/* bare: a relative hooksPath read from wherever git starts */
	struct gitcfg *bare = parse("[core]\n\tbare = true\n\tworktree = ../../../lib\n");
	cr_expect_eq(gitcfg_risky_change(o, bare, key, sizeof(key), NULL), 1);
	cr_expect_str_eq(key, "core.bare");
	gitcfg_free(bare);
	gitcfg_free(o);
	gitcfg_free(same);
	gitcfg_free(far);
}

Test(policy_gitconfig, every_row_has_words_and_a_reader)
{
	for (size_t i = 0; i < gitcfg_nrows; i++) {
		cr_expect(gitcfg_rows[i].does && gitcfg_rows[i].does[0], "%s", gitcfg_rows[i].pattern);
		cr_expect(gitcfg_rows[i].reader && gitcfg_rows[i].reader[0], "%s", gitcfg_rows[i].pattern);
		cr_expect_not_null(gitcfg_row_of(gitcfg_rows[i].pattern[0] == 'l' ?
						 "lfs.customtransfer.x.path" : "core.fsmonitor", "v"));
	}
}

/* A repository the run made: its config is judged whole. What git init,
 * clone and submodule update write passes; every other kept key does not,
 * core.worktree only where the caller says it may point. */
static bool worktree_in_lib(const char *value, void *ctx)
{
	(void)ctx;
	return !strcmp(value, "../../../lib");
}

Test(policy_gitconfig, new_repository_config_holds_what_git_writes_and_nothing_that_runs)
{
	static const struct {
		const char *cfg, *key;
	} cases[] = {
		{ "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
		  "\tlogallrefupdates = true\n", NULL },
		{ "[core]\n\tbare = true\n", NULL },
		{ "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://x/y\n"
		  "\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n"
		  "\tremote = origin\n\tmerge = refs/heads/main\n", NULL },
		{ "[core]\n\tbare = false\n\tworktree = ../../../lib\n", NULL },
		{ "[core]\n\tbare = false\n\tworktree = ../../../../home\n", "core.worktree" },
		{ "[core]\n\tworktree\n", "core.worktree" }, /* no value: not a place */
		{ "[core]\n\tbare = false\n\tfsmonitor = touch x\n", "core.fsmonitor" },
		{ "[Core]\n\tFsMonitor = x\n", "core.fsmonitor" },
		{ "[core]\n\thooksPath = .githooks\n", "core.hookspath" },
		{ "[include]\n\tpath = ../x\n", "include.path" },
		{ "[filter \"lfs\"]\n\tclean = x\n", "filter.lfs.clean" },
		{ "[alias]\n\tst = !sh\n", "alias.st" },
		{ "[nosuchsection]\n\tx = y\n", "nosuchsection.x" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gitcfg *g = parse(cases[i].cfg);
		char key[64] = "";
		const struct gitcfg_row *row = NULL;
		int rc = gitcfg_risky_new(g, worktree_in_lib, NULL, key, sizeof(key), &row);
		if (!cases[i].key) {
			cr_expect_eq(rc, 0, "refused %s in\n%s", key, cases[i].cfg);
		} else {
			cr_expect_eq(rc, 1, "allowed\n%s", cases[i].cfg);
			cr_expect_str_eq(key, cases[i].key);
			cr_expect(row && row->does);
		}
		gitcfg_free(g);
	}
	/* with no judge of core.worktree, none passes */
	struct gitcfg *g = parse("[core]\n\tworktree = ../../../lib\n");
	cr_expect_eq(gitcfg_risky_new(g, NULL, NULL, NULL, 0, NULL), 1);
	gitcfg_free(g);
}

/* ---- a config and the files it pulls in, read once */

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include "helpers.h"

struct seen_files {
	char text[4096];
};

static void note_file(const char *path, bool there, const struct gitcfg *g, void *ctx)
{
	struct seen_files *s = ctx;
	char l[1024];
	size_t n = strlen(s->text);

	listing(g, l, sizeof(l));
	snprintf(s->text + n, sizeof(s->text) - n, "%s %s [%s]\n", strrchr(path, '/'),
		 there ? "there" : "missing", l);
}

/* gitcfg_each_file_read() with the top file from gitcfg_read() says to its
 * callback exactly what gitcfg_each_file() says: the top file's entries,
 * then each include once, a missing one and a FIFO as not there. */
Test(policy_gitconfig, a_config_read_once_walks_as_read_twice)
{
	char *dir = make_tmpdir(), top[PATH_MAX], p[PATH_MAX];
	struct seen_files a = { "" }, b = { "" };
	struct gitcfg *g = NULL;

	snprintf(top, sizeof(top), "%s/config", dir);
	write_file(top, "[core]\n\tworktree = ../wt\n\thooksPath = \"hk\"\n[include]\n"
			"\tpath = inc.cfg\n\tpath = none.cfg\n\tpath = fifo.cfg\n\tpath = config\n");
	snprintf(p, sizeof(p), "%s/inc.cfg", dir);
	write_file(p, "[core]\n\thooksPath = ../other\n[include]\n\tpath = config\n");
	snprintf(p, sizeof(p), "%s/fifo.cfg", dir);
	cr_assert_eq(mkfifo(p, 0600), 0);
	gitcfg_each_file(top, dir, note_file, &a);
	bool there = gitcfg_read(top, &g);
	cr_assert(there);
	cr_assert_not_null(g);
	cr_assert_str_eq(gitcfg_get(g, "core.worktree", NULL), "../wt");
	gitcfg_each_file_read(top, there, g, dir, note_file, &b);
	cr_assert_str_eq(a.text, b.text);
	assert_contains(b.text, "/inc.cfg there [core.hookspath=../other");
	assert_contains(b.text, "/none.cfg missing");
	assert_contains(b.text, "/fifo.cfg missing");
	gitcfg_free(g);
	/* not there, or not a regular file: false, nothing */
	cr_assert_not(gitcfg_read(p, &g));
	cr_assert_null(g);
	snprintf(p, sizeof(p), "%s/none.cfg", dir);
	cr_assert_not(gitcfg_read(p, &g));
	/* a regular file over 1 MiB is there (git reads it), not parsed:
	 * the plan reads its keys by lines */
	snprintf(p, sizeof(p), "%s/big.cfg", dir);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < 14000; i++)
		fprintf(f, "# %077d\n", i);
	fprintf(f, "[core]\n\thooksPath = .hk\n");
	fclose(f);
	cr_assert(gitcfg_read(p, &g));
	cr_assert_null(g);
	remove_tree(dir);
	free(dir);
}

/* A config the parser does not take (over 1 MiB) is read by lines as git
 * reads it: a line longer than any buffer is one line (a piece of it that
 * says `[x]` ends no section), a trailing `\` joins the next line to a
 * value, and `[core] key = v` may share the header's line. */
Test(policy_gitconfig, a_huge_config_is_scanned_by_whole_lines)
{
	char *dir = make_tmpdir(), p[PATH_MAX], v[PATH_MAX];
	struct gitcfg *g = NULL;

	snprintf(p, sizeof(p), "%s/big.cfg", dir);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < 14000; i++)
		fprintf(f, "# %077d\n", i);
	/* a comment in [core] whose 4160th byte on says `[x]` */
	fprintf(f, "[core]\n#%04158d[x]\n\thooksPath = .hk1\n", 0);
	fflush(f);
	cr_assert(gitcfg_read(p, &g));
	cr_assert_null(g);
	cr_assert(gitcfg_scan_core(p, "hooksPath", v, sizeof(v)));
	cr_assert_str_eq(v, ".hk1");
	/* a value going on over a line that looks like a header */
	fprintf(f, "\tsshCommand = a\\\n[x]\n\thooksPath = .hk2\n");
	fflush(f);
	cr_assert(gitcfg_scan_core(p, "hooksPath", v, sizeof(v)));
	cr_assert_str_eq(v, ".hk2");
	/* a `\` in a comment goes on over nothing; the key on the header's line */
	fprintf(f, "[x]\n# c \\\n[core] hooksPath = .hk3 # \\\n");
	fclose(f);
	cr_assert(gitcfg_scan_core(p, "hooksPath", v, sizeof(v)));
	cr_assert_str_eq(v, ".hk3");
	remove_tree(dir);
	free(dir);
}
