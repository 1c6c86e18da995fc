/*
 * error.c - filling and formatting optinc_error records (see error.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "optinc/error.h"

optinc_status optinc_fail(optinc_error *err, optinc_status status, const char *file,
                          int line, int column, const char *fmt, ...)
{
    if (!err)
        return status;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return status;
}

char *optinc_error_format(const optinc_error *err, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    if (err->file[0]) {
        n += snprintf(buf + n, size - n, "%s:", err->file);
        if (err->line > 0 && n < size)
            n += snprintf(buf + n, size - n, "%d:", err->line);
        if (err->line > 0 && err->column > 0 && n < size)
            n += snprintf(buf + n, size - n, "%d:", err->column);
        if (n < size)
            n += snprintf(buf + n, size - n, " ");
    }
    if (n < size)
        snprintf(buf + n, size - n, "error: %s", err->message);
    return buf;
}

void optinc_error_clear(optinc_error *err)
{
    memset(err, 0, sizeof *err);
}
