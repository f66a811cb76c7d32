/* policy/preset.c: `[sandbox] profile = NAME`, the six presets people know
 * from Gemini CLI's macOS Seatbelt profiles, mapped onto this policy
 * (docs/POLICY.md, "Presets"). Not Gemini's text: what each allows, said
 * with sbx's own settings, on every platform.
 *
 * What Gemini CLI's profiles allow (its sandbox-macos-*.sb files):
 *   all six   read anywhere; write the project, the temporary and cache
 *             directories and the tool caches (~/.cache, ~/.npm: see below); keep
 *             programs away from container daemons (Docker, Colima,
 *             OrbStack, Rancher Desktop, podman's machine): their sockets
 *             and state are neither read nor written
 *   permissive-*   also serve on local ports (network-bind), and more
 *             system services
 *   restrictive-*  no servers (only a debugger's inbound port)
 *   *-open    any outbound connection
 *   *-closed  none
 *   *-proxied outbound only through a proxy on localhost
 * sbx's defaults stay under every preset: the credential, executes-later
 * and deny_read rules, and the mandatory denies, hold whatever it opens.
 * One row differs from Gemini's on purpose: its profiles open ~/.cache and
 * ~/.npm whole, which hold what programs outside run or install later
 * (~/.npm/_npx, ~/.cache/uv, ~/.cache/pip, ~/.cache/go-build:
 * policy/home.c); here the tools get caches of the sandbox's own, as the
 * agent profiles give them (docs/AGENTS.md, "Package caches"). */
#include <errno.h>
#include <string.h>

#include "policy/internal.h"

struct setting {
	const char *section, *key, *value;
};

/* Settings every preset makes, each with its reason. The workspace and
 * /tmp (Gemini's project and temporary directories) are the default
 * isolation's already; a preset leaves `isolation` as the user set it
 * (strict stays strict). */
static const struct setting common[] = {
	/* package managers' caches, written by every build: the sandbox's
	 * own (made when missing), never the host's, which npx, uvx, pip and
	 * go outside trust later */
	{ "env", "set",
	  "npm_config_cache=~/.cache/sbx-caches/npm, PIP_CACHE_DIR=~/.cache/sbx-caches/pip, "
	  "UV_CACHE_DIR=~/.cache/sbx-caches/uv, CARGO_HOME=~/.cache/sbx-caches/cargo, "
	  "GOCACHE=~/.cache/sbx-caches/go-build, GOMODCACHE=~/.cache/sbx-caches/go-mod" },
	{ "filesystem", "allow_write", "~/.cache/sbx-caches/" },
	/* a container daemon runs anything it is asked to as the user,
	 * outside the sandbox: its socket and state are out of reach */
	{ "filesystem", "deny_read",
	  "/var/run/docker.sock, /var/run/docker, ~/.docker/run, ~/.docker/desktop, "
	  "~/.colima, ~/.orbstack/run, ~/.rd, ~/.local/share/containers/podman/machine, "
	  "/Users/Shared/.docker" },
};

static const struct setting permissive[] = {
	/* its own servers on localhost: dev servers, OAuth callbacks */
	{ "network", "allow_local_binding", "true" },
};

static const struct setting restrictive[] = {
	/* no servers: nothing listens for the host's other programs */
	{ "network", "allow_local_binding", "false" },
};

static const struct setting open_net[] = {
	/* any host, directly */
	{ "network", "allow_domains", "*" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct preset {
	const char *name;
	const struct setting *kind;
	size_t nkind;
	enum sbx_preset_net net;
} presets[] = {
	{ "permissive-open", permissive, N(permissive), SBX_PRESET_OPEN },
	{ "permissive-closed", permissive, N(permissive), SBX_PRESET_CLOSED },
	{ "permissive-proxied", permissive, N(permissive), SBX_PRESET_PROXIED },
	{ "restrictive-open", restrictive, N(restrictive), SBX_PRESET_OPEN },
	{ "restrictive-closed", restrictive, N(restrictive), SBX_PRESET_CLOSED },
	{ "restrictive-proxied", restrictive, N(restrictive), SBX_PRESET_PROXIED },
};

const char *preset_names(void)
{
	return "permissive-open, permissive-closed, permissive-proxied, restrictive-open, "
	       "restrictive-closed or restrictive-proxied";
}

static const struct preset *find(const char *name)
{
	for (size_t i = 0; name && i < N(presets); i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

bool preset_known(const char *name)
{
	return find(name) != NULL;
}

bool preset_setting(const char *name, size_t i, const char **section, const char **key,
		    const char **value)
{
	const struct preset *p = find(name);
	const struct setting *s = NULL;

	if (!p)
		return false;
	/* in order: what every preset makes, its kind's, its network's */
	if (i < N(common))
		s = &common[i];
	else if ((i -= N(common)) < p->nkind)
		s = &p->kind[i];
	else if ((i -= p->nkind) < N(open_net) && p->net == SBX_PRESET_OPEN)
		s = &open_net[i];
	if (!s)
		return false;
	*section = s->section;
	*key = s->key;
	*value = s->value;
	return true;
}

int preset_check(const struct policy_builder *b, struct policy *p, struct sbx_err *err)
{
	const struct raw_scalar *sc = &b->scalars[SC_PRESET];
	const struct preset *pr = find(sc->value);
	const struct raw_rule *first = NULL;

	if (!pr)
		return 0;
	p->preset = pr->name;
	p->preset_net = pr->net;
	for (size_t i = 0; i < b->nrules && !first; i++)
		if (b->rules[i].kind == SBX_RULE_ALLOW_DOMAIN)
			first = &b->rules[i];
	/* the network the name promises, or no run: a closed preset beside
	 * an allow_domains (an agent profile's too) would be neither */
	if (pr->net == SBX_PRESET_CLOSED && first) {
		err_set(err, "%s: `profile = %s` closes the network, but `allow_domains = %s` "
			"(%s) opens it: remove one, or choose %.*s-proxied", sc->source, pr->name,
			first->value, first->source, (int)(strchr(pr->name, '-') - pr->name),
			pr->name);
		return -EINVAL;
	}
	if (pr->net == SBX_PRESET_PROXIED && !first) {
		err_set(err, "%s: `profile = %s` lets the network out through sbx's proxy to the "
			"hosts of allow_domains, and there are none: add allow_domains, or choose "
			"%.*s-closed", sc->source, pr->name,
			(int)(strchr(pr->name, '-') - pr->name), pr->name);
		return -EINVAL;
	}
	return 0;
}
