/* platform_win.h - what platform_win.c adds for Windows-only callers and its tests. */
#ifndef COMMON_PLATFORM_WIN_H
#define COMMON_PLATFORM_WIN_H

/* 0 when the security descriptor (a PSECURITY_DESCRIPTOR) makes its object "admin-owned":
 * the owner is Administrators, SYSTEM or TrustedInstaller, there is a DACL, and no entry that
 * applies to the object lets anyone else write, delete or change its permissions. -1 (errno
 * EPERM) otherwise. platform_is_admin_owned reads a path's descriptor and asks this. */
int platform_win_admin_only(void *security_descriptor);
/* The same with one tolerance, for a directory ABOVE the one written to: others may hold
 * create-only rights (add a file, add a subdirectory, write extended attributes or
 * attributes), never delete, delete children, change the DACL or the owner, or write
 * generically. platform_is_admin_guarded reads a path's descriptor and asks this. */
int platform_win_admin_guarded(void *security_descriptor);
/* The descriptor (a PSECURITY_DESCRIPTOR: LocalFree it) platform_mkdir gives a directory an
 * Administrator creates with mode (no group or other write): protected (nothing inherited from
 * the parent), full control for SYSTEM and Administrators, read and execute for Users when
 * mode lets others read (0755), none for 0700; owned by Administrators when
 * owner_administrators, else by the token's default owner. NULL (errno set) on failure. */
void *platform_win_dir_descriptor(unsigned mode, int owner_administrators);

#endif
