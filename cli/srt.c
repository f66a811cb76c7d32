/* cli/srt.c: `sbxctl import-srt`: the reference runtime's
 * settings (~/.srt-settings.json: filesystem and network lists, unix
 * sockets, local binding, ignoreViolations) as a sandbox.ini. What has no
 * equivalent is named, one line each, never dropped silently. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/config.h"
#include "cli/sbxctl.h"
#include "preload/preload.h"

static const char srt_usage[] =
"Usage: sbxctl import-srt [-o FILE | --write [-c FILE]] [SETTINGS.json]\n"
"Convert the reference runtime's settings (default ~/.srt-settings.json) to a\n"
"sandbox.ini on stdout. Carried over: filesystem.denyRead, allowRead,\n"
"allowWrite, denyWrite; network.allowedDomains, deniedDomains,\n"
"allowUnixSockets, allowAllUnixSockets, allowLocalBinding, httpProxyPort,\n"
"socksProxyPort; enableWeakerNestedSandbox; ignoreViolations for every\n"
"command (\"*\"). Everything else is named on stderr as not carried over.\n"
"srt writes only where allowWrite says, so the result has isolation = custom.\n"
"  -o, --output FILE   write FILE instead of stdout (atomically, FILE.bak kept)\n"
"      --write         write your sandbox.ini (-c FILE, $SBX_CONFIG, or\n"
"                      ~/.config/sbx/sandbox.ini), atomically, .bak kept\n"
"Exit status: 0 converted (some settings may be named as not carried over);\n"
"2 the file cannot be read or is not srt settings (the error says where).\n";

struct conv {
	FILE *out;
	const char *file;
	unsigned dropped;
	int bad;
};

static void dropped(struct conv *c, const char *what, const char *why)
{
	char w[512];

	ctl_printable(what, w, sizeof(w));
	fprintf(stderr, "sbxctl import-srt: %s: not carried over (%s)\n", w, why);
	c->dropped++;
}

/* A string usable as one list entry: no comma (the list separator), no
 * `;`/`#` (comments), no control byte, no space at either end. */
static bool entry_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || s[0] == ' ' || s[n - 1] == ' ' || strpbrk(s, ",;#"))
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* An array of strings as `a, b`; anything else in it named. */
static void list(struct conv *c, json_t *obj, const char *jkey, const char *where)
{
	json_t *arr = json_object_get(obj, jkey), *v;
	char name[128];
	size_t i;
	bool first = true;

	snprintf(name, sizeof(name), "%s.%s", where, jkey);
	if (!arr)
		return;
	if (!json_is_array(arr)) {
		fprintf(stderr, "sbxctl import-srt: %s: %s is not a list of strings\n", c->file,
			name);
		c->bad = 1;
		return;
	}
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v) ||
		    !entry_ok(json_string_value(v))) {
			char what[160];
			snprintf(what, sizeof(what), "%s[%zu]", name, i);
			dropped(c, what, json_is_string(v) ? "empty, or holds a comma, `;`, `#` "
				"or a control character, which sandbox.ini cannot hold in a list" :
				"not a string");
			continue;
		}
		fprintf(c->out, "%s%s", first ? "" : ", ", json_string_value(v));
		first = false;
	}
}

/* `key = a, b` only when the list has entries; written through list(). */
static void list_key(struct conv *c, json_t *obj, const char *jkey, const char *where,
		     const char *key)
{
	json_t *arr = json_object_get(obj, jkey);

	if (!arr)
		return;
	fprintf(c->out, "%s = ", key);
	list(c, obj, jkey, where);
	fputc('\n', c->out);
}

static void boolean(struct conv *c, json_t *obj, const char *jkey, const char *where,
		    const char *key)
{
	json_t *v = json_object_get(obj, jkey);

	if (!v)
		return;
	if (!json_is_boolean(v)) {
		fprintf(stderr, "sbxctl import-srt: %s: %s.%s is not true or false\n", c->file,
			where, jkey);
		c->bad = 1;
		return;
	}
	fprintf(c->out, "%s = %s\n", key, json_is_true(v) ? "true" : "false");
}

static void port(struct conv *c, json_t *obj, const char *jkey, const char *key)
{
	json_t *v = json_object_get(obj, jkey);

	if (!v)
		return;
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 65535) {
		fprintf(stderr, "sbxctl import-srt: %s: network.%s is not a port (1-65535)\n",
			c->file, jkey);
		c->bad = 1;
		return;
	}
	fprintf(c->out, "%s = %lld\n", key, (long long)json_integer_value(v));
}

/* Keys of obj not in `known`, named. */
static void unknown_keys(struct conv *c, json_t *obj, const char *where,
			 const char *const *known)
{
	const char *k;
	json_t *v;

	json_object_foreach(obj, k, v) {
		size_t i;
		for (i = 0; known[i] && strcmp(known[i], k); i++)
			;
		if (!known[i]) {
			char what[300];
			snprintf(what, sizeof(what), "%s%s%s", where, where[0] ? "." : "", k);
			dropped(c, what, "sbx has no such setting");
		}
	}
}

/* ignoreViolations: { "*": [paths or hosts], "command": [...] }. Only the
 * entries for every command have an equivalent (ignore_paths for paths,
 * ignore_domains for hosts). */
static void ignores(struct conv *c, json_t *iv)
{
	const char *cmd;
	json_t *arr, *v;
	size_t i;
	struct strv paths = { 0 }, hosts = { 0 };

	if (!iv)
		return;
	if (!json_is_object(iv)) {
		fprintf(stderr, "sbxctl import-srt: %s: ignoreViolations is not an object\n",
			c->file);
		c->bad = 1;
		return;
	}
	json_object_foreach(iv, cmd, arr) {
		char what[300];
		snprintf(what, sizeof(what), "ignoreViolations[\"%s\"]", cmd);
		if (strcmp(cmd, "*")) {
			dropped(c, what, "sbx silences reports for every command, not one");
			continue;
		}
		if (!json_is_array(arr)) {
			dropped(c, what, "not a list");
			continue;
		}
		json_array_foreach(arr, i, v) {
			const char *s = json_is_string(v) ? json_string_value(v) : NULL;
			if (!s || strlen(s) != json_string_length(v) || !entry_ok(s)) {
				dropped(c, what, "an entry that is not a usable string");
				continue;
			}
			strv_add(s[0] == '/' || s[0] == '~' || s[0] == '.' ? &paths : &hosts, s);
		}
	}
	if (!paths.n && !hosts.n)
		return;
	fprintf(c->out, "\n[report]\n");
	for (size_t k = 0; k < 2; k++) {
		struct strv *s = k ? &hosts : &paths;
		if (!s->n)
			continue;
		fprintf(c->out, "%s = ", k ? "ignore_domains" : "ignore_paths");
		for (size_t j = 0; j < s->n; j++)
			fprintf(c->out, "%s%s", j ? ", " : "", s->v[j]);
		fputc('\n', c->out);
	}
	strv_free(&paths);
	strv_free(&hosts);
}

static int convert(struct conv *c, json_t *root)
{
	static const char *const top_known[] = { "filesystem", "network", "ignoreViolations",
						 "enableWeakerNestedSandbox", NULL };
	static const char *const fs_known[] = { "denyRead", "allowRead", "allowWrite",
						"denyWrite", NULL };
	static const char *const net_known[] = { "allowedDomains", "deniedDomains",
						 "allowUnixSockets", "allowAllUnixSockets",
						 "allowLocalBinding", "httpProxyPort",
						 "socksProxyPort", NULL };
	json_t *fs = json_object_get(root, "filesystem"), *net = json_object_get(root, "network");

	if (!json_is_object(root)) {
		fprintf(stderr, "sbxctl import-srt: %s: not a JSON object; is this srt's "
			"settings file?\n", c->file);
		return -1;
	}
	if ((fs && !json_is_object(fs)) || (net && !json_is_object(net))) {
		fprintf(stderr, "sbxctl import-srt: %s: filesystem and network must be "
			"objects\n", c->file);
		return -1;
	}
	unknown_keys(c, root, "", top_known);
	/* the file's name is anyone's: a newline in it would end the comment
	 * and start a line of settings, so control characters are escaped
	 * (and the reader keeps a long comment one comment: policy/load.c) */
	char name[PATH_MAX];
	ctl_printable(c->file, name, sizeof(name));
	fprintf(c->out, "; Converted from %s by `sbxctl import-srt`.\n"
		"; srt writes only where allowWrite says: isolation = custom does the same.\n\n",
		name);
	fprintf(c->out, "[sandbox]\nisolation = custom\n");
	boolean(c, root, "enableWeakerNestedSandbox", "", "nested");
	fprintf(c->out, "\n[filesystem]\n");
	if (fs) {
		unknown_keys(c, fs, "filesystem", fs_known);
		list_key(c, fs, "denyRead", "filesystem", "deny_read");
		list_key(c, fs, "allowRead", "filesystem", "allow_read");
		list_key(c, fs, "allowWrite", "filesystem", "allow_write");
		list_key(c, fs, "denyWrite", "filesystem", "deny_write");
	}
	fprintf(c->out, "\n[network]\n");
	if (net) {
		unknown_keys(c, net, "network", net_known);
		list_key(c, net, "allowedDomains", "network", "allow_domains");
		list_key(c, net, "deniedDomains", "network", "deny_domains");
		list_key(c, net, "allowUnixSockets", "network", "allow_unix_sockets");
		boolean(c, net, "allowAllUnixSockets", "network", "allow_all_unix_sockets");
		boolean(c, net, "allowLocalBinding", "network", "allow_local_binding");
		port(c, net, "httpProxyPort", "http_proxy_port");
		port(c, net, "socksProxyPort", "socks_proxy_port");
	}
	ignores(c, json_object_get(root, "ignoreViolations"));
	return c->bad ? -1 : 0;
}

int cmd_import_srt(int argc, char **argv)
{
	enum { O_WRITE = 256 };
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "write", no_argument, NULL, O_WRITE },
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *config = NULL, *home = config_home_dir();
	char in[PATH_MAX], target[PATH_MAX], *text = NULL;
	size_t len = 0;
	bool to_config = false;
	json_error_t e;
	json_t *root;
	int opt, rc = CTL_USAGE;

	if (ctl_common_flag("import-srt", srt_usage, argc, argv))
		return CTL_OK;
	while ((opt = getopt_long(argc, argv, "o:c:", lo, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'c': config = optarg; break;
		case O_WRITE: to_config = true; break;
		default:
			fprintf(stderr, "sbxctl: see `sbxctl import-srt --help`\n");
			return CTL_USAGE;
		}
	}
	if (argc - optind > 1 || (output && to_config)) {
		fprintf(stderr, "sbxctl import-srt: one settings file at most, and -o or "
			"--write, not both\n");
		return CTL_USAGE;
	}
	if (optind < argc)
		snprintf(in, sizeof(in), "%s", argv[optind]);
	else if (!home || (size_t)snprintf(in, sizeof(in), "%s/.srt-settings.json", home) >= sizeof(in))
		return CTL_USAGE;
	root = json_load_file(in, JSON_REJECT_DUPLICATES, &e);
	if (!root) {
		char m[256];
		ctl_printable(e.text, m, sizeof(m));
		fprintf(stderr, "sbxctl import-srt: %s:%d:%d: %s\n", in, e.line, e.column, m);
		return CTL_USAGE;
	}
	struct conv c = { .file = in };
	if (!(c.out = open_memstream(&text, &len)))
		goto out;
	int crc = convert(&c, root);
	fclose(c.out);
	if (crc)
		goto out;
	struct policy_builder *b = NULL;
	struct policy_ctx ctx = { .home = "/nonexistent", .cwd = "/" };
	struct sbx_err err = { "" };
	int lrc = policy_builder_new(&ctx, &b) ? -ENOMEM :
		  policy_builder_load_string(b, text, "the converted file", POLICY_LAYER_USER, &err);
	policy_builder_free(b);
	if (lrc) {
		/* a value sbx refuses (a glob too wild, a path too long...) */
		fprintf(stderr, "sbxctl import-srt: %s: the converted settings do not load: %s\n",
			in, err.msg[0] ? err.msg : strerror(-lrc));
		goto out;
	}
	if (!output && !to_config) {
		fputs(text, stdout);
		rc = CTL_OK;
		goto out;
	}
	int terr = to_config ? ctl_target_file(config, target, sizeof(target)) :
		   ctl_target_file(output, target, sizeof(target));
	if (terr) {
		fprintf(stderr, "sbxctl import-srt: cannot tell where to write: %s\n",
			strerror(-terr));
		goto out;
	}
	if (ctl_write_config(target, text))
		goto out;
	fprintf(stderr, "sbxctl import-srt: wrote %s%s\n", target,
		c.dropped ? " (the settings named above were not carried over)" : "");
	rc = CTL_OK;
out:
	free(text);
	json_decref(root);
	return rc;
}
