/* test_platforms.c - the platform table's lookups: by name (and NVIDIA's old archive names),
 * by ELF or PE machine and by a program's first bytes, the row of this build, and the facts
 * callers ask. Portable C: the same binary is cross-built and run under Wine (make
 * windows-unit), where the build's own row is windows-x86_64. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "manifests/platforms.h"

static void finds_every_row_by_name(void **state)
{
	(void)state;
	static const char *const names[] = { "linux-x86_64", "linux-sbsa", "linux-aarch64",
					     "windows-x86_64" };
	size_t n = 0;
	for (; platform_at(n); n++)
		assert_ptr_equal(platform_find(platform_at(n)->name), platform_at(n));
	assert_int_equal(n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(platform_find(names[i])->name, names[i]);
	assert_null(platform_find("linux-ppc64le")); /* no unpacker is built for it */
	assert_null(platform_find("windows"));
	assert_null(platform_find("windows-x86_64 "));
	assert_null(platform_find(""));
	assert_null(platform_find(NULL));
}

static void knows_nvidias_old_archive_names(void **state)
{
	(void)state;
	assert_string_equal(platform_find_archive_name("linux-x64")->name, "linux-x86_64");
	assert_string_equal(platform_find_archive_name("windows-x64")->name, "windows-x86_64");
	assert_string_equal(platform_find_archive_name("windows10-x64")->name, "windows-x86_64");
	assert_string_equal(platform_find_archive_name("linux-sbsa")->name, "linux-sbsa");
	assert_null(platform_find_archive_name("linux-ppc64le"));
	assert_null(platform_find("linux-x64")); /* never a manifest's name */
}

static void facts_of_the_rows(void **state)
{
	(void)state;
	const struct platform_spec *l = platform_find("linux-x86_64");
	const struct platform_spec *w = platform_find("windows-x86_64");
	assert_string_equal(l->exe_suffix, "");
	assert_string_equal(w->exe_suffix, ".exe");
	assert_string_equal(l->sfx_suffix, ".run");
	assert_string_equal(w->sfx_suffix, ".exe");
	assert_string_equal(l->lib_dir, "lib");
	assert_string_equal(w->lib_dir, "bin");
	assert_true(l->links_allowed);
	assert_false(w->links_allowed);
	assert_int_equal(l->env_store, PLATFORM_ENV_IN_FILES);
	assert_int_equal(w->env_store, PLATFORM_ENV_IN_REGISTRY);
	assert_int_equal(w->max_program_size, UINT32_MAX);
	assert_int_equal(l->max_program_size, 0);
	assert_string_equal(l->ld_cache_tag, "x86-64");
	assert_string_equal(platform_find("linux-aarch64")->ld_cache_tag, "AArch64");
	char file[64];
	platform_library_file(l, "cublas", "13", file, sizeof(file));
	assert_string_equal(file, "libcublas.so.13");
	platform_library_file(w, "cublas", "13", file, sizeof(file));
	assert_string_equal(file, "cublas64_13.dll");
	/* a name not checked yet: Linux's conventions, and no program is one of it */
	const struct platform_spec *u = platform_facts("windows-arm64");
	assert_string_equal(u->lib_dir, "lib");
	assert_false(platform_same_program(u, u));
	assert_ptr_equal(platform_facts("linux-sbsa"), platform_find("linux-sbsa"));
}

static void rows_by_machine(void **state)
{
	(void)state;
	assert_string_equal(platform_from_elf_machine(62)->name, "linux-x86_64");
	assert_string_equal(platform_from_elf_machine(183)->name, "linux-sbsa"); /* the first */
	assert_null(platform_from_elf_machine(21)); /* EM_PPC64 */
	assert_null(platform_from_elf_machine(0x8664));
	assert_string_equal(platform_from_pe_machine(0x8664)->name, "windows-x86_64");
	assert_null(platform_from_pe_machine(0xaa64)); /* ARM64 Windows: no row */
	assert_true(platform_same_program(platform_find("linux-sbsa"), platform_find("linux-aarch64")));
	assert_false(platform_same_program(platform_find("linux-x86_64"),
					   platform_find("windows-x86_64")));
	assert_false(platform_same_program(NULL, platform_find("linux-x86_64")));
}

static void rows_by_a_programs_first_bytes(void **state)
{
	(void)state;
	uint8_t elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1 };
	elf[18] = 183;
	assert_string_equal(platform_of_program(elf, sizeof(elf))->name, "linux-sbsa");
	assert_null(platform_of_program(elf, 19)); /* the machine field cut off */
	elf[18] = 21;
	assert_null(platform_of_program(elf, sizeof(elf)));
	assert_string_equal(platform_describe_program(elf, sizeof(elf)), "another machine");
	uint8_t pe[256] = { 'M', 'Z' };
	pe[60] = 0x80; /* e_lfanew */
	memcpy(pe + 0x80, "PE\0\0\x64\x86", 6);
	assert_string_equal(platform_of_program(pe, sizeof(pe))->name, "windows-x86_64");
	assert_string_equal(platform_describe_program(pe, sizeof(pe)), "windows-x86_64");
	assert_null(platform_of_program(pe, 0x84)); /* the PE header beyond the bytes */
	pe[60] = 0xff;
	pe[61] = 0xff; /* e_lfanew far beyond */
	assert_null(platform_of_program(pe, sizeof(pe)));
	assert_string_equal(platform_describe_program(pe, sizeof(pe)), "another machine");
	assert_string_equal(platform_describe_program((const uint8_t *)"#!/bin/sh\n", 10),
			    "not a program");
	assert_string_equal(platform_describe_program((const uint8_t *)"", 0), "not a program");
}

static void the_builds_own_row(void **state)
{
	(void)state;
#if defined(_WIN32)
	assert_string_equal(platform_self()->name, "windows-x86_64");
#elif defined(__aarch64__)
	assert_string_equal(platform_self()->name, "linux-sbsa");
#else
	assert_string_equal(platform_self()->name, "linux-x86_64");
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finds_every_row_by_name),
		cmocka_unit_test(knows_nvidias_old_archive_names),
		cmocka_unit_test(facts_of_the_rows),
		cmocka_unit_test(rows_by_machine),
		cmocka_unit_test(rows_by_a_programs_first_bytes),
		cmocka_unit_test(the_builds_own_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
