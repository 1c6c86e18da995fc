/*
 * json.c - what the commands' --json output is made of: strings escaped,
 * and numbers in the shortest form that reads back to the same double
 * (0.05, not 0.050000000000000003), so the JSON is both exact and readable.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

/* The fewest significant digits are not always the shortest text (20 takes
 * one digit as "2e+01", two as "20"), so every precision that reads back is
 * tried and the shortest text kept; 17 digits always read back. */
const char *cli_shortest(char buf[CLI_SHORTEST_MAX], double x)
{
    char try[CLI_SHORTEST_MAX];
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

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

void cli_json_number(FILE *f, double x)
{
    char buf[CLI_SHORTEST_MAX];
    fputs(isfinite(x) ? cli_shortest(buf, x) : "null", f);
}

void cli_json_field(FILE *f, const char *key, double x)
{
    fputs(", ", f);
    cli_json_string(f, key);
    fputs(": ", f);
    cli_json_number(f, x);
}
