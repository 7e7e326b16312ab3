/* selfinstall.h - unpacker self-install KIT|CONTAINER: the kit's unpacker for this machine,
 * verified with the keys trusted here, installed root-owned as the server's own
 * (/usr/local/sbin/unpacker, under --root for images; Windows %ProgramFiles%\cuferry\
 * unpacker.exe), so that every later stick is opened by a verified program */
#ifndef UNPACKER_SELFINSTALL_H
#define UNPACKER_SELFINSTALL_H

#include "common/err.h"
#include "unpacker/target/trust.h"

struct selfinstall_options {
	const char *root;               /* "" or --root */
	const struct trust_sources *trust;
	int allow_downgrade;            /* an older unpacker may replace a newer one */
	int allow_expired;              /* a kit past its valid_until is used (a warning) */
};

/* path is a kit (its PLATFORM/unpacker[.exe] for this machine is taken) or a container. A
 * kit's signed index is verified first, as verify KIT does (missing, unsigned or untrusted:
 * CF_TRUST; expired: CF_POLICY unless allow_expired), and must list the container with the
 * size and SHA-256 of the bytes read (CF_INTEGRITY). The
 * container is read once into memory and its signatures checked there (CF_TRUST); a program
 * for another machine is CF_INCOMPATIBLE; an older version than the installed one, or an
 * installed program without a version, is CF_POLICY unless allow_downgrade. The new file is
 * written beside the old one, made 0755, flushed and renamed over it. */
int selfinstall_run(const char *path, const struct selfinstall_options *o, struct cf_err *e);

#endif
