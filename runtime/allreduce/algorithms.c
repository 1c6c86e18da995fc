/*
 * algorithms.c - the table of all-reduce algorithms (FFTW's habit: every
 * solver registered by one line).
 *
 * An algorithm is one file, ring.c say, that defines its entry (allreduce.h:
 * name, flags, network, implementations); this table lists the entries, and
 * everything else (the plan, both backends, the trainer, the cost model, the
 * command line and its --help) finds algorithms here, by name or in order.
 * A new algorithm is its file and one line in each of the two lists below.
 */
#include <stdio.h>
#include <string.h>
#include "optinc/allreduce.h"
#include "runtime/allreduce/plan.h"

extern const optinc_ar_algorithm optinc_ar_ring, optinc_ar_optinc, optinc_ar_exact,
    optinc_ar_quantized;

const optinc_ar_algorithm *const optinc_ar_algorithms[] = {
    &optinc_ar_ring,
    &optinc_ar_optinc,
    &optinc_ar_exact,
    &optinc_ar_quantized,
    NULL,
};

const optinc_ar_algorithm *optinc_ar_find(const char *name)
{
    for (int i = 0; optinc_ar_algorithms[i]; i++)
        if (!strcmp(name, optinc_ar_algorithms[i]->name))
            return optinc_ar_algorithms[i];
    return NULL;
}

const char *optinc_ar_join(const char *const *names, size_t n, const char *sep,
                           const char *last, char *buf, size_t size)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%s", !i ? "" : i + 1 < n ? sep : last,
                              names[i]);
    return buf;
}

const char *optinc_ar_names(const char *sep, const char *last, char *buf, size_t size)
{
    const char *names[sizeof optinc_ar_algorithms / sizeof optinc_ar_algorithms[0]];
    size_t n = 0;
    for (; optinc_ar_algorithms[n]; n++)
        names[n] = optinc_ar_algorithms[n]->name;
    return optinc_ar_join(names, n, sep, last, buf, size);
}
