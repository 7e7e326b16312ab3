/* platform_posix_time.c - the clocks, and UTC time stamps read and broken down (POSIX) */
#include "common/platform.h"

#include <string.h>
#include <time.h>

int platform_parse_utc(const char *iso, int64_t *out)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *end = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	if (!end || *end)
		return -1;
	*out = (int64_t)timegm(&tm);
	return 0;
}

int platform_utc_time(int64_t t, struct tm *out)
{
	time_t tt = (time_t)t;
	return gmtime_r(&tt, out) ? 0 : -1;
}

int64_t platform_time_now(void)
{
	return (int64_t)time(NULL);
}

double platform_elapsed_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
