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
#include "optinc/text.h"

const char *cli_shortest(char buf[CLI_SHORTEST_MAX], double x)
{
    return optinc_shortest(buf, x);
}

/* A JSON text is UTF-8 (RFC 8259), and a path may hold any bytes: each byte
 * that starts no well-formed sequence is written as U+FFFD, so the output
 * stays JSON and says where the name was not text. */
void cli_json_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        int n = optinc_utf8_length((const char *)p);
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else if (n)
            fwrite(p, 1, (size_t)n, f);
        else
            fputs("\\ufffd", f);
        p += n ? n : 1;
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
