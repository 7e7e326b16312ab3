/* platform_win_internal.h - what the Windows platform files share among themselves (never
 * included outside common/platform_win*.c: it names Windows types) */
#ifndef COMMON_PLATFORM_WIN_INTERNAL_H
#define COMMON_PLATFORM_WIN_INTERNAL_H

#include <stddef.h>
#include <windows.h>

#ifndef LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR
#define LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR 0x00000100
#define LOAD_LIBRARY_SEARCH_SYSTEM32 0x00000800
#endif
#ifndef ENOTSUP
#define ENOTSUP 129
#endif

/* The errno value for a Windows error code. */
int win_errno(DWORD e);
/* errno from e, and -1. */
int win_fail(DWORD e);
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

#endif
