/*
 * train_env.c - what `optinc train` takes from its environment, which the
 * library never reads: the data set's folder, whether mpirun started this
 * process, and how many copies of it, and (for `optinc onn verify` too) the
 * default thread count.
 */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "optinc/allreduce.h"
#include "optinc/dataset.h"

int cli_threads_default(const char *cmd, int *threads)
{
    const char *s = getenv("OPTINC_THREADS");
    char *end;
    long t = s && *s ? strtol(s, &end, 10) : 1;
    if (s && *s && (*end || t < 1 || t > OPTINC_AR_MAX_THREADS))
        return cli_usage_error(cmd, "OPTINC_THREADS is '%s': use a whole number of 1..%d", s,
                               OPTINC_AR_MAX_THREADS);
    *threads = (int)t;
    return -1;
}

void cli_data_dir(char *dir, size_t size)
{
    const char *env = getenv("OPTINC_FASHION_MNIST_DIR");
    snprintf(dir, size, "%s", env && *env ? env : OPTINC_FASHION_MNIST_DIR);
}

/* A whole number from the environment variable name; -1 when unset or not one. */
static int env_int(const char *name)
{
    const char *s = getenv(name);
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : -1;
    return s && *s && !*end && v >= 0 && v <= 1 << 24 ? (int)v : -1;
}

int cli_mpirun_ranks(int *rank)
{
    int size = env_int("OMPI_COMM_WORLD_SIZE"), r = env_int("OMPI_COMM_WORLD_RANK");
    if (size < 0)
        size = env_int("PMI_SIZE");
    if (r < 0)
        r = env_int("PMIX_RANK");
    if (r < 0)
        r = env_int("PMI_RANK");
    if (rank)
        *rank = r > 0 ? r : 0;
    return size > 0 ? size : r >= 0 ? 1 : 0;
}
