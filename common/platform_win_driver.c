/* platform_win_driver.c - the GPU driver the system runs (Windows): the version resource of
 * System32's nvcuda.dll, which the driver installs, read without loading it. */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#include <windows.h>

int win_driver_version_of(unsigned c, unsigned d, char *out, size_t size)
{
	/* 32.0.15.6094: "15" and "6094" (four digits) give 156094; its last five digits are
	 * 56094, the driver 560.94. */
	unsigned long digits = ((unsigned long)(c % 100) * 10000ul + d % 10000) % 100000ul;
	int n = snprintf(out, size, "%lu.%02lu", digits / 100, digits % 100);
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* version.dll is not a KnownDLL: its three calls come from System32's copy (win_system_proc). */
typedef DWORD(WINAPI *info_size_fn)(LPCWSTR, LPDWORD);
typedef BOOL(WINAPI *info_fn)(LPCWSTR, DWORD, DWORD, LPVOID);
typedef BOOL(WINAPI *query_fn)(LPCVOID, LPCWSTR, LPVOID *, PUINT);

int platform_driver_version(const char *root, char *out, size_t size)
{
	info_size_fn info_size =
		(info_size_fn)(void (*)(void))win_system_proc(L"version.dll", "GetFileVersionInfoSizeW");
	info_fn info_get = (info_fn)(void (*)(void))win_system_proc(L"version.dll", "GetFileVersionInfoW");
	query_fn query = (query_fn)(void (*)(void))win_system_proc(L"version.dll", "VerQueryValueW");
	wchar_t path[MAX_PATH + 16];
	if (root && root[0])
		return -1; /* only this system's driver can be asked */
	UINT n = GetSystemDirectoryW(path, MAX_PATH);
	if (n == 0 || n >= MAX_PATH)
		return -1;
	wcscpy(path + n, L"\\nvcuda.dll");
	if (!info_size || !info_get || !query)
		return -1;
	DWORD ignored = 0, bytes = info_size(path, &ignored);
	void *info = bytes ? malloc(bytes) : NULL;
	VS_FIXEDFILEINFO *fixed = NULL;
	UINT len = 0;
	int rc = -1;
	if (info && info_get(path, 0, bytes, info) &&
	    query(info, L"\\", (void **)&fixed, &len) && fixed && len >= sizeof(*fixed))
		rc = win_driver_version_of(HIWORD(fixed->dwFileVersionLS), LOWORD(fixed->dwFileVersionLS),
					   out, size);
	free(info);
	return rc;
}
