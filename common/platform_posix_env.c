/* platform_posix_env.c - the persistent environment (POSIX): there is none to edit through
 * the system; Linux installs use profile.d and ld.so.conf.d files instead, so every call
 * says ENOTSUP. */
#include "common/platform.h"

#include <errno.h>

int platform_env_read(enum platform_env_scope scope, const char *name, char **value,
		      int *expandable)
{
	(void)scope;
	(void)name;
	*value = NULL;
	*expandable = 0;
	errno = ENOTSUP;
	return -1;
}

int platform_env_write(enum platform_env_scope scope, const char *name, const char *value,
		       int expandable)
{
	(void)scope;
	(void)name;
	(void)value;
	(void)expandable;
	errno = ENOTSUP;
	return -1;
}

int platform_env_delete(enum platform_env_scope scope, const char *name)
{
	(void)scope;
	(void)name;
	errno = ENOTSUP;
	return -1;
}

int platform_env_announce(void)
{
	errno = ENOTSUP;
	return -1;
}

char platform_dir_separator(void)
{
	return '/';
}

int platform_is_separator(char c)
{
	return c == '/';
}

int platform_path_is_absolute(const char *path)
{
	return path[0] == '/';
}

int platform_known_folder(enum platform_folder which, char *out, size_t size)
{
	(void)which;
	if (size)
		out[0] = '\0';
	errno = ENOTSUP;
	return -1;
}

unsigned platform_file_mode_kept(unsigned mode)
{
	return mode & 07777;
}
