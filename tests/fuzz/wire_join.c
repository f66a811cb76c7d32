/* tests/fuzz/wire_join.c: libFuzzer harness for the pieces of long report
 * lines (common/wire.h, common/wire_join.c; `make fuzz`): any bytes, cut
 * into lines at each newline, each line starting "SBXP " given to the
 * join. Nothing may read or write out of bounds, a line made whole is
 * at most one report (WIRE_MAX - 1 bytes) with a pid, at most
 * WIRE_JOIN_LINES lines are held, none longer than one report, and at
 * the end every line begun was made whole or counted dropped, once. */
#include <stdlib.h>
#include <string.h>

#include "common/wire_join.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct wire_join j;
	unsigned long begun = 0, whole = 0;
	const char *p = (const char *)data, *end = p + size;

	memset(&j, 0, sizeof(j));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		char *line = malloc(len ? len : 1); /* exactly len: an overread is ASan's */
		const char *out;
		size_t olen;
		int pid;
		struct wire_piece wp;

		memcpy(line, p, len);
		int piece1 = !wire_piece_decode(line, len, &wp) && wp.k == 1;
		enum wire_join_rc rc = wire_join_take(&j, line, len, &out, &olen, &pid);
		if (piece1)
			begun++;
		if (rc == WIRE_JOIN_WHOLE) {
			if (olen > WIRE_MAX - 1 || pid <= 0 || olen < 2)
				abort();
			whole++;
		}
		if (rc == WIRE_JOIN_MALFORMED && piece1)
			abort();
		size_t held = 0;
		for (size_t i = 0; i < WIRE_JOIN_LINES; i++) {
			held += j.lines[i].pid != 0;
			if (j.lines[i].len > WIRE_MAX - 1)
				abort();
		}
		if (held > WIRE_JOIN_LINES)
			abort();
		free(line);
		p += len + (nl != NULL);
	}
	if (wire_join_end(&j) != begun - whole)
		abort();
	wire_join_free(&j);
	return 0;
}
