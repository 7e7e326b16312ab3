/* pefile.c - a strict reader of the few PE/COFF structures validation needs (Microsoft's
 * "PE Format" specification): DOS header -> "PE\0\0" -> COFF header -> optional header (PE32
 * or PE32+) with its data directories -> section table; the import (1), resource (2) and
 * delay-load import (13) directories are found through the sections. Every read goes through
 * pe_read_at, which refuses anything outside the file, and every loop has a fixed bound. */
#include "unpacker/validate/pefile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#endif

#include "common/format.h"
#include "common/platform.h"

#define MAX_SECTIONS 96      /* the specification's limit for images */
#define DIR_IMPORT 1
#define DIR_RESOURCE 2
#define DIR_DELAY_IMPORT 13
#define RT_VERSION_ID 16
#define VS_FIXED_SIGNATURE 0xFEEF04BDu
#define MAX_RESOURCE_ENTRIES 4096

struct section {
	uint32_t va, raw_size, raw_ptr;
};

struct pe {
	pe_read_fn read;
	void *ctx;
	uint64_t size;
	uint64_t image_base;
	uint32_t dir_rva[16], dir_size[16];
	unsigned ndirs;
	struct section sections[MAX_SECTIONS];
	unsigned nsections;
	char *why;
	size_t why_size;
};

CF_PRINTF(2, 3) static int bad(struct pe *pe, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pe->why, pe->why_size, fmt, ap);
	va_end(ap);
	return -1;
}

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

static int read_at(struct pe *pe, uint64_t off, void *buf, size_t n, const char *what)
{
	if (off > pe->size || n > pe->size - off || pe->read(pe->ctx, off, buf, n) != 0)
		return bad(pe, "%s lies beyond the end of the file", what);
	return 0;
}

/* The file offset of n bytes at rva, all inside one section's data; -1 when they are not. */
static int rva_offset(struct pe *pe, uint32_t rva, size_t n, uint64_t *off, const char *what)
{
	for (unsigned i = 0; i < pe->nsections; i++) {
		const struct section *s = &pe->sections[i];
		if (rva >= s->va && rva - s->va < s->raw_size && n <= s->raw_size - (rva - s->va)) {
			*off = (uint64_t)s->raw_ptr + (rva - s->va);
			return 0;
		}
	}
	return bad(pe, "%s (RVA 0x%x) is not inside any section's data", what, (unsigned)rva);
}

static int read_rva(struct pe *pe, uint32_t rva, void *buf, size_t n, const char *what)
{
	uint64_t off = 0;
	if (rva_offset(pe, rva, n, &off, what) != 0)
		return -1;
	return read_at(pe, off, buf, n, what);
}

/* A DLL name at rva: printable ASCII, NUL-terminated within PE_MAX_NAME bytes. */
static int read_name(struct pe *pe, uint32_t rva, char *out)
{
	unsigned char buf[PE_MAX_NAME + 1];
	size_t n = 0;
	for (; n < sizeof(buf); n++) {
		if (read_rva(pe, rva + (uint32_t)n, buf + n, 1, "an imported DLL's name") != 0)
			return -1;
		if (buf[n] == 0)
			break;
		if (buf[n] < 0x20 || buf[n] > 0x7e)
			return bad(pe, "an imported DLL's name holds a byte that is not printable ASCII");
	}
	if (n == sizeof(buf))
		return bad(pe, "an imported DLL's name is longer than %d bytes", PE_MAX_NAME);
	if (n == 0)
		return bad(pe, "an imported DLL's name is empty");
	memcpy(out, buf, n + 1);
	return 0;
}

static int add_import(struct pe *pe, struct pe_info *info, uint32_t name_rva, int delay)
{
	if (info->import_count == PE_MAX_IMPORTS)
		return bad(pe, "more than %d imported DLLs", PE_MAX_IMPORTS);
	if (info->import_count % 16 == 0) {
		struct pe_import *grown = realloc(info->imports,
						  (info->import_count + 16) * sizeof(*grown));
		if (!grown)
			return bad(pe, "out of memory");
		info->imports = grown;
	}
	struct pe_import *imp = &info->imports[info->import_count];
	imp->delay_load = delay;
	if (read_name(pe, name_rva, imp->name) != 0)
		return -1;
	info->import_count++;
	return 0;
}

static int read_imports(struct pe *pe, struct pe_info *info)
{
	if (pe->ndirs <= DIR_IMPORT || pe->dir_rva[DIR_IMPORT] == 0)
		return 0;
	for (uint32_t i = 0;; i++) {
		unsigned char d[20];
		static const unsigned char zero[20];
		if (i > PE_MAX_IMPORTS)
			return bad(pe, "more than %d imported DLLs", PE_MAX_IMPORTS);
		if (read_rva(pe, pe->dir_rva[DIR_IMPORT] + i * 20, d, sizeof(d), "the import table") != 0)
			return -1;
		if (memcmp(d, zero, sizeof(d)) == 0)
			return 0;
		if (add_import(pe, info, le32(d + 12), 0) != 0)
			return -1;
	}
}

static int read_delay_imports(struct pe *pe, struct pe_info *info)
{
	if (pe->ndirs <= DIR_DELAY_IMPORT || pe->dir_rva[DIR_DELAY_IMPORT] == 0)
		return 0;
	for (uint32_t i = 0;; i++) {
		unsigned char d[32];
		if (i > PE_MAX_IMPORTS)
			return bad(pe, "more than %d delay-loaded DLLs", PE_MAX_IMPORTS);
		if (read_rva(pe, pe->dir_rva[DIR_DELAY_IMPORT] + i * 32, d, sizeof(d),
			     "the delay-load import table") != 0)
			return -1;
		uint32_t attributes = le32(d), name = le32(d + 4);
		if (name == 0)
			return 0;
		/* Attribute bit 0 clear: the old (Visual C++ 6) table of addresses, not RVAs. */
		if (!(attributes & 1)) {
			if (name < pe->image_base || name - pe->image_base > UINT32_MAX)
				return bad(pe, "a delay-loaded DLL's name address is below the image base");
			name = (uint32_t)(name - pe->image_base);
		}
		if (add_import(pe, info, name, 1) != 0)
			return -1;
	}
}

/* One directory entry of the resource tree: the offset it points at (relative to the resource
 * section) and whether that is another directory. */
static int resource_entry(struct pe *pe, uint32_t dir, int want_id, uint32_t *target, int *subdir)
{
	uint32_t base = pe->dir_rva[DIR_RESOURCE];
	unsigned char h[16], e[8];
	if (read_rva(pe, base + dir, h, sizeof(h), "a resource directory") != 0)
		return -1;
	unsigned count = (unsigned)le16(h + 12) + le16(h + 14);
	if (count > MAX_RESOURCE_ENTRIES)
		return bad(pe, "a resource directory claims %u entries", count);
	for (unsigned i = 0; i < count; i++) {
		if (read_rva(pe, base + dir + 16 + i * 8, e, sizeof(e), "a resource directory entry") != 0)
			return -1;
		uint32_t id = le32(e), to = le32(e + 4);
		if (want_id >= 0 && ((id & 0x80000000u) || id != (uint32_t)want_id))
			continue;
		*subdir = (to & 0x80000000u) != 0;
		*target = to & 0x7fffffffu;
		if (*subdir && *target <= dir)
			return bad(pe, "a resource directory points back up the tree");
		return 1;
	}
	return 0;
}

/* The fixed part of the version resource: type RT_VERSION, the first name, the first
 * language; a file without one has no version (not an error). */
static int read_version(struct pe *pe, struct pe_info *info)
{
	static const uint16_t key[] = { 'V', 'S', '_', 'V', 'E', 'R', 'S', 'I', 'O', 'N', '_',
					'I', 'N', 'F', 'O', 0 };
	uint32_t at = 0;
	int subdir = 1;
	if (pe->ndirs <= DIR_RESOURCE || pe->dir_rva[DIR_RESOURCE] == 0)
		return 0;
	for (int level = 0; level < 3; level++) {
		if (!subdir)
			return bad(pe, "the version resource's tree ends early");
		int found = resource_entry(pe, at, level == 0 ? RT_VERSION_ID : -1, &at, &subdir);
		if (found <= 0)
			return found;
	}
	if (subdir)
		return bad(pe, "the version resource's tree is deeper than three levels");
	unsigned char data[16], v[92];
	if (read_rva(pe, pe->dir_rva[DIR_RESOURCE] + at, data, sizeof(data), "the version resource's entry") != 0)
		return -1;
	uint32_t rva = le32(data), size = le32(data + 4);
	if (size < sizeof(v))
		return bad(pe, "the version resource is %u bytes, too short", (unsigned)size);
	if (read_rva(pe, rva, v, sizeof(v), "the version resource") != 0)
		return -1;
	for (size_t i = 0; i < sizeof(key) / sizeof(key[0]); i++)
		if (le16(v + 6 + 2 * i) != key[i])
			return bad(pe, "the version resource does not start with VS_VERSION_INFO");
	if (le16(v + 2) < 52 || le32(v + 40) != VS_FIXED_SIGNATURE)
		return bad(pe, "the version resource has no VS_FIXEDFILEINFO");
	uint32_t ms = le32(v + 48), ls = le32(v + 52);
	info->file_version[0] = (uint16_t)(ms >> 16);
	info->file_version[1] = (uint16_t)ms;
	info->file_version[2] = (uint16_t)(ls >> 16);
	info->file_version[3] = (uint16_t)ls;
	info->has_version = 1;
	return 0;
}

/* DOS header, COFF header, optional header and the section table. */
static int read_headers(struct pe *pe, struct pe_info *info)
{
	unsigned char dos[64], coff[24], opt[240];
	if (read_at(pe, 0, dos, sizeof(dos), "the DOS header") != 0)
		return bad(pe, "too short for a PE file");
	if (dos[0] != 'M' || dos[1] != 'Z')
		return bad(pe, "not a PE file (no MZ signature)");
	uint32_t lfanew = le32(dos + 60);
	if (read_at(pe, lfanew, coff, sizeof(coff), "the PE header") != 0)
		return -1;
	if (memcmp(coff, "PE\0\0", 4) != 0)
		return bad(pe, "not a PE file (no PE signature)");
	info->machine = le16(coff + 4);
	info->is_dll = (le16(coff + 22) & 0x2000) != 0;
	unsigned nsections = le16(coff + 6), opt_size = le16(coff + 20);
	if (nsections > MAX_SECTIONS)
		return bad(pe, "%u sections, more than %d", nsections, MAX_SECTIONS);
	if (opt_size < 96)
		return bad(pe, "the optional header is %u bytes, too short", opt_size);
	size_t opt_read = opt_size < sizeof(opt) ? opt_size : sizeof(opt);
	if (read_at(pe, (uint64_t)lfanew + 24, opt, opt_read, "the optional header") != 0)
		return -1;
	unsigned dirs_at;
	uint32_t ndirs;
	switch (le16(opt)) {
	case 0x10b: /* PE32 */
		pe->image_base = le32(opt + 28);
		ndirs = le32(opt + 92);
		dirs_at = 96;
		break;
	case 0x20b: /* PE32+ */
		if (opt_read < 112)
			return bad(pe, "the optional header is %u bytes, too short", opt_size);
		pe->image_base = le64(opt + 24);
		ndirs = le32(opt + 108);
		dirs_at = 112;
		break;
	default:
		return bad(pe, "unknown optional header magic 0x%x", le16(opt));
	}
	if (ndirs > 16)
		ndirs = 16;
	if (dirs_at + 8 * ndirs > opt_read)
		return bad(pe, "the optional header is too short for its %u data directories",
			   (unsigned)ndirs);
	pe->ndirs = ndirs;
	for (unsigned i = 0; i < ndirs; i++) {
		pe->dir_rva[i] = le32(opt + dirs_at + 8 * i);
		pe->dir_size[i] = le32(opt + dirs_at + 8 * i + 4);
	}
	uint64_t table = (uint64_t)lfanew + 24 + opt_size;
	for (unsigned i = 0; i < nsections; i++) {
		unsigned char s[40];
		if (read_at(pe, table + 40 * (uint64_t)i, s, sizeof(s), "the section table") != 0)
			return -1;
		struct section *sec = &pe->sections[i];
		sec->va = le32(s + 12);
		sec->raw_size = le32(s + 16);
		sec->raw_ptr = le32(s + 20);
		if ((uint64_t)sec->raw_ptr + sec->raw_size > pe->size)
			return bad(pe, "section %u's data lies beyond the end of the file", i);
	}
	pe->nsections = nsections;
	return 0;
}

int pe_parse(pe_read_fn read, void *ctx, uint64_t file_size, struct pe_info *info, char *why,
	     size_t why_size)
{
	struct pe *pe = calloc(1, sizeof(*pe));
	memset(info, 0, sizeof(*info));
	if (!pe) {
		snprintf(why, why_size, "out of memory");
		return -1;
	}
	pe->read = read;
	pe->ctx = ctx;
	pe->size = file_size;
	pe->why = why;
	pe->why_size = why_size;
	int rc = read_headers(pe, info);
	if (rc == 0)
		rc = read_imports(pe, info);
	if (rc == 0)
		rc = read_delay_imports(pe, info);
	if (rc == 0)
		rc = read_version(pe, info);
	free(pe);
	if (rc != 0)
		pe_info_free(info);
	return rc;
}

struct memory {
	const unsigned char *data;
	size_t size;
};

static int memory_read(void *ctx, uint64_t offset, void *buf, size_t size)
{
	const struct memory *m = ctx;
	if (offset > m->size || size > m->size - offset)
		return -1;
	memcpy(buf, m->data + offset, size);
	return 0;
}

int pe_parse_memory(const void *data, size_t size, struct pe_info *info, char *why,
		    size_t why_size)
{
	struct memory m = { data, size };
	return pe_parse(memory_read, &m, size, info, why, why_size);
}

static int file_read(void *ctx, uint64_t offset, void *buf, size_t size)
{
	FILE *f = ctx;
#ifdef _WIN32
	if (offset > INT64_MAX || _fseeki64(f, (__int64)offset, SEEK_SET) != 0)
		return -1;
#else
	if (offset > INT64_MAX || fseeko(f, (off_t)offset, SEEK_SET) != 0)
		return -1;
#endif
	return fread(buf, 1, size, f) == size ? 0 : -1;
}

static FILE *open_read(const char *path)
{
#ifdef _WIN32
	wchar_t wide[32768];
	if (!MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wide, 32768)) {
		errno = EINVAL;
		return NULL;
	}
	return _wfopen(wide, L"rb");
#else
	return fopen(path, "rb");
#endif
}

int pe_parse_file(const char *path, struct pe_info *info, char *why, size_t why_size)
{
	memset(info, 0, sizeof(*info));
	FILE *f = open_read(path);
	if (!f) {
		snprintf(why, why_size, "cannot open: %s", platform_strerror(errno));
		return -1;
	}
	uint64_t size = 0;
#ifdef _WIN32
	int sought = _fseeki64(f, 0, SEEK_END);
	__int64 end = sought == 0 ? _ftelli64(f) : -1;
#else
	int sought = fseeko(f, 0, SEEK_END);
	off_t end = sought == 0 ? ftello(f) : -1;
#endif
	if (end < 0) {
		snprintf(why, why_size, "cannot find its size: %s", platform_strerror(errno));
		fclose(f);
		return -1;
	}
	size = (uint64_t)end;
	int rc = pe_parse(file_read, f, size, info, why, why_size);
	fclose(f);
	return rc;
}

void pe_info_free(struct pe_info *info)
{
	free(info->imports);
	info->imports = NULL;
	info->import_count = 0;
}

const char *pe_machine_name(uint16_t machine, char *buf, size_t size)
{
	switch (machine) {
	case PE_MACHINE_AMD64: snprintf(buf, size, "x86-64"); break;
	case PE_MACHINE_I386: snprintf(buf, size, "x86"); break;
	case PE_MACHINE_ARM64: snprintf(buf, size, "arm64"); break;
	default: snprintf(buf, size, "unknown (0x%04x)", (unsigned)machine); break;
	}
	return buf;
}
