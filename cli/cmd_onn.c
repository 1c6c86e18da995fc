/* cmd_onn.c - placeholder until the onn command lands (see its issue). */
#include <stdio.h>
#include "cli.h"

int cmd_onn(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "optinc onn: not built yet\n");
    return 1;
}
