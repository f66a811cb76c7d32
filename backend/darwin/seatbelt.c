/* backend/darwin/seatbelt.c: the compiled policy as an SBPL profile
 * (seatbelt.h, docs/MACOS.md).
 *
 * Seatbelt decides by the last rule that matches an operation. The profile
 * is therefore laid out as policy_check_path() decides: everything read,
 * the deny_read regions closed again (each with the allow_read rules that
 * win over it as its exception); the writable roots opened, and then
 * every reason a write is refused closes them again. The semantic test
 * (tests/unit/seatbelt_eval.c) evaluates the text this file makes and
 * compares it with policy_check_path() path by path.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/darwin/seatbelt.h"

#define REGEX_MAX 8192

struct out {
	char *buf;
	size_t len, cap;
	int err;
	struct seatbelt_param *params;
	size_t np, capp;
	const char *tag; /* the run id: `(with message "sbx-ID")` */
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->err)
		return;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->err = -EINVAL;
			return;
		}
		if ((size_t)n < o->cap - o->len) {
			o->len += (size_t)n;
			return;
		}
		size_t cap = (o->cap + (size_t)n + 1) * 2;
		char *b = realloc(o->buf, cap);
		if (!b) {
			o->err = -ENOMEM;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
}

/* The parameter holding `value`: one name per distinct value. */
static const char *param_as(struct out *o, const char *name, const char *value)
{
	char auto_name[24];

	if (o->err)
		return "";
	for (size_t i = 0; i < o->np; i++)
		if (!strcmp(o->params[i].value, value) && (!name || !strcmp(o->params[i].name, name)))
			return o->params[i].name;
	if (o->np == o->capp) {
		size_t cap = o->capp ? o->capp * 2 : 32;
		struct seatbelt_param *p = realloc(o->params, cap * sizeof(*p));
		if (!p) {
			o->err = -ENOMEM;
			return "";
		}
		o->params = p;
		o->capp = cap;
	}
	if (!name) {
		snprintf(auto_name, sizeof(auto_name), "P%zu", o->np + 1);
		name = auto_name;
	}
	struct seatbelt_param *p = &o->params[o->np];
	p->name = strdup(name);
	p->value = strdup(value);
	if (!p->name || !p->value) {
		free(p->name);
		free(p->value);
		o->err = -ENOMEM;
		return "";
	}
	o->np++;
	return p->name;
}

static const char *param(struct out *o, const char *value)
{
	return param_as(o, NULL, value);
}

int seatbelt_canonical(const char *path, char *out, size_t outsz)
{
	static const char *const linked[] = { "/tmp", "/var", "/etc" };
	const char *pre = "";

	for (size_t i = 0; i < sizeof(linked) / sizeof(linked[0]); i++) {
		size_t n = strlen(linked[i]);
		if (!strncmp(path, linked[i], n) && (path[n] == '\0' || path[n] == '/'))
			pre = "/private";
	}
	int n = snprintf(out, outsz, "%s%s", pre, path);
	if (n < 0 || (size_t)n >= outsz) {
		if (outsz)
			out[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Append one literal byte to a regex, escaped when the regex would read
 * it as an operator. */
static int re_byte(char *out, size_t outsz, size_t *l, char c, bool fold)
{
	bool meta = strchr(".^$*+?()[]{}|\\", c) != NULL;

	if (fold && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
		if (*l + 5 >= outsz)
			return -ENAMETOOLONG;
		out[(*l)++] = '[';
		out[(*l)++] = (char)(c | 0x20);
		out[(*l)++] = (char)(c & ~0x20);
		out[(*l)++] = ']';
		out[*l] = '\0';
		return 0;
	}
	if (*l + 2 >= outsz)
		return -ENAMETOOLONG;
	if (meta)
		out[(*l)++] = '\\';
	out[(*l)++] = c;
	out[*l] = '\0';
	return 0;
}

static int re_str(char *out, size_t outsz, size_t *l, const char *s)
{
	size_t n = strlen(s);

	if (*l + n >= outsz)
		return -ENAMETOOLONG;
	memcpy(out + *l, s, n + 1);
	*l += n;
	return 0;
}

/* sbx_glob_match()'s language (policy/glob.c) as regex text: `*` within a
 * component, `?` one byte of one, a double star across components, and
 * followed by `/` zero or more whole components; `\x` is x. */
static int re_glob(char *out, size_t outsz, size_t *l, const char *p, bool fold)
{
	int rc = 0;

	while (*p && !rc) {
		if (p[0] == '*' && p[1] == '*') {
			while (*p == '*')
				p++;
			if (*p == '/') {
				p++;
				rc = re_str(out, outsz, l, "(.*/)?");
			} else {
				rc = re_str(out, outsz, l, ".*");
			}
			continue;
		}
		if (*p == '*')
			rc = re_str(out, outsz, l, "[^/]*");
		else if (*p == '?')
			rc = re_str(out, outsz, l, "[^/]");
		else {
			if (*p == '\\' && p[1])
				p++;
			rc = re_byte(out, outsz, l, *p, fold);
		}
		p++;
	}
	return rc;
}

int seatbelt_rule_regex(enum sbx_pat pat, const char *pattern, bool fold, char *out,
			size_t outsz)
{
	size_t l = 0;
	int rc;

	if (!outsz)
		return -ENAMETOOLONG;
	out[0] = '\0';
	switch (pat) {
	case SBX_PAT_PREFIX:
		rc = re_str(out, outsz, &l, "^");
		if (!rc && strcmp(pattern, "/"))
			for (const char *s = pattern; *s && !rc; s++)
				rc = re_byte(out, outsz, &l, *s, fold);
		/* `/` holds every absolute path */
		if (!rc)
			rc = re_str(out, outsz, &l, strcmp(pattern, "/") ? "(/.*)?$" : "/.*$");
		break;
	case SBX_PAT_GLOB:
		rc = re_str(out, outsz, &l, "^");
		if (!rc)
			rc = re_glob(out, outsz, &l, pattern, fold);
		if (!rc)
			rc = re_str(out, outsz, &l, "(/.*)?$");
		break;
	case SBX_PAT_ANYWHERE:
	default:
		/* after some `/` of the path, to a component's end */
		rc = re_str(out, outsz, &l, "^.*/");
		if (!rc)
			rc = re_glob(out, outsz, &l, pattern, fold);
		if (!rc)
			rc = re_str(out, outsz, &l, "(/.*)?$");
		break;
	}
	if (rc)
		out[0] = '\0';
	return rc;
}

/* One rule as filters. A path is `(subpath P)`, and for a deny also
 * `(literal P)`: the two name the same files to the kernel, said twice so
 * that the path itself -- created by mkdir or open(O_CREAT) where nothing
 * is yet -- is refused by name whatever a version makes of subpath. A glob
 * is `(regex R)`. Paths as Darwin names them (seatbelt_canonical).
 *
 * A deny also matches whatever the case of its letters: a Mac's volumes
 * are case-insensitive by default, where `~/.SSH/id_rsa` is the key and a
 * `.GIT/hooks` made where no `.git` is yet is the directory git reads. An
 * allow matches as written (narrower is the safe side). */
static void filter(struct out *o, const struct sbx_rule *r, bool deny)
{
	char canon[4096 + 16], re[REGEX_MAX];

	if (r->pat == SBX_PAT_PREFIX) {
		if (seatbelt_canonical(r->pattern, canon, sizeof(canon))) {
			o->err = o->err ? o->err : -ENAMETOOLONG;
			return;
		}
		const char *n = param(o, canon);
		if (deny)
			put(o, " (literal (param \"%s\"))", n);
		put(o, " (subpath (param \"%s\"))", n);
		if (deny && strcmp(canon, "/")) {
			if (seatbelt_rule_regex(SBX_PAT_PREFIX, canon, true, re, sizeof(re))) {
				o->err = o->err ? o->err : -ENAMETOOLONG;
				return;
			}
			put(o, " (regex (param \"%s\"))", param(o, re));
		}
		return;
	}
	const char *pat = r->pattern;
	if (r->pat == SBX_PAT_GLOB) {
		if (seatbelt_canonical(r->pattern, canon, sizeof(canon))) {
			o->err = o->err ? o->err : -ENAMETOOLONG;
			return;
		}
		pat = canon;
	}
	if (seatbelt_rule_regex(r->pat, pat, deny, re, sizeof(re))) {
		o->err = o->err ? o->err : -ENAMETOOLONG;
		return;
	}
	put(o, " (regex (param \"%s\"))", param(o, re));
}

static void with_tag(struct out *o)
{
	put(o, " (with message \"sbx-%s\"))\n", o->tag);
}

/* The parent directory of an absolute, normal path into out ("/" for
 * "/x"); false for "/" itself. */
static bool parent_of(const char *path, char *out, size_t outsz)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (!slash || !path[1] || n + 2 > outsz)
		return false;
	if (n == 0)
		n = 1;
	memcpy(out, path, n);
	out[n] = '\0';
	return true;
}

/* The literal directory a rule's matches all lie in: its path, or a
 * glob's literal lead cut back to its last `/`; "" for a name at any
 * depth. */
static void rule_dir(const struct sbx_rule *r, char *out, size_t outsz)
{
	out[0] = '\0';
	if (r->pat == SBX_PAT_ANYWHERE || outsz < 2)
		return;
	size_t n = r->pat == SBX_PAT_PREFIX ? strlen(r->pattern) : r->prefix_len;
	if (r->pat == SBX_PAT_GLOB)
		while (n > 1 && r->pattern[n - 1] != '/')
			n--;
	if (n > 1 && r->pattern[n - 1] == '/' && r->pat == SBX_PAT_GLOB)
		n--;
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, r->pattern, n);
	out[n] = '\0';
}

/* Does allow_read rule a win over deny_read rule d wherever both match?
 * policy_check_path() takes the deny only when its match is longer than
 * the longest allow's. d's match ends at d's path (or further, a glob's),
 * so an allow wins unless it already matches a proper ancestor of d's
 * directory: then its match is shorter. */
static bool allow_wins(const struct sbx_rule *a, const struct sbx_rule *d)
{
	char dir[4096], up[4096];

	rule_dir(d, dir, sizeof(dir));
	if (!dir[0])
		return a->pat == SBX_PAT_ANYWHERE; /* both at any depth: as deep */
	/* two paths: the allow must lie inside the deny (elsewhere it never
	 * meets it; above it, its match is shorter) */
	if (d->pat == SBX_PAT_PREFIX && a->pat == SBX_PAT_PREFIX)
		return sbx_path_under(a->pattern, d->pattern);
	if (d->pat == SBX_PAT_PREFIX) {
		if (!parent_of(dir, up, sizeof(up)))
			return true; /* d is `/`: any allow is as long */
		return !policy_rule_matches(a, up);
	}
	/* a glob's match ends below its literal directory */
	return !policy_rule_matches(a, dir);
}

/* deny OPS where d matches, but not where an allow_read wins over it. */
static void deny_read_rule(struct out *o, const char *ops, const struct policy *p,
			   const struct sbx_rule *d)
{
	size_t na;
	const struct sbx_rule *const *as = policy_rules(p, SBX_RULE_ALLOW_READ, &na);
	bool any = false;

	for (size_t i = 0; i < na && !any; i++)
		any = allow_wins(as[i], d);
	put(o, "(deny %s", ops);
	if (!any) {
		filter(o, d, true);
	} else {
		put(o, " (require-all (require-any");
		filter(o, d, true);
		put(o, ") (require-not (require-any");
		for (size_t i = 0; i < na; i++)
			if (allow_wins(as[i], d))
				filter(o, as[i], false);
		put(o, "))");
		put(o, ")");
	}
	with_tag(o);
}

/* policy/query.c's in_agent_state(): the state directories of an agent
 * profile, where its executes-later rows are lifted. */
static bool agent_state_dir(const struct policy *p, const struct sbx_rule *r)
{
	const char *home = policy_home(p), *ws = policy_workspace(p);
	size_t hl = home ? strlen(home) : 0;

	return r->origin == SBX_ORIGIN_PROFILE && r->pat == SBX_PAT_PREFIX && hl > 1 &&
	       r->prefix_len > hl && sbx_path_under(r->pattern, home) &&
	       !(ws && *ws && sbx_path_under(ws, r->pattern));
}

static void mandatory_rule(struct out *o, const struct policy *p, const struct sbx_rule *r)
{
	size_t nw;
	const struct sbx_rule *const *ws = policy_rules(p, SBX_RULE_ALLOW_WRITE, &nw);
	const char *sess = policy_session_dir(p);
	bool agent = false, session;

	for (size_t i = 0; r->agent && i < nw; i++)
		agent = agent || agent_state_dir(p, ws[i]);
	/* the session directory stays writable in the state directory */
	session = sess && strlen(sess) > 1 && r->pat == SBX_PAT_PREFIX &&
		  r->prefix_len < strlen(sess) && policy_rule_matches(r, sess);
	put(o, "(deny file-write*");
	if (!agent && !session) {
		filter(o, r, true);
	} else {
		put(o, " (require-all (require-any");
		filter(o, r, true);
		put(o, ") (require-not (require-any");
		for (size_t i = 0; agent && i < nw; i++)
			if (agent_state_dir(p, ws[i]))
				filter(o, ws[i], false);
		if (session) {
			char canon[4096 + 16];
			if (seatbelt_canonical(sess, canon, sizeof(canon)))
				o->err = o->err ? o->err : -ENAMETOOLONG;
			put(o, " (subpath (param \"%s\"))", param(o, canon));
		}
		put(o, "))");
		put(o, ")");
	}
	with_tag(o);
}

static bool tag_ok(const char *s)
{
	if (!s || !*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

static void port_param(struct out *o, const char *name, unsigned port)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", port);
	param_as(o, name, v);
}

static void system_rules(struct out *o, const struct seatbelt_opts *so)
{
	put(o,
	    "; Running programs: the command and what it starts. Which files may\n"
	    "; be run is decided with the reads below (a deny_read region is not run).\n"
	    "(allow process-exec)\n"
	    "(allow process-fork)\n"
	    "; Its own processes only: ps, kill and debuggers of what it started.\n"
	    "(allow process-info* (target same-sandbox))\n"
	    "(allow signal (target same-sandbox))\n"
	    "; CPU count, page size, OS version: libc and every runtime ask at start.\n"
	    "(allow sysctl-read)\n"
	    "; Preference reads (locale, defaults) Foundation-based tools make at start.\n"
	    "(allow user-preference-read)\n"
	    "; POSIX shared memory and semaphores: Python multiprocessing, worker pools.\n"
	    "(allow ipc-posix-shm* ipc-posix-sem*)\n"
	    "; Reads everywhere but the deny_read regions below: Darwin has no small\n"
	    "; set a program needs (the dyld shared cache, frameworks, toolchains).\n"
	    "(allow file-read*)\n"
	    "; The terminal an interactive agent draws on, and pseudo-terminals of\n"
	    "; its own (a shell tool in a PTY).\n"
	    "(allow pseudo-tty)\n"
	    "(allow file-read* file-write* file-ioctl (literal \"/dev/ptmx\") (literal \"/dev/tty\")\n"
	    "       (regex #\"^/dev/ttys[0-9]+$\"))\n"
	    "; The devices every program writes to, and its own descriptors by name.\n"
	    "(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\")\n"
	    "       (literal \"/dev/dtracehelper\") (regex #\"^/dev/fd/[0-9]+$\"))\n"
	    "; Named Mach services only: certificate checks for TLS (trustd), user and\n"
	    "; group names (getpwuid), the system log, notifications libc waits on,\n"
	    "; and the name of the per-user temporary directory (confstr).\n"
	    "(allow mach-lookup (global-name \"com.apple.trustd.agent\")\n"
	    "       (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"
	    "       (global-name \"com.apple.system.logger\")\n"
	    "       (global-name \"com.apple.system.notification_center\")\n"
	    "       (global-name \"com.apple.bsd.dirhelper\"))\n");
	if (so->keychain)
		put(o, "; The login keychain (asked for): credentials a tool keeps there.\n"
		       "(allow mach-lookup (global-name \"com.apple.SecurityServer\")\n"
		       "       (global-name \"com.apple.securityd.xpc\"))\n");
	put(o, "; No Apple Events: a script of another application acts outside the sandbox.\n"
	       "(deny appleevent-send");
	with_tag(o);
}

static void network_rules(struct out *o, const struct policy *p, const struct seatbelt_opts *so,
			  char *err, size_t errsz)
{
	size_t n;
	const struct sbx_rule *const *rs;

	if (policy_network_open(p)) {
		put(o, "; allow_domains = * with no deny_domains: the network is open, and\n"
		       "; names resolve as the host resolves them (mDNSResponder). Otherwise\n"
		       "; they resolve through the proxy only: no lookup carries a name out.\n"
		       "(allow network*)\n"
		       "(allow mach-lookup (global-name \"com.apple.mDNSResponder\"))\n");
	} else if (policy_network_proxied(p)) {
		if (!so->http_port || !so->socks_port || so->http_port > 65535 ||
		    so->socks_port > 65535) {
			snprintf(err, errsz, "the port of sbx's %s proxy is not known: a profile "
				 "without it would leave the network open or shut",
				 so->http_port && so->http_port <= 65535 ? "SOCKS5" : "HTTP");
			o->err = -EINVAL;
			return;
		}
		port_param(o, "HTTP_PROXY_PORT", so->http_port);
		port_param(o, "SOCKS_PROXY_PORT", so->socks_port);
		put(o, "; The network only through the sbx proxy on localhost, which filters by domain.\n"
		       "(allow network-outbound\n"
		       "       (remote tcp (string-append \"localhost:\" (param \"HTTP_PROXY_PORT\")))\n"
		       "       (remote tcp (string-append \"localhost:\" (param \"SOCKS_PROXY_PORT\"))))\n");
	}
	rs = policy_rules(p, SBX_RULE_HOST_PORT, &n);
	for (size_t i = 0; i < n; i++) {
		char *end, name[32];
		unsigned long v = strtoul(rs[i]->value, &end, 10);
		if (*end || v == 0 || v > 65535) {
			snprintf(err, errsz, "%s: host_ports = %s is no port", rs[i]->source,
				 rs[i]->value);
			o->err = -EINVAL;
			return;
		}
		snprintf(name, sizeof(name), "HOST_PORT_%zu", i + 1);
		port_param(o, name, (unsigned)v);
		put(o, "; host_ports: this service of the host on localhost.\n"
		       "(allow network-outbound (remote tcp (string-append \"localhost:\" "
		       "(param \"%s\"))))\n", name);
	}
	if (policy_allow_local_binding(p))
		put(o, "; allow_local_binding: its own servers on localhost.\n"
		       "(allow network-bind network-inbound (local ip \"localhost:*\"))\n");
	if (policy_allow_all_unix_sockets(p)) {
		put(o, "; allow_all_unix_sockets: every Unix socket.\n"
		       "(allow network-outbound (remote unix-socket))\n");
	} else {
		rs = policy_rules(p, SBX_RULE_ALLOW_UNIX_SOCKET, &n);
		if (n)
			put(o, "; allow_unix_sockets: these Unix sockets, by path.\n");
		for (size_t i = 0; i < n; i++) {
			char canon[4096 + 16], re[REGEX_MAX];
			const char *pat = rs[i]->pattern;
			if (rs[i]->pat != SBX_PAT_ANYWHERE) {
				if (seatbelt_canonical(pat, canon, sizeof(canon))) {
					o->err = -ENAMETOOLONG;
					return;
				}
				pat = canon;
			}
			if (seatbelt_rule_regex(rs[i]->pat, pat, false, re, sizeof(re))) {
				o->err = -ENAMETOOLONG;
				return;
			}
			put(o, "(allow network-outbound (remote unix-socket (path-regex (param \"%s\"))))\n",
			    param(o, re));
		}
	}
}

/* A path as a literal's parameter, canonical ("" and o->err when it
 * cannot be). */
static const char *literal_param(struct out *o, const char *path)
{
	char canon[4096 + 16];

	if (seatbelt_canonical(path, canon, sizeof(canon))) {
		o->err = o->err ? o->err : -ENAMETOOLONG;
		return "";
	}
	return param(o, canon);
}

/* The shim's hand-over (seatbelt.h). Denies name a path as every deny
 * does (literal, subpath and the case-blind regex: APFS folds case);
 * allows name the exact file only. */
static void shim_rules(struct out *o, const struct seatbelt_opts *so, char *err, size_t errsz)
{
	const char *const files[] = { so->shim_policy, so->shim_report, so->shim_counters };

	if (!so->shim_dir && !so->shim_policy && !so->shim_report && !so->shim_counters)
		return;
	if (!so->shim_dir || so->shim_dir[0] != '/' || !strcmp(so->shim_dir, "/")) {
		snprintf(err, errsz, "the shim's directory must be absolute, not /");
		o->err = -EINVAL;
		return;
	}
	for (size_t i = 0; i < 3; i++)
		if (!files[i] || !sbx_path_under(files[i], so->shim_dir) ||
		    !strcmp(files[i], so->shim_dir)) {
			snprintf(err, errsz, "the shim's files must be in its directory");
			o->err = -EINVAL;
			return;
		}
	struct sbx_rule dir = { .pat = SBX_PAT_PREFIX, .pattern = so->shim_dir };
	struct sbx_rule fifo = { .pat = SBX_PAT_PREFIX, .pattern = so->shim_report };
	put(o, "; The shim's hand-over: its directory never changed from inside, the\n"
	       "; policy read, the report FIFO and the counters only written.\n"
	       "(deny file-write*");
	filter(o, &dir, true);
	with_tag(o);
	put(o, "(allow file-read* (literal (param \"%s\")))\n",
	    literal_param(o, so->shim_policy));
	put(o, "(allow file-write-data (literal (param \"%s\"))",
	    literal_param(o, so->shim_report));
	put(o, " (literal (param \"%s\")))\n", literal_param(o, so->shim_counters));
	put(o, "(deny file-read-data");
	filter(o, &fifo, true);
	with_tag(o);
}

/* Every run's hand-over, this one's too, not read from inside (seatbelt.h,
 * shim_others): `DIR/shim-*` as a glob, DIR's own glob characters
 * escaped. Before shim_rules, whose allow of this run's policy wins. */
static void others_rules(struct out *o, const struct seatbelt_opts *so, char *err, size_t errsz)
{
	char glob[2 * 4096 + 16];
	size_t l = 0;

	if (!so->shim_others)
		return;
	if (so->shim_others[0] != '/' || 2 * strlen(so->shim_others) + 8 > sizeof(glob)) {
		snprintf(err, errsz, "the hand-overs' directory must be absolute, and shorter");
		o->err = -EINVAL;
		return;
	}
	for (const char *s = so->shim_others; *s; s++) {
		if (strchr("*?[]\\", *s))
			glob[l++] = '\\';
		glob[l++] = *s;
	}
	if (l > 1 && glob[l - 1] == '/')
		l--;
	memcpy(glob + l, "/shim-*", sizeof("/shim-*"));
	struct sbx_rule r = { .pat = SBX_PAT_GLOB, .pattern = glob };
	put(o, "; Every run's shim hand-over: not another's to read, nor to hold.\n"
	       "(deny file-read*");
	filter(o, &r, true);
	with_tag(o);
}

/* What the disk says (seatbelt.h, kept): each path as a deny_write path
 * (literal, subpath, the case-blind regex). The session directory stays
 * writable below one (Linux binds it back in: plan.c, bind_roots()). */
static void kept_rules(struct out *o, const struct policy *p, const struct seatbelt_opts *so,
		       char *err, size_t errsz)
{
	const char *sess = policy_session_dir(p);
	bool session = false;

	if (!so->nkept && !so->npinned)
		return;
	for (size_t i = 0; i < so->npinned; i++)
		if (!so->pinned[i] || so->pinned[i][0] != '/' || !strcmp(so->pinned[i], "/")) {
			snprintf(err, errsz, "a directory kept in place must be absolute, not /");
			o->err = -EINVAL;
			return;
		}
	for (size_t i = 0; i < so->nkept; i++) {
		if (!so->kept[i] || so->kept[i][0] != '/') {
			snprintf(err, errsz, "a path kept read-only must be absolute");
			o->err = -EINVAL;
			return;
		}
		session = session || (sess && strlen(sess) > 1 && sbx_path_under(sess, so->kept[i]));
	}
	put(o, "; What the disk says stays unwritten, which no rule names: a repository's\n"
	       "; hooks and config, its core.hooksPath, a bare one's, a linked worktree's\n"
	       "; entry, a .git file, an included config (found at start).\n"
	       "(deny file-write*");
	if (session)
		put(o, " (require-all (require-any");
	for (size_t i = 0; i < so->nkept; i++) {
		struct sbx_rule r = { .pat = SBX_PAT_PREFIX, .pattern = so->kept[i] };
		filter(o, &r, true);
	}
	if (session) {
		char canon[4096 + 16];
		if (seatbelt_canonical(sess, canon, sizeof(canon)))
			o->err = o->err ? o->err : -ENAMETOOLONG;
		put(o, ") (require-not (subpath (param \"%s\"))))", param(o, canon));
	}
	with_tag(o);
	if (!so->npinned)
		return;
	/* the directory alone: its literal, and the case-blind regex of
	 * exactly it (APFS folds case) */
	put(o, "; ... and the directories on the way to them stay where they are.\n"
	       "(deny file-write*");
	for (size_t i = 0; i < so->npinned; i++) {
		char canon[4096 + 16], re[REGEX_MAX];
		size_t l = 0;
		int rc = seatbelt_canonical(so->pinned[i], canon, sizeof(canon));
		rc = rc ? rc : re_str(re, sizeof(re), &l, "^");
		for (const char *c = canon; !rc && *c; c++)
			rc = re_byte(re, sizeof(re), &l, *c, true);
		rc = rc ? rc : re_str(re, sizeof(re), &l, "$");
		if (rc) {
			o->err = o->err ? o->err : -ENAMETOOLONG;
			return;
		}
		put(o, " (literal (param \"%s\")) (regex (param \"%s\"))", param(o, canon),
		    param(o, re));
	}
	with_tag(o);
}

int seatbelt_compile(const struct policy *p, const struct seatbelt_opts *so,
		     struct seatbelt_profile *sp, char *err, size_t errsz)
{
	struct out o = { 0 };
	size_t n, nd, nw;
	const struct sbx_rule *const *rs;
	const struct sbx_rule *const *ds = policy_rules(p, SBX_RULE_DENY_READ, &nd);
	const char *home = policy_home(p);
	static char dummy[1];

	memset(sp, 0, sizeof(*sp));
	if (!err || !errsz) {
		err = dummy;
		errsz = sizeof(dummy);
	}
	err[0] = '\0';
	if (!tag_ok(so->run_id)) {
		snprintf(err, errsz, "the run id must be letters, digits, `-`, `_` or `.`");
		return -EINVAL;
	}
	o.tag = so->run_id;
	put(&o, "(version 1)\n"
		"; sbx: the compiled policy as a Seatbelt profile. Every path is a -D\n"
		"; parameter; every refusal is tagged with the id of this run.\n"
		"(deny default");
	with_tag(&o);
	system_rules(&o, so);
	network_rules(&o, p, so, err, errsz);

	if (nd)
		put(&o, "; deny_read: not read, not run (allow_read inside wins where it is deeper).\n");
	for (size_t i = 0; i < nd; i++)
		deny_read_rule(&o, "file-read* process-exec", p, ds[i]);

	rs = policy_rules(p, SBX_RULE_ALLOW_WRITE, &nw);
	if (nw) {
		put(&o, "; allow_write: the writable roots.\n(allow file-write*");
		for (size_t i = 0; i < nw; i++)
			filter(&o, rs[i], false);
		put(&o, ")\n");
	}
	/* every reason a write is refused, after the roots: they win */
	if (nd)
		put(&o, "; What may not be read may not be written either.\n");
	for (size_t i = 0; i < nd; i++)
		deny_read_rule(&o, "file-write*", p, ds[i]);

	const struct sbx_rule *const *ks = policy_rules(p, SBX_RULE_HOME_KEPT, &n);
	if (n && home && home[0] == '/' && home[1]) {
		/* policy_check_path(): a kept place is refused when the
		 * allow_write that allows it is HOME or above; one that
		 * matches longer (it names the place or a path inside it) lifts
		 * it */
		size_t hl = strlen(home), nl = 0;
		for (size_t i = 0; i < nw; i++)
			nl += rs[i]->pat == SBX_PAT_PREFIX ? rs[i]->prefix_len > hl :
				!policy_rule_matches(rs[i], home);
		put(&o, "; HOME is an allow-list when writable: places a later program runs\n"
			"; from stay read-only unless an allow_write names them.\n"
			"(deny file-write* (require-all (require-any");
		for (size_t i = 0; i < n; i++)
			filter(&o, ks[i], true);
		put(&o, ")");
		if (nl) {
			put(&o, " (require-not (require-any");
			for (size_t i = 0; i < nw; i++)
				if (rs[i]->pat == SBX_PAT_PREFIX ? rs[i]->prefix_len > hl :
				    !policy_rule_matches(rs[i], home))
					filter(&o, rs[i], false);
			put(&o, "))");
		}
		put(&o, ")");
		with_tag(&o);
	}
	rs = policy_rules(p, SBX_RULE_MANDATORY, &n);
	if (n)
		put(&o, "; Mandatory: what a later program runs or trusts, the sbx files,\n"
			"; credentials; their creation too.\n");
	for (size_t i = 0; i < n; i++)
		mandatory_rule(&o, p, rs[i]);
	rs = policy_rules(p, SBX_RULE_DENY_WRITE, &n);
	if (n) {
		put(&o, "; deny_write.\n(deny file-write*");
		for (size_t i = 0; i < n; i++)
			filter(&o, rs[i], true);
		with_tag(&o);
	}
	kept_rules(&o, p, so, err, errsz);
	others_rules(&o, so, err, errsz);
	shim_rules(&o, so, err, errsz);
	/* last: no allow_write (of /dev, say) opens it again */
	if (so->host_tty && so->host_tty[0]) {
		put(&o, "; The person's terminal: COMMAND has a pty of its own, and neither\n"
			"; reads the typing from this one nor writes or ioctls it.\n"
			"(deny file-read* file-write* file-ioctl (literal (param \"%s\"))",
		    param_as(&o, "HOST_TTY", so->host_tty));
		with_tag(&o);
	}

	if (o.err) {
		if (!err[0])
			snprintf(err, errsz, "%s", o.err == -ENOMEM ? "out of memory" :
				 "a path is too long for a Seatbelt profile");
		sp->params = o.params;
		sp->nparams = o.np;
		free(o.buf);
		seatbelt_profile_free(sp);
		return o.err;
	}
	sp->text = o.buf;
	sp->params = o.params;
	sp->nparams = o.np;
	return 0;
}

void seatbelt_profile_free(struct seatbelt_profile *sp)
{
	if (!sp)
		return;
	for (size_t i = 0; i < sp->nparams; i++) {
		free(sp->params[i].name);
		free(sp->params[i].value);
	}
	free(sp->params);
	free(sp->text);
	memset(sp, 0, sizeof(*sp));
}

/* The inside of a single-quoted shell word: a quote as '\'' */
static void sq_body(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
}

/* One shell word in single quotes. */
static void sq(FILE *f, const char *s)
{
	fputc('\'', f);
	sq_body(f, s);
	fputc('\'', f);
}

void seatbelt_print_command(FILE *f, const struct seatbelt_profile *sp, char *const *command)
{
	fputs("/usr/bin/sandbox-exec", f);
	for (size_t i = 0; i < sp->nparams; i++) {
		/* NAME is ours ([A-Z0-9_]); the value is quoted with it */
		fprintf(f, " \\\n  -D '%s=", sp->params[i].name);
		sq_body(f, sp->params[i].value);
		fputc('\'', f);
	}
	fputs(" \\\n  -p ", f);
	sq(f, sp->text);
	if (command && command[0]) {
		for (size_t i = 0; command[i]; i++) {
			fputc(' ', f);
			sq(f, command[i]);
		}
	} else {
		fputs(" \"${SHELL:-/bin/zsh}\"", f);
	}
	fputc('\n', f);
}
