/* platform_win_fs.c - files through handles, their metadata, and paths (Windows).
 *
 * Reads and writes go straight to ReadFile/WriteFile: every handle is binary, whatever mode
 * the C runtime gave the standard streams. Windows has no permission bits: a mode asked for
 * is kept only as the read-only attribute (no owner write bit), and metadata reports 0755 for
 * directories, 0644 for files (0444 read-only). The owner is 0 when it is Administrators,
 * SYSTEM or TrustedInstaller, else the owner SID's last sub-authority (the RID). Device and
 * inode are the volume serial number and the file index. */
#include "common/platform.h"
#include "common/platform_win.h"
#include "common/platform_win_internal.h"

#include <aclapi.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

#define SHARE_ALL (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

/* ---- opening ---- */

static int open_wide(const wchar_t *w, int flags)
{
	DWORD access = 0, disposition = OPEN_EXISTING, attributes = FILE_ATTRIBUTE_NORMAL;
	if (flags & PLATFORM_OPEN_READ || !(flags & (PLATFORM_OPEN_WRITE | PLATFORM_OPEN_APPEND)))
		access |= GENERIC_READ;
	if (flags & PLATFORM_OPEN_APPEND) /* the system puts every write at the end */
		access |= FILE_APPEND_DATA | FILE_WRITE_ATTRIBUTES | SYNCHRONIZE;
	else if (flags & PLATFORM_OPEN_WRITE)
		access |= GENERIC_WRITE;
	if (flags & PLATFORM_OPEN_CREATE)
		disposition = flags & PLATFORM_OPEN_EXCL ? CREATE_NEW
			      : flags & PLATFORM_OPEN_TRUNC ? CREATE_ALWAYS : OPEN_ALWAYS;
	else if (flags & PLATFORM_OPEN_TRUNC)
		disposition = TRUNCATE_EXISTING;
	if (flags & PLATFORM_OPEN_DIRECTORY) {
		attributes = FILE_FLAG_BACKUP_SEMANTICS; /* how a directory is opened at all */
		access = GENERIC_READ;
	}
	/* CREATE_NEW never follows a link: there is nothing at the name. */
	HANDLE h = flags & PLATFORM_OPEN_NOFOLLOW || disposition == CREATE_NEW
			   ? win_open_no_follow(w, access, SHARE_ALL, disposition, attributes, NULL)
			   : CreateFileW(w, access, SHARE_ALL, NULL, disposition, attributes, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return win_fail(GetLastError());
	BY_HANDLE_FILE_INFORMATION info;
	int is_dir = GetFileInformationByHandle(h, &info) &&
		     (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY);
	if ((flags & PLATFORM_OPEN_DIRECTORY) && !is_dir) {
		CloseHandle(h);
		errno = ENOTDIR;
		return -1;
	}
	return win_fd(h, _O_BINARY | (access & GENERIC_WRITE ? _O_RDWR : _O_RDONLY));
}

int platform_open(const char *path, int flags, unsigned mode)
{
	(void)mode; /* the new file's permissions come from its directory's ACL */
	wchar_t *w = win_wide(path);
	if (!w)
		return -1;
	int fd = open_wide(w, flags);
	free(w);
	return fd;
}

/* dir's path and one component of it: NULL (EINVAL) when name is not one component. */
static wchar_t *path_at(int dir, const char *name)
{
	if (!name[0] || strpbrk(name, "/\\:") || !strcmp(name, ".") || !strcmp(name, "..")) {
		errno = EINVAL;
		return NULL;
	}
	wchar_t *base = win_handle_path(dir), *wname = base ? win_wide(name) : NULL;
	size_t blen = base ? wcslen(base) : 0, nlen = wname ? wcslen(wname) : 0;
	wchar_t *full = wname ? malloc((blen + nlen + 2) * sizeof(wchar_t)) : NULL;
	if (full) {
		memcpy(full, base, blen * sizeof(wchar_t));
		full[blen] = L'\\';
		memcpy(full + blen + 1, wname, (nlen + 1) * sizeof(wchar_t));
	} else if (wname) {
		errno = ENOMEM;
	}
	free(base);
	free(wname);
	return full;
}

int platform_open_at(int dir, const char *name, int flags, unsigned mode)
{
	(void)mode;
	wchar_t *w = path_at(dir, name);
	if (!w)
		return -1;
	int fd = open_wide(w, flags | PLATFORM_OPEN_NOFOLLOW);
	free(w);
	return fd;
}

/* ---- reading and writing ---- */

static DWORD chunk(size_t len)
{
	return len > 0x40000000u ? 0x40000000u : (DWORD)len;
}

ssize_t platform_read(int handle, void *buf, size_t len)
{
	HANDLE h = win_handle(handle);
	DWORD got = 0;
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	if (ReadFile(h, buf, chunk(len), &got, NULL))
		return (ssize_t)got;
	DWORD e = GetLastError();
	if (e == ERROR_BROKEN_PIPE || e == ERROR_HANDLE_EOF)
		return 0; /* the writer is gone: end of file */
	if (e == ERROR_NO_DATA) {
		errno = EAGAIN;
		return -1;
	}
	if (e == ERROR_OPERATION_ABORTED) {
		errno = EINTR;
		return -1;
	}
	return win_fail(e);
}

ssize_t platform_pread(int handle, void *buf, size_t len, uint64_t offset)
{
	HANDLE h = win_handle(handle);
	LARGE_INTEGER zero = { 0 }, here;
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	/* ReadFile at an offset moves a synchronous handle's position: put it back. */
	if (!SetFilePointerEx(h, zero, &here, FILE_CURRENT))
		return win_fail(GetLastError());
	OVERLAPPED at = { 0 };
	at.Offset = (DWORD)offset;
	at.OffsetHigh = (DWORD)(offset >> 32);
	DWORD got = 0;
	BOOL ok = ReadFile(h, buf, chunk(len), &got, &at);
	DWORD e = GetLastError();
	SetFilePointerEx(h, here, NULL, FILE_BEGIN);
	if (!ok && e != ERROR_HANDLE_EOF)
		return win_fail(e);
	return (ssize_t)got;
}

ssize_t platform_write(int handle, const void *buf, size_t len)
{
	HANDLE h = win_handle(handle);
	DWORD put = 0;
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	if (!WriteFile(h, buf, chunk(len), &put, NULL)) {
		DWORD e = GetLastError();
		if (e == ERROR_NO_DATA || e == ERROR_BROKEN_PIPE) {
			errno = EPIPE; /* the reader is gone */
			return -1;
		}
		return win_fail(e);
	}
	return (ssize_t)put;
}

int platform_fsync(int handle)
{
	HANDLE h = win_handle(handle);
	BY_HANDLE_FILE_INFORMATION info;
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	/* NTFS writes directory entries through its journal: there is nothing to flush for a
	 * directory, and a read-only handle cannot be flushed at all. */
	if (GetFileInformationByHandle(h, &info) && (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
		return 0;
	if (FlushFileBuffers(h))
		return 0;
	DWORD e = GetLastError();
	return e == ERROR_ACCESS_DENIED || e == ERROR_INVALID_HANDLE ? 0 : win_fail(e);
}

int platform_close(int handle)
{
	return _close(handle);
}

int platform_set_owner(int handle, unsigned long owner, unsigned long group)
{
	(void)handle, (void)owner, (void)group;
	errno = ENOTSUP; /* a file belongs to who created it; nothing here gives one away */
	return -1;
}

int platform_set_mode(int handle, unsigned mode)
{
	HANDLE h = win_handle(handle);
	FILE_BASIC_INFO basic;
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	if (!GetFileInformationByHandleEx(h, FileBasicInfo, &basic, sizeof(basic)))
		return win_fail(GetLastError());
	DWORD want = mode & 0200 ? basic.FileAttributes & ~(DWORD)FILE_ATTRIBUTE_READONLY
				 : basic.FileAttributes | FILE_ATTRIBUTE_READONLY;
	if (want == basic.FileAttributes)
		return 0;
	basic.FileAttributes = want ? want : FILE_ATTRIBUTE_NORMAL;
	return SetFileInformationByHandle(h, FileBasicInfo, &basic, sizeof(basic))
		       ? 0 : win_fail(GetLastError());
}

int platform_set_nonblocking(int handle)
{
	HANDLE h = win_handle(handle);
	DWORD mode = PIPE_READMODE_BYTE | PIPE_NOWAIT;
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	if (GetFileType(h) != FILE_TYPE_PIPE)
		return 0; /* a disk file never waits */
	return SetNamedPipeHandleState(h, &mode, NULL, NULL) ? 0 : win_fail(GetLastError());
}

int platform_handle_valid(int handle)
{
	return handle >= 0 && win_handle(handle) != INVALID_HANDLE_VALUE;
}

int platform_is_terminal(int handle)
{
	return _isatty(handle) != 0;
}

int platform_temp_file(char *template)
{
	size_t len;
	SECURITY_ATTRIBUTES sa;
	if (win_template(template, &len, &sa) != 0)
		return -1;
	int fd = -1;
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		win_random_name(template + len - 6, attempt);
		wchar_t *w = win_wide(template);
		if (!w)
			break;
		HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE, SHARE_ALL, &sa, CREATE_NEW,
				       FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
		DWORD e = GetLastError();
		free(w);
		if (h != INVALID_HANDLE_VALUE)
			fd = win_fd(h, _O_RDWR | _O_BINARY);
		else if (e != ERROR_FILE_EXISTS && e != ERROR_ALREADY_EXISTS)
			attempt = 100, win_fail(e);
	}
	LocalFree(sa.lpSecurityDescriptor);
	return fd;
}

/* ---- metadata ---- */

static int64_t unix_time(FILETIME ft)
{
	uint64_t t = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
	return (int64_t)(t / 10000000u) - INT64_C(11644473600); /* from 1601 to 1970 */
}

static unsigned long owner_of(HANDLE h)
{
	PSID owner = NULL;
	PSECURITY_DESCRIPTOR sd = NULL;
	unsigned long id = ULONG_MAX;
	if (GetSecurityInfo(h, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION, &owner, NULL, NULL, NULL,
			    &sd) == ERROR_SUCCESS && owner && IsValidSid(owner)) {
		if (win_trusted_sid(owner))
			id = 0;
		else if (*GetSidSubAuthorityCount(owner) > 0)
			id = *GetSidSubAuthority(owner, *GetSidSubAuthorityCount(owner) - 1u);
	}
	if (sd)
		LocalFree(sd);
	return id;
}

static int fill_stat(HANDLE h, struct platform_stat *st)
{
	BY_HANDLE_FILE_INFORMATION info;
	FILE_ATTRIBUTE_TAG_INFO tag = { 0 };
	memset(st, 0, sizeof(*st));
	DWORD kind = GetFileType(h);
	if (kind == FILE_TYPE_PIPE || kind == FILE_TYPE_CHAR) {
		st->type = PLATFORM_TYPE_OTHER;
		st->mode = 0600;
		return 0;
	}
	if (!GetFileInformationByHandle(h, &info))
		return win_fail(GetLastError());
	GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag, sizeof(tag));
	if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
		st->type = PLATFORM_TYPE_LINK;
	else if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		st->type = PLATFORM_TYPE_DIR;
	else
		st->type = PLATFORM_TYPE_FILE;
	st->mode = st->type == PLATFORM_TYPE_DIR ? 0755
		   : info.dwFileAttributes & FILE_ATTRIBUTE_READONLY ? 0444 : 0644;
	st->size = ((uint64_t)info.nFileSizeHigh << 32) | info.nFileSizeLow;
	st->mtime = unix_time(info.ftLastWriteTime);
	st->device = info.dwVolumeSerialNumber;
	st->inode = ((uint64_t)info.nFileIndexHigh << 32) | info.nFileIndexLow;
	st->owner = owner_of(h);
	st->links = info.nNumberOfLinks;
	return 0;
}

static int stat_wide(const wchar_t *w, int follow, struct platform_stat *st)
{
	DWORD flags = FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT);
	HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES | READ_CONTROL, SHARE_ALL, NULL, OPEN_EXISTING,
			       flags, NULL);
	if (h == INVALID_HANDLE_VALUE)
		h = CreateFileW(w, FILE_READ_ATTRIBUTES, SHARE_ALL, NULL, OPEN_EXISTING, flags, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return win_fail(GetLastError());
	int rc = fill_stat(h, st);
	/* Wine follows a link even with FILE_FLAG_OPEN_REPARSE_POINT; the path still says. */
	DWORD attributes = follow ? INVALID_FILE_ATTRIBUTES : GetFileAttributesW(w);
	if (rc == 0 && attributes != INVALID_FILE_ATTRIBUTES &&
	    (attributes & FILE_ATTRIBUTE_REPARSE_POINT))
		st->type = PLATFORM_TYPE_LINK;
	CloseHandle(h);
	return rc;
}

static int stat_path(const char *path, int follow, struct platform_stat *st)
{
	wchar_t *w = win_wide(path);
	if (!w)
		return -1;
	int rc = stat_wide(w, follow, st);
	free(w);
	return rc;
}

int platform_stat(const char *path, struct platform_stat *st)
{
	return stat_path(path, 1, st);
}

int platform_lstat(const char *path, struct platform_stat *st)
{
	return stat_path(path, 0, st);
}

int platform_fstat(int handle, struct platform_stat *st)
{
	HANDLE h = win_handle(handle);
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	return fill_stat(h, st);
}

int platform_stat_at(int dir, const char *name, struct platform_stat *st)
{
	wchar_t *w = path_at(dir, name);
	if (!w)
		return -1;
	int rc = stat_wide(w, 0, st);
	free(w);
	return rc;
}

/* ---- paths ---- */

int platform_access(const char *path, enum platform_access what)
{
	wchar_t *w = win_wide(path);
	if (!w)
		return -1;
	DWORD attributes = GetFileAttributesW(w);
	int rc = 0;
	if (attributes == INVALID_FILE_ATTRIBUTES) {
		rc = win_fail(GetLastError());
	} else if (what != PLATFORM_CAN_EXIST) {
		int dir = (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
		DWORD access = what == PLATFORM_CAN_READ ? (dir ? FILE_LIST_DIRECTORY : FILE_READ_DATA)
							 : (dir ? FILE_TRAVERSE : FILE_EXECUTE);
		HANDLE h = CreateFileW(w, access, SHARE_ALL, NULL, OPEN_EXISTING,
				       FILE_FLAG_BACKUP_SEMANTICS, NULL);
		if (h == INVALID_HANDLE_VALUE)
			rc = win_fail(GetLastError());
		else
			CloseHandle(h);
	}
	free(w);
	return rc;
}

/* The final path of w (opened following links, or not) as UTF-8 in out. */
static ssize_t final_path(const wchar_t *w, int follow, char *out, size_t size)
{
	HANDLE h = CreateFileW(w, 0, SHARE_ALL, NULL, OPEN_EXISTING,
			       FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT),
			       NULL);
	if (h == INVALID_HANDLE_VALUE)
		return win_fail(GetLastError());
	DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	wchar_t *final = n ? malloc((n + 1) * sizeof(wchar_t)) : NULL;
	DWORD e = GetLastError();
	int rc = final && GetFinalPathNameByHandleW(h, final, n + 1,
						    FILE_NAME_NORMALIZED | VOLUME_NAME_DOS) ? 0 : -1;
	if (rc != 0)
		e = final ? GetLastError() : e;
	CloseHandle(h);
	if (rc == 0)
		rc = win_narrow(final, out, size);
	else
		win_fail(e);
	free(final);
	return rc == 0 ? (ssize_t)strlen(out) : -1;
}

int platform_realpath(const char *path, char *out, size_t size)
{
	wchar_t *w = win_wide(path);
	if (!w)
		return -1;
	ssize_t n = final_path(w, 1, out, size);
	free(w);
	return n < 0 ? -1 : 0;
}

/* A reparse point's target as the system resolves it (an absolute path): Windows has no
 * relative link text to give back that a caller could follow safely. */
static ssize_t readlink_wide(const wchar_t *w, char *out, size_t size)
{
	DWORD attributes = GetFileAttributesW(w);
	if (attributes == INVALID_FILE_ATTRIBUTES)
		return win_fail(GetLastError());
	if (!(attributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
		errno = EINVAL;
		return -1;
	}
	return final_path(w, 1, out, size);
}

ssize_t platform_readlink(const char *path, char *out, size_t size)
{
	wchar_t *w = win_wide(path);
	if (!w)
		return -1;
	ssize_t n = readlink_wide(w, out, size);
	free(w);
	return n;
}

ssize_t platform_readlink_at(int dir, const char *name, char *out, size_t size)
{
	wchar_t *w = path_at(dir, name);
	if (!w)
		return -1;
	ssize_t n = readlink_wide(w, out, size);
	free(w);
	return n;
}

/* One call on one path: f(w) is a Windows call returning non-zero on success. */
#define ON_PATH(path, call)                                          \
	do {                                                         \
		wchar_t *w = win_wide(path);                         \
		if (!w)                                              \
			return -1;                                   \
		BOOL ok_ = (call);                                   \
		DWORD e_ = GetLastError();                           \
		free(w);                                             \
		return ok_ ? 0 : win_fail(e_);                       \
	} while (0)

/* An Administrator's directory with a mode nobody else may write (0755, 0700: the prefix,
 * .cuferry, the log and trust directories) gets its own protected DACL
 * (platform_win_dir_descriptor) instead of inheriting the parent's: %ProgramData% passes on
 * Users:(CI)(WD,AD,WEA,WA) and C:\ Authenticated Users:(OI)(CI)(IO)(M), which would let every
 * user write into what cuferry made, and the ownership check refuse it. Anyone else's (a
 * user's install under %LOCALAPPDATA%) inherits from the parent as Windows intends. */
int platform_mkdir(const char *path, unsigned mode)
{
	if ((mode & 022) || !platform_is_admin())
		ON_PATH(path, CreateDirectoryW(w, NULL));
	wchar_t *w = win_wide(path);
	if (!w)
		return -1;
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, FALSE };
	BOOL ok = FALSE;
	DWORD e = ERROR_INVALID_OWNER;
	/* Owner Administrators, as for an elevated token; a token that may not name that group
	 * owner (ERROR_INVALID_OWNER: SYSTEM without it, say) gets its own default owner. */
	for (int owner = 1; !ok && owner >= 0 && e == ERROR_INVALID_OWNER; owner--) {
		sa.lpSecurityDescriptor = platform_win_dir_descriptor(mode, owner);
		if (!sa.lpSecurityDescriptor) {
			e = ERROR_NOT_ENOUGH_MEMORY;
			break;
		}
		ok = CreateDirectoryW(w, &sa);
		e = GetLastError();
		LocalFree(sa.lpSecurityDescriptor);
	}
	free(w);
	return ok ? 0 : win_fail(e);
}

/* DeleteFileW and RemoveDirectoryW refuse what has the read-only attribute (a file copied
 * from read-only media, or marked by hand), where POSIX looks only at the parent directory:
 * an uninstall would stop half-way. Clear the attribute of the one entry being removed and
 * try again (never on a reparse point, whose attributes could be its target's); put it back
 * when the removal still fails. */
static BOOL remove_wide(const wchar_t *w, int directory)
{
	if (directory ? RemoveDirectoryW(w) : DeleteFileW(w))
		return TRUE;
	DWORD e = GetLastError(), attributes = GetFileAttributesW(w);
	if (e == ERROR_ACCESS_DENIED && attributes != INVALID_FILE_ATTRIBUTES &&
	    (attributes & FILE_ATTRIBUTE_READONLY) && !(attributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
		DWORD cleared = attributes & ~(DWORD)FILE_ATTRIBUTE_READONLY;
		if (SetFileAttributesW(w, cleared ? cleared : FILE_ATTRIBUTE_NORMAL)) {
			if (directory ? RemoveDirectoryW(w) : DeleteFileW(w))
				return TRUE;
			e = GetLastError();
			SetFileAttributesW(w, attributes);
		}
	}
	SetLastError(e);
	return FALSE;
}

int platform_rmdir(const char *path)
{
	ON_PATH(path, remove_wide(w, 1));
}

int platform_unlink(const char *path)
{
	ON_PATH(path, remove_wide(w, 0));
}

static int rename_wide(const wchar_t *from, const wchar_t *to)
{
	return MoveFileExW(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)
		       ? 0 : win_fail(GetLastError());
}

int platform_rename(const char *from, const char *to)
{
	wchar_t *wf = win_wide(from), *wt = wf ? win_wide(to) : NULL;
	int rc = wt ? rename_wide(wf, wt) : -1;
	free(wf);
	free(wt);
	return rc;
}

int platform_chmod(const char *path, unsigned mode)
{
	wchar_t *w = win_wide(path);
	if (!w)
		return -1;
	DWORD attributes = GetFileAttributesW(w);
	BOOL ok = attributes != INVALID_FILE_ATTRIBUTES;
	if (ok && !(attributes & FILE_ATTRIBUTE_DIRECTORY)) {
		DWORD want = mode & 0200 ? attributes & ~(DWORD)FILE_ATTRIBUTE_READONLY
					 : attributes | FILE_ATTRIBUTE_READONLY;
		ok = want == attributes || SetFileAttributesW(w, want ? want : FILE_ATTRIBUTE_NORMAL);
	}
	DWORD e = GetLastError();
	free(w);
	return ok ? 0 : win_fail(e);
}

int platform_unlink_at(int dir, const char *name)
{
	wchar_t *w = path_at(dir, name);
	if (!w)
		return -1;
	/* A reparse point to a directory is removed as a directory; its target is untouched. */
	DWORD attributes = GetFileAttributesW(w);
	BOOL ok = attributes != INVALID_FILE_ATTRIBUTES &&
				  (attributes & FILE_ATTRIBUTE_DIRECTORY) &&
				  (attributes & FILE_ATTRIBUTE_REPARSE_POINT)
			  ? RemoveDirectoryW(w)
			  : remove_wide(w, 0);
	DWORD e = GetLastError();
	free(w);
	return ok ? 0 : win_fail(e);
}

int platform_mkdir_at(int dir, const char *name, unsigned mode)
{
	(void)dir, (void)name, (void)mode;
	errno = ENOTSUP; /* only a POSIX root writing below a user's home needs it (homefile.c) */
	return -1;
}

int platform_rename_at(int dir, const char *from, const char *to)
{
	wchar_t *wf = path_at(dir, from), *wt = wf ? path_at(dir, to) : NULL;
	int rc = wt ? rename_wide(wf, wt) : -1;
	free(wf);
	free(wt);
	return rc;
}

int platform_symlink_at(int dir, const char *name, const char *target)
{
	(void)dir;
	(void)name;
	(void)target;
	errno = ENOTSUP; /* no links on Windows (DESIGN §6, Windows) */
	return -1;
}

int platform_current_dir(char *out, size_t size)
{
	DWORD n = GetCurrentDirectoryW(0, NULL);
	wchar_t *w = n ? malloc((n + 1) * sizeof(wchar_t)) : NULL;
	if (!w || !GetCurrentDirectoryW(n + 1, w)) {
		DWORD e = GetLastError();
		free(w);
		return win_fail(e);
	}
	int rc = win_narrow(w, out, size);
	free(w);
	return rc;
}

size_t platform_name_max(void)
{
	return 255; /* NTFS, ReFS and FAT32 long names: 255 UTF-16 units */
}
