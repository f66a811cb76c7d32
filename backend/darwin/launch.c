/* backend/darwin/launch.c: sandbox-exec's and log's argument vectors and
 * COMMAND's environment (launch.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend/darwin/launch.h"
#include "common/msg.h"
#include "common/wire.h"
#include "net/net.h"

#define TRY(x)                                                                \
	do {                                                                  \
		int rc_ = (x);                                                \
		if (rc_)                                                      \
			return rc_;                                           \
	} while (0)

int darwin_launch_argv(const struct darwin_launch_in *in, struct strv *argv)
{
	const struct seatbelt_profile *sp = in->profile;

	if (!in->command || !in->command[0] || !sp || !sp->text)
		return -EINVAL;
	TRY(strv_add(argv, DARWIN_SANDBOX_EXEC));
	for (size_t i = 0; i < sp->nparams; i++) {
		TRY(strv_add(argv, "-D"));
		TRY(strv_addf(argv, "%s=%s", sp->params[i].name, sp->params[i].value));
	}
	TRY(strv_add(argv, "-p"));
	TRY(strv_add(argv, sp->text));
	/* COMMAND may start with `-`: the options end here */
	TRY(strv_add(argv, "--"));
	for (size_t i = 0; in->command[i]; i++)
		TRY(strv_add(argv, in->command[i]));
	return 0;
}

/* A path the shim can take from the spec: absolute, no `;`, short. */
static bool spec_path_ok(const char *p, size_t max)
{
	return p && p[0] == '/' && !strchr(p, ';') && strlen(p) < max;
}

int darwin_shim_spec(const struct darwin_shim_handover *h, char **out)
{
	const char *mode = h->mode ? h->mode : "enforce";

	*out = NULL;
	if (!spec_path_ok(h->policy, SBX_SHIM_PATH_MAX) ||
	    !spec_path_ok(h->report, SBX_SHIM_PATH_MAX) ||
	    (h->counters && !spec_path_ok(h->counters, SBX_SHIM_PATH_MAX)) ||
	    !spec_path_ok(h->lib, PATH_MAX) ||
	    (strcmp(mode, "enforce") && strcmp(mode, "trace") && strcmp(mode, "learn")))
		return -EINVAL;
	/* lib last: the shim reads each key's first value, and nothing
	 * after the lib's path is cut when a long one is carried */
	if (asprintf(out, "1;mode=%s;policy=%s;report=%s%s%s%s;lib=%s", mode, h->policy,
		     h->report, h->counters ? ";counters=" : "", h->counters ? h->counters : "",
		     h->tell ? ";tell=1" : "", h->lib) < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Is NAME=... in v? Replaced (value NULL: removed), else added. */
static int env_put(struct strv *v, const char *name, const char *value)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < v->n; i++)
		if (!strncmp(v->v[i], name, len) && v->v[i][len] == '=') {
			free(v->v[i]);
			memmove(v->v + i, v->v + i + 1, (v->n - i) * sizeof(*v->v));
			v->n--;
			break;
		}
	return value ? strv_addf(v, "%s=%s", name, value) : 0;
}

/* v's value of `name`, or NULL (borrowed: an env_put of the name frees it). */
static const char *env_get(const struct strv *v, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < v->n; i++)
		if (!strncmp(v->v[i], name, len) && v->v[i][len] == '=')
			return v->v[i] + len + 1;
	return NULL;
}

/* The clients that read no proxy variable, pointed at sbx's proxy: the
 * profile lets nothing but its two ports out, so without this they just
 * fail. The JVM: the proxy's properties after the caller's options
 * (net_java_tool_options, the value Linux's plan sets). git over ssh: the
 * caller's GIT_SSH_COMMAND (else ssh) and a ProxyCommand through the
 * SOCKS listener, macOS's own BSD netcat (`-X 5`: SOCKS5; `-x`: the
 * proxy; a name is sent to the proxy unresolved, as socks5h), by its
 * absolute path (one of the sandbox's in PATH would see every byte).
 * ssh takes an option's first value, so a ProxyCommand of the caller's
 * wins; the caller's command is kept in front, as on Linux, and said. */
static int proxy_clients(struct strv *envp, unsigned http_port, unsigned socks_port)
{
	char *java = net_java_tool_options(env_get(envp, "JAVA_TOOL_OPTIONS"), http_port);
	int rc = java ? env_put(envp, "JAVA_TOOL_OPTIONS", java) : -ENOMEM;

	free(java);
	if (rc)
		return rc;
	const char *gs = env_get(envp, "GIT_SSH_COMMAND");
	bool theirs = gs && *gs;
	char *ssh;
	if (asprintf(&ssh, "%s -o 'ProxyCommand=%s -X 5 -x 127.0.0.1:%u %%h %%p'",
		     theirs ? gs : "ssh", DARWIN_NC, socks_port) < 0)
		return -ENOMEM;
	if (theirs)
		vmsg("GIT_SSH_COMMAND: yours, then sbx's ProxyCommand through the proxy (a "
		     "ProxyCommand of yours comes first and wins)");
	rc = env_put(envp, "GIT_SSH_COMMAND", ssh);
	free(ssh);
	return rc;
}

/* A variable that sends a client through a proxy of the caller's (as
 * plan.c: `*_proxy` in any case, git's GIT_PROXY_COMMAND). */
static bool proxy_setting(const char *name)
{
	size_t n = strlen(name);

	return (n > 6 && !strcasecmp(name + n - 6, "_proxy")) ||
	       !strcasecmp(name, "GIT_PROXY_COMMAND");
}

int darwin_launch_env(const struct darwin_launch_in *in, struct strv *envp,
		      struct strv *withheld)
{
	const struct policy *p = in->policy;
	bool proxied = in->http_port && in->socks_port;
	bool drop_proxies = proxied || !policy_network_open(p);
	const char *theirs = NULL;
	size_t nset;
	const struct sbx_rule *const *set = policy_rules(p, SBX_RULE_SET_ENV, &nset);

	for (char *const *e = in->environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char name[256];
		if (!eq || eq == *e || (size_t)(eq - *e) >= sizeof(name))
			continue;
		memcpy(name, *e, (size_t)(eq - *e));
		name[eq - *e] = '\0';
		if (!strcmp(name, "DYLD_INSERT_LIBRARIES")) {
			theirs = eq + 1; /* after ours, below */
			continue;
		}
		if (!strcmp(name, "SBX_SHIM"))
			continue; /* ours only: a caller's would name files of its choosing */
		if (policy_env_var_denied(p, name, eq + 1)) {
			bool reset = false;
			for (size_t i = 0; i < nset && !reset; i++) {
				char sname[256];
				const char *v;
				reset = !policy_set_env_split(set[i], sname, sizeof(sname), &v) &&
					!strcmp(sname, name);
			}
			if (!reset && withheld)
				TRY(strv_add(withheld, name));
			continue;
		}
		if (drop_proxies && proxy_setting(name))
			continue;
		TRY(strv_add(envp, *e));
	}
	if (proxied) {
		char http[64], socks[64];
		snprintf(http, sizeof(http), "http://127.0.0.1:%u", in->http_port);
		snprintf(socks, sizeof(socks), "socks5h://127.0.0.1:%u", in->socks_port);
		for (size_t i = 0; net_http_proxy_vars[i]; i++)
			TRY(env_put(envp, net_http_proxy_vars[i], http));
		TRY(env_put(envp, "ALL_PROXY", socks));
		TRY(env_put(envp, "all_proxy", socks));
		TRY(env_put(envp, "NO_PROXY", "localhost,127.0.0.1,::1"));
		TRY(env_put(envp, "no_proxy", "localhost,127.0.0.1,::1"));
		TRY(env_put(envp, "NODE_USE_ENV_PROXY", "1"));
		TRY(proxy_clients(envp, in->http_port, in->socks_port));
	}
	for (size_t i = 0; i < nset; i++) {
		char name[256];
		const char *value;
		if (policy_set_env_split(set[i], name, sizeof(name), &value) == 0)
			TRY(env_put(envp, name, value));
	}
	/* the nested-sandbox marker: an agent that sees it runs no sandbox
	 * of its own (an inner sandbox-exec fails: Seatbelt does not nest) */
	TRY(env_put(envp, "SBX_SANDBOX", "1"));
	if (in->shim_lib) {
		char *v;
		if (asprintf(&v, "%s%s%s", in->shim_lib, theirs && *theirs ? ":" : "",
			     theirs && *theirs ? theirs : "") < 0)
			return -ENOMEM;
		int rc = env_put(envp, "DYLD_INSERT_LIBRARIES", v);
		free(v);
		TRY(rc);
		TRY(env_put(envp, "SBX_SHIM", in->shim_spec ? in->shim_spec : ""));
	} else if (theirs) {
		TRY(env_put(envp, "DYLD_INSERT_LIBRARIES", theirs));
	}
	return 0;
}
