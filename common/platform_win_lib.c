/* platform_win_lib.c - DLLs loaded at run time, by full path with their imports from their
 * own directory and System32, and watched as the loader maps them (Windows) */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <errno.h>
#include <psapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <winternl.h>

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
	wchar_t *w = win_wide(path_or_name);
	if (!w) {
		set_lib_error(path_or_name, ERROR_INVALID_NAME);
		return NULL;
	}
	/* A full path: its imports come from its own directory, System32 and, in the probe
	 * child, the directories an installed program searches (platform_lib_search_as_installed),
	 * never from this program's directory or the current directory. A bare name: the search
	 * that platform_lib_search_* set for this process. */
	HMODULE lib = win_is_absolute(path_or_name)
			      ? LoadLibraryExW(w, NULL, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
							LOAD_LIBRARY_SEARCH_SYSTEM32 |
							LOAD_LIBRARY_SEARCH_USER_DIRS)
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


int platform_lib_path(void *lib, char *out, size_t size)
{
	return win_module_path((HMODULE)lib, out, size);
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
		if (win_module_path(mods[i], path, sizeof(path)) == 0)
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
