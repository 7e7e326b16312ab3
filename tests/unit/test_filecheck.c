/* test_filecheck.c - an install's entries against its manifest (unpacker/validate/filecheck.c,
 * what validation's step 1 and inventory share): each state, by size alone and with SHA-256 */
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
#include "common/sha256.h"
#include "manifests/manifest.h"
#include "unpacker/validate/filecheck.h"

/* A tree with three files and a link, and the manifest that lists them as first written. */
struct tree {
	char dir[64];
	struct manifest *m;
};

static void put(struct tree *t, const char *name, const char *text, int list)
{
	char *path = xasprintf("%s/%s", t->dir, name);
	assert_int_equal(io_write_file_atomic(path, text, strlen(text), 0644), 0);
	free(path);
	if (list) {
		uint8_t d[32];
		sha256_buf(text, strlen(text), d);
		manifest_add_file(t->m, name, strlen(text), 0644, d);
	}
}

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/cuferry-filecheck-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->m = manifest_new();
	put(t, "same", "0123456789", 1);
	put(t, "flipped", "abcdefghij", 1);
	put(t, "longer", "short", 1);
	put(t, "gone", "x", 1);
	char *link = xasprintf("%s/link", t->dir);
	assert_int_equal(symlink("same", link), 0);
	free(link);
	manifest_add_symlink(t->m, "link", "same");
	manifest_sort_files(t->m);
	/* What changed after the install: same size other bytes, another size, removed, relinked. */
	put(t, "flipped", "abcdefghiX", 0);
	put(t, "longer", "shorter", 0);
	char *p = xasprintf("%s/gone", t->dir);
	unlink(p);
	free(p);
	p = xasprintf("%s/link", t->dir);
	unlink(p);
	assert_int_equal(symlink("flipped", p), 0);
	free(p);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;
	io_rmtree(t->dir);
	manifest_free(t->m);
	free(t);
	return 0;
}

static enum filecheck_state state_of(const struct tree *t, const struct filecheck_entry *c,
				     const char *name)
{
	for (size_t i = 0; i < t->m->nfiles; i++)
		if (strcmp(t->m->files[i].path, name) == 0)
			return c[i].state;
	fail_msg("%s is not listed", name);
	return FILECHECK_OK;
}

/* The run's states: only a change of the same size (flipped) depends on hashing. */
static struct filecheck_entry *check(const struct tree *t, int hash)
{
	struct filecheck_entry *c;
	assert_int_equal(filecheck_run(t->dir, t->m, hash, &c), 0);
	assert_int_equal(state_of(t, c, "same"), FILECHECK_OK);
	assert_int_equal(state_of(t, c, "flipped"), hash ? FILECHECK_SHA256 : FILECHECK_OK);
	assert_int_equal(state_of(t, c, "longer"), FILECHECK_SIZE);
	assert_int_equal(state_of(t, c, "gone"), FILECHECK_MISSING);
	assert_int_equal(state_of(t, c, "link"), FILECHECK_LINK);
	return c;
}

/* Without hashing no byte is read: a change of the same size goes unseen. */
static void test_sizes_only(void **state)
{
	free(check(*state, 0));
}

static void test_with_sha256(void **state)
{
	struct tree *t = *state;
	struct filecheck_entry *c = check(t, 1);
	for (size_t i = 0; i < t->m->nfiles; i++)
		if (strcmp(t->m->files[i].path, "flipped") == 0)
			assert_non_null(strstr(c[i].why, "flipped: SHA-256 differs from the manifest"));
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sizes_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_with_sha256, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
