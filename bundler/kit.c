/* kit.c - bundler kit: collect and check the bundles, find the unpackers, plan the files,
 * check space, write DIR.partial-XXXXXX (SHA256SUMS, its signatures and the signed index
 * last), flush, read back from the device, rename to DIR */
#include "bundler/kit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "bundler/check.h"
#include "common/bundle/reader.h"
#include "bundler/kitsign.h"
#include "bundler/output.h"
#include "bundler/stub.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/progress.h"
#include "common/sha256.h"
#include "manifests/kitindex.h"
#include "manifests/platforms.h"
#include "manifests/product.h"
#include "signing/verify.h"

#define FAT_MAX_FILE 4294967295ull /* 4 GiB - 1 */
#define KIT_MAX_FILES 4096
#define KIT_MAX_SEGMENTS 1000
#define BLOCK (1u << 20)

/* ---- where bytes come from: the parts of a bundle as one stream, or memory ---- */

struct source {
	char *paths[KIT_MAX_SEGMENTS];
	uint64_t sizes[KIT_MAX_SEGMENTS];
	size_t nsegments;
	char *mem; /* README.txt, SHA256SUMS */
	uint64_t size;
	/* A bundle's bytes are hashed before its check and again as they are written: a file
	 * changed in between would otherwise go onto the stick unchecked. */
	int hashed;
	uint8_t checked[32];
	struct sha256 written;
};

/* One file of the kit: bytes [offset, offset + length) of a source. */
struct kit_file {
	char *name; /* relative to the kit */
	struct source *src;
	uint64_t offset, length;
	unsigned mode;
	uint8_t sha256[32]; /* of what was written */
};

struct kit_bundle {
	char *name; /* <bundle_id_stem>-9.19.0.56-cuda13-linux-x86_64.bundle */
	const struct product *product; /* the manifest's */
	struct source src;
	char *id, *platform, *version, *cuda, *driver_min; /* driver_min: check_driver_text's */
	int packs_cuda;
	uint8_t keyids[8][32];
	uint32_t nkeys;
};

struct kit_unpacker {
	char platform[32];
	char path[PATH_MAX];
	uint8_t trusts[8][32]; /* the keys compiled into it */
	int ntrusts;           /* -1: could not be read */
};

struct kit {
	const struct kit_options *o;
	struct kit_bundle bundles[KIT_MAX_INPUTS];
	size_t nbundles;
	struct kit_unpacker unpackers[8];
	size_t nunpackers;
	char skipped[256]; /* platforms whose unpacker the user brings */
	struct source unpacker_src[8], readme, sums, statement;
	struct source sums_sigs[KITSIGN_MAX_KEYS], index, index_sig;
	struct kitsign signing;
	int64_t created, valid_until;
	struct kit_file files[KIT_MAX_FILES];
	size_t nfiles;
	char *out;        /* the kit's final path */
	char *partial;    /* where it is written */
	char *workdir;    /* matrix bundles are built here, on local disk */
	char missing[2048]; /* the matrix pairs the mirror lacks, and why */
	uint64_t split;
	uint64_t fs_limit;
	const char *fs_name;
};

uint64_t kit_split_for_fs(long f_type, const char **name)
{
	switch ((unsigned long)f_type & 0xffffffffu) {
	case 0x4d44: /* MSDOS_SUPER_MAGIC: FAT12/16/32 */
		*name = "FAT";
		return FAT_MAX_FILE;
	case 0x65735546: /* FUSE: fuseblk may be a FAT driver; parts cost nothing elsewhere */
		*name = "FUSE (possibly FAT)";
		return FAT_MAX_FILE;
	case 0x2011bab0:
		*name = "exFAT";
		return 0;
	case 0x5346544e:
	case 0x7366746e:
		*name = "NTFS";
		return 0;
	default:
		*name = "no file-size limit";
		return 0;
	}
}

static void source_free(struct source *s)
{
	for (size_t i = 0; i < s->nsegments; i++)
		free(s->paths[i]);
	free(s->mem);
	memset(s, 0, sizeof(*s));
}

static int source_add(struct source *s, const char *path, struct cf_err *e)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return cf_fail(e, CF_USAGE, "%s: %s", path, errno ? strerror(errno) : "not a regular file");
	if (s->nsegments == KIT_MAX_SEGMENTS)
		return cf_fail(e, CF_USAGE, "%s: too many parts", path);
	s->paths[s->nsegments] = xstrdup(path);
	s->sizes[s->nsegments++] = (uint64_t)st.st_size;
	s->size += (uint64_t)st.st_size;
	return CF_OK;
}

/* Read len bytes at stream offset off (across parts). 0 ok, -1 error. */
static int source_read(const struct source *s, uint64_t off, uint8_t *buf, size_t len)
{
	if (s->mem) {
		if (off + len > s->size)
			return -1;
		memcpy(buf, s->mem + off, len);
		return 0;
	}
	uint64_t start = 0;
	for (size_t i = 0; i < s->nsegments && len > 0; i++) {
		uint64_t end = start + s->sizes[i];
		if (off < end) {
			size_t n = (size_t)(end - off < len ? end - off : len);
			int fd = open(s->paths[i], O_RDONLY | O_CLOEXEC);
			int ok = fd >= 0 && pread(fd, buf, n, (off_t)(off - start)) == (ssize_t)n;
			if (fd >= 0)
				close(fd);
			if (!ok)
				return -1;
			buf += n;
			off += n;
			len -= n;
		}
		start = end;
	}
	return len == 0 ? 0 : -1;
}

static int source_hash(struct source *s, uint8_t out[32], struct cf_err *e)
{
	uint8_t *buf = xmalloc(BLOCK);
	struct sha256 h;
	sha256_init(&h);
	int rc = CF_OK;
	for (uint64_t off = 0; off < s->size;) {
		size_t n = s->size - off < BLOCK ? (size_t)(s->size - off) : BLOCK;
		if (source_read(s, off, buf, n) != 0) {
			rc = cf_fail(e, CF_SOURCE, "%s: %s", s->paths[0], strerror(errno));
			break;
		}
		sha256_update(&h, buf, n);
		off += n;
	}
	sha256_final(&h, out);
	free(buf);
	s->hashed = rc == CF_OK;
	sha256_init(&s->written);
	return rc;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int in_list(const char *list, const char *item)
{
	size_t n = strlen(item);
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && strncmp(p, item, n) == 0)
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* ---- the bundles: given, or built for the matrix; each checked whole before it is used ---- */

static void bundle_free(struct kit_bundle *b)
{
	source_free(&b->src);
	free(b->name);
	free(b->id);
	free(b->platform);
	free(b->version);
	free(b->cuda);
	free(b->driver_min);
	memset(b, 0, sizeof(*b));
}

static int add_bundle(struct kit *k, const char *path, struct cf_err *e)
{
	if (k->nbundles == KIT_MAX_INPUTS)
		return cf_fail(e, CF_USAGE, "more than %d bundles", KIT_MAX_INPUTS);
	struct kit_bundle *b = &k->bundles[k->nbundles];
	struct checked c;
	memset(b, 0, sizeof(*b));
	int rc = CF_OK;
	if (has_suffix(path, ".001")) {
		/* The parts the unpacker will read, found as its reader finds them. */
		struct bundle_parts parts;
		rc = bundle_split_parts(path, &parts, e);
		for (size_t i = 0; rc == CF_OK && i < parts.count; i++)
			rc = source_add(&b->src, parts.paths[i], e);
		if (parts.stem)
			b->name = xstrdup(base_name(parts.stem));
		bundle_parts_free(&parts);
	} else {
		rc = source_add(&b->src, path, e);
		b->name = xstrdup(base_name(path));
	}
	if (rc == CF_OK)
		rc = source_hash(&b->src, b->src.checked, e);
	if (rc != CF_OK) {
		bundle_free(b);
		return rc;
	}
	/* The whole bundle is checked here (every signature by the key it names, every chunk and
	 * file): nothing goes onto the stick that the bundler would not have written itself. */
	log_msg(LOG_INFO, "checking %s", path);
	rc = check_open(path, &c, e);
	if (rc == CF_OK)
		rc = check_payload(&c, k->o->progress, e);
	if (rc == CF_OK) {
		const struct manifest *m = c.manifest;
		b->id = xstrdup(m->bundle_id);
		b->platform = xstrdup(m->platform);
		b->version = xstrdup(m->product_version);
		b->product = m->product;
		b->cuda = xstrdup(m->cuda_variant);
		char driver[128];
		check_driver_text(m, driver, sizeof(driver));
		b->driver_min = xstrdup(driver);
		for (size_t i = 0; i < m->ncomponents; i++)
			b->packs_cuda |= m->components[i].included;
		b->nkeys = c.frame->nsigs;
		for (uint32_t i = 0; i < c.frame->nsigs; i++)
			memcpy(b->keyids[i], c.frame->sigs[i].keyid, 32);
	} else {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		int code = e->code;
		cf_err_clear(e);
		rc = cf_fail(e, code, "%s: %s", path, why);
	}
	check_close(&c);
	for (size_t i = 0; rc == CF_OK && i < k->nbundles; i++)
		if (strcmp(k->bundles[i].name, b->name) == 0)
			rc = cf_fail(e, CF_USAGE, "two bundles named %s", b->name);
	if (rc != CF_OK) {
		bundle_free(b);
		return rc;
	}
	k->nbundles++;
	return CF_OK;
}

static int name_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One step for each platform x CUDA variant of the matrix (--platform a,b --cuda 12,13),
 * with the create options of that pair; stops at the first failure unless keep_going. */
typedef int (*pair_step)(struct kit *k, struct create_options *co, struct cf_err *e);
static int each_pair(struct kit *k, pair_step step, int keep_going, struct cf_err *e)
{
	const struct kit_options *o = k->o;
	const char *platforms = o->platform_list ? o->platform_list : "linux-x86_64";
	const char *cudas = o->cuda_list ? o->cuda_list : "";
	int rc = CF_OK;
	for (const char *p = platforms; (rc == CF_OK || keep_going) && *p;) {
		size_t plen = strcspn(p, ",");
		char platform[32];
		snprintf(platform, sizeof(platform), "%.*s", (int)plen, p);
		for (const char *c = cudas;;) {
			size_t clen = strcspn(c, ",");
			char cuda[16];
			snprintf(cuda, sizeof(cuda), "%.*s", (int)clen, c);
			struct create_options co = o->create;
			co.platform = platform;
			co.cuda = cuda[0] ? cuda : NULL;
			int step_rc = step(k, &co, e);
			rc = rc != CF_OK ? rc : step_rc;
			c += clen + (c[clen] == ',');
			if ((rc != CF_OK && !keep_going) || !*c)
				break;
		}
		p += plen + (p[plen] == ',');
	}
	return rc;
}

static int build_pair(struct kit *k, struct create_options *co, struct cf_err *e)
{
	char *out = xasprintf("%s/", k->workdir);
	co->out = out;
	co->split = 0;
	co->sfx = 0;
	int rc = create_bundle(co, e);
	free(out);
	return rc;
}

/* Every pair is resolved against the mirror before the first download: a platform or CUDA
 * variant the mirror lacks is named now, not after gigabytes of the others. k->missing
 * collects "platform CUDA n: why" for each. */
static int resolve_pair(struct kit *k, struct create_options *co, struct cf_err *e)
{
	struct cf_err why = { 0 };
	int rc = create_check_mirror(co, &why);
	if (rc == CF_OK)
		return CF_OK;
	size_t have = strlen(k->missing);
	snprintf(k->missing + have, sizeof(k->missing) - have, "%s%s%s%s: %s", have ? "; " : "",
		 co->platform, co->cuda ? " CUDA " : "", co->cuda ? co->cuda : "", why.msg);
	return rc;
}

/* --product-version VER --cuda 12,13 --platform a,b: the whole matrix resolved first, then
 * one create per pair, into a local work directory. */
static int build_matrix(struct kit *k, struct cf_err *e)
{
	const struct kit_options *o = k->o;
	k->missing[0] = '\0';
	int rc = each_pair(k, resolve_pair, 1, e);
	if (rc != CF_OK)
		return cf_fail(e, rc, "nothing downloaded: the mirror lacks part of the matrix: %s",
			       k->missing);
	char *cache = create_cache_dir(o->create.cache);
	io_mkdirs(cache, 0755);
	k->workdir = xasprintf("%s/kit-XXXXXX", cache);
	free(cache);
	if (!mkdtemp(k->workdir))
		return cf_fail(e, cf_write_status(errno), "%s: %s", k->workdir, strerror(errno));
	rc = each_pair(k, build_pair, 0, e);
	DIR *d = rc == CF_OK ? opendir(k->workdir) : NULL;
	char *names[KIT_MAX_INPUTS];
	size_t n = 0;
	for (struct dirent *de; d && (de = readdir(d)) != NULL;)
		if (has_suffix(de->d_name, ".bundle") && n < KIT_MAX_INPUTS)
			names[n++] = xasprintf("%s/%s", k->workdir, de->d_name);
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), name_order);
	for (size_t i = 0; i < n; i++) {
		if (rc == CF_OK)
			rc = add_bundle(k, names[i], e);
		free(names[i]);
	}
	return rc;
}

/* ---- the unpackers: one per platform of the bundles, of the right machine type ---- */

/* "unpacker" is "unpacker.exe" where programs end in .exe. */
static const char *exe_suffix(const char *platform)
{
	return platform_facts(platform)->exe_suffix;
}

/* What the program at path is built for: a platform's name, "another machine", "not a program". */
static const char *machine_of(const char *path)
{
	uint8_t h[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? io_read_full(fd, h, sizeof(h)) : -1;
	if (fd >= 0)
		close(fd);
	return platform_describe_program(h, n > 0 ? (size_t)n : 0);
}

static const char *explicit_unpacker(const struct kit_options *o, const char *platform)
{
	size_t n = strlen(platform);
	for (size_t i = 0; i < o->nunpackers; i++) {
		const char *u = o->unpackers[i];
		if (strncmp(u, platform, n) == 0 && u[n] == '=')
			return u + n + 1;
		if (!strchr(u, '=') && strcmp(platform, platform_self()->name) == 0)
			return u;
	}
	return NULL;
}

static int find_unpackers(struct kit *k, struct cf_err *e)
{
	for (size_t i = 0; i < k->nbundles; i++) {
		const char *platform = k->bundles[i].platform;
		int seen = 0;
		for (size_t j = 0; j < k->nunpackers; j++)
			seen |= strcmp(k->unpackers[j].platform, platform) == 0;
		if (seen || in_list(k->skipped, platform))
			continue;
		if (in_list(k->o->no_unpacker, platform)) {
			size_t used = strlen(k->skipped);
			snprintf(k->skipped + used, sizeof(k->skipped) - used, "%s%s", used ? "," : "", platform);
			continue;
		}
		if (k->nunpackers == sizeof(k->unpackers) / sizeof(k->unpackers[0]))
			return cf_fail(e, CF_USAGE, "too many platforms");
		struct kit_unpacker *u = &k->unpackers[k->nunpackers];
		snprintf(u->platform, sizeof(u->platform), "%s", platform);
		int rc = stub_find(platform, explicit_unpacker(k->o, platform), u->path, sizeof(u->path), e);
		if (rc != CF_OK) {
			char why[sizeof(e->msg)];
			snprintf(why, sizeof(why), "%s", e->msg);
			cf_err_clear(e);
			return cf_fail(e, rc, "%s (give --unpacker %s=PATH, or --no-unpacker %s to bring "
				       "one another way)", why, platform, platform);
		}
		const char *machine = machine_of(u->path);
		if (!platform_same_program(platform_find(machine), platform_find(platform)))
			return cf_fail(e, CF_USAGE, "%s is %s, not an unpacker for %s", u->path, machine,
				       platform);
		k->nunpackers++;
	}
	return CF_OK;
}

/* ---- the plan: every file of the kit, its source and its bytes ---- */

static struct kit_file *plan_add(struct kit *k, char *name, struct source *src, uint64_t offset,
				 uint64_t length, unsigned mode)
{
	struct kit_file *f = &k->files[k->nfiles++];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->src = src;
	f->offset = offset;
	f->length = length;
	f->mode = mode;
	return f;
}

static int plan_files(struct kit *k, struct cf_err *e)
{
	for (size_t i = 0; i < k->nbundles; i++) {
		struct kit_bundle *b = &k->bundles[i];
		uint64_t size = b->src.size;
		if (!k->split || size <= k->split) {
			/* A .run or .exe is a program: it keeps its x bit on the stick. */
			size_t n = strlen(b->name);
			int program = n > 4 && (!strcmp(b->name + n - 4, ".run") ||
						!strcmp(b->name + n - 4, ".exe"));
			plan_add(k, xstrdup(b->name), &b->src, 0, size, program ? 0755 : 0644);
			continue;
		}
		uint64_t nparts = (size + k->split - 1) / k->split;
		if (nparts > 999 || k->nfiles + nparts + 16 > KIT_MAX_FILES)
			return cf_fail(e, CF_USAGE, "%s would make %llu parts of %llu bytes (999 at most)",
				       b->name, (unsigned long long)nparts, (unsigned long long)k->split);
		for (uint64_t p = 0; p < nparts; p++) {
			uint64_t off = p * k->split;
			plan_add(k, output_part_name(b->name, (unsigned)p + 1), &b->src, off,
				 size - off < k->split ? size - off : k->split, 0644);
		}
	}
	for (size_t i = 0; i < k->nunpackers; i++) {
		struct kit_unpacker *u = &k->unpackers[i];
		struct source *s = &k->unpacker_src[i];
		/* The stick's unpacker is a signed container: an installed unpacker can check it, and
		 * it still runs as it is. */
		uint8_t *container;
		size_t container_len;
		int rc = kitsign_container(&k->signing, u->path, &container, &container_len, e);
		if (rc != CF_OK)
			return rc;
		s->mem = (char *)container;
		s->size = container_len;
		u->ntrusts = kitsign_compiled_keys(u->path, u->trusts, 8);
		/* A program cannot be cut into parts: only the file system's own limit applies. */
		if (k->fs_limit && s->size > k->fs_limit)
			return cf_fail(e, CF_INCOMPATIBLE, "%s is larger than the %s limit of %llu bytes per file",
				       u->path, k->fs_name, (unsigned long long)k->fs_limit);
		plan_add(k, xasprintf("%s/unpacker%s", u->platform, exe_suffix(u->platform)),
			 s, 0, s->size, 0755);
	}
	/* --statement: 'unpacker install DIR' applies it before it chooses (unpacker trust apply). */
	int rc = k->o->statement ? source_add(&k->statement, k->o->statement, e) : CF_OK;
	if (rc == CF_OK && k->o->statement)
		plan_add(k, xstrdup(KIT_STATEMENT_NAME), &k->statement, 0, k->statement.size, 0644);
	return rc;
}

static void append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < *cap - *len) {
			*len += (size_t)n;
			return;
		}
		*cap = *cap * 2 + (n > 0 ? (size_t)n : 0);
		*buf = xrealloc(*buf, *cap);
	}
}

/* The README's Windows paragraphs are for a kit with an unpacker for a Windows machine. */
static int kit_has_windows(const struct kit *k)
{
	for (size_t i = 0; i < k->nunpackers; i++)
		if (platform_facts(k->unpackers[i].platform)->os == PLATFORM_OS_WINDOWS)
			return 1;
	return 0;
}

/* A bundle made from a tree without NVIDIA's metadata knows its version from the headers only
 * (9.19.0); one made from NVIDIA's archive or wheel has the build too (9.19.0.56). When a kit
 * holds both, say which is which rather than let them read as two releases: the full
 * version of the one that lacks it, as far as major.minor.patch tell. NULL: nothing to say. */
static const char *full_version_of(const struct kit *k, const struct kit_bundle *b)
{
	size_t n = strlen(b->version);
	for (size_t i = 0; i < k->nbundles; i++) {
		const char *v = k->bundles[i].version;
		if (strncmp(v, b->version, n) == 0 && v[n] == '.' && !strchr(v + n + 1, '.'))
			return v;
	}
	return NULL;
}

static void version_note(const struct kit *k, const struct kit_bundle *b, char *out, size_t size)
{
	const char *full = full_version_of(k, b);
	out[0] = '\0';
	if (full)
		snprintf(out, size, "%s %s from its headers: its source named no build number; "
			 "the kit's %s bundles are the same %s release as far as the headers tell",
			 b->product->display, b->version, full, b->version);
}

/* 1 when the unpacker has at least one of the kit's signing keys compiled in. */
static int trusts_kit(const struct kit *k, const struct kit_unpacker *u)
{
	for (int i = 0; i < u->ntrusts; i++)
		for (size_t j = 0; j < k->signing.n; j++)
			if (memcmp(u->trusts[i], k->signing.keyids[j], 32) == 0)
				return 1;
	return 0;
}

/* The name of key i's detached signature of SHA256SUMS: SHA256SUMS.sig for the first key (the
 * stock command works as written), SHA256SUMS.<short id>.sig for each further one. */
static char *sums_sig_name(const struct kit *k, size_t i)
{
	char id[17];
	sig_short_id(k->signing.keyids[i], id);
	return i == 0 ? xstrdup("SHA256SUMS.sig") : xasprintf("SHA256SUMS.%s.sig", id);
}

static void readme_keys(struct kit *k, char **t, size_t *len, size_t *cap)
{
	append(t, len, cap, "\nSIGNED BY (compare with the fingerprint you received by another "
	       "channel, never with this file)\n");
	for (size_t i = 0; i < k->signing.n; i++) {
		char fp[65], id[17], *sig = sums_sig_name(k, i);
		sig_fingerprint(k->signing.keyids[i], fp);
		sig_short_id(k->signing.keyids[i], id);
		append(t, len, cap, "  key id %s  fingerprint %s\n      signed the bundles, %s, "
		       "cuferry-kit.sig and the unpackers\n", id, fp, sig);
		free(sig);
	}
	for (size_t i = 0; i < k->nunpackers; i++) {
		const struct kit_unpacker *u = &k->unpackers[i];
		append(t, len, cap, "  %s/unpacker%s trusts %s\n", u->platform, exe_suffix(u->platform),
		       u->ntrusts <= 0 ? "no compiled-in key (give --trust-fingerprint on the target)"
		       : trusts_kit(k, u) ? "the kit's key (compiled in)"
					  : "none of the kit's keys (give --trust-fingerprint on the target)");
	}
	append(t, len, cap,
	       "\nThis kit carries no trusted key on purpose. Whoever could change these bundles could "
	       "change a\nkey lying beside them too, so a key from the same stick proves nothing. The "
	       "target trusts\nonly keys compiled into its unpacker, keys in /etc/cuferry/trusted-keys, "
	       "or a --trust /\n--trust-fingerprint that came by another channel (not copied from this "
	       "file).\n");
	if (kit_has_windows(k))
		append(t, len, cap, "On Windows the installed keys are in "
		       "%%ProgramData%%\\cuferry\\trusted-keys.\n");
}

static void readme_first_server(struct kit *k, char **t, size_t *len, size_t *cap)
{
	/* The checks run on private copies, and the copy checked is the copy run: a user who can
	 * write the stick (a FAT stick mounted for a desktop user) could otherwise swap a file
	 * between its check and its use (outside review). A private directory: a fixed name under
	 * /tmp could be planted by anyone. */
	append(t, len, cap,
	       "\nTHE FIRST SERVER (no cuferry on it yet): check with stock tools before anything "
	       "from the stick\nruns, and check copies, never the stick itself: a user who can write "
	       "the stick could\nchange a file between its check and its use. As root, from this "
	       "directory:\n"
	       "  1. Copy the lists and the unpacker into a private directory, and go there:\n"
	       "       k=$PWD d=$(mktemp -d) && cp SHA256SUMS SHA256SUMS.sig \"$d/\" &&\n");
	for (size_t i = 0; i < k->nunpackers; i++) {
		const char *p = k->unpackers[i].platform;
		if (strncmp(p, "linux", 5) == 0)
			append(t, len, cap, "         mkdir \"$d/%s\" && cp ./%s/unpacker \"$d/%s/\" &&   "
			       "# %s\n", p, p, p, p);
	}
	append(t, len, cap,
	       "         cd \"$d\"\n"
	       "  2. Compare the key fingerprint under SIGNED BY with the one you received by another\n"
	       "     channel (paper, phone), and the SHA-256 of the unpacker with the one carried with it.\n"
	       "  3. Check the kit's signature with the site's own public key (site.pub, brought by "
	       "that\n     channel, never from this stick); it must print \"Verified OK\":\n"
	       "       openssl dgst -sha256 -verify site.pub -signature SHA256SUMS.sig SHA256SUMS\n"
	       "  4. Check the copies against the signed list (the unpacker checks every bundle "
	       "itself):\n"
	       "       sha256sum -c SHA256SUMS --ignore-missing\n"
	       "  5. Only then run the checked copy: make it this server's own, then install from the "
	       "stick:\n");
	/* Pasted whole, the other platform's line fails ("Exec format error"): say which one. */
	size_t nlinux = 0;
	for (size_t i = 0; i < k->nunpackers; i++)
		nlinux += strncmp(k->unpackers[i].platform, "linux", 5) == 0;
	if (nlinux > 1)
		append(t, len, cap, "     (run only this machine's self-install line: `uname -m` x86_64 "
		       "is linux-x86_64,\n     aarch64 is linux-sbsa or linux-aarch64)\n");
	for (size_t i = 0; i < k->nunpackers; i++) {
		const char *p = k->unpackers[i].platform;
		if (strncmp(p, "linux", 5) != 0)
			continue;
		append(t, len, cap, "       ./%s/unpacker self-install ./%s/unpacker --trust-fingerprint "
		       "HEX   # %s\n", p, p, p);
	}
	append(t, len, cap, "       cd \"$k\" && rm -rf \"$d\" && unpacker install . --trust-fingerprint "
	       "HEX /silent\n"
	       "     (HEX: the fingerprint from step 2; once the key is in /etc/cuferry/trusted-keys "
	       "or\n     compiled in, leave it out. The copy runs from the local disk, so a stick "
	       "mounted noexec\n     needs nothing more.)\n");
	if (!kit_has_windows(k))
		return;
	/* On a stick's root the kit is E:\cuferry-kit, and install E:\ looks in there. */
	const char *base = strrchr(k->out, '/');
	int in_root = base && strcmp(base, "/cuferry-kit") == 0;
	const char *dir = in_root ? "E:\\cuferry-kit\\" : "E:\\";
	append(t, len, cap,
	       "  Windows has no stock tool that checks an ECDSA signature. Copy the unpacker to a\n"
	       "  directory of the Administrator's own first (any user can write a FAT stick), "
	       "compare\n"
	       "       copy %swindows-x86_64\\unpacker.exe \"%%TEMP%%\\unpacker.exe\"\n"
	       "       certutil -hashfile \"%%TEMP%%\\unpacker.exe\" SHA256\n"
	       "     with the SHA-256 that was carried beside the key's fingerprint ('bundler kit' "
	       "printed\n     both), then let the checked copy check the rest (E:\\ stands for "
	       "%s):\n"
	       "       \"%%TEMP%%\\unpacker.exe\" self-install \"%%TEMP%%\\unpacker.exe\" "
	       "--trust-fingerprint HEX\n"
	       "       \"%%ProgramFiles%%\\cuferry\\unpacker.exe\" install %s /S --trust-fingerprint HEX\n"
	       "     PowerShell 7 (.NET 5 or later) can check SHA256SUMS.sig itself:\n"
	       "       $k=[Security.Cryptography.ECDsa]::Create(); $k.ImportFromPem((Get-Content -Raw "
	       "site.pub));\n       $k.VerifyData([IO.File]::ReadAllBytes(\"SHA256SUMS\"), "
	       "[IO.File]::ReadAllBytes(\"SHA256SUMS.sig\"),\n       'SHA256', "
	       "[Security.Cryptography.DSASignatureFormat]::Rfc3279DerSequence)   # True\n",
	       dir, in_root ? "the stick" : "this directory", dir);
}

/* The install line of each product other than the default one the kit carries: install KIT
 * picks among the bundles of --product only (default: the registry's first), so another product's bundle is installed
 * only when asked for by name. */
static void readme_products(const struct kit *k, char **t, size_t *len, size_t *cap)
{
	const struct product *p;
	for (size_t i = 0; (p = product_at(i)) != NULL; i++) {
		int carried = 0;
		for (size_t j = 0; j < k->nbundles; j++)
			carried |= k->bundles[j].product == p;
		if (carried && p != product_default())
			append(t, len, cap, "  unpacker install /media/usb/kit --product %s   # its %s "
			       "bundle (without --product: %s)\n", p->name, p->display,
			       product_default()->display);
	}
}

/* README.txt: the server's own unpacker first, then the first-server bootstrap with stock
 * tools, what is here and whose key signed it. Never a key. */
static void make_readme(struct kit *k)
{
	size_t len = 0, cap = 4096;
	char *t = xmalloc(cap), created[32], until[32];
	manifest_format_time(k->created, created);
	manifest_format_time(k->valid_until, until);
	append(&t, &len, &cap, "cuferry kit, written %s, valid until %s\n\n", created, until);
	append(&t, &len, &cap,
	       "ON A SERVER THAT HAS CUFERRY: its own, installed unpacker checks the whole kit (its "
	       "signature,\nevery file, the unpackers on it) before it installs; nothing from the "
	       "stick runs:\n"
	       "  unpacker verify /media/usb/kit\n"
	       "  unpacker install /media/usb/kit --dry-run   # which bundle it would choose, and "
	       "why\n"
	       "  unpacker install /media/usb/kit /silent\n"
	       "  unpacker self-install /media/usb/kit        # this kit's unpacker, when it is newer\n"
	       "  (/media/usb/kit: where this directory is mounted.) --cuda MAJOR picks a CUDA major "
	       "other\n  than the driver's. The install reads the bundle straight from the stick: "
	       "nothing is\n  copied to local disk. After %s the kit is refused as stale (exit 7) "
	       "unless\n  --allow-expired.\n", until);
	readme_products(k, &t, &len, &cap);
	if (kit_has_windows(k))
		append(&t, &len, &cap, "  Windows (a Command Prompt run as Administrator):\n"
		       "    \"%%ProgramFiles%%\\cuferry\\unpacker.exe\" install E:\\ /S\n");
	readme_first_server(k, &t, &len, &cap);
	append(&t, &len, &cap, "\nBUNDLES (signed; the unpacker picks the one for its machine)\n");
	for (size_t i = 0; i < k->nbundles; i++) {
		const struct kit_bundle *b = &k->bundles[i];
		int split = k->split && b->src.size > k->split;
		char note[256];
		version_note(k, b, note, sizeof(note));
		append(&t, &len, &cap, "  %s%s\n      %s %s for CUDA %s on %s, %s%s\n%s%s%s",
		       b->name,
		       split ? ".001, .002, ... (parts: the unpacker reads them in order)" : "",
		       b->product->display, b->version, b->cuda, b->platform, b->driver_min,
		       b->packs_cuda ? ", CUDA libraries included" : "", note[0] ? "      (" : "", note,
		       note[0] ? ")\n" : "");
	}
	append(&t, &len, &cap, "\nUNPACKERS (each a signed container: 'unpacker verify' checks it)\n");
	for (size_t i = 0; i < k->nunpackers; i++)
		append(&t, &len, &cap, "  %s/unpacker%s\n", k->unpackers[i].platform,
		       exe_suffix(k->unpackers[i].platform));
	if (k->skipped[0])
		append(&t, &len, &cap, "  (none for %s: bring one the site already trusts)\n", k->skipped);
	readme_keys(k, &t, &len, &cap);
	append(&t, &len, &cap, "\nFILES\n  SHA256SUMS, SHA256SUMS*.sig   for sha256sum and openssl\n"
	       "  cuferry-kit.json, cuferry-kit.sig   the signed index the unpacker checks (every "
	       "file, and\n      the validity)\n");
	k->readme.mem = t;
	k->readme.size = len;
}

/* ---- writing, flushing and reading back ---- */

/* fchmod, not the umask: the modes are what docs/guide.md promises. File systems without Unix
 * modes (FAT, exFAT or NTFS through FUSE) may refuse; their files have the mount's modes. */
static int no_unix_modes(int err)
{
	return err == EPERM || err == ENOTSUP || err == ENOSYS;
}

static int set_mode(int fd, unsigned mode)
{
	return fchmod(fd, mode) == 0 || no_unix_modes(errno) ? 0 : -1;
}

/* A directory's entries made durable; a file system that cannot fsync a directory (EINVAL)
 * writes them with its files. */
static int sync_dir(const char *path)
{
	return io_fsync_dir(path) == 0 || errno == EINVAL || errno == ENOSYS ? 0 : -1;
}

/* A progress bar (rate and time left) over every byte of the kit's files. */
static void progress_over_files(const struct kit *k, struct progress *p, const char *label)
{
	uint64_t total = 0;
	for (size_t i = 0; i < k->nfiles; i++)
		total += k->files[i].length;
	progress_start(p, label, total, k->o->progress);
}

static int write_file(struct kit *k, struct kit_file *f, uint8_t *buf, struct progress *p,
		      struct cf_err *e)
{
	char *path = xasprintf("%s/%s", k->partial, f->name);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	if (strcmp(path, k->partial) != 0 && mkdir(path, 0755) != 0 && errno != EEXIST) {
		int rc = cf_fail(e, cf_write_status(errno), "%s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	*slash = '/';
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct sha256 h;
	sha256_init(&h);
	int ok = fd >= 0, rc = CF_OK;
	for (uint64_t done = 0; ok && done < f->length;) {
		size_t n = f->length - done < BLOCK ? (size_t)(f->length - done) : BLOCK;
		if (source_read(f->src, f->offset + done, buf, n) != 0) {
			rc = cf_fail(e, CF_SOURCE, "reading the source of %s: %s", f->name, strerror(errno));
			break;
		}
		sha256_update(&h, buf, n);
		if (f->src->hashed)
			sha256_update(&f->src->written, buf, n); /* parts are written in order */
		ok = io_write_all(fd, buf, n) == 0;
		done += n;
		progress_add(p, n);
	}
	sha256_final(&h, f->sha256);
	ok = ok && set_mode(fd, f->mode) == 0 && fsync(fd) == 0;
	if (rc == CF_OK && !ok)
		rc = cf_fail(e, cf_write_status(errno), "writing %s: %s", path,
			     strerror(errno));
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}

#ifdef CUFERRY_TEST_SEAMS
/* Test builds only: CUFERRY_KIT_FLIP=NAME@OFFSET changes one byte of a written file after it
 * was flushed, as a stick that returns other bytes than it was given would. */
static void test_flip_byte(const struct kit *k)
{
	const char *spec = getenv("CUFERRY_KIT_FLIP");
	const char *at = spec ? strrchr(spec, '@') : NULL;
	if (!at)
		return;
	char *path = xasprintf("%s/%.*s", k->partial, (int)(at - spec), spec);
	off_t off = (off_t)strtoll(at + 1, NULL, 10);
	uint8_t c;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &c, 1, off) == 1) {
		c ^= 0x20;
		if (pwrite(fd, &c, 1, off) == 1 && fsync(fd) == 0)
			fprintf(stderr, "cuferry-test: flipped the byte at %lld of %s\n", (long long)off, path);
	}
	if (fd >= 0)
		close(fd);
	free(path);
}

/* CUFERRY_KIT_PAUSE=STEP stops the process there (SIGSTOP), so that a test can kill -9 it or
 * change its sources before it goes on: "checked" (bundles checked, nothing written yet),
 * "written" (everything written and flushed, not yet read back). */
static void test_pause(const char *step)
{
	const char *want = getenv("CUFERRY_KIT_PAUSE");
	if (!want || strcmp(want, step) != 0)
		return;
	fprintf(stderr, "cuferry-test: paused at %s\n", step);
	raise(SIGSTOP);
}
#endif

/* Where the file on the device first differs from its source (called on a hash mismatch). */
static uint64_t first_difference(const struct kit_file *f, int fd, uint8_t *buf, uint8_t *want)
{
	for (uint64_t done = 0; done < f->length;) {
		size_t n = f->length - done < BLOCK ? (size_t)(f->length - done) : BLOCK;
		ssize_t got = pread(fd, buf, n, (off_t)done);
		if (got <= 0 || source_read(f->src, f->offset + done, want, (size_t)got) != 0)
			return done;
		for (ssize_t i = 0; i < got; i++)
			if (buf[i] != want[i])
				return done + (uint64_t)i;
		done += (uint64_t)got;
	}
	return f->length;
}

/* Read every file back from the device, not from the page cache: the pages were written out
 * by fsync, so POSIX_FADV_DONTNEED drops them and the reads below go to the stick. */
static int read_back(struct kit *k, uint8_t *buf, struct cf_err *e)
{
	struct progress p;
	progress_over_files(k, &p, "reading back");
	int rc = CF_OK;
	for (size_t i = 0; rc == CF_OK && i < k->nfiles; i++) {
		const struct kit_file *f = &k->files[i];
		char *path = xasprintf("%s/%s", k->partial, f->name);
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0) {
			rc = cf_fail(e, CF_INTEGRITY, "%s: cannot read it back: %s", path, strerror(errno));
		} else {
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			struct sha256 h;
			uint8_t d[32];
			uint64_t size = 0;
			sha256_init(&h);
			for (ssize_t n; (n = read(fd, buf, BLOCK)) > 0;) {
				sha256_update(&h, buf, (size_t)n);
				size += (uint64_t)n;
				progress_add(&p, (uint64_t)n);
			}
			sha256_final(&h, d);
			if (size != f->length || !digest_equal(d, f->sha256, 32)) {
				uint8_t *want = xmalloc(BLOCK);
				uint64_t at = first_difference(f, fd, buf, want);
				free(want);
				rc = cf_fail(e, CF_INTEGRITY, "%s: the device returned other bytes than were "
					     "written, first at byte offset %llu (%llu of %llu bytes read "
					     "back): do not use this medium", f->name,
					     (unsigned long long)at, (unsigned long long)size,
					     (unsigned long long)f->length);
			}
		}
		if (fd >= 0)
			close(fd);
		free(path);
	}
	progress_end(&p);
	return rc;
}

static int fsync_dirs(const struct kit *k)
{
	int bad = sync_dir(k->partial) != 0;
	for (size_t i = 0; i < k->nunpackers; i++) {
		char *dir = xasprintf("%s/%s", k->partial, k->unpackers[i].platform);
		bad |= sync_dir(dir) != 0;
		free(dir);
	}
	return bad ? -1 : 0;
}

static void make_sums(struct kit *k, size_t nfiles)
{
	size_t len = 0, cap = 4096;
	char *t = xmalloc(cap), hex[65];
	for (size_t i = 0; i < nfiles; i++) {
		hex_encode(k->files[i].sha256, 32, hex);
		append(&t, &len, &cap, "%s  %s\n", hex, k->files[i].name);
	}
	k->sums.mem = t;
	k->sums.size = len;
}

/* One more file from memory, written now (after the ones it describes). */
static int write_mem(struct kit *k, struct source *src, char *name, void *data, size_t len,
		     uint8_t *buf, struct progress *p, struct cf_err *e)
{
	src->mem = data;
	src->size = len;
	return write_file(k, plan_add(k, name, src, 0, len, 0644), buf, p, e);
}

/* SHA256SUMS.sig by each key, then the index of every file written so far (SHA256SUMS and
 * its signatures included) and cuferry-kit.sig over it. */
static int write_signatures(struct kit *k, uint8_t *buf, struct progress *p, struct cf_err *e)
{
	int rc = CF_OK;
	for (size_t i = 0; rc == CF_OK && i < k->signing.n; i++) {
		uint8_t *der;
		size_t der_len;
		rc = kitsign_detached(&k->signing, i, k->sums.mem, (size_t)k->sums.size, &der, &der_len, e);
		if (rc == CF_OK)
			rc = write_mem(k, &k->sums_sigs[i], sums_sig_name(k, i), der, der_len, buf, p, e);
	}
	if (rc != CF_OK)
		return rc;
	struct kitindex x = { k->created, k->valid_until, xcalloc(k->nfiles, sizeof(*x.files)), k->nfiles };
	for (size_t i = 0; i < k->nfiles; i++) {
		x.files[i].path = k->files[i].name;
		x.files[i].size = k->files[i].length;
		memcpy(x.files[i].sha256, k->files[i].sha256, 32);
	}
	size_t len, sig_len;
	char *index = kitindex_encode(&x, &len);
	free(x.files);
	if (!index)
		return cf_fail(e, CF_INSTALL, "cannot encode the kit index");
	rc = write_mem(k, &k->index, xstrdup(KITINDEX_NAME), index, len, buf, p, e);
	uint8_t *sig = NULL;
	if (rc == CF_OK)
		rc = kitsign_index(&k->signing, k->index.mem, (size_t)k->index.size, &sig, &sig_len, e);
	if (rc == CF_OK)
		rc = write_mem(k, &k->index_sig, xstrdup(KITINDEX_SIG_NAME), sig, sig_len, buf, p, e);
	return rc;
}

static int write_all(struct kit *k, struct cf_err *e)
{
	uint8_t *buf = xmalloc(BLOCK);
	struct progress p;
	progress_over_files(k, &p, "writing kit");
	int rc = CF_OK;
	for (size_t i = 0; rc == CF_OK && i < k->nfiles; i++)
		rc = write_file(k, &k->files[i], buf, &p, e);
	progress_end(&p);
	for (size_t i = 0; rc == CF_OK && i < k->nbundles; i++) {
		uint8_t d[32];
		sha256_final(&k->bundles[i].src.written, d);
		if (!digest_equal(d, k->bundles[i].src.checked, 32))
			rc = cf_fail(e, CF_INTEGRITY, "%s changed while the kit was being written: not the "
				     "bundle that was checked", k->bundles[i].name);
	}
	/* SHA256SUMS last: it lists what was really written, README.txt included. */
	if (rc == CF_OK) {
		size_t listed = k->nfiles;
		make_sums(k, listed);
		struct kit_file *sums = plan_add(k, xstrdup("SHA256SUMS"), &k->sums, 0, k->sums.size, 0644);
		rc = write_file(k, sums, buf, &p, e);
	}
	if (rc == CF_OK)
		rc = write_signatures(k, buf, &p, e);
	if (rc == CF_OK && fsync_dirs(k) != 0)
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", k->partial, strerror(errno));
#ifdef CUFERRY_TEST_SEAMS
	if (rc == CF_OK)
		test_flip_byte(k);
	if (rc == CF_OK)
		test_pause("written");
#endif
	if (rc == CF_OK)
		rc = read_back(k, buf, e);
	free(buf);
	return rc;
}

/* ---- where the kit goes, and whether it fits ---- */

static int is_previous_kit(const char *dir)
{
	char *readme = xasprintf("%s/README.txt", dir), *sums = xasprintf("%s/SHA256SUMS", dir);
	int yes = io_exists(readme) && io_exists(sums);
	free(readme);
	free(sums);
	return yes;
}

static int is_empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	int empty = d != NULL;
	for (struct dirent *de; d && (de = readdir(d)) != NULL;)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	if (d)
		closedir(d);
	return empty;
}

static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	return slash == path ? xstrdup("/") : xasprintf("%.*s", (int)(slash - path), path);
}

/* -o names the kit; a mount point (the stick's root) gets the kit in cuferry-kit/ below it. */
static int choose_output(struct kit *k, struct cf_err *e)
{
	char *out = xstrdup(k->o->out);
	for (size_t n = strlen(out); n > 1 && out[n - 1] == '/'; n--)
		out[n - 1] = '\0';
	struct stat st, pst;
	char *parent = parent_of(out);
	if (stat(out, &st) == 0 && S_ISDIR(st.st_mode) && stat(parent, &pst) == 0 &&
	    (st.st_dev != pst.st_dev || strcmp(out, "/") == 0)) {
		char *inside = xasprintf("%s/cuferry-kit", strcmp(out, "/") ? out : "");
		log_msg(LOG_INFO, "%s is a mount point: the kit goes to %s", out, inside);
		free(out);
		out = inside;
		free(parent);
		parent = parent_of(out);
	}
	k->out = out;
	int rc = CF_OK;
	if (lstat(out, &st) == 0 && !(S_ISDIR(st.st_mode) && (is_empty_dir(out) || is_previous_kit(out))))
		rc = cf_fail(e, CF_USAGE, "%s exists and is not a kit (no README.txt and SHA256SUMS): "
			     "choose another -o or remove it", out);
	else if (!io_is_dir(parent))
		rc = cf_fail(e, CF_USAGE, "%s: no such directory", parent);
	free(parent);
	return rc;
}

static int check_space(struct kit *k, struct cf_err *e)
{
	char *parent = parent_of(k->out);
	struct statvfs vfs;
	struct statfs fs;
	int rc = CF_OK;
	if (statvfs(parent, &vfs) != 0 || statfs(parent, &fs) != 0) {
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", parent, strerror(errno));
		free(parent);
		return rc;
	}
	free(parent);
	uint64_t limit = k->fs_limit = kit_split_for_fs((long)fs.f_type, &k->fs_name);
	k->split = k->o->split ? k->o->split : limit;
	if (limit && k->split > limit)
		return cf_fail(e, CF_USAGE, "--split %llu is over the %s limit of %llu bytes per file",
			       (unsigned long long)k->split, k->fs_name, (unsigned long long)limit);
	rc = plan_files(k, e);
	if (rc != CF_OK)
		return rc;
	make_readme(k);
	plan_add(k, xstrdup("README.txt"), &k->readme, 0, k->readme.size, 0644);
	/* Every file rounded up to whole clusters, the directories, SHA256SUMS, some slack. */
	uint64_t cluster = vfs.f_frsize ? vfs.f_frsize : 4096, need = 1u << 20;
	/* ... and SHA256SUMS's signatures, the index (a line per file) and its signature. */
	uint64_t files = k->nfiles + 1 + 1 + k->nunpackers + 2 + k->signing.n;
	for (size_t i = 0; i < k->nfiles; i++)
		need += (k->files[i].length + cluster - 1) / cluster * cluster;
	need += (2 + k->nunpackers + 2 + k->signing.n) * cluster + 64 * 1024 + k->nfiles * 256;
	uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	/* Some FUSE drivers (fusefat) report no size at all: then a full stick shows as a write
	 * error (ENOSPC, exit 4) instead, and the partial kit is removed. */
	if (vfs.f_blocks == 0)
		log_msg(LOG_WARN, "%s does not report its size: free space not checked", k->out);
	else if (avail < need)
		return cf_fail(e, CF_INCOMPATIBLE, "not enough space for the kit on %s: %llu MiB free, "
			       "%llu MiB needed", k->out, (unsigned long long)(avail >> 20),
			       (unsigned long long)((need + (1u << 20) - 1) >> 20));
	/* FAT reports no inode counts (f_files 0): there is nothing to check then. */
	if (vfs.f_files && vfs.f_favail < files)
		return cf_fail(e, CF_INCOMPATIBLE, "not enough inodes for the kit on %s: %llu free, "
			       "%llu needed", k->out, (unsigned long long)vfs.f_favail,
			       (unsigned long long)files);
	log_msg(LOG_INFO, "%s: %s; %s; %llu MiB to write, %llu MiB free", k->out, k->fs_name,
		k->split ? "bundles split into parts" : "bundles kept whole",
		(unsigned long long)(need >> 20), (unsigned long long)(avail >> 20));
	return CF_OK;
}

/* DIR.partial-XXXXXX of runs that were killed: they hold no kit anyone could use, and their
 * space is needed. */
static void remove_stale_partials(const struct kit *k)
{
	char *parent = parent_of(k->out);
	char *prefix = xasprintf("%s.partial-", base_name(k->out));
	size_t n = strlen(prefix);
	DIR *d = opendir(parent);
	for (struct dirent *de; d && (de = readdir(d)) != NULL;) {
		if (strncmp(de->d_name, prefix, n) != 0 || strlen(de->d_name) != n + 6)
			continue;
		char *path = xasprintf("%s/%s", parent, de->d_name);
		log_msg(LOG_INFO, "removing %s left by an interrupted run", path);
		io_rmtree(path);
		free(path);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(parent);
}

static int check_renamed(const struct kit *k, struct cf_err *e)
{
	for (size_t i = 0; i < k->nfiles; i++) {
		char *path = xasprintf("%s/%s", k->out, k->files[i].name);
		struct stat st;
		int ok = lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			 (uint64_t)st.st_size == k->files[i].length;
		free(path);
		if (!ok)
			return cf_fail(e, CF_INTEGRITY, "%s: lost or changed when the kit was renamed into "
				       "place: do not use this file system", k->files[i].name);
	}
	return CF_OK;
}

/* The kit gets its name only now, whole and read back: an older kit is moved aside first. */
static int put_in_place(struct kit *k, struct cf_err *e)
{
	char *old = NULL;
	int rc = CF_OK;
	if (io_exists(k->out)) {
		if (is_empty_dir(k->out)) {
			if (rmdir(k->out) != 0)
				rc = cf_fail(e, cf_write_status(errno), "%s: %s", k->out, strerror(errno));
		} else {
			old = xasprintf("%s.old-%ld", k->out, platform_process_id());
			if (rename(k->out, old) != 0)
				rc = cf_fail(e, cf_write_status(errno), "%s: %s", k->out, strerror(errno));
		}
	}
	if (rc == CF_OK && rename(k->partial, k->out) != 0) {
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", k->out, strerror(errno));
		if (old)
			rename(old, k->out);
	}
	/* Every file must still be there, of its size, under the new name: a file system driver
	 * that loses a directory's entries when it is renamed exists (fusefat 0.1a does). */
	if (rc == CF_OK && (rc = check_renamed(k, e)) != CF_OK) {
		io_rmtree(k->out);
		if (old)
			rename(old, k->out);
	}
	if (rc == CF_OK) {
		io_fsync_parent(k->out);
		if (old)
			io_rmtree(old);
	}
	free(old);
	return rc;
}

static const struct kit_file *file_named(const struct kit *k, const char *name)
{
	for (size_t i = 0; i < k->nfiles; i++)
		if (strcmp(k->files[i].name, name) == 0)
			return &k->files[i];
	return NULL;
}

/* What the operator carries beside the key's fingerprint (a first Windows server has no
 * other check than this hash), and which keys each unpacker trusts. */
static void print_summary(const struct kit *k)
{
	char until[32], fp[65], hex[65];
	manifest_format_time(k->valid_until, until);
	/* unpacker verify counts the files the signed index lists: every one written before it. */
	const struct kit_file *index = file_named(k, KITINDEX_NAME);
	size_t listed = index ? (size_t)(index - k->files) : k->nfiles;
	log_out("kit       %s (%zu files, read back from the device: all match; the signed index "
		"lists %zu, all but itself and its signature)\n", k->out, k->nfiles, listed);
	log_out("valid     until %s (--valid-days %d)\n", until,
		k->o->valid_days ? k->o->valid_days : KIT_DEFAULT_VALID_DAYS);
	for (size_t i = 0; i < k->signing.n; i++) {
		sig_fingerprint(k->signing.keyids[i], fp);
		log_out("signed by %s\n", fp);
	}
	for (size_t i = 0; i < k->nbundles; i++) {
		char note[256];
		version_note(k, &k->bundles[i], note, sizeof(note));
		log_out("bundle    %s (%s %s, CUDA %s, %s)\n", k->bundles[i].name,
			k->bundles[i].product->display, k->bundles[i].version,
			k->bundles[i].cuda, k->bundles[i].platform);
		if (note[0])
			log_out("          %s\n", note);
	}
	for (size_t i = 0; i < k->nunpackers; i++) {
		const struct kit_unpacker *u = &k->unpackers[i];
		char *name = xasprintf("%s/unpacker%s", u->platform, exe_suffix(u->platform));
		const struct kit_file *f = file_named(k, name);
		hex_encode(f ? f->sha256 : (const uint8_t *)"", f ? 32 : 0, hex);
		log_out("unpacker  %s sha256 %s\n", name, hex);
		for (int j = 0; j < u->ntrusts; j++) {
			sig_fingerprint(u->trusts[j], fp);
			log_out("          trusts %s (compiled in)\n", fp);
		}
		if (u->ntrusts <= 0)
			log_out("          trusts no compiled-in key\n");
		free(name);
	}
	if (k->split)
		log_out("split     parts of at most %llu bytes (%s)\n", (unsigned long long)k->split,
			k->o->split ? "--split" : k->fs_name);
}

/* Each --key must have signed a bundle of the kit: the kit is signed by the keys that sign
 * its bundles, so that the target needs no other key for it. */
static int check_keys(const struct kit *k, struct cf_err *e)
{
	for (size_t i = 0; i < k->signing.n; i++) {
		int used = 0;
		for (size_t b = 0; b < k->nbundles; b++)
			for (uint32_t s = 0; s < k->bundles[b].nkeys; s++)
				used |= memcmp(k->bundles[b].keyids[s], k->signing.keyids[i], 32) == 0;
		if (!used) {
			char id[17];
			sig_short_id(k->signing.keyids[i], id);
			return cf_fail(e, CF_USAGE, "--key %s (key id %s) signed none of the kit's bundles: "
				       "sign the kit with the key(s) that signed them", k->o->keys[i], id);
		}
	}
	return CF_OK;
}

/* Loud, not fatal: the first server's bootstrap with --trust-fingerprint must keep working. */
static void warn_untrusting_unpackers(const struct kit *k)
{
	for (size_t i = 0; i < k->nunpackers; i++)
		if (!trusts_kit(k, &k->unpackers[i]))
			log_msg(LOG_WARN, "%s/unpacker%s trusts NONE of the keys that signed this kit "
				"(%s): every target needs --trust-fingerprint or the key in its trust "
				"directory; build the unpacker with make TRUSTED_KEYS=site.pub",
				k->unpackers[i].platform, exe_suffix(k->unpackers[i].platform),
				k->unpackers[i].ntrusts <= 0 ? "it has no compiled-in key"
							     : "its compiled-in keys are others");
}

int kit_make(const struct kit_options *o, struct cf_err *e)
{
	struct kit *k = xcalloc(1, sizeof(*k));
	k->o = o;
	k->created = (int64_t)time(NULL);
#ifdef CUFERRY_TEST_SEAMS
	/* Test builds only: CUFERRY_KIT_CREATED=EPOCH writes the kit as if on that date (an
	 * expired kit without waiting 90 days). */
	if (getenv("CUFERRY_KIT_CREATED"))
		k->created = strtoll(getenv("CUFERRY_KIT_CREATED"), NULL, 10);
#endif
	k->valid_until = k->created + (int64_t)(o->valid_days ? o->valid_days : KIT_DEFAULT_VALID_DAYS) * 86400;
	int rc = o->nkeys ? kitsign_load(&k->signing, o->keys, o->nkeys, e)
			  : cf_fail(e, CF_USAGE, "a kit is signed: give --key K.key (the key that signed "
				    "its bundles; repeat it for each further key)");
	if (rc == CF_OK)
		rc = choose_output(k, e);
	if (rc == CF_OK && o->create.version)
		rc = build_matrix(k, e);
	for (size_t i = 0; rc == CF_OK && i < o->nbundles; i++)
		rc = add_bundle(k, o->bundles[i], e);
	if (rc == CF_OK && k->nbundles == 0)
		rc = cf_fail(e, CF_USAGE, "no bundles: give --product-version VER (with --key) or "
				   "--bundle X.bundle");
	if (rc == CF_OK)
		rc = check_keys(k, e);
	if (rc == CF_OK)
		rc = find_unpackers(k, e);
	if (rc == CF_OK) {
		remove_stale_partials(k);
		rc = check_space(k, e);
	}
	if (rc == CF_OK)
		warn_untrusting_unpackers(k);
	if (rc == CF_OK) {
		char *parent = parent_of(k->out);
		k->partial = xasprintf("%s.partial-XXXXXX", k->out);
		if (!mkdtemp(k->partial) || (chmod(k->partial, 0755) != 0 && !no_unix_modes(errno)))
			rc = cf_fail(e, cf_write_status(errno), "%s: %s", parent, strerror(errno));
		free(parent);
	}
#ifdef CUFERRY_TEST_SEAMS
	if (rc == CF_OK)
		test_pause("checked");
#endif
	if (rc == CF_OK)
		rc = write_all(k, e);
	if (rc == CF_OK)
		rc = put_in_place(k, e);
	if (rc == CF_OK)
		print_summary(k);
	else if (k->partial)
		io_rmtree(k->partial);
	if (k->workdir)
		io_rmtree(k->workdir);
	for (size_t i = 0; i < k->nfiles; i++)
		free(k->files[i].name);
	for (size_t i = 0; i < k->nbundles; i++)
		bundle_free(&k->bundles[i]);
	for (size_t i = 0; i < 8; i++)
		source_free(&k->unpacker_src[i]);
	source_free(&k->readme);
	source_free(&k->sums);
	for (size_t i = 0; i < KITSIGN_MAX_KEYS; i++)
		source_free(&k->sums_sigs[i]);
	source_free(&k->index);
	source_free(&k->index_sig);
	kitsign_free(&k->signing);
	source_free(&k->statement);
	free(k->out);
	free(k->partial);
	free(k->workdir);
	free(k);
	return rc;
}
