/*
 * limits.c - the soft resource limits (optinc-limits(7)) and their text.
 *
 * The soft limits are read from the environment on every call rather than
 * once, so a program (or a test) that sets OPTINC_MAX_MODES before loading a
 * spec gets what it asked for, and the library keeps no global state.  A
 * value that is not a whole number in 1..cap is ignored: the messages print
 * the limit in force, so a typo in the variable shows there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "optinc/limits.h"

static const struct {
    const char *name;
    long def, cap;
} limits[] = {
    [OPTINC_LIMIT_MODES] = {"OPTINC_MAX_MODES", OPTINC_MODES_DEFAULT, OPTINC_MODES_CAP},
    [OPTINC_LIMIT_CARDS] = {"OPTINC_MAX_CARDS", OPTINC_CARDS_DEFAULT, OPTINC_CARDS_CAP},
};

long optinc_limit(optinc_limit_id id)
{
    const char *s = getenv(limits[id].name);
    char *end;
    if (!s || !*s)
        return limits[id].def;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || *end || v < 1 || v > limits[id].cap ? limits[id].def : v;
}

const char *optinc_limit_name(optinc_limit_id id) { return limits[id].name; }

char *optinc_limit_text(optinc_limit_id id, char *buf, unsigned size)
{
    snprintf(buf, size, "the limit of %ld (%s); to go past it set the environment "
             "variable %s (at most %ld)", optinc_limit(id), limits[id].name, limits[id].name,
             limits[id].cap);
    return buf;
}
