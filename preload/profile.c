/* preload/profile.c: agent profiles, found by name and loaded as a
 * sandbox.ini layer (profile.h; docs/AGENTS.md). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/profile.h"
#include "preload/preload.h"

bool profile_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 32 || name[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '-' || name[i] == '_'))
			return false;
	return true;
}

/* The user's profile directory: 0, or -ENAMETOOLONG (out "") when its
 * path does not fit: then the user has none (a path cut short would name
 * another directory). */
static int user_dir(const char *home, char *out, size_t outsz)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");

	if (xdg && xdg[0] == '/')
		return sbx_path_fmt(out, outsz, "%s/sbx/profiles", xdg);
	return sbx_path_fmt(out, outsz, "%s/.config/sbx/profiles", home);
}

/* The built-in profiles: $SBX_PROFILE_DIR, else ../share/sbx/profiles
 * from sbx-preload (the build tree's build/ and an install's bin/ both sit
 * one level below). -ENOENT when there is none. */
static int builtin_dir(char *out, size_t outsz)
{
	const char *env = getenv("SBX_PROFILE_DIR");
	char exe[PATH_MAX];

	if (env && *env) {
		snprintf(out, outsz, "%s", env);
		return 0;
	}
	if (self_path(exe, sizeof(exe)))
		return -ENOENT;
	*strrchr(exe, '/') = '\0';
	char dir[PATH_MAX + 32];
	snprintf(dir, sizeof(dir), "%s/../share/sbx/profiles", exe);
	/* a real path, as messages and rule sources show it */
	if (!realpath(dir, exe))
		return -ENOENT;
	if ((size_t)snprintf(out, outsz, "%s", exe) >= outsz)
		return -ENAMETOOLONG;
	return 0;
}

/* dir/name.ini when it is a regular file (a link is followed: the user's
 * directory is theirs, and the sandbox cannot write it, a mandatory deny). */
static bool candidate(const char *dir, const char *name, char *path, size_t pathsz)
{
	struct stat st;

	if ((size_t)snprintf(path, pathsz, "%s/%s.ini", dir, name) >= pathsz)
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int profile_find(const char *name, const char *home, char *path, size_t pathsz,
		 bool *user)
{
	char dir[PATH_MAX];

	if (!profile_name_ok(name))
		return -EINVAL;
	*user = true;
	if (!user_dir(home, dir, sizeof(dir)) && candidate(dir, name, path, pathsz))
		return 0;
	*user = false;
	if (builtin_dir(dir, sizeof(dir)) == 0 && candidate(dir, name, path, pathsz))
		return 0;
	return -ENOENT;
}

const char *profile_for_command(const char *argv0, const char *home, char *name,
				size_t namesz)
{
	const char *base = strrchr(argv0, '/');
	char path[PATH_MAX];
	bool user;

	base = base ? base + 1 : argv0;
	if (!profile_name_ok(base) || strlen(base) >= namesz)
		return NULL;
	if (profile_find(base, home, path, sizeof(path), &user))
		return NULL;
	snprintf(name, namesz, "%s", base);
	return name;
}

/* "claude, codex, …": the built-in profiles, for a message. */
static void builtin_names(char *out, size_t outsz)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *e;
	char *names[64];
	size_t n = 0;

	out[0] = '\0';
	if (builtin_dir(dir, sizeof(dir)) || !(d = opendir(dir)))
		return;
	while ((e = readdir(d)) && n < 64) {
		size_t l = strlen(e->d_name);
		if (l > 4 && !strcmp(e->d_name + l - 4, ".ini") &&
		    (names[n] = strndup(e->d_name, l - 4)))
			n++;
	}
	closedir(d);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(names[j], names[i]) < 0) {
				char *t = names[i];
				names[i] = names[j];
				names[j] = t;
			}
	for (size_t i = 0; i < n; i++) {
		snprintf(out + strlen(out), outsz - strlen(out), "%s%s", i ? ", " : "", names[i]);
		free(names[i]);
	}
}

static void not_found(const char *name, const char *home, struct sbx_err *err)
{
	char udir[PATH_MAX], shown[PATH_MAX], names[512];

	if (!profile_name_ok(name)) {
		snprintf(err->msg, sizeof(err->msg), "--profile: `%s` is not a profile name "
			 "(letters a-z, digits, `-` and `_`; or `none`)", name);
		return;
	}
	if (user_dir(home, udir, sizeof(udir)))
		snprintf(shown, sizeof(shown), "(no user directory: its path is too long)");
	else
		sbx_path_tildify(udir, home, shown, sizeof(shown));
	builtin_names(names, sizeof(names));
	snprintf(err->msg, sizeof(err->msg), "no profile `%s` (looked for %.600s/%s.ini and "
		 "a built-in one; built in: %.300s)", name, shown, name,
		 names[0] ? names : "none found");
}

int profile_load(struct policy_builder *b, const char *name, const char *home,
		 struct sbx_err *err)
{
	char path[PATH_MAX], shown[PATH_MAX], display[PATH_MAX + 64];
	bool user;
	int rc = profile_find(name, home, path, sizeof(path), &user);

	if (rc) {
		not_found(name, home, err);
		return -ENOENT;
	}
	sbx_path_tildify(path, home, shown, sizeof(shown));
	/* a rule's source is `display:LINE` (`profile claude:
	 * ~/.config/sbx/profiles/claude.ini:7`): a report names the profile */
	snprintf(display, sizeof(display), "profile %s: %s", name, shown);
	rc = policy_builder_load_file(b, path, display, POLICY_LAYER_PROFILE, err);
	if (rc == -ENOENT) {
		not_found(name, home, err);
		return rc;
	}
	return rc;
}

int profile_print(const char *name, const char *home)
{
	char path[PATH_MAX], shown[PATH_MAX], buf[4096];
	struct sbx_err err;
	bool user;
	FILE *f;
	size_t n;

	if (profile_find(name, home, path, sizeof(path), &user)) {
		not_found(name, home, &err);
		msg("%s", err.msg);
		return SBX_EXIT_SETUP;
	}
	if (!(f = fopen(path, "re"))) {
		msg("cannot read %s: %s", path, strerror(errno));
		return SBX_EXIT_SETUP;
	}
	sbx_path_tildify(path, home, shown, sizeof(shown));
	printf("; profile %s: %s (%s)\n", name, shown,
	       user ? "yours: it replaces the built-in one" : "built in");
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}
