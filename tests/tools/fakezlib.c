/* fakezlib.c - a stand-in zlibwapi.dll (zlib built with ZLIB_WINAPI, as NVIDIA's zlib page
 * offers it for cuDNN 8 on Windows): just the one entry point the fake cuDNN 8 imports. */
__declspec(dllexport) const char *__stdcall zlibVersion(void);
const char *__stdcall zlibVersion(void) { return "1.2.3 (fake)"; }
