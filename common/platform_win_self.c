/* platform_win_self.c - this process as the system describes it: the module that holds an
 * address, and the program file it was started from (Windows) */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <windows.h>

int platform_mapped_file(const void *address, char *path, size_t size, uint64_t *device,
			 uint64_t *inode)
{
	HMODULE module = NULL;
	if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
				       GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
			       (LPCWSTR)address, &module))
		return win_fail(GetLastError());
	if (win_module_path(module, path, size) != 0)
		return -1;
	struct platform_stat st;
	if (platform_stat(path, &st) != 0)
		return -1;
	*device = st.device;
	*inode = st.inode;
	return 0;
}

int platform_started_file(char *path, size_t size)
{
	return win_module_path(NULL, path, size);
}

/* platform_self_hold keeps the program's file from being renamed or written on Windows: the
 * probe is created from its path, checked to be the held file. */
int platform_own_image(void)
{
	errno = ENOTSUP;
	return -1;
}
