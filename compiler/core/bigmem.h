/*
 * bigmem.h - private: zeroed allocations of many megabytes on transparent
 * huge pages (bigmem.c), for the arrays that are large, fresh for every call
 * and touched all over: the decomposition's matrices and the netlist
 * reader's hash tables.
 */
#ifndef OPTINC_CORE_BIGMEM_H
#define OPTINC_CORE_BIGMEM_H

#include <stddef.h>

/* bytes zeroed, like calloc(1, bytes); NULL when out of memory; free() it. */
void *optinc_zalloc_large(size_t bytes);

#endif
