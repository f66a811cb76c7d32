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
 *   sbx_env_secret_name();
 * - and so is one whose value has the shape of a credential, whatever its
 *   name (DATABASE_URL=postgres://u:pw@db/x, MY_CFG=ghp_...): a URL with a
 *   password, a token in a provider's documented format, a JWT, a PEM
 *   private key. The table sbx_secret_shapes below, a row a shape with
 *   its owner and reason: sbx_env_secret_value().
 *
 * Every row is a literal path (no glob): the plan costs one stat() a row,
 * and a row that does not exist costs nothing more (bench/startup).
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <string.h>

#include "policy/internal.h"

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

/* ---- secret-looking environment variable values
 *
 * A value is a credential by its shape, decided by principle: whatever the
 * name, a value that authenticates whoever holds it is withheld like a
 * secret-looking name. Tokens are matched where they start a word of the
 * value (at its start, or after a character other than a letter or a
 * digit: `Authorization: Bearer ghp_...` and `{"token":"npm_..."}` count;
 * `task-...` does not hold `sk-`), by the prefix their issuer documents
 * and a body long enough to be a key rather than a word. No row needs the
 * value to be only the token. The value itself is never printed: the line
 * names the variable and the row's `what`. */
#define SET_ALNUM 1     /* A-Za-z0-9 */
#define SET_WORD 2      /* A-Za-z0-9_ */
#define SET_B64URL 3    /* A-Za-z0-9_- */
#define SET_UPPER 4     /* A-Z0-9 */
#define SHAPE_TOKEN 0   /* prefix, then min..max characters of set */
#define SHAPE_URL 1     /* scheme://user:password@host */
#define SHAPE_JWT 2     /* eyJ<header>.<payload>.<signature>, base64url */
#define SHAPE_PEM 3     /* -----BEGIN ... PRIVATE KEY----- */

const struct sbx_secret_shape sbx_secret_shapes[] = {
	{ "a URL with a password", "any client (libpq, redis, AMQP, MongoDB, git, pip)",
	  "scheme://user:password@host carries the password in its userinfo (RFC 3986 3.2.1 "
	  "deprecates it for that reason): DATABASE_URL, REDIS_URL, a registry URL",
	  SHAPE_URL, NULL, 0, 0, 0 },
	{ "a GitHub personal access token", "GitHub",
	  "ghp_ + 36 base62 characters, GitHub's documented format for classic personal "
	  "access tokens: the account's repositories, as far as its scopes reach",
	  SHAPE_TOKEN, "ghp_", 30, 0, SET_ALNUM },
	{ "a GitHub OAuth token", "GitHub", "gho_: an OAuth app's access token for a user",
	  SHAPE_TOKEN, "gho_", 30, 0, SET_ALNUM },
	{ "a GitHub App user token", "GitHub", "ghu_: a GitHub App's user-to-server token",
	  SHAPE_TOKEN, "ghu_", 30, 0, SET_ALNUM },
	{ "a GitHub App installation token", "GitHub",
	  "ghs_: a server-to-server token (the GITHUB_TOKEN of an Actions job is one)",
	  SHAPE_TOKEN, "ghs_", 30, 0, SET_ALNUM },
	{ "a GitHub refresh token", "GitHub", "ghr_: trades for new user tokens",
	  SHAPE_TOKEN, "ghr_", 30, 0, SET_ALNUM },
	{ "a GitHub fine-grained access token", "GitHub",
	  "github_pat_: a fine-grained personal access token", SHAPE_TOKEN, "github_pat_", 40,
	  0, SET_WORD },
	{ "a GitLab personal access token", "GitLab",
	  "glpat-: GitLab's documented prefix for personal, project and group access tokens",
	  SHAPE_TOKEN, "glpat-", 20, 0, SET_B64URL },
	{ "an Anthropic API key", "Anthropic",
	  "sk-ant-: Claude API keys (sk-ant-api03-) and Claude Code's OAuth tokens "
	  "(sk-ant-oat01-); billed to the account", SHAPE_TOKEN, "sk-ant-", 32, 0, SET_B64URL },
	{ "an OpenAI API key", "OpenAI",
	  "sk-proj-: a project's key, the form the platform issues now",
	  SHAPE_TOKEN, "sk-proj-", 32, 0, SET_B64URL },
	{ "an OpenAI API key", "OpenAI", "sk-svcacct-: a service account's key",
	  SHAPE_TOKEN, "sk-svcacct-", 32, 0, SET_B64URL },
	{ "an OpenAI API key", "OpenAI", "sk-admin-: an organisation admin key",
	  SHAPE_TOKEN, "sk-admin-", 32, 0, SET_B64URL },
	{ "an OpenAI API key", "OpenAI",
	  "sk- + 48 letters and digits: a user key in the first format (and other "
	  "providers' keys that copied it); 32 or more letters and digits with no "
	  "dash, so `sk-learn-...` and the like are words", SHAPE_TOKEN, "sk-", 32, 0,
	  SET_ALNUM },
	{ "a Slack token", "Slack",
	  "xoxb- (bot), xoxp- (user), xoxa- (app), xoxr- (refresh), xoxs- (session): "
	  "Slack's documented token prefixes", SHAPE_TOKEN, "xox[abprs]-", 10, 0, SET_B64URL },
	{ "an AWS access key id", "AWS",
	  "AKIA + 16: a long-term access key's id; it signs nothing alone, but names the key "
	  "and its account, and its secret is rarely far (the next variable, a file)",
	  SHAPE_TOKEN, "AKIA", 16, 16, SET_UPPER },
	{ "an AWS temporary access key id", "AWS",
	  "ASIA + 16: an STS session's key id, used with its secret and session token",
	  SHAPE_TOKEN, "ASIA", 16, 16, SET_UPPER },
	{ "an npm access token", "npm", "npm_ + 36: npm's granular and automation tokens "
	  "(publish rights to the account's packages)", SHAPE_TOKEN, "npm_", 36, 0, SET_ALNUM },
	{ "a Google API key", "Google Cloud",
	  "AIza + 35: a Google Cloud API key (Maps, Gemini API: GEMINI_API_KEY's value), "
	  "billed to its project", SHAPE_TOKEN, "AIza", 35, 35, SET_B64URL },
	{ "a Stripe secret key", "Stripe", "sk_live_: a live-mode secret key (charges, refunds)",
	  SHAPE_TOKEN, "sk_live_", 20, 0, SET_ALNUM },
	{ "a Stripe restricted key", "Stripe", "rk_live_: a live-mode restricted key",
	  SHAPE_TOKEN, "rk_live_", 20, 0, SET_ALNUM },
	{ "a JSON Web Token", "any issuer (OIDC, Supabase, Firebase, CI identity tokens)",
	  "eyJ... . ... . ...: a signed bearer token, good for whoever presents it until it "
	  "expires", SHAPE_JWT, "eyJ", 0, 0, SET_B64URL },
	{ "a PEM private key", "OpenSSL, OpenSSH, every TLS and SSH client",
	  "-----BEGIN ... PRIVATE KEY-----: a private key pasted into a variable (a CI "
	  "secret, a deploy key)", SHAPE_PEM, "-----BEGIN ", 0, 0, 0 },
};

const size_t sbx_nsecret_shapes = sizeof(sbx_secret_shapes) / sizeof(sbx_secret_shapes[0]);

static bool in_set(char c, unsigned char set)
{
	bool digit = c >= '0' && c <= '9', upper = c >= 'A' && c <= 'Z';

	switch (set) {
	case SET_UPPER: return digit || upper;
	case SET_ALNUM: return alnum(c);
	case SET_WORD: return alnum(c) || c == '_';
	default: return alnum(c) || c == '_' || c == '-';
	}
}

/* s starts with the prefix, where `[abc]` is one of those characters; the
 * length of what it matched, or 0. */
static size_t prefix_at(const char *s, const char *prefix)
{
	const char *q = s;

	for (const char *p = prefix; *p; p++, q++) {
		if (*p == '[') {
			const char *end = strchr(p, ']');
			if (!*q || !memchr(p + 1, *q, (size_t)(end - p - 1)))
				return 0;
			p = end;
		} else if (*q != *p) {
			return 0;
		}
	}
	return (size_t)(q - s);
}

/* How many characters of set s starts with, counting no further than cap:
 * each word start costs a bounded look, so a long value made of look-alike
 * starts (`glpat-glpat-...`, up to the 128 KiB a variable may hold) costs
 * linear time, not quadratic. */
static size_t run_of(const char *s, unsigned char set, size_t cap)
{
	size_t n = 0;

	while (n < cap && s[n] && in_set(s[n], set))
		n++;
	return n;
}

/* scheme://user:password@host, anywhere in v: a non-empty password after
 * the user's name (no / ? # @ in it). The password runs to the @ (at most
 * URL_PASSWORD_MAX characters, no space or quote): a / ? or # left in it
 * unencoded is the password's own to SQLAlchemy and others that read it
 * so (`postgresql://app:p/ss@db`), unless the colon starts a port (digits,
 * then the path: `http://host:8080/path@x`). Bounded, so a value of many
 * `://` costs linear time. */
#define URL_PASSWORD_MAX 256
static bool url_password(const char *v)
{
	for (const char *q = strstr(v, "://"); q; q = strstr(q + 1, "://")) {
		const char *s = q;
		while (s > v && (alnum(s[-1]) || s[-1] == '+' || s[-1] == '.' || s[-1] == '-'))
			s--;
		if (s == q || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			continue; /* no scheme */
		const char *a = q + 3;
		size_t u = strcspn(a, ":/?#@ \t\n\"'");
		if (a[u] != ':')
			continue; /* no password */
		const char *pw = a + u + 1;
		size_t n = 0, d = 0;
		while (n < URL_PASSWORD_MAX && pw[n] && !strchr("@ \t\n\"'", pw[n]))
			n++;
		if (!n || pw[n] != '@')
			continue;
		while (d < n && pw[d] >= '0' && pw[d] <= '9')
			d++;
		if (d && d < n && strchr("/?#", pw[d]))
			continue; /* a port, then the path */
		return true;
	}
	return false;
}

/* eyJ<header>.<payload>.<signature>: three base64url parts, the header a
 * JSON object ("{" encodes as eyJ...), the signature there */
static bool jwt_at(const char *s)
{
	/* a header is a few dozen characters ({"alg":...,"kid":...}); a
	 * payload a few KiB at most */
	size_t h = run_of(s, SET_B64URL, 512);
	if (h < 10 || s[h] != '.')
		return false;
	size_t pl = run_of(s + h + 1, SET_B64URL, 16384);
	if (pl < 10 || s[h + 1 + pl] != '.')
		return false;
	return run_of(s + h + 2 + pl, SET_B64URL, 16) >= 16;
}

/* -----BEGIN [WORDS ]PRIVATE KEY----- (RSA, EC, DSA, OPENSSH, ENCRYPTED,
 * or none) */
static bool pem_at(const char *s)
{
	const char *p = s + strlen("-----BEGIN ");
	size_t n = 0;

	while (n < 64 && ((p[n] >= 'A' && p[n] <= 'Z') || p[n] == ' '))
		n++;

	return n >= strlen("PRIVATE KEY") && !strncmp(p + n - strlen("PRIVATE KEY"),
							 "PRIVATE KEY", strlen("PRIVATE KEY")) &&
	       !strncmp(p + n, "-----", 5);
}

static bool shape_at(const struct sbx_secret_shape *r, const char *s)
{
	size_t k = prefix_at(s, r->prefix);

	if (!k)
		return false;
	if (r->kind == SHAPE_JWT)
		return jwt_at(s);
	if (r->kind == SHAPE_PEM)
		return pem_at(s);
	size_t n = run_of(s + k, r->set, r->max ? (size_t)r->max + 1 : r->min);
	if (n < r->min || (r->max && n > r->max))
		return false;
	/* an exact length ends there (AKIA + 16, not inside a longer word) */
	return !r->max || !alnum(s[k + n]);
}

const struct sbx_secret_shape *sbx_env_secret_value(const char *value)
{
	if (!value || !*value)
		return NULL;
	for (size_t i = 0; i < sbx_nsecret_shapes; i++) {
		const struct sbx_secret_shape *r = &sbx_secret_shapes[i];
		if (r->kind == SHAPE_URL) {
			if (url_password(value))
				return r;
			continue;
		}
		/* at the start of each word of the value */
		for (const char *q = value; *q; q++)
			if ((q == value || !alnum(q[-1])) && *q == r->prefix[0] && shape_at(r, q))
				return r;
	}
	return NULL;
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
 * only what the name or the value alone would withhold. */
enum sbx_env_fate policy_env_var_fate(const struct policy *p, const char *name,
				      const char *value, const struct sbx_rule **why,
				      const struct sbx_secret_shape **shape)
{
	const struct sbx_rule *r = env_rule(p, SBX_RULE_DENY_ENV, name);
	const struct sbx_secret_shape *sh = NULL;
	enum sbx_env_fate f = SBX_ENV_SECRET;

	if (why)
		*why = r;
	if (shape)
		*shape = NULL;
	if (r)
		return SBX_ENV_DENIED;
	if (!sbx_env_secret_name(name)) {
		if (!(sh = sbx_env_secret_value(value)))
			return SBX_ENV_PASS;
		f = SBX_ENV_SECRET_VALUE;
	}
	r = env_rule(p, SBX_RULE_KEEP_ENV, name);
	if (why)
		*why = r;
	if (shape)
		*shape = sh;
	return r ? SBX_ENV_KEPT : f;
}

enum sbx_env_fate policy_env_fate(const struct policy *p, const char *name,
				  const struct sbx_rule **why)
{
	return policy_env_var_fate(p, name, NULL, why, NULL);
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

bool policy_env_var_denied(const struct policy *p, const char *name, const char *value)
{
	enum sbx_env_fate f = policy_env_var_fate(p, name, value, NULL, NULL);

	return f == SBX_ENV_DENIED || f == SBX_ENV_SECRET || f == SBX_ENV_SECRET_VALUE;
}
