/* winpath.h - the Windows PATH value (machine or user, from the registry) with the current
 * install's bin directory in it. Pure string functions: the caller reads and writes the
 * registry and keeps the value's type (REG_EXPAND_SZ stays REG_EXPAND_SZ); nothing here
 * expands %VARIABLES%, limits the length (setx truncates at 1024 characters; this does not)
 * or touches an entry that is not ours. */
#ifndef UNPACKER_WINPATH_H
#define UNPACKER_WINPATH_H

#include <stddef.h>

/* Whether two PATH entries name the same directory as far as text can tell: ASCII case,
 * '/' against '\', surrounding double quotes and trailing separators do not count. */
int winpath_same_dir(const char *a, size_t alen, const char *b, size_t blen);

/* The new value: ours first, then every entry of value in order and as it was written
 * (unexpanded variables, empty entries, quotes, a trailing ';'), less any entry that is ours
 * or one of the nprevious directories of earlier cuferry installs. NULL with errno EINVAL
 * when ours is empty or holds ';' or '"' (it could not be one entry), ENOMEM when out of
 * memory. Free the result. */
char *winpath_add(const char *value, const char *ours, const char *const *previous,
		  size_t nprevious);

/* The inverse for uninstall: value without any entry that is ours, every other entry as it
 * was; winpath_remove(winpath_add(v, ours, ...), ours) == v whenever v held no entry of
 * ours or of the previous directories (rollback restores the value it saved, byte for
 * byte, instead). NULL with errno as above. */
char *winpath_remove(const char *value, const char *ours);

/* Whether value holds an entry that is ours. */
int winpath_contains(const char *value, const char *ours);

#endif
