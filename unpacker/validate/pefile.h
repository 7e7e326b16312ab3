/* pefile.h - what validation and doctor need from a Windows DLL, read without loading it: the
 * machine it was built for, the DLLs it imports (plainly and delay-loaded), and the
 * FileVersion of its version resource. The file is untrusted: every offset and count is
 * checked against the file's size, and a malformed file is an error, never a crash. */
#ifndef UNPACKER_VALIDATE_PEFILE_H
#define UNPACKER_VALIDATE_PEFILE_H

#include <stddef.h>
#include <stdint.h>

enum {
	PE_MACHINE_I386 = 0x014c,
	PE_MACHINE_AMD64 = 0x8664,
	PE_MACHINE_ARM64 = 0xaa64,
};

/* How many imported DLLs, and how long a name, a file may have before it is refused. */
#define PE_MAX_IMPORTS 1024
#define PE_MAX_NAME 255

struct pe_import {
	char name[PE_MAX_NAME + 1]; /* as the file spells it, e.g. "zlibwapi.dll" */
	int delay_load;             /* loaded on first use (the delay-load table) */
};

struct pe_info {
	uint16_t machine;
	int is_dll;
	struct pe_import *imports; /* in table order: plain imports, then delay-loaded */
	size_t import_count;
	int has_version;           /* a VS_FIXEDFILEINFO was found */
	uint16_t file_version[4];  /* e.g. 9, 19, 0, 56 */
};

/* Reads size bytes at offset into buf: 0, or -1 when they are not all there. */
typedef int (*pe_read_fn)(void *ctx, uint64_t offset, void *buf, size_t size);

/* Parse the PE file of file_size bytes that read gives access to. 0 with *info filled (free
 * it with pe_info_free), or -1 with why (one line) saying what is wrong. */
int pe_parse(pe_read_fn read, void *ctx, uint64_t file_size, struct pe_info *info, char *why,
	     size_t why_size);
/* The same for a file in memory (tests, fuzzing). */
int pe_parse_memory(const void *data, size_t size, struct pe_info *info, char *why,
		    size_t why_size);
/* The same for a file on disk (read piecewise: NVIDIA's DLLs run to hundreds of MB). */
int pe_parse_file(const char *path, struct pe_info *info, char *why, size_t why_size);
void pe_info_free(struct pe_info *info);

/* "x86-64", "x86", "arm64" or "unknown (0x…)" into buf. */
const char *pe_machine_name(uint16_t machine, char *buf, size_t size);

#endif
