/* platform_win_env.c - the persistent environment in the registry (Windows): the machine's
 * and the user's Environment keys, read and written as stored (REG_EXPAND_SZ stays
 * REG_EXPAND_SZ, %VARIABLES% unexpanded, no length limit), and WM_SETTINGCHANGE. */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

#ifndef RRF_NOEXPAND
#define RRF_NOEXPAND 0x10000000
#endif

static HKEY root_of(enum platform_env_scope scope)
{
	return scope == PLATFORM_ENV_MACHINE ? HKEY_LOCAL_MACHINE : HKEY_CURRENT_USER;
}

static const wchar_t *key_of(enum platform_env_scope scope)
{
	return scope == PLATFORM_ENV_MACHINE
		       ? L"SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
		       : L"Environment";
}

/* UTF-8 to wide as it is: a registry value is no path, so no \\?\ and no '/' changed. */
static wchar_t *plain_wide(const char *utf8)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
	wchar_t *w = n > 0 ? malloc((size_t)n * sizeof(wchar_t)) : NULL;
	if (n <= 0)
		errno = EINVAL;
	else if (!w)
		errno = ENOMEM;
	else
		MultiByteToWideChar(CP_UTF8, 0, utf8, -1, w, n);
	return w;
}

static char *plain_utf8(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s = n > 0 ? malloc((size_t)n) : NULL;
	if (!s)
		errno = n > 0 ? ENOMEM : EINVAL;
	else
		WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
	return s;
}

int platform_env_read(enum platform_env_scope scope, const char *name, char **value,
		      int *expandable)
{
	wchar_t *wname = plain_wide(name), *data = NULL;
	DWORD type = 0, size = 0;
	LONG e = ERROR_NOT_ENOUGH_MEMORY;
	*value = NULL;
	*expandable = 0;
	if (!wname)
		return -1;
	/* The value may grow between the two calls: ask again until it fits. */
	for (int tries = 0; tries < 8; tries++) {
		e = RegGetValueW(root_of(scope), key_of(scope), wname,
				 RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ | RRF_NOEXPAND, &type, NULL, &size);
		if (e != ERROR_SUCCESS)
			break;
		free(data);
		data = malloc(size + sizeof(wchar_t));
		if (!data) {
			e = ERROR_NOT_ENOUGH_MEMORY;
			break;
		}
		e = RegGetValueW(root_of(scope), key_of(scope), wname,
				 RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ | RRF_NOEXPAND, &type, data, &size);
		if (e != ERROR_MORE_DATA)
			break;
	}
	free(wname);
	if (e == ERROR_SUCCESS) {
		data[size / sizeof(wchar_t)] = L'\0';
		*value = plain_utf8(data);
		*expandable = type == REG_EXPAND_SZ;
	}
	free(data);
	if (e != ERROR_SUCCESS)
		return win_fail((DWORD)e);
	return *value ? 0 : -1;
}

int platform_env_write(enum platform_env_scope scope, const char *name, const char *value,
		       int expandable)
{
	wchar_t *wname = plain_wide(name), *wvalue = wname ? plain_wide(value) : NULL;
	HKEY key = NULL;
	LONG e = ERROR_NOT_ENOUGH_MEMORY;
	if (wvalue) {
		e = RegCreateKeyExW(root_of(scope), key_of(scope), 0, NULL, 0, KEY_SET_VALUE, NULL,
				    &key, NULL);
		if (e == ERROR_SUCCESS) {
			size_t bytes = (wcslen(wvalue) + 1) * sizeof(wchar_t);
			e = bytes > 0xFFFFFFFFu ? ERROR_INVALID_PARAMETER
			    : RegSetValueExW(key, wname, 0, expandable ? REG_EXPAND_SZ : REG_SZ,
					     (const BYTE *)wvalue, (DWORD)bytes);
			RegCloseKey(key);
		}
	}
	free(wname);
	free(wvalue);
	return e == ERROR_SUCCESS ? 0 : win_fail((DWORD)e);
}

int platform_env_delete(enum platform_env_scope scope, const char *name)
{
	wchar_t *wname = plain_wide(name);
	HKEY key = NULL;
	if (!wname)
		return -1;
	LONG e = RegOpenKeyExW(root_of(scope), key_of(scope), 0, KEY_SET_VALUE, &key);
	if (e == ERROR_SUCCESS) {
		e = RegDeleteValueW(key, wname);
		RegCloseKey(key);
	}
	free(wname);
	return e == ERROR_SUCCESS || e == ERROR_FILE_NOT_FOUND ? 0 : win_fail((DWORD)e);
}

typedef LRESULT(WINAPI *send_timeout_fn)(HWND, UINT, WPARAM, LPARAM, UINT, UINT, PDWORD_PTR);

int platform_env_announce(void)
{
	DWORD_PTR result;
	/* user32.dll is a KnownDLL, but it is loaded only here, from System32, after the DLL
	 * search was narrowed: what it imports in turn (Wine's imports version.dll) is then never
	 * looked for beside the program either. */
	send_timeout_fn send = (send_timeout_fn)(void (*)(void))win_system_proc(L"user32.dll",
										 "SendMessageTimeoutW");
	/* SMTO_ABORTIFHUNG: a window that does not answer is skipped, never waited for long. */
	if (send)
		send(HWND_BROADCAST, WM_SETTINGCHANGE, 0, (LPARAM)L"Environment", SMTO_ABORTIFHUNG,
		     5000, &result);
	return 0;
}

char platform_dir_separator(void)
{
	return '\\';
}

int platform_is_separator(char c)
{
	return c == '/' || c == '\\';
}

int platform_path_is_absolute(const char *path)
{
	return win_is_absolute(path);
}

/* The process's own variables, as Windows sets them at log-on: no shell32 import (the
 * unpacker imports only kernel32, advapi32 and the few others its test lists). */
int platform_known_folder(enum platform_folder which, char *out, size_t size)
{
	static const wchar_t *const names[] = { L"ProgramFiles", L"LOCALAPPDATA", L"ProgramData" };
	wchar_t w[32768];
	DWORD n = GetEnvironmentVariableW(names[which], w, 32768);
	if (n == 0 || n >= 32768)
		return errno = ENOENT, -1;
	while (n > 3 && (w[n - 1] == L'\\' || w[n - 1] == L'/'))
		w[--n] = L'\0';
	if (win_narrow(w, out, size) != 0 || !win_is_absolute(out))
		return errno = ENOENT, -1;
	return 0;
}

unsigned platform_file_mode_kept(unsigned mode)
{
	return mode & 0200 ? 0644 : 0444; /* as platform_stat reports the read-only attribute */
}
