/* fuzz_pefile.c - the PE reader (imports, delay-load imports, version resource) on any bytes:
 * no crash, and what it accepts keeps its promises (bounded, printable, terminated names). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unpacker/validate/pefile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pe_info info;
	char why[256];
	if (pe_parse_memory(data, size, &info, why, sizeof(why)) != 0) {
		if (!memchr(why, '\0', sizeof(why)) || strchr(why, '\n'))
			abort();
		return 0;
	}
	if (info.import_count > PE_MAX_IMPORTS)
		abort();
	for (size_t i = 0; i < info.import_count; i++) {
		size_t n = strnlen(info.imports[i].name, sizeof(info.imports[i].name));
		if (n == 0 || n > PE_MAX_NAME)
			abort();
		for (size_t j = 0; j < n; j++)
			if ((unsigned char)info.imports[i].name[j] < 0x20 ||
			    (unsigned char)info.imports[i].name[j] > 0x7e)
				abort();
	}
	pe_info_free(&info);
	return 0;
}
