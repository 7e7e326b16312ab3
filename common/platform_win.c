/* platform_win.c - the Windows (mingw-w64) implementation of common/platform.h.
 *
 * Paths arrive as UTF-8 and are handed to the wide (-W) calls, absolute ones with the \\?\
 * prefix so that no 260-character limit applies and no name is silently changed (trailing
 * dots and spaces). Handles are C runtime descriptors (_open_osfhandle), so the callers'
 * int handles work on both systems. There are no symbolic links: DESIGN §6 (Windows) installs
 * without them, so the two link calls fail with ENOTSUP. The tree never follows a reparse
 * point (symbolic link, junction, mount point): every directory on the way is opened with
 * FILE_FLAG_OPEN_REPARSE_POINT, checked, and held open without FILE_SHARE_DELETE until the
 * entry below it exists, so it cannot be swapped for one meanwhile. */
#define _CRT_RAND_S /* rand_s: the system's random numbers, for names nobody can guess */
#include "common/platform.h"
#include "common/platform_win.h"

#include <aclapi.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <psapi.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <winternl.h>

#ifndef LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR
#define LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR 0x00000100
#define LOAD_LIBRARY_SEARCH_SYSTEM32 0x00000800
#endif
#ifndef ENOTSUP
#define ENOTSUP 129
#endif

/* ---- conversions ---- */

static int errno_from(DWORD e)
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

static int fail_with(DWORD e)
{
	errno = errno_from(e);
	return -1;
}

static int is_absolute(const char *p)
{
	return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
	       (p[2] == '\\' || p[2] == '/');
}

/* UTF-8 to a fresh wide string; absolute drive paths get \\?\ and backslashes. */
static wchar_t *wide(const char *utf8)
{
	int extended = is_absolute(utf8);
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
static int narrow(const wchar_t *w, char *out, size_t size)
{
	if (wcsncmp(w, L"\\\\?\\", 4) == 0 && w[4] && w[5] == L':')
		w += 4;
	if (size > INT_MAX || WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)size, NULL, NULL) <= 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static HANDLE handle_of(int fd)
{
	return (HANDLE)_get_osfhandle(fd);
}

static int fd_of(HANDLE h, int flags)
{
	int fd = _open_osfhandle((intptr_t)h, flags);
	if (fd < 0) {
		CloseHandle(h);
		errno = EMFILE;
	}
	return fd;
}

/* ---- the process ---- */

const char *platform_name(void)
{
	return "windows-x86_64";
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
	if (n == 0 || n >= 32768 || narrow(w, self, sizeof(self)) != 0)
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

int platform_free_bytes(const char *path, uint64_t *out)
{
	wchar_t *w = wide(path);
	ULARGE_INTEGER avail;
	if (!w)
		return -1;
	BOOL ok = GetDiskFreeSpaceExW(w, &avail, NULL, NULL);
	DWORD e = GetLastError();
	free(w);
	if (!ok)
		return fail_with(e);
	*out = avail.QuadPart;
	return 0;
}

int platform_free_inodes(const char *path, uint64_t *out)
{
	(void)path;
	*out = UINT64_MAX; /* NTFS and ReFS have no fixed table of files */
	return 0;
}

/* Open path without following a reparse point at its last component; refuse one there. The
 * handle's own attributes are the check that cannot race; the path's are asked first as
 * well, because Wine follows a link even with FILE_FLAG_OPEN_REPARSE_POINT and reports it
 * only through the path. */
static HANDLE open_no_follow(const wchar_t *w, DWORD access, DWORD share, DWORD disposition,
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

int platform_lock(const char *path, int *handle)
{
	wchar_t *w = wide(path);
	if (!w)
		return -1;
	HANDLE h = open_no_follow(w, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
				  OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	DWORD e = GetLastError();
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return fail_with(e);
	OVERLAPPED at = { 0 };
	if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at)) {
		e = GetLastError();
		CloseHandle(h);
		if (e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING)
			return 1;
		return fail_with(e);
	}
	int fd = fd_of(h, _O_RDWR | _O_BINARY);
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
static int trusted_sid(PSID sid)
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

int platform_win_admin_only(void *security_descriptor)
{
	const DWORD writes = FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA |
			     FILE_WRITE_ATTRIBUTES | FILE_DELETE_CHILD | DELETE | WRITE_DAC |
			     WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL;
	PSID owner = NULL;
	PACL dacl = NULL;
	BOOL present = FALSE, defaulted;
	int ok = GetSecurityDescriptorOwner(security_descriptor, &owner, &defaulted) &&
		 GetSecurityDescriptorDacl(security_descriptor, &present, &dacl, &defaulted) &&
		 owner && trusted_sid(owner) && present && dacl; /* no DACL: everyone may write */
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
			if ((allow->Mask & writes) && !trusted_sid((PSID)&allow->SidStart))
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

int platform_is_admin_owned(const char *path)
{
	wchar_t *w = wide(path);
	if (!w)
		return -1;
	HANDLE h = open_no_follow(w, READ_CONTROL, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
				  OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	DWORD e = GetLastError();
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return fail_with(e);
	PSECURITY_DESCRIPTOR sd = NULL;
	e = GetSecurityInfo(h, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
			    NULL, NULL, NULL, NULL, &sd);
	CloseHandle(h);
	if (e != ERROR_SUCCESS)
		return fail_with(e);
	int rc = platform_win_admin_only(sd);
	LocalFree(sd);
	return rc;
}

/* ---- the no-follow tree ---- */

/* Full control for SYSTEM, Administrators and this user; nothing inherited from above. */
static SECURITY_ATTRIBUTES *private_attributes(SECURITY_ATTRIBUTES *sa)
{
	HANDLE token;
	BYTE buf[256];
	DWORD n;
	wchar_t *user = NULL, sddl[512];
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return NULL;
	BOOL got = GetTokenInformation(token, TokenUser, buf, sizeof(buf), &n);
	CloseHandle(token);
	if (!got || !ConvertSidToStringSidW(((TOKEN_USER *)buf)->User.Sid, &user))
		return NULL;
	swprintf(sddl, 512, L"D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FA;;;%ls)", user);
	LocalFree(user);
	sa->nLength = sizeof(*sa);
	sa->bInheritHandle = FALSE;
	sa->lpSecurityDescriptor = NULL;
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1,
								  &sa->lpSecurityDescriptor, NULL))
		return NULL;
	return sa;
}

int platform_private_dir(char *template)
{
	size_t len = strlen(template);
	SECURITY_ATTRIBUTES sa;
	if (len < 6 || strcmp(template + len - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return -1;
	}
	if (!private_attributes(&sa))
		return fail_with(GetLastError());
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	int rc = -1;
	for (int attempt = 0; attempt < 100 && rc != 0; attempt++) {
		for (int i = 0; i < 6; i++) {
			unsigned r = 0;
			if (rand_s(&r) != 0)
				r = (unsigned)GetTickCount() * 2654435761u + (unsigned)attempt * 40503u + (unsigned)i;
			template[len - 6 + i] = chars[r % 36];
		}
		wchar_t *w = wide(template);
		if (!w)
			break;
		if (CreateDirectoryW(w, &sa))
			rc = 0;
		else if (GetLastError() != ERROR_ALREADY_EXISTS)
			attempt = 100, rc = fail_with(GetLastError());
		free(w);
	}
	LocalFree(sa.lpSecurityDescriptor);
	return rc;
}

static HANDLE open_dir(const wchar_t *w)
{
	/* No FILE_SHARE_DELETE: while we hold it, nobody renames it or swaps it for a link. */
	return open_no_follow(w, GENERIC_READ | READ_CONTROL | WRITE_DAC, FILE_SHARE_READ | FILE_SHARE_WRITE,
			      OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
}

int platform_tree_open(const char *dir)
{
	wchar_t *w = wide(dir);
	if (!w)
		return -1;
	HANDLE h = open_dir(w);
	DWORD e = GetLastError();
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return fail_with(e);
	return fd_of(h, _O_RDONLY | _O_BINARY);
}

/* The tree's path, from its handle (\\?\C:\...). */
static wchar_t *tree_path(int tree)
{
	HANDLE h = handle_of(tree);
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return NULL;
	}
	DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	wchar_t *w = n ? malloc((n + 1) * sizeof(wchar_t)) : NULL;
	if (!w || GetFinalPathNameByHandleW(h, w, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS) == 0) {
		free(w);
		fail_with(GetLastError());
		return NULL;
	}
	return w;
}

/* A name from an archive that Windows would read as something else is refused: empty, ".",
 * "..", a drive or stream (':'), a backslash, or a trailing dot or space. */
static int safe_component(const char *s, size_t n)
{
	if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return 0;
	if (s[n - 1] == '.' || s[n - 1] == ' ')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] == ':' || s[i] == '\\' || (unsigned char)s[i] < 0x20)
			return 0;
	return 1;
}

/* Walk relpath's directories under tree, creating missing ones, each checked and held;
 * *full gets the path of relpath itself, *parent the handle of its directory. */
static int walk_parents(int tree, const char *relpath, wchar_t **full, HANDLE *parent,
			const char **name)
{
	wchar_t *path = tree_path(tree), *wrel = NULL;
	HANDLE held = INVALID_HANDLE_VALUE;
	if (!path)
		return -1;
	for (const char *p = relpath;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (!safe_component(p, n)) {
			free(path);
			if (held != INVALID_HANDLE_VALUE)
				CloseHandle(held);
			errno = EINVAL;
			return -1;
		}
		if (!slash) {
			*name = p;
			break;
		}
		p = slash + 1;
	}
	char *rel = _strdup(relpath);
	for (char *c = rel; c && *c; c++)
		if (*c == '/')
			*c = '\\';
	wrel = rel ? wide(rel) : NULL;
	free(rel);
	size_t plen = wcslen(path), rlen = wrel ? wcslen(wrel) : 0;
	wchar_t *buf = wrel ? malloc((plen + rlen + 2) * sizeof(wchar_t)) : NULL;
	if (!buf) {
		free(path);
		free(wrel);
		errno = ENOMEM;
		return -1;
	}
	memcpy(buf, path, plen * sizeof(wchar_t));
	buf[plen] = L'\\';
	memcpy(buf + plen + 1, wrel, (rlen + 1) * sizeof(wchar_t));
	free(path);
	free(wrel);
	buf[plen] = L'\0'; /* the tree's root first */
	held = open_dir(buf);
	buf[plen] = L'\\';
	for (wchar_t *sep = buf + plen + 1; held != INVALID_HANDLE_VALUE && (sep = wcschr(sep, L'\\'));
	     sep++) {
		*sep = L'\0';
		if (!CreateDirectoryW(buf, NULL) && GetLastError() != ERROR_ALREADY_EXISTS) {
			DWORD e = GetLastError();
			CloseHandle(held);
			held = INVALID_HANDLE_VALUE;
			SetLastError(e);
		} else {
			HANDLE next = open_dir(buf);
			DWORD e = GetLastError();
			CloseHandle(held); /* the child is held now: its parent cannot move either */
			held = next;
			SetLastError(e);
		}
		*sep = L'\\';
	}
	if (held == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		free(buf);
		return fail_with(e);
	}
	*full = buf;
	*parent = held;
	return 0;
}

int platform_tree_create_file(int tree, const char *relpath)
{
	wchar_t *full;
	HANDLE parent;
	const char *name;
	if (walk_parents(tree, relpath, &full, &parent, &name) != 0)
		return -1;
	/* CREATE_NEW fails on anything already there, a link included; the file inherits the
	 * private tree's permissions. */
	HANDLE h = CreateFileW(full, GENERIC_WRITE | GENERIC_READ, 0, NULL, CREATE_NEW,
			       FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	DWORD e = GetLastError();
	CloseHandle(parent);
	free(full);
	if (h == INVALID_HANDLE_VALUE)
		return fail_with(e);
	return fd_of(h, _O_WRONLY | _O_BINARY);
}

int platform_tree_symlink(int tree, const char *relpath, const char *target)
{
	(void)tree;
	(void)relpath;
	(void)target;
	errno = ENOTSUP; /* Windows bundles carry no links (DESIGN §6, Windows) */
	return -1;
}

int platform_tree_open_parent(int tree, const char *relpath, const char **name)
{
	wchar_t *full;
	HANDLE parent;
	if (walk_parents(tree, relpath, &full, &parent, name) != 0)
		return -1;
	free(full);
	return fd_of(parent, _O_RDONLY | _O_BINARY);
}

int platform_tree_mkdir(int tree, const char *relpath)
{
	wchar_t *full;
	HANDLE parent;
	const char *name;
	if (walk_parents(tree, relpath, &full, &parent, &name) != 0)
		return -1;
	BOOL ok = CreateDirectoryW(full, NULL);
	DWORD e = GetLastError();
	CloseHandle(parent);
	free(full);
	return ok ? 0 : fail_with(e);
}

int platform_file_finish(int fd, unsigned mode)
{
	/* Windows has no mode bits: the install's permissions come from its directory's ACL. The
	 * data goes to disk now, since the tree has no syncfs to do it at commit. */
	(void)mode;
	BOOL flushed = FlushFileBuffers(handle_of(fd));
	DWORD e = GetLastError();
	if (_close(fd) != 0)
		return -1;
	return flushed ? 0 : fail_with(e);
}

int platform_tree_commit(int tree)
{
	/* Readers get what the parent directory grants (its inheritable entries), like 0755. */
	ACL empty;
	if (!InitializeAcl(&empty, sizeof(empty), ACL_REVISION))
		return fail_with(GetLastError());
	wchar_t *path = tree_path(tree);
	if (!path)
		return -1;
	DWORD e = SetNamedSecurityInfoW(path, SE_FILE_OBJECT,
					DACL_SECURITY_INFORMATION | UNPROTECTED_DACL_SECURITY_INFORMATION,
					NULL, NULL, &empty, NULL);
	free(path);
	return e == ERROR_SUCCESS ? 0 : fail_with(e);
}

void platform_tree_close(int tree)
{
	if (tree >= 0)
		_close(tree);
}

/* ---- run-time loaded libraries ---- */

static char lib_error[512];

static void set_lib_error(const char *what, DWORD e)
{
	char msg[300] = "";
	FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, msg,
		       sizeof(msg), NULL);
	msg[strcspn(msg, "\r\n")] = '\0';
	snprintf(lib_error, sizeof(lib_error), "%s: error %lu%s%s", what, (unsigned long)e,
		 msg[0] ? ": " : "", msg);
}

void *platform_lib_open(const char *path_or_name, enum platform_lib_binding binding)
{
	(void)binding; /* Windows binds a DLL's imports as it loads */
	wchar_t *w = wide(path_or_name);
	if (!w) {
		set_lib_error(path_or_name, ERROR_INVALID_NAME);
		return NULL;
	}
	/* A full path: its imports come from its own directory and System32, never from the
	 * current directory or PATH. A bare name: the system's search, as any program gets. */
	HMODULE lib = is_absolute(path_or_name)
			      ? LoadLibraryExW(w, NULL, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
							LOAD_LIBRARY_SEARCH_SYSTEM32)
			      : LoadLibraryW(w);
	if (!lib)
		set_lib_error(path_or_name, GetLastError());
	free(w);
	return (void *)lib;
}

void *platform_lib_symbol(void *lib, const char *name)
{
	return (void *)(intptr_t)GetProcAddress((HMODULE)lib, name);
}

const char *platform_lib_error(void)
{
	return lib_error[0] ? lib_error : "unknown loader error";
}

static int module_path(HMODULE m, char *out, size_t size)
{
	wchar_t w[32768];
	DWORD n = GetModuleFileNameW(m, w, 32768);
	if (n == 0 || n >= 32768)
		return fail_with(GetLastError());
	return narrow(w, out, size);
}

int platform_lib_path(void *lib, char *out, size_t size)
{
	return module_path((HMODULE)lib, out, size);
}

void platform_loaded_libs(void (*fn)(const char *path, void *ctx), void *ctx)
{
	HMODULE mods[1024];
	DWORD bytes = 0;
	if (!EnumProcessModules(GetCurrentProcess(), mods, sizeof(mods), &bytes))
		return;
	DWORD n = bytes / sizeof(HMODULE);
	if (n > 1024)
		n = 1024;
	for (DWORD i = 1; i < n; i++) { /* the first is the program itself */
		char path[32768];
		if (module_path(mods[i], path, sizeof(path)) == 0)
			fn(path, ctx);
	}
}

/* The loader tells us of every DLL it maps (LdrRegisterDllNotification, in ntdll since
 * Vista): nothing is missed however briefly it stays. */
struct dll_loaded {
	ULONG flags;
	const UNICODE_STRING *full_name;
	const UNICODE_STRING *base_name;
	void *base;
	ULONG size;
};
typedef void(CALLBACK *dll_notify_fn)(ULONG reason, const struct dll_loaded *data, void *ctx);
typedef LONG(NTAPI *register_fn)(ULONG flags, dll_notify_fn fn, void *ctx, void **cookie);
typedef LONG(NTAPI *unregister_fn)(void *cookie);

struct platform_lib_watch {
	const char *name;
	void *cookie;
	CRITICAL_SECTION lock;
	char seen[MAX_PATH * 3];
};

static void watch_one(const char *path, void *ctx)
{
	struct platform_lib_watch *w = ctx;
	EnterCriticalSection(&w->lock);
	if (!w->seen[0] && strstr(path, w->name))
		snprintf(w->seen, sizeof(w->seen), "%s", path);
	LeaveCriticalSection(&w->lock);
}

static void CALLBACK watch_notified(ULONG reason, const struct dll_loaded *data, void *ctx)
{
	char path[MAX_PATH * 3];
	if (reason != 1 || !data || !data->full_name) /* 1: loaded */
		return;
	int n = WideCharToMultiByte(CP_UTF8, 0, data->full_name->Buffer,
				    data->full_name->Length / (int)sizeof(wchar_t), path,
				    (int)sizeof(path) - 1, NULL, NULL);
	if (n <= 0)
		return;
	path[n] = '\0';
	watch_one(path, ctx);
}

static FARPROC ntdll(const char *name)
{
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");
	return nt ? GetProcAddress(nt, name) : NULL;
}

struct platform_lib_watch *platform_lib_watch_start(const char *name)
{
	register_fn reg = (register_fn)(void (*)(void))ntdll("LdrRegisterDllNotification");
	struct platform_lib_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->name = name;
	InitializeCriticalSection(&w->lock);
	if (reg)
		reg(0, watch_notified, w, &w->cookie);
	return w;
}

int platform_lib_watch_end(struct platform_lib_watch *w, char *path, size_t size)
{
	unregister_fn unreg = (unregister_fn)(void (*)(void))ntdll("LdrUnregisterDllNotification");
	if (!w)
		return -1;
	if (w->cookie && unreg)
		unreg(w->cookie);
	platform_loaded_libs(watch_one, w); /* and what is mapped now */
	int found = w->seen[0] ? 0 : -1;
	if (found == 0)
		snprintf(path, size, "%s", w->seen);
	DeleteCriticalSection(&w->lock);
	free(w);
	return found;
}

/* ---- child processes ---- */

/* Append s to the command line quoted as CommandLineToArgvW reads it back. */
static void append_arg(wchar_t **line, size_t *len, size_t *cap, const wchar_t *s)
{
	size_t need = *len + 2 * wcslen(s) + 4;
	if (need > *cap) {
		*cap = need * 2;
		*line = realloc(*line, *cap * sizeof(wchar_t));
		if (!*line)
			abort();
	}
	wchar_t *o = *line + *len;
	if (*len)
		*o++ = L' ';
	*o++ = L'"';
	for (const wchar_t *c = s;; c++) {
		size_t slashes = 0;
		while (*c == L'\\') {
			c++;
			slashes++;
		}
		/* backslashes before a quote (or the closing quote) are doubled */
		size_t times = (*c == L'"' || *c == 0) ? 2 * slashes : slashes;
		for (size_t i = 0; i < times; i++)
			*o++ = L'\\';
		if (*c == 0)
			break;
		if (*c == L'"')
			*o++ = L'\\';
		*o++ = *c;
	}
	*o++ = L'"';
	*o = 0;
	*len = (size_t)(o - *line);
}

static wchar_t *command_line(char *const argv[])
{
	size_t len = 0, cap = 256;
	wchar_t *line = calloc(cap, sizeof(wchar_t));
	for (size_t i = 0; line && argv[i]; i++) {
		wchar_t *w = wide(argv[i]);
		if (!w) {
			free(line);
			return NULL;
		}
		/* argv[0] as given: no \\?\ in a program's view of its own name */
		append_arg(&line, &len, &cap, wcsncmp(w, L"\\\\?\\", 4) == 0 ? w + 4 : w);
		free(w);
	}
	return line;
}

/* "NAME=value\0...\0\0", exactly envp. */
static wchar_t *environment_block(char *const envp[])
{
	size_t total = 1;
	for (size_t i = 0; envp[i]; i++)
		total += (size_t)MultiByteToWideChar(CP_UTF8, 0, envp[i], -1, NULL, 0);
	wchar_t *block = malloc((total + 1) * sizeof(wchar_t)), *o = block;
	if (!block)
		return NULL;
	for (size_t i = 0; envp[i]; i++)
		o += MultiByteToWideChar(CP_UTF8, 0, envp[i], -1, o, (int)(total - (size_t)(o - block)));
	*o++ = 0;
	if (o == block + 1)
		*o = 0; /* an empty environment is two NULs */
	return block;
}

static void collect(HANDLE pipe, struct platform_child *c)
{
	DWORD avail = 0, got = 0;
	while (PeekNamedPipe(pipe, NULL, 0, NULL, &avail, NULL) && avail > 0) {
		char *grown = realloc(c->output, c->output_len + avail + 1);
		if (!grown)
			return;
		c->output = grown;
		if (!ReadFile(pipe, c->output + c->output_len, avail, &got, NULL) || got == 0)
			return;
		c->output_len += got;
		c->output[c->output_len] = '\0';
	}
}

int platform_run(const char *prog, char *const argv[], char *const envp[],
		 enum platform_capture capture, int timeout_s, struct platform_child *c)
{
	memset(c, 0, sizeof(*c));
	wchar_t *wprog = wide(prog), *line = command_line(argv), *env = environment_block(envp);
	HANDLE read_end = NULL, write_end = NULL;
	HANDLE job = CreateJobObjectW(NULL, NULL);
	int rc = -1;
	DWORD e = ERROR_NOT_ENOUGH_MEMORY;
	PROCESS_INFORMATION pi = { 0 };
	STARTUPINFOW si = { 0 };
	si.cb = sizeof(si);
	if (!wprog || !line || !env || !job)
		goto out;
	/* The whole tree of processes dies with the job: a child that starts its own cannot
	 * outlive the deadline. */
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits = { 0 };
	limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
						  JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
	SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof(limits));
	if (capture != PLATFORM_CAPTURE_NONE) {
		SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
		if (!CreatePipe(&read_end, &write_end, &sa, 0)) {
			e = GetLastError();
			goto out;
		}
		SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);
		si.dwFlags = STARTF_USESTDHANDLES;
		si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
		si.hStdOutput = write_end;
		si.hStdError = capture == PLATFORM_CAPTURE_ALL ? write_end : GetStdHandle(STD_ERROR_HANDLE);
	}
	if (!CreateProcessW(wprog, line, NULL, NULL, capture != PLATFORM_CAPTURE_NONE,
			    CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW, env, NULL,
			    &si, &pi)) {
		e = GetLastError();
		goto out;
	}
	AssignProcessToJobObject(job, pi.hProcess);
	ResumeThread(pi.hThread);
	if (write_end) {
		CloseHandle(write_end); /* the child has its copy; end of file when it is gone */
		write_end = NULL;
	}
	ULONGLONG deadline = timeout_s > 0 ? GetTickCount64() + (ULONGLONG)timeout_s * 1000 : 0;
	for (;;) {
		if (read_end)
			collect(read_end, c);
		DWORD waited = WaitForSingleObject(pi.hProcess, read_end ? 5 : 100);
		if (waited == WAIT_OBJECT_0)
			break;
		if (deadline && GetTickCount64() >= deadline) {
			c->timed_out = 1;
			TerminateJobObject(job, 1);
			WaitForSingleObject(pi.hProcess, INFINITE);
			break;
		}
	}
	if (read_end)
		collect(read_end, c);
	rc = 0;
	DWORD code = 0;
	if (!c->timed_out && GetExitCodeProcess(pi.hProcess, &code)) {
		/* An unhandled exception ends a process with its NTSTATUS (0xC...): a crash. */
		if ((code & 0xF0000000u) == 0xC0000000u)
			snprintf(c->crash, sizeof(c->crash), "exception 0x%08lX%s", (unsigned long)code,
				 code == 0xC0000005u ? ", access violation" : "");
		else {
			c->exited = 1;
			c->exit_code = (int)code;
		}
	}
out:
	if (rc != 0)
		errno = errno_from(e);
	if (pi.hProcess)
		CloseHandle(pi.hProcess);
	if (pi.hThread)
		CloseHandle(pi.hThread);
	if (read_end)
		CloseHandle(read_end);
	if (write_end)
		CloseHandle(write_end);
	if (job)
		CloseHandle(job);
	free(wprog);
	free(line);
	free(env);
	return rc;
}
