/* log.h - console and log-file messages with one prefix and one line each */
#ifndef COMMON_LOG_H
#define COMMON_LOG_H

#include "common/format.h"

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

/* prog names the program in every line; console_level filters the terminal only. */
void log_init(const char *prog, int console_level);
/* Open (append) a log file; every message from now on goes there too, with a timestamp. */
int log_open_file(const char *path);
void log_close_file(void);
void log_msg(int level, const char *fmt, ...) CF_PRINTF(2, 3);
/* Plain output on stdout (results), mirrored to the log file. */
void log_out(const char *fmt, ...) CF_PRINTF(1, 2);
/* Copy a name for display: control characters become '?', so names cannot forge lines. */
const char *log_safe(const char *s, char *buf, unsigned long size);
/* The same with each control character written as \xNN (as log_msg does): for names from a
 * stick that log_out prints, so that no raw ESC or BEL reaches a terminal. */
const char *log_escape(const char *s, char *buf, unsigned long size);

#endif
