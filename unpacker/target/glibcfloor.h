/* glibcfloor.h - what lets the unpacker start on glibc 2.17 although it is built against
 * Debian 12's glibc 2.36.
 *
 * Every object of the unpacker and of its static libraries is compiled with
 * `-include cuferry-glibc-floor.h` (tools/glibc-floor.sh), which pins each glibc symbol to its
 * newest version at or below 2.17. glibcfloor.c supplies the few entry points that have no
 * such version: the stat family (before 2.33 only __xstat and friends existed), fcntl64,
 * explicit_bzero, and the start routine (crt1.o calls __libc_start_main@GLIBC_2.34). It is
 * linked into the release unpackers only (x86_64 and aarch64), never into sanitizer builds.
 * It exports nothing else: the definitions replace glibc's by name at link time. */
#ifndef UNPACKER_GLIBCFLOOR_H
#define UNPACKER_GLIBCFLOOR_H

/* The floor the binary is built for, as tools/glibc-floor.sh and the symbol test use it. */
#define GLIBC_FLOOR_VERSION "2.17"

#endif
