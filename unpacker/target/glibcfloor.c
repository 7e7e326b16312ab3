/* glibcfloor.c - glibc entry points newer than 2.17, re-expressed with 2.17's (see the header) */
#include "unpacker/target/glibcfloor.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#if defined(CUFERRY_GLIBC_FLOOR) && defined(__GLIBC__)

#if defined(__x86_64__)
#define STAT_VER 1 /* _STAT_VER_LINUX */
#define OLDEST "GLIBC_2.2.5"
#define OLDEST_AT "GLIBC_2.4"
#elif defined(__aarch64__)
#define STAT_VER 0 /* the generic ABI's _STAT_VER */
#define OLDEST "GLIBC_2.17"
#define OLDEST_AT "GLIBC_2.17"
#else
#error "glibcfloor.c: no glibc floor for this architecture"
#endif

/* Hidden: the definitions serve this binary's own references only. Exported, the start
 * routine would also satisfy its own call to __libc_start_main@GLIBC_x at run time (the
 * dynamic linker accepts an unversioned definition in the executable) and call itself. */
#define LOCAL __attribute__((visibility("hidden")))

/* The stat family as glibc before 2.33 exported it; the header's inline wrappers were
 * what called these, and 2.33 replaced them with real functions. 64-bit targets only:
 * struct stat and struct stat64 are the same. */
extern int __xstat(int ver, const char *path, struct stat *buf);
extern int __lxstat(int ver, const char *path, struct stat *buf);
extern int __fxstat(int ver, int fd, struct stat *buf);
extern int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags);
extern int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev);
extern int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev);
__asm__(".symver __fxstatat, __fxstatat@" OLDEST_AT);
__asm__(".symver __xmknodat, __xmknodat@" OLDEST_AT);

LOCAL int stat(const char *restrict path, struct stat *restrict buf)
{
	return __xstat(STAT_VER, path, buf);
}

LOCAL int lstat(const char *restrict path, struct stat *restrict buf)
{
	return __lxstat(STAT_VER, path, buf);
}

LOCAL int fstat(int fd, struct stat *buf)
{
	return __fxstat(STAT_VER, fd, buf);
}

LOCAL int fstatat(int dirfd, const char *restrict path, struct stat *restrict buf, int flags)
{
	return __fxstatat(STAT_VER, dirfd, path, buf, flags);
}

LOCAL int stat64(const char *restrict path, struct stat64 *restrict buf)
{
	return __xstat(STAT_VER, path, (struct stat *)buf);
}

LOCAL int lstat64(const char *restrict path, struct stat64 *restrict buf)
{
	return __lxstat(STAT_VER, path, (struct stat *)buf);
}

LOCAL int fstat64(int fd, struct stat64 *buf)
{
	return __fxstat(STAT_VER, fd, (struct stat *)buf);
}

LOCAL int fstatat64(int dirfd, const char *restrict path, struct stat64 *restrict buf, int flags)
{
	return __fxstatat(STAT_VER, dirfd, path, (struct stat *)buf, flags);
}

LOCAL int mknod(const char *path, mode_t mode, dev_t dev)
{
	return __xmknod(0, path, mode, &dev);
}

LOCAL int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	return __xmknodat(0, dirfd, path, mode, &dev);
}

/* fcntl64 (2.28) is fcntl on 64-bit targets; the third argument is an int or a pointer,
 * both passed in one register. */
LOCAL int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl(fd, cmd, arg);
}

/* explicit_bzero (2.25): a memset the compiler cannot drop. */
LOCAL void explicit_bzero(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/* The start routine. crt1.o's _start calls __libc_start_main, which the link resolves to
 * this definition; it calls the oldest version, which every glibc since has. Before 2.34
 * that version ran the program's constructors only through the init argument (what
 * libc_nonshared.a's __libc_csu_init was), so run_init is that; 2.34 and later call it too
 * when it is given, instead of their own loop, so constructors run exactly once. The
 * preinit array is the dynamic linker's job, and fini arrays are run by _dl_fini. */
typedef int (*main_fn)(int, char **, char **);
typedef void (*init_fn)(int, char **, char **);
extern int libc_start_main_oldest(main_fn main, int argc, char **argv, init_fn init,
				  void (*fini)(void), void (*rtld_fini)(void), void *stack_end);
__asm__(".symver libc_start_main_oldest, __libc_start_main@" OLDEST);
extern init_fn __init_array_start[] __attribute__((visibility("hidden")));
extern init_fn __init_array_end[] __attribute__((visibility("hidden")));
extern void _init(void);

static void run_init(int argc, char **argv, char **envp)
{
	_init();
	size_t n = (size_t)(__init_array_end - __init_array_start);
	for (size_t i = 0; i < n; i++)
		__init_array_start[i](argc, argv, envp);
}

LOCAL int __libc_start_main(main_fn main, int argc, char **argv, init_fn init,
			    void (*fini)(void), void (*rtld_fini)(void), void *stack_end);

int __libc_start_main(main_fn main, int argc, char **argv, init_fn init, void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end)
{
	(void)init;
	(void)fini;
	return libc_start_main_oldest(main, argc, argv, run_init, NULL, rtld_fini, stack_end);
}

#endif
