/* preload/config.c: sbx's own directories and the policy from every
 * source, for sbx-preload and sbxctl alike (config.h). */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/config.h"
#include "preload/profile.h"
#include "common/hostfs.h"
#include "preload/preload.h"

const char *config_home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && h[0] == '/')
		return h;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}

int config_user_file(const char *home, char *out, size_t outsz)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	int rc = xdg && xdg[0] == '/' ? snprintf(out, outsz, "%s/sbx/sandbox.ini", xdg) :
		 snprintf(out, outsz, "%s/.config/sbx/sandbox.ini", home);

	return rc < 0 || (size_t)rc >= outsz ? -ENAMETOOLONG : 0;
}

/* The user layer: --config, $SBX_CONFIG, ~/.config/sbx/sandbox.ini,
 * /etc/sbx/sandbox.ini, else only the built-in defaults. */
static int load_user_config(struct policy_builder *b, const struct options *o,
			    const char *home, char *used, size_t usedsz,
			    struct sbx_err *err)
{
	const char *explicit = o->config ? o->config : getenv("SBX_CONFIG");
	char path[PATH_MAX], shown[PATH_MAX];
	int rc;

	used[0] = '\0';
	if (explicit && *explicit) {
		rc = policy_builder_load_file(b, explicit, explicit, POLICY_LAYER_USER, err);
		if (rc == -ENOENT)
			snprintf(err->msg, sizeof(err->msg), "%s: no such file (given by %s)",
				 explicit, o->config ? "--config" : "SBX_CONFIG");
		if (!rc)
			snprintf(used, usedsz, "%s", explicit);
		return rc;
	}
	if (config_user_file(home, path, sizeof(path)))
		path[0] = '\0';
	const char *candidates[] = { path, "/etc/sbx/sandbox.ini" };
	for (size_t i = 0; i < 2; i++) {
		sbx_path_tildify(candidates[i], home, shown, sizeof(shown));
		rc = policy_builder_load_file(b, candidates[i], shown, POLICY_LAYER_USER, err);
		if (rc != -ENOENT) {
			if (!rc)
				snprintf(used, usedsz, "%s", shown);
			return rc;
		}
	}
	return 0;
}

static int load_project_config(struct policy_builder *b, const char *user_file,
			       const char *home, struct sbx_err *err)
{
	char path[PATH_MAX], real[PATH_MAX], ureal[PATH_MAX], shown[PATH_MAX];

	/* fail closed: a path cut short would be another file, and a project
	 * file left unread would leave its narrowing out */
	if (sbx_path_fmt(path, sizeof(path), "%s/sandbox.ini", policy_builder_workspace(b))) {
		snprintf(err->msg, sizeof(err->msg), "the workspace's sandbox.ini: %.200s… "
			 "makes a path longer than %d bytes", policy_builder_workspace(b),
			 PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	if (!realpath(path, real))
		return 0;
	if (user_file[0] && realpath(user_file, ureal) && !strcmp(real, ureal))
		return 0; /* the user chose it with --config: it is theirs */
	sbx_path_tildify(path, home, shown, sizeof(shown));
	int rc = policy_builder_load_file(b, path, shown, POLICY_LAYER_PROJECT, err);
	return rc == -ENOENT ? 0 : rc;
}

/* One of our own files: $ENV if set, else next to sbx-preload (the build
 * tree) or in ../lib/sbx/ (an install). */
int config_find_helper(const char *name, const char *env_name, int mode,
			char *out, size_t outsz)
{
	char exe[PATH_MAX];
	int rc = self_path(exe, sizeof(exe));
	const char *env = getenv(env_name);

	if (env && *env) {
		if (!realpath(env, out) && sbx_path_fmt(out, outsz, "%s", env))
			return -ENAMETOOLONG;
		return access(out, mode) ? -errno : 0;
	}
	if (rc)
		return rc;
	*strrchr(exe, '/') = '\0';
	const char *rel[] = { "/", "/../lib/sbx/" };
	for (size_t i = 0; i < 2; i++) {
		char cand[PATH_MAX + 64];
		struct stat st;
		snprintf(cand, sizeof(cand), "%s%s%s", exe, rel[i], name);
		/* our own path is canonical: next to it, a file that is no
		 * link needs no realpath() (a readlink per component) */
		if (i == 0 && lstat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    (size_t)snprintf(out, outsz, "%s", cand) < outsz)
			return access(out, mode) ? -errno : 0;
		if (realpath(cand, out) && access(out, mode) == 0)
			return 0;
	}
	return -ENOENT;
}

/* One of sbx's own directories: $XDG_<VAR>/sbx, else ~/<dflt>. The user's
 * part ($XDG_*, HOME) is resolved now, before COMMAND runs; below it, every
 * later walk follows no link (hostfs.h). */
int config_own_dir(const char *home, const char *xdg_var, const char *dflt, char *out,
		   size_t outsz)
{
	const char *x = getenv(xdg_var);
	bool xdg = x && x[0] == '/';
	char base[PATH_MAX];
	int rc = hostfs_trust_path(xdg ? x : home, 0, base, sizeof(base));

	if (rc)
		return rc;
	rc = snprintf(out, outsz, "%s/%s", strcmp(base, "/") ? base : "", xdg ? "sbx" : dflt);
	return rc < 0 || (size_t)rc >= outsz ? -ENAMETOOLONG : 0;
}

/* The policy from every source, in order. learn_box: the relaxed one a
 * --learn run is confined by (writes allowed in /var/tmp too). 0; -1 with err
 * set; -2 when a message was printed. */
int config_builder(const struct options *o, const struct policy_ctx *ctx, bool learn_box,
		   char *user_file, size_t ufsz, struct policy_builder **out,
		   struct sbx_err *err)
{
	struct policy_builder *b = NULL;
	struct stat st;

	*out = NULL;
	if (policy_builder_new(ctx, &b)) {
		msg("out of memory");
		return -2;
	}
#define TRY_B(x) do { if (x) { policy_builder_free(b); return -1; } } while (0)
	TRY_B(load_user_config(b, o, ctx->home, user_file, ufsz, err));
	/* the agent's profile after the user's file: what the agent needs is
	 * added to the user's policy, and the user's denies still win */
	char pname[64];
	const char *profile = o->profile ? (strcmp(o->profile, "none") ? o->profile : NULL) :
			      o->command && o->command[0] ?
			      profile_for_command(o->command[0], ctx->home, pname, sizeof(pname)) :
			      NULL;
	TRY_B(profile && profile_load(b, profile, ctx->home, err));
	TRY_B(o->workspace && policy_builder_set(b, "sandbox", "workspace", o->workspace,
						 SBX_ORIGIN_FLAG, "--workspace", err));
	const char *ws = policy_builder_workspace(b);
	if (stat(ws, &st) || !S_ISDIR(st.st_mode)) {
		msg("workspace %s is not a directory (set it with -w DIR or "
		    "`workspace =` in [sandbox])", ws);
		policy_builder_free(b);
		return -2;
	}
	TRY_B(load_project_config(b, user_file, ctx->home, err));
	const char *doms = getenv("SBX_ALLOWED_DOMAINS");
	TRY_B(doms && *doms &&
	      policy_builder_set(b, "network", "allow_domains", doms, SBX_ORIGIN_ENV,
				 "SBX_ALLOWED_DOMAINS", err));
	for (size_t i = 0; i < o->nsettings; i++)
		TRY_B(policy_builder_set(b, o->settings[i].section, o->settings[i].key,
					 o->settings[i].value, SBX_ORIGIN_FLAG,
					 o->settings[i].flag, err));
	/* --learn writes nothing to the host's HOME: a write there outside
	 * the writable paths is refused and recorded to be learned
	 * (reports.c, learn_decide), never made (docs/POLICY.md) */
	if (learn_box && !sbx_path_under(ctx->home, "/var/tmp") && !sbx_path_under("/var/tmp", ctx->home))
		TRY_B(policy_builder_set(b, "filesystem", "allow_write", "/var/tmp",
					 SBX_ORIGIN_FLAG, "--learn", err));
#undef TRY_B
	*out = b;
	return 0;
}

bool config_user_disabled(const struct options *o, const char *home, const char *cwd)
{
	struct policy_ctx ctx = { .home = home, .cwd = cwd };
	struct policy_builder *b = NULL;
	struct sbx_err err = { "" };
	char used[PATH_MAX];
	bool off = false;

	if (!policy_builder_new_bare(&ctx, &b) &&
	    !load_user_config(b, o, home, used, sizeof(used), &err))
		off = !policy_builder_enabled(b);
	policy_builder_free(b);
	return off;
}

int config_build_policy(const struct options *o, const struct policy_ctx *ctx,
			bool learn_box, char *user_file, size_t ufsz, struct policy **out,
			struct sbx_err *err)
{
	struct policy_builder *b;
	int rc = config_builder(o, ctx, learn_box, user_file, ufsz, &b, err);

	*out = NULL;
	if (rc)
		return rc;
	return policy_compile(b, out, err) ? -1 : 0;
}

