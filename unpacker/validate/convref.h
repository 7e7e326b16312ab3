/* convref.h - CPU reference convolutions (NCHW, float, cross-correlation) for checking cuDNN,
 * with the magnitude bound that makes a precision-aware tolerance */
#ifndef UNPACKER_CONVREF_H
#define UNPACKER_CONVREF_H

#include <stddef.h>

struct conv_shape {
	int n, c, h, w;       /* input */
	int k, r, s;          /* filters: k of c x r x s */
	int pad_h, pad_w, stride_h, stride_w;
	int oh, ow;           /* output, filled by conv_shape_finish */
};

/* Tolerance: TF32 keeps 10 mantissa bits of each input, so each product may be off by about
 * 2^-10 of |x*w| per input; with float accumulation on top, 4e-3 * sum|x*w| bounds the error
 * of every output element whether or not the GPU uses TF32. */
#define CONV_REL_TOL 4e-3
#define CONV_ABS_TOL 1e-5

void conv_shape_finish(struct conv_shape *s);
size_t conv_x_count(const struct conv_shape *s);
size_t conv_w_count(const struct conv_shape *s);
size_t conv_y_count(const struct conv_shape *s);
/* Deterministic values in [-1, 1). */
void conv_fill(float *v, size_t n, unsigned seed);
/* Each writes the result and, in mag, the sum of |terms| of every element. */
void conv_ref_forward(const struct conv_shape *s, const float *x, const float *w, float *y,
		      float *mag);
void conv_ref_backward_data(const struct conv_shape *s, const float *w, const float *dy,
			    float *dx, float *mag);
void conv_ref_backward_filter(const struct conv_shape *s, const float *x, const float *dy,
			      float *dw, float *mag);
/* One element of each result (and its sum of |terms|), accumulated in double: the reference
 * at sampled points, so its cost does not grow with the tensors. idx indexes y, dx or dw. */
void conv_ref_forward_at(const struct conv_shape *s, const float *x, const float *w, size_t idx,
			 float *value, float *mag);
void conv_ref_backward_data_at(const struct conv_shape *s, const float *w, const float *dy,
			       size_t idx, float *value, float *mag);
void conv_ref_backward_filter_at(const struct conv_shape *s, const float *x, const float *dy,
				 size_t idx, float *value, float *mag);
/* Terms summed for one element of each kind (0 forward, 1 backward data, 2 backward filter):
 * what one sampled point costs. */
size_t conv_terms_per_point(const struct conv_shape *s, int kind);
/* Number of elements outside the tolerance; the worst error relative to its bound in worst. */
size_t conv_compare(const float *got, const float *ref, const float *mag, size_t n,
		    double *worst);

#endif
