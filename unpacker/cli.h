/* cli.h - the unpacker's command line, Windows-style switches included (DESIGN.md §8) */
#ifndef UNPACKER_CLI_H
#define UNPACKER_CLI_H

#include <stddef.h>

#define CLI_MAX_TRUST 16

struct cli {
	const char *verb;      /* install, verify, validate, list, use, uninstall, env, doctor */
	const char *arg;       /* BUNDLE or ID */
	const char *prefix;
	const char *root;
	const char *log_file;
	const char *json_file;
	const char *shell;
	const char *modulefiles; /* --modulefiles DIR */
	const char *trust_files[CLI_MAX_TRUST];
	size_t ntrust_files;
	const char *fingerprints[CLI_MAX_TRUST];
	size_t nfingerprints;
	int silent, no_env, env_user, no_validate, require_gpu, allow_downgrade, allow_expired;
	int force, help, verbose, keep_failed, quick;
	int gpu; /* -1: all */
};

/* 0 ok; otherwise 1 with a one-line reason in why. */
int cli_parse(int argc, char **argv, struct cli *c, char *why, size_t why_size);
extern const char cli_usage[];

#endif
