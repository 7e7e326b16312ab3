/* platform_win_child.c - what a child process inherits: the report pipe, and nothing else of
 * ours (Windows). Every handle this program opens is not inheritable; the pipe's write end
 * is the one exception, and platform_run names it (win_child_pipes) in the list of handles a child inherits. The
 * child finds that handle by its value (a HANDLE, not a C runtime descriptor number):
 * platform_child_pipe's write end as _get_osfhandle gives it. */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <fcntl.h>
#include <io.h>
#include <psapi.h>
#include <windows.h>

/* The write ends made for children; a slot whose handle was closed since no longer says
 * HANDLE_FLAG_INHERIT (a value reused for another handle is not inheritable either). */
static HANDLE pipes[16];

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
	 * handles are not ours to close. 2048: the C runtime's limit on descriptors. */
	for (int fd = 3; fd < 2048; fd++)
		if (fd != keep && _get_osfhandle(fd) != -1)
			_close(fd);
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
