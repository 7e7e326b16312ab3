/* platform_win_loader.c - where the system finds DLLs (Windows): a program loading a DLL by
 * name gets, after its own directory, System32, the Windows directory, then each directory
 * of PATH in order: the machine's PATH (HKLM) before the user's (HKCU), entries expanded as
 * the system expands them. There is no loader cache. */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

static void system_dir(UINT (WINAPI *get)(LPWSTR, UINT), const char *source,
		       void (*fn)(const char *dir, const char *source, void *ctx), void *ctx)
{
	wchar_t w[MAX_PATH + 1];
	char dir[MAX_PATH * 3];
	UINT n = get(w, MAX_PATH + 1);
	if (n > 0 && n <= MAX_PATH && win_narrow(w, dir, sizeof(dir)) == 0)
		fn(dir, source, ctx);
}

/* Each entry of the stored PATH of scope, expanded, empty ones skipped. */
static void path_dirs(enum platform_env_scope scope, const char *source,
		      void (*fn)(const char *dir, const char *source, void *ctx), void *ctx)
{
	char *value = NULL;
	int expandable = 0;
	if (platform_env_read(scope, "Path", &value, &expandable) != 0)
		return;
	for (char *entry = value, *end; entry; entry = end ? end + 1 : NULL) {
		/* A ';' inside double quotes belongs to the entry ("C:\a;b"), and the quotes are
		 * not part of the name: they are dropped as the entry is read. */
		char *o = entry;
		int quoted = 0;
		for (end = entry; *end && (quoted || *end != ';'); end++)
			if (*end == '"')
				quoted = !quoted;
			else
				*o++ = *end;
		if (!*end)
			end = NULL;
		*o = '\0';
		if (!*entry)
			continue;
		int wn = MultiByteToWideChar(CP_UTF8, 0, entry, -1, NULL, 0);
		wchar_t *w = wn > 0 ? malloc((size_t)wn * sizeof(wchar_t)) : NULL;
		if (!w)
			continue;
		MultiByteToWideChar(CP_UTF8, 0, entry, -1, w, wn);
		DWORD xn = expandable ? ExpandEnvironmentStringsW(w, NULL, 0) : 0;
		wchar_t *x = xn ? malloc(xn * sizeof(wchar_t)) : NULL;
		if (x && ExpandEnvironmentStringsW(w, x, xn)) {
			free(w);
			w = x;
		} else {
			free(x);
		}
		size_t dn = wcslen(w) * 3 + 1;
		char *dir = malloc(dn);
		if (dir && win_narrow(w, dir, dn) == 0)
			fn(dir, source, ctx);
		free(dir);
		free(w);
	}
	free(value);
}

void platform_lib_config_dirs(const char *root,
			      void (*fn)(const char *dir, const char *source, void *ctx), void *ctx)
{
	if (root && root[0])
		return; /* the registry belongs to the running system: nothing to read under a root */
	system_dir(GetSystemDirectoryW, "System32", fn, ctx);
	system_dir(GetWindowsDirectoryW, "Windows", fn, ctx);
	path_dirs(PLATFORM_ENV_MACHINE, "HKLM", fn, ctx);
	path_dirs(PLATFORM_ENV_USER, "HKCU", fn, ctx);
}

int platform_lib_cache_find(const char *name,
			    void (*fn)(const char *path, const char *flags, void *ctx), void *ctx)
{
	(void)name;
	(void)fn;
	(void)ctx;
	return 0; /* Windows keeps no cache of DLLs: the search above is all there is */
}

const char *platform_lib_cache_program(void)
{
	return NULL; /* no cache, so nothing rebuilds one */
}

int platform_system_lib_dir(char *out, size_t size)
{
	wchar_t w[MAX_PATH + 1];
	UINT n = GetSystemDirectoryW(w, MAX_PATH + 1);
	return n > 0 && n <= MAX_PATH && win_narrow(w, out, size) == 0 ? 0 : -1;
}

int platform_lib_search_is_dirs(void)
{
	return 1; /* System32, the Windows directory, then PATH: files, in that order */
}
