/* test_kit.c - the kit's choices that a test machine cannot reach end to end: the split size
 * for each file system type, the CUDA major a driver supports (the driver line of every NVIDIA
 * module flavour: test_platform's test_driver_version) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bundler/kit.h"
#include "manifests/compat.h"

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
		cmocka_unit_test(test_cuda_major_of_a_driver),
	};
	return cmocka_run_group_tests_name("kit", tests, NULL, NULL);
}
