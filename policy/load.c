/* policy/load.c: sandbox.ini and single settings into a policy builder. */
#include <alloca.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy/internal.h"

/* ---- the key table: every key of the contract, and what a project file may do */

enum key_type {
	K_LIST,   /* adds rules of `kind` */
	K_SCALAR, /* sets scalars[sc] after validation by `check` */
};

enum narrow {
	N_ANY,     /* a project file may add it freely (deny lists) */
	N_REFUSE,  /* would widen: never from a project file */
	N_FALSE,   /* only `false` */
	N_TRUE,    /* only `true` */
	N_ORDERED, /* only a value at least as strict (see stricter()) */
};

enum check {
	C_NONE,
	C_PATH,
	C_BOOL,
	C_SIZE,
	C_COUNT,
	C_PORT,
	C_ISOLATION,
	C_FALLBACK,
	C_HOME,
	C_ENVSET, /* NAME=VALUE */
	C_REPORT_STDERR,
	C_PRESET,
};

struct key {
	const char *section;
	const char *name;
	enum key_type type;
	enum sbx_rule_kind kind;
	enum scalar_id sc;
	enum check check;
	enum narrow narrow;
};

static const struct key keys[] = {
	{ "sandbox", "workspace", K_SCALAR, 0, SC_WORKSPACE, C_PATH, N_REFUSE },
	{ "sandbox", "isolation", K_SCALAR, 0, SC_ISOLATION, C_ISOLATION, N_ORDERED },
	{ "sandbox", "fallback", K_SCALAR, 0, SC_FALLBACK, C_FALLBACK, N_ORDERED },
	{ "sandbox", "nested", K_SCALAR, 0, SC_NESTED, C_BOOL, N_FALSE },
	{ "sandbox", "enabled", K_SCALAR, 0, SC_ENABLED, C_BOOL, N_TRUE },
	/* a preset (preset.c): it opens what a project may not */
	{ "sandbox", "profile", K_SCALAR, 0, SC_PRESET, C_PRESET, N_REFUSE },
	{ "filesystem", "deny_read", K_LIST, SBX_RULE_DENY_READ, 0, C_PATH, N_ANY },
	{ "filesystem", "allow_read", K_LIST, SBX_RULE_ALLOW_READ, 0, C_PATH, N_REFUSE },
	{ "filesystem", "allow_write", K_LIST, SBX_RULE_ALLOW_WRITE, 0, C_PATH, N_REFUSE },
	{ "filesystem", "deny_write", K_LIST, SBX_RULE_DENY_WRITE, 0, C_PATH, N_ANY },
	{ "network", "allow_domains", K_LIST, SBX_RULE_ALLOW_DOMAIN, 0, C_NONE, N_REFUSE },
	{ "network", "deny_domains", K_LIST, SBX_RULE_DENY_DOMAIN, 0, C_NONE, N_ANY },
	{ "network", "allow_local_binding", K_SCALAR, 0, SC_ALLOW_LOCAL_BINDING, C_BOOL, N_FALSE },
	{ "network", "allow_unix_sockets", K_LIST, SBX_RULE_ALLOW_UNIX_SOCKET, 0, C_PATH, N_REFUSE },
	{ "network", "allow_all_unix_sockets", K_SCALAR, 0, SC_ALLOW_ALL_UNIX, C_BOOL, N_FALSE },
	{ "network", "host_ports", K_LIST, SBX_RULE_HOST_PORT, 0, C_PORT, N_REFUSE },
	{ "network", "http_proxy_port", K_SCALAR, 0, SC_HTTP_PORT, C_PORT, N_REFUSE },
	{ "network", "socks_proxy_port", K_SCALAR, 0, SC_SOCKS_PORT, C_PORT, N_REFUSE },
	{ "report", "log", K_SCALAR, 0, SC_LOG, C_PATH, N_REFUSE },
	/* a project may not silence what the person is told */
	{ "report", "stderr", K_SCALAR, 0, SC_REPORT_STDERR, C_REPORT_STDERR, N_REFUSE },
	/* the refused program is told too: no widening either way */
	{ "report", "tell_program", K_SCALAR, 0, SC_TELL_PROGRAM, C_BOOL, N_ANY },
	{ "profile", "claude_hook", K_SCALAR, 0, SC_CLAUDE_HOOK, C_BOOL, N_ANY },
	{ "profile", "args", K_LIST, SBX_RULE_PROFILE_ARG, 0, C_NONE, N_ANY },
	{ "report", "ignore_paths", K_LIST, SBX_RULE_IGNORE_PATH, 0, C_PATH, N_REFUSE },
	{ "report", "ignore_domains", K_LIST, SBX_RULE_IGNORE_DOMAIN, 0, C_NONE, N_REFUSE },
	{ "limits", "memory", K_SCALAR, 0, SC_MEMORY, C_SIZE, N_ORDERED },
	{ "limits", "pids", K_SCALAR, 0, SC_PIDS, C_COUNT, N_ORDERED },
	{ "limits", "cpu_seconds", K_SCALAR, 0, SC_CPU_SECONDS, C_COUNT, N_ORDERED },
	{ "limits", "nofile", K_SCALAR, 0, SC_NOFILE, C_COUNT, N_ORDERED },
	{ "env", "home", K_SCALAR, 0, SC_HOME, C_HOME, N_ORDERED },
	{ "env", "deny_env", K_LIST, SBX_RULE_DENY_ENV, 0, C_NONE, N_ANY },
	/* passes a secret-looking variable on: a project may not */
	{ "env", "keep_env", K_LIST, SBX_RULE_KEEP_ENV, 0, C_NONE, N_REFUSE },
	{ "env", "set", K_LIST, SBX_RULE_SET_ENV, 0, C_ENVSET, N_REFUSE },
};

static const char *const sections[] = { "sandbox", "filesystem", "network",
					"report", "limits", "env" };

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- value parsing */

int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_count(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || n == 0)
		return -EINVAL;
	*out = n;
	return 0;
}

int parse_size(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long n;
	unsigned shift = 0;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || n == 0)
		return -EINVAL;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	case '\0': break;
	default: return -EINVAL;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || n > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)n << shift;
	return 0;
}

/* `[env] set = NAME=VALUE`: a portable name, and not one sbx itself sets
 * for the shim (LD_*, SBX_*): a profile that replaced LD_PRELOAD would run
 * COMMAND without the shim's explanations. */
static int check_envset(const char *v, const char **expected)
{
	size_t n = strcspn(v, "=");

	*expected = "NAME=VALUE, NAME made of letters, digits and `_` (not LD_* or SBX_*)";
	if (!v[n] || !n || (v[0] >= '0' && v[0] <= '9') ||
	    !strncmp(v, "LD_", 3) || !strncmp(v, "SBX_", 4))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] == '_' || (v[i] >= 'a' && v[i] <= 'z') ||
		      (v[i] >= 'A' && v[i] <= 'Z') || (v[i] >= '0' && v[i] <= '9')))
			return -EINVAL;
	return 0;
}

static int check_value(const struct key *k, const char *v, const char **expected)
{
	bool b;
	uint64_t n;

	switch (k->check) {
	case C_NONE:
	case C_PATH:
		return 0;
	case C_BOOL:
		*expected = "true or false";
		return parse_bool(v, &b);
	case C_SIZE:
		*expected = "a size such as 512M or 4G";
		return parse_size(v, &n);
	case C_COUNT:
		*expected = "a positive whole number";
		return parse_count(v, &n);
	case C_PORT:
		*expected = "a port number from 1 to 65535";
		return parse_count(v, &n) || n > 65535 ? -EINVAL : 0;
	case C_ISOLATION:
		*expected = "strict, workspace or custom";
		return strcmp(v, "strict") && strcmp(v, "workspace") &&
		       strcmp(v, "custom") ? -EINVAL : 0;
	case C_FALLBACK:
		*expected = "error or warn";
		return strcmp(v, "error") && strcmp(v, "warn") ? -EINVAL : 0;
	case C_HOME:
		*expected = "real or ephemeral";
		return strcmp(v, "real") && strcmp(v, "ephemeral") ? -EINVAL : 0;
	case C_ENVSET:
		return check_envset(v, expected);
	case C_PRESET:
		*expected = preset_names();
		return preset_known(v) ? 0 : -EINVAL;
	case C_REPORT_STDERR:
		*expected = "auto, live, end or off";
		return strcmp(v, "auto") && strcmp(v, "live") && strcmp(v, "end") &&
		       strcmp(v, "off") ? -EINVAL : 0;
	}
	return 0;
}

/* Rank of a scalar value for project narrowing: higher is stricter; -1 when
 * two values cannot be ordered (custom against the others). */
static int strictness(const struct key *k, const char *v)
{
	if (!v)
		v = "";
	switch (k->check) {
	case C_ISOLATION:
		return !strcmp(v, "strict") ? 2 : !strcmp(v, "custom") ? -1 : 1;
	case C_FALLBACK:
		return !strcmp(v, "warn") ? 0 : 1;
	case C_HOME:
		return !strcmp(v, "ephemeral") ? 1 : 0;
	default:
		return 0;
	}
}

/* May a project file set this scalar to v, given what the user has? */
static bool narrows(const struct key *k, const struct raw_scalar *cur,
		    const char *v)
{
	bool b;
	uint64_t now, want;

	switch (k->narrow) {
	case N_ANY:
		return true;
	case N_REFUSE:
		return false;
	case N_FALSE:
		return parse_bool(v, &b) == 0 && !b;
	case N_TRUE:
		return parse_bool(v, &b) == 0 && b;
	case N_ORDERED:
		break;
	}
	if (k->check == C_SIZE || k->check == C_COUNT) {
		int (*parse)(const char *, uint64_t *) =
			k->check == C_SIZE ? parse_size : parse_count;
		if (!*v)
			return !cur->value; /* unsetting a limit widens */
		if (parse(v, &want))
			return false;
		return !cur->value || (parse(cur->value, &now) == 0 && want <= now);
	}
	const char *curv = cur->value;
	if (!curv) /* the built-in default */
		curv = k->check == C_ISOLATION ? "workspace" :
		       k->check == C_FALLBACK ? "error" : "real";
	if (!strcmp(curv, v))
		return true;
	int a = strictness(k, curv), w = strictness(k, v);
	return a >= 0 && w >= 0 && w > a;
}

/* ---- nearest known key, for "did you mean" */

static unsigned distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[64];

	if (la >= ARRAY_SIZE(row) || lb >= ARRAY_SIZE(row))
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned cost = a[i - 1] == b[j - 1] ? 0 : 1;
			unsigned best = diag + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static const struct key *find_key(const char *section, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].section, section) && !strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

static void unknown_key(const char *where, const char *section,
			const char *name, struct sbx_err *err)
{
	const struct key *best = NULL;
	unsigned bestd = 4;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (!strcmp(keys[i].name, name)) {
			err_set(err, "%s: `%s` belongs in [%s], not [%s]", where,
				name, keys[i].section, section);
			return;
		}
		unsigned d = distance(name, keys[i].name);
		if (d < bestd) {
			bestd = d;
			best = &keys[i];
		}
	}
	if (best)
		err_set(err, "%s: unknown key `%s` in [%s] (did you mean `%s`%s%s%s?)",
			where, name, section, best->name,
			strcmp(best->section, section) ? " in [" : "",
			strcmp(best->section, section) ? best->section : "",
			strcmp(best->section, section) ? "]" : "");
	else
		err_set(err, "%s: unknown key `%s` in [%s]", where, name, section);
}

/* ---- builder */

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

int builder_add_rule(struct policy_builder *b, enum sbx_rule_kind kind,
		     const char *value, enum sbx_origin origin,
		     const char *source)
{
	if (b->nrules == b->caprules) {
		size_t cap = b->caprules ? b->caprules * 2 : 64;
		struct raw_rule *r = realloc(b->rules, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		b->rules = r;
		b->caprules = cap;
	}
	struct raw_rule *r = &b->rules[b->nrules];
	r->kind = kind;
	r->origin = origin;
	r->value = xstrdup(value);
	r->source = xstrdup(source);
	if (!r->value || !r->source) {
		free(r->value);
		free(r->source);
		return -ENOMEM;
	}
	b->nrules++;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* What an agent profile may set: where the agent writes, which hosts it
 * reaches, its environment and how its reports are shown; never the
 * workspace, isolation, limits or the proxy's ports. */
static bool profile_may_set(const struct key *k)
{
	return !strcmp(k->section, "filesystem") || !strcmp(k->section, "env") ||
	       !strcmp(k->section, "report") || !strcmp(k->section, "profile") ||
	       (!strcmp(k->section, "network") && k->type == K_LIST &&
		k->kind != SBX_RULE_ALLOW_UNIX_SOCKET);
}

static int apply_preset(struct policy_builder *b, const char *name, enum sbx_origin origin,
			const char *source, enum policy_layer layer, struct sbx_err *err);

int builder_apply(struct policy_builder *b, const char *section,
		  const char *name, const char *value, enum sbx_origin origin,
		  const char *source, enum policy_layer layer, struct sbx_err *err)
{
	const struct key *k = find_key(section, name);
	const char *expected = NULL;
	bool project = layer == POLICY_LAYER_PROJECT;

	if (!strcmp(section, "profile")) {
		if (layer != POLICY_LAYER_PROFILE) {
			err_set(err, "%s: unknown section [profile] (it belongs in an agent "
				"profile, ~/.config/sbx/profiles/NAME.ini)", source);
			return -EINVAL;
		}
		if (!strcmp(name, "description"))
			return 0; /* for --print-profile; the policy has no use for it */
		if (strcmp(name, "claude_hook") && strcmp(name, "args")) {
			err_set(err, "%s: unknown key `%s` in [profile] (it holds `description`, "
				"`args` and `claude_hook`)", source, name);
			return -EINVAL;
		}
	}
	if (k && layer == POLICY_LAYER_PROFILE && !profile_may_set(k)) {
		err_set(err, "%s: a profile may not set `%s` in [%s] (profiles set "
			"[filesystem], allow_domains and deny_domains, [env] and [report])",
			source, name, section);
		return -EINVAL;
	}
	if (!k) {
		bool known_section = false;
		for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
			known_section |= !strcmp(sections[i], section);
		if (!known_section) {
			err_set(err, "%s: unknown section [%s] (sections are "
				"[sandbox], [filesystem], [network], [report], "
				"[limits], [env])", source, section);
			return -EINVAL;
		}
		unknown_key(source, section, name, err);
		return -EINVAL;
	}

	if (k->type == K_LIST) {
		char *copy = strdup(value), *save = NULL;
		int rc = 0;

		if (!copy)
			return -ENOMEM;
		if (project && k->narrow == N_REFUSE) {
			err_set(err, "%s: `%s` would widen the policy; a project's "
				"sandbox.ini may only narrow it (deny_read, deny_write, "
				"deny_domains, deny_env, stricter settings)",
				source, name);
			free(copy);
			return -EINVAL;
		}
		for (char *tok = strtok_r(copy, ",", &save); tok && !rc;
		     tok = strtok_r(NULL, ",", &save)) {
			char *item = trim(tok);
			if (!*item)
				continue;
			if (k->check == C_PATH && glob_star_count(item) > 8) {
				err_set(err, "%s: `%s` pattern `%s` has more than 8 "
					"wildcards", source, name, item);
				rc = -EINVAL;
				break;
			}
			if (k->check == C_ENVSET && check_envset(item, &expected)) {
				err_set(err, "%s: `%s` must be %s, not `%s`", source,
					name, expected, item);
				rc = -EINVAL;
				break;
			}
			if (k->check == C_PORT && check_value(k, item, &expected)) {
				err_set(err, "%s: `%s` must be a list of ports from 1 to 65535, "
					"not `%s`", source, name, item);
				rc = -EINVAL;
				break;
			}
			if (k->check == C_PATH && strlen(item) >= PATH_MAX) {
				err_set(err, "%s: `%s` path is longer than %d bytes",
					source, name, PATH_MAX - 1);
				rc = -EINVAL;
				break;
			}
			rc = builder_add_rule(b, k->kind, item, origin, source);
		}
		free(copy);
		return rc;
	}

	char *v = trim(strcpy(alloca(strlen(value) + 1), value));
	if (*v && check_value(k, v, &expected)) {
		err_set(err, "%s: `%s` must be %s, not `%s`", source, name,
			expected, v);
		return -EINVAL;
	}
	struct raw_scalar *sc = &b->scalars[k->sc];
	if (project && !narrows(k, sc, v)) {
		err_set(err, "%s: `%s = %s` would widen the policy; a project's "
			"sandbox.ini may only narrow it", source, name, v);
		return -EINVAL;
	}
	/* a preset's settings stay where it was named (allow_domains = *
	 * among them): another one, or none, after it would say a network
	 * and writes the policy does not have */
	if (k->sc == SC_PRESET && sc->value && strcmp(sc->value, v)) {
		err_set(err, "%s: `profile = %s` after `profile = %s` (%s): a preset's settings "
			"cannot be taken back; name one", source, v, sc->value, sc->source);
		return -EINVAL;
	}
	char *nv = *v ? strdup(v) : NULL, *ns = strdup(source);
	if ((*v && !nv) || !ns) {
		free(nv);
		free(ns);
		return -ENOMEM;
	}
	free(sc->value);
	free(sc->source);
	sc->value = nv;
	sc->source = ns;
	sc->origin = origin;
	/* a preset's settings, as if written here */
	if (k->sc == SC_PRESET && nv)
		return apply_preset(b, nv, origin, ns, layer, err);
	return 0;
}

/* ---- inih, with physical line numbers and long lists.
 *
 * Debian's libinih is built without INI_HANDLER_LINENO and with a 200-byte
 * line buffer. This reader counts the lines itself and hands inih a long
 * list line as continuation lines split at commas (inih's multi-line values
 * call the handler again with the same key, which appends). */

#define INIH_LINE 200

struct reader {
	const char *p;        /* next unread byte */
	unsigned line;        /* physical line of the segment last returned */
	bool in_line;         /* the last segment did not finish its line */
	unsigned *map;        /* inih's line n -> physical line map[n-1] */
	size_t nmap, capmap;
	unsigned too_long;    /* first physical line that could not be split */
};

static char *reader_next(char *str, int num, void *stream)
{
	struct reader *r = stream;
	size_t room = (size_t)num - 2; /* '\n' and NUL */
	size_t off = 0;

	if (!*r->p)
		return NULL;
	if (!r->in_line)
		r->line++;
	else
		str[off++] = ' '; /* a continuation line starts with a blank */

	const char *eol = strchrnul(r->p, '\n');
	size_t len = (size_t)(eol - r->p);
	const char *first = r->p + strspn(r->p, " \t");
	if (!r->in_line && (*first == ';' || *first == '#') && len > room) {
		/* A comment stays one comment, whatever its length: split at
		 * a comma, its rest would be read as a line of its own (a
		 * long file name holding `,[filesystem]` and `,allow_write =
		 * ~` became a section and a setting). Its tail is dropped. */
		memcpy(str, r->p, room);
		off = room;
		r->p = *eol ? eol + 1 : eol;
	} else if (off + len > room) {
		/* split after the last comma that fits */
		size_t fit = room - off, cut = 0;
		for (size_t i = 0; i < fit; i++)
			if (r->p[i] == ',')
				cut = i + 1;
		if (!cut) {
			if (!r->too_long)
				r->too_long = r->line;
			cut = fit;
		}
		memcpy(str + off, r->p, cut);
		off += cut;
		r->p += cut;
		r->in_line = true;
	} else {
		memcpy(str + off, r->p, len);
		off += len;
		r->p = *eol ? eol + 1 : eol;
		r->in_line = false;
	}
	str[off++] = '\n';
	str[off] = '\0';

	if (r->nmap == r->capmap) {
		size_t cap = r->capmap ? r->capmap * 2 : 64;
		unsigned *m = realloc(r->map, cap * sizeof(*m));
		if (!m)
			return NULL; /* inih stops; reported as an error */
		r->map = m;
		r->capmap = cap;
	}
	r->map[r->nmap++] = r->line;
	return str;
}

struct parse_ctx {
	struct policy_builder *b;
	struct reader *r;
	const char *display;
	enum policy_layer layer;
	struct sbx_err *err;
	int rc;
	bool seen_list[SBX_RULE_KIND_COUNT];
};

static int on_entry(void *user, const char *section, const char *name,
		    const char *value)
{
	struct parse_ctx *c = user;
	char where[PATH_MAX + 32];

	if (c->rc)
		return 1; /* keep the first error */
	snprintf(where, sizeof(where), "%s:%u", c->display, c->r->line);
	if (!*section) {
		c->rc = -EINVAL;
		err_set(c->err, "%s: `%s` is outside any section (start with "
			"[sandbox], [filesystem], …)", where, name);
		return 0;
	}
	c->rc = builder_apply(c->b, section, name, value,
			      c->layer == POLICY_LAYER_PROJECT ? SBX_ORIGIN_PROJECT :
			      c->layer == POLICY_LAYER_PROFILE ? SBX_ORIGIN_PROFILE :
			      SBX_ORIGIN_FILE, where, c->layer, c->err);
	return c->rc ? 0 : 1;
}

static int parse_text(struct policy_builder *b, const char *text,
		      const char *display, enum policy_layer layer,
		      struct sbx_err *err)
{
	struct reader r = { .p = text };
	struct parse_ctx c = { .b = b, .r = &r, .display = display,
			       .layer = layer, .err = err };
	int line = ini_parse_stream(reader_next, &r, on_entry, &c);
	int rc = c.rc;

	if (!rc && r.too_long) {
		err_set(err, "%s:%u: line is too long (%d characters at most, "
			"or a comma-separated list, which may run longer)",
			display, r.too_long, INIH_LINE - 2);
		rc = -EINVAL;
	} else if (!rc && line) {
		unsigned phys = (size_t)line <= r.nmap ? r.map[line - 1] : r.line;
		const char *p = text;
		for (unsigned i = 1; i < phys && *p; i++)
			p = strchrnul(p, '\n') + (*strchrnul(p, '\n') ? 1 : 0);
		int n = (int)(strchrnul(p, '\n') - p);
		err_set(err, "%s:%u: cannot parse `%.*s` (expected `[section]`, "
			"`key = value` or a comment)", display, phys,
			n > 60 ? 60 : n, p);
		rc = -EINVAL;
	}
	free(r.map);
	return rc;
}

int policy_builder_load_string(struct policy_builder *b, const char *text,
			       const char *display, enum policy_layer layer,
			       struct sbx_err *err)
{
	return parse_text(b, text, display, layer, err);
}

int policy_builder_load_file(struct policy_builder *b, const char *path,
			     const char *display, enum policy_layer layer,
			     struct sbx_err *err)
{
	/* the workspace's own sandbox.ini is found, not named: a FIFO
	 * there must not hold the start (sbx_fopen_file); a file the person
	 * named (--config <(...), /dev/null) is read as it is */
	FILE *f = layer == POLICY_LAYER_PROJECT ? sbx_fopen_file(path) : fopen(path, "re");
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (!display)
		display = path;
	if (!f) {
		rc = -errno;
		if (rc != -ENOENT)
			err_set(err, "%s: cannot read: %s", display, strerror(errno));
		return rc;
	}
	/* sandbox.ini is small; a huge one is a mistake or an attack. */
	text = malloc(1 << 20);
	if (!text) {
		fclose(f);
		return -ENOMEM;
	}
	len = fread(text, 1, (1 << 20) - 1, f);
	if (ferror(f) || !feof(f)) {
		err_set(err, "%s: %s", display, ferror(f) ? strerror(errno) :
			"larger than 1 MiB; is this really a sandbox.ini?");
		rc = -EINVAL;
		goto out;
	}
	text[len] = '\0';
	if (memchr(text, '\0', len)) {
		err_set(err, "%s: contains a NUL byte; is this really a sandbox.ini?",
			display);
		rc = -EINVAL;
		goto out;
	}
	rc = parse_text(b, text, display, layer, err);
	if (!rc) {
		char real[PATH_MAX];
		char **files = realloc(b->config_files,
				       (b->nconfig + 1) * sizeof(*files));
		if (!files) {
			rc = -ENOMEM;
			goto out;
		}
		b->config_files = files;
		files[b->nconfig] = strdup(realpath(path, real) ? real : path);
		if (!files[b->nconfig])
			rc = -ENOMEM;
		else
			b->nconfig++;
	}
out:
	free(text);
	fclose(f);
	return rc;
}

int policy_builder_set(struct policy_builder *b, const char *section,
		       const char *key, const char *value,
		       enum sbx_origin origin, const char *source,
		       struct sbx_err *err)
{
	return builder_apply(b, section, key, value, origin, source, POLICY_LAYER_USER, err);
}

int policy_builder_scalar(const struct policy_builder *b, const char *section,
			  const char *key, const char **value, const char **source,
			  enum sbx_origin *origin)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct key *k = &keys[i];
		if (k->type != K_SCALAR || strcmp(k->section, section) || strcmp(k->name, key))
			continue;
		*value = b->scalars[k->sc].value;
		*source = b->scalars[k->sc].source;
		*origin = b->scalars[k->sc].origin;
		return 0;
	}
	return -ENOENT;
}

/* The preset's settings into b, as if written where it was named: each
 * rule's source says the preset and that place. 0, or builder_apply()'s
 * error. */
static int apply_preset(struct policy_builder *b, const char *name, enum sbx_origin origin,
			const char *source, enum policy_layer layer, struct sbx_err *err)
{
	const char *section, *key, *value;
	char src[PATH_MAX + 64];
	int rc = 0;

	if (!preset_known(name))
		return -EINVAL;
	snprintf(src, sizeof(src), "preset %s (%s)", name, source);
	for (size_t i = 0; !rc && preset_setting(name, i, &section, &key, &value); i++)
		rc = builder_apply(b, section, key, value, origin, src, layer, err);
	return rc;
}
