/* cmd_draw.c - placeholder until the draw command lands (see its issue). */
#include <stdio.h>
#include "cli.h"

int cmd_draw(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "optinc draw: not built yet\n");
    return 1;
}
