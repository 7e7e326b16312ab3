/* test_layout.c - the install layout of DESIGN.md §6, as unpacker/target/layout.c builds it: every
 * path under --root, the names recovery is allowed to remove, and nothing else */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "manifests/product.h"
#include "unpacker/target/layout.h"

static void test_paths_under_root_and_prefix(void **state)
{
	(void)state;
	struct layout l;
	layout_init(&l, "/img", "/opt/cudnn", product_default());
	assert_string_equal(l.root, "/img");
	assert_string_equal(l.prefix_sys, "/opt/cudnn");
	assert_string_equal(l.prefix, "/img/opt/cudnn");
	assert_string_equal(l.meta, "/img/opt/cudnn/.cuferry");
	assert_string_equal(l.state, "/img/opt/cudnn/.cuferry/state.json");
	assert_string_equal(l.state_prev, "/img/opt/cudnn/.cuferry/state.prev.json");
	assert_string_equal(l.journal, "/img/opt/cudnn/.cuferry/journal.json");
	assert_string_equal(l.lock, "/img/opt/cudnn/.cuferry/lock");
	assert_string_equal(l.current, "/img/opt/cudnn/current");
	assert_string_equal(l.env_before, "/img/opt/cudnn/.cuferry/env-before.json");
	assert_string_equal(l.modulefiles, "/img/opt/cudnn/.cuferry/modulefiles");
	/* The environment files sit under the root, not under the prefix. */
	assert_string_equal(l.ldconf, "/img/etc/ld.so.conf.d/00-cuferry-cudnn.conf");
	assert_string_equal(l.ldconf_legacy, "/img/etc/ld.so.conf.d/cuferry-cudnn.conf");
	assert_string_equal(l.profile, "/img/etc/profile.d/cuferry-cudnn.sh");
	char *p = layout_under(&l, "cudnn-9.19.0.56-cuda13");
	assert_string_equal(p, "/img/opt/cudnn/cudnn-9.19.0.56-cuda13");
	free(p);
	p = layout_staging_template(&l);
	assert_string_equal(p, "/img/opt/cudnn/.staging-XXXXXX");
	free(p);
	p = layout_failed_dir(&l, "cudnn-9.19.0.56-cuda13", "20260101T000000Z");
	assert_string_equal(p, "/img/opt/cudnn/.cuferry/failed/cudnn-9.19.0.56-cuda13-20260101T000000Z");
	free(p);
	layout_free(&l);
}

static void test_what_the_system_sees_has_no_root(void **state)
{
	(void)state;
	char *p = layout_current_lib_sys("/opt/cudnn");
	assert_string_equal(p, "/opt/cudnn/current/lib");
	free(p);
	p = layout_current_sys("C:\\cudnn", '\\');
	assert_string_equal(p, "C:\\cudnn\\current");
	free(p);
	p = layout_state_of("/img", "/opt/x");
	assert_string_equal(p, "/img/opt/x/.cuferry/state.json");
	free(p);
	p = layout_user_env("/home/u", product_default());
	assert_string_equal(p, "/home/u/.config/cuferry/cudnn.sh");
	free(p);
	p = layout_install_header("/p/cudnn-1-cuda12");
	assert_string_equal(p, "/p/cudnn-1-cuda12/.cuferry/header.bin");
	free(p);
	p = layout_install_report("/p/cudnn-1-cuda12");
	assert_string_equal(p, "/p/cudnn-1-cuda12/.cuferry/report.json");
	free(p);
}

static void test_default_prefix(void **state)
{
	(void)state;
	char *p = layout_default_prefix("", "/srv/cudnn", product_default());
	assert_string_equal(p, "/srv/cudnn"); /* given: taken as it is */
	free(p);
	p = layout_default_prefix("/img", NULL, product_default());
	assert_string_equal(p, "/opt/cudnn"); /* an image is always the system's prefix */
	free(p);
}

/* Recovery removes only what these say is ours: a look-alike must not pass. */
static void test_names_recovery_may_remove(void **state)
{
	(void)state;
	assert_true(layout_is_staging(".staging-Ab12Cd"));
	assert_false(layout_is_staging("staging-Ab12Cd"));
	assert_false(layout_is_staging(".old-x"));
	char *b = layout_backup_name("cudnn-9.19.0.56-cuda13", 42);
	assert_string_equal(b, ".old-cudnn-9.19.0.56-cuda13-42");
	assert_true(layout_is_backup(b));
	free(b);
	assert_false(layout_is_backup("cudnn-9.19.0.56-cuda13"));
	assert_true(layout_is_meta(".cuferry"));
	assert_false(layout_is_meta(".cuferry2"));
	assert_true(layout_is_current("current"));
	assert_false(layout_is_current("current2"));
	assert_true(layout_is_repair_temp("libcudnn.so.9.cuferry-repair"));
	assert_false(layout_is_repair_temp(".cuferry-repair")); /* a suffix needs a name in front */
	assert_true(layout_is_repair_temp("include.cuferry-aside"));
	assert_false(layout_is_repair_temp(".cuferry-aside"));
	assert_false(layout_is_repair_temp("libcudnn.so.9"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_under_root_and_prefix),
		cmocka_unit_test(test_what_the_system_sees_has_no_root),
		cmocka_unit_test(test_default_prefix),
		cmocka_unit_test(test_names_recovery_may_remove),
	};
	return cmocka_run_group_tests_name("layout", tests, NULL, NULL);
}
