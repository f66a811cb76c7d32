/* tests/unit/sbpl.h: a small SBPL evaluator for the profiles
 * backend/darwin/seatbelt.c makes (no Mac here): the last matching rule
 * wins; literal, subpath, regex, require-all/-any/-not and (param "N"),
 * as sandbox-exec substitutes them. */
#ifndef SBX_TESTS_SBPL_H
#define SBX_TESTS_SBPL_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/darwin/seatbelt.h"

struct sx;
struct prof {
	struct sx **forms;
	size_t n;
	const struct seatbelt_profile *sp;
};

/* Each regex's answer is kept for the path last asked about: bump this
 * before asking about another path. */
extern unsigned long sbpl_path_gen;

void prof_load(struct prof *pr, const struct seatbelt_profile *sp);
/* Does the profile allow `op` (file-write-create, file-read-data...) on
 * `path`? A path is asked about as the kernel names it (real, canonical). */
bool prof_allows(const struct prof *pr, const char *op, const char *path);
void prof_free(struct prof *pr);

#endif
