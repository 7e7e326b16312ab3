/* test_ldconfig.c - reading ld.so.conf as the loader and ldconfig see it (doctor and validation
 * use it): each directory once (ldconfig_dirs), every occurrence with its file
 * (platform_lib_config_dirs) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "common/platform.h"
#include "unpacker/validate/ldconfig.h"

/* ---- ld.so.conf ---- */

struct dirs {
	char text[4096];
};

static void collect_dir(const char *dir, void *ctx)
{
	struct dirs *d = ctx;
	size_t used = strlen(d->text);
	snprintf(d->text + used, sizeof(d->text) - used, "%s ", dir);
}

static void collect_entry(const char *dir, const char *conf, void *ctx)
{
	struct dirs *d = ctx;
	size_t used = strlen(d->text);
	snprintf(d->text + used, sizeof(d->text) - used, "%s<%s ", dir, strrchr(conf, '/') + 1);
}

static char *make_root(void)
{
	char tmpl[] = "/tmp/cuferry-test-env-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static void put(const char *root, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", root, name), *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(io_mkdirs(dir, 0755), 0);
	assert_int_equal(io_write_file_atomic(path, text, strlen(text), 0644), 0);
	free(dir);
	free(path);
}

/* The names NVIDIA's packages and tools write, and ours: glibc's ldconfig reads them in byte
 * order (it keeps the C collation for this glob), where '-' < '0' < 'Z' < '_' < 'c'. A locale
 * sort (en_US: punctuation ignored) would put 000_cuda.conf first. */
static void test_conf_files_in_ldconfig_byte_order(void **state)
{
	(void)state;
	char *root = make_root();
	put(root, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
	put(root, "etc/ld.so.conf.d/988_cuda-12.conf", "/d988\n");
	put(root, "etc/ld.so.conf.d/000_cuda.conf", "/d000\n");
	put(root, "etc/ld.so.conf.d/00-nvcr-2134569872.conf", "/nvcr\n");
	put(root, "etc/ld.so.conf.d/00-cuferry-cudnn.conf", "/opt/cudnn/current/lib\n");
	put(root, "etc/ld.so.conf.d/cuda.conf", "/dcuda\n");
	put(root, "etc/ld.so.conf.d/Zed.conf", "/dZed\n");
	put(root, "etc/ld.so.conf.d/cuferry-cudnn.conf", "/legacy\n");
	put(root, "etc/ld.so.conf.d/notes.txt", "/not-a-conf-file\n");
	struct dirs d = { "" };
	ldconfig_dirs(root, collect_dir, &d);
	assert_string_equal(d.text, "/opt/cudnn/current/lib /nvcr /d000 /d988 /dZed /dcuda /legacy ");
	io_rmtree(root);
	free(root);
}

/* ldconfig's parse_conf: '#' ends a line, blank and hwcap lines are skipped, trailing '/' and
 * blanks go, a relative include is relative to the including file, a directory given twice is
 * taken at its first place (entries still name every file that lists it). */
static void test_conf_syntax_like_ldconfig(void **state)
{
	(void)state;
	char *root = make_root();
	put(root, "etc/ld.so.conf", "# comment\n\n  /first/ # trailing\nhwcap 0 nosegneg\n"
	    "include ld.so.conf.d/*.conf other/x.conf\n/last\n");
	put(root, "etc/ld.so.conf.d/a.conf", "/a\n/first\n");
	put(root, "etc/other/x.conf", "/x\t \n");
	struct dirs d = { "" }, e = { "" };
	ldconfig_dirs(root, collect_dir, &d);
	assert_string_equal(d.text, "/first /a /x /last ");
	platform_lib_config_dirs(root, collect_entry, &e);
	assert_string_equal(e.text, "/first<ld.so.conf /a<a.conf /first<a.conf /x<x.conf /last<ld.so.conf ");
	io_rmtree(root);
	free(root);
}

/* An image whose ld.so.conf.d is a link absolute inside it: read there, not on the host; an
 * include loop ends. Without ld.so.conf, ld.so.conf.d is read as if included. */
static void test_conf_links_stay_in_the_root(void **state)
{
	(void)state;
	char *root = make_root(), *link = NULL;
	put(root, "usr/lib/ld.so.conf.d/a.conf", "/in-the-image\ninclude /etc/ld.so.conf.d/*.conf\n");
	link = xasprintf("%s/etc", root);
	assert_int_equal(io_mkdirs(link, 0755), 0);
	free(link);
	link = xasprintf("%s/etc/ld.so.conf.d", root);
	assert_int_equal(symlink("/usr/lib/ld.so.conf.d", link), 0);
	struct dirs d = { "" };
	ldconfig_dirs(root, collect_dir, &d);
	assert_string_equal(d.text, "/in-the-image ");
	free(link);
	io_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_files_in_ldconfig_byte_order),
		cmocka_unit_test(test_conf_syntax_like_ldconfig),
		cmocka_unit_test(test_conf_links_stay_in_the_root),
	};
	return cmocka_run_group_tests_name("env", tests, NULL, NULL);
}
