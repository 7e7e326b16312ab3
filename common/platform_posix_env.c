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
