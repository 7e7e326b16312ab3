/* product.c - the registry of products: a new product is its descriptor file and one line
 * in products[] below (declared in product_rows.h) */
#include "manifests/product.h"

#include <stdio.h>
#include <string.h>

#include "manifests/platforms.h"

#include "manifests/product_rows.h"

/* The first row is the default: a bundle that names no product is of it. */
static const struct product *const products[] = { &product_cudnn, &product_nccl,
								    &product_cusparselt };

const struct product *product_default(void)
{
	return products[0];
}

const struct product *product_find(const char *name)
{
	for (size_t i = 0; name && i < product_count(); i++)
		if (strcmp(products[i]->name, name) == 0)
			return products[i];
	return NULL;
}

size_t product_count(void)
{
	return sizeof(products) / sizeof(products[0]);
}

const struct product *product_at(size_t i)
{
	return i < product_count() ? products[i] : NULL;
}

void product_names(char *out, size_t size)
{
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < product_count() && n < size; i++)
		n += (size_t)snprintf(out + n, size - n, "%s%s", i ? " " : "", products[i]->name);
}

void product_names_prose(char *out, size_t size)
{
	size_t n = 0, count = product_count();
	out[0] = '\0';
	for (size_t i = 0; i < count && n < size; i++)
		n += (size_t)snprintf(out + n, size - n, "%s%s%s", i == 0 ? "" : i + 1 == count ? " or " : ", ",
				      products[i]->name, i == 0 ? " (the default)" : "");
}

int product_builds_for(const struct product *p, const char *platform)
{
	const struct platform_spec *s = platform ? platform_find(platform) : NULL;
	if (!s || s->os != PLATFORM_OS_WINDOWS)
		return 1;
	return p->files.import_libs[0] != NULL || p->files.dlls[0] != NULL;
}
