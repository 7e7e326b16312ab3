/* log.c - console and log-file messages */
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *log_prog = "cuferry";
static int log_level_console = LOG_INFO;
static FILE *log_file;

void log_init(const char *prog, int console_level)
{
	log_prog = prog;
	log_level_console = console_level;
}

int log_open_file(const char *path)
{
	log_close_file();
	log_file = fopen(path, "ae");
	return log_file ? 0 : -1;
}

void log_close_file(void)
{
	if (log_file)
		fclose(log_file);
	log_file = NULL;
}

static void log_stamp(FILE *f, const char *tag)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "%s %s %s: ", ts, log_prog, tag);
}

void log_msg(int level, const char *fmt, ...)
{
	static const char *const tags[] = { "error", "warning", "info", "debug" };
	va_list ap;
	if (level <= log_level_console) {
		va_start(ap, fmt);
		if (level <= LOG_WARN)
			fprintf(stderr, "%s: %s: ", log_prog, tags[level]);
		else
			fprintf(stderr, "%s: ", log_prog);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	if (log_file) {
		va_start(ap, fmt);
		log_stamp(log_file, tags[level]);
		vfprintf(log_file, fmt, ap);
		fputc('\n', log_file);
		fflush(log_file);
		va_end(ap);
	}
}

void log_out(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	if (log_file) {
		va_start(ap, fmt);
		vfprintf(log_file, fmt, ap);
		va_end(ap);
		fflush(log_file);
	}
}

const char *log_safe(const char *s, char *buf, unsigned long size)
{
	unsigned long i = 0;
	if (size == 0)
		return "";
	for (; s && *s && i + 1 < size; s++)
		buf[i++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s;
	buf[i] = '\0';
	return buf;
}
