/* backend/darwin/limits.c: what the macOS sandbox cannot do, in one
 * table for every place that says it (darwin.h; docs/MACOS.md, "Known
 * limits"): --print=seatbelt's comment lines, the darwin backend's
 * start-up, sbxctl doctor. */
#include "backend/darwin/darwin.h"

const struct darwin_limit darwin_limits[] = {
	{ "SIP and DYLD",
	  "macOS strips DYLD_* from programs System Integrity Protection guards "
	  "(/bin/sh, /bin/bash, /usr/bin/*), so the shim is not in them: the Seatbelt "
	  "profile still holds there, and their refusals are reported from the system "
	  "log, without the shim's early words" },
	{ "no nesting",
	  "Seatbelt does not nest: a program that starts sandbox-exec itself (SwiftPM, "
	  "Codex's or Gemini CLI's own sandbox) fails inside; SBX_SANDBOX=1 is set, and "
	  "the agent profiles turn their agent's own sandbox off" },
	{ "DNS",
	  "the profile opens mDNSResponder only when the network is open (allow_domains "
	  "= *); otherwise names resolve through sbx's proxy (HTTPS_PROXY, ALL_PROXY "
	  "socks5h), and a program that resolves them itself gets no answer" },
	{ "repositories made inside",
	  "what the disk says stays unwritten (a repository's hooks, its core.hooksPath, a "
	  "bare one's) is found at start: a repository the run makes gets only the rules' "
	  "names (.git/hooks, .git/config), and its config is not vetted as Linux's notify "
	  "layer does; read it before running git there on the host" },
	{ "a writable root inside another",
	  "with allow_write above the workspace (~, say), the workspace itself can be "
	  "renamed away and back, taking what the disk says stays unwritten from the names "
	  "the profile denies; keep the roots above the workspace read-only, as the "
	  "defaults do" },
	{ "reports",
	  "Seatbelt's refusals are read from the system log, which delivers them a "
	  "moment late: the run waits (at most 10 s) for a last refusal of its own to "
	  "come through before it ends" },
};
const unsigned darwin_nlimits = sizeof(darwin_limits) / sizeof(darwin_limits[0]);
