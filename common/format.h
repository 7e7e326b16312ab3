/* format.h - the printf format check for functions that take a format: mingw-w64 checks
 * plain `printf` against Microsoft's runtime (no %zu, %lld), while the Windows build prints
 * through mingw's C99 printf (__USE_MINGW_ANSI_STDIO), which gnu_printf describes. */
#ifndef COMMON_FORMAT_H
#define COMMON_FORMAT_H

#ifdef __MINGW32__
#define CF_PRINTF(fmt, first) __attribute__((format(gnu_printf, fmt, first)))
#else
#define CF_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#endif

#endif
