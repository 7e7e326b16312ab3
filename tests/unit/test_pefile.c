/* test_pefile.c - the PE reader on an image built here byte by byte (imports, delay-load
 * imports, a version resource), on every truncation and on the corruptions a hostile DLL
 * could carry, and on the fake DLLs mingw-w64 built (make windows-fakes). Portable C: the
 * same test runs under Wine (make windows-unit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unpacker/validate/pefile.h"

#define FILE_SIZE 0x2400
#define SECTION_RVA 0x1000
#define SECTION_RAW 0x400
#define OPT_AT (64 + 24)
#define DIRS_AT (OPT_AT + 112)
#define SECTIONS_AT (OPT_AT + 240)
#define IMPORTS 0x1000
#define DELAY 0x1200
#define RSRC 0x1400
#define VERSION 0x1600

static unsigned char img[FILE_SIZE];

static void put16(size_t at, unsigned v) { img[at] = (unsigned char)v; img[at + 1] = (unsigned char)(v >> 8); }
static void put32(size_t at, uint32_t v) { put16(at, v & 0xffff); put16(at + 2, v >> 16); }
static size_t raw(uint32_t rva) { return rva - SECTION_RVA + SECTION_RAW; }
static void name_at(uint32_t rva, const char *s) { memcpy(img + raw(rva), s, strlen(s) + 1); }
static void resource_dir(uint32_t at, uint32_t id, uint32_t to)
{
	put16(raw(RSRC + at) + 14, 1); /* one entry by id */
	put32(raw(RSRC + at) + 16, id);
	put32(raw(RSRC + at) + 20, to);
}

/* A PE32+ DLL for x86-64 with one section holding everything. */
static void build(void)
{
	memset(img, 0, sizeof(img));
	img[0] = 'M'; img[1] = 'Z';
	put32(60, 64);
	memcpy(img + 64, "PE\0\0", 4);
	put16(68, 0x8664);
	put16(70, 1);     /* sections */
	put16(84, 240);   /* optional header size */
	put16(86, 0x2022);
	put16(OPT_AT, 0x20b);
	put32(OPT_AT + 24, 0x80000000u); put32(OPT_AT + 28, 1); /* image base 0x180000000 */
	put32(OPT_AT + 108, 16);
	put32(DIRS_AT + 8 * 1, IMPORTS); put32(DIRS_AT + 8 * 1 + 4, 60);
	put32(DIRS_AT + 8 * 2, RSRC); put32(DIRS_AT + 8 * 2 + 4, 0x100);
	put32(DIRS_AT + 8 * 13, DELAY); put32(DIRS_AT + 8 * 13 + 4, 64);
	memcpy(img + SECTIONS_AT, ".data", 5);
	put32(SECTIONS_AT + 8, 0x2000);
	put32(SECTIONS_AT + 12, SECTION_RVA);
	put32(SECTIONS_AT + 16, FILE_SIZE - SECTION_RAW);
	put32(SECTIONS_AT + 20, SECTION_RAW);
	/* imports: KERNEL32.dll, zlibwapi.dll */
	put32(raw(IMPORTS) + 12, 0x1100);
	put32(raw(IMPORTS) + 20 + 12, 0x1120);
	name_at(0x1100, "KERNEL32.dll");
	name_at(0x1120, "zlibwapi.dll");
	/* delay-loaded: cublas64_12.dll (RVA-based table) */
	put32(raw(DELAY), 1);
	put32(raw(DELAY) + 4, 0x1140);
	name_at(0x1140, "cublas64_12.dll");
	/* resources: RT_VERSION / 1 / 0x409 -> the data entry at 0x48 */
	resource_dir(0, 16, 0x80000018u);
	resource_dir(0x18, 1, 0x80000030u);
	resource_dir(0x30, 0x409, 0x48);
	put32(raw(RSRC + 0x48), VERSION);
	put32(raw(RSRC + 0x48) + 4, 200);
	static const char key[] = "VS_VERSION_INFO";
	put16(raw(VERSION), 200);
	put16(raw(VERSION) + 2, 52);
	for (size_t i = 0; i < sizeof(key); i++)
		put16(raw(VERSION) + 6 + 2 * i, (unsigned char)key[i]);
	put32(raw(VERSION) + 40, 0xFEEF04BDu);
	put32(raw(VERSION) + 48, 9u << 16 | 19);
	put32(raw(VERSION) + 52, 0u << 16 | 56);
}

static int parse(size_t size, struct pe_info *info, char *why)
{
	return pe_parse_memory(img, size, info, why, 256);
}

static void expect_refused(const char *because)
{
	struct pe_info info;
	char why[256] = "";
	assert_int_equal(parse(sizeof(img), &info, why), -1);
	if (!strstr(why, because))
		fail_msg("refused with \"%s\", expected \"%s\"", why, because);
	assert_null(info.imports);
	build();
}

static void reads_a_whole_dll(void **state)
{
	struct pe_info info;
	char why[256], m[32];
	(void)state;
	build();
	assert_int_equal(parse(sizeof(img), &info, why), 0);
	assert_int_equal(info.machine, PE_MACHINE_AMD64);
	assert_string_equal(pe_machine_name(info.machine, m, sizeof(m)), "x86-64");
	assert_true(info.is_dll);
	assert_int_equal(info.import_count, 3);
	assert_string_equal(info.imports[0].name, "KERNEL32.dll");
	assert_false(info.imports[0].delay_load);
	assert_string_equal(info.imports[1].name, "zlibwapi.dll");
	assert_string_equal(info.imports[2].name, "cublas64_12.dll");
	assert_true(info.imports[2].delay_load);
	assert_true(info.has_version);
	assert_int_equal(info.file_version[0], 9);
	assert_int_equal(info.file_version[1], 19);
	assert_int_equal(info.file_version[2], 0);
	assert_int_equal(info.file_version[3], 56);
	pe_info_free(&info);
}

static void pe32_and_old_delay_tables(void **state)
{
	struct pe_info info;
	char why[256];
	(void)state;
	build();
	/* the same layout as PE32: image base and directories move */
	put16(OPT_AT, 0x10b);
	put32(OPT_AT + 28, 0x10000000u);
	put32(OPT_AT + 92, 16);
	memmove(img + OPT_AT + 96, img + DIRS_AT, 16 * 8);
	put16(68, 0x014c);
	/* a Visual C++ 6 delay table: addresses, not RVAs */
	put32(raw(DELAY), 0);
	put32(raw(DELAY) + 4, 0x10000000u + 0x1140);
	assert_int_equal(parse(sizeof(img), &info, why), 0);
	assert_int_equal(info.machine, PE_MACHINE_I386);
	assert_int_equal(info.import_count, 3);
	assert_string_equal(info.imports[2].name, "cublas64_12.dll");
	pe_info_free(&info);
}

static void every_truncation_is_refused(void **state)
{
	struct pe_info info;
	char why[256];
	(void)state;
	build();
	for (size_t n = 0; n < sizeof(img); n++) {
		assert_int_equal(parse(n, &info, why), -1);
		assert_null(strchr(why, '\n'));
	}
}

static void corruptions_are_refused(void **state)
{
	(void)state;
	build();
	img[0] = 'X'; expect_refused("no MZ");
	put32(60, 0xfffffff0u); expect_refused("beyond the end");
	img[65] = 'X'; expect_refused("no PE signature");
	put16(70, 97); expect_refused("97 sections");
	put16(84, 40); expect_refused("too short");
	put16(OPT_AT, 0x999); expect_refused("magic");
	put32(SECTIONS_AT + 16, FILE_SIZE); expect_refused("beyond the end of the file");
	put32(raw(IMPORTS) + 12, 0x9000); expect_refused("not inside any section");
	put32(raw(IMPORTS) + 12, 0xfffffff0u); expect_refused("not inside any section");
	memset(img + raw(0x1100), 'A', 300); expect_refused("longer than 255");
	img[raw(0x1100) + 2] = '\n'; expect_refused("not printable");
	img[raw(0x1100)] = 0; expect_refused("empty");
	/* a delay table whose name address lies below the image base */
	put32(raw(DELAY), 0); expect_refused("below the image base");
	/* imports that never end: the table runs to the end of the section */
	memset(img + raw(IMPORTS), 0x11, 0x100);
	put32(DIRS_AT + 8, 0x1000); expect_refused("");
	/* a resource directory that points at itself */
	resource_dir(0x18, 1, 0x80000018u); expect_refused("back up the tree");
	resource_dir(0x30, 0x409, 0x80000030u); expect_refused("back up the tree");
	/* a version resource that is not one */
	put16(raw(VERSION) + 6, 'X'); expect_refused("VS_VERSION_INFO");
	put32(raw(VERSION) + 40, 0); expect_refused("VS_FIXEDFILEINFO");
	put32(raw(RSRC + 0x48) + 4, 10); expect_refused("too short");
	put16(raw(RSRC) + 14, 60000); expect_refused("entries");
}

static void no_version_is_not_an_error(void **state)
{
	struct pe_info info;
	char why[256];
	(void)state;
	build();
	put32(raw(RSRC) + 16, 3); /* RT_ICON instead of RT_VERSION */
	assert_int_equal(parse(sizeof(img), &info, why), 0);
	assert_false(info.has_version);
	pe_info_free(&info);
}

/* The fakes cross-built by make test (mingw-w64 and windres): a real linker's output. Where
 * CUFERRY_BUILD is set (make test, tests/run.sh) they must be there. */
static void reads_the_mingw_fakes(void **state)
{
	const char *b = getenv("CUFERRY_BUILD");
	char path[4096], why[256];
	struct pe_info info;
	(void)state;
	if (!b)
		skip();
	snprintf(path, sizeof(path), "%s/windows/fakes/cudnn64_9.dll", b);
	if (pe_parse_file(path, &info, why, sizeof(why)) != 0)
		fail_msg("%s: %s", path, why);
	assert_int_equal(info.machine, PE_MACHINE_AMD64);
	assert_true(info.is_dll);
	int graph = 0;
	for (size_t i = 0; i < info.import_count; i++)
		graph |= strcmp(info.imports[i].name, "cudnn_graph64_9.dll") == 0;
	assert_true(graph);
	assert_true(info.has_version);
	assert_int_equal(info.file_version[0], 9);
	assert_int_equal(info.file_version[1], 19);
	assert_int_equal(info.file_version[3], 56);
	pe_info_free(&info);
	snprintf(path, sizeof(path), "%s/windows/fakes/absent.dll", b);
	assert_int_equal(pe_parse_file(path, &info, why, sizeof(why)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_a_whole_dll),
		cmocka_unit_test(pe32_and_old_delay_tables),
		cmocka_unit_test(every_truncation_is_refused),
		cmocka_unit_test(corruptions_are_refused),
		cmocka_unit_test(no_version_is_not_an_error),
		cmocka_unit_test(reads_the_mingw_fakes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
