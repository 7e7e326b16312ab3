/* platform_win_internal.h - what the Windows platform files share among themselves (never
 * included outside common/platform_win*.c and tests/windows: it names Windows types) */
#ifndef COMMON_PLATFORM_WIN_INTERNAL_H
#define COMMON_PLATFORM_WIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <windows.h>

#ifndef LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR
#define LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR 0x00000100
#define LOAD_LIBRARY_SEARCH_SYSTEM32 0x00000800
#define LOAD_LIBRARY_SEARCH_USER_DIRS 0x00000400
#endif
#ifndef ENOTSUP
#define ENOTSUP 129
#endif

/* ---- conversions (platform_win.c) ---- */

/* The errno value for a Windows error code. */
int win_errno(DWORD e);
/* errno from e, and -1; e is kept (per thread) for platform_strerror. */
int win_fail(DWORD e);
/* "Windows error N: TEXT" (the system's text, FormatMessage, on one line without its final
 * period), or "Windows error N" when the system has none. */
void win_error_text(DWORD code, char *out, size_t size);
/* 1 for "C:\..." or "C:/...". */
int win_is_absolute(const char *p);
/* UTF-8 to a fresh wide string (free() it); absolute drive paths get \\?\ and backslashes.
 * NULL with errno set. */
wchar_t *win_wide(const char *utf8);
/* A wide string as UTF-8 into out, without the \\?\ prefix. */
int win_narrow(const wchar_t *w, char *out, size_t size);
/* The system handle behind a C runtime descriptor, and a descriptor for a handle (closed,
 * and -1, when there is none to give). */
HANDLE win_handle(int fd);
int win_fd(HANDLE h, int flags);
/* Open w without following a reparse point at its last component; refuse one there. */
HANDLE win_open_no_follow(const wchar_t *w, DWORD access, DWORD share, DWORD disposition,
			  DWORD flags, SECURITY_ATTRIBUTES *sa);
/* The file a loaded module (NULL: this program) came from, as UTF-8. */
int win_module_path(HMODULE m, char *out, size_t size);
/* 1 for Administrators, SYSTEM or TrustedInstaller: the owners of system directories. */
int win_trusted_sid(PSID sid);

/* ---- private names (platform_win_tree.c) ---- */

/* Full control for SYSTEM, Administrators and this user, nothing inherited from above, in
 * sa (its descriptor LocalFree()d by the caller); NULL on failure. */
SECURITY_ATTRIBUTES *win_private_attributes(SECURITY_ATTRIBUTES *sa);
/* A template ending in "XXXXXX": its length in *len and the private attributes for what is
 * made from it in *sa (LocalFree its descriptor); -1 (EINVAL) for another name. */
int win_template(const char *template, size_t *len, SECURITY_ATTRIBUTES *sa);
/* Six characters nobody can guess, for "XXXXXX" (attempt: the how-manyth try). */
void win_random_name(char *six, int attempt);
/* The path of an open file or directory (\\?\C:\...), from its handle; free() it. */
wchar_t *win_handle_path(int handle);

/* ---- children (platform_win_child.c) ---- */

/* The pipe write ends of platform_child_pipe still open, for a child to inherit: their count
 * (max at most) in out. */
size_t win_child_pipes(HANDLE *out, size_t max);

/* ---- Windows' own DLLs that are not KnownDLLs (platform_win_sysdll.c) ---- */

/* name from the DLL dll ("version.dll") of System32, loaded from there alone (never imported:
 * an import of a DLL that is not a KnownDLL is looked for beside the program first); NULL
 * when either is missing. Cast to the function's type through void (*)(void). */
FARPROC win_system_proc(const wchar_t *dll, const char *name);

/* ---- the GPU driver (platform_win_driver.c) ---- */

/* The NVIDIA driver version a driver file's version resource (a.b.c.d) stands for: the last
 * five digits of c and d together, "560.94" for 32.0.15.6094; -1 when out is too small. */
int win_driver_version_of(unsigned c, unsigned d, char *out, size_t size);

#endif
