/* ldconfig.h - reading what the dynamic loader is told, the way glibc's ldconfig and ld.so
 * read it: the directories ld.so.conf names and what the ld cache holds for a soname. Doctor,
 * validation and the choice of a system install use them; nothing here writes. */
#ifndef UNPACKER_VALIDATE_LDCONFIG_H
#define UNPACKER_VALIDATE_LDCONFIG_H

/* ldconfig by absolute path (it is run with a clean environment, never through PATH); NULL
 * when the system has none. */
const char *ldconfig_program(void);
/* Each directory ROOT/etc/ld.so.conf names, its `include` files read in the order glibc's
 * ldconfig reads them (byte order: ldconfig sorts its globs in the C locale, whatever the
 * caller's), each directory once, as written there (without ROOT in front). Without an
 * ld.so.conf, every ROOT/etc/ld.so.conf.d file ending in .conf is read, as if included. */
void ldconfig_dirs(const char *root, void (*fn)(const char *dir, void *ctx), void *ctx);
/* The same walk, with every occurrence of a directory (one listed by two files is reported
 * twice) and the file that lists it (as the system sees it: /etc/ld.so.conf.d/x.conf). */
void ldconfig_entries(const char *root, void (*fn)(const char *dir, const char *conf, void *ctx),
		      void *ctx);
/* Each file the ld cache (`ldconfig -p`, run with a clean environment) holds for soname, in
 * the loader's order, with its flags ("(libc6,x86-64)"); -1 when ldconfig cannot be run. */
int ldconfig_cache_find(const char *soname, void (*fn)(const char *path, const char *flags, void *ctx),
			void *ctx);

#endif
