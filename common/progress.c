/* progress.c - a rate-limited progress bar on stderr */
#include "common/progress.h"

#include <stdio.h>
#include <string.h>

#include "common/platform.h"

static void progress_draw(struct progress *p)
{
	double mib = (double)p->done / 1048576.0;
	double elapsed = platform_elapsed_s() - p->started;
	double rate = elapsed > 0 ? mib / elapsed : 0;
	if (p->total) {
		int width = 30, fill = (int)((double)p->done * width / (double)p->total);
		char bar[31];
		if (fill > width)
			fill = width;
		memset(bar, '#', (size_t)fill);
		memset(bar + fill, '-', (size_t)(width - fill));
		bar[width] = '\0';
		/* Time left from the rate so far: slow media (USB sticks) are why it is shown. */
		char left[32] = "";
		if (rate > 0 && p->done < p->total) {
			long s = (long)((double)(p->total - p->done) / 1048576.0 / rate + 0.5);
			snprintf(left, sizeof(left), " %ld:%02ld left", s / 60, s % 60);
		}
		fprintf(stderr, "\r%-20.20s [%s] %5.1f%% %8.1f MiB %6.1f MiB/s%-12s", p->label, bar,
			100.0 * (double)p->done / (double)p->total, mib, rate, left);
	} else {
		fprintf(stderr, "\r%-20.20s %8.1f MiB %6.1f MiB/s", p->label, mib, rate);
	}
	fflush(stderr);
}

void progress_start(struct progress *p, const char *label, uint64_t total, int enabled)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->label, sizeof(p->label), "%s", label);
	p->total = total;
	p->enabled = enabled && platform_is_terminal(2 /* stderr */);
	p->started = platform_elapsed_s();
}

void progress_set(struct progress *p, uint64_t done)
{
	p->done = done;
	if (!p->enabled)
		return;
	double t = platform_elapsed_s();
	/* At most six redraws a second, as zstd does: a faster bar costs more than it tells. */
	if (t - p->last_draw < 1.0 / 6)
		return;
	p->last_draw = t;
	progress_draw(p);
}

void progress_add(struct progress *p, uint64_t n)
{
	progress_set(p, p->done + n);
}

void progress_end(struct progress *p)
{
	if (!p->enabled)
		return;
	progress_draw(p);
	fputc('\n', stderr);
	p->enabled = 0;
}
