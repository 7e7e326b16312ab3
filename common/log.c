/* log.c - console and log-file messages */
#include "common/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/platform.h"

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
	/* Never through a link: a log directory another user can write (Ubuntu's /var/log is
	 * root:syslog 0775) must not let them point root's appends at any file. */
	int fd = platform_open(path, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_APPEND | PLATFORM_OPEN_CREATE |
				       PLATFORM_OPEN_NOFOLLOW | PLATFORM_OPEN_NONBLOCK, 0640);
	struct platform_stat st;
	if (fd >= 0 && (platform_fstat(fd, &st) != 0 || st.type != PLATFORM_TYPE_FILE)) {
		platform_close(fd);
		errno = EINVAL; /* a FIFO or device named as the log */
		return -1;
	}
	log_file = fd >= 0 ? fdopen(fd, "a") : NULL;
	if (fd >= 0 && !log_file)
		platform_close(fd);
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
	struct tm tm;
	platform_utc_time(platform_time_now(), &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "%s %s %s: ", ts, log_prog, tag);
}

/* A message is one line whatever it quotes: control characters (a newline or an escape
 * sequence in a signed but hostile field; C1 controls and bytes that are not UTF-8 too) are
 * written as \xNN, so no field can forge a line or drive the terminal. */
static void put_escaped(FILE *f, const char *s)
{
	while (*s) {
		int n = log_printable_len(s);
		if (n == 0)
			fprintf(f, "\\x%02x", (unsigned char)*s++);
		for (; n > 0; n--)
			fputc(*s++, f);
	}
	fputc('\n', f);
}

void log_msg(int level, const char *fmt, ...)
{
	static const char *const tags[] = { "error", "warning", "info", "debug" };
	char *text = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (level <= log_level_console) {
		/* stdout first: on a pipe (tee, Ansible) the lines keep the order they had. */
		fflush(stdout);
		if (level <= LOG_WARN)
			fprintf(stderr, "%s: %s: ", log_prog, tags[level]);
		else
			fprintf(stderr, "%s: ", log_prog);
		put_escaped(stderr, text);
	}
	if (log_file) {
		log_stamp(log_file, tags[level]);
		put_escaped(log_file, text);
		fflush(log_file);
	}
	free(text);
}

/* In the log file every line of the output is stamped as log_msg's are (a name from a stick
 * cannot pass for a line of its own), and control characters are escaped. */
static void put_stamped(const char *text)
{
	static int at_line_start = 1;
	for (const char *p = text; *p;) {
		if (at_line_start)
			log_stamp(log_file, "info");
		at_line_start = *p == '\n';
		int n = *p == '\n' ? 1 : log_printable_len(p);
		if (n == 0)
			fprintf(log_file, "\\x%02x", (unsigned char)*p++);
		for (; n > 0; n--)
			fputc(*p++, log_file);
	}
}

void log_out(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	/* Each line when it happens, on a pipe as on a terminal (a row as its step ends). */
	fflush(stdout);
	if (log_file) {
		char *text = NULL;
		va_start(ap, fmt);
		int n = vasprintf(&text, fmt, ap);
		va_end(ap);
		if (n >= 0)
			put_stamped(text);
		free(text);
		fflush(log_file);
	}
}

int log_printable_len(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	/* The second byte's range per lead byte (RFC 3629: no overlong form, no surrogate, nothing
	 * above U+10FFFF); U+0080-U+009F (C2 80-9F) are C1 controls: the terminal acts on them. */
	int n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
		: s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	unsigned char lo = s[0] == 0xc2 ? 0xa0 : s[0] == 0xe0 ? 0xa0 : s[0] == 0xf0 ? 0x90 : 0x80;
	unsigned char hi = s[0] == 0xed ? 0x9f : s[0] == 0xf4 ? 0x8f : 0xbf;
	if (n == 0 || s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

const char *log_safe(const char *s, char *buf, unsigned long size)
{
	unsigned long i = 0;
	if (size == 0)
		return "";
	while (s && *s && i + 1 < size) {
		int n = log_printable_len(s);
		if (n == 0 || i + (unsigned long)n >= size) {
			buf[i++] = '?';
			s++;
			continue;
		}
		memcpy(buf + i, s, (size_t)n);
		i += (unsigned long)n;
		s += n;
	}
	buf[i] = '\0';
	return buf;
}

const char *log_escape(const char *s, char *buf, unsigned long size)
{
	unsigned long i = 0;
	if (size == 0)
		return "";
	while (s && *s) {
		int n = log_printable_len(s);
		if (i + (unsigned long)(n ? n : 4) >= size)
			break;
		if (n == 0) {
			i += (unsigned long)snprintf(buf + i, size - i, "\\x%02x", (unsigned char)*s++);
			continue;
		}
		memcpy(buf + i, s, (size_t)n);
		i += (unsigned long)n;
		s += n;
	}
	buf[i] = '\0';
	return buf;
}
