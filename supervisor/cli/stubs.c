#include "sbxctl.h"
int cmd_log(int argc, char **argv) { return 2; }
int cmd_import_srt(int argc, char **argv) { return 2; }
