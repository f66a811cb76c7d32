/* tests/unit/darwin_launch.c: what the darwin backend starts
 * (backend/darwin/launch.c) and how Seatbelt's refusals from the log
 * become the run's report lines and audit records (report.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "backend/darwin/launch.h"
#include "common/wire.h"
#include "backend/darwin/report.h"
#include "common/event.h"
#include "preload/preload.h"
#include "tests/unit/helpers.h"

static const struct seatbelt_opts opts = { .run_id = "r-1", .http_port = 41000,
					   .socks_port = 41001 };

static const char *env_get(const struct strv *e, const char *name)
{
	size_t n = strlen(name);
	const char *found = NULL;

	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->v[i], name, n) && e->v[i][n] == '=') {
			cr_assert_null(found, "%s twice in the environment", name);
			found = e->v[i] + n + 1;
		}
	return found;
}

Test(darwin_launch, sandbox_exec_by_absolute_path_with_every_parameter)
{
	struct policy *p = compile_ini(NULL);
	struct seatbelt_profile sp;
	char err[256];
	char *cmd[] = { "-rf-looking-command", "a b", NULL };
	struct strv argv = { 0 };

	cr_assert_eq(seatbelt_compile(p, &opts, &sp, err, sizeof(err)), 0, "%s", err);
	struct darwin_launch_in in = { .policy = p, .profile = &sp, .command = cmd };
	cr_assert_eq(darwin_launch_argv(&in, &argv), 0);
	cr_assert_str_eq(argv.v[0], "/usr/bin/sandbox-exec");
	/* every parameter as one -D NAME=VALUE pair, the profile after -p,
	 * then `--` and COMMAND word for word */
	size_t i = 1;
	for (size_t k = 0; k < sp.nparams; k++, i += 2) {
		char want[8192];
		snprintf(want, sizeof(want), "%s=%s", sp.params[k].name, sp.params[k].value);
		cr_assert_str_eq(argv.v[i], "-D");
		cr_assert_str_eq(argv.v[i + 1], want);
	}
	cr_assert_str_eq(argv.v[i], "-p");
	cr_assert_str_eq(argv.v[i + 1], sp.text);
	cr_assert_str_eq(argv.v[i + 2], "--");
	cr_assert_str_eq(argv.v[i + 3], "-rf-looking-command");
	cr_assert_str_eq(argv.v[i + 4], "a b");
	cr_assert_eq(argv.n, i + 5);
	cr_assert_null(argv.v[argv.n]);
	strv_free(&argv);
	/* no command: nothing to run */
	in.command = NULL;
	cr_assert_eq(darwin_launch_argv(&in, &argv), -EINVAL);
	strv_free(&argv);
	seatbelt_profile_free(&sp);
	policy_free(p);
}

Test(darwin_launch, environment_withholds_points_at_the_proxy_and_marks_the_sandbox)
{
	struct policy *p = compile_ini("[network]\nallow_domains = example.com\n"
				       "[env]\ndeny_env = MY_SECRET\nset = FOO=bar\n");
	char *caller[] = { "PATH=/usr/bin:/bin", "MY_SECRET=x", "GITHUB_TOKEN=ghp_x",
			   "HTTPS_PROXY=http://corp:3128", "socks_proxy=corp:1080",
			   "DYLD_INSERT_LIBRARIES=/opt/theirs.dylib", "FOO=caller", "TERM=xterm",
			   "SBX_SHIM=1;policy=/tmp/mine", NULL };
	char *cmd[] = { "true", NULL };
	struct strv env = { 0 }, withheld = { 0 };
	struct darwin_launch_in in = { .policy = p, .command = cmd, .environ = caller,
				       .shim_lib = "/opt/sbx/lib/libsbx-preload.dylib",
				       .shim_spec = "1;policy=/run/p;report=/run/r", .http_port = 41000,
				       .socks_port = 41001 };

	cr_assert_eq(darwin_launch_env(&in, &env, &withheld), 0);
	cr_assert_str_eq(env_get(&env, "PATH"), "/usr/bin:/bin");
	cr_assert_str_eq(env_get(&env, "TERM"), "xterm");
	cr_assert_null(env_get(&env, "MY_SECRET"));
	cr_assert_null(env_get(&env, "GITHUB_TOKEN"));
	cr_assert_eq(withheld.n, 2, "withheld %zu: %s %s %s", withheld.n, withheld.v[0], withheld.n > 1 ? withheld.v[1] : "", withheld.n > 2 ? withheld.v[2] : "");
	/* the caller's proxies replaced by sbx's */
	cr_assert_str_eq(env_get(&env, "HTTPS_PROXY"), "http://127.0.0.1:41000");
	cr_assert_str_eq(env_get(&env, "http_proxy"), "http://127.0.0.1:41000");
	cr_assert_str_eq(env_get(&env, "ALL_PROXY"), "socks5h://127.0.0.1:41001");
	cr_assert_null(env_get(&env, "socks_proxy"));
	cr_assert_str_eq(env_get(&env, "NO_PROXY"), "localhost,127.0.0.1,::1");
	/* [env] set wins over the caller's; the nested-sandbox marker */
	cr_assert_str_eq(env_get(&env, "FOO"), "bar");
	cr_assert_str_eq(env_get(&env, "SBX_SANDBOX"), "1");
	/* the shim first, the caller's library after it */
	cr_assert_str_eq(env_get(&env, "DYLD_INSERT_LIBRARIES"),
			 "/opt/sbx/lib/libsbx-preload.dylib:/opt/theirs.dylib");
	cr_assert_str_eq(env_get(&env, "SBX_SHIM"), "1;policy=/run/p;report=/run/r");
	strv_free(&env);
	strv_free(&withheld);

	/* --no-shim and no proxy: the caller's library alone, no proxy set */
	in.shim_lib = NULL;
	in.http_port = in.socks_port = 0;
	cr_assert_eq(darwin_launch_env(&in, &env, NULL), 0);
	cr_assert_str_eq(env_get(&env, "DYLD_INSERT_LIBRARIES"), "/opt/theirs.dylib");
	cr_assert_null(env_get(&env, "SBX_SHIM"));
	cr_assert_null(env_get(&env, "HTTPS_PROXY")); /* the network is not open */
	strv_free(&env);
	policy_free(p);

	/* allow_domains = *: the network is open, the caller's proxy stays */
	p = compile_ini("[network]\nallow_domains = *\n");
	in.policy = p;
	cr_assert_eq(darwin_launch_env(&in, &env, NULL), 0);
	cr_assert_str_eq(env_get(&env, "HTTPS_PROXY"), "http://corp:3128");
	strv_free(&env);
	policy_free(p);
}

Test(darwin_launch, the_jvm_and_git_over_ssh_are_pointed_at_the_proxy)
{
	struct policy *p = compile_ini("[network]\nallow_domains = example.com\n");
	char *bare[] = { "PATH=/usr/bin:/bin", NULL };
	char *theirs[] = { "JAVA_TOOL_OPTIONS=-Xmx1g -Dhttp.proxyHost=corp", "PATH=/usr/bin",
			   "GIT_SSH_COMMAND=ssh -i ~/.ssh/deploy -o ProxyCommand='corp-nc %h %p'",
			   NULL };
	char *cmd[] = { "true", NULL };
	struct strv env = { 0 };
	struct darwin_launch_in in = { .policy = p, .command = cmd, .environ = bare,
				       .http_port = 41000, .socks_port = 41001 };

	/* none of the caller's: sbx's alone, with the run's ports */
	cr_assert_eq(darwin_launch_env(&in, &env, NULL), 0);
	cr_assert_str_eq(env_get(&env, "JAVA_TOOL_OPTIONS"),
			 "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=41000 "
			 "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=41000 "
			 "-Dhttp.nonProxyHosts=localhost|127.*|[::1]");
	cr_assert_str_eq(env_get(&env, "GIT_SSH_COMMAND"),
			 "ssh -o 'ProxyCommand=/usr/bin/nc -X 5 -x 127.0.0.1:41001 %h %p'");
	strv_free(&env);
	/* the caller's: kept in front (a later -D wins; ssh's first value
	 * wins, so their ProxyCommand stays theirs) */
	in.environ = theirs;
	cr_assert_eq(darwin_launch_env(&in, &env, NULL), 0);
	cr_assert_str_eq(env_get(&env, "JAVA_TOOL_OPTIONS"),
			 "-Xmx1g -Dhttp.proxyHost=corp -Dhttp.proxyHost=127.0.0.1 "
			 "-Dhttp.proxyPort=41000 -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=41000 "
			 "-Dhttp.nonProxyHosts=localhost|127.*|[::1]");
	cr_assert_str_eq(env_get(&env, "GIT_SSH_COMMAND"),
			 "ssh -i ~/.ssh/deploy -o ProxyCommand='corp-nc %h %p' "
			 "-o 'ProxyCommand=/usr/bin/nc -X 5 -x 127.0.0.1:41001 %h %p'");
	strv_free(&env);
	/* no proxy (the network off or open): the caller's as they came */
	in.http_port = in.socks_port = 0;
	cr_assert_eq(darwin_launch_env(&in, &env, NULL), 0);
	cr_assert_str_eq(env_get(&env, "JAVA_TOOL_OPTIONS"), "-Xmx1g -Dhttp.proxyHost=corp");
	cr_assert_str_eq(env_get(&env, "GIT_SSH_COMMAND"),
			 "ssh -i ~/.ssh/deploy -o ProxyCommand='corp-nc %h %p'");
	strv_free(&env);
	policy_free(p);
	/* [env] set replaces them: the way to turn either off */
	p = compile_ini("[network]\nallow_domains = example.com\n"
			"[env]\nset = GIT_SSH_COMMAND=ssh\nset = JAVA_TOOL_OPTIONS=-Xmx2g\n");
	in.policy = p;
	in.environ = bare;
	in.http_port = 41000;
	in.socks_port = 41001;
	cr_assert_eq(darwin_launch_env(&in, &env, NULL), 0);
	cr_assert_str_eq(env_get(&env, "GIT_SSH_COMMAND"), "ssh");
	cr_assert_str_eq(env_get(&env, "JAVA_TOOL_OPTIONS"), "-Xmx2g");
	strv_free(&env);
	policy_free(p);
	/* a caller's value the policy withholds is not put back in front */
	p = compile_ini("[network]\nallow_domains = example.com\n"
			"[env]\ndeny_env = JAVA_TOOL_OPTIONS\ndeny_env = GIT_SSH_COMMAND\n");
	in.policy = p;
	in.environ = theirs;
	cr_assert_eq(darwin_launch_env(&in, &env, NULL), 0);
	cr_assert_str_eq(env_get(&env, "JAVA_TOOL_OPTIONS"),
			 "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=41000 "
			 "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=41000 "
			 "-Dhttp.nonProxyHosts=localhost|127.*|[::1]");
	cr_assert_str_eq(env_get(&env, "GIT_SSH_COMMAND"),
			 "ssh -o 'ProxyCommand=/usr/bin/nc -X 5 -x 127.0.0.1:41001 %h %p'");
	strv_free(&env);
	policy_free(p);
}

Test(darwin_launch, the_shim_spec_names_the_handed_over_files_by_safe_paths)
{
	struct darwin_shim_handover h = { .lib = "/opt/sbx/lib/libsbx-preload.dylib",
					  .policy = "/private/var/sbx/r1/policy",
					  .report = "/private/var/sbx/r1/reports",
					  .counters = "/private/var/sbx/r1/dropped", .tell = true };
	char *spec, longp[SBX_SHIM_PATH_MAX + 1];

	cr_assert_eq(darwin_shim_spec(&h, &spec), 0);
	cr_assert_str_eq(spec, "1;mode=enforce;policy=/private/var/sbx/r1/policy;"
			       "report=/private/var/sbx/r1/reports;"
			       "counters=/private/var/sbx/r1/dropped;tell=1;"
			       "lib=/opt/sbx/lib/libsbx-preload.dylib");
	free(spec);
	h.counters = NULL;
	h.tell = false;
	h.mode = "learn";
	cr_assert_eq(darwin_shim_spec(&h, &spec), 0);
	cr_assert_str_eq(spec, "1;mode=learn;policy=/private/var/sbx/r1/policy;"
			       "report=/private/var/sbx/r1/reports;"
			       "lib=/opt/sbx/lib/libsbx-preload.dylib");
	free(spec);
	/* what the shim could not take back out of the spec */
	h.mode = "enforce;policy=/tmp/x";
	cr_assert_eq(darwin_shim_spec(&h, &spec), -EINVAL);
	cr_assert_null(spec);
	h.mode = NULL;
	h.policy = "/private/var/sbx/r;1/policy";
	cr_assert_eq(darwin_shim_spec(&h, &spec), -EINVAL);
	h.policy = "policy";
	cr_assert_eq(darwin_shim_spec(&h, &spec), -EINVAL);
	h.policy = "/p";
	h.report = NULL;
	cr_assert_eq(darwin_shim_spec(&h, &spec), -EINVAL);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	h.report = longp;
	cr_assert_eq(darwin_shim_spec(&h, &spec), -EINVAL);
	longp[SBX_SHIM_PATH_MAX - 1] = '\0'; /* 255 bytes: fits */
	cr_assert_eq(darwin_shim_spec(&h, &spec), 0);
	free(spec);
}

Test(darwin_launch, log_stream_by_absolute_path_for_the_tag)
{
	struct strv argv = { 0 };

	cr_assert_eq(darwin_log_argv(DARWIN_LOG, "sbx-r-1-abc", &argv), 0);
	cr_assert_eq(argv.n, 6);
	cr_assert_str_eq(argv.v[0], "/usr/bin/log");
	cr_assert_str_eq(argv.v[1], "stream");
	cr_assert_str_eq(argv.v[3], "ndjson");
	cr_assert_str_eq(argv.v[5], "processID == 0 AND eventMessage ENDSWITH \"sbx-r-1-abc\"");
	strv_free(&argv);
	cr_assert_eq(darwin_log_argv(DARWIN_LOG, "x\" OR 1", &argv), -EINVAL);
	strv_free(&argv);
}

/* ---- the reports */

#define TAG "sbx-r-1-abc"

static void to_reports(void *ctx, const struct event *ev)
{
	reports_event(ctx, ev);
}

static void say(void *ctx, const struct seatbelt_violation *v)
{
	darwin_event(v, to_reports, ctx);
}

Test(darwin_launch, log_refusals_become_report_lines_and_records)
{
	char *dir = make_tmpdir(), out_path[PATH_MAX], log_path[PATH_MAX];
	struct policy *p = compile_ini("[sandbox]\nworkspace = /w\n");
	struct reports *r;
	static struct seatbelt_log_buf lb;

	snprintf(out_path, sizeof(out_path), "%s/stderr", dir);
	snprintf(log_path, sizeof(log_path), "%s/audit.jsonl", dir);
	int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct reports_cfg cfg = { .policy = p, .log_path = log_path, .run_id = "r-1",
				   .mode = REPORTS_ENFORCE, .out_fd = out };
	cr_assert_eq(reports_new(&cfg, &r), 0);
	/* [K] of darwin_log.c with a key of HOME's, split across reads; a
	 * write outside; a Mach service; a lookalike from a program; a cut
	 * line */
	static const char stream[] =
		"Filtering the log data using \"processID == 0\"\n"
		"{\"processImagePath\":\"\\/kernel\",\"eventMessage\":\"Sandbox: cat(22304) deny(1) "
		"file-read-data \\/home\\/u\\/.ssh\\/id_rsa\\n" TAG "\",\"processID\":0}\n"
		"{\"eventMessage\":\"Sandbox: sh(7) deny(1) file-write-create \\/etc\\/evil\\n" TAG
		"\",\"processID\":0}\n"
		"{\"eventMessage\":\"Sandbox: node(8) deny(1) mach-lookup com.apple.pasteboard.1\\n"
		TAG "\",\"processID\":0}\n"
		"{\"eventMessage\":\"Sandbox: cat(9) deny(1) file-read-data \\/home\\/u\\/forged\\n"
		TAG "\",\"processID\":4242}\n"
		"{\"eventMessage\":\"Sandbox: cat(9) deny(1) file-read-data \\/home\\/u\\/cut";
	for (size_t i = 0; i < sizeof(stream) - 1; i += 7)
		seatbelt_log_feed(&lb, TAG, stream + i,
				  sizeof(stream) - 1 - i < 7 ? sizeof(stream) - 1 - i : 7, say, r);
	reports_finish(r, 0);
	cr_assert_eq(lb.ours, 3);
	cr_assert_eq(lb.other, 2); /* the header and the lookalike */
	char *said = slurp(out_path), *log = slurp(log_path);
	if (getenv("SBX_TEST_SHOW"))
		fprintf(stderr, "%s%s", said, log);
	cr_assert(strstr(said, "sbx: denied read of ~/.ssh/id_rsa by `deny_read = ~/.ssh`"), "%s",
		  said);
	cr_assert(strstr(said, "pid 22304 cat (Seatbelt)"), "%s", said);
	/* a path rule allows a file not there yet: no "once the file exists" */
	cr_assert(strstr(said, "sbx: denied write of /etc/evil — outside the writable paths "
			       "(allow it with --allow-write /etc/evil) — pid 7 sh (Seatbelt)"),
		  "%s", said);
	cr_assert(strstr(said, "sbx: denied mach-lookup on com.apple.pasteboard.1 — not one of "
			       "the system services"), "%s", said);
	cr_assert_null(strstr(said, "forged"), "%s", said);
	cr_assert_null(strstr(said, "seccomp"), "%s", said);
	cr_assert(strstr(log, "\"layer\":\"seatbelt\",\"op\":\"read\",\"target\":"
			      "\"/home/u/.ssh/id_rsa\",\"decision\":\"deny\""), "%s", log);
	cr_assert(strstr(log, "\"layer\":\"seatbelt\",\"op\":\"syscall\",\"target\":"
			      "\"mach-lookup\""), "%s", log);
	cr_assert_null(strstr(log, "\"layer\":\"notify\""), "%s", log);
	free(said);
	free(log);
	reports_free(r);
	close(out);
	policy_free(p);
	remove_tree(dir);
	free(dir);
}
