/* tests/unit/darwin_interpose.c: the dyld interpose table
 * (build/gen/interpose.c, made by backend/darwin/gen-interpose.c from
 * shim/symbols.def) covers every row of symbols.def: each is an entry
 * pairing sbx_dyld_NAME with libSystem's NAME, or a row libSystem lacks,
 * said with its reason. The file compiling on Linux is the Makefile's
 * build/gen/interpose.o, which this runner depends on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "backend/darwin/interpose.h"
#include "tests/unit/helpers.h"

static const char *const rows[] = {
#define PATHCALL(ret, name, ...) #name,
#define COMPAT(ret, name, ...) #name,
#define HAND(name, file) #name,
#include "shim/symbols.def"
#undef PATHCALL
#undef COMPAT
#undef HAND
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static size_t count(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *s = text; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

Test(darwin_interpose, every_symbol_is_interposed_or_absent_with_a_reason)
{
	char *t = slurp("build/gen/interpose.c");
	char entry[256], note[256];
	size_t entries = 0;

	cr_assert_gt(N(rows), 90, "symbols.def read as %zu rows", N(rows));
	for (size_t i = 0; i < N(rows); i++) {
		snprintf(entry, sizeof(entry), "{ (const void *)&sbx_dyld_%s, (const void *)&%s },",
			 rows[i], rows[i]);
		snprintf(note, sizeof(note), "\t/* %s: ", rows[i]);
		size_t e = count(t, entry), a = count(t, note);
		cr_assert_eq(e + a, 1, "%s: %zu entries, %zu absent notes", rows[i], e, a);
		if (a) {
			const char *r = strstr(t, note) + strlen(note);
			cr_assert(r[0] != '*' && r[0] != ' ', "%s: absent without a reason", rows[i]);
		}
		entries += e;
	}
	/* nothing else in the table */
	cr_assert_eq(count(t, "{ (const void *)&sbx_dyld_"), entries);
	char total[64];
	snprintf(total, sizeof(total), "sbx_interpose_count = %zu;", entries);
	cr_assert(strstr(t, total), "the table's count is not %zu", entries);
	/* the section is the one dyld reads */
	cr_assert(strstr(t, "SBX_INTERPOSE_SECTION const struct sbx_interpose "
			    "sbx_interpose_table[]"));
	free(t);
}

Test(darwin_interpose, the_absent_list_names_only_rows_of_symbols_def)
{
#define X(n, why) #n,
	static const char *const absent[] = { SBX_DARWIN_ABSENT(X) };
#undef X
	for (size_t i = 0; i < N(absent); i++) {
		size_t k = 0;
		while (k < N(rows) && strcmp(rows[k], absent[i]))
			k++;
		cr_assert_lt(k, N(rows), "%s is absent but no row of symbols.def", absent[i]);
	}
	/* the calls every Mac program makes are in the table */
	static const char *const core[] = { "open", "openat", "stat", "lstat", "execve",
					    "posix_spawn", "connect", "getaddrinfo", "rename",
					    "unlink", "mkdir" };
	for (size_t i = 0; i < N(core); i++)
		for (size_t k = 0; k < N(absent); k++)
			cr_assert(strcmp(core[i], absent[k]), "%s listed as absent", core[i]);
}

/* build/gen/dyld-rows.h (gen-interpose rows): the PATHCALL rows shim/
 * darwin.c generates its wrappers from: none libSystem lacks (it would
 * not compile on a Mac), none with Darwin's own prototype (written by
 * hand there), and every other PATHCALL row of the table */
Test(darwin_interpose, the_generated_wrapper_rows_are_the_table_s_own)
{
	char *t = slurp("build/gen/dyld-rows.h"), *table = slurp("build/gen/interpose.c");
	char row[256], entry[256];
#define X(n, why) #n,
	static const char *const absent[] = { SBX_DARWIN_ABSENT(X) };
	static const char *const own[] = { SBX_DARWIN_OWN_PROTOTYPE(X) };
#undef X
	static const char *const pathcalls[] = {
#define PATHCALL(ret, name, ...) #name,
#define COMPAT(ret, name, ...)
#define HAND(name, file)
#include "shim/symbols.def"
#undef PATHCALL
#undef COMPAT
#undef HAND
	};
	size_t made = 0;

	for (size_t i = 0; i < N(pathcalls); i++) {
		bool skip = false;
		for (size_t k = 0; k < N(absent); k++)
			skip = skip || !strcmp(absent[k], pathcalls[i]);
		for (size_t k = 0; k < N(own); k++)
			skip = skip || !strcmp(own[k], pathcalls[i]);
		/* the row's name, after its return type */
		snprintf(row, sizeof(row), ", %s, (", pathcalls[i]);
		snprintf(entry, sizeof(entry), "&sbx_dyld_%s,", pathcalls[i]);
		cr_assert_eq(count(t, row), skip ? 0 : 1, "%s in dyld-rows.h", pathcalls[i]);
		if (!skip)
			cr_assert(strstr(table, entry), "%s generated but not in the table",
				  pathcalls[i]);
		made += !skip;
	}
	cr_assert_eq(count(t, "\nPATHCALL("), made);
	cr_assert_gt(made, 30);
	free(t);
	free(table);
}
