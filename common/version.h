/* version.h - what `bundler --version` and `unpacker --version` print: the program's version,
 * the git commit it was built from, the bundle format, and the libraries it was built with */
#ifndef COMMON_VERSION_H
#define COMMON_VERSION_H

#define CUFERRY_VERSION "1.1.0"

/* Print the lines common to both programs to stdout; format: the bundle format the program
 * writes or reads (manifests/ knows it, and sits above common/). */
void version_print(const char *program, const char *format);

#endif
