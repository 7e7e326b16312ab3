/* platform_win_process.c - child processes in a job object, with exactly the environment
 * given and their output collected (Windows) */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

/* ---- child processes ---- */

/* Append s to the command line quoted as CommandLineToArgvW reads it back. */
static void append_arg(wchar_t **line, size_t *len, size_t *cap, const wchar_t *s)
{
	size_t need = *len + 2 * wcslen(s) + 4;
	if (need > *cap) {
		*cap = need * 2;
		*line = realloc(*line, *cap * sizeof(wchar_t));
		if (!*line)
			abort();
	}
	wchar_t *o = *line + *len;
	if (*len)
		*o++ = L' ';
	*o++ = L'"';
	for (const wchar_t *c = s;; c++) {
		size_t slashes = 0;
		while (*c == L'\\') {
			c++;
			slashes++;
		}
		/* backslashes before a quote (or the closing quote) are doubled */
		size_t times = (*c == L'"' || *c == 0) ? 2 * slashes : slashes;
		for (size_t i = 0; i < times; i++)
			*o++ = L'\\';
		if (*c == 0)
			break;
		if (*c == L'"')
			*o++ = L'\\';
		*o++ = *c;
	}
	*o++ = L'"';
	*o = 0;
	*len = (size_t)(o - *line);
}

static wchar_t *command_line(char *const argv[])
{
	size_t len = 0, cap = 256;
	wchar_t *line = calloc(cap, sizeof(wchar_t));
	for (size_t i = 0; line && argv[i]; i++) {
		wchar_t *w = win_wide(argv[i]);
		if (!w) {
			free(line);
			return NULL;
		}
		/* argv[0] as given: no \\?\ in a program's view of its own name */
		append_arg(&line, &len, &cap, wcsncmp(w, L"\\\\?\\", 4) == 0 ? w + 4 : w);
		free(w);
	}
	return line;
}

/* "NAME=value\0...\0\0", exactly envp. */
static wchar_t *environment_block(char *const envp[])
{
	size_t total = 1;
	for (size_t i = 0; envp[i]; i++)
		total += (size_t)MultiByteToWideChar(CP_UTF8, 0, envp[i], -1, NULL, 0);
	wchar_t *block = malloc((total + 1) * sizeof(wchar_t)), *o = block;
	if (!block)
		return NULL;
	for (size_t i = 0; envp[i]; i++)
		o += MultiByteToWideChar(CP_UTF8, 0, envp[i], -1, o, (int)(total - (size_t)(o - block)));
	*o++ = 0;
	if (o == block + 1)
		*o = 0; /* an empty environment is two NULs */
	return block;
}

static void collect(HANDLE pipe, struct platform_child *c)
{
	DWORD avail = 0, got = 0;
	while (PeekNamedPipe(pipe, NULL, 0, NULL, &avail, NULL) && avail > 0) {
		char *grown = realloc(c->output, c->output_len + avail + 1);
		if (!grown)
			return;
		c->output = grown;
		if (!ReadFile(pipe, c->output + c->output_len, avail, &got, NULL) || got == 0)
			return;
		c->output_len += got;
		c->output[c->output_len] = '\0';
	}
}

/* platform_run with the child's primary token given: NULL, a copy of ours (CreateProcessW);
 * else that token (CreateProcessAsUserW). */
static int run_as(HANDLE token, const char *prog, char *const argv[], char *const envp[],
		  enum platform_capture capture, int timeout_s, struct platform_child *c)
{
	memset(c, 0, sizeof(*c));
	wchar_t *wprog = win_wide(prog), *line = command_line(argv), *env = environment_block(envp);
	HANDLE read_end = NULL, write_end = NULL;
	HANDLE job = CreateJobObjectW(NULL, NULL);
	int rc = -1;
	DWORD e = ERROR_NOT_ENOUGH_MEMORY;
	PROCESS_INFORMATION pi = { 0 };
	STARTUPINFOEXW ex = { 0 };
	STARTUPINFOW si = { 0 };
	si.cb = sizeof(si);
	HANDLE inherit[20];
	LPPROC_THREAD_ATTRIBUTE_LIST attributes = NULL;
	if (!wprog || !line || !env || !job)
		goto out;
	/* The whole tree of processes dies with the job: a child that starts its own cannot
	 * outlive the deadline. */
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits = { 0 };
	limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
						  JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
	SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof(limits));
	if (capture != PLATFORM_CAPTURE_NONE) {
		SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
		if (!CreatePipe(&read_end, &write_end, &sa, 0)) {
			e = GetLastError();
			goto out;
		}
		SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);
	}
	/* Its standard streams: ours, but for what is collected. */
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
	si.hStdOutput = write_end ? write_end : GetStdHandle(STD_OUTPUT_HANDLE);
	si.hStdError = capture == PLATFORM_CAPTURE_ALL ? write_end : GetStdHandle(STD_ERROR_HANDLE);
	/* The child inherits exactly its standard streams and the pipes of platform_child_pipe,
	 * named in a handle list: not whatever else the C runtime left inheritable. */
	size_t n = 0;
	HANDLE streams[3] = { si.hStdInput, si.hStdOutput, si.hStdError };
	for (size_t i = 0; i < 3; i++) {
		DWORD flags = 0;
		int listed = 0;
		for (size_t j = 0; j < n; j++)
			listed |= inherit[j] == streams[i];
		if (!listed && streams[i] && streams[i] != INVALID_HANDLE_VALUE &&
		    GetHandleInformation(streams[i], &flags) && (flags & HANDLE_FLAG_INHERIT))
			inherit[n++] = streams[i];
	}
	n += win_child_pipes(inherit + n, sizeof(inherit) / sizeof(inherit[0]) - n);
	SIZE_T list_size = 0;
	InitializeProcThreadAttributeList(NULL, 1, 0, &list_size);
	attributes = n ? malloc(list_size) : NULL;
	DWORD extended = 0;
	if (attributes && InitializeProcThreadAttributeList(attributes, 1, 0, &list_size)) {
		if (UpdateProcThreadAttribute(attributes, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit,
					      n * sizeof(HANDLE), NULL, NULL)) {
			ex.StartupInfo = si;
			ex.StartupInfo.cb = sizeof(ex);
			ex.lpAttributeList = attributes;
			extended = EXTENDED_STARTUPINFO_PRESENT;
		}
	} else {
		free(attributes);
		attributes = NULL;
	}
	DWORD how = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW | extended;
	STARTUPINFOW *start = extended ? &ex.StartupInfo : &si;
	if (!(token ? CreateProcessAsUserW(token, wprog, line, NULL, NULL, n > 0, how, env, NULL, start, &pi)
		    : CreateProcessW(wprog, line, NULL, NULL, n > 0, how, env, NULL, start, &pi))) {
		e = GetLastError();
		goto out;
	}
	AssignProcessToJobObject(job, pi.hProcess);
	ResumeThread(pi.hThread);
	if (write_end) {
		CloseHandle(write_end); /* the child has its copy; end of file when it is gone */
		write_end = NULL;
	}
	ULONGLONG deadline = timeout_s > 0 ? GetTickCount64() + (ULONGLONG)timeout_s * 1000 : 0;
	for (;;) {
		if (read_end)
			collect(read_end, c);
		DWORD waited = WaitForSingleObject(pi.hProcess, read_end ? 5 : 100);
		if (waited == WAIT_OBJECT_0)
			break;
		if (deadline && GetTickCount64() >= deadline) {
			c->timed_out = 1;
			TerminateJobObject(job, 1);
			WaitForSingleObject(pi.hProcess, INFINITE);
			break;
		}
	}
	if (read_end)
		collect(read_end, c);
	rc = 0;
	DWORD code = 0;
	if (!c->timed_out && GetExitCodeProcess(pi.hProcess, &code)) {
		/* An unhandled exception ends a process with its NTSTATUS (0xC...): a crash. */
		if ((code & 0xF0000000u) == 0xC0000000u)
			snprintf(c->crash, sizeof(c->crash), "exception 0x%08lX%s", (unsigned long)code,
				 code == 0xC0000005u ? ", access violation" : "");
		else {
			c->exited = 1;
			c->exit_code = (int)code;
		}
	}
out:
	if (rc != 0)
		win_fail(e); /* errno, and the code kept for the message */
	if (pi.hProcess)
		CloseHandle(pi.hProcess);
	if (pi.hThread)
		CloseHandle(pi.hThread);
	if (read_end)
		CloseHandle(read_end);
	if (write_end)
		CloseHandle(write_end);
	if (job)
		CloseHandle(job);
	if (attributes) {
		DeleteProcThreadAttributeList(attributes);
		free(attributes);
	}
	free(wprog);
	free(line);
	free(env);
	return rc;
}

int platform_run(const char *prog, char *const argv[], char *const envp[],
		 enum platform_capture capture, int timeout_s, struct platform_child *c)
{
	return run_as(NULL, prog, argv, envp, capture, timeout_s, c);
}

/* ---- the probe child: restricted from its first instruction, started from the file that
 *      runs as this process ---- */

/* This program's file, held open from start-up (platform_self_hold) with read sharing only:
 * while it is held nobody can open it for writing, rename it or delete it, and no directory
 * above it can be renamed, on NTFS and on a FAT stick alike. The probe child is started from
 * that very file (checked by its file id), so the program an Administrator started is the one
 * started again: held, rather than copied to a private directory, because a copy would be read
 * from the same path after start-up and prove nothing more. */
static HANDLE held_image = INVALID_HANDLE_VALUE;

int platform_self_hold(void)
{
	if (held_image != INVALID_HANDLE_VALUE)
		return 0;
	static wchar_t w[32768];
	DWORD n = GetModuleFileNameW(NULL, w, 32768);
	if (n == 0 || n >= 32768)
		return win_fail(n ? ERROR_FILENAME_EXCED_RANGE : GetLastError());
	HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
			       FILE_ATTRIBUTE_NORMAL, NULL); /* not inheritable */
	if (h == INVALID_HANDLE_VALUE)
		return win_fail(GetLastError());
	held_image = h;
	return 0;
}

/* 1 when path names the held file (the same volume and file index). */
static int is_held_file(const wchar_t *path)
{
	BY_HANDLE_FILE_INFORMATION a, b;
	HANDLE h = CreateFileW(path, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			       NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return 0;
	int same = GetFileInformationByHandle(h, &a) && GetFileInformationByHandle(held_image, &b) &&
		   a.dwVolumeSerialNumber == b.dwVolumeSerialNumber &&
		   a.nFileIndexHigh == b.nFileIndexHigh && a.nFileIndexLow == b.nFileIndexLow;
	CloseHandle(h);
	return same;
}

/* A restricted copy of this process's own primary token, for the probe child: Administrators
 * deny-only (it can deny access, never grant it), every privilege deleted but bypass-traverse
 * (DISABLE_MAX_PRIVILEGE), integrity Low. A restricted copy of the caller's own token needs no
 * SeAssignPrimaryTokenPrivilege, so any user can start a child with it, and nothing of the
 * probe ever runs with the full token; the child still drops inside itself
 * (platform_drop_privileges) as a second layer. NULL with the error set when it cannot be
 * made: then no probe starts. */
static HANDLE probe_token(void)
{
	HANDLE self = NULL, restricted = NULL;
	BYTE admins[SECURITY_MAX_SID_SIZE], low[SECURITY_MAX_SID_SIZE];
	DWORD admins_size = sizeof(admins), low_size = sizeof(low), e = 0;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY |
			      TOKEN_ADJUST_DEFAULT, &self))
		return NULL;
	SID_AND_ATTRIBUTES deny = { admins, 0 };
	TOKEN_MANDATORY_LABEL label = { { low, SE_GROUP_INTEGRITY } };
	if (!CreateWellKnownSid(WinBuiltinAdministratorsSid, NULL, admins, &admins_size) ||
	    !CreateWellKnownSid(WinLowLabelSid, NULL, low, &low_size) ||
	    !CreateRestrictedToken(self, DISABLE_MAX_PRIVILEGE, 1, &deny, 0, NULL, 0, NULL, &restricted) ||
	    !SetTokenInformation(restricted, TokenIntegrityLevel, &label, sizeof(label) + GetLengthSid(low)))
		e = GetLastError();
	CloseHandle(self);
	if (e && restricted)
		CloseHandle(restricted);
	SetLastError(e);
	return e ? NULL : restricted;
}

/* The child is created with probe_token, from the held file; its tree is held by run_as's job
 * object. */
int platform_run_probe(const struct platform_probe_program *program, char *const argv[],
		       char *const envp[], int timeout_s, struct platform_child *c)
{
	memset(c, 0, sizeof(*c));
	wchar_t *wprog = win_wide(program->path);
	int held = platform_self_hold() == 0 && wprog && is_held_file(wprog);
	free(wprog);
	if (!held) {
		errno = EPERM; /* not the file that runs as this process: never started */
		return -1;
	}
	HANDLE token = probe_token();
	if (!token)
		return win_fail(GetLastError());
	int rc = run_as(token, program->path, argv, envp, PLATFORM_CAPTURE_ALL, timeout_s, c);
	int saved = errno;
	CloseHandle(token);
	errno = saved;
	snprintf(c->contained, sizeof(c->contained), "a restricted token (Administrators deny-only, no "
		 "privileges, Low) and a job object that ends every process in it with the probe");
	return rc;
}
