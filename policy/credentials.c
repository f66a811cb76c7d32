/* policy/credentials.c: what authenticates someone, or holds what they typed.
 *
 * Two principles, each with its explanation as data (docs/POLICY.md,
 * "Credentials"):
 * - a file that authenticates its owner to a service (a token, a key, a
 *   password, a session cookie), or that holds what a person typed (a
 *   shell's or a REPL's history, an agent's prompt history, where pasted
 *   secrets end up), is read-denied by default: the table below, one row a
 *   file or directory at the place its tool documents, with the tool and
 *   the reason. An agent profile lifts its own agent's rows (`allow_read`
 *   in share/sbx/profiles/NAME.ini) and no other;
 * - an environment variable whose name says it holds a secret is withheld
 *   from COMMAND unless `keep_env` (or a profile) keeps it:
 *   sbx_env_secret_name().
 *
 * Every row is a literal path (no glob): the plan costs one stat() a row,
 * and a row that does not exist costs nothing more (bench/startup).
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <string.h>

#include "internal.h"

const struct sbx_credential sbx_credentials[] = {
	/* ---- the agents' own logins. Under its profile an agent keeps its
	 * state in a directory of its own (docs/AGENTS.md): that copy is
	 * the one the profile lifts; the person's own login stays closed to
	 * every sandboxed program, the agent included. */
	{ "~/.claude/.credentials.json", "Claude Code", "OAuth access and refresh tokens of the Claude login", NULL, false },
	{ "~/.claude.json", "Claude Code", "/login's API key (primaryApiKey) and the MCP servers' env with their tokens", NULL, false },
	{ "~/.claude/history.jsonl", "Claude Code", "every prompt typed", NULL, false },
	{ "~/.claude-sbx/.credentials.json", "Claude Code (claude profile)", "the sandboxed claude's login", "claude", false },
	{ "~/.claude-sbx/.claude.json", "Claude Code (claude profile)", "its API key and MCP servers' env, as ~/.claude.json", "claude", false },
	{ "~/.claude-sbx/history.jsonl", "Claude Code (claude profile)", "every prompt typed to the sandboxed claude", "claude", false },
	{ "~/.codex/auth.json", "Codex CLI", "the OpenAI API key or ChatGPT tokens", NULL, false },
	{ "~/.codex/.credentials.json", "Codex CLI", "MCP servers' OAuth tokens", NULL, false },
	{ "~/.codex/history.jsonl", "Codex CLI", "every prompt typed", NULL, false },
	{ "~/.codex-sbx/auth.json", "Codex CLI (codex profile)", "the sandboxed codex's login", "codex", false },
	{ "~/.codex-sbx/.credentials.json", "Codex CLI (codex profile)", "its MCP servers' OAuth tokens", "codex", false },
	{ "~/.codex-sbx/history.jsonl", "Codex CLI (codex profile)", "every prompt typed to the sandboxed codex", "codex", false },
	{ "~/.gemini/oauth_creds.json", "Gemini CLI", "Google OAuth tokens of the Gemini login", NULL, false },
	{ "~/.gemini/mcp-oauth-tokens.json", "Gemini CLI", "MCP servers' OAuth tokens", NULL, false },
	{ "~/.gemini/gemini-credentials.json", "Gemini CLI", "the same tokens, in its encrypted file store (the key is derived on this machine)", NULL, false },
	{ "~/.gemini/a2a-oauth-tokens.json", "Gemini CLI", "remote agents' OAuth tokens", NULL, false },
	{ "~/.gemini/.env", "Gemini CLI", "GEMINI_API_KEY, where its documentation says to put it", NULL, false },
	{ "~/.gemini-sbx/.gemini/oauth_creds.json", "Gemini CLI (gemini profile)", "the sandboxed gemini's login", "gemini", false },
	{ "~/.gemini-sbx/.gemini/mcp-oauth-tokens.json", "Gemini CLI (gemini profile)", "its MCP servers' OAuth tokens", "gemini", false },
	{ "~/.gemini-sbx/.gemini/gemini-credentials.json", "Gemini CLI (gemini profile)", "its encrypted token store", "gemini", false },
	{ "~/.gemini-sbx/.gemini/a2a-oauth-tokens.json", "Gemini CLI (gemini profile)", "its remote agents' tokens", "gemini", false },
	{ "~/.gemini-sbx/.gemini/.env", "Gemini CLI (gemini profile)", "its GEMINI_API_KEY", "gemini", false },
	{ "~/.config/github-copilot", "GitHub Copilot", "the OAuth token of editors' and the CLI's Copilot login", NULL, false },
	{ "~/.env", "dotenv, Gemini CLI", "a home-wide .env: API keys by convention (Gemini CLI reads it)", NULL, false },

	/* ---- keys, clouds, forges, registries */
	{ "~/.ssh", "OpenSSH", "private keys, and known_hosts (where one has been)", NULL, false },
	{ "~/.gnupg", "GnuPG", "private keys", NULL, false },
	{ "~/.aws", "AWS CLI and SDKs", "access keys, SSO tokens", NULL, false },
	{ "~/.azure", "Azure CLI", "tokens", NULL, false },
	{ "~/.config/gcloud", "Google Cloud SDK", "OAuth tokens, service account keys", NULL, false },
	{ "~/.oci", "Oracle Cloud CLI", "API signing keys", NULL, false },
	{ "~/.kube", "kubectl", "cluster certificates and tokens", NULL, false },
	{ "~/.docker/config.json", "Docker", "registry logins", NULL, false },
	{ "~/.dockercfg", "Docker (before 1.7)", "registry logins", NULL, false },
	{ "~/.config/containers/auth.json", "Podman, Skopeo, Buildah", "registry logins", NULL, false },
	{ "~/.config/gh", "GitHub CLI", "OAuth token (hosts.yml)", NULL, false },
	{ "~/.config/hub", "hub", "GitHub OAuth token", NULL, false },
	{ "~/.config/glab-cli", "GitLab CLI", "tokens (config.yml)", NULL, false },
	{ "~/.netrc", "curl, git, ftp, Heroku CLI", "logins and passwords by host", NULL, false },
	{ "~/.git-credentials", "git credential-store", "passwords and tokens by host, in clear", NULL, false },
	{ "~/.config/git/credentials", "git credential-store", "the same, at its XDG place", NULL, false },
	{ "~/.npmrc", "npm", "registry tokens (npm login's _authToken)", NULL, false },
	{ "~/.yarnrc.yml", "Yarn 2+", "registry tokens (yarn npm login's npmAuthToken)", NULL, false },
	{ "~/.pypirc", "twine, setuptools", "PyPI passwords and tokens", NULL, false },
	{ "~/.cargo/credentials.toml", "Cargo", "crates.io token", NULL, false },
	{ "~/.cargo/credentials", "Cargo (before 1.39)", "crates.io token", NULL, false },
	{ "~/.gem/credentials", "RubyGems", "rubygems.org API key", NULL, false },
	{ "~/.local/share/gem/credentials", "RubyGems (XDG)", "rubygems.org API key", NULL, false },
	{ "~/.composer/auth.json", "Composer", "repository tokens and passwords", NULL, false },
	{ "~/.config/composer/auth.json", "Composer (XDG)", "repository tokens and passwords", NULL, false },
	{ "~/.m2/settings.xml", "Maven", "repository passwords (its servers section)", NULL, false },
	{ "~/.m2/settings-security.xml", "Maven", "the master password those are encrypted with", NULL, false },
	{ "~/.gradle/gradle.properties", "Gradle", "publishing and signing credentials, where Gradle's documentation puts them", NULL, false },
	{ "~/.vault-token", "HashiCorp Vault", "token", NULL, false },
	{ "~/.terraform.d/credentials.tfrc.json", "Terraform", "HCP Terraform and registry tokens", NULL, false },
	{ "~/.terraformrc", "Terraform", "credentials blocks", NULL, false },
	{ "~/.config/rclone/rclone.conf", "rclone", "every remote's tokens and passwords", NULL, false },
	{ "~/.s3cfg", "s3cmd", "access keys", NULL, false },
	{ "~/.boto", "gsutil, boto", "access keys, OAuth refresh token", NULL, false },
	{ "~/.databrickscfg", "Databricks CLI", "tokens", NULL, false },
	{ "~/.config/doctl", "DigitalOcean CLI", "API token", NULL, false },
	{ "~/.fly", "flyctl", "access token (config.yml)", NULL, false },
	{ "~/.pgpass", "PostgreSQL (libpq)", "database passwords", NULL, false },
	{ "~/.my.cnf", "MySQL, MariaDB clients", "a [client] password", NULL, false },
	{ "~/.mylogin.cnf", "mysql_config_editor", "database passwords (obfuscated, not encrypted)", NULL, false },
	{ "~/.config/sops/age/keys.txt", "sops, age", "private keys", NULL, false },
	{ "~/.password-store", "pass", "the password store", NULL, false },
	{ "~/.config/op", "1Password CLI", "account and session data", NULL, false },
	{ "~/.local/share/keyrings", "GNOME Keyring", "every secret stored in it", NULL, false },
	{ "~/.mozilla", "Firefox", "cookies and saved passwords", NULL, false },
	{ "~/.config/google-chrome", "Chrome", "cookies and saved passwords", NULL, false },
	{ "~/.config/chromium", "Chromium", "cookies and saved passwords", NULL, false },

	/* ---- what a person typed: shells, REPLs and clients keep every line,
	 * passwords given on a command line and pasted tokens included. Each
	 * tool reads its file at every start and rewrites it at exit: those
	 * refusals come every session, so they are quiet (`quiet`: logged,
	 * counted, not shown) */
	{ "~/.bash_history", "bash", "every command typed", NULL, true },
	{ "~/.zsh_history", "zsh", "every command typed", NULL, true },
	{ "~/.zhistory", "zsh (prezto, grml)", "every command typed", NULL, true },
	{ "~/.histfile", "zsh (its new-user set-up)", "every command typed", NULL, true },
	{ "~/.sh_history", "ksh, mksh", "every command typed", NULL, true },
	{ "~/.ash_history", "BusyBox ash", "every command typed", NULL, true },
	{ "~/.local/share/fish/fish_history", "fish", "every command typed", NULL, true },
	{ "~/.python_history", "Python REPL", "every line typed", NULL, true },
	{ "~/.node_repl_history", "Node.js REPL", "every line typed", NULL, true },
	{ "~/.irb_history", "Ruby irb", "every line typed", NULL, true },
	{ "~/.ipython/profile_default/history.sqlite", "IPython, Jupyter", "every cell and line typed", NULL, true },
	{ "~/.julia/logs/repl_history.jl", "Julia REPL", "every line typed", NULL, true },
	{ "~/.psql_history", "psql", "every query typed (ALTER ROLE ... PASSWORD)", NULL, true },
	{ "~/.mysql_history", "mysql", "every query typed", NULL, true },
	{ "~/.sqlite_history", "sqlite3", "every statement typed", NULL, true },
	{ "~/.rediscli_history", "redis-cli", "every command typed (AUTH)", NULL, true },
	{ "~/.dbshell", "mongo (legacy shell)", "every command typed", NULL, true },
	{ "~/.mongosh", "mongosh", "every command typed (mongosh_repl_history)", NULL, true },
	{ "~/.lesshst", "less", "every search typed", NULL, true },
	{ "~/.viminfo", "Vim", "command-line and search history, registers (what was yanked)", NULL, true },
};

const size_t sbx_ncredentials = sizeof(sbx_credentials) / sizeof(sbx_credentials[0]);

/* The same files where the tool's own variable puts them: the row is the
 * file, wherever the person keeps it (`CARGO_HOME=/opt/cargo`). Read from
 * the caller's environment when the policy is built (policy_ctx.environ). */
const struct sbx_credential_env sbx_credential_envs[] = {
	{ "CLAUDE_CONFIG_DIR", ".credentials.json", false, "Claude Code", "OAuth tokens of the Claude login" },
	{ "CLAUDE_CONFIG_DIR", ".claude.json", false, "Claude Code", "its API key and MCP servers' env" },
	{ "CODEX_HOME", "auth.json", false, "Codex CLI", "the OpenAI API key or ChatGPT tokens" },
	{ "CODEX_HOME", ".credentials.json", false, "Codex CLI", "MCP servers' OAuth tokens" },
	{ "GEMINI_CLI_HOME", ".gemini/oauth_creds.json", false, "Gemini CLI", "Google OAuth tokens" },
	{ "GNUPGHOME", "", false, "GnuPG", "private keys" },
	{ "AWS_SHARED_CREDENTIALS_FILE", "", false, "AWS CLI and SDKs", "access keys" },
	{ "AZURE_CONFIG_DIR", "", false, "Azure CLI", "tokens" },
	{ "CLOUDSDK_CONFIG", "", false, "Google Cloud SDK", "OAuth tokens, service account keys" },
	{ "GOOGLE_APPLICATION_CREDENTIALS", "", false, "Google Cloud client libraries", "a service account's private key" },
	{ "KUBECONFIG", "", true, "kubectl", "cluster certificates and tokens" },
	{ "DOCKER_CONFIG", "config.json", false, "Docker", "registry logins" },
	{ "REGISTRY_AUTH_FILE", "", false, "Podman, Skopeo, Buildah", "registry logins" },
	{ "GH_CONFIG_DIR", "", false, "GitHub CLI", "OAuth token (hosts.yml)" },
	{ "NPM_CONFIG_USERCONFIG", "", false, "npm", "registry tokens" },
	{ "CARGO_HOME", "credentials.toml", false, "Cargo", "crates.io token" },
	{ "CARGO_HOME", "credentials", false, "Cargo (before 1.39)", "crates.io token" },
	{ "GEM_HOST_API_KEY_FILE", "", false, "RubyGems", "rubygems.org API key" },
	{ "PGPASSFILE", "", false, "PostgreSQL clients", "passwords by host" },
	{ "NETRC", "", false, "curl, git, ftp", "logins and passwords by host" },
	{ "HISTFILE", "", false, "bash, zsh", "every command typed" },
};

const size_t sbx_ncredential_envs = sizeof(sbx_credential_envs) / sizeof(sbx_credential_envs[0]);

/* ---- secret-looking environment variable names */

static char up(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
}

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Does the upper-cased word w[0..n) equal s, or end with it (tail)? */
static bool word_is(const char *w, size_t n, const char *s, bool tail)
{
	size_t k = strlen(s);

	if (n < k || (!tail && n != k))
		return false;
	for (size_t i = 0; i < k; i++)
		if (up(w[n - k + i]) != s[i])
			return false;
	return true;
}

/* Anywhere in the name, case aside. */
static bool contains(const char *name, const char *s)
{
	size_t k = strlen(s);

	for (const char *p = name; *p; p++) {
		size_t i = 0;
		while (i < k && p[i] && up(p[i]) == s[i])
			i++;
		if (i == k)
			return true;
	}
	return false;
}

/* The name cut into words at every character other than a letter or digit
 * (`npm_config_//registry.npmjs.org/:_authToken` is npm, config, registry,
 * npmjs, org, authToken), compared without case:
 * - SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL anywhere in it;
 * - a word that is or ends in TOKEN (GITHUB_TOKEN, npm's _authToken; not
 *   TOKENIZERS_PARALLELISM), or is JWT or APIKEY;
 * - a last word KEY (OPENAI_API_KEY, STRIPE_KEY: a key named by what it
 *   opens), unless the word before says it is public (PUBLIC, PUBLISHABLE);
 *   AWS_ACCESS_KEY_ID, an identifier, passes;
 * - a last word PWD, PASS, AUTH or PAT after another word (MYSQL_PWD,
 *   ANSIBLE_BECOME_PASS, NPM_CONFIG__AUTH, GITHUB_PAT; not PWD itself, nor
 *   SSH_AUTH_SOCK or GIT_ASKPASS);
 * - names that hold a secret without saying so: BW_SESSION (Bitwarden),
 *   OP_SESSION_* (1Password), SSHPASS (sshpass -e), DOCKER_AUTH_CONFIG.
 * Allocation-free. */
bool sbx_env_secret_name(const char *name)
{
	static const char *const anywhere[] = { "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",
						"CREDENTIAL" };
	static const char *const known[] = { "BW_SESSION", "SSHPASS", "DOCKER_AUTH_CONFIG" };
	const char *prev = NULL, *last = NULL;
	size_t prevn = 0, lastn = 0, words = 0;

	if (!name || !*name)
		return false;
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(name, known[i]))
			return true;
	if (!strncmp(name, "OP_SESSION_", 11))
		return true;
	for (size_t i = 0; i < sizeof(anywhere) / sizeof(*anywhere); i++)
		if (contains(name, anywhere[i]))
			return true;
	for (const char *p = name; *p;) {
		while (*p && !alnum(*p))
			p++;
		const char *w = p;
		while (*p && alnum(*p))
			p++;
		size_t n = (size_t)(p - w);
		if (!n)
			break;
		if (word_is(w, n, "TOKEN", true) || word_is(w, n, "JWT", false) ||
		    word_is(w, n, "APIKEY", false))
			return true;
		prev = last;
		prevn = lastn;
		last = w;
		lastn = n;
		words++;
	}
	if (words < 2)
		return false;
	if (word_is(last, lastn, "KEY", false))
		return !word_is(prev, prevn, "PUBLIC", false) &&
		       !word_is(prev, prevn, "PUBLISHABLE", false);
	return word_is(last, lastn, "PWD", false) || word_is(last, lastn, "PASS", false) ||
	       word_is(last, lastn, "AUTH", false) || word_is(last, lastn, "PAT", false);
}

static const struct sbx_rule *env_rule(const struct policy *p, enum sbx_rule_kind kind,
				       const char *name)
{
	for (size_t i = 0; i < p->nby_kind[kind]; i++)
		if (fnmatch(p->by_kind[kind][i]->pattern, name, 0) == 0)
			return p->by_kind[kind][i];
	return NULL;
}

/* deny_env is the person's own list: no keep_env lifts it. keep_env lifts
 * only what the name alone would withhold. */
enum sbx_env_fate policy_env_fate(const struct policy *p, const char *name,
				  const struct sbx_rule **why)
{
	const struct sbx_rule *r = env_rule(p, SBX_RULE_DENY_ENV, name);

	if (why)
		*why = r;
	if (r)
		return SBX_ENV_DENIED;
	if (!sbx_env_secret_name(name))
		return SBX_ENV_PASS;
	r = env_rule(p, SBX_RULE_KEEP_ENV, name);
	if (why)
		*why = r;
	return r ? SBX_ENV_KEPT : SBX_ENV_SECRET;
}

bool policy_env_denied(const struct policy *p, const char *name,
		       const struct sbx_rule **why)
{
	const struct sbx_rule *r;
	enum sbx_env_fate f = policy_env_fate(p, name, &r);

	if (why)
		*why = f == SBX_ENV_DENIED ? r : NULL;
	return f == SBX_ENV_DENIED || f == SBX_ENV_SECRET;
}
