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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "common/platform.h"
#include "common/platform_win.h"
#include "common/platform_win_internal.h"

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

/* rule(the descriptor an SDDL string describes) */
static int on_sddl(int (*rule)(void *), const wchar_t *sddl)
{
	PSECURITY_DESCRIPTOR sd;
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, NULL))
		fail_msg("bad SDDL in the test: %ls", sddl);
	int rc = rule(sd);
	LocalFree(sd);
	return rc;
}
static int admin_only(const wchar_t *sddl) { return on_sddl(platform_win_admin_only, sddl); }

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

static int admin_guarded(const wchar_t *sddl) { return on_sddl(platform_win_admin_guarded, sddl); }

#define TRUSTED_INSTALLER L"S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"

/* The rule for a directory ABOVE the one written to, on the default descriptors of real
 * Windows directories (Wine has none of them), written as SDDL from icacls' output:
 * - %ProgramData%, Windows 11 (github.com/tox-dev/platformdirs/issues/344): SYSTEM and
 *   Administrators (OI)(CI)(F), CREATOR OWNER (OI)(CI)(IO)(F), Users (OI)(CI)(RX) and
 *   Users (CI)(WD,AD,WEA,WA); owned by SYSTEM;
 * - %ProgramFiles% (its usual icacls listing; owner TrustedInstaller, as
 *   github.com/p0dalirius/smbclient-ng/pull/118 shows): TrustedInstaller (F) and (CI)(IO)(F),
 *   SYSTEM and Administrators (M) and (OI)(CI)(IO)(F), Users and both application package
 *   groups (RX) and (OI)(CI)(IO)(GR,GE), CREATOR OWNER (OI)(CI)(IO)(F);
 * - C:\ on Windows 10 (DISA STIG V-63373, quoted in
 *   github.com/mitre/microsoft-windows-10-stig-baseline/issues/22): Administrators and SYSTEM
 *   (OI)(CI)(F), Users (OI)(CI)(RX), Authenticated Users (OI)(CI)(IO)(M) and (AD) (the
 *   mandatory label is in the SACL, not read here); and on Windows Server 2022
 *   (github.com/moby/buildkit/issues/4731): Users (CI)(AD) and (CI)(IO)(WD), Everyone (RX). */
static void admin_guarded_acl(void **state)
{
	static const wchar_t *const program_data =
		L"O:SYD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICIIO;FA;;;CO)(A;OICI;0x1200a9;;;BU)"
		L"(A;CI;0x116;;;BU)";
	static const wchar_t *const program_files =
		L"O:" TRUSTED_INSTALLER L"D:PAI(A;;FA;;;" TRUSTED_INSTALLER L")(A;CIIO;GA;;;"
		TRUSTED_INSTALLER L")(A;;0x1301bf;;;SY)(A;OICIIO;GA;;;SY)(A;;0x1301bf;;;BA)"
		L"(A;OICIIO;GA;;;BA)(A;;0x1200a9;;;BU)(A;OICIIO;GXGR;;;BU)(A;OICIIO;GA;;;CO)"
		L"(A;;0x1200a9;;;AC)(A;OICIIO;GXGR;;;AC)(A;;0x1200a9;;;S-1-15-2-2)"
		L"(A;OICIIO;GXGR;;;S-1-15-2-2)";
	static const wchar_t *const drive_root =
		L"O:SYD:PAI(A;OICI;FA;;;BA)(A;OICI;FA;;;SY)(A;OICI;0x1200a9;;;BU)"
		L"(A;OICIIO;SDGXGWGR;;;AU)(A;;0x100004;;;AU)";
	static const wchar_t *const server_drive_root =
		L"O:SYD:PAI(A;OICI;FA;;;BA)(A;OICI;FA;;;SY)(A;OICIIO;FA;;;CO)(A;OICI;0x1200a9;;;BU)"
		L"(A;CI;0x4;;;BU)(A;CIIO;0x2;;;BU)(A;;0x1200a9;;;WD)";
	(void)state;
	/* users may create entries there: fine above the prefix, never as the prefix itself */
	assert_int_equal(admin_guarded(program_data), 0);
	assert_int_equal(admin_only(program_data), -1);
	assert_int_equal(admin_guarded(drive_root), 0);
	assert_int_equal(admin_only(drive_root), -1);
	assert_int_equal(admin_guarded(server_drive_root), 0);
	assert_int_equal(admin_only(server_drive_root), -1);
	/* %ProgramFiles% lets nobody else write: both rules pass it */
	assert_int_equal(admin_guarded(program_files), 0);
	assert_int_equal(admin_only(program_files), 0);
	/* Users:(M), Everyone:(DC) (delete child), a user's delete, change the DACL, take
	 * ownership, generic write or all: they could replace or re-permission what is below */
	assert_int_equal(admin_guarded(L"O:SYD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1301bf;;;BU)"), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(admin_guarded(L"O:SYD:P(A;OICI;FA;;;SY)(A;;0x40;;;WD)"), -1);
	assert_int_equal(admin_guarded(L"O:SYD:P(A;OICI;FA;;;SY)(A;;SD;;;BU)"), -1);
	assert_int_equal(admin_guarded(L"O:SYD:P(A;OICI;FA;;;SY)(A;;WD;;;BU)"), -1);
	assert_int_equal(admin_guarded(L"O:SYD:P(A;OICI;FA;;;SY)(A;;WO;;;AU)"), -1);
	assert_int_equal(admin_guarded(L"O:SYD:P(A;OICI;FA;;;SY)(A;;GW;;;BU)"), -1);
	assert_int_equal(admin_guarded(L"O:SYD:P(A;OICI;FA;;;SY)(A;;GA;;;BU)"), -1);
	/* create-only rights, but owned by a user (one who made the directory first): refused;
	 * no owner, or no DACL: refused */
	assert_int_equal(admin_guarded(L"O:S-1-5-21-1-2-3-1000D:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"
				       L"(A;CI;0x116;;;BU)"), -1);
	assert_int_equal(admin_guarded(L"D:P(A;OICI;FA;;;SY)"), -1);
	assert_int_equal(admin_guarded(L"O:SY"), -1);
	/* a real directory here: Wine says the user owns it; a missing one is ENOENT */
	char path[4096];
	in_scratch(path, sizeof(path), "guarded");
	CreateDirectoryA(path, NULL);
	assert_int_equal(platform_is_admin_guarded(path), -1);
	in_scratch(path, sizeof(path), "absent");
	errno = 0;
	assert_int_equal(platform_is_admin_guarded(path), -1);
	assert_int_equal(errno, ENOENT);
}

/* The descriptor's DACL (and owner) as SDDL, into out. */
static void sddl_of(void *sd, wchar_t *out, size_t size)
{
	wchar_t *text;
	if (!ConvertSecurityDescriptorToStringSecurityDescriptorW(
		    sd, SDDL_REVISION_1, OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &text, NULL))
		fail_msg("cannot write the descriptor as SDDL");
	snwprintf(out, size, L"%ls", text);
	LocalFree(text);
}

/* What an Administrator's mkdir gives a directory: protected, Administrators' own, admin-only;
 * Users may read 0755's, not 0700's. Wine does not keep a descriptor (every file reads back
 * as the user's, with a DACL made from its Unix mode), so the directory's own is not shown. */
static void directory_descriptor(void **state)
{
	wchar_t text[512];
	SECURITY_DESCRIPTOR_CONTROL control;
	DWORD revision;
	(void)state;
	void *sd = platform_win_dir_descriptor(0755, 1);
	assert_non_null(sd);
	assert_int_equal(platform_win_admin_only(sd), 0);
	assert_true(GetSecurityDescriptorControl(sd, &control, &revision));
	assert_true(control & SE_DACL_PROTECTED);
	sddl_of(sd, text, 512);
	assert_non_null(wcsstr(text, L"O:BA"));
	assert_non_null(wcsstr(text, L"(A;OICI;0x1200a9;;;BU)"));
	LocalFree(sd);
	sd = platform_win_dir_descriptor(0700, 1);
	assert_non_null(sd);
	assert_int_equal(platform_win_admin_only(sd), 0);
	sddl_of(sd, text, 512);
	assert_null(wcsstr(text, L";BU)"));
	LocalFree(sd);
	/* without the owner (a token that may not name Administrators): the creator's default */
	sd = platform_win_dir_descriptor(0755, 0);
	assert_non_null(sd);
	sddl_of(sd, text, 512);
	assert_null(wcsstr(text, L"O:"));
	LocalFree(sd);
	/* and the directories are made, as an Administrator or not, nested or not */
	char path[4096];
	const char *made[] = { "made-0755\\inner-0700", "made-0755", "made-0777" };
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		in_scratch(path, sizeof(path), made[i]);
		RemoveDirectoryA(path); /* left by an earlier run */
	}
	in_scratch(path, sizeof(path), "made-0755");
	assert_int_equal(platform_mkdir(path, 0755), 0);
	in_scratch(path, sizeof(path), "made-0755\\inner-0700");
	assert_int_equal(platform_mkdir(path, 0700), 0);
	assert_int_equal(platform_mkdir(path, 0700), -1);
	assert_int_equal(errno, EEXIST);
	in_scratch(path, sizeof(path), "made-0777");
	assert_int_equal(platform_mkdir(path, 0777), 0);
	in_scratch(path, sizeof(path), "no-such-dir\\made");
	assert_int_equal(platform_mkdir(path, 0755), -1);
	assert_int_equal(errno, ENOENT);
	print_message("platform_is_admin here: %d\n", platform_is_admin());
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

/* ---- files through handles, metadata, paths ---- */

static void files_and_metadata(void **state)
{
	char path[4096], other[4096], buf[64];
	struct platform_stat st;
	(void)state;
	in_scratch(path, sizeof(path), "handles.txt");
	in_scratch(other, sizeof(other), "handles-other.txt");
	DeleteFileA(path);
	int fd = platform_open(path, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE | PLATFORM_OPEN_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(platform_write(fd, "0123456789\n", 11), 11); /* no \r added */
	assert_int_equal(platform_fsync(fd), 0);
	assert_int_equal(platform_close(fd), 0);
	assert_false(platform_handle_valid(fd));
	errno = 0;
	assert_int_equal(platform_open(path, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE | PLATFORM_OPEN_EXCL, 0644), -1);
	assert_int_equal(errno, EEXIST);
	fd = platform_open(path, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_APPEND, 0);
	assert_true(fd >= 0);
	assert_int_equal(platform_write(fd, "ab", 2), 2);
	platform_close(fd);
	fd = platform_open(path, PLATFORM_OPEN_READ, 0);
	assert_true(fd >= 0);
	assert_true(platform_handle_valid(fd));
	assert_false(platform_is_terminal(fd));
	/* pread leaves the position where it was */
	assert_int_equal(platform_pread(fd, buf, 3, 11), 2);
	assert_memory_equal(buf, "ab", 2);
	assert_int_equal(platform_read(fd, buf, 4), 4);
	assert_memory_equal(buf, "0123", 4);
	assert_int_equal(platform_pread(fd, buf, 4, 100), 0);
	assert_int_equal(platform_fstat(fd, &st), 0);
	assert_int_equal(st.type, PLATFORM_TYPE_FILE);
	assert_int_equal(st.size, 13);
	assert_true(st.mtime > 1600000000);
	platform_close(fd);
	assert_int_equal(platform_stat(path, &st), 0);
	assert_int_equal(st.size, 13);
	assert_int_equal(st.mode, 0644);
	struct platform_stat again;
	assert_int_equal(platform_lstat(path, &again), 0);
	assert_true(st.device == again.device && st.inode == again.inode);
	/* read-only is the mode Windows keeps */
	assert_int_equal(platform_chmod(path, 0444), 0);
	assert_int_equal(platform_stat(path, &st), 0);
	assert_int_equal(st.mode, 0444);
	assert_int_equal(platform_chmod(path, 0644), 0);
	fd = platform_open(path, PLATFORM_OPEN_READ | PLATFORM_OPEN_WRITE, 0);
	assert_int_equal(platform_set_mode(fd, 0444), 0);
	assert_int_equal(platform_fstat(fd, &st), 0);
	assert_int_equal(st.mode, 0444);
	assert_int_equal(platform_set_mode(fd, 0644), 0);
	platform_close(fd);
	errno = 0;
	assert_int_equal(platform_open(path, PLATFORM_OPEN_READ | PLATFORM_OPEN_DIRECTORY, 0), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_int_equal(platform_access(path, PLATFORM_CAN_READ), 0);
	assert_int_equal(platform_access(path, PLATFORM_CAN_EXIST), 0);
	/* rename over an existing file */
	fd = platform_open(other, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE | PLATFORM_OPEN_TRUNC, 0644);
	platform_close(fd);
	assert_int_equal(platform_rename(path, other), 0);
	assert_int_equal(platform_stat(other, &st), 0);
	assert_int_equal(st.size, 13);
	errno = 0;
	assert_int_equal(platform_stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(platform_access(path, PLATFORM_CAN_EXIST), -1);
	errno = 0;
	assert_int_equal(platform_readlink(other, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(platform_unlink(other), 0);
	/* directories */
	in_scratch(path, sizeof(path), "a-dir");
	RemoveDirectoryA(path);
	assert_int_equal(platform_mkdir(path, 0755), 0);
	assert_int_equal(platform_mkdir(path, 0755), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(platform_stat(path, &st), 0);
	assert_int_equal(st.type, PLATFORM_TYPE_DIR);
	fd = platform_open(path, PLATFORM_OPEN_READ | PLATFORM_OPEN_DIRECTORY, 0);
	assert_true(fd >= 0);
	assert_int_equal(platform_fsync(fd), 0);
	platform_close(fd);
	char real[4096];
	assert_int_equal(platform_realpath(path, real, sizeof(real)), 0);
	assert_non_null(strstr(real, "a-dir"));
	assert_null(strstr(real, "\\\\?\\"));
	assert_int_equal(platform_rmdir(path), 0);
	assert_int_equal(platform_current_dir(real, sizeof(real)), 0);
	assert_int_equal(real[1], ':');
	assert_int_equal(platform_name_max(), 255);
	/* a private temporary file */
	in_scratch(path, sizeof(path), "tmp-XXXXXX");
	fd = platform_temp_file(path);
	assert_true(fd >= 0);
	assert_null(strstr(path, "XXXXXX"));
	assert_int_equal(platform_write(fd, "x", 1), 1);
	platform_close(fd);
	/* removed although read-only, as POSIX unlink does (an uninstall must not stop there) */
	assert_int_equal(platform_chmod(path, 0444), 0);
	assert_int_equal(platform_unlink(path), 0);
	assert_int_equal(platform_stat(path, &st), -1);
	assert_true(platform_error_is_no_space(ENOSPC));
	assert_false(platform_error_is_no_space(EIO));
}

static void inside_a_tree(void **state)
{
	char dir[4096];
	struct platform_stat st;
	char buf[32];
	(void)state;
	in_scratch(dir, sizeof(dir), ".at-XXXXXX");
	assert_int_equal(platform_private_dir(dir), 0);
	int tree = platform_tree_open(dir);
	assert_true(tree >= 0);
	int fd = platform_open_at(tree, "state.json", PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE | PLATFORM_OPEN_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(platform_write(fd, "{}", 2), 2);
	platform_close(fd);
	assert_int_equal(platform_stat_at(tree, "state.json", &st), 0);
	assert_int_equal(st.type, PLATFORM_TYPE_FILE);
	assert_int_equal(st.size, 2);
	assert_int_equal(platform_rename_at(tree, "state.json", "state.old"), 0);
	assert_int_equal(platform_stat_at(tree, "state.json", &st), -1);
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_int_equal(platform_readlink_at(tree, "state.old", buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(platform_symlink_at(tree, "current", "x"), -1);
	assert_int_equal(errno, ENOTSUP);
	/* one component only */
	static const char *const bad[] = { "../x", "a/b", "a\\b", "..", ".", "", "C:x", NULL };
	for (size_t i = 0; bad[i]; i++) {
		errno = 0;
		assert_int_equal(platform_open_at(tree, bad[i], PLATFORM_OPEN_READ, 0), -1);
		assert_int_equal(errno, EINVAL);
	}
	char old_path[4200];
	snprintf(old_path, sizeof(old_path), "%s\\state.old", dir);
	assert_int_equal(platform_chmod(old_path, 0444), 0); /* read-only: removed all the same */
	assert_int_equal(platform_unlink_at(tree, "state.old"), 0);
	assert_int_equal(platform_stat_at(tree, "state.old", &st), -1);
	platform_tree_close(tree);
	assert_int_equal(platform_rmdir(dir), 0);
}

/* The planted link: described as a link without following, followed by stat, never walked. */
static int count_entry(const char *path, const struct platform_stat *st, void *ctx)
{
	(void)st;
	int *n = ctx;
	(*n)++;
	assert_null(strstr(path, "inside-outside"));
	return 0;
}

static void links_seen_not_followed(void **state)
{
	const char *planted = getenv("CUFERRY_WIN_PLANTED");
	char path[4096], target[4096];
	struct platform_stat st;
	(void)state;
	if (!planted)
		fail_msg("CUFERRY_WIN_PLANTED is not set (tests/e2e/test_windows_unit.sh sets it)");
	snprintf(path, sizeof(path), "%s\\bin", planted);
	assert_int_equal(platform_lstat(path, &st), 0);
	assert_int_equal(st.type, PLATFORM_TYPE_LINK);
	assert_int_equal(platform_stat(path, &st), 0);
	assert_int_equal(st.type, PLATFORM_TYPE_DIR);
	assert_true(platform_readlink(path, target, sizeof(target)) > 0);
	assert_non_null(strstr(target, "outside"));
	/* the walk lists the link and does not go through it */
	snprintf(path, sizeof(path), "%s\\..\\outside\\inside-outside", planted);
	CreateDirectoryA(path, NULL);
	int n = 0;
	assert_int_equal(platform_walk_post(planted, count_entry, &n), 0);
	assert_int_equal(n, 2); /* planted\bin, planted */
	RemoveDirectoryA(path);
}

/* ---- directories ---- */

static int count_name(const char *name, void *ctx)
{
	int *n = ctx;
	(*n)++;
	return strcmp(name, "stop") == 0 ? 42 : 0;
}

struct walked {
	char order[8][64];
	int n;
};

static int note_walk(const char *path, const struct platform_stat *st, void *ctx)
{
	struct walked *w = ctx;
	const char *base = strrchr(path, '\\');
	if (w->n < 8)
		snprintf(w->order[w->n++], 64, "%s%s", base ? base + 1 : path,
			 st->type == PLATFORM_TYPE_DIR ? "/" : "");
	return 0;
}

static void note_glob(const char *path, void *ctx)
{
	struct walked *w = ctx;
	const char *base = strrchr(path, '\\');
	if (w->n < 8)
		snprintf(w->order[w->n++], 64, "%s", base ? base + 1 : path);
}

static void make_file(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s\\%s", dir, name);
	int fd = platform_open(path, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE | PLATFORM_OPEN_TRUNC, 0644);
	assert_true(fd >= 0);
	platform_close(fd);
}

static void directories(void **state)
{
	char top[4096], sub[4200], pattern[4200];
	(void)state;
	in_scratch(top, sizeof(top), "walk-XXXXXX");
	assert_int_equal(platform_private_dir(top), 0);
	snprintf(sub, sizeof(sub), "%s\\bin", top);
	assert_int_equal(platform_mkdir(sub, 0755), 0);
	make_file(sub, "cudnn64_9.dll");
	make_file(sub, "cudnn_graph64_9.dll");
	make_file(top, "state.json");
	int n = 0;
	assert_int_equal(platform_dir_list(sub, count_name, &n), 0);
	assert_int_equal(n, 2);
	make_file(sub, "stop");
	assert_true(platform_dir_list(sub, count_name, &n) == 42 || n == 5); /* stopped, or last */
	snprintf(pattern, sizeof(pattern), "%s\\stop", sub);
	platform_unlink(pattern);
	assert_null(platform_dir_open("C:\\no\\such\\dir"));
	assert_int_equal(platform_dir_list("C:\\no\\such\\dir", count_name, &n), -1);
	/* a directory after everything in it */
	struct walked w = { .n = 0 };
	assert_int_equal(platform_walk_post(top, note_walk, &w), 0);
	assert_int_equal(w.n, 5);
	int bin_at = -1, dll_at = -1;
	for (int i = 0; i < w.n; i++) {
		if (!strcmp(w.order[i], "bin/"))
			bin_at = i;
		if (!strcmp(w.order[i], "cudnn64_9.dll"))
			dll_at = i;
	}
	assert_true(dll_at >= 0 && bin_at > dll_at);
	assert_int_equal(w.order[4][strlen(w.order[4]) - 1], '/'); /* the top comes last */
	/* patterns in any component, without regard to case, sorted on request */
	struct walked g = { .n = 0 };
	snprintf(pattern, sizeof(pattern), "%s\\B*\\CUDNN*64_9.dll", top);
	assert_int_equal(platform_glob(pattern, 1, note_glob, &g), 2);
	assert_string_equal(g.order[0], "cudnn64_9.dll");
	assert_string_equal(g.order[1], "cudnn_graph64_9.dll");
	g.n = 0;
	snprintf(pattern, sizeof(pattern), "%s/bin/cudnn[6]4_?.dll", top);
	assert_int_equal(platform_glob(pattern, 0, note_glob, &g), 1);
	snprintf(pattern, sizeof(pattern), "%s\\*\\nothing*", top);
	assert_int_equal(platform_glob(pattern, 0, note_glob, &g), 0);
	snprintf(pattern, sizeof(pattern), "%s\\state.json", top);
	assert_int_equal(platform_glob(pattern, 0, note_glob, &g), 1);
}

/* ---- time ---- */

static void utc_time(void **state)
{
	int64_t t = 0;
	struct tm tm;
	(void)state;
	assert_int_equal(platform_parse_utc("1970-01-01T00:00:00Z", &t), 0);
	assert_int_equal(t, 0);
	assert_int_equal(platform_parse_utc("2024-02-29T12:34:56Z", &t), 0);
	assert_int_equal(t, 1709210096);
	int64_t carried = 0, plain = 0;
	assert_int_equal(platform_parse_utc("2026-02-30T00:00:00Z", &carried), 0);
	assert_int_equal(platform_parse_utc("2026-03-02T00:00:00Z", &plain), 0);
	assert_int_equal(carried, plain);
	static const char *const bad[] = { "2024-02-29 12:34:56Z", "2024-02-29T12:34:56", "24-02-29T12:34:56Z",
					   "2024-02-29T12:34:56Zx", "", "2024-0a-29T12:34:56Z", NULL };
	for (size_t i = 0; bad[i]; i++)
		assert_int_equal(platform_parse_utc(bad[i], &t), -1);
	assert_int_equal(platform_parse_utc(NULL, &t), -1);
	assert_int_equal(platform_utc_time(1709210096, &tm), 0);
	assert_int_equal(tm.tm_year, 124);
	assert_int_equal(tm.tm_mon, 1);
	assert_int_equal(tm.tm_mday, 29);
	assert_int_equal(tm.tm_hour, 12);
	assert_int_equal(tm.tm_sec, 56);
}

static void clocks_and_driver(void **state)
{
	char v[32];
	(void)state;
	int64_t now = platform_time_now();
	assert_true(now > 1700000000); /* after 2023: the clock is the time of day */
	double a = platform_elapsed_s(), b = platform_elapsed_s();
	assert_true(b >= a);
	assert_true(platform_elapsed_s() >= b);
	/* the driver's number from its DLL's file version */
	assert_int_equal(win_driver_version_of(15, 6094, v, sizeof(v)), 0);
	assert_string_equal(v, "560.94");
	assert_int_equal(win_driver_version_of(15, 8065, v, sizeof(v)), 0);
	assert_string_equal(v, "580.65");
	assert_int_equal(win_driver_version_of(14, 1000, v, sizeof(v)), 0);
	assert_string_equal(v, "410.00");
	assert_int_equal(win_driver_version_of(15, 6094, v, 4), -1);
	/* Wine ships no NVIDIA driver: nothing to report, or a version if one is there */
	if (platform_driver_version("", v, sizeof(v)) == 0)
		assert_non_null(strchr(v, '.'));
	assert_int_equal(platform_driver_version("C:\\some\\root", v, sizeof(v)), -1);
	assert_null(platform_lib_cache_program());
}

/* ---- interrupts ---- */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int kind)
{
	interrupted = kind;
}

static void interrupts(void **state)
{
	(void)state;
	platform_on_interrupt(on_interrupt);
	/* Ctrl-C to this process group: the handler runs on a thread the system starts. Where
	 * there is no console to send it through (Wine without one), only the registration is
	 * shown. */
	if (GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0)) {
		for (int i = 0; i < 500 && !interrupted; i++)
			Sleep(10);
		assert_int_equal(interrupted, PLATFORM_INTERRUPT_INT);
	} else {
		print_message("no console to send Ctrl-C through: only the handler's registration is shown\n");
	}
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

/* A failed Windows call is named by its code and the system's text, not only by the errno it
 * became (most codes become EIO: "cannot start a probe: Input/output error" said nothing);
 * errno stays what callers branch on. */
static void windows_error_named(void **state)
{
	char text[600], prog[4096];
	(void)state;
	win_error_text(ERROR_PRIVILEGE_NOT_HELD, text, sizeof(text));
	assert_int_equal(strncmp(text, "Windows error 1314", 18), 0);
	size_t n = strlen(text);
	assert_true(text[n - 1] != '.' && text[n - 1] != '\n' && text[n - 1] != '\r' && text[n - 1] != ' ');
	assert_null(strchr(text, '\n'));
	/* a code errno has no name for: EIO, and the message is the code's alone */
	assert_int_equal(win_fail(ERROR_REQUEST_ABORTED), -1);
	assert_int_equal(errno, EIO);
	assert_int_equal(strncmp(platform_strerror(errno), "Windows error 1235", 18), 0);
	/* one errno names: both, errno's text first */
	assert_int_equal(win_fail(ERROR_PRIVILEGE_NOT_HELD), -1);
	assert_int_equal(errno, EACCES);
	const char *both = platform_strerror(EACCES);
	assert_int_equal(strncmp(both, strerror(EACCES), strlen(strerror(EACCES))), 0);
	assert_non_null(strstr(both, "(Windows error 1314"));
	/* another errno than the last failure's: strerror's text, nothing stale */
	assert_string_equal(platform_strerror(ENOENT), strerror(ENOENT));
	/* a real failure: a file that is no program, started as one */
	in_scratch(prog, sizeof(prog), "not-a-program.exe");
	FILE *f = fopen(prog, "wb");
	assert_non_null(f);
	fputs("this is text, not a program\r\n", f);
	fclose(f);
	char *argv[] = { prog, NULL }, *envp[] = { NULL };
	struct platform_child c;
	errno = 0;
	assert_int_equal(platform_run(prog, argv, envp, PLATFORM_CAPTURE_NONE, 10, &c), -1);
	print_message("starting a text file: errno %d, %s\n", errno, platform_strerror(errno));
	assert_non_null(strstr(platform_strerror(errno), "Windows error "));
	remove(prog);
}

/* ---- the probe child: the report pipe, handles kept, rights given up ---- */

static void child_handles(void **state)
{
	struct platform_child c;
	char root[300];
	snprintf(root, sizeof(root), "SystemRoot=%s", getenv("SystemRoot") ? getenv("SystemRoot") : "C:\\windows");
	char *envp[] = { root, NULL };
	(void)state;
	int r = -1, w = -1;
	assert_int_equal(platform_child_pipe(&r, &w, 65536), 0);
	/* the child gets the write end's handle value, and writes its report through it */
	char value[32];
	snprintf(value, sizeof(value), "%llu", (unsigned long long)_get_osfhandle(w));
	const char *self = platform_self_path();
	char *argv[] = { (char *)self, "--child", "report", value, NULL };
	assert_int_equal(platform_run(self, argv, envp, PLATFORM_CAPTURE_NONE, 60, &c), 0);
	assert_true(c.exited);
	assert_int_equal(c.exit_code, 0);
	platform_close(w);
	char got[64] = "";
	ssize_t n, total = 0;
	while ((n = platform_read(r, got + total, sizeof(got) - 1 - (size_t)total)) > 0)
		total += n;
	assert_int_equal(n, 0); /* the only writer is gone: end of file */
	got[total] = '\0';
	assert_string_equal(got, "report through the pipe");
	platform_close(r);
	/* a pipe nobody writes to: a nonblocking read returns at once */
	assert_int_equal(platform_child_pipe(&r, &w, 0), 0);
	assert_int_equal(platform_set_nonblocking(r), 0);
	errno = 0;
	assert_int_equal(platform_read(r, got, sizeof(got)), -1);
	assert_int_equal(errno, EAGAIN);
	platform_close(r);
	platform_close(w);
	/* every other handle closed, the kept one still open */
	char *argv2[] = { (char *)self, "--child", "close-others", "x", NULL };
	assert_int_equal(platform_run(self, argv2, envp, PLATFORM_CAPTURE_STDOUT, 60, &c), 0);
	assert_true(c.exited);
	assert_non_null(c.output);
	assert_string_equal(c.output, "kept=1 other=0\n");
	free(c.output);
	assert_true(platform_user_id() != (unsigned long)-1);
	/* the crash report is the system's, whatever filter was installed before */
	char *argv3[] = { (char *)self, "--child", "crash-default", "x", NULL };
	assert_int_equal(platform_run(self, argv3, envp, PLATFORM_CAPTURE_STDOUT, 60, &c), 0);
	assert_false(c.exited);
	assert_non_null(strstr(c.crash, "0xC0000005"));
	free(c.output);
}

/* The drop in a child (it is for good). Wine keeps the token's integrity level and removes
 * privileges as asked, but enforces neither (no mandatory integrity control, no ACLs): what
 * is shown here is that the token reads back changed, not that a write is refused. */
static void privileges_dropped(void **state)
{
	struct platform_child c;
	char root[300];
	snprintf(root, sizeof(root), "SystemRoot=%s", getenv("SystemRoot") ? getenv("SystemRoot") : "C:\\windows");
	char *envp[] = { root, NULL };
	(void)state;
	const char *self = platform_self_path();
	char *argv[] = { (char *)self, "--child", "drop", "x", NULL };
	assert_int_equal(platform_run(self, argv, envp, PLATFORM_CAPTURE_ALL, 60, &c), 0);
	assert_true(c.exited);
	assert_non_null(c.output);
	print_message("drop under this system: %s", c.output);
	assert_int_equal(c.exit_code, 0);
	assert_non_null(strstr(c.output, "privileges enabled 0"));
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");
	if (!GetProcAddress(nt, "wine_get_version")) /* Wine keeps no integrity level */
		assert_non_null(strstr(c.output, "dropped, integrity 0x1000,"));
	free(c.output);
}

/* ---- where the system finds libraries ---- */

struct dirs {
	char seen[16][300];
	char source[16][16];
	int n;
};

static void note_dir(const char *dir, const char *source, void *ctx)
{
	struct dirs *d = ctx;
	if (d->n < 16) {
		snprintf(d->seen[d->n], sizeof(d->seen[0]), "%s", dir);
		snprintf(d->source[d->n++], sizeof(d->source[0]), "%s", source);
	}
}

static void note_cached(const char *path, const char *flags, void *ctx)
{
	(void)path;
	(void)flags;
	(void)ctx;
	fail_msg("Windows has no loader cache");
}

static void library_search(void **state)
{
	char *saved = NULL;
	int saved_expandable = 0, had = platform_env_read(PLATFORM_ENV_USER, "Path", &saved, &saved_expandable) == 0;
	(void)state;
	assert_int_equal(platform_env_write(PLATFORM_ENV_USER, "Path",
					    "C:\\one;;\"C:\\two;three\";%SystemRoot%\\four", 1), 0);
	struct dirs d = { .n = 0 };
	platform_lib_config_dirs("", note_dir, &d);
	assert_true(d.n >= 5);
	assert_string_equal(d.source[0], "System32");
	assert_non_null(strstr(d.seen[0], "ystem32"));
	assert_string_equal(d.source[1], "Windows");
	/* the user's entries come last, in order, unquoted and expanded, empty ones skipped */
	assert_string_equal(d.source[d.n - 3], "HKCU");
	assert_string_equal(d.seen[d.n - 3], "C:\\one");
	assert_string_equal(d.seen[d.n - 2], "C:\\two;three");
	assert_null(strchr(d.seen[d.n - 1], '%'));
	assert_non_null(strstr(d.seen[d.n - 1], "\\four"));
	int machine = 0;
	for (int i = 2; i < d.n - 3; i++)
		machine += !strcmp(d.source[i], "HKLM");
	assert_int_equal(machine, d.n - 5);
	d.n = 0;
	platform_lib_config_dirs("C:\\some\\root", note_dir, &d);
	assert_int_equal(d.n, 0);
	assert_int_equal(platform_lib_cache_find("cudnn64_9.dll", note_cached, NULL), 0);
	if (had)
		assert_int_equal(platform_env_write(PLATFORM_ENV_USER, "Path", saved, saved_expandable), 0);
	else
		assert_int_equal(platform_env_delete(PLATFORM_ENV_USER, "Path"), 0);
	free(saved);
}

/* ---- this process as the system sees it ---- */

static void this_process(void **state)
{
	char path[4096];
	uint64_t device = 0, inode = 0;
	struct platform_stat st;
	(void)state;
	assert_int_equal(platform_mapped_file((const void *)&this_process, path, sizeof(path), &device, &inode), 0);
	assert_non_null(strstr(path, "test_platform_win.exe"));
	assert_int_equal(platform_stat(path, &st), 0);
	assert_true(st.device == device && st.inode == inode);
	FARPROC tick = GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "GetTickCount");
	assert_int_equal(platform_mapped_file((const void *)(intptr_t)tick, path, sizeof(path), &device, &inode), 0);
	assert_non_null(strstr(path, "ernel32"));
	assert_int_equal(platform_mapped_file((const void *)16, path, sizeof(path), &device, &inode), -1);
	assert_int_equal(platform_started_file(path, sizeof(path)), 0);
	assert_non_null(strstr(path, "test_platform_win.exe"));
}

static void the_process(void **state)
{
	(void)state;
	assert_true(platform_cpu_count() >= 1);
	assert_int_equal(platform_process_id(), (long)GetCurrentProcessId());
	assert_non_null(strstr(platform_self_path(), "test_platform_win.exe"));
	platform_is_admin(); /* either answer is right; it must not fail */
	/* the kernel's "major.minor": Wine reports Windows 7 (6.1) or newer, as every supported */
	const char *version = platform_windows_version();
	unsigned major = 0, minor = 0;
	char rest;
	assert_non_null(version);
	assert_int_equal(sscanf(version, "%u.%u%c", &major, &minor, &rest), 2);
	assert_true(major >= 6);
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
	if (strcmp(what, "report") == 0) {
		HANDLE h = (HANDLE)(intptr_t)_strtoui64(arg, NULL, 10);
		DWORD put = 0;
		return WriteFile(h, "report through the pipe", 23, &put, NULL) && put == 23 ? 0 : 1;
	}
	if (strcmp(what, "close-others") == 0) {
		int a = _open("NUL", _O_RDONLY), b = _open("NUL", _O_RDONLY);
		platform_close_other_handles(a);
		printf("kept=%d other=%d\n", platform_handle_valid(a), platform_handle_valid(b));
		return 0;
	}
	if (strcmp(what, "crash-default") == 0) {
		platform_crash_default();
		return *nowhere;
	}
	if (strcmp(what, "drop") == 0) {
		char why[256] = "";
		if (platform_drop_privileges(why, sizeof(why)) != 0) {
			printf("not dropped: %s\n", why);
			return 1;
		}
		HANDLE token;
		BYTE buf[1024];
		DWORD n, level = 0, enabled = 0;
		OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token);
		if (GetTokenInformation(token, TokenIntegrityLevel, buf, sizeof(buf), &n)) {
			PSID sid = ((TOKEN_MANDATORY_LABEL *)buf)->Label.Sid;
			level = *GetSidSubAuthority(sid, *GetSidSubAuthorityCount(sid) - 1u);
		}
		if (GetTokenInformation(token, TokenPrivileges, buf, sizeof(buf), &n)) {
			TOKEN_PRIVILEGES *p = (TOKEN_PRIVILEGES *)buf;
			LUID traverse;
			LookupPrivilegeValueW(NULL, SE_CHANGE_NOTIFY_NAME, &traverse);
			for (DWORD i = 0; i < p->PrivilegeCount; i++)
				enabled += p->Privileges[i].Luid.LowPart != traverse.LowPart;
		}
		printf("dropped, integrity 0x%lx, privileges enabled %lu\n", (unsigned long)level,
		       (unsigned long)enabled);
		return 0;
	}
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
		cmocka_unit_test(admin_guarded_acl),
		cmocka_unit_test(directory_descriptor),
		cmocka_unit_test(libraries),
		cmocka_unit_test(children),
		cmocka_unit_test(files_and_metadata),
		cmocka_unit_test(inside_a_tree),
		cmocka_unit_test(links_seen_not_followed),
		cmocka_unit_test(directories),
		cmocka_unit_test(utc_time),
		cmocka_unit_test(clocks_and_driver),
		cmocka_unit_test(interrupts),
		cmocka_unit_test(child_handles),
		cmocka_unit_test(privileges_dropped),
		cmocka_unit_test(library_search),
		cmocka_unit_test(this_process),
		cmocka_unit_test(windows_error_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
