/*
 * json.c - what the commands' --json output is made of: strings escaped,
 * and numbers in the shortest form that reads back to the same double
 * (0.05, not 0.050000000000000003, optinc_shortest), so the JSON is both
 * exact and readable.
 */
#include <math.h>
#include <stdio.h>
#include "cli/cli.h"
#include "optinc/fileio.h"

const char *cli_shortest(char buf[CLI_SHORTEST_MAX], double x)
{
    return optinc_shortest(buf, x);
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
