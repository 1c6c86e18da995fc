/*
 * fileio.h - atomic output files, the matrix file formats (.npy, .csv) and
 * SHA-256.
 *
 * Every file optinc writes goes through optinc_out_open()/optinc_out_commit()
 * (atomic.c), alone or in a set of outputs that land together (below): the
 * bytes go to a temporary file beside the target, which is fsync'ed and
 * renamed into place only when complete, so a reader (or a kill) never sees
 * a partial file.  optinc_out_abort() removes the temporary file.  An
 * output is never allowed to destroy what is not a file of ours: a symbolic
 * link is followed and its target replaced (the link stays), a character
 * device or a FIFO (/dev/null, a pipe to another program) is written in
 * place, as a shell redirection would, and a folder, a block device or a
 * socket is refused before anything is written.  Writes to the stream o->f
 * never fail: the first error (a full disk) is kept and reported by
 * optinc_out_commit() (or optinc_outs_add()), with the file's name and the
 * system's reason, and the temporary file is removed.
 *
 * The matrix readers take an input in memory (text.h), as a fuzzer or a
 * resolver hands it to them; their path versions read a regular file whole,
 * without blocking on a FIFO or a device, under the input limit of their
 * read options (NULL: the default limits), and parse it.  The path helpers
 * (optinc_path_dir, optinc_path_join) are in text.h.
 */
#ifndef OPTINC_FILEIO_H
#define OPTINC_FILEIO_H

#include <stdio.h>
#include "optinc/error.h"
#include "optinc/matrix.h"
#include "optinc/text.h"

typedef struct optinc_out {
    FILE *f;
    char path[1024];      /* the target: the path given, or the file its link names */
    char tmp[1100];       /* the temporary file; "" when writing in place */
    int in_place;         /* a character device or FIFO, written directly */
    struct optinc_out_sink *sink;   /* the descriptor under f and its first write error */
    struct optinc_out_note *temp;   /* tmp as noted for the signals that remove it */
} optinc_out;

/* Has SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE and SIGXFSZ, where they
 * would end the program (not ignored, no handler of its own), remove every
 * temporary output file that exists before they end it.  For a program's
 * main(), in the thread that will write the outputs; a library leaves the
 * process's signals alone. */
void optinc_out_remove_on_signals(void);
/* Removes every temporary output file that exists, and every folder noted
 * below that is empty then (async-signal-safe, but complete only in the
 * thread that called optinc_out_remove_on_signals, outside
 * optinc_out_open: a file being made there is not noted yet). */
void optinc_out_remove_temporaries(void);
/* Ends the program by signal sig once the temporary files are removed: for
 * a handler of the program's own (async-signal-safe, any thread).  The
 * signal goes to the thread that called optinc_out_remove_on_signals, with
 * the handler above, and so waits for a file being made to be noted;
 * without that call, this thread removes what is noted and dies of sig. */
void optinc_out_end_by(int sig);
/* A folder a run made for its outputs, noted so that the signals above
 * remove it too (when empty) until it is forgotten, whether it stays or the
 * run removed it.  NULL when out of memory: not noted. */
struct optinc_out_note *optinc_out_note_folder(const char *path);
void optinc_out_forget(struct optinc_out_note *note);

/* x as the shortest %.Ng (N = 1..17) that reads back to x, in buf; returns
 * buf.  For outputs that must be exact and readable (JSON, the exports). */
#define OPTINC_SHORTEST_MAX 32
const char *optinc_shortest(char buf[OPTINC_SHORTEST_MAX], double x);

optinc_status optinc_out_open(optinc_out *o, const char *path, optinc_error *err);
optinc_status optinc_out_commit(optinc_out *o, optinc_error *err);
void optinc_out_abort(optinc_out *o);
/* The whole life of one output: opens path, has body(f, ctx, err) write
 * it through a 1 MiB buffer (fewer write(2) calls for big files), commits
 * it, or removes it when the body fails. */
typedef optinc_status (*optinc_out_body)(FILE *f, const void *ctx, optinc_error *err);
optinc_status optinc_out_write(const char *path, optinc_out_body body, const void *ctx,
                               optinc_error *err);

/* Outputs that only make sense together (an export and its companion
 * files, the drawings of one circuit, an ONN's spec and its matrices) land
 * together or not at all.  Each is written in full and closed as its
 * temporary file (optinc_outs_add takes an open, written output and closes
 * it; optinc_outs_write is optinc_out_write's counterpart), and
 * optinc_outs_end() renames them all into place, in the order they were
 * added, when st is OPTINC_OK, or removes them all when it is not: a
 * failure while writing (a full disk) leaves every old file as it was.
 * The renames are made holding an exclusive lock (flock(2)) on each folder
 * they go into, so two runs that end one set at once (two exports to one
 * name) leave the whole set of one of them, never a mix: the later waits
 * for the earlier's renames and puts its own over them.  Only the renames
 * are locked, not the writing, and the lock leaves no file behind.
 * Only a rename that fails (rare: a file made immutable or a folder made
 * read-only meanwhile) leaves the outputs before it in place.  A set holds
 * names, not descriptors, so it may be large.  A zeroed optinc_outs is
 * empty; optinc_outs_end() empties it for another use, and returns st or
 * the first error of the renames. */
typedef struct optinc_outs {
    optinc_out *out;
    int n, cap;
    int placed;         /* after optinc_outs_end(): how many it put in place */
    struct optinc_outs_folder *made;   /* the folders made for it (optinc_outs_mkdir) */
    int n_made, cap_made;
} optinc_outs;
optinc_status optinc_outs_add(optinc_outs *s, optinc_out *o, optinc_error *err);
optinc_status optinc_outs_write(optinc_outs *s, const char *path, optinc_out_body body,
                                const void *ctx, optinc_error *err);
optinc_status optinc_outs_end(optinc_outs *s, optinc_status st, optinc_error *err);
/* optinc_outs_write for a file its readers refuse past max_bytes: a body
 * that writes more adds nothing (status 2, the size and the limit in err,
 * which a caller may word better), and the bytes past max_bytes are
 * counted, not written, so a file no reader takes never fills the disk
 * first.  *bytes (when bytes is not NULL) gets the size the body wrote. */
optinc_status optinc_outs_write_max(optinc_outs *s, const char *path, size_t max_bytes,
                                    optinc_out_body body, const void *ctx, size_t *bytes,
                                    optinc_error *err);
/* Makes the folder dir for files of the set, with the folders above it that
 * are missing (mkdir -p).  The folders it makes belong to the set: when the
 * set ends in failure they are removed again, each only when empty, and so
 * they are by the signals that end the program (optinc_out_note_folder);
 * a folder that was there stays, also when a ".." in dir leads back into it
 * through one made here.  Status 2 when a part of dir is a file, 1 when a
 * folder cannot be made. */
optinc_status optinc_outs_mkdir(optinc_outs *s, const char *dir, optinc_error *err);
/* What optinc_out_open() would refuse, found without writing anything: an
 * output that is a folder, a block device, a socket or a dangling link, or
 * whose folder is missing or not writable (status 2).  For a run that
 * writes only after long work (`optinc onn train -o`), checked first. */
optinc_status optinc_out_check(const char *path, optinc_error *err);
/* 1 when a and b name one existing file (the same device and inode, links
 * followed), else 0: how a command finds an output that is one of its
 * inputs. */
int optinc_same_file(const char *a, const char *b);

/* Limits every matrix reader enforces, so a bad header or spec cannot ask for
 * an absurd allocation: each dimension 1..65536, at most 2^26 entries (1 GiB of
 * complex doubles). */
#define OPTINC_MATRIX_DIM_MAX 65536
#define OPTINC_MATRIX_ENTRIES_MAX (1L << 26)
/* The longest .npy header a reader accepts (numpy.save writes a few hundred
 * bytes), and the largest .npy and .csv files the path readers read: the
 * largest matrix allowed, as complex128 after the longest header, and as text
 * at 64 bytes an entry (numpy.savetxt writes a complex128 entry with its comma
 * in at most 58 bytes, "%.18e" parts and three-digit exponents included). */
#define OPTINC_NPY_HEADER_MAX (1L << 20)
#define OPTINC_NPY_BYTES_MAX \
    ((size_t)12 + OPTINC_NPY_HEADER_MAX + 16 * (size_t)OPTINC_MATRIX_ENTRIES_MAX)
#define OPTINC_CSV_BYTES_MAX (64 * (size_t)OPTINC_MATRIX_ENTRIES_MAX)

/* .npy (NumPy format 1.0/2.0, C order, little-endian float64 '<f8' or complex128
 * '<c16'; npy.c).  *is_complex tells which dtype the file held.  A 1-D array
 * of n entries is a 1 x n matrix.  Errors are at line 1, column = byte offset
 * + 1; *out is NULL on failure. */
optinc_status optinc_npy_parse(const optinc_input *in, optinc_cmat **out, int *is_complex,
                               optinc_error *err);
optinc_status optinc_npy_read(const char *path, const optinc_read_opts *opts, optinc_cmat **out,
                              int *is_complex, optinc_error *err);
/* Writes complex128 (or float64 when real_only and every imaginary part is 0). */
/* The same as a member of a set of outputs. */
optinc_status optinc_npy_add(optinc_outs *s, const char *path, const optinc_cmat *m,
                             int real_only, optinc_error *err);
optinc_status optinc_npy_write(const char *path, const optinc_cmat *m, int real_only,
                               optinc_error *err);
/* .csv (csv.c): one matrix row per line, comma-separated; a complex entry is
 * written "a+bj" / "a-bj" (NumPy's spelling); '#' lines are comments.
 * *is_complex is 1 when an entry has a nonzero imaginary part.  Errors give
 * the LINE:COL of the bad field; *out is NULL on failure. */
optinc_status optinc_csv_parse(const optinc_input *in, optinc_cmat **out, int *is_complex,
                               optinc_error *err);
optinc_status optinc_csv_read(const char *path, const optinc_read_opts *opts, optinc_cmat **out,
                              int *is_complex, optinc_error *err);

/* Parses a whole real or complex number in NumPy's spelling: "1.5", "-2e-3",
 * "2j", "1+2j", "1.5-0.5J", optionally in parentheses "(1+2j)".  Each part is
 * decimal, [+-]? (DIGITS [. DIGITS?] | . DIGITS) ([eE] [+-]? DIGITS)?, the
 * one grammar of every number optinc reads (no hexadecimal, inf, nan or
 * blanks).  Returns 0 and sets *z (and *had_imag: a 'j' part was written)
 * on success, -1 when s is not a number, 1 when a part is beyond the
 * largest double or is inf, infinity or nan (any case, signed: not numbers
 * of the grammar, but named so a reader can say why it refuses them). */
int optinc_parse_number(const char *s, double complex *z, int *had_imag);

/* sha256 of a file's bytes (FIPS 180-4, used for provenance headers; sha256.c). */
optinc_status optinc_sha256_file(const char *path, unsigned char digest[32], optinc_error *err);
void optinc_sha256(const void *data, size_t len, unsigned char digest[32]);

#endif
