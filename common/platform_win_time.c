/* platform_win_time.c - UTC time stamps read and broken down (Windows: no strptime, no
 * timegm), the time of day and the clock durations are measured on */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <ctype.h>
#include <string.h>
#include <time.h>
#include <windows.h>

/* Days from 1970-01-01 to year-month-day of the proleptic Gregorian calendar, any month or
 * day number (out-of-range ones carry over, as timegm does). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	y += (m - 1) / 12;
	m = (m - 1) % 12 + 1;
	if (m <= 0)
		m += 12, y--;
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int platform_parse_utc(const char *iso, int64_t *out)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	int v[6], f = 0;
	if (!iso || strlen(iso) != sizeof(shape) - 1)
		return -1;
	for (size_t i = 0; shape[i]; i++) {
		if (shape[i] == 'd' ? !isdigit((unsigned char)iso[i]) : iso[i] != shape[i])
			return -1;
	}
	static const int at[6][2] = { { 0, 4 }, { 5, 2 }, { 8, 2 }, { 11, 2 }, { 14, 2 }, { 17, 2 } };
	for (f = 0; f < 6; f++) {
		v[f] = 0;
		for (int i = 0; i < at[f][1]; i++)
			v[f] = v[f] * 10 + (iso[at[f][0] + i] - '0');
	}
	*out = days_from_civil(v[0], v[1], v[2]) * 86400 + (int64_t)v[3] * 3600 + v[4] * 60 + v[5];
	return 0;
}

int platform_utc_time(int64_t t, struct tm *out)
{
	__time64_t tt = (__time64_t)t;
	return _gmtime64_s(out, &tt) == 0 ? 0 : -1;
}

int64_t platform_time_now(void)
{
	FILETIME ft;
	GetSystemTimeAsFileTime(&ft);
	uint64_t t = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
	return (int64_t)(t / 10000000u) - INT64_C(11644473600); /* from 1601 to 1970 */
}

/* The performance counter: it only goes forward, whatever is done to the time of day. */
double platform_elapsed_s(void)
{
	LARGE_INTEGER now, rate;
	QueryPerformanceCounter(&now);
	QueryPerformanceFrequency(&rate);
	return (double)now.QuadPart / (double)rate.QuadPart;
}
