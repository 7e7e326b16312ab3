/* safepath.h - the directories the unpacker writes into as root (DESIGN.md §6): the prefix
 * rule, sshd-StrictModes ownership of every directory above them, and no symbolic link
 * followed inside a --root image */
#ifndef UNPACKER_SAFEPATH_H
#define UNPACKER_SAFEPATH_H

#include <stddef.h>

#include "common/err.h"

/* 0 when prefix is absolute, normalized (no "//", ".", "..", trailing '/') and made only of
 * [A-Za-z0-9._+@/-]; otherwise -1 with a one-line reason in why (a usage error). On Windows:
 * a drive ("C:\"), '\' or '/' between components, and space and parentheses besides. */
int safepath_prefix_rule(const char *prefix, char *why, size_t size);
/* The same, the reason naming the switch the user typed: "--prefix", "/D" or "/prefix". */
int safepath_prefix_rule_as(const char *prefix, const char *option, char *why, size_t size);
/* The prefix as typed with ONE trailing separator taken off ("/opt/nccl/", NSIS-style
 * "/D=C:\tools\nccl\"), never a root's own ("/", "C:\"): the rule judges the rest. Free it. */
char *safepath_prefix_trim(const char *prefix);
/* A prefix that passed the rule, written with this system's own separator (Windows: every '/'
 * becomes '\'; POSIX: unchanged). Free it. */
char *safepath_prefix_native(const char *prefix);

/* Check the directory sys_dir (as the system sees it) under root ("" or --root DIR) before
 * anything is written there. Inside root, every existing component must be a real directory,
 * never a link (a link in an image could send the write anywhere on the host). Run as root,
 * every existing directory from '/' down to sys_dir, the root's own included, must be owned
 * by root and not writable by group or others; a root-owned sticky directory (/tmp) is
 * accepted only above a component that already exists and passes the same test, since a
 * name created in it could have been planted first. what names the directory in the reason
 * ("the prefix", "the log directory"). CF_OK, or CF_INCOMPATIBLE (exit 4) with the reason. */
int safepath_check_dir(const char *root, const char *sys_dir, const char *what, struct cf_err *e);

/* The same for the log's directory, with one tolerance: a directory above it writable by a
 * system group (gid < 1000; Ubuntu's /var/log is root:syslog 0775), as every silent install
 * there would otherwise fail. The log's own directory gets no tolerance, and the log file is
 * opened without following a link. */
int safepath_check_log_dir(const char *root, const char *sys_dir, struct cf_err *e);

/* The directory of a file named on the command line, a host path (never inside --root; a
 * relative one against the working directory): safepath_check_dir's rule, or the log's
 * (safepath_check_log_dir) when log_rule, what naming it in the reason. */
int safepath_check_file_dir(const char *file, const char *what, int log_rule, struct cf_err *e);

/* A file that exists and that root reads (a --trust key): every directory on its way passes
 * safepath_check_dir's rule, its own directory as the parent of an existing name (so a sticky
 * root-owned /tmp passes: nobody else may rename or remove root's file there), and a link on
 * the way (the file's own name included) is followed only when root owns it or nobody else
 * may write beside it. The file's owner and mode are the caller's to check on what it opened.
 * Linux and macOS; on Windows CF_OK. */
int safepath_check_existing_file(const char *file, const char *what, struct cf_err *e);

#endif
