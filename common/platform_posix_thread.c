/* platform_posix_thread.c - threads and a monitor (a mutex with its condition) over pthreads */
#include "common/platform.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct platform_thread {
	pthread_t id;
	void (*fn)(void *);
	void *arg;
};

struct platform_monitor {
	pthread_mutex_t mu;
	pthread_cond_t cond;
};

static void *thread_main(void *p)
{
	struct platform_thread *t = p;
	t->fn(t->arg);
	return NULL;
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
	int rc = pthread_create(&t->id, NULL, thread_main, t);
	if (rc != 0) {
		free(t);
		errno = rc;
		return -1;
	}
	*out = t;
	return 0;
}

void platform_thread_join(struct platform_thread *t)
{
	if (!t)
		return;
	pthread_join(t->id, NULL);
	free(t);
}

struct platform_monitor *platform_monitor_new(void)
{
	struct platform_monitor *m = malloc(sizeof(*m));
	if (!m)
		return NULL;
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cond, NULL);
	return m;
}

void platform_monitor_free(struct platform_monitor *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->cond);
	free(m);
}

void platform_monitor_enter(struct platform_monitor *m)
{
	pthread_mutex_lock(&m->mu);
}

void platform_monitor_leave(struct platform_monitor *m)
{
	pthread_mutex_unlock(&m->mu);
}

void platform_monitor_wait(struct platform_monitor *m)
{
	pthread_cond_wait(&m->cond, &m->mu);
}

void platform_monitor_wake(struct platform_monitor *m)
{
	pthread_cond_broadcast(&m->cond);
}
