/* cusparseltcheck.h - validation step 6 for cuSPARSELt, in the probe child of one GPU: a small
 * 2:4 structured-sparse matrix multiplication (FP16 in, FP32 compute) whose sparse operand
 * cuSPARSELt prunes, checks and compresses itself, compared with the CPU's product of the
 * pruned matrix it hands back */
#ifndef UNPACKER_CUSPARSELTCHECK_H
#define UNPACKER_CUSPARSELTCHECK_H

struct json_t;

/* The name of this check, as a product's descriptor names the check that proves it
 * (struct product's gpu_check): step_gpu.c's table of the checks this unpacker has. */
extern const char cusparseltcheck_name[];

/* args: LIBCUDA LIBCUSPARSELT, both absolute paths, each loaded by that path (never searched
 * for), on the child's device 0. Hands one row to emit (which takes it over): pass, fail with
 * what failed, or skip on a GPU below sm 8.0 (no sparse tensor cores); 0 unless it failed. */
int cusparseltcheck_run(char **args, void (*emit)(struct json_t *result));

#endif
