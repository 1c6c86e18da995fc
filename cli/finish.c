/*
 * finish.c - how a run ends: its standard output written first, its output
 * files put in place after.
 *
 * Why in that order.  A run that prints a report or JSON and writes files
 * (compile --json -o, simulate --matrix, draw, onn train) has succeeded
 * only when both are written.  Were the files renamed first, a standard
 * output that then fails (a full disk behind a redirection, a reader that
 * went away) would exit 1 over files already replaced.  So a command
 * stages its files in one set (fileio.h), prints, and ends the set here:
 * standard output is flushed, and the set is renamed into place only when
 * that succeeded; otherwise its temporary files (and the folders made for
 * them) are removed and every old file stays.  A reader that goes away
 * before the flush ends the program by SIGPIPE, whose handler
 * (optinc_out_remove_on_signals, main.c) removes the same temporary files;
 * with SIGPIPE ignored the write fails with EPIPE and comes here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include "cli/cli.h"

optinc_status cli_flush(optinc_error *err)
{
    int e = fflush(stdout) != 0 ? errno : ferror(stdout) ? EIO : 0;
    if (!e)
        return OPTINC_OK;
    /* Reported once: what could not be written is dropped, so the program's
     * last flush (main.c) finds nothing left to fail on. */
    __fpurge(stdout);
    clearerr(stdout);
    return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "cannot write the standard output: %s",
                       strerror(e));
}

optinc_status cli_outs_end(optinc_outs *set, optinc_status st, optinc_error *err)
{
    if (!st)
        st = cli_flush(err);
    return optinc_outs_end(set, st, err);
}
