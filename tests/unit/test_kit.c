/* test_kit.c - the kit's choices that a test machine cannot reach end to end: the split size
 * for each file system type, the driver line of every NVIDIA module flavour, the CUDA major a
 * driver supports */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bundler/kit.h"
#include "manifests/compat.h"
#include "unpacker/choose.h"

static void test_split_follows_the_file_system(void **state)
{
	const char *name;
	assert_int_equal(kit_split_for_fs(0x4d44, &name), 4294967295ull); /* vfat, msdos */
	assert_string_equal(name, "FAT");
	assert_int_equal(kit_split_for_fs(0x65735546, &name), 4294967295ull); /* fuseblk */
	assert_int_equal(kit_split_for_fs(0x2011bab0, &name), 0);              /* exfat */
	assert_string_equal(name, "exFAT");
	assert_int_equal(kit_split_for_fs(0x5346544e, &name), 0);              /* ntfs */
	assert_int_equal(kit_split_for_fs(0xef53, &name), 0);                  /* ext4 */
	assert_int_equal(kit_split_for_fs((long)0xffffffff00004d44ll, &name), 4294967295ull);
}

static void test_driver_line(void **state)
{
	char v[32];
	assert_int_equal(choose_parse_driver("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  "
					     "Sun Jul 27 07:09:14 UTC 2025\nGCC version: gcc 12.2\n",
					     v, sizeof(v)), 0);
	assert_string_equal(v, "580.65.06");
	assert_int_equal(choose_parse_driver("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
					     "550.54.15  Release Build  (dvs-builder@U16)\n", v, sizeof(v)), 0);
	assert_string_equal(v, "550.54.15");
	assert_int_equal(choose_parse_driver("NVRM version: NVIDIA UNIX aarch64 Kernel Module  570.86.10  "
					     "Wed Jan 22\n", v, sizeof(v)), 0);
	assert_string_equal(v, "570.86.10");
	/* Only the first line counts; no version there is no driver. */
	assert_int_equal(choose_parse_driver("NVRM version: unknown\nGCC version: gcc 12.2.0\n", v,
					     sizeof(v)), -1);
	assert_int_equal(choose_parse_driver("", v, sizeof(v)), -1);
}

static void test_cuda_major_of_a_driver(void **state)
{
	assert_int_equal(compat_cuda_major_for_driver("580.65.06", "linux-x86_64"), 13);
	assert_int_equal(compat_cuda_major_for_driver("590.44.01", "linux-sbsa"), 13);
	assert_int_equal(compat_cuda_major_for_driver("580.65.05", "linux-x86_64"), 12);
	assert_int_equal(compat_cuda_major_for_driver("525.60.13", "linux-x86_64"), 12);
	assert_int_equal(compat_cuda_major_for_driver("470.82.01", "linux-x86_64"), 11);
	assert_int_equal(compat_cuda_major_for_driver("390.157", "linux-x86_64"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_follows_the_file_system),
		cmocka_unit_test(test_driver_line),
		cmocka_unit_test(test_cuda_major_of_a_driver),
	};
	return cmocka_run_group_tests_name("kit", tests, NULL, NULL);
}
