/* platform_win_sysdll.c - where this program looks for DLLs it names (Windows): its own search
 * narrowed to System32 before anything else runs, Windows' DLLs that are not KnownDLLs
 * (version.dll, bcrypt.dll, ...) taken from System32 by full search flags, never imported, and
 * the probe child's search set to what an installed program gets. A DLL of any of these names
 * lying beside the program (a stick) or in the working directory is never loaded. */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

FARPROC win_system_proc(const wchar_t *dll, const char *name)
{
	/* The loader hands back the module already mapped (one more reference): it stays mapped
	 * for the life of the process, as an import would. */
	HMODULE m = LoadLibraryExW(dll, NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
	return m ? GetProcAddress(m, name) : NULL;
}

int platform_lib_search_system_only(void)
{
	/* Every later load by name (ours, the C runtime's, libarchive's) searches System32 alone.
	 * SetDllDirectoryW(L"") also takes the working directory out of the older search order
	 * that LOAD_WITH_ALTERED_SEARCH_PATH still uses. Static imports were resolved before this
	 * runs: they are KnownDLLs only (the Makefile checks), which Windows maps from its own
	 * copies whatever lies beside the program. */
	SetDllDirectoryW(L"");
	return SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_SYSTEM32) ? 0 : win_fail(GetLastError());
}

struct search_dirs {
	wchar_t **dirs;
	size_t n;
	wchar_t self[MAX_PATH + 1], cwd[MAX_PATH + 1];
};

/* dir as a full path, or NULL for one that is relative ("." is the working directory). */
static wchar_t *full_dir(const char *dir)
{
	if (!win_is_absolute(dir))
		return NULL;
	wchar_t *w = win_wide(dir), *out = NULL;
	DWORD n = w ? GetFullPathNameW(w, 0, NULL, NULL) : 0;
	out = n ? malloc(n * sizeof(wchar_t)) : NULL;
	if (out && GetFullPathNameW(w, n, out, NULL) == 0) {
		free(out);
		out = NULL;
	}
	free(w);
	size_t len = out ? wcslen(out) : 0;
	while (len > 3 && (out[len - 1] == L'\\' || out[len - 1] == L'/'))
		out[--len] = L'\0';
	return out;
}

/* "\\?\C:\x" and "C:\x" name the same directory. */
static const wchar_t *plain(const wchar_t *w)
{
	return wcsncmp(w, L"\\\\?\\", 4) == 0 ? w + 4 : w;
}

static void keep_dir(const char *dir, const char *source, void *ctx)
{
	(void)source;
	struct search_dirs *s = ctx;
	wchar_t *w = full_dir(dir);
	if (!w || _wcsicmp(plain(w), s->self) == 0 || _wcsicmp(plain(w), s->cwd) == 0) {
		free(w);
		return;
	}
	wchar_t **grown = realloc(s->dirs, (s->n + 1) * sizeof(*grown));
	if (!grown) {
		free(w);
		return;
	}
	s->dirs = grown;
	s->dirs[s->n++] = w;
}

/* The directory of this program, and the working directory, as full paths without a
 * trailing separator. */
static void excluded_dirs(struct search_dirs *s)
{
	DWORD n = GetModuleFileNameW(NULL, s->self, MAX_PATH);
	if (n == 0 || n >= MAX_PATH)
		s->self[0] = L'\0';
	wchar_t *slash = wcsrchr(s->self, L'\\');
	if (slash)
		*slash = L'\0';
	n = GetCurrentDirectoryW(MAX_PATH + 1, s->cwd);
	if (n == 0 || n > MAX_PATH)
		s->cwd[0] = L'\0';
	size_t len = wcslen(s->cwd);
	while (len > 3 && s->cwd[len - 1] == L'\\')
		s->cwd[--len] = L'\0';
	wcscpy(s->self, plain(s->self));
}

int platform_lib_search_as_installed(void)
{
	/* What a product loads by name (cuBLAS, NVRTC, its own sub-libraries) is found where an
	 * installed program finds it: System32, the Windows directory, then the machine's and the
	 * user's PATH as the install wrote them (platform_lib_config_dirs, the list validation's
	 * steps 3 and 4 read as files). Never the application directory (this program's, perhaps
	 * a stick) nor the working directory: LOAD_LIBRARY_SEARCH_APPLICATION_DIR is not among the
	 * flags, SetDllDirectoryW(L"") takes the working directory out of the older search order,
	 * and either directory is skipped should PATH name it (or name "."). */
	struct search_dirs s = { NULL, 0, L"", L"" };
	excluded_dirs(&s);
	SetDllDirectoryW(L"");
	if (!SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_SYSTEM32 | LOAD_LIBRARY_SEARCH_USER_DIRS))
		return win_fail(GetLastError());
	platform_lib_config_dirs("", keep_dir, &s);
	/* Windows does not promise an order among added directories; it (and Wine) searches the
	 * one added last first, so they are added last to first to be searched in PATH's order. */
	for (size_t i = s.n; i-- > 0;) {
		AddDllDirectory(plain(s.dirs[i]));
		free(s.dirs[i]);
	}
	free(s.dirs);
	return 0;
}
