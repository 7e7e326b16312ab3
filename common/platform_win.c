/* platform_win.c - the Windows (mingw-w64) implementation of common/platform.h: what the
 * platform_win*.c files share (UTF-8 and wide paths, errno from Windows errors, handles),
 * the process, locks, free space and the ACL check.
 *
 * Paths arrive as UTF-8 and are handed to the wide (-W) calls, absolute ones with the \\?\
 * prefix so that no 260-character limit applies and no name is silently changed (trailing
 * dots and spaces). Handles are C runtime descriptors (_open_osfhandle), so the callers'
 * int handles work on both systems. There are no symbolic links: DESIGN §6 (Windows) installs
 * without them, so the two link calls fail with ENOTSUP. The tree never follows a reparse
 * point (symbolic link, junction, mount point): every directory on the way is opened with
 * FILE_FLAG_OPEN_REPARSE_POINT, checked, and held open without FILE_SHARE_DELETE until the
 * entry below it exists, so it cannot be swapped for one meanwhile. */
#include "common/platform.h"
#include "common/platform_win.h"
#include "common/platform_win_internal.h"

#include <aclapi.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

/* ---- conversions ---- */

int win_errno(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: case ERROR_INVALID_DRIVE:
		return ENOENT;
	case ERROR_ACCESS_DENIED: case ERROR_PRIVILEGE_NOT_HELD: return EACCES;
	case ERROR_ALREADY_EXISTS: case ERROR_FILE_EXISTS: return EEXIST;
	case ERROR_DISK_FULL: case ERROR_HANDLE_DISK_FULL: return ENOSPC;
	case ERROR_SHARING_VIOLATION: case ERROR_LOCK_VIOLATION: return EBUSY;
	case ERROR_NOT_ENOUGH_MEMORY: case ERROR_OUTOFMEMORY: return ENOMEM;
	case ERROR_INVALID_NAME: case ERROR_BAD_PATHNAME: case ERROR_INVALID_PARAMETER: return EINVAL;
	case ERROR_DIR_NOT_EMPTY: return ENOTEMPTY;
	case ERROR_NOT_SUPPORTED: return ENOTSUP;
	case ERROR_CANT_ACCESS_FILE: case ERROR_CANT_RESOLVE_FILENAME: return ELOOP;
	default: return EIO;
	}
}

/* This thread's last Windows failure (win_fail): its code and the errno it became, so that
 * platform_strerror can name the code that errno alone would hide (most become EIO). */
static _Thread_local DWORD last_code;
static _Thread_local int last_errno;

int win_fail(DWORD e)
{
	errno = win_errno(e);
	last_code = e;
	last_errno = errno;
	return -1;
}

void win_error_text(DWORD code, char *out, size_t size)
{
	wchar_t w[512];
	char text[1024] = "";
	DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS |
					 FORMAT_MESSAGE_MAX_WIDTH_MASK,
				 NULL, code, 0, w, sizeof(w) / sizeof(w[0]), NULL);
	if (n == 0 || win_narrow(w, text, sizeof(text)) != 0)
		text[0] = '\0';
	/* One line: the system's text ends in ".", "\r\n" or a space (MAX_WIDTH_MASK's). */
	size_t len = strlen(text);
	while (len > 0 && strchr(" .\r\n\t", text[len - 1]))
		text[--len] = '\0';
	if (text[0])
		snprintf(out, size, "Windows error %lu: %s", (unsigned long)code, text);
	else
		snprintf(out, size, "Windows error %lu", (unsigned long)code);
}

const char *platform_strerror(int err)
{
	/* A few buffers, so that two calls in one message do not overwrite each other. */
	static _Thread_local char ring[4][640];
	static _Thread_local unsigned next;
	if (last_code == 0 || err != last_errno)
		return strerror(err);
	char *buf = ring[next++ % 4], win[560];
	win_error_text(last_code, win, sizeof(win));
	/* EIO is what win_errno gives every code it has no errno for: the code says more. */
	if (err == EIO)
		snprintf(buf, sizeof(ring[0]), "%s", win);
	else
		snprintf(buf, sizeof(ring[0]), "%s (%s)", strerror(err), win);
	return buf;
}

int win_is_absolute(const char *p)
{
	return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
	       (p[2] == '\\' || p[2] == '/');
}

/* UTF-8 to a fresh wide string; absolute drive paths get \\?\ and backslashes. */
wchar_t *win_wide(const char *utf8)
{
	int extended = win_is_absolute(utf8);
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
	if (n <= 0) {
		errno = EINVAL;
		return NULL;
	}
	wchar_t *w = malloc(((size_t)n + 4) * sizeof(wchar_t));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	wchar_t *out = w;
	if (extended) {
		memcpy(w, L"\\\\?\\", 4 * sizeof(wchar_t));
		out += 4;
	}
	MultiByteToWideChar(CP_UTF8, 0, utf8, -1, out, n);
	if (extended)
		for (wchar_t *c = out; *c; c++)
			if (*c == L'/')
				*c = L'\\';
	return w;
}

/* A wide string as UTF-8 into out, without the \\?\ prefix. */
int win_narrow(const wchar_t *w, char *out, size_t size)
{
	if (wcsncmp(w, L"\\\\?\\", 4) == 0 && w[4] && w[5] == L':')
		w += 4;
	if (size > INT_MAX || WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)size, NULL, NULL) <= 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The C runtime reports a descriptor that is not open (EBADF) through its invalid-parameter
 * handler, which may end the process: ours only lets the call fail, as POSIX does. */
static void quiet_invalid_parameter(const wchar_t *expression, const wchar_t *function,
				    const wchar_t *file, unsigned int line, uintptr_t reserved)
{
	(void)expression, (void)function, (void)file, (void)line, (void)reserved;
}

HANDLE win_handle(int fd)
{
	static volatile LONG quiet;
	if (!InterlockedExchange(&quiet, 1))
		_set_invalid_parameter_handler(quiet_invalid_parameter);
	return fd < 0 ? INVALID_HANDLE_VALUE : (HANDLE)_get_osfhandle(fd);
}

int win_fd(HANDLE h, int flags)
{
	int fd = _open_osfhandle((intptr_t)h, flags);
	if (fd < 0) {
		CloseHandle(h);
		errno = EMFILE;
	}
	return fd;
}

/* Open path without following a reparse point at its last component; refuse one there. The
 * handle's own attributes are the check that cannot race; the path's are asked first as
 * well, because Wine follows a link even with FILE_FLAG_OPEN_REPARSE_POINT and reports it
 * only through the path. */
HANDLE win_open_no_follow(const wchar_t *w, DWORD access, DWORD share, DWORD disposition,
			     DWORD flags, SECURITY_ATTRIBUTES *sa)
{
	DWORD attributes = GetFileAttributesW(w);
	if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
		SetLastError(ERROR_CANT_ACCESS_FILE);
		return INVALID_HANDLE_VALUE;
	}
	HANDLE h = CreateFileW(w, access, share, sa, disposition,
			       flags | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return h;
	BY_HANDLE_FILE_INFORMATION info;
	if (!GetFileInformationByHandle(h, &info) ||
	    (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
		CloseHandle(h);
		SetLastError(ERROR_CANT_ACCESS_FILE);
		return INVALID_HANDLE_VALUE;
	}
	return h;
}

/* The file a loaded module (or, for NULL, this program) came from. */
int win_module_path(HMODULE m, char *out, size_t size)
{
	wchar_t w[32768];
	DWORD n = GetModuleFileNameW(m, w, 32768);
	if (n == 0 || n >= 32768)
		return win_fail(GetLastError());
	return win_narrow(w, out, size);
}

/* ---- the process ---- */

const char *platform_libc_version(void)
{
	return NULL; /* no glibc: a Windows bundle's floor is its DLLs' Windows version */
}

const char *platform_windows_version(void)
{
	/* From ntdll, which every process maps first and which unpacker.exe may import (a
	 * KnownDLL): looked up in the module already there, so nothing is loaded. */
	typedef LONG(WINAPI * get_version_fn)(OSVERSIONINFOW *);
	static char version[24];
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");
	get_version_fn get =
		nt ? (get_version_fn)(void (*)(void))GetProcAddress(nt, "RtlGetVersion") : NULL;
	OSVERSIONINFOW info = { .dwOSVersionInfoSize = sizeof(info) };
	if (!get || get(&info) != 0)
		return NULL;
	snprintf(version, sizeof(version), "%lu.%lu", (unsigned long)info.dwMajorVersion,
		 (unsigned long)info.dwMinorVersion);
	return version;
}

static int token_has(WELL_KNOWN_SID_TYPE type)
{
	BYTE sid[SECURITY_MAX_SID_SIZE];
	DWORD size = sizeof(sid);
	BOOL member = FALSE;
	if (!CreateWellKnownSid(type, NULL, sid, &size) || !CheckTokenMembership(NULL, sid, &member))
		return 0;
	return member != FALSE;
}

int platform_is_admin(void)
{
	/* An elevated token: Administrators enabled (a filtered UAC token has it deny-only). */
	return token_has(WinBuiltinAdministratorsSid) || token_has(WinLocalSystemSid);
}

int platform_cpu_count(void)
{
	DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
	return n > 0 ? (int)n : 1;
}

long platform_process_id(void)
{
	return (long)GetCurrentProcessId();
}

const char *platform_self_path(void)
{
	static char self[32768 * 3];
	wchar_t w[32768];
	DWORD n = GetModuleFileNameW(NULL, w, 32768);
	if (n == 0 || n >= 32768 || win_narrow(w, self, sizeof(self)) != 0)
		return NULL;
	return self;
}

/* ---- files and directories ---- */

int platform_switch_link(const char *link, const char *target)
{
	(void)link;
	(void)target;
	errno = ENOTSUP; /* state.json names the current install on Windows (DESIGN §6) */
	return -1;
}

int platform_error_is_no_space(int err)
{
	return err == ENOSPC; /* a full quota is ERROR_DISK_FULL too */
}

int platform_free_bytes(const char *path, uint64_t *out)
{
	wchar_t *w = win_wide(path);
	ULARGE_INTEGER avail;
	if (!w)
		return -1;
	BOOL ok = GetDiskFreeSpaceExW(w, &avail, NULL, NULL);
	DWORD e = GetLastError();
	free(w);
	if (!ok)
		return win_fail(e);
	*out = avail.QuadPart;
	return 0;
}

int platform_free_inodes(const char *path, uint64_t *out)
{
	(void)path;
	*out = UINT64_MAX; /* NTFS and ReFS have no fixed table of files */
	return 0;
}


int platform_lock(const char *path, int *handle)
{
	wchar_t *w = win_wide(path);
	if (!w)
		return -1;
	HANDLE h = win_open_no_follow(w, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
				  OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	DWORD e = GetLastError();
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return win_fail(e);
	OVERLAPPED at = { 0 };
	if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at)) {
		e = GetLastError();
		CloseHandle(h);
		if (e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING)
			return 1;
		return win_fail(e);
	}
	int fd = win_fd(h, _O_RDWR | _O_BINARY);
	if (fd < 0)
		return -1;
	*handle = fd;
	return 0;
}

void platform_unlock(int handle)
{
	if (handle >= 0)
		_close(handle); /* closing the handle releases the lock */
}

/* Well-known owners of system directories: Administrators, SYSTEM, and TrustedInstaller
 * (which owns %ProgramFiles% itself on a real Windows). */
int win_trusted_sid(PSID sid)
{
	static const WELL_KNOWN_SID_TYPE ok[] = { WinBuiltinAdministratorsSid, WinLocalSystemSid };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (IsWellKnownSid(sid, ok[i]))
			return 1;
	PSID ti = NULL;
	int same = ConvertStringSidToSidW(L"S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464", &ti) &&
		   EqualSid(sid, ti);
	if (ti)
		LocalFree(ti);
	return same;
}

/* What an entry for anyone but Administrators, SYSTEM or TrustedInstaller may not hold on an
 * admin-owned object: writing, deleting, re-permissioning or taking it over. */
#define WIN_WRITES                                                                               \
	(FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES |             \
	 FILE_DELETE_CHILD | DELETE | WRITE_DAC | WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL)
/* On a directory, FILE_WRITE_DATA and FILE_APPEND_DATA are FILE_ADD_FILE and
 * FILE_ADD_SUBDIRECTORY: what %ProgramData% (Users:(CI)(WD,AD,WEA,WA)) and C:\ (Authenticated
 * Users:(AD)) give every user, so that each may create entries there, as /tmp lets them. */
#define WIN_CREATE_ONLY (FILE_ADD_FILE | FILE_ADD_SUBDIRECTORY | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES)

/* 0 when the descriptor's owner is trusted, it has a DACL, and no allow entry that applies to
 * the object gives anyone else a right in forbidden; -1 (EPERM) otherwise. */
static int only_trusted_may(void *security_descriptor, DWORD forbidden)
{
	PSID owner = NULL;
	PACL dacl = NULL;
	BOOL present = FALSE, defaulted;
	int ok = GetSecurityDescriptorOwner(security_descriptor, &owner, &defaulted) &&
		 GetSecurityDescriptorDacl(security_descriptor, &present, &dacl, &defaulted) &&
		 owner && win_trusted_sid(owner) && present && dacl; /* no DACL: everyone may write */
	for (DWORD i = 0; ok && i < dacl->AceCount; i++) {
		ACE_HEADER *ace;
		if (!GetAce(dacl, i, (void **)&ace)) {
			ok = 0;
			break;
		}
		if (ace->AceFlags & INHERIT_ONLY_ACE)
			continue; /* for what is created below, not for this object */
		if (ace->AceType == ACCESS_ALLOWED_ACE_TYPE) {
			ACCESS_ALLOWED_ACE *allow = (ACCESS_ALLOWED_ACE *)ace;
			if ((allow->Mask & forbidden) && !win_trusted_sid((PSID)&allow->SidStart))
				ok = 0;
		} else if (ace->AceType != ACCESS_DENIED_ACE_TYPE) {
			ok = 0; /* object or callback entries: not understood, so not trusted */
		}
	}
	if (!ok) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int platform_win_admin_only(void *security_descriptor)
{
	return only_trusted_may(security_descriptor, WIN_WRITES);
}

int platform_win_admin_guarded(void *security_descriptor)
{
	return only_trusted_may(security_descriptor, WIN_WRITES & ~(DWORD)WIN_CREATE_ONLY);
}

/* The owner and DACL of path (never through a reparse point), judged by rule. */
static int path_passes(const char *path, int (*rule)(void *security_descriptor))
{
	wchar_t *w = win_wide(path);
	if (!w)
		return -1;
	HANDLE h = win_open_no_follow(w, READ_CONTROL, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
				  OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	DWORD e = GetLastError();
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return win_fail(e);
	PSECURITY_DESCRIPTOR sd = NULL;
	e = GetSecurityInfo(h, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
			    NULL, NULL, NULL, NULL, &sd);
	CloseHandle(h);
	if (e != ERROR_SUCCESS)
		return win_fail(e);
	int rc = rule(sd);
	LocalFree(sd);
	return rc;
}

int platform_is_admin_owned(const char *path)
{
	return path_passes(path, platform_win_admin_only);
}

int platform_is_admin_guarded(const char *path)
{
	return path_passes(path, platform_win_admin_guarded);
}

void *platform_win_dir_descriptor(unsigned mode, int owner_administrators)
{
	/* Protected (P): nothing inherited from the parent, whose entries may let users create,
	 * write or (C:\'s CREATOR OWNER and Authenticated Users entries) modify what is below.
	 * Full control for SYSTEM and Administrators; Users read and execute (0x1200a9) when
	 * others may read; all of it inherited by what is created inside. */
	wchar_t sddl[160];
	swprintf(sddl, 160, L"%lsD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)%ls",
		 owner_administrators ? L"O:BA" : L"", (mode & 005) ? L"(A;OICI;0x1200a9;;;BU)" : L"");
	PSECURITY_DESCRIPTOR sd = NULL;
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, NULL)) {
		win_fail(GetLastError());
		return NULL;
	}
	return sd;
}
