/* preload/config.h: where sbx's files are and how the policy is put
 * together from them, shared by sbx-preload and sbxctl (which must see
 * the very policy a run would get, source for source). */
#ifndef SBX_CONFIG_H
#define SBX_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

struct options;

/* $HOME when absolute, else the password database's; NULL when neither. */
const char *config_home_dir(void);

/* One of sbx's own directories: $XDG_<VAR>/sbx, else ~/<dflt>. The user's
 * part ($XDG_*, HOME) is resolved now; below it, every later walk follows
 * no link (hostfs.h). 0 or -errno. */
int config_own_dir(const char *home, const char *xdg_var, const char *dflt, char *out,
		   size_t outsz);

/* The user's global sandbox.ini as sbxctl writes it: $XDG_CONFIG_HOME/sbx/
 * sandbox.ini, else ~/.config/sbx/sandbox.ini (not resolved). */
int config_user_file(const char *home, char *out, size_t outsz);

/* One of our own files: $ENV if set, else next to the running program (the
 * build tree) or in ../lib/sbx/ (an install). 0 or -errno. */
int config_find_helper(const char *name, const char *env_name, int mode, char *out,
		       size_t outsz);

/* Every source of the policy, in order, into a builder not yet compiled:
 * the user layer (--config, $SBX_CONFIG, the user file, /etc/sbx), -w, the
 * workspace's own sandbox.ini (narrow only), $SBX_ALLOWED_DOMAINS, the
 * flags; with learn_box, what a --learn run is confined by (writes in HOME
 * too). user_file gets the user file used, as shown ("" for none).
 * 0; -1 with err set; -2 when a message was printed. */
int config_builder(const struct options *o, const struct policy_ctx *ctx, bool learn_box,
		   char *user_file, size_t ufsz, struct policy_builder **out,
		   struct sbx_err *err);
/* Does the user layer alone (the only one that may) say `enabled =
 * false`? Cheap: that file is read, nothing compiled, nothing printed; a
 * file that does not load says no (the full build then names its error). */
bool config_user_disabled(const struct options *o, const char *home, const char *cwd);
/* The same, compiled. */
int config_build_policy(const struct options *o, const struct policy_ctx *ctx,
			bool learn_box, char *user_file, size_t ufsz, struct policy **out,
			struct sbx_err *err);

#endif
