/* progress.h - a progress bar on a terminal, nothing otherwise */
#ifndef COMMON_PROGRESS_H
#define COMMON_PROGRESS_H

#include <stdint.h>

struct progress {
	char label[48];
	uint64_t total;
	uint64_t done;
	double last_draw;
	double started;
	int enabled;
};

/* Draws only when stderr is a terminal and enabled is non-zero. total 0 = unknown. */
void progress_start(struct progress *p, const char *label, uint64_t total, int enabled);
void progress_add(struct progress *p, uint64_t n);
void progress_set(struct progress *p, uint64_t done);
void progress_end(struct progress *p);

#endif
