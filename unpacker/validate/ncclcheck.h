/* ncclcheck.h - validation step 6 for NCCL, in the probe child: communicators over every GPU
 * the child sees, in this one process (NCCL's single-process form, ncclCommInitAll), and a
 * float all-reduce (sum) of distinct data per GPU compared exactly with the CPU's sum */
#ifndef UNPACKER_NCCLCHECK_H
#define UNPACKER_NCCLCHECK_H

struct json_t;

/* The name of this check, as a product's descriptor names the check that proves it
 * (struct product's gpu_check): step_gpu.c's table of the checks this unpacker has. */
extern const char ncclcheck_name[];

/* args: LIBCUDA LIBNCCL VERSION: the two absolute paths, each loaded by that path (never
 * searched for), and the manifest's NCCL version, which ncclGetVersion must say (a library of
 * another release in the install fails before any GPU is touched). Hands each result to emit (which takes it over): a row per GPU once the all-reduce ran,
 * else one row without a GPU saying what failed; 0 when all passed. */
int ncclcheck_run(char **args, void (*emit)(struct json_t *result));

#endif
