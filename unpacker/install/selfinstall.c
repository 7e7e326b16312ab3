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
#include "unpacker/target/kitcheck.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/safepath.h"

#define INSTALLED_MAX_BYTES (256u << 20)

static int windows(void)
{
	return platform_dir_separator() == '\\';
}

static const char *program_name(void)
{
	return windows() ? "unpacker.exe" : "unpacker";
}

/* The machine a program's first bytes are built for, in the kit's platform names. */
static const char *machine_of(const uint8_t *h, size_t len)
{
	if (len >= 2 && h[0] == 'M' && h[1] == 'Z')
		return "windows-x86_64";
	if (len >= 20 && memcmp(h, "\177ELF", 4) == 0) {
		unsigned machine = h[18] | h[19] << 8;
		return machine == 62 ? "linux-x86_64" : machine == 183 ? "linux-sbsa" : "another machine";
	}
	return "not a program";
}

static int same_machine(const char *a, const char *b)
{
	int arm_a = !strcmp(a, "linux-sbsa") || !strcmp(a, "linux-aarch64");
	int arm_b = !strcmp(b, "linux-sbsa") || !strcmp(b, "linux-aarch64");
	return strcmp(a, b) == 0 || (arm_a && arm_b);
}

/* A kit gives its PLATFORM/unpacker for this machine; any other path is the container. */
static char *container_path(const char *path, struct cf_err *e)
{
	struct platform_stat st;
	if (platform_stat(path, &st) != 0 || st.type != PLATFORM_TYPE_DIR)
		return xstrdup(path);
	char *dir = NULL;
	if (kitcheck_dir(path, &dir, e) != CF_OK)
		return NULL;
	const char sep = platform_dir_separator();
	size_t n = strlen(dir);
	char *p = xasprintf("%s%s%s%c%s", dir, n && platform_is_separator(dir[n - 1]) ? "" : (sep == '\\' ? "\\" : "/"),
			    platform_name(), sep, program_name());
	free(dir);
	return p;
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
	char *tmp = xasprintf("%s%c.%s.new-XXXXXX", dir_full, platform_dir_separator(), program_name());
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
		return cf_fail(e, CF_INSTALL, "%s: %s", target, strerror(err));
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
	char *container = container_path(path, e);
	if (!container)
		return e->code;
	struct trust *t = xmalloc(sizeof(*t));
	uint8_t *data = NULL;
	size_t len = 0;
	uint64_t stub_len = 0;
	char signers[256], version[32] = "", safe[256];
	int rc = trust_load(t, o->trust, e);
	if (rc == CF_OK)
		rc = kitcheck_container(container, t, &data, &len, &stub_len, signers, sizeof(signers), e);
	const char *machine = rc == CF_OK ? machine_of(data, (size_t)stub_len) : "";
	log_safe(container, safe, sizeof(safe));
	if (rc == CF_OK && !same_machine(machine, platform_name()))
		rc = cf_fail(e, CF_INCOMPATIBLE, "%s is an unpacker for %s, this machine is %s", safe,
			     machine, platform_name());
	if (rc == CF_OK && sfx_program_version(data, (size_t)stub_len, version, sizeof(version)) != 0)
		rc = cf_fail(e, CF_INCOMPATIBLE, "%s carries no cuferry unpacker version", safe);
	char *dir = layout_self_install_dir();
	char *dir_full = xasprintf("%s%s", o->root, dir);
	char *target = xasprintf("%s%c%s", dir_full, platform_dir_separator(), program_name());
	/* The directory passes the prefix's rules before and after it is made. */
	if (rc == CF_OK)
		rc = safepath_check_dir(o->root, dir, "the unpacker's directory", e);
	if (rc == CF_OK && io_mkdirs(dir_full, 0755) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", dir_full, strerror(errno));
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
	free(container);
	free(dir);
	free(dir_full);
	free(target);
	return rc;
}
