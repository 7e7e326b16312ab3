/* convref.c - plain loops, written for clarity. The whole-tensor references serve the fake
 * cuDNN of the tests; validation uses the per-element ones at sampled points. */
#include "unpacker/validate/convref.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

void conv_shape_finish(struct conv_shape *s)
{
	s->oh = (s->h + 2 * s->pad_h - s->r) / s->stride_h + 1;
	s->ow = (s->w + 2 * s->pad_w - s->s) / s->stride_w + 1;
}

size_t conv_x_count(const struct conv_shape *s)
{
	return (size_t)s->n * s->c * s->h * s->w;
}

size_t conv_w_count(const struct conv_shape *s)
{
	return (size_t)s->k * s->c * s->r * s->s;
}

size_t conv_y_count(const struct conv_shape *s)
{
	return (size_t)s->n * s->k * s->oh * s->ow;
}

void conv_fill(float *v, size_t n, unsigned seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		v[i] = (float)((double)x / 4294967296.0 * 2.0 - 1.0);
	}
}

#define X(nn, cc, hh, ww) x[(((size_t)(nn) * s->c + (cc)) * s->h + (hh)) * s->w + (ww)]
#define W(kk, cc, rr, ss) w[(((size_t)(kk) * s->c + (cc)) * s->r + (rr)) * s->s + (ss)]
#define Y(nn, kk, pp, qq) (((size_t)(nn) * s->k + (kk)) * s->oh + (pp)) * s->ow + (qq)

/* Visit every (output, input, filter) triple that contributes: one loop nest for all three. */
#define FOR_EACH_TERM(body)                                                                 \
	for (int nn = 0; nn < s->n; nn++)                                                   \
		for (int kk = 0; kk < s->k; kk++)                                           \
			for (int pp = 0; pp < s->oh; pp++)                                  \
				for (int qq = 0; qq < s->ow; qq++)                          \
					for (int cc = 0; cc < s->c; cc++)                   \
						for (int rr = 0; rr < s->r; rr++) {         \
							int hh = pp * s->stride_h - s->pad_h + rr; \
							if (hh < 0 || hh >= s->h)           \
								continue;                   \
							for (int ss = 0; ss < s->s; ss++) { \
								int ww = qq * s->stride_w - s->pad_w + ss; \
								if (ww < 0 || ww >= s->w)   \
									continue;           \
								body                        \
							}                                   \
						}

void conv_ref_forward(const struct conv_shape *s, const float *x, const float *w, float *y,
		      float *mag)
{
	memset(y, 0, conv_y_count(s) * sizeof(float));
	memset(mag, 0, conv_y_count(s) * sizeof(float));
	FOR_EACH_TERM({
		float t = X(nn, cc, hh, ww) * W(kk, cc, rr, ss);
		y[Y(nn, kk, pp, qq)] += t;
		mag[Y(nn, kk, pp, qq)] += fabsf(t);
	})
}

void conv_ref_backward_data(const struct conv_shape *s, const float *w, const float *dy,
			    float *dx, float *mag)
{
	size_t n = conv_x_count(s);
	memset(dx, 0, n * sizeof(float));
	memset(mag, 0, n * sizeof(float));
	FOR_EACH_TERM({
		size_t i = (((size_t)nn * s->c + cc) * s->h + hh) * s->w + ww;
		float t = dy[Y(nn, kk, pp, qq)] * W(kk, cc, rr, ss);
		dx[i] += t;
		mag[i] += fabsf(t);
	})
}

void conv_ref_backward_filter(const struct conv_shape *s, const float *x, const float *dy,
			      float *dw, float *mag)
{
	size_t n = conv_w_count(s);
	memset(dw, 0, n * sizeof(float));
	memset(mag, 0, n * sizeof(float));
	FOR_EACH_TERM({
		size_t i = (((size_t)kk * s->c + cc) * s->r + rr) * s->s + ss;
		float t = dy[Y(nn, kk, pp, qq)] * X(nn, cc, hh, ww);
		dw[i] += t;
		mag[i] += fabsf(t);
	})
}

void conv_ref_forward_at(const struct conv_shape *s, const float *x, const float *w, size_t idx,
			 float *value, float *mag)
{
	int qq = (int)(idx % (size_t)s->ow), pp = (int)(idx / (size_t)s->ow % (size_t)s->oh);
	int kk = (int)(idx / ((size_t)s->ow * s->oh) % (size_t)s->k);
	int nn = (int)(idx / ((size_t)s->ow * s->oh * s->k));
	double v = 0, m = 0;
	for (int cc = 0; cc < s->c; cc++)
		for (int rr = 0; rr < s->r; rr++) {
			int hh = pp * s->stride_h - s->pad_h + rr;
			for (int ss = 0; hh >= 0 && hh < s->h && ss < s->s; ss++) {
				int ww = qq * s->stride_w - s->pad_w + ss;
				if (ww < 0 || ww >= s->w)
					continue;
				double t = (double)X(nn, cc, hh, ww) * W(kk, cc, rr, ss);
				v += t;
				m += fabs(t);
			}
		}
	*value = (float)v;
	*mag = (float)m;
}

void conv_ref_backward_data_at(const struct conv_shape *s, const float *w, const float *dy,
			       size_t idx, float *value, float *mag)
{
	int ww = (int)(idx % (size_t)s->w), hh = (int)(idx / (size_t)s->w % (size_t)s->h);
	int cc = (int)(idx / ((size_t)s->w * s->h) % (size_t)s->c);
	int nn = (int)(idx / ((size_t)s->w * s->h * s->c));
	double v = 0, m = 0;
	for (int kk = 0; kk < s->k; kk++)
		for (int rr = 0; rr < s->r; rr++) {
			int ph = hh + s->pad_h - rr;
			if (ph < 0 || ph % s->stride_h || ph / s->stride_h >= s->oh)
				continue;
			for (int ss = 0; ss < s->s; ss++) {
				int qw = ww + s->pad_w - ss;
				if (qw < 0 || qw % s->stride_w || qw / s->stride_w >= s->ow)
					continue;
				double t = (double)dy[Y(nn, kk, ph / s->stride_h, qw / s->stride_w)] * W(kk, cc, rr, ss);
				v += t;
				m += fabs(t);
			}
		}
	*value = (float)v;
	*mag = (float)m;
}

void conv_ref_backward_filter_at(const struct conv_shape *s, const float *x, const float *dy,
				 size_t idx, float *value, float *mag)
{
	int ss = (int)(idx % (size_t)s->s), rr = (int)(idx / (size_t)s->s % (size_t)s->r);
	int cc = (int)(idx / ((size_t)s->s * s->r) % (size_t)s->c);
	int kk = (int)(idx / ((size_t)s->s * s->r * s->c));
	double v = 0, m = 0;
	for (int nn = 0; nn < s->n; nn++)
		for (int pp = 0; pp < s->oh; pp++) {
			int hh = pp * s->stride_h - s->pad_h + rr;
			for (int qq = 0; hh >= 0 && hh < s->h && qq < s->ow; qq++) {
				int ww = qq * s->stride_w - s->pad_w + ss;
				if (ww < 0 || ww >= s->w)
					continue;
				double t = (double)dy[Y(nn, kk, pp, qq)] * X(nn, cc, hh, ww);
				v += t;
				m += fabs(t);
			}
		}
	*value = (float)v;
	*mag = (float)m;
}

size_t conv_terms_per_point(const struct conv_shape *s, int kind)
{
	if (kind == 0)
		return (size_t)s->c * s->r * s->s;
	if (kind == 1)
		return (size_t)s->k * s->r * s->s;
	return (size_t)s->n * s->oh * s->ow;
}

size_t conv_compare(const float *got, const float *ref, const float *mag, size_t n,
		    double *worst)
{
	size_t bad = 0;
	*worst = 0;
	for (size_t i = 0; i < n; i++) {
		double bound = CONV_REL_TOL * mag[i] + CONV_ABS_TOL;
		double err = fabs((double)got[i] - (double)ref[i]);
		if (!(err <= bound)) /* NaN counts as bad */
			bad++;
		double ratio = isnan(err) ? INFINITY : err / bound;
		if (ratio > *worst)
			*worst = ratio;
	}
	return bad;
}
