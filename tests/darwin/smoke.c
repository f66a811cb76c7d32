/* tests/darwin/smoke.c: the macOS smoke test (.github/workflows/macos.yml;
 * it cannot run on Linux, docs/MACOS.md says so).
 *
 *   smoke CONFIG WORKSPACE CANARY OUTSIDE
 *
 * The policy of CONFIG (workspace WORKSPACE) as a Seatbelt profile, under
 * the real /usr/bin/sandbox-exec: `cat CANARY` (a file the policy denies
 * reading) and `touch OUTSIDE` (a path outside the writable roots) must
 * both be refused -- the canary's bytes never on cat's output, OUTSIDE
 * never made -- and both refusals must come through the real `log
 * stream` with this run's tag, read by the same watch and parser the
 * darwin backend uses; a write inside the workspace must work. Exit 0
 * when all holds, 1 with what did not. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/darwin/logstream.h"
#include "backend/darwin/seatbelt.h"
#include "backend/darwin/watch.h"
#include "common/strv.h"
#include "policy/policy.h"

extern char **environ;

struct seen {
	const char *canary, *outside;
	bool read_refused, write_refused;
};

static void refused(void *ctx, const struct seatbelt_violation *v)
{
	struct seen *s = ctx;

	printf("log: %s(%d) %s %s\n", v->comm, v->pid, v->op, v->target);
	if (!strncmp(v->op, "file-read", 9) && !strcmp(v->target, s->canary))
		s->read_refused = true;
	if (!strncmp(v->op, "file-write", 10) && !strcmp(v->target, s->outside))
		s->write_refused = true;
}

/* COMMAND under the profile; its status, its stdout into out. */
static int run(const struct seatbelt_profile *sp, char *const *cmd, char *out, size_t outsz)
{
	struct strv argv = { 0 };
	int fds[2], st = -1;
	pid_t pid;
	posix_spawn_file_actions_t fa;

	strv_add(&argv, DARWIN_SANDBOX_EXEC);
	for (size_t i = 0; i < sp->nparams; i++) {
		strv_add(&argv, "-D");
		strv_addf(&argv, "%s=%s", sp->params[i].name, sp->params[i].value);
	}
	strv_add(&argv, "-p");
	strv_add(&argv, sp->text);
	strv_add(&argv, "--");
	for (size_t i = 0; cmd[i]; i++)
		strv_add(&argv, cmd[i]);
	if (pipe(fds))
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	int rc = posix_spawn(&pid, DARWIN_SANDBOX_EXEC, &fa, NULL, argv.v, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	size_t l = 0;
	ssize_t n;
	while (!rc && l + 1 < outsz && (n = read(fds[0], out + l, outsz - l - 1)) > 0)
		l += (size_t)n;
	out[l] = '\0';
	close(fds[0]);
	if (!rc)
		waitpid(pid, &st, 0);
	strv_free(&argv);
	return rc ? -1 : st;
}

int main(int argc, char **argv)
{
	struct policy_builder *b;
	struct policy *p;
	struct sbx_err err = { "" };
	struct seatbelt_profile sp;
	char serr[512], out[4096], canary[4096], outside[4096], home[4096];
	int fails = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: smoke CONFIG WORKSPACE CANARY OUTSIDE\n");
		return 2;
	}
	snprintf(home, sizeof(home), "%s", getenv("HOME") ? getenv("HOME") : "/");
	struct policy_ctx ctx = { .home = home, .cwd = argv[2], .environ = environ,
				  .path_env = getenv("PATH") };
	if (policy_builder_new(&ctx, &b) ||
	    policy_builder_load_file(b, argv[1], argv[1], POLICY_LAYER_USER, &err) ||
	    policy_compile(b, &p, &err)) {
		fprintf(stderr, "smoke: the policy: %s\n", err.msg);
		return 1;
	}
	struct seatbelt_opts so = { .run_id = "smoke", .http_port = 1, .socks_port = 2 };
	if (seatbelt_compile(p, &so, &sp, serr, sizeof(serr))) {
		fprintf(stderr, "smoke: the profile: %s\n", serr);
		return 1;
	}
	/* the kernel names files by their real paths (/private/var/...) */
	if (!realpath(argv[3], canary)) {
		fprintf(stderr, "smoke: %s: %s\n", argv[3], strerror(errno));
		return 1;
	}
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", argv[4]);
	char *slash = strrchr(dir, '/');
	*slash = '\0';
	if (!realpath(dir[0] ? dir : "/", outside)) {
		fprintf(stderr, "smoke: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(outside + strlen(outside), sizeof(outside) - strlen(outside), "/%s", slash + 1);

	struct seen seen = { .canary = canary, .outside = outside };
	struct darwin_watch w = DARWIN_WATCH_NONE;
	w.sandbox_exec = DARWIN_SANDBOX_EXEC;
	w.log = DARWIN_LOG;
	w.tmpdir = getenv("TMPDIR");
	w.wait_ms = 30000;
	w.refused = refused;
	w.ctx = &seen;
	snprintf(w.tag, sizeof(w.tag), "sbx-smoke");
	if (darwin_watch_start(&w, serr, sizeof(serr))) {
		fprintf(stderr, "smoke: log stream: %s\n", serr);
		return 1;
	}
	printf("log stream live: %s\n", w.live ? "yes" : "NO");
	fails += !w.live;

	char *cat[] = { "/bin/cat", canary, NULL };
	int st = run(&sp, cat, out, sizeof(out));
	printf("cat canary: status %d, %zu bytes out\n", st, strlen(out));
	if (st == 0 || strstr(out, "CANARY")) {
		printf("FAIL: the canary was read\n");
		fails++;
	}
	char *touch[] = { "/usr/bin/touch", argv[4], NULL };
	st = run(&sp, touch, out, sizeof(out));
	printf("touch outside: status %d\n", st);
	if (st == 0 || access(argv[4], F_OK) == 0) {
		printf("FAIL: %s was made\n", argv[4]);
		fails++;
	}
	char inside[4200];
	snprintf(inside, sizeof(inside), "%s/made-inside", argv[2]);
	char *touch_in[] = { "/usr/bin/touch", inside, NULL };
	st = run(&sp, touch_in, out, sizeof(out));
	printf("touch inside the workspace: status %d\n", st);
	if (st != 0 || access(inside, F_OK)) {
		printf("FAIL: a write in the workspace was refused\n");
		fails++;
	}
	bool drained = darwin_watch_drain(&w);
	printf("log drained: %s\n", drained ? "yes" : "NO");
	if (!seen.read_refused) {
		printf("FAIL: no refusal of the canary's read came through the log\n");
		fails++;
	}
	if (!seen.write_refused) {
		printf("FAIL: no refusal of the write outside came through the log\n");
		fails++;
	}
	printf("log lines: %lu ours, %lu others, %lu malformed\n", w.lb.ours, w.lb.other,
	       w.lb.malformed);
	darwin_watch_stop(&w);
	seatbelt_profile_free(&sp);
	policy_free(p);
	printf("%s\n", fails ? "smoke: FAILED" : "smoke: ok");
	return fails ? 1 : 0;
}
