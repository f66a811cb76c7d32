/* cli/sbxctl.c: `sbxctl SUBCOMMAND`: the dispatcher; what the
 * subcommands share is in common.c (sbxctl.h). */
#include <stdio.h>
#include <string.h>

#include "cli/sbxctl.h"

#ifndef SBX_VERSION
#define SBX_VERSION "0.1.0"
#endif

static const char usage[] =
"Usage: sbxctl SUBCOMMAND [OPTIONS]\n"
"Set up sbx, see what is in force, and find out why something was refused.\n"
"\n"
"  configure     a wizard that writes your sandbox.ini (--yes and flags: no questions)\n"
"  status        the policy in force, each value with where it came from, and\n"
"                what this machine offers\n"
"  enable        turn sandboxing on in your sandbox.ini\n"
"  disable       turn it off (sbx-preload then runs commands unsandboxed, warning)\n"
"  check         would --read/--write/--exec PATH or --connect HOST[:PORT] be\n"
"                allowed, and which rule decides (exit 0 allowed, 1 denied)\n"
"  doctor        every dependency and kernel feature the policy needs, with the\n"
"                fix for what is missing (exit 1 when the sandbox cannot start)\n"
"  log [FILE]    the audit log: --summary, --follow, --since, --op, --json\n"
"  hook claude   a Claude Code PreToolUse hook (JSON on stdin and stdout)\n"
"  import-srt [FILE]  the reference runtime's ~/.srt-settings.json as a sandbox.ini\n"
"\n"
"Every subcommand takes --help and --version. `sbxctl SUBCOMMAND --help` says more;\n"
"so do sbxctl(1) and docs/SBXCTL.md.\n"
"\n"
"Exit status: 0 done (check: allowed); 1 check: denied, doctor: the sandbox\n"
"cannot start; 2 a usage, configuration or input error.\n"
"Environment: SBX_CONFIG (the policy file), NO_COLOR (no colour), XDG_CONFIG_HOME,\n"
"XDG_STATE_HOME.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} subcommands[] = {
	{ "configure", cmd_configure },
	{ "status", cmd_status },
	{ "enable", cmd_enable },
	{ "disable", cmd_enable },
	{ "check", cmd_check },
	{ "doctor", cmd_doctor },
	{ "log", cmd_log },
	{ "hook", cmd_hook },
	{ "import-srt", cmd_import_srt },
};

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? CTL_USAGE : CTL_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("sbxctl %s\n", SBX_VERSION);
		return CTL_OK;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(*subcommands); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "sbxctl: no subcommand `%s` (configure, status, enable, disable, "
		"check, doctor, log, hook, import-srt; see sbxctl --help)\n", argv[1]);
	return CTL_USAGE;
}
