# sbx — sandbox runtime for AI coding agents.
#
#   make run    install missing packages, build, run a demonstration sandboxed
#   make check  install missing packages, build, run every test
#
# Overrides go on the command line or in config.mak (not tracked).
-include config.mak

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
PKG_CONFIG ?= pkg-config
CC ?= cc
CFLAGS ?= -O2 -g

# Our flags live apart from CFLAGS, so `make CFLAGS=-O0` keeps the warnings,
# -MMD and the pkg-config flags.
PKGS := inih libseccomp
SBX_CPPFLAGS = -D_GNU_SOURCE -I. -Ibuild
SBX_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wformat=2 -Wno-unused-parameter -MMD -MP \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) $(CFLAGS)
SBX_LDFLAGS = $(LDFLAGS)
SBX_LDLIBS = $(shell $(PKG_CONFIG) --libs inih 2>/dev/null) $(LDLIBS)

ifdef SANITIZE
SBX_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
SBX_LDFLAGS += -fsanitize=$(SANITIZE)
SANITIZE_STATIC := $(if $(findstring address,$(SANITIZE)),-static-libasan) \
	$(if $(findstring undefined,$(SANITIZE)),-static-libubsan)
endif

POLICY_SRCS := policy/policy.c policy/execlater.c policy/query.c policy/match.c policy/load.c policy/glob.c policy/path.c policy/blob.c policy/hint.c \
	policy/credentials.c policy/home.c policy/gitconfig.c policy/preset.c
# The filtering proxy (net/net.h): in sbx-preload, its test
# driver and the unit tests.
NET_SRCS := net/host.c net/http.c net/socks.c \
	net/decide.c net/loop.c net/dns.c \
	net/names.c net/resolve.c net/dnsserve.c \
	net/watch.c net/poller.c net/compat.c
# the proxy's readiness seam (net/poller.h): epoll, or poll() with
# `make SBX_POLLER=poll` (a switch rebuilds net/poller.o, see below);
# `make SBX_PORTABLE=1`: net/compat.h's portable fallbacks, and poll()
SBX_POLLER ?= $(if $(filter 1,$(SBX_PORTABLE)),poll,epoll)
SUPERVISOR_SRCS := preload/main.c preload/options.c preload/config.c common/probe.c preload/print.c preload/plan.c \
	preload/start.c \
	preload/run.c preload/util.c preload/reports.c preload/learn.c \
	preload/standin.c common/hostfs.c preload/runlimits.c preload/profile.c preload/gitprov.c \
	preload/notify/notify.c preload/notify/call.c preload/notify/paths.c \
	preload/notify/net.c preload/notify/deny.c preload/notify/gitcfg.c $(NET_SRCS) \
	common/wire.c common/wire_join.c common/elfcheck.c
# a login shell's PATH under HOME, read from its start-up files (HOME's allow-list)
SUPERVISOR_SRCS += preload/loginpath.c
# every mount of sbx-init's lands on what the supervisor saw (pathwalk.h)
SUPERVISOR_SRCS += backend/linux/mountids.c common/pathwalk.c common/openat2.c
# what the walk of the writable roots found, for the next start (walkrec.h)
SUPERVISOR_SRCS += preload/walkrec.c
# the Linux backends (backend.h): the process driver for both, the nested
# mode's Landlock ruleset (landlock.h); the terminal relay, macOS's too
SUPERVISOR_SRCS += backend/linux/landlock.c backend/linux/nested.c backend/linux/linux.c \
	backend/linux/process.c backend/relay.c \
	preload/mode.c common/strv.c
# the control protocol with sbx-init (control.h), in both programs
SUPERVISOR_SRCS += common/control.c
# a subreaper's end without a pid namespace (the nested mode), in both
SUPERVISOR_SRCS += common/reap.c
# the supervisor's lines for the person (msg.h), below preload/ and backend/
SUPERVISOR_SRCS += common/msg.c
# the signals the supervisor ignores for itself, COMMAND's back (guard.h)
SUPERVISOR_SRCS += common/guard.c
# a buffer written whole (io.h), in both programs
SUPERVISOR_SRCS += common/io.c
# what is at a path, walked without following links (look.h; the shim's too)
SUPERVISOR_SRCS += common/look.c
# macOS: the policy as a Seatbelt profile, portable C (--print=seatbelt)
DARWIN_SRCS := backend/darwin/seatbelt.c backend/darwin/logstream.c backend/darwin/launch.c \
	backend/darwin/report.c backend/darwin/watch.c backend/darwin/darwin.c backend/darwin/limits.c
SUPERVISOR_SRCS += $(DARWIN_SRCS)
INIT_SRCS := init/sbx-init.c init/mounts.c init/connect.c \
	init/notify.c common/pathwalk.c common/control.c common/reap.c common/io.c
# The order is the link order, and so the order of the code: what every
# process runs (start-up) and a fork child runs before its exec (the exec
# check, the policy's query) first, where one fault maps it all (a fault
# maps up to 16 pages around it; docs/PERFORMANCE.md); the calls only
# some programs make (the file-system wrappers, the network, the hints)
# after it. shim.c's fork() cache of libc's fork comes first in .bss, on
# the page start-up writes anyway.
SHIM_SRCS := shim/shim.c shim/core.c shim/exec.c shim/check.c shim/decided.c shim/dirfds.c \
	shim/resolve.c shim/namemap.c shim/string.c common/elfcheck.c
SHIM_COLD_SRCS := shim/wrappers.c shim/syscall.c shim/net.c shim/netjudge.c shim/tell.c common/wire.c common/look.c
# The policy queries the shim links in (no INI parsing, no compiler).
SHIM_POLICY_SRCS := policy/query.c policy/match.c policy/glob.c policy/path.c policy/blob.c policy/home.c
SHIM_POLICY_COLD_SRCS := policy/hint.c
SHIM_OBJS := $(patsubst %.c,build/shim-pic/%.o,$(SHIM_SRCS) $(SHIM_POLICY_SRCS) \
	$(SHIM_COLD_SRCS) $(SHIM_POLICY_COLD_SRCS))
# shim_dyld.c links the shim's check core: a runner of its own (below)
UNIT_SRCS := $(filter-out tests/unit/shim_dyld.c,$(wildcard tests/unit/*.c))

# Each folder is one static archive, built twice (glibc objects under
# build/lib, static musl ones under build/musl/lib); a program links its
# own main object and the archives it needs, in one group (preload/ and
# preload/notify/ call each other), so only what it uses comes in.
ARCHIVES := policy common net init preload notify backend darwin cli
LIB_policy := $(POLICY_SRCS)
LIB_common := $(filter common/%,$(SUPERVISOR_SRCS) $(INIT_SRCS))
LIB_net := $(NET_SRCS)
LIB_init := $(filter-out init/sbx-init.c,$(filter init/%,$(INIT_SRCS)))
LIB_preload := $(filter-out preload/main.c preload/notify/%,$(filter preload/%,$(SUPERVISOR_SRCS)))
LIB_notify := $(filter preload/notify/%,$(SUPERVISOR_SRCS))
LIB_backend := $(filter-out $(DARWIN_SRCS),$(filter backend/%,$(SUPERVISOR_SRCS)))
LIB_darwin := $(DARWIN_SRCS)
# cli/machine_*.c: what sbxctl asks of the machine (cli/machine.h);
# Linux's here, macOS's in build/darwin/sbxctl (below)
LIB_cli := $(filter-out cli/sbxctl.c cli/machine_darwin.c,$(wildcard cli/*.c))
$(foreach a,$(ARCHIVES),$(eval build/lib/lib$(a).a: $$(sort $$(LIB_$(a):%.c=build/%.o))) \
	$(eval build/musl/lib/lib$(a).a: $$(sort $$(LIB_$(a):%.c=build/musl/%.o))))
build/lib/%.a:
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
build/musl/lib/%.a:
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
# LIBS a b c: the archives, in a group
group = -Wl,--start-group $(1) -Wl,--end-group
PRELOAD_ARCHIVES := preload notify backend darwin net common policy

UNIT_OBJS := $(UNIT_SRCS:%.c=build/%.o)

BINS := build/sbx-preload build/sbx-init build/libsbx-preload.so build/sbx-proxy-test build/sbxctl

.PHONY: all deps deps-test run check check-portable darwin-check check-unit check-docs check-hooks check-integration check-agents check-container check-container-recipe test-progs coverage-table bench bench-proxy bench-filter bench-landlock bench-match fuzz install clean
all: $(BINS)

deps:
	@./scripts/deps.sh

deps-test:
	@./scripts/deps.sh --test

build/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SBX_CFLAGS) -c -o $@ $<

# The seccomp programs sbx-init installs are fixed per architecture, so they
# are compiled once, at build time, by libseccomp: sbx-init itself stays a
# small static-data program with no parser and no library to trust.
build/gen-filters: seccomp/gen-filters.c seccomp/rules.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SBX_CFLAGS) -o $@ $< \
		$(shell $(PKG_CONFIG) --libs libseccomp) $(SBX_LDFLAGS)

build/gen/filters.h: build/gen-filters
	@mkdir -p $(@D)
	build/gen-filters > $@.tmp && mv $@.tmp $@

# The second program, the user-notification filter (preload/notify/notify.c
# serves its listener), generated the same way.
build/gen-notify: seccomp/gen-notify.c seccomp/rules.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SBX_CFLAGS) -o $@ $< \
		$(shell $(PKG_CONFIG) --libs libseccomp) $(SBX_LDFLAGS)

build/gen/notify-filter.h: build/gen-notify
	@mkdir -p $(@D)
	build/gen-notify > $@.tmp && mv $@.tmp $@

# macOS: the shim's dyld interpose table from shim/symbols.def (backend/
# darwin/interpose.h); compiled here too, so a table that would not build
# on a Mac for want of a declaration fails on Linux first (the unit tests
# check that it covers every row).
build/gen-interpose: backend/darwin/gen-interpose.c backend/darwin/interpose.h shim/symbols.def
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SBX_CFLAGS) -o $@ $<

build/gen/interpose.c: build/gen-interpose
	@mkdir -p $(@D)
	build/gen-interpose > $@.tmp && mv $@.tmp $@

build/gen/interpose.o: build/gen/interpose.c
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SBX_CFLAGS) -c -o $@ $<

# the table's PATHCALL rows shim/darwin.c makes its wrappers from
build/gen/dyld-rows.h: build/gen-interpose
	@mkdir -p $(@D)
	build/gen-interpose rows > $@.tmp && mv $@.tmp $@


# sbx-preload and sbx-init run on every start, so where musl is installed
# (make deps installs musl-tools) both are static musl programs: glibc's
# start-up asks the CPU about its caches with CPUID, which a virtual machine
# traps, and the dynamic loader adds its own work; on our 2-vCPU VM
# `sbx-preload --version` takes 1.15 ms built against glibc and 0.48 ms
# against musl (perf stat -r 200). musl-gcc sees only musl's headers, so
# the kernel's (linux/, asm/, asm-generic/) and the two header-level
# dependencies (uthash.h, ini.h) are linked into build/kheaders, and
# Debian's libinih.a is linked in (plain C, no glibc-only symbols). Without
# musl, both are built with $(CC) (sbx-init -static); sanitizer builds use
# $(CC) and link dynamically, as the sanitizer runtimes need. The unit
# tests always use the $(CC) objects.
MUSL_GCC ?= $(shell command -v musl-gcc 2>/dev/null)
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
INCDIR := $(or $(shell $(PKG_CONFIG) --variable=includedir inih 2>/dev/null),/usr/include)
INIH_A := $(wildcard $(shell $(PKG_CONFIG) --variable=libdir inih 2>/dev/null)/libinih.a)
MUSL := $(if $(SANITIZE),,$(MUSL_GCC))
build/kheaders/.made:
	@mkdir -p $(@D)
	ln -sfn /usr/include/linux $(@D)/linux
	ln -sfn /usr/include/asm-generic $(@D)/asm-generic
	ln -sfn $(firstword $(wildcard /usr/include/$(MULTIARCH)/asm) /usr/include/asm) $(@D)/asm
	ln -sfn $(INCDIR)/uthash.h $(@D)/uthash.h
	ln -sfn $(INCDIR)/ini.h $(@D)/ini.h
	@touch $@
build/musl/%.o: %.c build/gen/filters.h build/gen/notify-filter.h build/kheaders/.made
	@mkdir -p $(@D)
	$(MUSL) $(CPPFLAGS) $(SBX_CPPFLAGS) -isystem build/kheaders $(SBX_CFLAGS) -c -o $@ $<

ifneq ($(and $(MUSL),$(INIH_A)),)
build/sbx-preload: build/musl/preload/main.o $(PRELOAD_ARCHIVES:%=build/musl/lib/lib%.a)
	$(MUSL) -static -o $@ $< $(call group,$(filter %.a,$^)) $(INIH_A)
else
build/sbx-preload: build/preload/main.o $(PRELOAD_ARCHIVES:%=build/lib/lib%.a)
	$(CC) $(SBX_LDFLAGS) -o $@ $< $(call group,$(filter %.a,$^)) $(SBX_LDLIBS)
endif

# Test hooks: environment variables that exist only for the integration
# tests, compiled (-DSBX_TEST_HOOKS) into test copies of the programs and
# never into `make all`'s (check-hooks greps those for the names):
#   SBX_TEST_HOSTS, SBX_TEST_DNS   sbx-preload's proxy resolves names from
#                                  a hosts file / asks one nameserver
#                                  (start.c; net.sh, notify.sh, nested.sh)
#   SBX_TEST_LANDLOCK_ABI          a Landlock ABI below the kernel's
#                                  (probe.c; nested.sh)
#   SBX_TEST_STOP_BEFORE_RENAME    sbxctl stops between its config's
#                                  write and rename (cli/common.c; sbxctl.sh)
# Only the objects that read them are built twice; the test copies link
# every other object of the shipped program, and only the tests that set
# a hook run them (tests/integration/run.sh installs them beside the
# shipped ones as sbx-preload-hooks and sbxctl-hooks). Never installed.
HOOK_PRELOAD_SRCS := preload/main.c preload/start.c common/probe.c
HOOK_CTL_SRCS := cli/common.c
HOOK_NAMES := SBX_TEST_HOSTS SBX_TEST_DNS SBX_TEST_LANDLOCK_ABI SBX_TEST_STOP_BEFORE_RENAME
ifneq ($(and $(MUSL),$(INIH_A)),)
build/tests/hooks/musl/%.o: %.c build/gen/filters.h build/gen/notify-filter.h build/kheaders/.made
	@mkdir -p $(@D)
	$(MUSL) $(CPPFLAGS) $(SBX_CPPFLAGS) -DSBX_TEST_HOOKS -isystem build/kheaders $(SBX_CFLAGS) -c -o $@ $<
# (the hook objects come first: the archives' own copies are then not
# pulled in)
build/tests/sbx-preload-hooks: $(HOOK_PRELOAD_SRCS:%.c=build/tests/hooks/musl/%.o) \
		$(PRELOAD_ARCHIVES:%=build/musl/lib/lib%.a)
	$(MUSL) -static -o $@ $(filter %.o,$^) $(call group,$(filter %.a,$^)) $(INIH_A)
else
build/tests/sbx-preload-hooks: $(HOOK_PRELOAD_SRCS:%.c=build/tests/hooks/%.o) \
		$(PRELOAD_ARCHIVES:%=build/lib/lib%.a)
	$(CC) $(SBX_LDFLAGS) -o $@ $(filter %.o,$^) $(call group,$(filter %.a,$^)) $(SBX_LDLIBS)
endif
build/tests/hooks/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) -DSBX_TEST_HOOKS $(SBX_CFLAGS) -c -o $@ $<

# The proxy's test driver, built as sbx-preload is (static musl where
# installed), so what is tested is the resolver sbx-preload will have.
NET_DRIVER_SRCS := $(NET_SRCS) net/driver.c
ifneq ($(and $(MUSL),$(INIH_A)),)
build/sbx-proxy-test: build/musl/net/driver.o build/musl/lib/libnet.a build/musl/lib/libpolicy.a
	$(MUSL) -static -o $@ $< $(call group,$(filter %.a,$^)) $(INIH_A)
else
build/sbx-proxy-test: build/net/driver.o build/lib/libnet.a build/lib/libpolicy.a
	$(CC) $(SBX_LDFLAGS) -o $@ $< $(call group,$(filter %.a,$^)) $(SBX_LDLIBS)
endif

ifneq ($(MUSL),)
build/sbx-init: build/musl/init/sbx-init.o build/musl/lib/libinit.a build/musl/lib/libcommon.a
	$(MUSL) -static -o $@ $< $(call group,$(filter %.a,$^))
else
# Under SANITIZE the sanitizer runtimes are linked in statically: sbx-init
# also runs inside the sandbox (the SOCKS ProxyCommand), where the shim is
# preloaded, and a dynamic ASan refuses to start unless it comes first.
build/sbx-init: build/init/sbx-init.o build/lib/libinit.a build/lib/libcommon.a
	$(CC) $(SBX_LDFLAGS) $(if $(SANITIZE),$(SANITIZE_STATIC),-static) -o $@ $< \
		$(call group,$(filter %.a,$^))
endif
build/init/sbx-init.o build/tests/unit/seccomp_table.o: build/gen/filters.h build/gen/notify-filter.h
build/init/notify.o: build/gen/notify-filter.h
build/preload/notify/deny.o: build/gen/filters.h

# sbxctl (cli/, docs/SBXCTL.md): the management command. It
# shares the policy, the config loading (config.c), the machine probes
# (probe.c, through cli/machine_linux.c), hostfs and the report code with
# sbx-preload, from the same archives; built with $(CC) against jansson
# (JSON: the hook, the audit log, import-srt). Not on the start-up path,
# so not static.
CTL_SRCS := $(wildcard cli/*.c)
JANSSON_LIBS = $(or $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null),-ljansson)
CTL_ARCHIVES := cli preload darwin common policy
build/sbxctl: build/cli/sbxctl.o $(CTL_ARCHIVES:%=build/lib/lib%.a)
	$(CC) $(SBX_LDFLAGS) -o $@ $< $(call group,$(filter %.a,$^)) $(SBX_LDLIBS) $(JANSSON_LIBS)
# sbxctl with its test hook (see HOOK_NAMES above)
build/tests/sbxctl-hooks: build/cli/sbxctl.o $(HOOK_CTL_SRCS:%.c=build/tests/hooks/%.o) \
		$(CTL_ARCHIVES:%=build/lib/lib%.a)
	$(CC) $(SBX_LDFLAGS) -o $@ $(filter %.o,$^) $(call group,$(filter %.a,$^)) $(SBX_LDLIBS) \
		$(JANSSON_LIBS)
TEST_HOOK_BINS := build/tests/sbx-preload-hooks build/tests/sbxctl-hooks

# No test hook in what `make all` builds for installing; and the test
# copies do hold them, which shows the search finds what it looks for.
check-hooks: all build/darwin/sbx-preload build/darwin/sbxctl $(TEST_HOOK_BINS)
	./scripts/check-hooks.sh "$(HOOK_NAMES)" build/sbx-preload build/sbx-init \
		build/libsbx-preload.so build/sbxctl build/darwin/sbx-preload build/darwin/sbxctl -- \
		$(TEST_HOOK_BINS)

# The preload shim is built without sanitizers (ASan must be the first DSO,
# which a library preloaded into someone else's program can never be), as
# position-independent code with every symbol hidden but the interposed
# libc functions, and without _FORTIFY_SOURCE (its inline open() would
# clash with our definition of open()).
SHIM_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
	-MMD -MP -fPIC -fvisibility=hidden -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=0 \
	-fno-omit-frame-pointer -ffunction-sections -fdata-sections $(CFLAGS)
# Every process of the sandbox maps the shim: the fewer pages it touches
# and the fewer system calls the loader makes, the cheaper each start
# (docs/PERFORMANCE.md). --gc-sections drops the policy code the shim
# links but never calls; -z norelro spares every process an mprotect (a
# TLB flush on a paravirtualised machine) that would guard nothing: the
# shim's looked-up libc functions are writable pointers anyway (REAL()).
# Bound lazily (no -z now): the loader looks up none of the shim's few
# libc imports in a process that never calls them (about 1 µs each);
# the string functions, which a fork child's exec check calls, are the
# shim's own (shim/string.c). -nostartfiles: no _init/_fini and no
# __cxa_finalize call at exit (a page of code each, and three look-ups);
# the constructor is in .init_array.
SHIM_LDFLAGS = -nostartfiles -Wl,--gc-sections -Wl,-z,norelro
build/shim-pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SHIM_CFLAGS) -c -o $@ $<

# the string functions the shim calls, its own (shim/string.c): not
# turned back into calls to themselves
build/shim-pic/shim/string.o: SHIM_CFLAGS += -fno-builtin -fno-tree-loop-distribute-patterns

build/libsbx-preload.so: $(SHIM_OBJS)
	$(CC) -shared -Wl,-z,defs $(SHIM_LDFLAGS) -o $@ $^ -ldl -lpthread

# -no-pie: Criterion re-executes the runner for each test, and its
# parameterized tests pass pointers to static data (the decision tables), which
# must land at the same address in every worker.
# The unit tests also cover the supervisor's report handling and the shim's
# path and wire code (compiled here as ordinary objects).
# The shim's pure parts, compiled here as ordinary objects; the rest of
# what the unit tests cover comes from the archives.
UNIT_SHIM_OBJS := build/shim/resolve-test.o build/shim/namemap.o build/shim/decided.o
build/shim/resolve-test.o: shim/resolve.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SBX_CFLAGS) -c -o $@ $<
UNIT_ARCHIVES := cli preload notify backend darwin net init common policy
build/tests/unit-tests: $(UNIT_OBJS) $(UNIT_SHIM_OBJS) $(UNIT_ARCHIVES:%=build/lib/lib%.a) \
		build/gen/interpose.o build/gen/dyld-rows.h
	$(CC) $(SBX_LDFLAGS) -no-pie -o $@ $(filter-out build/gen/%,$(filter %.o,$^)) $(call group,$(filter %.a,$^)) \
		$(SBX_LDLIBS) -lcriterion $(JANSSON_LIBS)

# macOS (docs/MACOS.md): what builds there today -- policy/, the darwin
# backend's portable files, their unit tests and the smoke test against
# the real sandbox-exec and log -- apart from `all`, whose programs are
# Linux's (epoll, signalfd, seccomp, Landlock). Run by
# .github/workflows/macos.yml; builds and runs here too (the smoke test
# only on a Mac).
DARWIN_CHECK_SRCS := $(POLICY_SRCS) common/strv.c backend/darwin/seatbelt.c \
	backend/darwin/logstream.c backend/darwin/watch.c
DARWIN_UNIT_SRCS := tests/unit/seatbelt.c tests/unit/sbpl.c tests/unit/darwin_log.c \
	tests/unit/policy_preset.c tests/unit/helpers.c
build/tests/darwin-smoke: tests/darwin/smoke.c $(DARWIN_CHECK_SRCS:%.c=build/%.o)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SBX_CFLAGS) $(SBX_LDFLAGS) -o $@ $^ $(SBX_LDLIBS)
build/tests/darwin-unit: $(DARWIN_UNIT_SRCS:%.c=build/%.o) $(DARWIN_CHECK_SRCS:%.c=build/%.o)
	@mkdir -p $(@D)
	$(CC) $(SBX_LDFLAGS) -o $@ $^ $(SBX_LDLIBS) -lcriterion
# sbx-preload for macOS (preload/darwin_main.c over backend_darwin): the
# portable files it needs, named, so a Mac compiles nothing of Linux's
# (net/compat.h and common/fscompat.h choose; common/openat2.c is empty
# off Linux). Built here too; it runs /usr/bin/sandbox-exec, which
# Linux has not, so here it only fails closed. The test build runs the
# stand-ins in stand-ins/ beside it instead (a build-time choice:
# tests/integration/darwin.sh puts them there).
DARWIN_PRELOAD_SRCS := preload/start.c preload/options.c preload/config.c preload/profile.c \
	preload/reports.c preload/print.c preload/util.c preload/loginpath.c preload/mode.c \
	preload/plan.c preload/standin.c preload/walkrec.c \
	backend/relay.c common/hostfs.c common/pathwalk.c common/openat2.c common/msg.c \
	common/guard.c common/io.c common/look.c common/strv.c common/wire.c common/wire_join.c \
	$(DARWIN_SRCS) $(NET_SRCS) $(POLICY_SRCS)
build/darwin/sbx-preload: build/preload/darwin_main.o build/preload/darwin_programs.o \
		$(DARWIN_PRELOAD_SRCS:%.c=build/%.o)
	@mkdir -p $(@D)
	$(CC) $(SBX_LDFLAGS) -o $@ $^ $(SBX_LDLIBS)
# where the programs are (preload/darwin_programs.c): the test build's
# stand-ins, a choice made here
build/tests/darwin/preload/darwin_programs.o: preload/darwin_programs.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) -DSBX_DARWIN_STANDINS='"stand-ins"' $(SBX_CFLAGS) -c -o $@ $<
build/tests/darwin/sbx-preload: build/preload/darwin_main.o \
		build/tests/darwin/preload/darwin_programs.o $(DARWIN_PRELOAD_SRCS:%.c=build/%.o)
	$(CC) $(SBX_LDFLAGS) -o $@ $^ $(SBX_LDLIBS)
# sbxctl for macOS: cli/ with macOS's machine (cli/machine_darwin.c) over
# the same portable files, in an archive (only what it calls comes in);
# its test build with the stand-ins as sbx-preload's (tests/integration/
# darwinctl.sh)
DARWIN_CTL_SRCS := $(filter-out cli/machine_linux.c,$(CTL_SRCS))
build/darwin/lib/libportable.a: $(sort $(DARWIN_PRELOAD_SRCS:%.c=build/%.o))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
build/darwin/sbxctl: $(DARWIN_CTL_SRCS:%.c=build/%.o) build/preload/darwin_programs.o \
		build/darwin/lib/libportable.a
	$(CC) $(SBX_LDFLAGS) -o $@ $(filter %.o,$^) $(call group,$(filter %.a,$^)) $(SBX_LDLIBS) \
		$(JANSSON_LIBS)
build/tests/darwin/sbxctl: $(DARWIN_CTL_SRCS:%.c=build/%.o) \
		build/tests/darwin/preload/darwin_programs.o build/darwin/lib/libportable.a
	$(CC) $(SBX_LDFLAGS) -o $@ $(filter %.o,$^) $(call group,$(filter %.a,$^)) $(SBX_LDLIBS) \
		$(JANSSON_LIBS)
# The macOS wrappers (shim/darwin.c) on Linux: linked with the shim's
# check core and the interpose table (an sbx_dyld_* the table names and
# no file defines fails this link), and called on real files
# (tests/unit/shim_dyld.c). The core as macOS builds it (SBX_PORTABLE:
# libc's calls, the hand-over by paths; shim/port.h), handed its policy
# the way launch.c's darwin_shim_spec says.
SHIM_DYLD_SRCS := shim/darwin.c shim/core.c shim/check.c shim/decided.c shim/dirfds.c \
	shim/resolve.c shim/tell.c shim/netjudge.c common/look.c
# Its report writes as a Mac's: WIRE_ATOMIC is macOS's PIPE_BUF (512: a
# longer line goes as pieces, common/wire.h), and the FIFO takes a longer
# write in 512-byte parts (tests/darwin/fifo512.c, every write of the
# runner's own objects through it).
SHIM_DYLD_OBJS := $(patsubst %.c,build/shim-dyld/%.o,$(SHIM_DYLD_SRCS))
MAC_WIRE := -DWIRE_ATOMIC=512
MAC_FIFO := build/tests/darwin/fifo512.o -Wl,--wrap=write
build/shim-dyld/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) -DSBX_PORTABLE $(MAC_WIRE) $(SHIM_CFLAGS) -c -o $@ $<
build/shim-dyld/shim/darwin.o: build/gen/dyld-rows.h
build/tests/unit/shim_dyld.o: SBX_CPPFLAGS += $(MAC_WIRE)
build/tests/shim-dyld: build/tests/unit/shim_dyld.o build/tests/unit/helpers.o $(SHIM_DYLD_OBJS) \
		build/gen/interpose.o build/tests/darwin/fifo512.o build/lib/libdarwin.a \
		build/lib/libnet.a build/lib/libcommon.a build/lib/libpolicy.a
	$(CC) $(SBX_LDFLAGS) -no-pie -o $@ $(filter-out build/tests/darwin/fifo512.o,$(filter %.o,$^)) \
		$(MAC_FIFO) $(call group,$(filter %.a,$^)) $(SBX_LDLIBS) -lcriterion
# A program the darwin suite runs under the darwin test build, playing the
# shim with its real core as the runner builds it (tests/darwin/shimwriter.c)
build/tests/darwin/shim-writer: build/tests/darwin/shimwriter.o $(SHIM_DYLD_OBJS) \
		build/gen/interpose.o build/tests/darwin/fifo512.o build/lib/libdarwin.a \
		build/lib/libnet.a build/lib/libcommon.a build/lib/libpolicy.a
	$(CC) $(SBX_LDFLAGS) -o $@ $(filter-out build/tests/darwin/fifo512.o,$(filter %.o,$^)) \
		$(MAC_FIFO) $(call group,$(filter %.a,$^)) $(SBX_LDLIBS) -lpthread
# On a Mac (.github/workflows/macos.yml): the same wrappers and the table
# linked into a dylib by the SDK's clang, the core's names (shim_*) left to
# dynamic lookup: a link check (every replacee in libSystem, every
# sbx_dyld_* defined), not yet a shim to load.
build/darwin/dyld-link.dylib: build/gen/interpose.c build/gen/dyld-rows.h shim/darwin.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) -std=gnu11 -Wall -Wextra -fPIC -fvisibility=hidden \
		$(CFLAGS) -dynamiclib -Wl,-undefined,dynamic_lookup -o $@ build/gen/interpose.c shim/darwin.c
# The shim itself for macOS: the wrappers, the table and the check core
# as the shim-dyld runner builds it (SBX_PORTABLE), every name resolved
# in libSystem (no dynamic lookup). Built by the macOS workflow only.
build/darwin/libsbx-preload.dylib: build/gen/interpose.c build/gen/dyld-rows.h $(SHIM_DYLD_SRCS) \
		common/wire.c $(SHIM_POLICY_SRCS) $(SHIM_POLICY_COLD_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) -DSBX_PORTABLE -DSBX_DYLIB -std=gnu11 -Wall -Wextra \
		-Wno-unused-parameter -fPIC -fvisibility=hidden $(CFLAGS) -dynamiclib -o $@ \
		$(filter %.c,$^)
# The same sources and flags as a Linux shared object: its start-up
# (shim/darwin.c's constructor, SBX_DYLIB) runs when the loader loads it
# (darwin.sh); its wrappers' names (sbx_dyld_*) interpose nothing here.
build/tests/darwin/dylib-start.so: build/gen/interpose.c build/gen/dyld-rows.h $(SHIM_DYLD_SRCS) \
		common/wire.c $(SHIM_POLICY_SRCS) $(SHIM_POLICY_COLD_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) -DSBX_PORTABLE -DSBX_DYLIB -std=gnu11 -Wall -Wextra \
		-Wno-unused-parameter -fPIC -fvisibility=hidden $(CFLAGS) -shared -o $@ \
		$(filter-out build/gen/%,$(filter %.c,$^))
# on Linux also macOS's sbx-preload and sbxctl in their test builds, run
# by darwin.sh and darwinctl.sh
DARWIN_CHECK_HERE := $(if $(filter Linux,$(shell uname -s)),build/tests/shim-dyld \
	build/tests/darwin/sbx-preload build/tests/darwin/sbxctl build/tests/darwin/shim-writer \
	build/tests/darwin/dylib-start.so)
darwin-check: build/tests/darwin-unit build/tests/darwin-smoke build/darwin/sbx-preload \
		build/darwin/sbxctl build/tests/net-unit $(DARWIN_CHECK_HERE)
	build/tests/darwin-unit --jobs 2
	$(if $(DARWIN_CHECK_HERE),build/tests/shim-dyld --jobs 2)
	$(if $(DARWIN_CHECK_HERE),SUITES="darwin.sh darwinctl.sh" ./tests/integration/run.sh)

# net/ as it builds where Linux's calls are missing (net/compat.h's
# fallbacks, SBX_PORTABLE, and poll()), in build/portable/ beside the
# build's own objects, and the proxy's unit tests linked against it.
# Part of `make check`: about 13 s on 2 busy cores, beside the
# integration suites. (`make SBX_PORTABLE=1` builds the programs that
# way, for the integration suites; docs/MACOS.md.)
build/portable/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) -DSBX_PORTABLE -DSBX_POLLER_POLL $(SBX_CFLAGS) -c -o $@ $<
build/portable/lib/libnet.a: $(NET_SRCS:%.c=build/portable/%.o)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
# common/hostfs.c and pathwalk.c as a Mac builds them (common/fscompat.h),
# linked ahead of the archives (libcommon's own are then never pulled in),
# with their tests built to expect that
PORTABLE_FS_OBJS := $(patsubst %.c,build/portable/%.o,common/hostfs.c common/pathwalk.c \
	tests/unit/hostfs.c tests/unit/pathwalk.c tests/unit/walk_attack.c)
build/tests/unit-tests-portable: $(filter-out $(PORTABLE_FS_OBJS:build/portable/%=build/%),$(UNIT_OBJS)) \
		$(PORTABLE_FS_OBJS) $(UNIT_SHIM_OBJS) build/gen/interpose.o build/gen/dyld-rows.h \
		$(patsubst build/lib/libnet.a,build/portable/lib/libnet.a,$(UNIT_ARCHIVES:%=build/lib/lib%.a))
	$(CC) $(SBX_LDFLAGS) -no-pie -o $@ $(filter-out build/gen/%,$(filter %.o,$^)) $(call group,$(filter %.a,$^)) \
		$(SBX_LDLIBS) -lcriterion $(JANSSON_LIBS)
# build/portable/'s poller: poll(), or kqueue where a Mac builds it
# (PORTABLE_POLLER=kqueue, net/poller_kqueue.c: not yet run; a switch
# rebuilds net/poller.o)
PORTABLE_POLLER ?= poll
ifeq ($(filter poll kqueue,$(PORTABLE_POLLER)),)
$(error PORTABLE_POLLER=$(PORTABLE_POLLER): poll or kqueue)
endif
PORTABLE_POLLER_STAMP := build/portable/poller-$(PORTABLE_POLLER).stamp
$(shell mkdir -p build/portable; [ -e $(PORTABLE_POLLER_STAMP) ] || \
	{ rm -f build/portable/poller-*.stamp; touch $(PORTABLE_POLLER_STAMP); })
build/portable/net/poller.o: $(PORTABLE_POLLER_STAMP)
build/portable/net/poller.o: SBX_CPPFLAGS += $(if $(filter kqueue,$(PORTABLE_POLLER)),-DSBX_POLLER_KQUEUE)
# The proxy's unit tests alone, on that net/, objects named (no archive
# group: Apple's linker has none): what .github/workflows/macos.yml runs
# with poll() and with kqueue. Here `make check-portable` runs the same
# tests inside unit-tests-portable; darwin-check only builds this one.
NET_UNIT_SRCS := $(sort $(wildcard tests/unit/net_*.c)) tests/unit/helpers.c
build/tests/net-unit: $(NET_UNIT_SRCS:%.c=build/portable/%.o) $(NET_SRCS:%.c=build/portable/%.o) \
		$(POLICY_SRCS:%.c=build/%.o)
	@mkdir -p $(@D)
	$(CC) $(SBX_LDFLAGS) $(if $(filter Linux,$(shell uname -s)),-no-pie) -o $@ $^ $(SBX_LDLIBS) -lcriterion
# the proxy's driver on that net/ (bench/poller: poll() against epoll)
build/portable/sbx-proxy-test: build/portable/net/driver.o build/portable/lib/libnet.a \
		build/lib/libpolicy.a
	$(CC) $(SBX_LDFLAGS) -o $@ $< $(call group,$(filter %.a,$^)) $(SBX_LDLIBS)
check-portable: build/tests/unit-tests-portable
	build/tests/unit-tests-portable --jobs 2 --filter 'net*/*'
	build/tests/unit-tests-portable --jobs 2 --filter '@(hostfs|pathwalk|walk_attack)/*'

run: deps
	@$(MAKE) --no-print-directory all
	@./scripts/demo.sh $(if $(CMD),"$(CMD)")

# Built with a job per core; then the unit tests beside the integration
# suites (run.sh runs those SBX_IT_JOBS at once: they mostly wait).
NPROC := $(shell nproc 2>/dev/null || echo 2)
check: deps-test
	@$(MAKE) --no-print-directory -j$(NPROC) all build/tests/unit-tests build/tests/unit-tests-portable \
		$(TEST_HOOK_BINS) test-progs build/darwin/sbx-preload build/tests/darwin/sbx-preload \
		build/darwin/sbxctl build/tests/darwin/sbxctl build/tests/net-unit build/tests/darwin/shim-writer \
		build/tests/darwin/dylib-start.so
	@$(MAKE) --no-print-directory -j3 check-docs check-hooks check-unit check-portable check-integration

check-unit: build/tests/unit-tests build/tests/shim-dyld
	build/tests/unit-tests --jobs 2
	build/tests/shim-dyld --jobs 2

# The documentation's copies of tables that live in code (the seccomp
# table in docs/SECURITY.md).
check-docs: build/gen-filters
	./scripts/check-docs.sh

check-integration: all $(TEST_HOOK_BINS) test-progs
	./tests/integration/run.sh

# The programs the integration suites run (tests/progs/), built once here
# rather than by each suite for each user: NAME (dynamic), NAME.static
# (static glibc), notifyprobe.musl (static musl, where installed) and
# goclient (a static Go program, where Go is installed). Never sanitized:
# they stand for the programs users run.
TEST_PROG_NAMES := $(patsubst tests/progs/%.c,%,$(wildcard tests/progs/*.c))
TEST_PROG_CFLAGS := -O2 -Wall -pthread
TEST_PROGS := $(TEST_PROG_NAMES:%=build/tests/progs/%) $(TEST_PROG_NAMES:%=build/tests/progs/%.static) \
	$(if $(MUSL_GCC),build/tests/progs/notifyprobe.musl) \
	$(if $(shell command -v go 2>/dev/null),build/tests/progs/goclient)
test-progs: $(TEST_PROGS)
build/tests/progs/%: tests/progs/%.c
	@mkdir -p $(@D)
	$(CC) $(TEST_PROG_CFLAGS) -o $@ $<
build/tests/progs/%.static: tests/progs/%.c
	@mkdir -p $(@D)
	$(CC) -static $(TEST_PROG_CFLAGS) -o $@ $<
build/tests/progs/%.musl: tests/progs/%.c
	@mkdir -p $(@D)
	$(MUSL_GCC) -static $(TEST_PROG_CFLAGS) -o $@ $<
# the pure Go resolver (/etc/resolv.conf), no cgo: a static binary
build/tests/progs/goclient: tests/progs/goclient.go
	@mkdir -p $(@D)
	cd tests/progs && GO111MODULE=off CGO_ENABLED=0 go build -o $(CURDIR)/$@ goclient.go

# The tests that install from the npm registry (pinned versions: the real
# agents, the MCP server, Claude Code; `agents` rows of
# tests/integration/placement): apart from `make check`, which stays
# offline and repeatable.
check-agents: deps-test
	@$(MAKE) --no-print-directory -j$(NPROC) all $(TEST_HOOK_BINS) test-progs
	SBX_IT_TARGET=agents ./tests/integration/run.sh

# sbx inside a real container (tests/integration/container.sh, the
# recipe in docs/RECIPES.md): podman and runc from Debian, rootful, no
# image (a directory root with the host's /usr); apart from `make check`.
check-container: all
	@./scripts/deps.sh --container
	SBX_IT_CONTAINER=1 SUITES=container.sh ./tests/integration/run.sh

# docs/RECIPES.md's Dockerfile, word for word, built with podman on a
# debian:bookworm-slim that debootstrap makes (no registry), and run.
check-container-recipe:
	@./scripts/deps.sh --container
	./scripts/container-recipe.sh

# The shim's coverage table in docs/REPORTS.md, measured again
# (tests/integration/coverage.sh; explain.sh fails when they differ).
coverage-table: all
	./scripts/coverage-table.sh

bench: all build/bench/floor
	./bench/startup

bench-proxy: all
	./bench/proxy

# What the seccomp filter costs an allowed call (open+close, filter on/off).
build/bench/filter-micro: bench/filter-micro.c build/gen/filters.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SBX_CFLAGS) -o $@ $< $(SBX_LDFLAGS)
bench-filter: build/bench/filter-micro
	build/bench/filter-micro

# The boundary alone (bench/startup's floor): a start replayed from what
# sbx-preload sent, with none of its work; static like sbx-preload.
build/bench/floor: bench/floor.c common/control.h build/kheaders/.made
	@mkdir -p $(@D)
	$(if $(MUSL),$(MUSL) -static -isystem build/kheaders,$(CC)) $(CPPFLAGS) $(SBX_CPPFLAGS) \
		$(SBX_CFLAGS) -o $@ $<

# What Landlock costs: the nested mode's layer, or a second one under
# bubblewrap (the ruleset built and applied; open+close under it).
build/bench/landlock-micro: bench/landlock-micro.c $(PRELOAD_ARCHIVES:%=build/lib/lib%.a)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SBX_CFLAGS) -o $@ $< $(call group,$(filter %.a,$^)) \
		$(SBX_LDFLAGS) $(SBX_LDLIBS)
bench-landlock: build/bench/landlock-micro
	build/bench/landlock-micro

# What one path question costs as the policy grows: the compiled matcher
# against trying every rule (the matcher before policy/match.c).
build/bench/match-micro: bench/match-micro.c build/lib/libpolicy.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SBX_CPPFLAGS) $(SBX_CFLAGS) -o $@ $^ $(SBX_LDFLAGS) -linih
bench-match: build/bench/match-micro
	build/bench/match-micro

# libFuzzer harnesses for the proxy's parsers, the path matcher and git's
# config parser (tests/fuzz/), FUZZ_SECONDS each; clang only, not part of
# `make check`.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_TARGETS := http socks host dns addr matcher gitconfig seatbelt_log wire_join
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-D_GNU_SOURCE -I. -Ibuild
build/fuzz/gitconfig: tests/fuzz/gitconfig.c policy/gitconfig.c policy/path.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^
build/fuzz/%: tests/fuzz/%.c net/host.c net/http.c net/socks.c \
		net/dns.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^
# Seatbelt's refusals as log stream prints them (backend/darwin/logstream.c)
build/fuzz/seatbelt_log: tests/fuzz/seatbelt_log.c backend/darwin/logstream.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^
# the pieces of long report lines joined (common/wire_join.c)
build/fuzz/wire_join: tests/fuzz/wire_join.c common/wire_join.c common/wire.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^
# the compiled path matcher against trying every rule (tests/unit/matcher_ref.h)
build/fuzz/matcher: tests/fuzz/matcher.c $(POLICY_SRCS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^ -linih
fuzz:
	@./scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=build/fuzz/%)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz/corpus-$$t; \
		cp -n tests/fuzz/seeds/$$t/* build/fuzz/corpus-$$t/ 2>/dev/null; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		build/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=20000 \
			-print_final_stats=1 build/fuzz/corpus-$$t >build/fuzz/$$t.log 2>&1 \
			|| { tail -40 build/fuzz/$$t.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units' build/fuzz/$$t.log; \
	done

install: all
	install -D -m 0755 build/sbx-preload $(DESTDIR)$(BINDIR)/sbx-preload
	install -D -m 0755 build/sbxctl $(DESTDIR)$(BINDIR)/sbxctl
	install -D -m 0755 build/sbx-init $(DESTDIR)$(LIBDIR)/sbx/sbx-init
	install -D -m 0644 build/libsbx-preload.so $(DESTDIR)$(LIBDIR)/sbx/libsbx-preload.so
	install -D -m 0644 sandbox.ini.example $(DESTDIR)$(DATADIR)/sbx/sandbox.ini.example
	install -D -m 0644 docs/man/sbx-preload.1 $(DESTDIR)$(MANDIR)/man1/sbx-preload.1
	install -D -m 0644 docs/man/sbxctl.1 $(DESTDIR)$(MANDIR)/man1/sbxctl.1
	install -D -m 0644 docs/man/sandbox.ini.5 $(DESTDIR)$(MANDIR)/man5/sandbox.ini.5
	install -D -m 0644 share/completion/bash/sbxctl $(DESTDIR)$(DATADIR)/bash-completion/completions/sbxctl
	install -D -m 0644 share/completion/bash/sbx-preload $(DESTDIR)$(DATADIR)/bash-completion/completions/sbx-preload
	install -D -m 0644 share/completion/zsh/_sbxctl $(DESTDIR)$(DATADIR)/zsh/site-functions/_sbxctl
	install -D -m 0644 share/completion/zsh/_sbx-preload $(DESTDIR)$(DATADIR)/zsh/site-functions/_sbx-preload
	for f in share/sbx/profiles/*.ini; do \
		install -D -m 0644 "$$f" "$(DESTDIR)$(DATADIR)/sbx/profiles/$${f##*/}" || exit 1; \
	done

clean:
	rm -rf build

# every object's header dependencies, at any depth (build/musl/preload/
# notify/*.d is five levels down: a fixed depth missed it, and a changed
# header left stale objects in sbx-preload)
-include $(shell find build -name '*.d' 2>/dev/null)

# The poller the build chose (SBX_POLLER): net/poller.o and what links it
# are rebuilt when the choice changes.
ifeq ($(filter epoll poll,$(SBX_POLLER)),)
$(error SBX_POLLER=$(SBX_POLLER): epoll or poll)
endif
POLLER_STAMP := build/poller-$(SBX_POLLER).stamp
$(shell mkdir -p build; [ -e $(POLLER_STAMP) ] || { rm -f build/poller-*.stamp; touch $(POLLER_STAMP); })
POLLER_OBJS := $(foreach d,build build/musl build/tests/hooks build/tests/hooks/musl,$(d)/net/poller.o)
$(POLLER_OBJS): $(POLLER_STAMP)
$(POLLER_OBJS): SBX_CPPFLAGS += $(if $(filter poll,$(SBX_POLLER)),-DSBX_POLLER_POLL)

# The portable build (SBX_PORTABLE=1, net/compat.h, common/fscompat.h):
# net/'s objects, common/hostfs.c's and what links them are rebuilt when
# the choice changes. (pathwalk.c stays Linux's here: its callers in these
# programs are the mounts', which hold files and links by O_PATH;
# unit-tests-portable tests its fallback.)
ifeq ($(SBX_PORTABLE)$(SBX_POLLER),1epoll)
$(error SBX_PORTABLE=1 takes poll(): epoll is Linux's)
endif
COMPAT_STAMP := build/compat-$(if $(filter 1,$(SBX_PORTABLE)),portable,native).stamp
$(shell mkdir -p build; [ -e $(COMPAT_STAMP) ] || { rm -f build/compat-*.stamp; touch $(COMPAT_STAMP); })
COMPAT_OBJS := $(foreach d,build build/musl,$(NET_DRIVER_SRCS:%.c=$(d)/%.o) $(d)/common/hostfs.o)
$(COMPAT_OBJS): $(COMPAT_STAMP)
$(COMPAT_OBJS): SBX_CPPFLAGS += $(if $(filter 1,$(SBX_PORTABLE)),-DSBX_PORTABLE)
