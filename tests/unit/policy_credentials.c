/* tests/unit/policy_credentials.c: the credential table (policy/credentials.c)
 * as the policy applies it, what each built-in profile lifts, and the table
 * as docs/POLICY.md shows it. Run from the repository root (the profiles
 * and the docs are read from the tree). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/helpers.h"

static const char *const profiles[] = { "claude", "codex", "gemini", "mcp" };

/* A row's path against the test HOME. */
static void expand(const char *row, char *out, size_t outsz)
{
	cr_assert(!strncmp(row, "~/", 2), "%s: a row is a path under HOME", row);
	snprintf(out, outsz, "%s/%s", TEST_HOME, row + 2);
}

static struct policy *compile_with_profile(const char *name)
{
	char file[256];
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err = { .msg = "" };

	snprintf(file, sizeof(file), "share/sbx/profiles/%s.ini", name);
	cr_assert_eq(policy_builder_load_file(b, file, file, POLICY_LAYER_PROFILE, &err), 0,
		     "%s: %s", file, err.msg);
	return compile_builder(b);
}

Test(policy_credentials, every_row_is_read_denied_by_default_with_its_path_as_the_rule)
{
	struct policy *p = compile_ini("");

	for (size_t i = 0; i < sbx_ncredentials; i++) {
		char path[512], below[600];
		const struct sbx_rule *why = NULL;
		expand(sbx_credentials[i].path, path, sizeof(path));
		snprintf(below, sizeof(below), "%s/x", path);
		cr_assert_eq(policy_check_path(p, SBX_OP_READ, path, &why), SBX_DENY, "%s", path);
		cr_assert_not_null(why);
		cr_assert_str_eq(why->value, sbx_credentials[i].path);
		cr_assert_eq(why->origin, SBX_ORIGIN_DEFAULT);
		/* a directory's files, and never a write either */
		cr_assert_eq(policy_check_path(p, SBX_OP_READ, below, NULL), SBX_DENY, "%s", below);
		cr_assert_eq(policy_check_path(p, SBX_OP_WRITE, path, NULL), SBX_DENY, "%s", path);
	}
	policy_free(p);
}

Test(policy_credentials, rows_are_literal_paths_with_owner_and_reason)
{
	for (size_t i = 0; i < sbx_ncredentials; i++) {
		const struct sbx_credential *c = &sbx_credentials[i];
		cr_assert(!strncmp(c->path, "~/", 2) && !strpbrk(c->path, "*?[") &&
			  c->path[strlen(c->path) - 1] != '/', "%s: a literal path under HOME", c->path);
		cr_assert(c->owner && *c->owner && c->reason && *c->reason, "%s", c->path);
		for (size_t j = 0; j < i; j++)
			cr_assert_str_neq(c->path, sbx_credentials[j].path, "a row twice");
	}
}

Test(policy_credentials, a_profile_lifts_its_own_agents_rows_and_no_other)
{
	for (size_t k = 0; k < sizeof(profiles) / sizeof(*profiles); k++) {
		struct policy *p = compile_with_profile(profiles[k]);
		for (size_t i = 0; i < sbx_ncredentials; i++) {
			const struct sbx_credential *c = &sbx_credentials[i];
			char path[512];
			bool own = c->profile && !strcmp(c->profile, profiles[k]);
			expand(c->path, path, sizeof(path));
			cr_assert_eq(policy_check_path(p, SBX_OP_READ, path, NULL),
				     own ? SBX_ALLOW : SBX_DENY, "profile %s, %s: expected %s",
				     profiles[k], c->path, own ? "lifted" : "denied");
		}
		policy_free(p);
	}
}

Test(policy_credentials, the_agents_login_variables_are_kept_by_their_profile_only)
{
	static const struct {
		const char *profile, *kept[3];
	} want[] = {
		{ "claude", { "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN" } },
		{ "codex", { "OPENAI_API_KEY", "CODEX_API_KEY", NULL } },
		{ "gemini", { "GEMINI_API_KEY", "GOOGLE_API_KEY", NULL } },
		{ "mcp", { NULL } },
	};
	static const char *const all[] = { "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
					   "CLAUDE_CODE_OAUTH_TOKEN", "OPENAI_API_KEY",
					   "CODEX_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY" };

	for (size_t k = 0; k < sizeof(want) / sizeof(*want); k++) {
		struct policy *p = compile_with_profile(want[k].profile);
		for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++) {
			bool kept = false;
			for (size_t j = 0; j < 3 && want[k].kept[j]; j++)
				kept |= !strcmp(want[k].kept[j], all[i]);
			cr_assert_eq(policy_env_fate(p, all[i], NULL), kept ? SBX_ENV_KEPT : SBX_ENV_SECRET,
				     "profile %s, %s", want[k].profile, all[i]);
		}
		cr_assert_eq(policy_env_fate(p, "GITHUB_TOKEN", NULL), SBX_ENV_SECRET);
		policy_free(p);
	}
}

Test(policy_credentials, every_row_is_in_the_documented_table)
{
	FILE *f = fopen("docs/POLICY.md", "re");
	static char doc[1 << 18];
	size_t n;

	cr_assert_not_null(f, "docs/POLICY.md (run from the repository root)");
	n = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[n] = '\0';
	for (size_t i = 0; i < sbx_ncredentials; i++) {
		char cell[300];
		snprintf(cell, sizeof(cell), "| `%s` |", sbx_credentials[i].path);
		cr_assert_not_null(strstr(doc, cell), "docs/POLICY.md has no row %s", cell);
	}
}

Test(policy_credentials, xdg_config_home_rows_are_denied_there_too,
     .description = "gh, rclone, git's credential store read $XDG_CONFIG_HOME when it is set")
{
	struct policy_ctx ctx = test_ctx;
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { "" };
	size_t nconfig = 0, n = 0;

	ctx.config_dir = "/srv/xdg/config/sbx";
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	cr_assert_eq(policy_compile(b, &p, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < sbx_ncredentials; i++) {
		char path[512];
		const struct sbx_rule *why = NULL;
		if (strncmp(sbx_credentials[i].path, "~/.config/", 10))
			continue;
		nconfig++;
		snprintf(path, sizeof(path), "/srv/xdg/config/%s", sbx_credentials[i].path + 10);
		cr_assert_eq(policy_check_path(p, SBX_OP_READ, path, &why), SBX_DENY, "%s", path);
		cr_assert_eq(why->origin, SBX_ORIGIN_DEFAULT);
		cr_assert_str_eq(why->pattern, path);
	}
	policy_rules(p, SBX_RULE_DENY_READ, &n);
	cr_assert_eq(n, sbx_ncredentials + nconfig);
	cr_assert(nconfig >= 5, "gh, hub, glab, rclone, git credentials, ...: %zu", nconfig);
	cr_assert_eq(policy_check_path(p, SBX_OP_READ, "/srv/xdg/config/other.conf", NULL), SBX_ALLOW);
	policy_free(p);
}

Test(policy_credentials, a_variable_naming_a_device_or_the_system_denies_nothing,
     .description = "HISTFILE=/dev/null (no history kept) left /dev/null unreadable for every program")
{
	char *env[] = { "HISTFILE=/dev/null", "GNUPGHOME=/etc", "KUBECONFIG=/proc/self/environ:/srv/kube/cfg",
			"NETRC=/srv/me/netrc", NULL };
	struct policy_ctx ctx = test_ctx;
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { "" };

	ctx.environ = env;
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	cr_assert_eq(policy_compile(b, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(policy_check_path(p, SBX_OP_READ, "/dev/null", NULL), SBX_ALLOW);
	cr_assert_eq(policy_check_path(p, SBX_OP_READ, "/etc/passwd", NULL), SBX_ALLOW);
	cr_assert_eq(policy_check_path(p, SBX_OP_READ, "/proc/self/environ", NULL), SBX_ALLOW);
	/* a user's store named the same way still is one */
	cr_assert_eq(policy_check_path(p, SBX_OP_READ, "/srv/kube/cfg", NULL), SBX_DENY);
	cr_assert_eq(policy_check_path(p, SBX_OP_READ, "/srv/me/netrc", NULL), SBX_DENY);
	policy_free(p);
}

/* What a person typed is read and rewritten by its own tool at every
 * start (vim's ~/.viminfo, less's ~/.lesshst, bash's ~/.bash_history):
 * refused every session, so quiet — logged, counted, never shown. A login
 * or a key is never quiet: its refusal is news. */
Test(policy_credentials, histories_are_quiet_by_default_logins_never)
{
	struct policy *p = compile_ini("");
	char path[512];
	const struct sbx_rule *q;

	for (size_t i = 0; i < sbx_ncredentials; i++) {
		expand(sbx_credentials[i].path, path, sizeof(path));
		q = policy_report_quiet(p, true, path);
		if (!sbx_credentials[i].quiet) {
			cr_assert_null(q, "%s is a login: never quiet", path);
			continue;
		}
		cr_assert_not_null(q, "%s", path);
		cr_assert_eq(q->origin, SBX_ORIGIN_DEFAULT);
		cr_assert_str_eq(q->value, sbx_credentials[i].path);
	}
	static const char *const typed[] = { "~/.viminfo", "~/.lesshst", "~/.bash_history" };
	for (size_t i = 0; i < 3; i++) {
		expand(typed[i], path, sizeof(path));
		cr_assert_not_null(policy_report_quiet(p, true, path), "%s", path);
	}
	expand("~/.ssh/id_ed25519", path, sizeof(path));
	cr_assert_null(policy_report_quiet(p, true, path));
	policy_free(p);
}

/* The claude profile keeps its own agent's key, by name, whatever shape
 * its value has; another agent's key with the same shape does not pass. */
Test(policy_credentials, a_profile_keeps_its_own_agents_key_with_a_credential_value)
{
	struct policy *p = compile_with_profile("claude");

	cr_assert_not(policy_env_var_denied(p, "ANTHROPIC_API_KEY",
					    "sk-ant-api03-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1"));
	cr_assert(policy_env_var_denied(p, "MY_OTHER_KEY_HOLDER",
					"sk-ant-api03-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1"));
	policy_free(p);
}
