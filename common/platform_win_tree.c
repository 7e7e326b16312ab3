/* platform_win_tree.c - the no-follow tree an install is written into (Windows): every
 * directory on the way is opened without following a reparse point, checked, and held open
 * without FILE_SHARE_DELETE until the entry below it exists. */
#define _CRT_RAND_S /* rand_s: the system's random numbers, for names nobody can guess */
#include "common/platform.h"
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

/* ---- the no-follow tree ---- */

/* Full control for SYSTEM, Administrators and this user; nothing inherited from above. */
SECURITY_ATTRIBUTES *win_private_attributes(SECURITY_ATTRIBUTES *sa)
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

void win_random_name(char *six, int attempt)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	for (int i = 0; i < 6; i++) {
		unsigned r = 0;
		if (rand_s(&r) != 0)
			r = (unsigned)GetTickCount() * 2654435761u + (unsigned)attempt * 40503u + (unsigned)i;
		six[i] = chars[r % 36];
	}
}

int win_template(const char *template, size_t *len, SECURITY_ATTRIBUTES *sa)
{
	*len = strlen(template);
	if (*len < 6 || strcmp(template + *len - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return -1;
	}
	return win_private_attributes(sa) ? 0 : win_fail(GetLastError());
}

int platform_private_dir(char *template)
{
	size_t len;
	SECURITY_ATTRIBUTES sa;
	if (win_template(template, &len, &sa) != 0)
		return -1;
	int rc = -1;
	for (int attempt = 0; attempt < 100 && rc != 0; attempt++) {
		win_random_name(template + len - 6, attempt);
		wchar_t *w = win_wide(template);
		if (!w)
			break;
		if (CreateDirectoryW(w, &sa))
			rc = 0;
		else if (GetLastError() != ERROR_ALREADY_EXISTS)
			attempt = 100, rc = win_fail(GetLastError());
		free(w);
	}
	LocalFree(sa.lpSecurityDescriptor);
	return rc;
}

static HANDLE open_dir(const wchar_t *w)
{
	/* No FILE_SHARE_DELETE: while we hold it, nobody renames it or swaps it for a link. */
	return win_open_no_follow(w, GENERIC_READ | READ_CONTROL | WRITE_DAC, FILE_SHARE_READ | FILE_SHARE_WRITE,
			      OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
}

int platform_tree_open(const char *dir)
{
	wchar_t *w = win_wide(dir);
	if (!w)
		return -1;
	HANDLE h = open_dir(w);
	DWORD e = GetLastError();
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return win_fail(e);
	return win_fd(h, _O_RDONLY | _O_BINARY);
}

/* The path of an open file or directory, from its handle (\\?\C:\...). */
wchar_t *win_handle_path(int tree)
{
	HANDLE h = win_handle(tree);
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return NULL;
	}
	DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	wchar_t *w = n ? malloc((n + 1) * sizeof(wchar_t)) : NULL;
	if (!w || GetFinalPathNameByHandleW(h, w, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS) == 0) {
		free(w);
		win_fail(GetLastError());
		return NULL;
	}
	return w;
}


/* A name from an archive that Windows would read as something else is refused: empty, ".",
 * "..", a drive or stream (':'), a backslash, or a trailing dot or space. */
static int win_safe_component(const char *s, size_t n)
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
	wchar_t *path = win_handle_path(tree), *wrel = NULL;
	HANDLE held = INVALID_HANDLE_VALUE;
	if (!path)
		return -1;
	for (const char *p = relpath;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (!win_safe_component(p, n)) {
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
	wrel = rel ? win_wide(rel) : NULL;
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
		return win_fail(e);
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
		return win_fail(e);
	return win_fd(h, _O_WRONLY | _O_BINARY);
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
	return win_fd(parent, _O_RDONLY | _O_BINARY);
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
	return ok ? 0 : win_fail(e);
}

int platform_file_finish(int fd, unsigned mode)
{
	/* Windows has no mode bits: the install's permissions come from its directory's ACL. The
	 * data goes to disk now, since the tree has no syncfs to do it at commit. */
	(void)mode;
	BOOL flushed = FlushFileBuffers(win_handle(fd));
	DWORD e = GetLastError();
	if (_close(fd) != 0)
		return -1;
	return flushed ? 0 : win_fail(e);
}

int platform_tree_commit(int tree)
{
	/* Readers get what the parent directory grants (its inheritable entries), like 0755. */
	ACL empty;
	if (!InitializeAcl(&empty, sizeof(empty), ACL_REVISION))
		return win_fail(GetLastError());
	wchar_t *path = win_handle_path(tree);
	if (!path)
		return -1;
	DWORD e = SetNamedSecurityInfoW(path, SE_FILE_OBJECT,
					DACL_SECURITY_INFORMATION | UNPROTECTED_DACL_SECURITY_INFORMATION,
					NULL, NULL, &empty, NULL);
	free(path);
	return e == ERROR_SUCCESS ? 0 : win_fail(e);
}

void platform_tree_close(int tree)
{
	if (tree >= 0)
		_close(tree);
}
