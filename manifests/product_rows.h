/* product_rows.h - the descriptors product.c registers, one product_<name>.c each; only
 * product.c and the descriptors include this (everyone else asks product.h) */
#ifndef MANIFESTS_PRODUCT_ROWS_H
#define MANIFESTS_PRODUCT_ROWS_H

struct product;

extern const struct product product_cudnn;
extern const struct product product_nccl;
extern const struct product product_cusparselt;

#endif
