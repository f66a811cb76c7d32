/* preload/profile.h: agent profiles — the settings a known agent
 * (Claude Code, Codex, Gemini CLI, an MCP server) needs to run and keep its
 * state, as reviewable sandbox.ini files (docs/AGENTS.md).
 *
 * A profile is found by name, first among the user's own
 * ($XDG_CONFIG_HOME/sbx/profiles/NAME.ini, else ~/.config/sbx/profiles/),
 * then among the built-in ones ($SBX_PROFILE_DIR, else share/sbx/profiles/
 * next to sbx-preload in the build tree or under the install prefix). The
 * user's file replaces the built-in one whole. */
#ifndef SBX_PROFILE_H
#define SBX_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

/* Is `name` a profile name: 1 to 32 of [a-z0-9_-], not starting with `-`
 * (never a path: `--profile ../x` names nothing). */
bool profile_name_ok(const char *name);

/* The profile COMMAND's own name asks for: the last component of argv[0]
 * when a profile of that name exists, else NULL. `name` receives it. */
const char *profile_for_command(const char *argv0, const char *home, char *name,
				size_t namesz);

/* Where profile `name` is: 0 with its path in `path` (and *user set when it
 * is the user's own file); -ENOENT when there is none; -EINVAL for a bad
 * name. */
int profile_find(const char *name, const char *home, char *path, size_t pathsz,
		 bool *user);

/* Load profile `name` into the builder; its rules' sources read
 * `profile NAME: FILE:LINE`. 0; -ENOENT (no such profile: err says which
 * were looked for) or -EINVAL (err names the line). */
int profile_load(struct policy_builder *b, const char *name, const char *home,
		 struct sbx_err *err);

/* --print-profile NAME: where it is and its text, on stdout. 0, or 125
 * after a message. */
int profile_print(const char *name, const char *home);

#endif
