/* tests/unit/policy_decide.c: read, write and exec decisions, and the rule
 * that explains each (docs/POLICY.md "Decisions", "Built-in defaults"). */
#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"

/* Reads */

Test(policy_decide, read_allowed_by_default_with_no_rule)
{
	struct policy *p = compile_ini("");

	cr_assert_null(check_why(p, SBX_OP_READ, "/etc/passwd", SBX_ALLOW));
	cr_assert_null(check_why(p, SBX_OP_READ, "/w/src/main.c", SBX_ALLOW));
	cr_assert_null(check_why(p, SBX_OP_READ, "/home/u/notes.txt", SBX_ALLOW));
	cr_assert_null(check_why(p, SBX_OP_READ, "/home/u/.sshd_config", SBX_ALLOW));
	policy_free(p);
}

struct default_deny_case {
	const char *value; /* as listed in docs/POLICY.md */
	const char *path;  /* something it must hide */
};

ParameterizedTestParameters(policy_decide, read_default_credential_denies)
{
	static struct default_deny_case cases[] = {
		{ "~/.ssh", "/home/u/.ssh/id_ed25519" },
		{ "~/.aws", "/home/u/.aws/credentials" },
		{ "~/.gnupg", "/home/u/.gnupg/private-keys-v1.d/x.key" },
		{ "~/.azure", "/home/u/.azure/accessTokens.json" },
		{ "~/.kube", "/home/u/.kube/config" },
		{ "~/.docker/config.json", "/home/u/.docker/config.json" },
		{ "~/.config/gcloud", "/home/u/.config/gcloud/credentials.db" },
		{ "~/.config/gh", "/home/u/.config/gh/hosts.yml" },
		{ "~/.netrc", "/home/u/.netrc" },
		{ "~/.git-credentials", "/home/u/.git-credentials" },
		{ "~/.password-store", "/home/u/.password-store/bank.gpg" },
		{ "~/.local/share/keyrings", "/home/u/.local/share/keyrings/login.keyring" },
		{ "~/.pypirc", "/home/u/.pypirc" },
		{ "~/.cargo/credentials.toml", "/home/u/.cargo/credentials.toml" },
		{ "~/.vault-token", "/home/u/.vault-token" },
		{ "~/.terraform.d/credentials.tfrc.json", "/home/u/.terraform.d/credentials.tfrc.json" },
		{ "~/.mozilla", "/home/u/.mozilla/firefox/x.default/logins.json" },
		{ "~/.config/google-chrome", "/home/u/.config/google-chrome/Default/Cookies" },
		{ "~/.config/chromium", "/home/u/.config/chromium/Default/Login Data" },
	};
	return cr_make_param_array(struct default_deny_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct default_deny_case *c, policy_decide, read_default_credential_denies)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = check_why(p, SBX_OP_READ, c->path, SBX_DENY);

	cr_assert_not_null(why, "%s: no rule", c->path);
	cr_assert_eq(why->kind, SBX_RULE_DENY_READ);
	cr_assert_eq(why->origin, SBX_ORIGIN_DEFAULT);
	cr_assert_str_eq(why->source, "default");
	cr_assert_str_eq(why->value, c->value);
	policy_free(p);
}

Test(policy_decide, read_default_denies_are_exactly_the_documented_list)
{
	struct policy *p = compile_ini("");
	size_t n = 0;

	policy_rules(p, SBX_RULE_DENY_READ, &n);
	cr_assert_eq(n, sbx_ncredentials, "%zu default deny_read rules, the credential table has %zu",
		     n, sbx_ncredentials);
	policy_rules(p, SBX_RULE_ALLOW_READ, &n);
	cr_assert_eq(n, 0);
	policy_free(p);
}

Test(policy_decide, read_default_denies_leave_the_rest_of_home_readable)
{
	struct policy *p = compile_ini("");

	assert_verdict(p, SBX_OP_READ, "/home/u/.config/git/config", SBX_ALLOW);
	assert_verdict(p, SBX_OP_READ, "/home/u/.docker/daemon.json", SBX_ALLOW);
	assert_verdict(p, SBX_OP_READ, "/home/u/.cargo/bin/cargo", SBX_ALLOW);
	assert_verdict(p, SBX_OP_READ, "/home/u/.sshrc", SBX_ALLOW);
	policy_free(p);
}

Test(policy_decide, read_user_deny_read_keeps_the_defaults)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = ~/.secret\n");

	assert_verdict(p, SBX_OP_READ, "/home/u/.secret/x", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/home/u/.ssh/id_ed25519", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/home/u/.aws/credentials", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, read_allow_read_reallows_inside_deny_read)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /srv/data\n"
				       "allow_read = /srv/data/public\n");

	const struct sbx_rule *why = check_why(p, SBX_OP_READ, "/srv/data/public/a", SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_ALLOW_READ);
	why = check_why(p, SBX_OP_READ, "/srv/data/private/a", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_READ);
	policy_free(p);
}

Test(policy_decide, read_most_specific_rule_wins)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /srv/data\n"
				       "allow_read = /srv/data/pub\n"
				       "deny_read = /srv/data/pub/secret\n");

	assert_verdict(p, SBX_OP_READ, "/srv/data/x", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/data/pub/x", SBX_ALLOW);
	assert_verdict(p, SBX_OP_READ, "/srv/data/pub/secret/x", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, read_most_specific_wins_whatever_the_order_written)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /srv/data/pub/secret\n"
				       "allow_read = /srv/data/pub\n");

	assert_verdict(p, SBX_OP_READ, "/srv/data/pub/secret/x", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/data/pub/x", SBX_ALLOW);
	policy_free(p);
}

Test(policy_decide, read_tie_goes_to_allow)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /srv/data\n"
				       "allow_read = /srv/data\n");

	const struct sbx_rule *why = check_why(p, SBX_OP_READ, "/srv/data/x", SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_ALLOW_READ);
	policy_free(p);
}

Test(policy_decide, read_specificity_counts_the_matched_part_of_a_glob)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /srv/**/secret\n"
				       "allow_read = /srv/a\n"
				       "allow_read = /srv/b/secret/public\n");

	/* the glob matched /srv/a/secret, longer than /srv/a */
	assert_verdict(p, SBX_OP_READ, "/srv/a/secret/x", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/a/other", SBX_ALLOW);
	/* /srv/b/secret/public is longer than the glob's /srv/b/secret */
	assert_verdict(p, SBX_OP_READ, "/srv/b/secret/public/x", SBX_ALLOW);
	assert_verdict(p, SBX_OP_READ, "/srv/b/secret/private", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, read_allow_read_of_one_file_lifts_a_bare_name_deny_for_it)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = *.pem\n"
				       "allow_read = /w/certs/ca.pem\n");

	assert_verdict(p, SBX_OP_READ, "/w/certs/ca.pem", SBX_ALLOW);
	assert_verdict(p, SBX_OP_READ, "/w/certs/server.pem", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, read_allow_read_root_does_not_lift_ssh)
{
	struct policy *p = compile_ini("[filesystem]\nallow_read = /\n");

	const struct sbx_rule *why = check_why(p, SBX_OP_READ, "/home/u/.ssh/id_ed25519", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_str_eq(why->value, "~/.ssh");
	assert_verdict(p, SBX_OP_READ, "/etc/passwd", SBX_ALLOW);
	policy_free(p);
}

Test(policy_decide, read_allow_read_home_does_not_lift_ssh)
{
	struct policy *p = compile_ini("[filesystem]\nallow_read = ~\n");

	assert_verdict(p, SBX_OP_READ, "/home/u/.ssh/id_ed25519", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, read_allow_read_of_one_file_lifts_only_that_file)
{
	struct policy *p = compile_ini("[filesystem]\nallow_read = ~/.ssh/known_hosts\n");

	const struct sbx_rule *why = check_why(p, SBX_OP_READ, "/home/u/.ssh/known_hosts", SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_str_eq(why->value, "~/.ssh/known_hosts");
	assert_verdict(p, SBX_OP_READ, "/home/u/.ssh/id_ed25519", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/home/u/.ssh/known_hosts2", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, read_allow_read_of_a_whole_default_deny_lifts_it)
{
	struct policy *p = compile_ini("[filesystem]\nallow_read = ~/.kube\n");

	assert_verdict(p, SBX_OP_READ, "/home/u/.kube/config", SBX_ALLOW);
	assert_verdict(p, SBX_OP_READ, "/home/u/.aws/credentials", SBX_DENY);
	policy_free(p);
}

/* Exec follows read. */

struct exec_case {
	const char *ini;
	const char *path;
	enum sbx_verdict expect;
};

ParameterizedTestParameters(policy_decide, exec_follows_read)
{
	static struct exec_case cases[] = {
		{ "", "/usr/bin/ls", SBX_ALLOW },
		{ "", "/w/scripts/build.sh", SBX_ALLOW },
		{ "", "/home/u/.ssh/evil", SBX_DENY },
		{ "[filesystem]\ndeny_read = /opt/tool\n", "/opt/tool/bin/tool", SBX_DENY },
		{ "[filesystem]\ndeny_read = /opt/tool\nallow_read = /opt/tool/bin\n",
		  "/opt/tool/bin/tool", SBX_ALLOW },
		{ "[filesystem]\ndeny_read = *.bin\n", "/w/out/a.bin", SBX_DENY },
		/* not writable does not mean not executable */
		{ "[sandbox]\nisolation = strict\n", "/w/run.sh", SBX_ALLOW },
	};
	return cr_make_param_array(struct exec_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct exec_case *c, policy_decide, exec_follows_read)
{
	struct policy *p = compile_ini(c->ini);

	assert_verdict(p, SBX_OP_EXEC, c->path, c->expect);
	assert_verdict(p, SBX_OP_READ, c->path, c->expect);
	policy_free(p);
}

/* Writes */

Test(policy_decide, write_workspace_is_writable_by_isolation)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/w/src/main.c", SBX_ALLOW);

	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_ALLOW_WRITE);
	cr_assert_eq(why->origin, SBX_ORIGIN_ISOLATION);
	cr_assert_str_eq(why->pattern, "/w");
	cr_assert_null(policy_session_dir(p));
	policy_free(p);
}

Test(policy_decide, write_workspace_root_itself_is_writable)
{
	struct policy *p = compile_ini("");

	assert_verdict(p, SBX_OP_WRITE, "/w", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/wx/f", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, write_home_and_etc_are_outside_the_writable_roots)
{
	struct policy *p = compile_ini("");

	cr_assert_null(check_why(p, SBX_OP_WRITE, "/home/u/notes.txt", SBX_DENY));
	cr_assert_null(check_why(p, SBX_OP_WRITE, "/home/u", SBX_DENY));
	cr_assert_null(check_why(p, SBX_OP_WRITE, "/etc/passwd", SBX_DENY));
	cr_assert_null(check_why(p, SBX_OP_WRITE, "/usr/bin/ls", SBX_DENY));
	policy_free(p);
}

Test(policy_decide, write_tmp_is_writable_by_default_rule)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/tmp/build/x.o", SBX_ALLOW);

	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_ALLOW_WRITE);
	cr_assert_str_eq(why->value, "/tmp");
	cr_assert_str_eq(why->source, "default");
	assert_verdict(p, SBX_OP_WRITE, "/tmpfoo", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, write_allow_write_adds_a_root)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = /srv/cache\n");

	assert_verdict(p, SBX_OP_WRITE, "/srv/cache/a", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/srv/cache2", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, "/srv/x", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, write_deny_write_wins_over_allow_write)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = /srv/data\n"
				       "deny_write = /srv/data/locked\n");

	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/srv/data/locked/f", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_WRITE);
	assert_verdict(p, SBX_OP_WRITE, "/srv/data/other", SBX_ALLOW);
	policy_free(p);
}

Test(policy_decide, write_deny_write_wins_even_over_a_more_specific_allow_write)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_write = /srv/data\n"
				       "allow_write = /srv/data/sub\n");

	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/srv/data/sub/f", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_WRITE);
	policy_free(p);
}

Test(policy_decide, write_deny_write_inside_the_workspace)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_write = /w/vendor\n");

	assert_verdict(p, SBX_OP_WRITE, "/w/vendor/lib.c", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, "/w/vendored/lib.c", SBX_ALLOW);
	policy_free(p);
}

struct env_file_case {
	const char *path;
	enum sbx_verdict expect;
};

ParameterizedTestParameters(policy_decide, write_dot_env_denied_anywhere)
{
	static struct env_file_case cases[] = {
		{ "/w/.env", SBX_DENY },
		{ "/w/app/config/.env", SBX_DENY },
		{ "/tmp/x/.env", SBX_DENY },
		{ "/w/.env.example", SBX_ALLOW },
		{ "/w/app/my.env", SBX_ALLOW },
		{ "/w/.envrc", SBX_ALLOW },
	};
	return cr_make_param_array(struct env_file_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct env_file_case *c, policy_decide, write_dot_env_denied_anywhere)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, c->path, c->expect);

	if (c->expect == SBX_DENY) {
		cr_assert_not_null(why);
		cr_assert_eq(why->kind, SBX_RULE_DENY_WRITE);
		cr_assert_str_eq(why->value, ".env");
		cr_assert_str_eq(why->source, "default");
		cr_assert_eq(why->pat, SBX_PAT_ANYWHERE);
	}
	policy_free(p);
}

Test(policy_decide, write_dot_env_stays_readable)
{
	struct policy *p = compile_ini("");

	assert_verdict(p, SBX_OP_READ, "/w/.env", SBX_ALLOW);
	policy_free(p);
}

Test(policy_decide, write_read_denied_path_is_not_writable)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /w/private\n");

	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/w/private/x", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_READ);
	assert_verdict(p, SBX_OP_WRITE, "/w/public/x", SBX_ALLOW);
	policy_free(p);
}

Test(policy_decide, write_default_read_denies_stay_unwritable_under_allow_write_home)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = ~\n");

	assert_verdict(p, SBX_OP_WRITE, "/home/u/notes.txt", SBX_ALLOW);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE,
					       "/home/u/.ssh/authorized_keys", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_READ);
	policy_free(p);
}

Test(policy_decide, write_read_reallowed_path_is_writable_again)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /w/private\n"
				       "allow_read = /w/private/shared\n");

	assert_verdict(p, SBX_OP_WRITE, "/w/private/shared/x", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/w/private/x", SBX_DENY);
	policy_free(p);
}

/* Isolation */

Test(policy_decide, isolation_strict_makes_the_workspace_read_only)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = strict\n");

	cr_assert_null(check_why(p, SBX_OP_WRITE, "/w/src/main.c", SBX_DENY));
	assert_verdict(p, SBX_OP_READ, "/w/src/main.c", SBX_ALLOW);
	policy_free(p);
}

Test(policy_decide, isolation_strict_writes_the_session_dir)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = strict\n");

	cr_assert_not_null(policy_session_dir(p));
	cr_assert_str_eq(policy_session_dir(p), TEST_SESSION_DIR);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, TEST_SESSION_DIR "/out.txt",
					       SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_ALLOW_WRITE);
	cr_assert_eq(why->origin, SBX_ORIGIN_ISOLATION);
	assert_verdict(p, SBX_OP_WRITE, "/home/u/.local/state/sbx/sessions/t-2/x", SBX_DENY);
	policy_free(p);
}

/* sbx's state directory: the supervisor writes the audit log, the learned
 * policies and the stand-in records there, unsandboxed. */
Test(policy_decide, state_dir_is_a_mandatory_write_deny_in_every_mode)
{
	static const char *const modes[] = {
		"", "[sandbox]\nisolation = strict\n", "[sandbox]\nworkspace = ~\n",
		"[sandbox]\nisolation = custom\n[filesystem]\nallow_write = ~/\n",
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++) {
		struct policy *p = compile_ini(modes[i]);
		const char *paths[] = { "/home/u/.local/state/sbx",
					"/home/u/.local/state/sbx/audit.jsonl",
					"/home/u/.local/state/sbx/learned/x.ini",
					"/home/u/.local/state/sbx/standins/lock",
					"/home/u/.local/state/sbx/sessions/t-2/x" };
		for (size_t j = 0; j < sizeof(paths) / sizeof(*paths); j++) {
			const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, paths[j], SBX_DENY);
			cr_assert_not_null(why, "%s: %s allowed", modes[i], paths[j]);
			cr_assert_eq(why->kind, SBX_RULE_MANDATORY, "%s: %s", modes[i], paths[j]);
		}
		policy_free(p);
	}
}

Test(policy_decide, strict_session_dir_stays_writable_inside_the_state_dir,
     .description = "only the run's own session directory is carved out of the "
		    "mandatory state directory; names denied at any depth still hold there")
{
	struct policy *p = compile_ini("[sandbox]\nisolation = strict\n"
				       "[filesystem]\nallow_write = ~/\n");

	assert_verdict(p, SBX_OP_WRITE, TEST_SESSION_DIR, SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, TEST_SESSION_DIR "/sub/x", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/home/u/.local/state/sbx/sessions", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, TEST_SESSION_DIR "-x", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, "/home/u/.local/state/sbx/audit.jsonl", SBX_DENY);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, TEST_SESSION_DIR "/.bashrc",
					       SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_MANDATORY);
	policy_free(p);
}

Test(policy_decide, own_dirs_from_the_context_are_mandatory_even_when_missing,
     .description = "$XDG_STATE_HOME/sbx and $XDG_CONFIG_HOME/sbx, as main passes them")
{
	struct policy_ctx ctx = test_ctx;
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { "" };

	ctx.state_dir = "/srv/xdg/state/sbx";
	ctx.config_dir = "/srv/xdg/config/sbx";
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	cr_assert_eq(policy_builder_set(b, "filesystem", "allow_write", "/srv",
					SBX_ORIGIN_FLAG, "--allow-write", &err), 0);
	cr_assert_eq(policy_compile(b, &p, &err), 0, "%s", err.msg);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/srv/xdg/config/sbx/sandbox.ini",
					       SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_MANDATORY);
	cr_assert_str_eq(why->value, "/srv/xdg/config/sbx/");
	why = check_why(p, SBX_OP_WRITE, "/srv/xdg/state/sbx/audit.jsonl", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_MANDATORY);
	assert_verdict(p, SBX_OP_WRITE, "/srv/xdg/other", SBX_ALLOW);
	policy_free(p);
}

Test(policy_decide, xdg_config_home_gets_the_dot_config_mandatory_names,
     .description = "git reads $XDG_CONFIG_HOME/git/config when it is set: protected there too")
{
	struct policy_ctx ctx = test_ctx;
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { "" };

	ctx.config_dir = "/srv/xdg/config/sbx";
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	cr_assert_eq(policy_builder_set(b, "filesystem", "allow_write", "/srv",
					SBX_ORIGIN_FLAG, "--allow-write", &err), 0);
	cr_assert_eq(policy_compile(b, &p, &err), 0, "%s", err.msg);
	cr_assert_str_eq(policy_config_home(p), "/srv/xdg/config");
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/srv/xdg/config/git/config",
					       SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_MANDATORY);
	assert_verdict(p, SBX_OP_WRITE, "/srv/xdg/config/git/ignore", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/srv/xdg/config/other.conf", SBX_ALLOW);
	/* the default place stays protected as well */
	assert_verdict(p, SBX_OP_WRITE, "/home/u/.config/git/config", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, no_xdg_config_home_when_it_is_the_default)
{
	struct policy_ctx ctx = test_ctx;
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { "" };

	ctx.config_dir = "/home/u/.config/sbx";
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	cr_assert_eq(policy_compile(b, &p, &err), 0, "%s", err.msg);
	cr_assert_null(policy_config_home(p));
	policy_free(p);
}

Test(policy_decide, git_config_worktree_is_mandatory_at_any_depth)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = /srv\n");
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/srv/a/b/c/d/.git/config.worktree",
					       SBX_DENY);

	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_MANDATORY);
	policy_free(p);
}

Test(policy_decide, isolation_strict_keeps_tmp_and_allow_write)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = strict\n"
				       "[filesystem]\nallow_write = /srv/out\n");

	assert_verdict(p, SBX_OP_WRITE, "/tmp/x", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/srv/out/x", SBX_ALLOW);
	policy_free(p);
}

Test(policy_decide, isolation_custom_writes_only_allow_write)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = custom\n"
				       "[filesystem]\nallow_write = /srv/out\n");

	cr_assert_null(check_why(p, SBX_OP_WRITE, "/w/src/main.c", SBX_DENY));
	assert_verdict(p, SBX_OP_WRITE, TEST_SESSION_DIR "/x", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, "/srv/out/x", SBX_ALLOW);
	cr_assert_null(policy_session_dir(p));
	policy_free(p);
}

Test(policy_decide, isolation_custom_keeps_the_default_tmp)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = custom\n");
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/tmp/x", SBX_ALLOW);

	cr_assert_not_null(why);
	cr_assert_str_eq(why->source, "default");
	policy_free(p);
}

Test(policy_decide, isolation_custom_with_workspace_in_allow_write)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = custom\n"
				       "[filesystem]\nallow_write = ./build\n");

	assert_verdict(p, SBX_OP_WRITE, "/w/build/a.o", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/w/src/a.c", SBX_DENY);
	policy_free(p);
}

Test(policy_decide, isolation_workspace_root_follows_the_workspace)
{
	struct policy *p = compile_ini("[sandbox]\nworkspace = /srv/proj\n");

	assert_verdict(p, SBX_OP_WRITE, "/srv/proj/a", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/w/a", SBX_DENY);
	policy_free(p);
}

/* Mandatory denies: checked first, lifted by nothing. */

struct mandatory_case {
	const char *path;
	const char *lift; /* an allow_write that covers it */
};

ParameterizedTestParameters(policy_decide, mandatory_cannot_be_lifted)
{
	static struct mandatory_case cases[] = {
		{ "/w/.bashrc", "/w" },
		{ "/home/u/.bashrc", "~" },
		{ "/w/.bash_profile", "/w" },
		{ "/w/.bash_login", "/w" },
		{ "/w/.bash_logout", "/w" },
		{ "/home/u/.profile", "~" },
		{ "/home/u/.zshrc", "~" },
		{ "/home/u/.zshenv", "~" },
		{ "/home/u/.zprofile", "~" },
		{ "/home/u/.zlogin", "~" },
		{ "/home/u/.gitconfig", "~" },
		{ "/w/.gitmodules", "/w" },
		{ "/w/sub/.gitconfig", "/w" },
		{ "/w/sub/dir/.zshrc", "/w" },
		{ "/w/pkg/.idea", "/w" },
		{ "/w/.git/hooks", "/w" },
		{ "/w/.git/hooks/pre-commit", "/w" },
		{ "/w/.git/config", "/w" },
		{ "/w/sub/.git/hooks/x", "/w" },
		{ "/w/sub/.git/config", "/w" },
		{ "/w/.vscode/settings.json", "/w" },
		{ "/w/.vscode", "/w" },
		{ "/w/.idea/workspace.xml", "/w" },
		{ "/w/.mcp.json", "/w" },
		{ "/w/.claude/commands/x.md", "/w" },
		{ "/w/.claude/agents/a.md", "/w" },
		{ "/home/u/.claude/commands/x.md", "~" },
		{ "/tmp/clone/.git/hooks/post-checkout", "/tmp" },
		{ "/tmp/.bashrc", "/tmp" },
		{ "/home/u/.config/git/config", "~" },
		{ "/home/u/.config/sbx/sandbox.ini", "~" },
		{ "/home/u/.config/sbx/other.ini", "~/.config" },
		{ "/etc/sbx/sandbox.ini", "/etc" },
		{ "/w/sandbox.ini", "/w" },
	};
	return cr_make_param_array(struct mandatory_case, cases, ARRAY_LEN(cases));
}

static void assert_mandatory(const struct policy *p, const char *path)
{
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, path, SBX_DENY);

	cr_assert_not_null(why, "%s: denied without a rule", path);
	cr_assert_eq(why->kind, SBX_RULE_MANDATORY, "%s: decided by %s (%s)", path,
		     why->value, why->source);
	cr_assert_eq(why->origin, SBX_ORIGIN_MANDATORY);
	cr_assert_str_eq(why->source, "mandatory");
}

ParameterizedTest(struct mandatory_case *c, policy_decide, mandatory_cannot_be_lifted)
{
	char ini[512];
	struct policy *p;

	/* by default */
	p = compile_ini("");
	assert_mandatory(p, c->path);
	policy_free(p);

	/* by allow_write of the exact path, of a parent, of / */
	snprintf(ini, sizeof(ini), "[sandbox]\nisolation = custom\n"
		 "[filesystem]\nallow_write = %s\nallow_write = %s\nallow_write = /\n"
		 "allow_read = %s\n", c->path, c->lift, c->path);
	p = compile_ini(ini);
	assert_mandatory(p, c->path);
	policy_free(p);

	/* by flags */
	struct policy_builder *b = builder_ini(NULL);
	builder_set(b, "filesystem", "allow_write", c->path, SBX_ORIGIN_FLAG, "--allow-write");
	builder_set(b, "filesystem", "allow_write", c->lift, SBX_ORIGIN_FLAG, "--allow-write");
	builder_set(b, "filesystem", "allow_read", c->path, SBX_ORIGIN_FLAG, "--allow-read");
	builder_set(b, "sandbox", "isolation", "custom", SBX_ORIGIN_FLAG, "--isolation");
	p = compile_builder(b);
	assert_mandatory(p, c->path);
	policy_free(p);
}

Test(policy_decide, mandatory_checked_before_deny_write)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_write = /w/.bashrc\n");

	assert_mandatory(p, "/w/.bashrc");
	policy_free(p);
}

Test(policy_decide, mandatory_checked_before_deny_read)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /w/.git\n");

	assert_mandatory(p, "/w/.git/config");
	policy_free(p);
}

Test(policy_decide, mandatory_paths_stay_readable)
{
	struct policy *p = compile_ini("");

	assert_verdict(p, SBX_OP_READ, "/w/.git/config", SBX_ALLOW);
	assert_verdict(p, SBX_OP_READ, "/home/u/.bashrc", SBX_ALLOW);
	assert_verdict(p, SBX_OP_EXEC, "/w/.git/hooks/pre-commit", SBX_ALLOW);
	policy_free(p);
}

struct not_mandatory_case {
	const char *path;
};

ParameterizedTestParameters(policy_decide, mandatory_neighbours_stay_writable)
{
	static struct not_mandatory_case cases[] = {
		{ "/w/.git/objects/ab/cdef" },
		{ "/w/.git/HEAD" },
		{ "/w/.git/index" },
		{ "/w/.git/hooks-old/x" },
		{ "/w/.git/configs" },
		{ "/w/.bashrc.d.txt" },
		{ "/w/my.bashrc" },
		{ "/w/.vscodeignore" },
		{ "/w/.claude/settings.json.bak" },
		{ "/w/.mcp.json.bak" },
		{ "/w/sub/sandbox.ini" },
		{ "/w/sandbox.ini.example" },
		{ "/w/src/git/config" },
	};
	return cr_make_param_array(struct not_mandatory_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct not_mandatory_case *c, policy_decide, mandatory_neighbours_stay_writable)
{
	struct policy *p = compile_ini("");

	assert_verdict(p, SBX_OP_WRITE, c->path, SBX_ALLOW);
	policy_free(p);
}

Test(policy_decide, mandatory_workspace_sandbox_ini_follows_the_workspace)
{
	struct policy *p = compile_ini("[sandbox]\nworkspace = /srv/proj\n");

	assert_mandatory(p, "/srv/proj/sandbox.ini");
	policy_free(p);
}

Test(policy_decide, mandatory_workspace_sandbox_ini_follows_the_workspace_flag)
{
	struct policy_builder *b = builder_ini(NULL);

	builder_set(b, "sandbox", "workspace", "/srv/proj", SBX_ORIGIN_FLAG, "--workspace");
	struct policy *p = compile_builder(b);
	assert_mandatory(p, "/srv/proj/sandbox.ini");
	policy_free(p);
}

Test(policy_decide, mandatory_user_config_file_loaded_by_path_is_protected)
{
	char *dir = make_tmpdir();
	char path[4096], other[4200], ini[8300];
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err = { .msg = "" };

	snprintf(path, sizeof(path), "%s/my-sandbox.ini", dir);
	snprintf(other, sizeof(other), "%s/notes.txt", dir);
	snprintf(ini, sizeof(ini), "[filesystem]\nallow_write = %s\n", dir);
	write_file(path, ini);
	int rc = policy_builder_load_file(b, path, path, POLICY_LAYER_USER, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	struct policy *p = compile_builder(b);
	remove_tree(dir);

	assert_mandatory(p, path);
	assert_verdict(p, SBX_OP_WRITE, other, SBX_ALLOW);
	policy_free(p);
	free(dir);
}

/* The deciding rule explains itself: kind, value as written, source. */

Test(policy_decide, why_file_rule_names_file_and_line)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_write = ~/proj/locked\n");
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/home/u/proj/locked/a", SBX_DENY);

	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_WRITE);
	cr_assert_eq(why->origin, SBX_ORIGIN_FILE);
	cr_assert_str_eq(why->value, "~/proj/locked");
	cr_assert_str_eq(why->pattern, "/home/u/proj/locked");
	cr_assert_str_eq(why->source, "test.ini:2");
	cr_assert_str_eq(sbx_rule_key(why->kind), "deny_write");
	policy_free(p);
}

Test(policy_decide, why_list_item_names_its_own_line)
{
	struct policy *p = compile_ini("[filesystem]\n; first\ndeny_read = /srv/a\n\n"
				       "deny_read = /srv/b, /srv/c\n");
	const struct sbx_rule *why = check_why(p, SBX_OP_READ, "/srv/c/x", SBX_DENY);

	cr_assert_not_null(why);
	cr_assert_str_eq(why->value, "/srv/c");
	cr_assert_str_eq(why->source, "test.ini:5");
	why = check_why(p, SBX_OP_READ, "/srv/a", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_str_eq(why->source, "test.ini:3");
	policy_free(p);
}

Test(policy_decide, why_flag_rule_names_the_flag)
{
	struct policy_builder *b = builder_ini(NULL);

	builder_set(b, "filesystem", "allow_write", "/srv/data", SBX_ORIGIN_FLAG, "--allow-write");
	struct policy *p = compile_builder(b);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/srv/data/x", SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_ALLOW_WRITE);
	cr_assert_eq(why->origin, SBX_ORIGIN_FLAG);
	cr_assert_str_eq(why->value, "/srv/data");
	cr_assert_str_eq(why->source, "--allow-write");
	policy_free(p);
}

Test(policy_decide, why_flag_deny_read_names_the_flag)
{
	struct policy_builder *b = builder_ini("[filesystem]\nallow_read = /srv\n");

	builder_set(b, "filesystem", "deny_read", "/srv/keys", SBX_ORIGIN_FLAG, "--deny-read");
	struct policy *p = compile_builder(b);
	const struct sbx_rule *why = check_why(p, SBX_OP_READ, "/srv/keys/k", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_READ);
	cr_assert_str_eq(why->source, "--deny-read");
	policy_free(p);
}

Test(policy_decide, why_flag_deny_write_beats_file_allow_write)
{
	struct policy_builder *b = builder_ini("[filesystem]\nallow_write = /srv\n");

	builder_set(b, "filesystem", "deny_write", "/srv/db", SBX_ORIGIN_FLAG, "--deny-write");
	struct policy *p = compile_builder(b);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/srv/db/x", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_str_eq(why->source, "--deny-write");
	why = check_why(p, SBX_OP_WRITE, "/srv/other", SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_str_eq(why->source, "test.ini:2");
	policy_free(p);
}

Test(policy_decide, why_default_rule_names_default)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = check_why(p, SBX_OP_READ, "/home/u/.aws/credentials", SBX_DENY);

	cr_assert_not_null(why);
	cr_assert_str_eq(why->source, "default");
	cr_assert_str_eq(why->value, "~/.aws");
	cr_assert_str_eq(why->pattern, "/home/u/.aws");
	policy_free(p);
}

Test(policy_decide, why_mandatory_rule_names_mandatory)
{
	struct policy *p = compile_ini("");

	assert_mandatory(p, "/w/.git/hooks/pre-push");
	policy_free(p);
}

Test(policy_decide, why_rules_keep_the_order_they_were_added)
{
	struct policy_builder *b = builder_ini("[filesystem]\ndeny_write = /srv/a\n");

	builder_set(b, "filesystem", "deny_write", "/srv/b", SBX_ORIGIN_FLAG, "--deny-write");
	struct policy *p = compile_builder(b);
	size_t n = 0;
	const struct sbx_rule *const *rules = policy_rules(p, SBX_RULE_DENY_WRITE, &n);
	cr_assert_eq(n, 3, "default .env, file, flag: got %zu rules", n);
	cr_assert_str_eq(rules[0]->value, ".env");
	cr_assert_str_eq(rules[1]->value, "/srv/a");
	cr_assert_str_eq(rules[2]->value, "/srv/b");
	policy_free(p);
}
