/*
 * bigmem.c - allocations on transparent huge pages (bigmem.h).
 *
 * Each fresh 4 KB page costs a fault on first touch, and an array of tens
 * of megabytes read in random order (a hash table) also misses the TLB on
 * nearly every access: on the virtual machines we measured on, the faults
 * were a quarter of the decomposition's time at N = 1024.  Buffers of 4 MB
 * and more are therefore aligned to 2 MB and offered to the kernel as
 * transparent huge pages (honoured when the system's policy is "madvise" or
 * "always"; elsewhere they are plain pages).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "compiler/core/bigmem.h"

enum { HUGE_PAGE = 2 << 20 };

void *optinc_alloc_large(size_t bytes)
{
    void *p = NULL;
    if (bytes < 2 * HUGE_PAGE)
        return malloc(bytes ? bytes : 1);
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

void *optinc_zalloc_large(size_t bytes)
{
    if (bytes < 2 * HUGE_PAGE)
        return calloc(1, bytes ? bytes : 1);
    void *p = optinc_alloc_large(bytes);
    return p ? memset(p, 0, bytes) : NULL;
}
