/*
 * matrix_file.h - private: what the .npy and .csv readers (npy.c, csv.c)
 * share, so both refuse the same sizes with the same words and read their
 * files the same way.
 */
#ifndef OPTINC_CORE_MATRIX_FILE_H
#define OPTINC_CORE_MATRIX_FILE_H

#include "optinc/fileio.h"

/* Bad input at file:line:col unless a rows x cols matrix is within
 * OPTINC_MATRIX_DIM_MAX and OPTINC_MATRIX_ENTRIES_MAX; checked before the
 * matrix is allocated. */
static inline optinc_status optinc_matrix_file_dims(optinc_error *err, const char *file,
                                                    int line, int col, long rows, long cols)
{
    if (rows < 1 || cols < 1 || rows > OPTINC_MATRIX_DIM_MAX || cols > OPTINC_MATRIX_DIM_MAX)
        return optinc_fail(err, OPTINC_EINPUT, file, line, col,
                           "matrix of %ld x %ld: each dimension must be 1..%d", rows, cols,
                           OPTINC_MATRIX_DIM_MAX);
    if (rows * cols > OPTINC_MATRIX_ENTRIES_MAX)
        return optinc_fail(err, OPTINC_EINPUT, file, line, col,
                           "matrix of %ld x %ld has %ld entries, more than the limit of "
                           "%ld (2^26); split it into smaller layers", rows, cols,
                           rows * cols, OPTINC_MATRIX_ENTRIES_MAX);
    return OPTINC_OK;
}

static inline optinc_status optinc_matrix_file_no_memory(optinc_error *err, const char *file)
{
    return optinc_fail(err, OPTINC_ERUN, file, 0, 0, "out of memory reading '%s'", file);
}

/* A matrix reader of memory: optinc_npy_parse, optinc_csv_parse. */
typedef optinc_status (*optinc_matrix_parser)(const optinc_input *in, optinc_cmat **out,
                                              int *is_complex, optinc_error *err);

/* What optinc_matrix_file_read hands optinc_read_whole. */
typedef struct optinc_matrix_job {
    optinc_matrix_parser parse;
    optinc_cmat **out;
    int *is_complex;
} optinc_matrix_job;

static inline optinc_status optinc_matrix_job_run(const optinc_input *in,
                                                  const optinc_read_opts *opts, void *arg,
                                                  optinc_error *err)
{
    optinc_matrix_job *job = arg;
    return job->parse(in, job->out, job->is_complex, err);
}

/* The path version of a matrix reader: the regular file at path read whole
 * (at most max_bytes, and at most the input limit of opts), handed to
 * parse, freed.  *out is NULL and
 * *is_complex 0 unless the file is read and parsed. */
static inline optinc_status optinc_matrix_file_read(const char *path, size_t max_bytes,
                                                    const optinc_read_opts *opts,
                                                    optinc_matrix_parser parse,
                                                    optinc_cmat **out, int *is_complex,
                                                    optinc_error *err)
{
    optinc_matrix_job job = {parse, out, is_complex};
    *out = NULL;
    *is_complex = 0;
    return optinc_read_whole(path, max_bytes, opts, "matrix file", optinc_matrix_job_run, &job,
                             err);
}

#endif
