/* platform_linux_process.c - running a child with exactly the environment given, its output
 * collected, killed at a deadline (Linux: prctl, memfd, /proc) */
#include "common/platform.h"
#include "common/platform_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
/* Collect at most max bytes of fd's output; the rest is read and dropped (so the child never
 * blocks on a full pipe, and cannot grow this process's memory), and output_capped says so. */
static int collect_output(int fd, int64_t deadline, size_t max, struct platform_child *c)
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
		if (c->output_len + (size_t)got > max) {
			c->output_capped = 1;
			got = (ssize_t)(max - c->output_len);
			if (got == 0)
				continue;
		}
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
	if ((fds[0] >= 0 && collect_output(fds[0], deadline, PLATFORM_RUN_OUTPUT_MAX, c) != 0) ||
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

/* ---- the probe child: unprivileged before it is executed, its whole tree ended with it ---- */

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif
#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER 36
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

/* What the keeper (below) tells the parent once the tree is gone. */
struct keeper_report {
	int status;    /* the probe's wait status */
	int timed_out;
	int subreaper; /* PR_SET_CHILD_SUBREAPER held: orphans of the tree came back to it */
	int leftovers; /* processes of the tree other than the probe that it ended */
};

static pthread_mutex_t sealed_lock = PTHREAD_MUTEX_INITIALIZER;
/* SEALED_NOT_YET: not made yet; SEALED_NO_MEMFD: this kernel has no memfd_create (the probe is
 * then executed by its path, and the log says so); SEALED_FAILED: a copy was possible but
 * could not be made from this program's own image: no probe is started (fail closed). */
enum { SEALED_NOT_YET = -2, SEALED_NO_MEMFD = -1, SEALED_FAILED = -3 };
static int sealed_fd = SEALED_NOT_YET;

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A copy of the program's image in memory that nobody can change (sealed), open read-only
 * (a writable descriptor would make executing it fail): the descriptor, or SEALED_NO_MEMFD, or
 * SEALED_FAILED. It is copied from the image held open since before main
 * (platform_own_image), never from the program's path, which a user who can write its
 * directory (a FAT stick mounted for the desktop user) could have renamed another program over
 * by the first probe (issue 23 A1; through the dynamic loader too, F2 of its follow-up). */
static int make_sealed_copy(const struct platform_probe_program *p)
{
#ifdef SYS_memfd_create
	/* through syscall(): the glibc floor (2.17) has no memfd_create() */
	int fd = (int)syscall(SYS_memfd_create, "cuferry-probe", MFD_CLOEXEC | MFD_ALLOW_SEALING);
#else
	int fd = -1;
#endif
	if (fd < 0)
		return SEALED_NO_MEMFD;
	int in = platform_own_image();
	int ok = in >= 0, ro = -1;
	uint64_t left = p->size ? p->size : UINT64_MAX, at = 0;
	char buf[65536], self[64];
	while (ok && left > 0) {
		ssize_t n = pread(in, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf), (off_t)at);
		if (n > 0)
			at += (uint64_t)n;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = n == 0 && !p->size;
			break;
		}
		ok = write_all(fd, buf, (size_t)n) == 0;
		left -= (uint64_t)n;
	}
	/* Readable by its owner only (0511): a program the dropped child may execute but not read
	 * starts non-dumpable (the kernel's rule at exec), so no process of the unprivileged user
	 * can attach to the probe between exec and its own PR_SET_DUMPABLE (outside review). */
	if (ok && fchmod(fd, 0511) == 0 &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		ro = open(self, O_RDONLY | O_CLOEXEC);
	}
	close(fd);
	return ro >= 0 ? ro : SEALED_FAILED;
}

/* Digits of n into out (no stdio between fork and exec). */
static char *decimal(long n, char *end)
{
	*--end = '\0';
	do
		*--end = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	return end;
}

/* The parent of process pid as /proc says, or -1. */
static long parent_of(const char *pid)
{
	char path[64] = "/proc/", text[512];
	size_t n = strlen(path);
	for (size_t i = 0; pid[i] && n < sizeof(path) - 6; i++)
		path[n++] = pid[i];
	memcpy(path + n, "/stat", 6);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (got <= 0)
		return -1;
	text[got] = '\0';
	char *p = strrchr(text, ')'); /* "PID (name) S PPID ...": the name may hold anything */
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	long ppid = 0;
	for (p += 4; *p >= '0' && *p <= '9'; p++)
		ppid = ppid * 10 + (*p - '0');
	return ppid;
}

struct dirent64_raw {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* SIGKILL every process whose parent is this one: the orphans of the tree a subreaper got. */
static void kill_children(pid_t self)
{
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char buf[8192];
	long got;
	while (dir >= 0 && (got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			const struct dirent64_raw *d = (const void *)(buf + off);
			off += d->reclen;
			if (d->name[0] < '1' || d->name[0] > '9' || parent_of(d->name) != (long)self)
				continue;
			long pid = 0;
			for (const char *c = d->name; *c >= '0' && *c <= '9'; c++)
				pid = pid * 10 + (*c - '0');
			kill((pid_t)pid, SIGKILL);
		}
	}
	if (dir >= 0)
		close(dir);
}

static volatile sig_atomic_t keeper_stop;
static void keeper_on_term(int sig)
{
	(void)sig;
	keeper_stop = 1;
}

struct probe_exec {
	const struct platform_probe_program *program;
	char *const *argv, *const *via_loader, *const *envp;
	int sealed, out, report;
	struct platform_posix_drop drop;
};

static void say(const char *what, int err)
{
	char num[24];
	const char *n = decimal(err, num + sizeof(num));
	if (write_all(2, what, strlen(what)) == 0 && write_all(2, " (errno ", 8) == 0 &&
	    write_all(2, n, strlen(n)) == 0)
		write_all(2, ")\n", 2);
}

/* The probe itself: its own process group, unprivileged, then executed. */
static void probe_child(const struct probe_exec *x, pid_t keeper)
{
	setpgid(0, 0);
	int null = open("/dev/null", O_RDONLY);
	if (null >= 0)
		dup2(null, 0);
	dup2(x->out, 1);
	dup2(x->out, 2);
	if (platform_posix_drop_to(&x->drop) != 0) {
		say("cannot drop root before the probe is executed", errno);
		_exit(126);
	}
	/* set after the drop, which clears it: the probe dies with its keeper */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != keeper)
		_exit(126);
	sigset_t none;
	sigemptyset(&none);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (x->sealed >= 0) {
#ifdef SYS_execveat
		syscall(SYS_execveat, x->sealed, "", x->argv, x->envp, AT_EMPTY_PATH);
#endif
		fexecve(x->sealed, x->argv, x->envp);
		say("cannot execute the sealed copy of the probe", errno); /* never the path then */
		_exit(127);
	}
	if (x->program->loader)
		execve(x->program->loader, x->via_loader, x->envp);
	else
		execve(x->program->path, x->argv, x->envp);
	say("cannot execute the probe", errno);
	_exit(127);
}

/* The keeper: a session of its own, subreaper of everything the probe starts; waits for the
 * probe until the deadline, then ends every process left of the tree and reports. It runs
 * none of the probe's code and loads nothing. */
static void keeper(const struct probe_exec *x, pid_t parent, int status_fd, int timeout_s)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = keeper_on_term;
	sigaction(SIGTERM, &sa, NULL);
	setsid();
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0); /* the unpacker gone: end the tree at once */
	if (getppid() != parent)
		keeper_stop = 1;
	struct keeper_report r = { 0, 0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0, 0 };
	pid_t self = getpid(), probe = fork();
	if (probe == 0)
		probe_child(x, self);
	close(x->out); /* the output's end of file: when the last process of the tree is gone */
	for (int fd = 3; fd < 65536; fd++)
		if (fd != status_fd && close(fd) != 0 && errno == EBADF && fd > 1024)
			break;
	int64_t deadline = timeout_s > 0 ? now_ms() + (int64_t)timeout_s * 1000 : 0;
	int done = probe < 0;
	while (!done && !keeper_stop) {
		pid_t got = waitpid(probe, &r.status, WNOHANG);
		if (got == probe || (got < 0 && errno != EINTR)) {
			done = 1;
			break;
		}
		if (deadline && now_ms() >= deadline) {
			r.timed_out = 1;
			break;
		}
		struct timespec pause = { 0, 10 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
	if (probe > 0)
		kill(-probe, SIGKILL); /* its process group: everything that stayed in it */
	for (;;) {
		if (r.subreaper)
			kill_children(self); /* what left the group and was orphaned came back here */
		int st;
		pid_t got;
		while ((got = waitpid(-1, &st, WNOHANG)) > 0) {
			if (got == probe && !done) {
				r.status = st;
				done = 1;
			} else if (got != probe) {
				r.leftovers++;
			}
		}
		if (got < 0 && errno == ECHILD)
			break;
		struct timespec pause = { 0, 2 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
	if (probe < 0)
		r.status = 127 << 8;
	write_all(status_fd, (const char *)&r, sizeof(r));
	_exit(0);
}

/* Nothing to hold here: the image is held open before main (platform_own_image), the probe
 * executes a sealed memfd copy of it (make_sealed_copy), not the file at its path, and drops
 * its rights before that exec. */
int platform_self_hold(void)
{
	return 0;
}

int platform_run_probe(const struct platform_probe_program *program, char *const argv[],
		       char *const envp[], int timeout_s, struct platform_child *c)
{
	memset(c, 0, sizeof(*c));
	struct probe_exec x = { .program = program, .argv = argv, .envp = envp };
	char *via_loader[20];
	size_t n = 0;
	via_loader[n++] = argv[0];
	via_loader[n++] = (char *)program->path;
	for (size_t i = 1; argv[i] && n < 19; i++)
		via_loader[n++] = argv[i];
	via_loader[n] = NULL;
	x.via_loader = via_loader;
	platform_posix_drop_target(&x.drop); /* getpwnam is not safe after fork */
	pthread_mutex_lock(&sealed_lock);
	if (sealed_fd == SEALED_NOT_YET)
		sealed_fd = make_sealed_copy(program);
	x.sealed = sealed_fd;
	pthread_mutex_unlock(&sealed_lock);
	if (x.sealed == SEALED_FAILED) {
		snprintf(c->crash, sizeof(c->crash), "its own image was not held open since "
			 "start-up, and its path may name another file by now");
		errno = ENOEXEC;
		return -1;
	}
	int out[2], status[2];
	if (pipe2(out, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(status, O_CLOEXEC) != 0) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	x.out = out[1];
	pid_t parent = getpid(), pid = fork();
	if (pid == 0)
		keeper(&x, parent, status[1], timeout_s);
	int saved = errno;
	close(out[1]);
	close(status[1]);
	if (pid < 0) {
		close(out[0]);
		close(status[0]);
		errno = saved;
		return -1;
	}
	/* The keeper holds the deadline; this one only guards against a keeper that hangs. */
	int64_t guard = timeout_s > 0 ? now_ms() + (int64_t)timeout_s * 1000 + 30000 : 0;
	if (collect_output(out[0], guard, PLATFORM_PROBE_OUTPUT_MAX, c) != 0)
		kill(pid, SIGTERM);
	close(out[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	struct keeper_report r;
	ssize_t got = read(status[0], &r, sizeof(r));
	close(status[0]);
	if (got != (ssize_t)sizeof(r)) {
		snprintf(c->crash, sizeof(c->crash), "its keeper process ended without a report");
		return 0;
	}
	snprintf(c->contained, sizeof(c->contained), "%s; own session and process group%s; %d "
		 "leftover process%s ended", x.sealed >= 0 ? "executed from a sealed in-memory copy"
		 : "executed by its path (no memfd_create)", r.subreaper ? " under a "
		 "PR_SET_CHILD_SUBREAPER keeper" : " (no PR_SET_CHILD_SUBREAPER here: only the group is "
		 "ended)", r.leftovers, r.leftovers == 1 ? "" : "es");
	if (r.timed_out) {
		c->timed_out = 1;
	} else if (WIFEXITED(r.status)) {
		c->exited = 1;
		c->exit_code = WEXITSTATUS(r.status);
	} else if (WIFSIGNALED(r.status)) {
		snprintf(c->crash, sizeof(c->crash), "signal %d, %s", WTERMSIG(r.status),
			 strsignal(WTERMSIG(r.status)));
	}
	return 0;
}
