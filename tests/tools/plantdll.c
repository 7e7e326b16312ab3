/* plantdll.c - a DLL planted under a Windows DLL's name (tests/e2e/test_windows_dllplant.sh):
 * when any process maps it, its entry point creates the file PLANT_MARKER (an NT path,
 * "\??\Z:\...", given with -D at build time), so that a test sees it was loaded. It imports
 * from ntdll.dll alone, which every process has mapped before anything else, so it can stand
 * in for kernel32.dll or msvcrt.dll too; the test gives it, through a .def file, every name
 * the program imports from the DLL it replaces, so that an import bound to it resolves and
 * its entry point runs. Built with -nostdlib -e plant_entry. */
#include <windows.h>
#include <winternl.h>

#define WIDE_(x) L##x
#define WIDE(x) WIDE_(x)
static const wchar_t marker[] = WIDE(PLANT_MARKER);

BOOL WINAPI plant_entry(HINSTANCE self, DWORD reason, void *reserved);
void plant_stub(void);

BOOL WINAPI plant_entry(HINSTANCE self, DWORD reason, void *reserved)
{
	(void)self;
	(void)reserved;
	if (reason == DLL_PROCESS_ATTACH) {
		UNICODE_STRING name = { sizeof(marker) - sizeof(wchar_t), sizeof(marker), (PWSTR)marker };
		OBJECT_ATTRIBUTES attributes;
		IO_STATUS_BLOCK io;
		HANDLE file;
		InitializeObjectAttributes(&attributes, &name, OBJ_CASE_INSENSITIVE, NULL, NULL);
		if (NtCreateFile(&file, GENERIC_WRITE | SYNCHRONIZE, &attributes, &io, NULL,
				 FILE_ATTRIBUTE_NORMAL, 0, FILE_OVERWRITE_IF,
				 FILE_SYNCHRONOUS_IO_NONALERT, NULL, 0) == 0)
			NtClose(file);
	}
	return TRUE;
}

/* What every exported name stands for: never meant to be called. */
void plant_stub(void)
{
}
