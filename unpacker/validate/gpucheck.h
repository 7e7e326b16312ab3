/* gpucheck.h - validation step 6 on one GPU, in the probe child: convolutions forward,
 * backward data and backward filter against a CPU reference, every usable forward algorithm,
 * and a backend-API matmul graph (the engines that need cuBLASLt or NVRTC) */
#ifndef UNPACKER_GPUCHECK_H
#define UNPACKER_GPUCHECK_H

struct json_t;

/* The name of this check, as a product's descriptor names the check that proves it
 * (struct product's gpu_check): step_gpu.c's table of the checks this unpacker has. */
extern const char gpucheck_name[];

/* args: LIBCUDA DIR MAJOR GPU SHAPES GRAPH(0|1), SHAPES 0 both convolution shapes, 1 the
 * small one, 2 none. Hands each result to emit as it is known (which takes it over); 0 when
 * all passed. */
int gpucheck_run(char **args, void (*emit)(struct json_t *result));

#endif
