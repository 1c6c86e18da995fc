/*
 * plot.c - the training curves of `optinc train --out DIR`: gnuplot draws
 * DIR/metrics.csv (written by the trainer) into curves.svg and curves.png,
 * from a script kept as curves.gp so that the plots can be redrawn by hand.
 *
 * This is the command line's, not the library's: it looks for gnuplot on
 * PATH and starts it.  Every file goes through the atomic outputs of
 * fileio.h, gnuplot's standard output included, so a failed or interrupted
 * plot leaves no half-written picture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "optinc/fileio.h"

static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[4096];
    while (path && *path) {
        size_t len = strcspn(path, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, prog);
        if (len && access(buf, X_OK) == 0)
            return 1;
        path += len + (path[len] == ':');
    }
    return 0;
}

/* s inside gnuplot single quotes, where a quote is written twice. */
static void gnuplot_quote(const char *s, char *out, size_t size)
{
    size_t k = 0;
    for (; *s && k + 3 < size; s++) {
        if (*s == '\'')
            out[k++] = '\'';
        out[k++] = *s;
    }
    out[k] = '\0';
}

const char *const cli_plot_files[] = {"curves.gp", "curves.svg", "curves.png", NULL};

/* Runs `gnuplot -e "fmt='FMT'" SCRIPT` and adds its standard output, as
 * dir/name, to the set. */
static optinc_status plot_one(optinc_outs *set, const char *dir, const char *script,
                              const char *fmt, const char *name, optinc_error *err)
{
    char cmd[4096], path[1100];
    size_t k = (size_t)snprintf(cmd, sizeof cmd, "gnuplot -e \"fmt='%s'\" '", fmt);
    for (const char *p = script; *p && k + 8 < sizeof cmd; p++)
        k += (size_t)snprintf(cmd + k, sizeof cmd - k, *p == '\'' ? "'\\''" : "%c", *p);
    snprintf(cmd + k, sizeof cmd - k, "' 2>/dev/null");
    snprintf(path, sizeof path, "%s/%s", dir, name);
    optinc_out o;
    optinc_status st = optinc_out_open(&o, path, err);
    if (st)
        return st;
    FILE *p = popen(cmd, "r");
    char buf[65536];
    size_t got, total = 0;
    while (p && (got = fread(buf, 1, sizeof buf, p)) > 0)
        total += fwrite(buf, 1, got, o.f);
    int rc = p ? pclose(p) : -1;
    if (rc != 0 || total == 0) {
        optinc_out_abort(&o);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                           "gnuplot failed to draw %s, so no plot was written; the curves "
                           "are in %s/metrics.csv", path, dir);
    }
    return optinc_outs_add(set, &o, err);
}

/* The script and its two pictures are one set (fileio.h): all three land,
 * or none does and the old ones stay.  gnuplot reads the script from its
 * temporary file, which holds what curves.gp will. */
optinc_status cli_plot_curves(const char *out_dir, const char *title, int *have_gnuplot,
                              optinc_error *err)
{
    *have_gnuplot = on_path("gnuplot");
    if (!*have_gnuplot)
        return OPTINC_OK;
    char script[1100], csv[1100], csvq[2300], titleq[600];
    snprintf(script, sizeof script, "%s/%s", out_dir, cli_plot_files[0]);
    snprintf(csv, sizeof csv, "%s/metrics.csv", out_dir);
    gnuplot_quote(csv, csvq, sizeof csvq);
    gnuplot_quote(title, titleq, sizeof titleq);
    optinc_outs set = {0};
    optinc_out o;
    optinc_status st = optinc_out_open(&o, script, err);
    if (st)
        return st;
    fprintf(o.f,
            "# Training curves of optinc train; run: gnuplot -e \"fmt='svg'\" curves.gp > "
            "curves.svg\n"
            "if (!exists(\"fmt\")) fmt = 'svg'\n"
            "if (fmt eq 'svg') set terminal svg size 960,420 dynamic font 'Sans,11'; "
            "else set terminal pngcairo size 960,420 font 'Sans,10'\n"
            "set datafile separator ','\n"
            "set key autotitle columnhead bottom right\n"
            "set grid\n"
            "csv = '%s'\n"
            "set multiplot layout 1,2 title '%s'\n"
            "set xlabel 'epoch'\nset ylabel 'training loss'\n"
            "plot csv using 1:3 with linespoints title 'training loss'\n"
            "set ylabel 'accuracy (%%)'\n"
            "plot csv using 1:($4*100) with linespoints title 'train (running)', "
            "csv using 1:($5*100) with linespoints title 'test'\n"
            "unset multiplot\n",
            csvq, titleq);
    char tmp[sizeof o.tmp];
    snprintf(tmp, sizeof tmp, "%s", o.in_place ? o.path : o.tmp);
    st = optinc_outs_add(&set, &o, err);
    if (!st)
        st = plot_one(&set, out_dir, tmp, "svg", cli_plot_files[1], err);
    if (!st)
        st = plot_one(&set, out_dir, tmp, "png", cli_plot_files[2], err);
    return optinc_outs_end(&set, st, err);
}
