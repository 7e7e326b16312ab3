/* kitcheck.h - a kit as the installed unpacker sees it (DESIGN.md §10): its signed index
 * (cuferry-kit.json, cuferry-kit.sig: manifests/kitindex.h) verified with the keys trusted
 * here, its validity, every file against the index, and the signed unpacker containers on
 * it. Nothing is followed out of the kit: a link anywhere in it is refused, never opened. */
#ifndef UNPACKER_KITCHECK_H
#define UNPACKER_KITCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "manifests/kitindex.h"
#include "unpacker/target/trust.h"

struct kitcheck {
	int signed_kit;       /* 0: no cuferry-kit.json (a directory of bundles, or an old kit) */
	struct kitindex index;
	char signers[256];    /* who signed the index (short ids) */
};

/* 1 when dir holds a kit index (or its signature). */
int kitcheck_present(const char *dir);
/* Verify cuferry-kit.sig over cuferry-kit.json with T of the trusted keys (CF_TRUST), then
 * parse the index (CF_INTEGRITY). No index at all is CF_OK with signed_kit 0. */
int kitcheck_open(const char *dir, const struct trust *t, struct kitcheck *k, struct cf_err *e);
void kitcheck_close(struct kitcheck *k);
/* CF_POLICY (exit 7) when the kit's valid_until has passed, unless allow_expired (then a
 * warning); also when it was written more than a day ahead of this clock. */
int kitcheck_fresh(const struct kitcheck *k, int allow_expired, struct cf_err *e);
/* Every file of the index there, a regular file of its size and SHA-256 (CF_INTEGRITY);
 * nothing else in the kit, no link (CF_INTEGRITY); each unpacker container (PLATFORM/unpacker
 * and PLATFORM/unpacker.exe) signed by T trusted keys (CF_TRUST). Prints one line per
 * unpacker. */
int kitcheck_files(const char *dir, const struct kitcheck *k, const struct trust *t,
		   struct cf_err *e);
/* The signed unpacker container at path, read once into memory: its signatures by T trusted
 * keys (CF_TRUST). On CF_OK, *stub_len is the length of the program inside (the bytes before
 * the block) and, when data is not NULL, *data (caller frees) and *len the bytes checked. */
int kitcheck_container(const char *path, const struct trust *t, uint8_t **data, size_t *len,
		       uint64_t *stub_len, char *signers, size_t size, struct cf_err *e);
/* The kit's file rel as its signed index k lists it, read once into *bytes (caller frees; at
 * most 256 MiB) and hashed in memory: not listed (or no signed index), a link, not a regular
 * file, another size or SHA-256 is CF_INTEGRITY with the name. What the caller then parses
 * and uses are the bytes hashed. */
int kitcheck_listed_bytes(const char *dir, const struct kitcheck *k, const char *rel,
			  uint8_t **bytes, size_t *n, struct cf_err *e);
/* The kit's container rel (PLATFORM/unpacker[.exe]) as kitcheck_listed_bytes reads it, then
 * judged as kitcheck_container judges it (CF_TRUST). */
int kitcheck_listed_container(const char *dir, const struct kitcheck *k, const char *rel,
			      const struct trust *t, uint8_t **data, size_t *len, uint64_t *stub_len,
			      char *signers, size_t size, struct cf_err *e);
/* The file f of the index, opened as fd: a regular file of f's size and SHA-256, hashed
 * through fd (CF_INTEGRITY with the name otherwise). */
int kitcheck_matches(const struct kitindex_file *f, int fd, struct cf_err *e);
/* The kit's own directory under path: path itself, or path/cuferry-kit on a stick's root. A
 * cuferry-kit that is a link is CF_TRUST (a kit never holds one). out gets a new string. */
int kitcheck_dir(const char *path, char **out, struct cf_err *e);

/* The kit at path as install DIR and verify KIT take it: its directory (kitcheck_dir, in
 * *dir), its index verified with the keys of src and its validity (CF_POLICY when expired,
 * unless allow_expired); whole also checks every file and unpacker (kitcheck_files). A
 * directory with a kit's marks (cuferry-kit/, SHA256SUMS.sig, an unpacker container, ...)
 * but no index is CF_TRUST for both; any other directory without an index passes for install
 * (a directory of bundles, verified one by one) and is CF_USAGE for verify (whole). On CF_OK,
 * kit (when not NULL) holds the verified index (signed_kit 0: none), for the caller to
 * kitcheck_close. */
int kitcheck_verify_kit(const char *path, const struct trust_sources *src, int allow_expired,
			int whole, char **dir, struct kitcheck *kit, struct cf_err *e);

/* 1 when path ends in a container's trailer (a program with a signature block, no bundle). */
int kitcheck_is_container(const char *path);
/* verify CONTAINER: kitcheck_container with the keys of src, and one line saying so. */
int kitcheck_verify_container(const char *path, const struct trust_sources *src, struct cf_err *e);

#endif
