/* test_platform_win.c - common/platform_win.c under Wine: the no-follow tree (names Windows
 * would misread, existing entries, no links), the lock, free space, the ACL check, libraries
 * loaded by full path with their imports from their own directory, and child processes (exit
 * code, captured output, exactly the given environment, a crash, the deadline). The program
 * is also its own child: test_platform_win.exe --child WHAT. Scratch files go under
 * %CUFERRY_WIN_SCRATCH% (else the current directory); the fake DLLs come from
 * %CUFERRY_WIN_FAKES% (tests/e2e/test_windows_unit.sh sets both). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <aclapi.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "common/platform.h"
#include "common/platform_win.h"

static char scratch[4096];

static void in_scratch(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s\\%s", scratch, name);
}

static void tree_writes_and_refuses(void **state)
{
	char dir[4096];
	(void)state;
	in_scratch(dir, sizeof(dir), ".staging-XXXXXX");
	assert_int_equal(platform_private_dir(dir), 0);
	assert_null(strstr(dir, "XXXXXX"));
	int tree = platform_tree_open(dir);
	assert_true(tree >= 0);
	int fd = platform_tree_create_file(tree, "bin/x64/cudnn64_9.dll");
	assert_true(fd >= 0);
	assert_int_equal(_write(fd, "MZ", 2), 2);
	assert_int_equal(platform_file_finish(fd, 0644), 0);
	/* the name is taken: EEXIST, the file untouched */
	errno = 0;
	assert_int_equal(platform_tree_create_file(tree, "bin/x64/cudnn64_9.dll"), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(platform_tree_mkdir(tree, "include"), 0);
	assert_int_equal(platform_tree_mkdir(tree, "include"), -1);
	assert_int_equal(errno, EEXIST);
	/* names Windows would read as something else */
	static const char *const bad[] = { "../escape.dll", "bin/../../x", "C:/x", "bin/a:stream",
					   "bin\\x", "bin/trailing.", "bin/trailing ", "", "bin//x",
					   "./x", NULL };
	for (size_t i = 0; bad[i]; i++) {
		errno = 0;
		assert_int_equal(platform_tree_create_file(tree, bad[i]), -1);
		assert_int_equal(errno, EINVAL);
	}
	/* no links on Windows: a clear errno, nothing created */
	errno = 0;
	assert_int_equal(platform_tree_symlink(tree, "lib/x", "y"), -1);
	assert_int_equal(errno, ENOTSUP);
	errno = 0;
	assert_int_equal(platform_switch_link("C:\\x\\current", "y"), -1);
	assert_int_equal(errno, ENOTSUP);
	const char *name = NULL;
	int parent = platform_tree_open_parent(tree, "lib/x64/cudnn.lib", &name);
	assert_true(parent >= 0);
	assert_string_equal(name, "cudnn.lib");
	platform_tree_close(parent);
	assert_int_equal(platform_tree_commit(tree), 0);
	platform_tree_close(tree);
	/* what was written is there, byte for byte */
	char path[4200], buf[8] = "";
	snprintf(path, sizeof(path), "%s\\bin\\x64\\cudnn64_9.dll", dir);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf), f), 2);
	fclose(f);
	assert_memory_equal(buf, "MZ", 2);
}

/* A directory link planted in a tree (tests/e2e/test_windows_unit.sh makes planted\bin a
 * Unix symbolic link to a directory outside, which Wine shows as a reparse point): never
 * followed, nothing written through it. */
static void planted_link_refused(void **state)
{
	const char *planted = getenv("CUFERRY_WIN_PLANTED");
	char path[4096];
	(void)state;
	if (!planted)
		fail_msg("CUFERRY_WIN_PLANTED is not set (tests/e2e/test_windows_unit.sh sets it)");
	int tree = platform_tree_open(planted);
	assert_true(tree >= 0);
	errno = 0;
	assert_int_equal(platform_tree_create_file(tree, "bin/cudnn64_9.dll"), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(platform_tree_mkdir(tree, "bin/x64"), -1);
	assert_int_equal(errno, ELOOP);
	const char *name;
	assert_int_equal(platform_tree_open_parent(tree, "bin/x64/a.dll", &name), -1);
	platform_tree_close(tree);
	snprintf(path, sizeof(path), "%s\\bin", planted);
	errno = 0;
	assert_int_equal(platform_tree_open(path), -1);
	assert_int_equal(errno, ELOOP);
}

static void lock_and_space(void **state)
{
	char path[4096];
	int a = -1, b = -1;
	uint64_t n = 0;
	(void)state;
	in_scratch(path, sizeof(path), "install.lock");
	assert_int_equal(platform_lock(path, &a), 0);
	assert_int_equal(platform_lock(path, &b), 1); /* busy, not an error */
	platform_unlock(a);
	assert_int_equal(platform_lock(path, &b), 0);
	platform_unlock(b);
	assert_int_equal(platform_free_bytes(scratch, &n), 0);
	assert_true(n > 0);
	assert_int_equal(platform_free_inodes(scratch, &n), 0);
	assert_true(n == UINT64_MAX);
	in_scratch(path, sizeof(path), "no-such-dir\\deeper");
	errno = 0;
	assert_int_equal(platform_free_bytes(path, &n), -1);
	assert_int_equal(errno, ENOENT);
}

static int admin_only(const wchar_t *sddl)
{
	PSECURITY_DESCRIPTOR sd;
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, NULL))
		fail_msg("bad SDDL in the test: %ls", sddl);
	int rc = platform_win_admin_only(sd);
	LocalFree(sd);
	return rc;
}

/* The rule on descriptors made here (Wine does not keep a file's owner or DACL: every file
 * reads back as the user's, so what the rule says of real files is not shown here). */
static void admin_owned_acl(void **state)
{
	char path[4096];
	(void)state;
	/* Administrators own it, only Administrators and SYSTEM may write: trusted */
	assert_int_equal(admin_only(L"O:BAD:P(A;;FA;;;BA)(A;;FA;;;SY)(A;;FR;;;BU)"), 0);
	assert_int_equal(admin_only(L"O:SYD:(A;OICI;FA;;;SY)(A;OICI;0x1200a9;;;WD)"), 0);
	/* %ProgramFiles% as Windows ships it: owned by TrustedInstaller */
	assert_int_equal(admin_only(L"O:S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
				    L"D:P(A;;FA;;;S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464)"
				    L"(A;;0x1301bf;;;SY)(A;;0x1301bf;;;BA)(A;;0x1200a9;;;BU)"), 0);
	/* Users may add files, Everyone may write, a user may change the DACL: refused */
	assert_int_equal(admin_only(L"O:BAD:P(A;;FA;;;BA)(A;;FA;;;SY)(A;;0x100116;;;BU)"), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(admin_only(L"O:BAD:P(A;;FA;;;BA)(A;;FW;;;WD)"), -1);
	assert_int_equal(admin_only(L"O:BAD:(A;;WD;;;AU)"), -1);
	assert_int_equal(admin_only(L"O:BAD:(A;;GA;;;BU)"), -1);
	/* an inherit-only entry is for what is created below; a deny entry takes nothing away */
	assert_int_equal(admin_only(L"O:BAD:P(A;;FA;;;BA)(A;OICIIO;FA;;;CO)(D;;FA;;;WD)"), 0);
	/* owned by a user, or no DACL at all (everyone may do anything): refused */
	assert_int_equal(admin_only(L"O:BUD:P(A;;FA;;;BA)"), -1);
	assert_int_equal(admin_only(L"O:S-1-5-21-1-2-3-1000D:P(A;;FA;;;BA)"), -1);
	assert_int_equal(admin_only(L"O:BA"), -1);
	/* a real file here: Wine says the user owns it, so it is refused; a missing one too */
	in_scratch(path, sizeof(path), "trusted-keys");
	CreateDirectoryA(path, NULL);
	assert_int_equal(platform_is_admin_owned(path), -1);
	in_scratch(path, sizeof(path), "absent");
	errno = 0;
	assert_int_equal(platform_is_admin_owned(path), -1);
	assert_int_equal(errno, ENOENT);
}

static const char *fakes(void)
{
	const char *f = getenv("CUFERRY_WIN_FAKES");
	if (!f)
		fail_msg("CUFERRY_WIN_FAKES is not set (tests/e2e/test_windows_unit.sh sets it)");
	return f;
}

struct seen {
	const char *name;
	int found;
};

static void note_lib(const char *path, void *ctx)
{
	struct seen *s = ctx;
	if (strstr(path, s->name))
		s->found = 1;
}

static void libraries(void **state)
{
	char path[4096], got[4096];
	(void)state;
	/* by full path, where its import is missing: it does not load (first: once a DLL of
	 * that name is loaded, Windows uses it for every import of the name) */
	snprintf(path, sizeof(path), "%s\\alone\\cudnn64_9.dll", scratch);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s\\alone", scratch);
	CreateDirectoryA(dir, NULL);
	char from[4096];
	snprintf(from, sizeof(from), "%s\\cudnn64_9.dll", fakes());
	assert_true(CopyFileA(from, path, FALSE));
	assert_null(platform_lib_open(path, PLATFORM_LIB_NOW));
	snprintf(path, sizeof(path), "%s\\cudnn64_9.dll", fakes());
	void *lib = platform_lib_open(path, PLATFORM_LIB_NOW);
	if (!lib)
		fail_msg("%s", platform_lib_error());
	size_t (*version)(void) = (size_t(*)(void))(void (*)(void))platform_lib_symbol(lib, "cudnnGetVersion");
	assert_non_null(version);
	assert_int_equal(version(), 91900);
	assert_null(platform_lib_symbol(lib, "cudnnNoSuchCall"));
	assert_int_equal(platform_lib_path(lib, got, sizeof(got)), 0);
	assert_non_null(strstr(got, "cudnn64_9.dll"));
	assert_null(strstr(got, "\\\\?\\"));
	/* its sub-library came along, from its own directory */
	struct seen graph = { "cudnn_graph64_9.dll", 0 };
	platform_loaded_libs(note_lib, &graph);
	assert_true(graph.found);
	/* by bare name, where nothing provides it: NULL and a reason */
	assert_null(platform_lib_open("cudnn64_77.dll", PLATFORM_LIB_NOW));
	assert_non_null(strstr(platform_lib_error(), "cudnn64_77.dll"));
	/* a watch sees a library that comes and goes */
	struct platform_lib_watch *w = platform_lib_watch_start("nvcuda.dll");
	snprintf(path, sizeof(path), "%s\\nvcuda.dll", fakes());
	void *cuda = platform_lib_open(path, PLATFORM_LIB_LAZY);
	assert_non_null(cuda);
	FreeLibrary((HMODULE)cuda);
	assert_int_equal(platform_lib_watch_end(w, got, sizeof(got)), 0);
	assert_non_null(strstr(got, "nvcuda.dll"));
}

static int run_self(const char *what, enum platform_capture capture, int timeout,
		    struct platform_child *c, char *const envp[])
{
	const char *self = platform_self_path();
	assert_non_null(self);
	char *argv[] = { (char *)self, "--child", (char *)what, "with \"quotes\" and \\", NULL };
	return platform_run(self, argv, envp, capture, timeout, c);
}

static void children(void **state)
{
	struct platform_child c;
	char root[300];
	snprintf(root, sizeof(root), "SystemRoot=%s", getenv("SystemRoot") ? getenv("SystemRoot") : "C:\\windows");
	char *envp[] = { root, "CUFERRY_ONLY=this one", NULL };
	(void)state;
	assert_int_equal(run_self("exit7", PLATFORM_CAPTURE_NONE, 0, &c, envp), 0);
	assert_true(c.exited);
	assert_int_equal(c.exit_code, 7);
	assert_int_equal(run_self("echo", PLATFORM_CAPTURE_STDOUT, 60, &c, envp), 0);
	assert_true(c.exited);
	assert_int_equal(c.exit_code, 0);
	assert_non_null(c.output);
	/* the arguments arrive as given, the environment is exactly envp */
	assert_string_equal(c.output, "arg=with \"quotes\" and \\|only=this one|path=(none)\n");
	free(c.output);
	assert_int_equal(run_self("both", PLATFORM_CAPTURE_ALL, 60, &c, envp), 0);
	assert_non_null(c.output);
	assert_non_null(strstr(c.output, "to stdout"));
	assert_non_null(strstr(c.output, "to stderr"));
	free(c.output);
	assert_int_equal(run_self("crash", PLATFORM_CAPTURE_STDOUT, 60, &c, envp), 0);
	assert_false(c.exited);
	assert_false(c.timed_out);
	assert_non_null(strstr(c.crash, "0xC0000005"));
	free(c.output);
	assert_int_equal(run_self("hang", PLATFORM_CAPTURE_STDOUT, 1, &c, envp), 0);
	assert_true(c.timed_out);
	assert_false(c.exited);
	free(c.output);
	char *argv[] = { "C:\\no\\such.exe", NULL };
	errno = 0;
	assert_int_equal(platform_run("C:\\no\\such.exe", argv, envp, PLATFORM_CAPTURE_NONE, 0, &c), -1);
	assert_int_equal(errno, ENOENT);
}

static void the_process(void **state)
{
	(void)state;
	assert_string_equal(platform_name(), "windows-x86_64");
	assert_true(platform_cpu_count() >= 1);
	assert_int_equal(platform_process_id(), (long)GetCurrentProcessId());
	assert_non_null(strstr(platform_self_path(), "test_platform_win.exe"));
	platform_is_admin(); /* either answer is right; it must not fail */
}

static int *volatile nowhere; /* NULL, and the compiler may not know it */

static int child(const char *what, const char *arg)
{
	if (strcmp(what, "exit7") == 0)
		return 7;
	_setmode(_fileno(stdout), _O_BINARY); /* bytes as written, no \r added */
	if (strcmp(what, "echo") == 0) {
		const char *only = getenv("CUFERRY_ONLY"), *path = getenv("PATH");
		printf("arg=%s|only=%s|path=%s\n", arg, only ? only : "(none)", path ? path : "(none)");
		return 0;
	}
	if (strcmp(what, "both") == 0) {
		printf("to stdout\n");
		fflush(stdout);
		fprintf(stderr, "to stderr\n");
		return 0;
	}
	if (strcmp(what, "crash") == 0)
		return *nowhere;
	if (strcmp(what, "hang") == 0)
		for (;;)
			Sleep(1000);
	return 99;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--child") == 0)
		return child(argv[2], argv[3]);
	const char *s = getenv("CUFERRY_WIN_SCRATCH");
	snprintf(scratch, sizeof(scratch), "%s", s ? s : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_process),
		cmocka_unit_test(tree_writes_and_refuses),
		cmocka_unit_test(planted_link_refused),
		cmocka_unit_test(lock_and_space),
		cmocka_unit_test(admin_owned_acl),
		cmocka_unit_test(libraries),
		cmocka_unit_test(children),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
