/* loadfakes.c - proves the fake NVIDIA DLLs are usable Windows libraries: loadfakes.exe DLL
 * SYMBOL WANT loads DLL by its full path the way the unpacker will (only the DLL's own
 * directory and System32 are searched for what it imports), calls SYMBOL - cuDriverGetVersion
 * (int *) or cudnnGetVersion (void) - and exits 0 when it returned WANT, 2 when the DLL did
 * not load, 3 when the symbol is missing, 1 on another number. With a fifth argument "hold"
 * it keeps the DLL loaded until its standard input ends (a program using cuDNN while an
 * uninstall runs), after printing "holding DLL". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

int main(int argc, char **argv)
{
	int hold = argc == 5 && strcmp(argv[4], "hold") == 0;
	if (argc != 4 && !hold) {
		fprintf(stderr, "usage: loadfakes.exe DLL SYMBOL WANT [hold]\n");
		return 64;
	}
	wchar_t path[MAX_PATH];
	if (!MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, argv[1], -1, path, MAX_PATH))
		return 64;
	HMODULE lib = LoadLibraryExW(path, NULL, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
					 LOAD_LIBRARY_SEARCH_SYSTEM32);
	if (!lib) {
		printf("%s: not loaded (error %lu)\n", argv[1], (unsigned long)GetLastError());
		return 2;
	}
	FARPROC f = GetProcAddress(lib, argv[2]);
	if (!f) {
		printf("%s: no %s\n", argv[1], argv[2]);
		return 3;
	}
	long got;
	if (strcmp(argv[2], "cuDriverGetVersion") == 0) {
		int v = 0;
		((int(__stdcall *)(int *))(void (*)(void))f)(&v);
		got = v;
	} else {
		got = (long)((size_t(__stdcall *)(void))(void (*)(void))f)();
	}
	printf("%s: %s() = %ld\n", argv[1], argv[2], got);
	if (hold) {
		printf("holding %s\n", argv[1]);
		fflush(stdout);
		while (getchar() != EOF)
			;
	}
	return got == strtol(argv[3], NULL, 10) ? 0 : 1;
}
