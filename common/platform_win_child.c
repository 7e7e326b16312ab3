/* platform_win_child.c - what a child process inherits: the report pipe, and nothing else of
 * ours (Windows). Every handle this program opens is not inheritable; the pipe's write end
 * is the one exception, and platform_run names it (win_child_pipes) in the list of handles a child inherits. The
 * child finds that handle by its value (a HANDLE, not a C runtime descriptor number):
 * platform_child_pipe's write end as _get_osfhandle gives it. */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <io.h>
#include <psapi.h>
#include <windows.h>

/* The write ends made for children; a slot whose handle was closed since no longer says
 * HANDLE_FLAG_INHERIT (a value reused for another handle is not inheritable either). One list
 * per thread: probes started at once from several threads (validation's steps 2-4 beside each
 * GPU's step 6) each give their child only their own pipe, so no child holds another's
 * write end open, and each parent sees its end of file when its own child ends. */
static __thread HANDLE pipes[16];

size_t win_child_pipes(HANDLE *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < sizeof(pipes) / sizeof(pipes[0]) && n < max; i++) {
		DWORD flags = 0;
		if (pipes[i] && GetHandleInformation(pipes[i], &flags) && (flags & HANDLE_FLAG_INHERIT))
			out[n++] = pipes[i];
		else
			pipes[i] = NULL;
	}
	return n;
}

static void remember(HANDLE w)
{
	for (size_t i = 0; i < sizeof(pipes) / sizeof(pipes[0]); i++)
		if (!pipes[i]) {
			pipes[i] = w;
			return;
		}
}

int platform_child_pipe(int *read_end, int *write_end, size_t capacity)
{
	HANDLE r, w;
	if (!CreatePipe(&r, &w, NULL, capacity > 0xFFFFFFFFu ? 0 : (DWORD)capacity))
		return win_fail(GetLastError());
	SetHandleInformation(w, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
	int rfd = win_fd(r, _O_RDONLY | _O_BINARY);
	if (rfd < 0) {
		CloseHandle(w);
		return -1;
	}
	int wfd = win_fd(w, _O_WRONLY | _O_BINARY);
	if (wfd < 0) {
		_close(rfd);
		return -1;
	}
	remember(w);
	*read_end = rfd;
	*write_end = wfd;
	return 0;
}

void platform_close_other_handles(int keep)
{
	/* The C runtime's descriptors are all we can name; the loader's and the system's own
	 * handles are not ours to close. 2048: the C runtime's limit on descriptors. win_handle
	 * asks about each without the C runtime's complaint about one that is not open. */
	for (int fd = 3; fd < 2048; fd++)
		if (fd != keep && win_handle(fd) != INVALID_HANDLE_VALUE)
			_close(fd);
}

/* The pipe's HANDLE as a number: the child inherits the handle itself (platform_run lists it),
 * never the C runtime's descriptor, whose number means nothing in another process. */
int platform_child_handle_arg(int write_end, char *out, size_t size)
{
	HANDLE h = win_handle(write_end);
	if (h == INVALID_HANDLE_VALUE)
		return win_fail(ERROR_INVALID_HANDLE);
	int n = snprintf(out, size, "%llu", (unsigned long long)(uintptr_t)h);
	return n > 0 && (size_t)n < size ? 0 : win_fail(ERROR_INSUFFICIENT_BUFFER);
}

int platform_inherited_handle(const char *arg)
{
	char *end = NULL;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	HANDLE h = (HANDLE)(uintptr_t)v;
	DWORD flags = 0;
	/* Only a pipe this process really holds: a number that names nothing, or a file or a
	 * console, is refused. */
	if (errno || !end || *end || end == arg || v == 0 || v > UINTPTR_MAX ||
	    !GetHandleInformation(h, &flags) || GetFileType(h) != FILE_TYPE_PIPE)
		return -1;
	/* Not inherited any further: a grandchild gets nothing of it. */
	SetHandleInformation(h, HANDLE_FLAG_INHERIT, 0);
	int fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);
	return fd >= 3 ? fd : -1;
}

/* What a child needs of an environment to start at all: Windows DLLs find the system
 * through SystemRoot, and its PATH is System32 alone (nothing the user put on PATH). */
const char *const *platform_clean_env(void)
{
	static char root[MAX_PATH * 3 + 16], path[MAX_PATH * 3 + 16];
	static const char *env[3];
	wchar_t w[MAX_PATH + 1];
	char dir[MAX_PATH * 3];
	UINT n = GetWindowsDirectoryW(w, MAX_PATH + 1);
	if (n > 0 && n <= MAX_PATH && win_narrow(w, dir, sizeof(dir)) == 0)
		snprintf(root, sizeof(root), "SystemRoot=%s", dir);
	n = GetSystemDirectoryW(w, MAX_PATH + 1);
	if (n > 0 && n <= MAX_PATH && win_narrow(w, dir, sizeof(dir)) == 0)
		snprintf(path, sizeof(path), "PATH=%s", dir);
	size_t k = 0;
	if (root[0])
		env[k++] = root;
	if (path[0])
		env[k++] = path;
	env[k] = NULL;
	return env;
}

unsigned long platform_user_id(void)
{
	HANDLE token;
	BYTE buf[256];
	DWORD n;
	unsigned long id = (unsigned long)-1;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return id;
	if (GetTokenInformation(token, TokenUser, buf, sizeof(buf), &n)) {
		PSID sid = ((TOKEN_USER *)buf)->User.Sid;
		if (win_trusted_sid(sid))
			id = 0;
		else if (*GetSidSubAuthorityCount(sid) > 0)
			id = *GetSidSubAuthority(sid, *GetSidSubAuthorityCount(sid) - 1u);
	}
	CloseHandle(token);
	return id;
}
