/* platform_win_thread.c - threads and a monitor (an SRW lock with its condition variable) on
 * Windows: the kernel's own, so the unpacker carries no pthread emulation for them */
#include "common/platform.h"

#include <errno.h>
#include <stdlib.h>
#include <windows.h>

struct platform_thread {
	HANDLE handle;
	void (*fn)(void *);
	void *arg;
};

struct platform_monitor {
	SRWLOCK lock;
	CONDITION_VARIABLE cond;
};

static DWORD WINAPI thread_main(LPVOID p)
{
	struct platform_thread *t = p;
	t->fn(t->arg);
	return 0;
}

int platform_thread_start(struct platform_thread **out, void (*fn)(void *), void *arg)
{
	struct platform_thread *t = malloc(sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		return -1;
	}
	t->fn = fn;
	t->arg = arg;
	t->handle = CreateThread(NULL, 0, thread_main, t, 0, NULL);
	if (!t->handle) {
		free(t);
		errno = EAGAIN;
		return -1;
	}
	*out = t;
	return 0;
}

void platform_thread_join(struct platform_thread *t)
{
	if (!t)
		return;
	WaitForSingleObject(t->handle, INFINITE);
	CloseHandle(t->handle);
	free(t);
}

struct platform_monitor *platform_monitor_new(void)
{
	struct platform_monitor *m = malloc(sizeof(*m));
	if (!m)
		return NULL;
	InitializeSRWLock(&m->lock);
	InitializeConditionVariable(&m->cond);
	return m;
}

void platform_monitor_free(struct platform_monitor *m)
{
	free(m); /* SRW locks and condition variables need no destruction */
}

void platform_monitor_enter(struct platform_monitor *m)
{
	AcquireSRWLockExclusive(&m->lock);
}

void platform_monitor_leave(struct platform_monitor *m)
{
	ReleaseSRWLockExclusive(&m->lock);
}

void platform_monitor_wait(struct platform_monitor *m)
{
	SleepConditionVariableSRW(&m->cond, &m->lock, INFINITE, 0);
}

void platform_monitor_wake(struct platform_monitor *m)
{
	WakeAllConditionVariable(&m->cond);
}
