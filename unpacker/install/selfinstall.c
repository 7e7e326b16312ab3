/* selfinstall.c - verify the kit's unpacker for this machine, then make it the server's own */
#include "unpacker/install/selfinstall.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/sfx.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/manifest.h"
#include "manifests/platforms.h"
#include "unpacker/target/kitcheck.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/safepath.h"

#define INSTALLED_MAX_BYTES (256u << 20)

/* The installed program's name is unpacker with the suffix this platform's programs carry. */
static const char *exe_suffix(void)
{
	return platform_self()->exe_suffix;
}

/* This machine's PLATFORM/unpacker[.exe], as a kit's index names it. */
static char *container_rel(void)
{
	return xasprintf("%s/unpacker%s", platform_self()->name, exe_suffix());
}

/* The last separator of path ('/', or '\\' on Windows paths), NULL when none. */
static const char *last_separator(const char *path)
{
	const char *last = NULL;
	for (const char *p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			last = p;
	return last;
}

/* The kit that holds the container at path, if any: its directory (the container's own, or
 * the one above it, a PLATFORM/ directory's), with every link and . and .. resolved, when
 * that has a kit's index; rel is then the container's name in the index (PLATFORM/unpacker).
 * 0 when neither directory is a kit's. */
static int kit_around(const char *path, char **kit_dir, char **rel)
{
	const char *sep = last_separator(path), *name = sep ? sep + 1 : path;
	char *given = !sep ? xstrdup(".") : sep == path ? xstrdup("/")
		      : xasprintf("%.*s", (int)(sep - path), path);
	char dir[4096];
	int resolved = platform_realpath(given, dir, sizeof(dir)) == 0;
	free(given);
	if (!resolved)
		return 0; /* the container cannot be read either: its own check says why */
	if (kitcheck_present(dir)) {
		*kit_dir = xstrdup(dir);
		*rel = xstrdup(name);
		return 1;
	}
	const char *up = last_separator(dir);
	if (!up || !up[1])
		return 0; /* the root has no directory above it */
	char *parent = up == dir ? xstrdup("/") : xasprintf("%.*s", (int)(up - dir), dir);
	if (!kitcheck_present(parent)) {
		free(parent);
		return 0;
	}
	*kit_dir = parent;
	*rel = xasprintf("%s/%s", up + 1, name); /* the index names files with '/' */
	return 1;
}

/* The container rel of the kit at kit_path, as its index lists it: the index signed by keys
 * trusted here and valid (as install KIT and verify KIT judge it), the container of that
 * size and SHA-256 (3), then its own signatures on the same bytes in memory (2). */
static int read_listed(const char *kit_path, const char *rel, const struct selfinstall_options *o,
		       const struct trust *t, uint8_t **data, size_t *len, uint64_t *stub_len,
		       char *signers, size_t size, struct cf_err *e)
{
	char *dir = NULL, safe[256];
	struct kitcheck kit;
	int rc = kitcheck_verify_kit(kit_path, o->trust, o->allow_expired, 0, &dir, &kit, e);
	if (rc == CF_OK && !kit.signed_kit)
		rc = cf_fail(e, CF_TRUST, "%s has no signed index (%s, %s): self-install takes a kit "
			     "that 'bundler kit' wrote, or one signed unpacker of it", log_safe(kit_path,
			     safe, sizeof(safe)), KITINDEX_NAME, KITINDEX_SIG_NAME);
	if (rc == CF_OK)
		rc = kitcheck_listed_container(dir, &kit, rel, t, data, len, stub_len, signers, size, e);
	kitcheck_close(&kit);
	free(dir);
	return rc;
}

/* The container's bytes, verified: a kit (a directory) gives this machine's unpacker as its
 * index lists it (read_listed). A container file inside a kit (KIT/PLATFORM/unpacker) is
 * judged as its kit lists it too: its own signature alone would let an older container its
 * key once signed, copied into a newer kit, pass for the kit's. A lone container (a private
 * copy, with no kit index beside it) has only its own signatures (2). */
static int read_verified(const char *path, const struct selfinstall_options *o,
			 const struct trust *t, uint8_t **data, size_t *len, uint64_t *stub_len,
			 char *signers, size_t size, struct cf_err *e)
{
	struct platform_stat st;
	char *kit_dir = NULL, *rel = NULL;
	int rc;
	if (platform_stat(path, &st) == 0 && st.type == PLATFORM_TYPE_DIR) {
		rel = container_rel();
		rc = read_listed(path, rel, o, t, data, len, stub_len, signers, size, e);
	} else if (kit_around(path, &kit_dir, &rel)) {
		char safe[256];
		log_msg(LOG_INFO, "%s lies in a kit: checked against its signed index (%s)",
			log_safe(path, safe, sizeof(safe)), rel);
		rc = read_listed(kit_dir, rel, o, t, data, len, stub_len, signers, size, e);
	} else {
		rc = kitcheck_container(path, t, data, len, stub_len, signers, size, e);
	}
	free(kit_dir);
	free(rel);
	return rc;
}

/* The version of the program installed at path: 1 and version, 0 none there, -1 a file
 * without one (not a cuferry unpacker, or one from before versions were marked). */
static int installed_version(const char *path, char *version, size_t size, uint8_t **bytes,
			     size_t *len)
{
	char *data;
	*bytes = NULL;
	if (io_read_file_nofollow(path, INSTALLED_MAX_BYTES, &data, len) != 0)
		return errno == ENOENT ? 0 : -1;
	*bytes = (uint8_t *)data;
	return sfx_program_version(*bytes, *len, version, size) == 0 ? 1 : -1;
}

static int write_program(const char *dir_full, const char *target, const uint8_t *data,
			 size_t len, struct cf_err *e)
{
	char *tmp = xasprintf("%s%c.unpacker%s.new-XXXXXX", dir_full, platform_dir_separator(), exe_suffix());
	int fd = platform_temp_file(tmp);
	int ok = fd >= 0;
	for (size_t done = 0; ok && done < len;) {
		ssize_t n = platform_write(fd, data + done, len - done);
		ok = n > 0;
		done += ok ? (size_t)n : 0;
	}
	ok = ok && platform_set_mode(fd, 0755) == 0 && platform_fsync(fd) == 0;
	int err = errno;
	if (fd >= 0)
		platform_close(fd);
	ok = ok && platform_rename(tmp, target) == 0;
	if (!ok) {
		err = errno ? errno : err;
		if (fd >= 0)
			platform_unlink(tmp);
	}
	free(tmp);
	if (!ok)
		return cf_fail(e, CF_INSTALL, "%s: %s", target, platform_strerror(err));
	int dfd = platform_open(dir_full, PLATFORM_OPEN_READ | PLATFORM_OPEN_DIRECTORY, 0);
	if (dfd >= 0) {
		platform_fsync(dfd);
		platform_close(dfd);
	}
	return CF_OK;
}

/* Whether the new version may replace what is there: CF_OK, or CF_POLICY. *same when the
 * very same program is installed already. */
static int judge(const char *target, const char *version, const uint8_t *stub, size_t stub_len,
		 int allow_downgrade, int *same, struct cf_err *e)
{
	char old[32];
	uint8_t *bytes;
	size_t len;
	int have = installed_version(target, old, sizeof(old), &bytes, &len);
	*same = have > 0 && len == stub_len && memcmp(bytes, stub, len) == 0;
	free(bytes);
	if (have == 0 || *same)
		return CF_OK;
	if (have < 0 && !allow_downgrade)
		return cf_fail(e, CF_POLICY, "%s is there and carries no cuferry unpacker version: not "
			       "replaced (--allow-downgrade replaces it)", target);
	if (have > 0 && manifest_version_compare(version, old) < 0) {
		if (!allow_downgrade)
			return cf_fail(e, CF_POLICY, "the kit's unpacker %s is older than the installed %s "
				       "(%s): not replaced (--allow-downgrade to install it anyway)",
				       version, old, target);
		log_msg(LOG_WARN, "replacing the newer unpacker %s with %s (--allow-downgrade)", old, version);
	}
	if (have > 0)
		log_msg(LOG_INFO, "replacing the installed unpacker %s", old);
	return CF_OK;
}

int selfinstall_run(const char *path, const struct selfinstall_options *o, struct cf_err *e)
{
	struct trust *t = xmalloc(sizeof(*t));
	uint8_t *data = NULL;
	size_t len = 0;
	uint64_t stub_len = 0;
	char signers[256], version[32] = "", safe[256];
	int rc = trust_load(t, o->trust, e);
	if (rc == CF_OK)
		rc = read_verified(path, o, t, &data, &len, &stub_len, signers, sizeof(signers), e);
	const char *machine = rc == CF_OK ? platform_describe_program(data, (size_t)stub_len) : "";
	log_safe(path, safe, sizeof(safe));
	if (rc == CF_OK && !platform_same_program(platform_find(machine), platform_self()))
		rc = cf_fail(e, CF_INCOMPATIBLE, "%s is an unpacker for %s, this machine is %s", safe,
			     machine, platform_self()->name);
	if (rc == CF_OK && sfx_program_version(data, (size_t)stub_len, version, sizeof(version)) != 0)
		rc = cf_fail(e, CF_INCOMPATIBLE, "%s carries no cuferry unpacker version", safe);
	char *dir = layout_self_install_dir();
	char *dir_full = xasprintf("%s%s", o->root, dir);
	char *target = xasprintf("%s%cunpacker%s", dir_full, platform_dir_separator(), exe_suffix());
	/* The directory passes the prefix's rules before and after it is made. */
	if (rc == CF_OK)
		rc = safepath_check_dir(o->root, dir, "the unpacker's directory", e);
	if (rc == CF_OK && io_mkdirs(dir_full, 0755) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", dir_full, platform_strerror(errno));
	if (rc == CF_OK)
		rc = safepath_check_dir(o->root, dir, "the unpacker's directory", e);
	int same = 0;
	if (rc == CF_OK)
		rc = judge(target, version, data, (size_t)stub_len, o->allow_downgrade, &same, e);
	if (rc == CF_OK && same)
		log_out("the unpacker %s (signed by %s) is already installed as %s: nothing to do\n",
			version, signers, target);
	else if (rc == CF_OK && (rc = write_program(dir_full, target, data, (size_t)stub_len, e)) == CF_OK)
		log_out("installed the unpacker %s (signed by %s) as %s\n", version, signers, target);
	free(data);
	free(t);
	free(dir);
	free(dir_full);
	free(target);
	return rc;
}
