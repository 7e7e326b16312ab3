/* test_shadow.c - the base-library and C-runtime name rules (manifests/shadow.c,
 * manifests/pathrule.c) by stem: every name a library goes under (libz.so, libz.so.1,
 * libz.so.1.2.13) and the whole libnss_* family refused, other stems that start alike and
 * NVIDIA's libraries passed; and the same rule over the DT_SONAME of shared objects the C
 * compiler builds here (issue 23 follow-up F3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform.h"
#include "manifests/pathrule.h"
#include "manifests/shadow.h"

static const char *const base_refused[] = {
	"libz.so", "libz.so.1", "libz.so.1.2.13", "lib/libz.so.1.2.13", "libssl.so.3",
	"libcrypto.so.3.0", "libcrypto.so", "libcrypto.so.1.1", "liblzma.so.5.4.1", "libzstd.so.1",
	"libzstd.so.1.5.5", "libbz2.so.1.0.8", "libgomp.so.1.0.0", "libtinfo.so", "libpam.so.0.85.1",
	"libcap-ng.so.0.0.0", "libpcre2-8.so.0.11.2", "libcuda.so", "libcuda.so.580.65.06",
	"libnvidia-ml.so.1", "libnss_files.so.2", "libnss_winbind.so.2", "libnss_mymachines.so.2",
	"libnss_extrausers.so.2", "libnss_x.so", "lib/libnss_sss.so.2.0",
};

/* Other stems that start alike, other suffixes, NVIDIA's and MPI's libraries. */
static const char *const base_passed[] = {
	"libzfoo.so.1", "libz.so.backup", "libz.so.1a", "libz.so1", "libz.a", "libz", "libzz.so.1",
	"libssl3.so", "libcryptopp.so.8", "libnss_.so.2", "libnss.so.3", "libnss3.so",
	"libnss_winbind.so.backup", "libnssutil3.so", "libcudnn.so.9", "libcudnn_ops.so.9.19.0",
	"libcublas.so.13", "libcublasLt.so.13.1.0.3", "libnvrtc.so.13", "libnvrtc-builtins.so.13.0",
	"libnccl.so.2", "libnccl.so.2.27.3", "libmpi.so.40", "libcudart.so.13", "libnvidia.so.1",
};

static void base_libraries_by_stem(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(base_refused) / sizeof(base_refused[0]); i++) {
		if (!shadow_is_system_library(base_refused[i]))
			fail_msg("%s passed", base_refused[i]);
	}
	for (size_t i = 0; i < sizeof(base_passed) / sizeof(base_passed[0]); i++) {
		if (shadow_is_system_library(base_passed[i]))
			fail_msg("%s refused", base_passed[i]);
	}
}

static void c_runtime_by_stem(void **state)
{
	(void)state;
	static const char *const refused[] = {
		"libc.so", "libc.so.6", "libpthread.so.0", "libpthread.so.0.1", "libdl.so.2",
		"libm.so.6", "libm.so", "librt.so.1", "libgcc_s.so.1", "libstdc++.so.6",
		"libstdc++.so.6.0.33", "libcrypt.so.1", "libcrypt.so.2", "lib/libresolv.so.2",
		"ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "ld-linux.so.2",
	};
	static const char *const passed[] = {
		"libmpi.so", "libmpi.so.40", "libcudnn.so.9", "libcurl.so.4", "libcrypto.so.3",
		"libc.so.backup", "libcx.so.6", "libm.so.6a", "libdl", "libstdc++fs.so", "ld-linux",
		"ld-linux.so.", "libcublas.so.13", "libnvrtc.so.13",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (!path_is_c_runtime(refused[i]))
			fail_msg("%s passed", refused[i]);
	}
	for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++) {
		if (path_is_c_runtime(passed[i]))
			fail_msg("%s refused", passed[i]);
	}
	/* path_check: the rule applies to the last name, wherever it lies */
	char why[160];
	assert_int_equal(path_check("lib/libc.so", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "libc.so"));
	assert_int_equal(path_check("lib/libpthread.so.0.1", why, sizeof(why)), -1);
	assert_int_equal(path_check("lib/libmpi.so", why, sizeof(why)), 0);
}

/* The one matcher, over a list of its own: stems and a family. */
static void one_matcher(void **state)
{
	(void)state;
	static const char *const stems[] = { "liba", "libfam_*", NULL };
	assert_true(path_names_library("liba.so", stems));
	assert_true(path_names_library("x/y/liba.so.1.2", stems));
	assert_false(path_names_library("liba.so.x", stems));
	assert_false(path_names_library("libab.so", stems));
	assert_false(path_names_library("libfam_", stems));
	assert_false(path_names_library("libfam_.so", stems));
	assert_true(path_names_library("libfam_m.so", stems));
	assert_true(path_names_library("libfam_m.so.so.2", stems));
	assert_true(path_names_library("libfam_a.b.so.2", stems));
	assert_false(path_names_library("libfam_m.sox", stems));
	assert_false(path_names_library("", stems));
}

/* shadow_check_soname on a shared object the C compiler links with -soname NAME (file name
 * innocent): its verdict, the reason in why. */
static int soname_verdict(const char *dir, const char *soname, char *why, size_t size)
{
	char cmd[1024], obj[512];
	snprintf(obj, sizeof(obj), "%s/libinnocent.so.1", dir);
	snprintf(cmd, sizeof(cmd), "echo 'int innocent(void) { return 1; }' > %s/x.c && "
		 "cc -shared -fPIC -Wl,-soname,%s -o %s %s/x.c", dir, soname, obj, dir);
	assert_int_equal(system(cmd), 0);
	int fd = platform_open(obj, PLATFORM_OPEN_READ, 0);
	assert_true(fd >= 0);
	why[0] = '\0';
	int rc = shadow_check_soname(fd, why, size);
	platform_close(fd);
	return rc;
}

static void sonames_of_built_objects(void **state)
{
	(void)state;
	char dir[] = "/tmp/cuferry-test-shadow-XXXXXX", why[256], cmd[128];
	assert_non_null(mkdtemp(dir));
	static const char *const refused[] = { "libz.so.1.2.13", "libnss_winbind.so.2", "libz.so",
					       "libcrypto.so.3.0", "libpthread.so.0.1" };
	static const char *const passed[] = { "libcudnn.so.9", "libzstdx.so.1", "libnss3.so" };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(soname_verdict(dir, refused[i], why, sizeof(why)), -1);
		assert_non_null(strstr(why, refused[i]));
	}
	for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++)
		assert_int_equal(soname_verdict(dir, passed[i], why, sizeof(why)), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(base_libraries_by_stem),
		cmocka_unit_test(c_runtime_by_stem),
		cmocka_unit_test(one_matcher),
		cmocka_unit_test(sonames_of_built_objects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
