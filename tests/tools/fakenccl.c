/* fakenccl.c - a stand-in libnccl.so.2 for tests on machines without a GPU: the calls of the
 * all-reduce check (unpacker/validate/ncclcheck.c) over the fake driver's "GPUs", whose
 * device pointers are host memory (fakecuda.c), so the all-reduce really sums the buffers
 * on the CPU. Through FAKE_CONF (fakeconf.h): nccl_wrong_gpu=G (GPU G's result off by one at
 * one element), nccl_init_fail=1 (ncclCommInitAll fails, as on a machine whose GPUs NCCL
 * cannot connect), nccl_version=V (what ncclGetVersion says, as a library of another release
 * in the install would; -DFAKE_NCCL_VERSION=22809 is the default). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fakeconf.h"

#ifndef FAKE_NCCL_VERSION
#define FAKE_NCCL_VERSION 22809
#endif

#define MAX_RANKS 64

__attribute__((constructor)) static void record(void) { fake_record_uid("libnccl"); }

/* The communicators ncclCommInitAll made together; an all-reduce is done when every rank
 * has called it (NCCL's group semantics: each call waits for its peers). */
struct clique {
	int n, pending, alive;
	const float *send[MAX_RANKS];
	float *recv[MAX_RANKS];
	size_t count;
};

struct comm {
	struct clique *c;
	int rank;
};

int ncclGetVersion(int *v) { *v = (int)fake_conf("nccl_version", FAKE_NCCL_VERSION); return 0; }

const char *ncclGetErrorString(int r)
{
	return r == 0 ? "no error" : r == 2 ? "unhandled system error (run with NCCL_DEBUG=INFO for details)"
				  : r == 4 ? "invalid argument" : "fake NCCL error";
}

int ncclCommInitAll(struct comm **comms, int n, const int *devlist)
{
	(void)devlist;
	if (fake_conf("nccl_init_fail", 0))
		return 2; /* ncclSystemError */
	if (n < 1 || n > MAX_RANKS)
		return 4; /* ncclInvalidArgument */
	struct clique *c = calloc(1, sizeof(*c));
	if (!c)
		return 2;
	c->n = c->alive = n;
	for (int i = 0; i < n; i++) {
		comms[i] = calloc(1, sizeof(**comms));
		comms[i]->c = c;
		comms[i]->rank = i;
	}
	return 0;
}

int ncclCommDestroy(struct comm *comm)
{
	if (--comm->c->alive == 0)
		free(comm->c);
	free(comm);
	return 0;
}

int ncclGroupStart(void) { return 0; }
int ncclGroupEnd(void) { return 0; }

/* float (7) and sum (0) only: what the check asks for. */
int ncclAllReduce(const void *send, void *recv, size_t count, int type, int op, struct comm *comm,
		  void *stream)
{
	(void)stream;
	struct clique *c = comm->c;
	if (type != 7 || op != 0 || (c->pending && count != c->count))
		return 4;
	c->count = count;
	c->send[comm->rank] = send;
	c->recv[comm->rank] = recv;
	if (++c->pending < c->n)
		return 0;
	c->pending = 0;
	/* every rank's sum at i is read before any rank's result is written: in place works */
	for (size_t i = 0; i < count; i++) {
		float total = 0;
		for (int r = 0; r < c->n; r++)
			total += c->send[r][i];
		for (int r = 0; r < c->n; r++)
			c->recv[r][i] = total;
	}
	long wrong = fake_conf("nccl_wrong_gpu", -1);
	if (wrong >= 0 && wrong < c->n && count)
		c->recv[wrong][count / 3] += 1.0f;
	return 0;
}
