/*
 * freeall.h - private: the owned buffers of an object freed in one
 * statement, so that a destructor lists what it owns once instead of one
 * free() a line (the same chain in every module).
 *
 * OPTINC_FREE_ALL(a, b, c) frees each pointer it is given, in order, NULL
 * ones included (free(NULL) does nothing). It frees only the pointers
 * themselves: what they own (an array of strings, a member with its own
 * X_free) is freed first, by its own loop or call.
 */
#ifndef OPTINC_CORE_FREEALL_H
#define OPTINC_CORE_FREEALL_H

#include <stddef.h>
#include <stdlib.h>

static inline void optinc_free_all(void *const *ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}

/* The arguments become an array literal; sizeof counts them without
 * evaluating them a second time. */
#define OPTINC_FREE_ALL(...)                                                                   \
    optinc_free_all((void *const[]){__VA_ARGS__},                                              \
                    sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

#endif
