/*
 * fuzz.h - the shared part of the libFuzzer targets in fuzz/ (make fuzz).
 *
 * optinc's readers take a path, as the program does, so each target writes
 * libFuzzer's bytes to one file in a private directory (on /dev/shm when it
 * exists: the write is then a memory copy) and calls the reader on it; the
 * reader sees exactly what it would see from a user.  The directory is made
 * once per process and removed at exit.
 *
 * The soft resource limits are lowered for fuzzing (optinc-limits(7)): a
 * 64-mode matrix exercises every code path a 1024-mode one does, and keeps
 * each execution in the microseconds, so the fuzzer spends its time on
 * inputs, not on decomposing big meshes.
 */
#ifndef OPTINC_FUZZ_H
#define OPTINC_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fz_dir[256];

static void fz_cleanup(void)
{
    char cmd[300];
    if (!fz_dir[0])
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fz_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz: could not remove %s\n", fz_dir);
}

/* Called once by libFuzzer before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(fz_dir, sizeof fz_dir, "%s/optinc-fuzz.XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(fz_dir)) {
        perror("fuzz: mkdtemp");
        exit(1);
    }
    atexit(fz_cleanup);
    setenv("OPTINC_MAX_MODES", "64", 0);
    setenv("OPTINC_MAX_CARDS", "100000", 0);
    return 0;
}

/* Writes the input to DIR/name and returns that path (static storage). */
static const char *fz_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fz_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

/* The lowered soft limits for the targets that call a reader with a buffer
 * and explicit read options instead of a file (the library reads no
 * environment variable). */
#include "optinc/limits.h"

static inline const optinc_limits *fz_limits(void)
{
    static optinc_limits lim;
    if (!lim.value[OPTINC_LIMIT_MODES]) {
        optinc_limits_init(&lim);
        lim.value[OPTINC_LIMIT_MODES] = 64;
        lim.value[OPTINC_LIMIT_CARDS] = 100000;
    }
    return &lim;
}

#endif
