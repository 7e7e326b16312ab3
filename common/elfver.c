/* elfver.c - GLIBC_ symbol versions from an ELF file's version sections */
#include "common/elfver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHT_VERDEF 0x6ffffffdu
#define SHT_VERNEED 0x6ffffffeu
/* No library has more; a count beyond it is a malformed or hostile file. */
#define MAX_SECTIONS 4096
#define MAX_ENTRIES 65536

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16; }
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

int elfver_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);
		if (x != y)
			return x < y ? -1 : 1;
		a += *a == '.';
		b += *b == '.';
	}
	return 0;
}

struct section {
	uint32_t type, link;
	uint64_t offset, size;
};

static int read_section(elfver_read_fn read, void *ctx, uint64_t shoff, uint16_t shentsize,
			uint32_t i, struct section *s)
{
	uint8_t sh[64];
	if (read(ctx, shoff + (uint64_t)i * shentsize, sh, sizeof(sh)) != 0)
		return -1;
	s->type = le32(sh + 4);
	s->offset = le64(sh + 24);
	s->size = le64(sh + 32);
	s->link = le32(sh + 40);
	return 0;
}

/* name (in the string table) if it is GLIBC_x.y and newer than out: into out. */
static int note_name(elfver_read_fn read, void *ctx, const struct section *strtab, uint32_t name,
		     char *out, size_t size)
{
	char buf[32];
	if (name >= strtab->size)
		return -1;
	size_t n = strtab->size - name < sizeof(buf) - 1 ? (size_t)(strtab->size - name) : sizeof(buf) - 1;
	if (read(ctx, strtab->offset + name, buf, n) != 0)
		return -1;
	buf[n] = '\0';
	const char *v = buf + 6;
	if (strncmp(buf, "GLIBC_", 6) != 0 || !*v || strspn(v, "0123456789.") != strlen(v) ||
	    strlen(v) >= size)
		return 0; /* GLIBC_PRIVATE, other libraries' versions */
	if (!out[0] || elfver_cmp(v, out) > 0)
		snprintf(out, size, "%s", v);
	return 0;
}

/* Walk Verneed entries (16 bytes: cnt at 2, aux at 8, next at 12; each Vernaux 16 bytes: name
 * at 8, next at 12) or Verdef entries (20 bytes: cnt at 6, aux at 12, next at 16; the first
 * Verdaux, 8 bytes, names the version itself, the others its parents). */
static int walk(elfver_read_fn read, void *ctx, const struct section *s,
		const struct section *strtab, enum elfver_kind kind, char *out, size_t size)
{
	int needed = kind == ELFVER_NEEDED;
	size_t elen = needed ? 16 : 20, xlen = needed ? 16 : 8;
	uint64_t off = 0;
	for (unsigned n = 0; n < MAX_ENTRIES; n++) {
		uint8_t e[20], x[16];
		if (off > s->size || s->size - off < elen || read(ctx, s->offset + off, e, elen) != 0)
			return -1;
		unsigned count = needed ? le16(e + 2) : le16(e + 6) ? 1 : 0;
		uint32_t aux = needed ? le32(e + 8) : le32(e + 12);
		uint32_t next = needed ? le32(e + 12) : le32(e + 16);
		uint64_t a = off + aux;
		for (unsigned i = 0; i < count && i < MAX_ENTRIES; i++) {
			if (a > s->size || s->size - a < xlen || read(ctx, s->offset + a, x, xlen) != 0)
				return -1;
			if (note_name(read, ctx, strtab, needed ? le32(x + 8) : le32(x), out, size) != 0)
				return -1;
			uint32_t anext = needed ? le32(x + 12) : le32(x + 4);
			if (!anext)
				break;
			a += anext;
		}
		if (!next)
			return 0;
		off += next;
	}
	return -1;
}

int elfver_newest_glibc(elfver_read_fn read, void *ctx, enum elfver_kind kind, char *out,
			size_t size)
{
	uint8_t h[64];
	out[0] = '\0';
	if (read(ctx, 0, h, sizeof(h)) != 0 || memcmp(h, "\177ELF", 4) != 0)
		return 1;
	if (h[4] != 2 || h[5] != 1)
		return -1; /* not 64-bit little-endian: no platform cuferry carries */
	uint64_t shoff = le64(h + 40);
	uint16_t shentsize = le16(h + 58), shnum = le16(h + 60);
	if (shnum > MAX_SECTIONS || (shnum && shentsize < 64))
		return -1;
	uint32_t want = kind == ELFVER_NEEDED ? SHT_VERNEED : SHT_VERDEF;
	for (uint32_t i = 0; i < shnum; i++) {
		struct section s, strtab;
		if (read_section(read, ctx, shoff, shentsize, i, &s) != 0)
			return -1;
		if (s.type != want)
			continue;
		if (s.link >= shnum || read_section(read, ctx, shoff, shentsize, s.link, &strtab) != 0 ||
		    walk(read, ctx, &s, &strtab, kind, out, size) != 0)
			return -1;
	}
	return out[0] ? 0 : 1;
}

struct mem {
	const uint8_t *data;
	size_t len;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct mem *m = ctx;
	if (off > m->len || m->len - off < len)
		return -1;
	memcpy(buf, m->data + off, len);
	return 0;
}

int elfver_newest_glibc_mem(const void *data, size_t len, enum elfver_kind kind, char *out,
			    size_t size)
{
	struct mem m = { data, len };
	return elfver_newest_glibc(mem_read, &m, kind, out, size);
}

#define PT_LOAD 1u
#define PT_DYNAMIC 2u
#define DT_NULL 0u
#define DT_STRTAB 5u
#define DT_SONAME 14u
/* A shared object has a handful of program headers and a few dozen dynamic entries. */
#define MAX_SEGMENTS 256
#define MAX_DYNAMIC 4096

struct segment {
	uint32_t type;
	uint64_t offset, vaddr, filesz;
};

/* Program header i of a 32-bit (32 bytes: offset at 4, vaddr at 8, filesz at 16) or 64-bit
 * (56 bytes: offset at 8, vaddr at 16, filesz at 32) object. */
static int read_segment(elfver_read_fn read, void *ctx, int wide, uint64_t phoff,
			uint16_t phentsize, uint32_t i, struct segment *s)
{
	uint8_t ph[56];
	if (read(ctx, phoff + (uint64_t)i * phentsize, ph, wide ? 56 : 32) != 0)
		return -1;
	s->type = le32(ph);
	s->offset = wide ? le64(ph + 8) : le32(ph + 4);
	s->vaddr = wide ? le64(ph + 16) : le32(ph + 8);
	s->filesz = wide ? le64(ph + 32) : le32(ph + 16);
	return 0;
}

/* The file offset of address addr: inside the PT_LOAD segment whose file image holds it. */
static int address_offset(elfver_read_fn read, void *ctx, int wide, uint64_t phoff,
			  uint16_t phentsize, uint16_t phnum, uint64_t addr, uint64_t *off)
{
	for (uint32_t i = 0; i < phnum; i++) {
		struct segment s;
		if (read_segment(read, ctx, wide, phoff, phentsize, i, &s) != 0)
			return -1;
		if (s.type == PT_LOAD && addr >= s.vaddr && addr - s.vaddr < s.filesz) {
			*off = s.offset + (addr - s.vaddr);
			return *off < s.offset ? -1 : 0; /* wrapped: malformed */
		}
	}
	return -1;
}

/* The dynamic entries of seg (16 bytes each, 8 in a 32-bit object) up to DT_NULL: the
 * string table's address and the soname's index into it. */
static int dynamic_entries(elfver_read_fn read, void *ctx, int wide, const struct segment *seg,
			   uint64_t *strtab, uint64_t *soname, int *have_strtab, int *have_soname)
{
	size_t dlen = wide ? 16 : 8;
	for (uint64_t n = 0; n < MAX_DYNAMIC; n++) {
		uint8_t d[16];
		if (seg->filesz / dlen <= n)
			return 0; /* no DT_NULL: ldconfig stops at the segment's end too */
		if (read(ctx, seg->offset + n * dlen, d, dlen) != 0)
			return -1;
		uint64_t tag = wide ? le64(d) : le32(d), val = wide ? le64(d + 8) : le32(d + 4);
		if (tag == DT_NULL)
			return 0;
		if (tag == DT_STRTAB)
			*strtab = val, *have_strtab = 1;
		else if (tag == DT_SONAME)
			*soname = val, *have_soname = 1;
	}
	return -1;
}

int elfver_soname(elfver_read_fn read, void *ctx, char *out, size_t size)
{
	uint8_t h[64];
	out[0] = '\0';
	if (size < 2)
		return -1;
	if (read(ctx, 0, h, 16) != 0 || memcmp(h, "\177ELF", 4) != 0)
		return 1;
	if ((h[4] != 1 && h[4] != 2) || h[5] != 1)
		return -1; /* neither 32- nor 64-bit little-endian: nothing cuferry carries */
	int wide = h[4] == 2;
	if (read(ctx, 0, h, wide ? 64 : 52) != 0)
		return -1;
	uint64_t phoff = wide ? le64(h + 32) : le32(h + 28);
	uint16_t phentsize = le16(h + (wide ? 54 : 42)), phnum = le16(h + (wide ? 56 : 44));
	if (phnum > MAX_SEGMENTS || (phnum && phentsize < (wide ? 56 : 32)))
		return -1;
	uint64_t strtab = 0, soname = 0;
	int have_strtab = 0, have_soname = 0;
	for (uint32_t i = 0; i < phnum; i++) {
		struct segment s;
		if (read_segment(read, ctx, wide, phoff, phentsize, i, &s) != 0)
			return -1;
		if (s.type != PT_DYNAMIC)
			continue;
		if (dynamic_entries(read, ctx, wide, &s, &strtab, &soname, &have_strtab,
				    &have_soname) != 0)
			return -1;
		break; /* the loader and ldconfig use the first */
	}
	if (!have_soname)
		return 1;
	uint64_t at;
	if (!have_strtab || address_offset(read, ctx, wide, phoff, phentsize, phnum, strtab, &at) != 0 ||
	    at + soname < at)
		return -1;
	/* The name, up to its NUL: read byte by byte past a short file's end is still bounded
	 * by size. */
	for (size_t n = 0; n < size; n++) {
		uint8_t c;
		if (read(ctx, at + soname + n, &c, 1) != 0)
			return -1;
		out[n] = (char)c;
		if (!c)
			return n ? 0 : -1;
	}
	out[0] = '\0';
	return -1;
}

int elfver_soname_mem(const void *data, size_t len, char *out, size_t size)
{
	struct mem m = { data, len };
	return elfver_soname(mem_read, &m, out, size);
}
