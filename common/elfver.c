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
