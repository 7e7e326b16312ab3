/* gpucheck.h - validation step 6 on one GPU, in the probe child: convolutions forward,
 * backward data and backward filter against a CPU reference, every usable forward algorithm,
 * and a backend-API matmul graph (the engines that need cuBLASLt or NVRTC) */
#ifndef UNPACKER_GPUCHECK_H
#define UNPACKER_GPUCHECK_H

/* args: LIBCUDA DIR MAJOR GPU QUICK(0|1) GRAPH(0|1). Emits JSON lines; 0 when all passed. */
int gpucheck_run(char **args);

#endif
