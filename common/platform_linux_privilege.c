/* platform_linux_privilege.c - giving up root for good before vendor code runs
 * (Linux: prctl, /proc/self/status) */
#include "common/platform.h"
#include "common/platform_posix.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY_ID 65534

/* Whether CapPrm or CapEff of /proc/self/status is non-zero: both must be zero once root is
 * gone. No /proc: the setuid(0) test still proves the drop. */
static int any_capability(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int any = 0;
	while (f && fgets(line, sizeof(line), f))
		any |= (!strncmp(line, "CapPrm:", 7) || !strncmp(line, "CapEff:", 7)) &&
		       strtoull(line + 7, NULL, 16) != 0;
	if (f)
		fclose(f);
	return any;
}

/* The group of the driver's control device, when only its group (not others) may open it. */
static size_t device_group(gid_t *group)
{
	struct stat dev;
	int only_group = stat("/dev/nvidiactl", &dev) == 0 && (dev.st_mode & 0006) != 0006 &&
			 dev.st_gid != 0 && (dev.st_mode & 0060) == 0060;
	*group = dev.st_gid;
	return only_group ? 1 : 0;
}

void platform_posix_drop_target(struct platform_posix_drop *d)
{
	d->user = NOBODY_ID;
	d->group = NOBODY_ID;
	const struct passwd *nobody = getpwnam("nobody");
	if (nobody && nobody->pw_uid != 0 && nobody->pw_gid != 0) {
		d->user = nobody->pw_uid;
		d->group = nobody->pw_gid;
	}
	d->nkeep = device_group(&d->keep[0]);
}

/* Only system calls (no allocation, no lock): the probe's child calls it between fork and
 * exec, where the parent's other threads may have held any lock. */
int platform_posix_drop_to(const struct platform_posix_drop *d)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	if (getuid() != 0 && geteuid() != 0)
		return 0;
	if (setgroups(d->nkeep, d->keep) != 0 || setgid(d->group) != 0 || setuid(d->user) != 0)
		return -1;
	int regained = setuid(0) == 0 || seteuid(0) == 0 || getuid() == 0 || geteuid() == 0 ||
		       getegid() == 0;
	return regained ? -1 : 0;
}

int platform_drop_privileges(char *why, size_t size)
{
	/* Nothing this process runs later may gain privileges through set-id files. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return snprintf(why, size, "no_new_privs: %s", strerror(errno)), -1;
	/* Another process of the same unprivileged user may not attach to this one (and forge
	 * what it reports): the kernel keeps set-id processes so, not one started unprivileged. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (getuid() != 0 && geteuid() != 0)
		return 0;
	struct platform_posix_drop d;
	platform_posix_drop_target(&d);
	if (platform_posix_drop_to(&d) != 0 || any_capability())
		return snprintf(why, size, "cannot drop root to uid %u for good: %s", (unsigned)d.user,
				strerror(errno)), -1;
	return 0;
}

int platform_privilege_report(char *out, size_t size)
{
	(void)out;
	(void)size;
	return -1; /* the report's probe_uid says it: nobody, when the parent was root */
}
