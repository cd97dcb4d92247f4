/*
 * pool.h - the core's worker threads, shared by its parallel loops (the
 * GEMM's output blocks, attention's (line, head) pairs, the lines of a
 * recurrence).
 *
 * td_pool_run(n, fn, arg) calls fn(arg, w) once for every share w in
 * 0 .. n-1 and returns when all have returned. Share 0, and any share
 * whose worker could not be started, runs in the calling thread; the
 * others run on workers started on first need and kept for later calls,
 * so a call costs a wake-up, not thread starts, and none when calls come
 * close together (workers spin for 0.1 ms before they sleep). Which thread
 * runs a share must not change what it computes: callers make the shares
 * independent (the GEMM's blocks, each with its own accumulator), so
 * results never depend on the thread count.
 *
 * One call uses the workers at a time; a call that finds them busy (from
 * another thread) runs all its shares itself. After fork() the child
 * starts with no workers. td_pool_run never fails: at worst every share
 * runs in the caller.
 */
#ifndef TD_POOL_H
#define TD_POOL_H

#include <stddef.h>

enum { TD_POOL_MAX = 64 }; /* shares beyond this many workers run in the caller */

void td_pool_run(size_t n, void (*fn)(void *arg, size_t w), void *arg);

/*
 * Calls fn(arg, i0, i1) on consecutive ranges that together cover
 * 0 .. n-1, one range per thread (at most threads, at most one item
 * each): fn(arg, 0, n) with one thread. The ranges' bounds depend on the
 * thread count, so what fn computes for an item must not. Returns the
 * first failure, with the message of the thread that met it (error.h).
 */
int td_pool_ranges(int threads, size_t n, int (*fn)(void *arg, size_t i0, size_t i1), void *arg);

#endif
