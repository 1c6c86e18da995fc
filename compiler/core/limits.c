/*
 * limits.c - the soft resource limits (optinc-limits(7)) and their text.
 *
 * The limits are a plain struct the caller owns, so the library keeps no
 * global state and never reads the environment: the optinc program fills
 * one from OPTINC_MAX_MODES / OPTINC_MAX_CARDS / OPTINC_MAX_INPUT_BYTES /
 * OPTINC_MAX_INCLUDES, a test or a fuzzer sets the values it wants.  A
 * value that is not a whole number in 1..cap is refused by
 * optinc_limits_set() and the default stays: the messages print the limit
 * in force, so a typo in the variable shows there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "optinc/limits.h"

static const struct {
    const char *name;
    long def, cap;
} limits[OPTINC_LIMIT_COUNT] = {
    [OPTINC_LIMIT_MODES] = {"OPTINC_MAX_MODES", OPTINC_MODES_DEFAULT, OPTINC_MODES_CAP},
    [OPTINC_LIMIT_CARDS] = {"OPTINC_MAX_CARDS", OPTINC_CARDS_DEFAULT, OPTINC_CARDS_CAP},
    [OPTINC_LIMIT_INPUT_BYTES] = {"OPTINC_MAX_INPUT_BYTES", OPTINC_INPUT_BYTES_DEFAULT,
                                  OPTINC_INPUT_BYTES_CAP},
    [OPTINC_LIMIT_INCLUDES] = {"OPTINC_MAX_INCLUDES", OPTINC_INCLUDES_DEFAULT,
                               OPTINC_INCLUDES_CAP},
};

void optinc_limits_init(optinc_limits *lim)
{
    for (int id = 0; id < OPTINC_LIMIT_COUNT; id++)
        lim->value[id] = limits[id].def;
}

int optinc_limits_set(optinc_limits *lim, optinc_limit_id id, const char *text)
{
    char *end;
    if (!text || !*text)
        return -1;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < 1 || v > limits[id].cap)
        return -1;
    lim->value[id] = v;
    return 0;
}

long optinc_limits_get(const optinc_limits *lim, optinc_limit_id id)
{
    return lim ? lim->value[id] : limits[id].def;
}

const char *optinc_limit_name(optinc_limit_id id) { return limits[id].name; }

char *optinc_limits_text(const optinc_limits *lim, optinc_limit_id id, char *buf,
                         unsigned size)
{
    snprintf(buf, size, "the limit of %ld (%s); to go past it set the environment "
             "variable %s (at most %ld)", optinc_limits_get(lim, id), limits[id].name,
             limits[id].name, limits[id].cap);
    return buf;
}
