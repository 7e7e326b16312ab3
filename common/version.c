/* version.c - library versions come from the libraries' own version functions and macros, so
 * a build against other copies of them (static, newer) shows it without a change here */
#include "common/version.h"

#include <archive.h>
#include <jansson.h>
#include <mbedtls/version.h>
#include <stdio.h>
#include <zstd.h>

#include "common/bundle/frame.h"

/* The commit comes from the build (make writes build/commit.h); a tree without git says so. */
#if __has_include("commit.h")
#include "commit.h"
#endif
#ifndef CUFERRY_COMMIT
#define CUFERRY_COMMIT "unknown"
#endif

void version_print(const char *program, const char *format)
{
	printf("%s %s\n", program, CUFERRY_VERSION);
	printf("commit        %s\n", CUFERRY_COMMIT);
	printf("bundle format %s (header %s)\n", format, FRAME_TAG);
	printf("libarchive    %s\n", archive_version_string());
	printf("zstd          %s\n", ZSTD_versionString());
	printf("mbedTLS       %s\n", MBEDTLS_VERSION_STRING);
	printf("jansson       %s\n", JANSSON_VERSION);
}
