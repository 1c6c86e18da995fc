/*
 * shortest.c - a double in the shortest text that reads back to the same
 * double (0.05, not 0.050000000000000003), for the outputs that must be both
 * exact and readable: the command line's JSON and the exports
 * (optinc-export(1)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/fileio.h"

/* The fewest significant digits are not always the shortest text (20 takes
 * one digit as "2e+01", two as "20"), so every precision that reads back is
 * tried and the shortest text kept; 17 digits always read back. */
const char *optinc_shortest(char buf[OPTINC_SHORTEST_MAX], double x)
{
    char try[OPTINC_SHORTEST_MAX];
    size_t best = 0;
    for (int digits = 1; digits <= 17; digits++) {
        size_t n = (size_t)snprintf(try, sizeof try, "%.*g", digits, x);
        if ((!best || n < best) && (strtod(try, NULL) == x || digits == 17)) {
            memcpy(buf, try, n + 1);
            best = n;
        }
    }
    return buf;
}
