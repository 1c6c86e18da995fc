/*
 * train_env.c - what `optinc train` takes from its environment, which the
 * library never reads: whether mpirun started this process.
 */
#include <stdlib.h>
#include "cli.h"

int cli_under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL ||
           getenv("PMI_SIZE") != NULL;
}
