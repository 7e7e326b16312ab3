/* product.c - the registry of products: a new product is its descriptor file and one line
 * in products[] below (declared in product_rows.h) */
#include "manifests/product.h"

#include <string.h>

#include "manifests/product_rows.h"

/* The first row is the default: a bundle that names no product is of it. */
static const struct product *const products[] = { &product_cudnn, &product_nccl };

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
