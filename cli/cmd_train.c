/* cmd_train.c - placeholder until the train command lands (see its issue). */
#include <stdio.h>
#include "cli.h"

int cmd_train(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "optinc train: not built yet\n");
    return 1;
}
