/* tests/unit/shim_elfcheck.c: is a program static? (common/elfcheck.c)
 *
 * The shim asks before every exec, in the fork child, so it reads only the
 * first KiB (the ELF header and, where linkers put them, the program
 * headers) and reads the headers again only when they lie further on.
 * Both ways must give the same answer: no PT_INTERP is static (an
 * executable or a static-pie), one is dynamic; what is not an ELF program
 * (a script, a directory, a FIFO, a truncated file) is not static, and
 * the look never hangs on a FIFO. Run on files written here, and on the
 * system's own /bin/sh.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/helpers.h"
#include "common/elfcheck.h"

static char dir[] = "/tmp/sbx-elfcheck.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/* A 64-bit ELF file of `type` with n program headers at `phoff`, the
 * first of them PT_INTERP when `interp`, padded to `size` bytes. */
static const char *elf64(const char *name, unsigned type, unsigned long phoff, unsigned n,
			 bool interp, size_t size)
{
	static char path[PATH_MAX];
	unsigned char *b = calloc(1, size);
	Elf64_Ehdr *e = (Elf64_Ehdr *)b;

	cr_assert_not_null(b);
	cr_assert_leq(phoff + n * sizeof(Elf64_Phdr), size);
	memcpy(e->e_ident, ELFMAG, SELFMAG);
	e->e_ident[EI_CLASS] = ELFCLASS64;
	e->e_ident[EI_DATA] = ELFDATA2LSB;
	e->e_ident[EI_VERSION] = EV_CURRENT;
	e->e_type = (Elf64_Half)type;
	e->e_phoff = phoff;
	e->e_phnum = (Elf64_Half)n;
	e->e_phentsize = sizeof(Elf64_Phdr);
	for (unsigned i = 0; i < n; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(b + phoff + i * sizeof(Elf64_Phdr));
		ph->p_type = (interp && i == n - 1) ? PT_INTERP : PT_LOAD;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(b, 1, size, f), size);
	fclose(f);
	free(b);
	return path;
}

TestSuite(shim_elfcheck, .init = setup, .fini = teardown);

Test(shim_elfcheck, headers_in_the_first_kib_without_interp_is_static)
{
	cr_assert(elf_is_static(AT_FDCWD, elf64("a", ET_EXEC, 64, 4, false, 8192)));
}

Test(shim_elfcheck, headers_in_the_first_kib_with_interp_is_dynamic)
{
	cr_assert_not(elf_is_static(AT_FDCWD, elf64("a", ET_DYN, 64, 4, true, 8192)));
}

Test(shim_elfcheck, static_pie_without_interp_is_static)
{
	cr_assert(elf_is_static(AT_FDCWD, elf64("a", ET_DYN, 64, 9, false, 8192)));
}

Test(shim_elfcheck, headers_past_the_first_kib_are_read_and_judged_the_same,
     .description = "the program headers at 4000: the second read, same answers")
{
	cr_assert(elf_is_static(AT_FDCWD, elf64("s", ET_EXEC, 4000, 6, false, 8192)));
	cr_assert_not(elf_is_static(AT_FDCWD, elf64("d", ET_EXEC, 4000, 6, true, 8192)));
}

Test(shim_elfcheck, headers_straddling_the_first_kib_are_read_whole)
{
	/* the first header within the first read, the PT_INTERP (last) past it */
	cr_assert_not(elf_is_static(AT_FDCWD, elf64("d", ET_EXEC, 1000, 4, true, 8192)));
}

Test(shim_elfcheck, headers_past_the_end_of_the_file_are_not_static)
{
	const char *p = elf64("t", ET_EXEC, 64, 4, false, 8192);

	cr_assert_eq(truncate(p, 200), 0); /* the headers cut off */
	cr_assert_not(elf_is_static(AT_FDCWD, p));
}

Test(shim_elfcheck, a_shared_object_or_core_file_is_not_a_static_program)
{
	cr_assert_not(elf_is_static(AT_FDCWD, elf64("c", ET_CORE, 64, 4, false, 8192)));
}

Test(shim_elfcheck, script_directory_and_fifo_are_not_static_and_never_hang)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/script", dir);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs("#!/bin/sh\necho hi\n", f);
	fclose(f);
	cr_assert_not(elf_is_static(AT_FDCWD, p));
	cr_assert_not(elf_is_static(AT_FDCWD, dir));
	snprintf(p, sizeof(p), "%s/fifo", dir);
	cr_assert_eq(mkfifo(p, 0600), 0);
	cr_assert_not(elf_is_static(AT_FDCWD, p)); /* O_NONBLOCK: no writer, no wait */
	cr_assert_not(elf_is_static(AT_FDCWD, "/nonexistent/sbx-elfcheck"));
}

Test(shim_elfcheck, the_systems_shell_is_dynamic)
{
	cr_assert_not(elf_is_static(AT_FDCWD, "/bin/sh"));
}
