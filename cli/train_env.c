/*
 * train_env.c - what `optinc train` takes from its environment, which the
 * library never reads: the data set's folder, and whether mpirun started
 * this process.
 */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "optinc/dataset.h"

void cli_data_dir(char *dir, size_t size)
{
    const char *env = getenv("OPTINC_FASHION_MNIST_DIR");
    snprintf(dir, size, "%s", env && *env ? env : OPTINC_FASHION_MNIST_DIR);
}

int cli_under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL ||
           getenv("PMI_SIZE") != NULL;
}
