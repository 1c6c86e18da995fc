/*
 * bigmem.h - private: allocations of many megabytes on transparent huge
 * pages (bigmem.c), for the arrays that are large, fresh for every call and
 * touched all over: the decomposition's matrices, the netlist reader's hash
 * tables, and an input file's bytes.
 */
#ifndef OPTINC_CORE_BIGMEM_H
#define OPTINC_CORE_BIGMEM_H

#include <stddef.h>

/* bytes zeroed, like calloc(1, bytes); NULL when out of memory; free() it. */
void *optinc_zalloc_large(size_t bytes);

/* bytes not cleared, like malloc(bytes), for a buffer that is written from
 * its start before it is read (a file's bytes); free() or realloc() it. */
void *optinc_alloc_large(size_t bytes);

#endif
