/* tests/fuzz/seatbelt_log.c: libFuzzer harness for `log stream`'s ndjson
 * lines (backend/darwin/logstream.c; `make fuzz`): any bytes, whole or fed
 * in pieces; nothing may read or write out of bounds, and a refusal taken
 * as ours must hold what the parser promises: the kernel's (the line
 * says processID 0), a pid, an operation of Seatbelt's form, strings
 * that end. */
#include <stdlib.h>
#include <string.h>

#include "backend/darwin/logstream.h"

#define TAG "sbx-fuzz-0123456789abcdef"

static void check(void *ctx, const struct seatbelt_violation *v)
{
	(void)ctx;
	if (v->pid <= 0 || !v->op[0] || strlen(v->op) >= sizeof(v->op) ||
	    strlen(v->comm) >= sizeof(v->comm) || strlen(v->target) >= sizeof(v->target) ||
	    v->repeats == 0)
		abort();
	for (const char *c = v->op; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '*'))
			abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct seatbelt_log_buf lb;
	struct seatbelt_violation v;
	char *m = malloc(size ? size : 1);

	memcpy(m, data, size);
	if (seatbelt_log_parse(m, size, TAG, &v) == SEATBELT_LOG_OURS) {
		check(NULL, &v);
		if (!memmem(m, size, "\"processID\"", 11))
			abort();
	}
	/* the same bytes as a stream, in two pieces */
	size_t cut = size ? data[0] % size : 0;
	seatbelt_log_feed(&lb, TAG, m, cut, check, NULL);
	seatbelt_log_feed(&lb, TAG, m + cut, size - cut, check, NULL);
	free(m);
	return 0;
}
