/* platform_posix_process.c - running a child with exactly the environment given, its output
 * collected, killed at a deadline (POSIX) */
#include "common/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Collect from fd until end of file or the deadline (0: none); 0 on end of file. */
static int collect_output(int fd, int64_t deadline, struct platform_child *c)
{
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int64_t left = deadline ? deadline - now_ms() : -1;
		if (deadline && left <= 0)
			return -1;
		int ready = poll(&p, 1, left < 0 ? -1 : (int)left);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return -1;
		char buf[4096];
		ssize_t got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0;
		c->output = xrealloc(c->output, c->output_len + (size_t)got + 1);
		memcpy(c->output + c->output_len, buf, (size_t)got);
		c->output_len += (size_t)got;
		c->output[c->output_len] = '\0';
	}
}

/* Wait for pid until the deadline (0: none); 0 when it ended, with *status set. */
static int wait_until(pid_t pid, int64_t deadline, int *status)
{
	for (;;) {
		pid_t got = waitpid(pid, status, deadline ? WNOHANG : 0);
		if (got == pid)
			return 0;
		if (got < 0 && errno != EINTR)
			return -1;
		if (deadline && now_ms() >= deadline)
			return -1;
		if (deadline) {
			struct timespec pause = { 0, 20 * 1000 * 1000 };
			nanosleep(&pause, NULL);
		}
	}
}

int platform_run(const char *prog, char *const argv[], char *const envp[],
		 enum platform_capture capture, int timeout_s, struct platform_child *c)
{
	int fds[2] = { -1, -1 };
	memset(c, 0, sizeof(*c));
	if (capture != PLATFORM_CAPTURE_NONE && pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		if (capture != PLATFORM_CAPTURE_NONE)
			dup2(fds[1], 1);
		if (capture == PLATFORM_CAPTURE_ALL)
			dup2(fds[1], 2);
		execve(prog, argv, envp);
		_exit(127);
	}
	int saved = errno;
	if (fds[1] >= 0)
		close(fds[1]);
	if (pid < 0) {
		if (fds[0] >= 0)
			close(fds[0]);
		errno = saved;
		return -1;
	}
	int64_t deadline = timeout_s > 0 ? now_ms() + (int64_t)timeout_s * 1000 : 0;
	int status = 0;
	if ((fds[0] >= 0 && collect_output(fds[0], deadline, c) != 0) ||
	    wait_until(pid, deadline, &status) != 0) {
		c->timed_out = 1;
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (fds[0] >= 0)
		close(fds[0]);
	if (c->timed_out)
		return 0;
	if (WIFEXITED(status)) {
		c->exited = 1;
		c->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		snprintf(c->crash, sizeof(c->crash), "signal %d, %s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	}
	return 0;
}
