/* platform_posix_child.c - what a child process inherits: the report pipe, and nothing else
 * of ours (POSIX) */
#include "common/platform.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

int platform_child_pipe(int *read_end, int *write_end, size_t capacity)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	fcntl(fds[1], F_SETFD, 0); /* the child inherits the write end */
	if (capacity > 0)
		fcntl(fds[0], F_SETPIPE_SZ, (int)capacity); /* best effort: the default may do */
	*read_end = fds[0];
	*write_end = fds[1];
	return 0;
}

void platform_close_other_handles(int keep)
{
	struct rlimit rl;
	int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
	for (int fd = 3; fd < max; fd++)
		if (fd != keep)
			close(fd);
}

unsigned long platform_user_id(void)
{
	return (unsigned long)getuid();
}

int platform_child_handle_arg(int write_end, char *out, size_t size)
{
	int n = snprintf(out, size, "%d", write_end);
	return n > 0 && (size_t)n < size ? 0 : -1;
}

int platform_inherited_handle(const char *arg)
{
	char *end = NULL;
	long fd = strtol(arg, &end, 10);
	if (fd < 3 || fd > INT_MAX || !end || *end || !platform_handle_valid((int)fd))
		return -1;
	return (int)fd;
}

const char *const *platform_clean_env(void)
{
	static const char *const env[] = { "PATH=/usr/bin:/bin", NULL };
	return env;
}
