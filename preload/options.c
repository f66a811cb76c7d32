/* preload/options.c: the sbx-preload command line. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/preload.h"

#ifndef SBX_VERSION
#define SBX_VERSION "0.1.0"
#endif

static const char usage[] =
"Usage: sbx-preload [OPTIONS] [--] COMMAND [ARG...]\n"
"Run COMMAND in a sandbox: it reads what the policy allows, writes only its\n"
"workspace, reaches only the hosts allowed, and cannot touch credentials, shell\n"
"start-up"
" files or git hooks.\n"
"\n"
"Policy:\n"
"  -c, --config FILE       policy file (default: $SBX_CONFIG, else\n"
"                          ~/.config/sbx/sandbox.ini, else /etc/sbx/sandbox.ini,\n"
"                          else the built-in defaults); <workspace>/sandbox.ini\n"
"                          is read too and may only narrow the policy\n"
"  -w, --workspace DIR     workspace root, writable (default: the current directory)\n"
"      --allow-write PATH  also writable (repeatable, like the flags below)\n"
"      --deny-write PATH   never writable, even inside the workspace\n"
"      --deny-read PATH    hidden from COMMAND\n"
"      --allow-read PATH   readable again inside a --deny-read region\n"
"      --allow-domain D    network destination to allow (`*` = all; others are\n"
"                          reached through sbx's filtering proxy: HTTP_PROXY,\n"
"                          ALL_PROXY... point at it)\n"
"      --deny-domain D     network destination to refuse\n"
"      --profile NAME      add the agent profile NAME (default: the one named\n"
"                          like COMMAND, if any: claude, codex, gemini; `none`:\n"
"                          no profile); see docs/AGENTS.md\n"
"      --print-profile NAME  show profile NAME: where it is, and its rules\n"
"      --host-port N       the sandbox's 127.0.0.1:N reaches the host's 127.0.0.1:N\n"
"                          (a local database, a dev server; any TCP protocol)\n"
"      --keep-env NAME     pass the variable NAME (a glob) to COMMAND although\n"
"                          its name looks secret (*_TOKEN, *_API_KEY, *_KEY,\n"
"                          *SECRET*, *PASSWORD*...) or its value looks like a\n"
"                          credential (a URL with a password, ghp_..., sk-...):\n"
"                          those are withheld\n"
"\n"
"Running:\n"
"      --no-sandbox        run COMMAND unsandboxed, with a warning\n"
"      --no-shim           boundary only, no LD_PRELOAD shim\n"
"      --keep-fd N         pass descriptor N to COMMAND although it is a\n"
"                          directory or O_PATH descriptor (those open the host's\n"
"                          tree past the sandbox, so they are not passed unless\n"
"                          named; stdio, pipes, sockets, terminals and files are)\n"
"      --cleanup           remove what killed runs left (stand-ins; on macOS the\n"
"                          shim's hand-over directories), then exit\n"
"                          (every run does this first, too)\n"
"      --print[=json]      print the wrapped command line instead of running it\n"
"                          (boundary only: the shim needs sbx-preload running);\n"
"                          =json: {\"argv\":[...],\"cwd\":...,\"env\":{\"set\":{...},\n"
"                          \"unset\":[...]}} on one line, to spawn without a shell;\n"
"                          =seatbelt: the policy as a macOS Seatbelt profile, as\n"
"                          a sandbox-exec command (COMMAND optional; docs/MACOS.md)\n"
"      --log FILE          append every report as a JSON line to FILE (default:\n"
"                          [report] log, else ~/.local/state/sbx/audit.jsonl)\n"
"      --report-fd N       report lines to descriptor N instead of stderr (a\n"
"                          second terminal: 3>/dev/pts/4); COMMAND never gets it\n"
"      --report-file PATH  report lines appended to PATH (a terminal, a file)\n"
"                          ([report] stderr = auto|live|end|off: by default lines\n"
"                          wait while a full-screen program holds the terminal)\n"
"      --tell-program      also write each refusal's line to the refused\n"
"                          program's own stderr (a pipe or file: what an agent's\n"
"                          tool reads), once per target ([report] tell_program;\n"
"                          on in the agent profiles); --no-tell-program: off\n"
"      --trace             report every file, exec and network access, allowed\n"
"                          ones too\n"
"      --learn[=FILE]      run once, recording what the policy would refuse\n"
"                          (writes in HOME refused and recorded: nothing of\n"
"                          HOME changes), and write a sandbox.ini that allows\n"
"                          exactly that run to FILE (default: under\n"
"                          ~/.local/state/sbx/learned/) for you to review\n"
"  -q, --quiet             no start-up line\n"
"  -v, --verbose           say what is in force and why\n"
"      --debug             also print the bubblewrap command line\n"
"  -h, --help              this text\n"
"      --version           the version\n"
"\n"
"Environment:\n"
"  SBX_CONFIG              policy file, if no --config\n"
"  SBX_NO_SANDBOX=1        same as --no-sandbox\n"
"  SBX_ALLOWED_DOMAINS=a,b added to allow_domains\n"
"\n"
"Every key of sandbox.ini is in force (sandbox.ini(5), docs/POLICY.md);\n"
"nested = true (or SBX_NESTED=1) runs the weaker mode for machines without\n"
"user namespaces: Landlock and the seccomp table (docs/SECURITY.md).\n"
"See docs/POLICY.md, docs/NETWORK.md and docs/REPORTS.md.\n"
"\n"
"Reports come from the preload shim (libsbx-preload.so, LD_PRELOAD): it\n"
"explains refusals, it is not the boundary. Static binaries and raw system\n"
"calls get past it, never past bubblewrap and seccomp.\n"
"\n"
"Exit status: COMMAND's own; 128+N if it died of signal N; 125 if the sandbox\n"
"could not be set up (nothing was run); 126/127 as a shell would.\n";

enum {
	OPT_ALLOW_WRITE = 256, OPT_DENY_WRITE, OPT_DENY_READ, OPT_ALLOW_READ,
	OPT_ALLOW_DOMAIN, OPT_DENY_DOMAIN, OPT_NO_SANDBOX, OPT_NO_SHIM,
	OPT_LOG, OPT_TRACE, OPT_LEARN, OPT_PRINT, OPT_DEBUG, OPT_VERSION,
	OPT_CLEANUP, OPT_KEEP_FD, OPT_PROFILE, OPT_PRINT_PROFILE, OPT_REPORT_FD,
	OPT_REPORT_FILE, OPT_HOST_PORT, OPT_KEEP_ENV, OPT_TELL_PROGRAM, OPT_NO_TELL_PROGRAM,
};

static const struct option longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "workspace", required_argument, NULL, 'w' },
	{ "allow-write", required_argument, NULL, OPT_ALLOW_WRITE },
	{ "deny-write", required_argument, NULL, OPT_DENY_WRITE },
	{ "deny-read", required_argument, NULL, OPT_DENY_READ },
	{ "allow-read", required_argument, NULL, OPT_ALLOW_READ },
	{ "allow-domain", required_argument, NULL, OPT_ALLOW_DOMAIN },
	{ "deny-domain", required_argument, NULL, OPT_DENY_DOMAIN },
	{ "host-port", required_argument, NULL, OPT_HOST_PORT },
	{ "keep-env", required_argument, NULL, OPT_KEEP_ENV },
	{ "no-sandbox", no_argument, NULL, OPT_NO_SANDBOX },
	{ "no-shim", no_argument, NULL, OPT_NO_SHIM },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "trace", no_argument, NULL, OPT_TRACE },
	{ "learn", optional_argument, NULL, OPT_LEARN },
	{ "print", optional_argument, NULL, OPT_PRINT },
	{ "cleanup", no_argument, NULL, OPT_CLEANUP },
	{ "keep-fd", required_argument, NULL, OPT_KEEP_FD },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "print-profile", required_argument, NULL, OPT_PRINT_PROFILE },
	{ "report-fd", required_argument, NULL, OPT_REPORT_FD },
	{ "report-file", required_argument, NULL, OPT_REPORT_FILE },
	{ "tell-program", no_argument, NULL, OPT_TELL_PROGRAM },
	{ "no-tell-program", no_argument, NULL, OPT_NO_TELL_PROGRAM },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "debug", no_argument, NULL, OPT_DEBUG },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* Flags that add policy rules: which key they write. */
static const struct {
	int opt;
	const char *section, *key, *flag;
} rule_flags[] = {
	{ OPT_ALLOW_WRITE, "filesystem", "allow_write", "--allow-write" },
	{ OPT_DENY_WRITE, "filesystem", "deny_write", "--deny-write" },
	{ OPT_DENY_READ, "filesystem", "deny_read", "--deny-read" },
	{ OPT_ALLOW_READ, "filesystem", "allow_read", "--allow-read" },
	{ OPT_ALLOW_DOMAIN, "network", "allow_domains", "--allow-domain" },
	{ OPT_DENY_DOMAIN, "network", "deny_domains", "--deny-domain" },
	{ OPT_HOST_PORT, "network", "host_ports", "--host-port" },
	{ OPT_KEEP_ENV, "env", "keep_env", "--keep-env" },
	{ OPT_TELL_PROGRAM, "report", "tell_program", "--tell-program" },
	{ OPT_NO_TELL_PROGRAM, "report", "tell_program", "--no-tell-program" },
};

int options_parse(int argc, char **argv, struct options *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->report_fd = -1;
	/* `+`: stop at the first non-option, so COMMAND's own flags are its. */
	while ((c = getopt_long(argc, argv, "+c:w:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case 'w': o->workspace = optarg; break;
		case OPT_NO_SANDBOX: o->no_sandbox = true; break;
		case OPT_NO_SHIM: o->no_shim = true; break;
		case OPT_LOG: o->log = optarg; break;
		case OPT_TRACE: o->trace = true; break;
		case OPT_LEARN: o->learn = true; o->learn_out = optarg; break;
		case OPT_PRINT:
			o->print = true;
			if (optarg && strcmp(optarg, "json") && strcmp(optarg, "seatbelt")) {
				fprintf(stderr, "sbx: --print takes =json, =seatbelt or nothing, "
					"not `=%s`\n", optarg);
				return -1;
			}
			o->print_json = optarg && !strcmp(optarg, "json");
			o->print_seatbelt = optarg && !strcmp(optarg, "seatbelt");
			break;
		case OPT_CLEANUP: o->cleanup = true; break;
		case OPT_PROFILE: o->profile = optarg; break;
		case OPT_PRINT_PROFILE: o->print_profile = optarg; break;
		case OPT_REPORT_FILE: o->report_file = optarg; break;
		case OPT_REPORT_FD: {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (*end || end == optarg || n < 1 || n > 1 << 20) {
				fprintf(stderr, "sbx: --report-fd takes a descriptor number, not `%s`\n",
					optarg);
				return -1;
			}
			o->report_fd = (int)n;
			break;
		}
		case OPT_KEEP_FD: {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (*end || end == optarg || n < 3 || n > 1 << 20) {
				fprintf(stderr, "sbx: --keep-fd takes a descriptor number of 3 "
					"or more, not `%s`\n", optarg);
				return -1;
			}
			int *k = realloc(o->keep_fds, (o->nkeep_fds + 1) * sizeof(*k));
			if (!k) {
				fprintf(stderr, "sbx: out of memory\n");
				return -1;
			}
			o->keep_fds = k;
			k[o->nkeep_fds++] = (int)n;
			break;
		}
		case 'q': sbx_verbosity = V_QUIET; break;
		case 'v': sbx_verbosity = V_VERBOSE; break;
		case OPT_DEBUG: sbx_verbosity = V_DEBUG; break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case OPT_VERSION:
			printf("sbx-preload %s\n", SBX_VERSION);
			return 1;
		default: {
			size_t i;
			for (i = 0; i < sizeof(rule_flags) / sizeof(rule_flags[0]); i++)
				if (rule_flags[i].opt == c)
					break;
			if (i == sizeof(rule_flags) / sizeof(rule_flags[0])) {
				fprintf(stderr, "sbx: see `sbx-preload --help`\n");
				return -1;
			}
			struct flag_setting *s = realloc(o->settings,
				(o->nsettings + 1) * sizeof(*s));
			if (!s) {
				fprintf(stderr, "sbx: out of memory\n");
				return -1;
			}
			o->settings = s;
			s[o->nsettings++] = (struct flag_setting){
				rule_flags[i].section, rule_flags[i].key,
				c == OPT_TELL_PROGRAM ? "true" : c == OPT_NO_TELL_PROGRAM ? "false" : optarg,
				rule_flags[i].flag };
		}
		}
	}
	if (o->print_profile) {
		if (optind < argc) {
			fprintf(stderr, "sbx: --print-profile runs no command\n");
			return -1;
		}
		return 0;
	}
	if (o->cleanup) {
		if (optind < argc) {
			fprintf(stderr, "sbx: --cleanup runs no command\n");
			return -1;
		}
		return 0;
	}
	/* a profile to review needs no command */
	if (o->print_seatbelt && optind >= argc)
		return 0;
	if (optind >= argc) {
		fprintf(stderr, "sbx: no command given\n"
			"usage: sbx-preload [OPTIONS] [--] COMMAND [ARG...] "
			"(see `sbx-preload --help`)\n");
		return -1;
	}
	o->command = argv + optind;
	return 0;
}

void options_free(struct options *o)
{
	free(o->settings);
	o->settings = NULL;
	free(o->keep_fds);
	o->keep_fds = NULL;
}
