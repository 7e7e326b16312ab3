/* log.h - console and log-file messages with one prefix and one line each */
#ifndef COMMON_LOG_H
#define COMMON_LOG_H

#include "common/format.h"

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

/* The length of the printable character at text: 1-4 bytes of valid UTF-8 that are not a C0
 * or C1 control (U+0080-U+009F) nor DEL; 0 when its first byte must be escaped. */
int log_printable_len(const char *text);

/* prog names the program in every line; console_level filters the terminal only. */
void log_init(const char *prog, int console_level);
/* Open (append) a log file; every message from now on goes there too, with a timestamp. */
int log_open_file(const char *path);
void log_close_file(void);
void log_msg(int level, const char *fmt, ...) CF_PRINTF(2, 3);
/* Plain output on stdout (results), mirrored to the log file. */
void log_out(const char *fmt, ...) CF_PRINTF(1, 2);
/* Copy a name for display: control characters (C0, DEL, C1 U+0080-U+009F) and bytes that are
 * not UTF-8 become '?', so names cannot forge lines. */
const char *log_safe(const char *s, char *buf, unsigned long size);
/* The same with each control character written as \xNN (as log_msg does): for names from a
 * stick that log_out prints, so that no raw ESC or BEL reaches a terminal. */
const char *log_escape(const char *s, char *buf, unsigned long size);

#endif
