/* test_elfver.c - DT_SONAME as ldconfig reads it (issue 23 A11), from 32- and 64-bit objects
 * built here byte by byte, on every truncation and on corruptions of every byte; and the
 * soname rule of manifests/shadow.c over files: the C library's and the base libraries'
 * sonames refused whatever the file is called, cuDNN's passed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/elfver.h"
#include "common/platform.h"
#include "manifests/shadow.h"

#define DYN_AT 0x100
#define STR_AT 0x200
#define VADDR 0x10000

static unsigned char img[0x400];

static void put(size_t at, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		img[at + i] = (unsigned char)(v >> (8 * i));
}

/* An ELF shared object with one PT_LOAD (the whole file at VADDR) and a PT_DYNAMIC of
 * DT_STRTAB, then tag (DT_SONAME = 14) with value 1, then DT_NULL; the string table holds
 * "\0" name "\0". Returns the file's length, which ends right after the name. */
static size_t build(int wide, uint64_t tag, const char *name)
{
	size_t ph = wide ? 64 : 52, phent = wide ? 56 : 32, w = wide ? 8 : 4;
	size_t len = STR_AT + 1 + strlen(name) + 1;
	memset(img, 0, sizeof(img));
	memcpy(img, "\177ELF", 4);
	img[4] = wide ? 2 : 1;
	img[5] = img[6] = 1;
	put(16, 3, 2); /* ET_DYN */
	put(wide ? 32 : 28, ph, (int)w);
	put(wide ? 54 : 42, phent, 2);
	put(wide ? 56 : 44, 2, 2);
	put(ph, 1, 4); /* PT_LOAD */
	put(ph + (wide ? 8 : 4), 0, (int)w);
	put(ph + (wide ? 16 : 8), VADDR, (int)w);
	put(ph + (wide ? 32 : 16), len, (int)w);
	put(ph + phent, 2, 4); /* PT_DYNAMIC */
	put(ph + phent + (wide ? 8 : 4), DYN_AT, (int)w);
	put(ph + phent + (wide ? 32 : 16), 6 * w, (int)w);
	put(DYN_AT, 5, (int)w);
	put(DYN_AT + w, VADDR + STR_AT, (int)w);
	put(DYN_AT + 2 * w, tag, (int)w);
	put(DYN_AT + 3 * w, 1, (int)w);
	memcpy(img + STR_AT + 1, name, strlen(name) + 1);
	return len;
}

static void reads_the_soname(void **state)
{
	char out[64];
	for (int wide = 0; wide < 2; wide++) {
		size_t len = build(wide, 14, "libz.so.1");
		assert_int_equal(elfver_soname_mem(img, len, out, sizeof(out)), 0);
		assert_string_equal(out, "libz.so.1");
	}
	/* No soname (DT_NEEDED in its place), no ELF, nothing at all: none, not an error. */
	size_t len = build(1, 1, "libz.so.1");
	assert_int_equal(elfver_soname_mem(img, len, out, sizeof(out)), 1);
	assert_int_equal(elfver_soname_mem("#define CUDNN_MAJOR 9\n", 22, out, sizeof(out)), 1);
	assert_int_equal(elfver_soname_mem("", 0, out, sizeof(out)), 1);
	/* A name longer than the caller's buffer is not cut short into another name. */
	len = build(1, 14, "libc.so.6.and.more");
	assert_int_equal(elfver_soname_mem(img, len, out, 10), -1);
	assert_string_equal(out, "");
}

static void hostile_headers(void **state)
{
	char out[64];
	size_t len = build(1, 14, "libz.so.1");
	put(56, 0xffff, 2); /* e_phnum */
	assert_int_equal(elfver_soname_mem(img, len, out, sizeof(out)), -1);
	len = build(1, 14, "libz.so.1");
	put(DYN_AT + 24, 0xfffffffffffffff0ull, 8); /* the soname's index wraps */
	assert_int_equal(elfver_soname_mem(img, len, out, sizeof(out)), -1);
	len = build(1, 14, "libz.so.1");
	put(DYN_AT + 8, 0x500, 8); /* DT_STRTAB in no PT_LOAD */
	assert_int_equal(elfver_soname_mem(img, len, out, sizeof(out)), -1);
	len = build(1, 14, "libz.so.1");
	img[5] = 2; /* big-endian */
	assert_int_equal(elfver_soname_mem(img, len, out, sizeof(out)), -1);
}

/* Cut anywhere, the name is never found; changed anywhere, the reader stays inside the
 * buffer (the sanitizer build checks that) and what it returns is a terminated string. */
static void every_truncation_and_corruption(void **state)
{
	char out[64];
	for (int wide = 0; wide < 2; wide++) {
		size_t len = build(wide, 14, "libz.so.1");
		for (size_t cut = 0; cut < len; cut++)
			assert_int_not_equal(elfver_soname_mem(img, cut, out, sizeof(out)), 0);
		static const unsigned char values[] = { 0x00, 0xff, 0x80, 0x7f, 0x01 };
		for (size_t at = 0; at < len; at++)
			for (size_t v = 0; v < sizeof(values); v++) {
				build(wide, 14, "libz.so.1");
				img[at] = values[v];
				unsigned char *copy = malloc(len);
				memcpy(copy, img, len);
				if (elfver_soname_mem(copy, len, out, sizeof(out)) == 0)
					assert_true(strlen(out) < sizeof(out));
				free(copy);
			}
	}
}

/* shadow_check_soname over a file holding img[0..len): its verdict, and the reason. */
static int judge(size_t len, char *why, size_t size)
{
	char path[] = "/tmp/cuferry-test-elfver-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, img, len), (ssize_t)len);
	close(fd);
	fd = platform_open(path, PLATFORM_OPEN_READ, 0);
	assert_true(fd >= 0);
	why[0] = '\0';
	int rc = shadow_check_soname(fd, why, size);
	platform_close(fd);
	unlink(path);
	return rc;
}

static void sonames_on_the_lists(void **state)
{
	static const char *const refused[] = { "libz.so.1", "libc.so.6", "libdl.so.2",
		"ld-linux-x86-64.so.2", "libtinfo.so.6", "libpam.so.0", "libnss_files.so.2",
		"libcuda.so.1" };
	static const char *const passed[] = { "libcudnn.so.9", "libcudnn_ops.so.9",
		"libcublas.so.13", "libnvrtc.so.13", "libzz.so.1", "libmpi.so.40" };
	char why[256];
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(judge(build(1, 14, refused[i]), why, sizeof(why)), -1);
		assert_non_null(strstr(why, refused[i]));
	}
	for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++)
		assert_int_equal(judge(build(1, 14, passed[i]), why, sizeof(why)), 0);
	assert_int_equal(judge(build(0, 14, "libc.so.6"), why, sizeof(why)), -1);
	assert_non_null(strstr(why, "C library"));
	/* Not ELF, or no soname: the name rules alone judge it. Malformed: refused. */
	memcpy(img, "not an ELF file", 15);
	assert_int_equal(judge(15, why, sizeof(why)), 0);
	size_t len = build(1, 14, "libcudnn.so.9");
	assert_int_equal(judge(len - 5, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "malformed"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_the_soname),
		cmocka_unit_test(hostile_headers),
		cmocka_unit_test(every_truncation_and_corruption),
		cmocka_unit_test(sonames_on_the_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
