#include "sbxctl.h"
int cmd_import_srt(int argc, char **argv) { return 2; }
