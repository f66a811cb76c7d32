/* tests/fuzz/gitconfig.c: libFuzzer harness for git's config parser
 * (policy/gitconfig.c, `make fuzz`). Whatever the bytes: no read past the
 * input (ASan), an error or a parse; a parse compared with itself changes
 * no kept key, and with nothing it changes one exactly when it holds one;
 * every entry's key has no upper-case letter outside its subsection. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct gitcfg *g = NULL;
	struct gitcfg_err err;
	char *copy = malloc(size ? size : 1);
	bool kept = false;

	if (!copy)
		return 0;
	memcpy(copy, data, size); /* exactly size bytes: a read past is caught */
	int rc = gitcfg_parse(copy, size, &g, &err);
	if (rc && (rc != -EINVAL && rc != -E2BIG) )
		abort();
	if (!rc) {
		for (size_t i = 0; i < gitcfg_count(g); i++) {
			const char *k = gitcfg_key(g, i), *first = strchr(k, '.'), *last = strrchr(k, '.');
			kept |= gitcfg_row_of(k, gitcfg_value(g, i)) != NULL;
			for (const char *c = k; *c; c++)
				if (*c >= 'A' && *c <= 'Z' && (!first || c < first || c > last))
					abort();
		}
		if (gitcfg_risky_change(g, g, NULL, 0, NULL) != 0)
			abort();
		if (gitcfg_risky_change(NULL, g, NULL, 0, NULL) != kept)
			abort();
	}
	gitcfg_free(g);
	free(copy);
	return 0;
}
