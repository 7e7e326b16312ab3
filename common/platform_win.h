/* platform_win.h - what platform_win.c adds for Windows-only callers and its tests. */
#ifndef COMMON_PLATFORM_WIN_H
#define COMMON_PLATFORM_WIN_H

/* 0 when the security descriptor (a PSECURITY_DESCRIPTOR) makes its object "admin-owned":
 * the owner is Administrators, SYSTEM or TrustedInstaller, there is a DACL, and no entry that
 * applies to the object lets anyone else write, delete or change its permissions. -1 (errno
 * EPERM) otherwise. platform_is_admin_owned reads a path's descriptor and asks this. */
int platform_win_admin_only(void *security_descriptor);

#endif
