/* platform_win_privilege.c - giving up rights for good before vendor code runs (Windows).
 *
 * A process cannot swap its own primary token for a restricted one, but it can shrink the
 * one it has, irreversibly: every privilege is removed (SE_PRIVILEGE_REMOVED: not merely
 * disabled, so it cannot be enabled again) but bypass-traverse checking, and the token's
 * integrity level is lowered to Low, which no process can raise again: from then on nothing
 * at Medium or above (Program Files, the registry's machine keys, the user's profile) can be
 * written, whoever the user is. Both are checked afterwards by reading the token back (the
 * integrity level not under Wine, which has none to keep). */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

static int say(char *why, size_t size, const char *what)
{
	snprintf(why, size, "%s (Windows error %lu)", what, (unsigned long)GetLastError());
	return -1;
}

static int remove_privileges(HANDLE token, char *why, size_t size)
{
	DWORD n = 0;
	GetTokenInformation(token, TokenPrivileges, NULL, 0, &n);
	TOKEN_PRIVILEGES *privs = n ? malloc(n) : NULL;
	if (!privs || !GetTokenInformation(token, TokenPrivileges, privs, n, &n)) {
		free(privs);
		return say(why, size, "cannot read this process's privileges");
	}
	LUID traverse;
	LookupPrivilegeValueW(NULL, L"SeChangeNotifyPrivilege", &traverse);
	DWORD kept = 0;
	for (DWORD i = 0; i < privs->PrivilegeCount; i++) {
		LUID id = privs->Privileges[i].Luid;
		if (id.LowPart == traverse.LowPart && id.HighPart == traverse.HighPart)
			continue; /* every process has it; without it, paths stop resolving */
		privs->Privileges[kept].Luid = id;
		privs->Privileges[kept++].Attributes = SE_PRIVILEGE_REMOVED;
	}
	privs->PrivilegeCount = kept;
	BOOL ok = kept == 0 || AdjustTokenPrivileges(token, FALSE, privs, 0, NULL, NULL);
	DWORD e = GetLastError();
	free(privs);
	if (!ok || (kept && e == ERROR_NOT_ALL_ASSIGNED)) {
		SetLastError(e);
		return say(why, size, "cannot remove this process's privileges");
	}
	return 0;
}

/* The token's integrity level (its mandatory label's RID), or 0xFFFFFFFF. */
static DWORD integrity_of(HANDLE token)
{
	BYTE buf[128];
	DWORD n;
	if (!GetTokenInformation(token, TokenIntegrityLevel, buf, sizeof(buf), &n))
		return 0xFFFFFFFFu;
	PSID sid = ((TOKEN_MANDATORY_LABEL *)buf)->Label.Sid;
	return *GetSidSubAuthority(sid, *GetSidSubAuthorityCount(sid) - 1u);
}

/* Wine accepts a new integrity level and keeps the old one: it has no mandatory integrity
 * control at all, so there is nothing to lower. Windows always keeps it. */
static int integrity_unkept(void)
{
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");
	return nt && GetProcAddress(nt, "wine_get_version") != NULL;
}

int platform_drop_privileges(char *why, size_t size)
{
	HANDLE token;
	if (!OpenProcessToken(GetCurrentProcess(),
			      TOKEN_QUERY | TOKEN_ADJUST_PRIVILEGES | TOKEN_ADJUST_DEFAULT, &token))
		return say(why, size, "cannot open this process's token");
	int rc = remove_privileges(token, why, size);
	BYTE low[SECURITY_MAX_SID_SIZE];
	DWORD low_size = sizeof(low);
	TOKEN_MANDATORY_LABEL label = { { low, SE_GROUP_INTEGRITY } };
	if (rc == 0 && (!CreateWellKnownSid(WinLowLabelSid, NULL, low, &low_size) ||
			!SetTokenInformation(token, TokenIntegrityLevel, &label,
					     sizeof(label) + GetLengthSid(low))))
		rc = say(why, size, "cannot lower this process's integrity level");
	if (rc == 0 && integrity_of(token) > SECURITY_MANDATORY_LOW_RID && !integrity_unkept()) {
		SetLastError(ERROR_NOT_SUPPORTED);
		rc = say(why, size, "this process's integrity level is still above Low");
	}
	CloseHandle(token);
	return rc;
}

/* How the token holds the Administrators group: "deny-only" (it can deny access, never grant
 * it: the probe child's token is made so before it starts), "enabled", or "absent". */
static const char *administrators_in(HANDLE token)
{
	BYTE admins[SECURITY_MAX_SID_SIZE];
	DWORD size = sizeof(admins), n = 0;
	if (!CreateWellKnownSid(WinBuiltinAdministratorsSid, NULL, admins, &size))
		return "unknown";
	GetTokenInformation(token, TokenGroups, NULL, 0, &n);
	TOKEN_GROUPS *groups = n ? malloc(n) : NULL;
	const char *how = "unknown";
	if (groups && GetTokenInformation(token, TokenGroups, groups, n, &n)) {
		how = "absent";
		for (DWORD i = 0; i < groups->GroupCount; i++) {
			if (!EqualSid(groups->Groups[i].Sid, admins))
				continue;
			DWORD a = groups->Groups[i].Attributes;
			how = a & SE_GROUP_USE_FOR_DENY_ONLY ? "deny-only"
			      : a & SE_GROUP_ENABLED ? "enabled" : "disabled";
		}
	}
	free(groups);
	return how;
}

/* What the token still holds, read back from it: the privileges not removed, by name, the
 * Administrators group and the integrity level. */
int platform_privilege_report(char *out, size_t size)
{
	HANDLE token;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return -1;
	DWORD n = 0;
	GetTokenInformation(token, TokenPrivileges, NULL, 0, &n);
	TOKEN_PRIVILEGES *privs = n ? malloc(n) : NULL;
	if (!privs || !GetTokenInformation(token, TokenPrivileges, privs, n, &n)) {
		free(privs);
		CloseHandle(token);
		return -1;
	}
	char names[512] = "";
	DWORD kept = 0;
	for (DWORD i = 0; i < privs->PrivilegeCount; i++) {
		if (privs->Privileges[i].Attributes & SE_PRIVILEGE_REMOVED)
			continue;
		wchar_t w[64];
		char name[64];
		DWORD len = 64;
		if (!LookupPrivilegeNameW(NULL, &privs->Privileges[i].Luid, w, &len) ||
		    win_narrow(w, name, sizeof(name)) != 0)
			snprintf(name, sizeof(name), "?");
		size_t used = strlen(names);
		snprintf(names + used, sizeof(names) - used, "%s%s", kept++ ? ", " : "", name);
	}
	free(privs);
	DWORD level = integrity_of(token);
	const char *admins = administrators_in(token);
	CloseHandle(token);
	const char *word = level == 0xFFFFFFFFu ? "unknown"
			   : level <= SECURITY_MANDATORY_LOW_RID ? "Low"
			   : level < SECURITY_MANDATORY_HIGH_RID ? "Medium" : "High or System";
	snprintf(out, size, "%lu privilege%s left (%s), Administrators %s, integrity %s%s",
		 (unsigned long)kept, kept == 1 ? "" : "s", kept ? names : "none", admins, word,
		 integrity_unkept() ? " (Wine keeps no integrity levels)" : "");
	return 0;
}
