/*
 * error.h - the one error path of liboptinc.
 *
 * Library code never prints and never exits (Lua's habit).  A function that can
 * fail returns an optinc_status and fills an optinc_error: the file, the 1-based
 * line and column of the offending input (0 when there is none), and a message
 * that says what is wrong and how to fix it.  Only the command-line layer prints
 * "FILE:LINE:COL: error: MESSAGE" and maps the status onto the exit code.
 */
#ifndef OPTINC_ERROR_H
#define OPTINC_ERROR_H

#include <stddef.h>

typedef enum optinc_status {
    OPTINC_OK = 0,         /* success                                   exit 0 */
    OPTINC_ERUN = 1,       /* the run itself failed (I/O, no memory)    exit 1 */
    OPTINC_EINPUT = 2      /* bad input: spec, netlist, matrix, options exit 2 */
} optinc_status;

typedef struct optinc_error {
    char file[1024];       /* "" when the error is not tied to a file */
    int line;              /* 1-based; 0 when unknown */
    int column;            /* 1-based; 0 when unknown */
    char message[1024];
} optinc_error;

/* Fills err (when not NULL) and returns status, so callers can write
 * `return optinc_fail(err, OPTINC_EINPUT, path, line, col, "...", ...);`.
 * What a terminal would not show as text in the message (control bytes,
 * bytes that are not UTF-8, invisible characters such as U+FEFF) is written
 * out as \xHH or <U+XXXX>; so is the file name optinc_error_format()
 * prints, while err->file keeps the name as given. */
optinc_status optinc_fail(optinc_error *err, optinc_status status, const char *file,
                          int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Writes "FILE:LINE:COL: error: MESSAGE" (parts that are unknown are left out)
 * into buf; returns buf. */
char *optinc_error_format(const optinc_error *err, char *buf, size_t size);

/* Clears err to "no error". */
void optinc_error_clear(optinc_error *err);

#endif
