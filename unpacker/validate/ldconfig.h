/* ldconfig.h - the directories the dynamic loader is told about, each once, in its order (the
 * reading itself is the platform's: platform_lib_config_dirs, platform_lib_cache_find).
 * Validation and the choice of a system install use them; nothing here writes. */
#ifndef UNPACKER_VALIDATE_LDCONFIG_H
#define UNPACKER_VALIDATE_LDCONFIG_H

/* Each directory the loader configuration under root ("" for this system) names
 * (platform_lib_config_dirs), once, at its first place, as ldconfig takes it: a directory
 * listed by two files is reported once. */
void ldconfig_dirs(const char *root, void (*fn)(const char *dir, void *ctx), void *ctx);

#endif
