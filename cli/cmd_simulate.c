/* cmd_simulate.c - placeholder until the simulate command lands (see its issue). */
#include <stdio.h>
#include "cli.h"

int cmd_simulate(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "optinc simulate: not built yet\n");
    return 1;
}
