/* unprivileged.c - dropping root in the probe child, and checking what it can still read */
#include "unpacker/validate/unprivileged.h"

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

/* CapPrm and CapEff of /proc/self/status: both must be zero once root is gone. */
static int capabilities_left(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int left = 0;
	if (!f)
		return 0; /* no /proc: the setuid(0) test below still proves the drop */
	while (fgets(line, sizeof(line), f))
		if ((!strncmp(line, "CapPrm:", 7) || !strncmp(line, "CapEff:", 7)) &&
		    strtoull(line + 7, NULL, 16) != 0)
			left = 1;
	fclose(f);
	return left;
}

int unprivileged_enter(char *why, size_t size)
{
	/* Nothing this process runs later may gain privileges through set-id files. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return snprintf(why, size, "no_new_privs: %s", strerror(errno)), -1;
	if (getuid() != 0 && geteuid() != 0)
		return 0;
	uid_t uid = NOBODY_ID;
	gid_t gid = NOBODY_ID;
	const struct passwd *pw = getpwnam("nobody");
	if (pw && pw->pw_uid != 0 && pw->pw_gid != 0)
		uid = pw->pw_uid, gid = pw->pw_gid;
	/* The driver's control device: keep its group only if others may not open it. */
	struct stat st;
	gid_t groups[1];
	size_t ngroups = 0;
	if (stat("/dev/nvidiactl", &st) == 0 && (st.st_mode & 0006) != 0006 && st.st_gid != 0 &&
	    (st.st_mode & 0060) == 0060)
		groups[ngroups++] = st.st_gid;
	if (setgroups(ngroups, groups) != 0 || setgid(gid) != 0 || setuid(uid) != 0)
		return snprintf(why, size, "cannot drop root to uid %u: %s", (unsigned)uid,
				strerror(errno)), -1;
	if (setuid(0) == 0 || seteuid(0) == 0 || getuid() == 0 || geteuid() == 0 || getegid() == 0 ||
	    capabilities_left())
		return snprintf(why, size, "root could be regained after dropping to uid %u",
				(unsigned)uid), -1;
	return 0;
}

int unprivileged_can_read(const char *path, char *blocker, size_t size)
{
	if (access(path, R_OK) == 0)
		return 0;
	char *copy = strdup(path);
	snprintf(blocker, size, "%s", path);
	for (char *p = copy ? strchr(copy + 1, '/') : NULL; p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (access(copy, X_OK) != 0) {
			snprintf(blocker, size, "%s", copy);
			break;
		}
		*p = '/';
	}
	free(copy);
	return -1;
}
