/* selfpath.h - the file of the running program. Started the usual way, /proc/self/exe names
 * it. Started through the dynamic loader (`/lib64/ld-linux-x86-64.so.2 ./x.run`, the way
 * around a file without its x bit), /proc/self/exe names the loader instead: then the file is
 * the one the loader mapped as the program, found in /proc/self/maps and accepted only when
 * the path opened there is the very file mapped (same device and inode). On Windows the
 * system names it (GetModuleFileNameW, common/platform_win_self.c): a .exe starts no other way. */
#ifndef UNPACKER_SELFPATH_H
#define UNPACKER_SELFPATH_H

#include <stddef.h>
#include <stdint.h>

/* Call once from main with argv[0] (the last resort when /proc/self/maps cannot be read),
 * before any thread starts: the program is found here, once. */
void selfpath_init(const char *argv0);
/* Absolute (or as given) path of the running program's file; NULL when none can be
 * confirmed to be the file that runs. */
const char *selfpath_program(void);
/* The dynamic loader's path when the program was started through it, else NULL. A child
 * that re-runs this program must then be started as LOADER PROGRAM ARGS. */
const char *selfpath_loader(void);
/* As root (an Administrator), a program the dynamic loader started must be a file only root
 * can change: the kernel keeps an executed file from being written while it runs (ETXTBSY),
 * but not a file the loader maps, so another user who may write it (a stick mounted for the
 * desktop user) would change root's running code in place. 0 when the program was not
 * started through the loader, or is root's and not writable by group or others; else -1 and
 * a one-line reason in why. */
int selfpath_check_loader_start(char *why, size_t size);
/* 1 when the program file at path (ELF, or PE for Windows) has bytes after its image: a
 * .run/.exe, perhaps a damaged one, rather than a bare unpacker. */
int selfpath_carries_data(const char *path);
/* The bytes of the program's own image when more follows it (a .run's bundle), else 0 (the
 * whole file): what the probe child executes of it. Read through held, the program's file
 * held open since start-up (platform_own_image), when it is not -1; else from path. */
uint64_t selfpath_image_size(const char *path, int held);

#endif
