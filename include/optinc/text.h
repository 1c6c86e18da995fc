/*
 * text.h - inputs held in memory, the files they come from, and the one line
 * and token reader of optinc's line-oriented formats (netlist, calibration,
 * error histograms, .csv).
 *
 * Every reader of optinc takes its input as bytes with a display name (the
 * name its messages print, FILE in FILE:LINE:COL), the way libyaml's parser
 * takes a string beside a file.  A reader that needs another file (a
 * netlist's .include, a spec's `file:` matrix, a training spec's ONN) asks a
 * resolver for it by the name written in the input; the default resolver
 * reads it from the file system relative to the folder of the input that
 * names it.  So a fuzzer or a test hands a reader a buffer and a resolver of
 * its own, and the path versions of the readers are thin wrappers.
 *
 * Positions.  Line numbers start at 1; a column is the byte offset in its
 * line plus 1, so a tab counts one column.  Lines end at '\n'; a '\r' before
 * it belongs to the line's blanks.
 *
 * A UTF-8 byte-order mark (the bytes EF BB BF, which some Windows editors
 * put first) that starts an input is not part of its text: the line reader
 * skips it, and the columns of line 1 count from the byte after it, as an
 * editor shows them and as libyaml does for a spec.  So every text format
 * of optinc accepts it alike.
 */
#ifndef OPTINC_TEXT_H
#define OPTINC_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/error.h"
#include "optinc/limits.h"

/* Bytes and the name messages give them.  Owns nothing. */
typedef struct optinc_input {
    const char *name;
    const char *data;
    size_t len;
} optinc_input;

/* The longest path a reader reads, '\0' included: a longer one is refused,
 * never cut (cut, it would name another file). */
#define OPTINC_PATH_BYTES 1024

/* A file read whole into memory: data[len] is an extra '\0'.  name is the
 * path it was read from, as the messages print it. */
typedef struct optinc_blob {
    char *data;
    size_t len;
    char name[OPTINC_PATH_BYTES];
} optinc_blob;

/* Reads the regular file at path whole, refusing, as bad input (status 2)
 * and without blocking, what is not a regular file (a FIFO, a device, a
 * folder) and a file larger than max_bytes.  what names the file in messages
 * ("netlist", "calibration file").  On failure *b is empty. */
optinc_status optinc_blob_read(const char *path, size_t max_bytes, const char *what,
                               optinc_blob *b, optinc_error *err);
/* optinc_blob_read under the input limit of lim too (OPTINC_LIMIT_INPUT_BYTES;
 * NULL: its default): the file may hold at most the smaller of max_bytes and
 * that limit, and when the limit is the smaller the message names it and
 * says how to raise it. */
optinc_status optinc_blob_read_limited(const char *path, size_t max_bytes,
                                       const optinc_limits *lim, const char *what,
                                       optinc_blob *b, optinc_error *err);
/* The check optinc_blob_read_limited makes of a size, for inputs that come
 * another way (a buffer, the files of a netlist together): bad input at
 * name unless len is at most max_bytes and lim's input limit. */
optinc_status optinc_input_size_check(const char *name, const char *what, uint64_t len,
                                      size_t max_bytes, const optinc_limits *lim,
                                      optinc_error *err);
/* The most bytes that check lets through: max_bytes, or lim's input limit
 * when that is smaller.  For a writer whose file must be one the reader
 * takes. */
size_t optinc_input_bytes_max(size_t max_bytes, const optinc_limits *lim);
/* Opens the file at path for reading without blocking (opening a FIFO
 * would wait for a writer) and refuses, as bad input and before anything is
 * read, what is not a regular file; *fd and *size are its descriptor and
 * size.  For readers that stream a file instead of reading it whole. */
optinc_status optinc_open_regular(const char *path, const char *what, int *fd, uint64_t *size,
                                  optinc_error *err);
void optinc_blob_free(optinc_blob *b);
/* The input view of a blob. */
optinc_input optinc_blob_input(const optinc_blob *b);

/* Finds the file an input names: from is the display name of the input that
 * names it, rel the name as written there.  Fills *out (freed by the caller
 * with optinc_blob_free); max_bytes and what as for optinc_blob_read. */
typedef optinc_status (*optinc_resolver)(void *ctx, const char *from, const char *rel,
                                         size_t max_bytes, const char *what, optinc_blob *out,
                                         optinc_error *err);

/* The default resolver: rel from the file system, relative to the folder of
 * from (absolute when rel starts with '/'); ctx is unused.  A joined path
 * longer than OPTINC_PATH_BYTES - 1 is bad input. */
optinc_status optinc_resolve_file(void *ctx, const char *from, const char *rel,
                                  size_t max_bytes, const char *what, optinc_blob *out,
                                  optinc_error *err);

/* The paths the default resolver joins: the folder of path into dir ("."
 * for a bare file name, as dirname(3) gives it); dir and rel joined into
 * out (rel itself when it is absolute or dir is "." or empty).  Each
 * returns 0, or -1 when the result did not fit in size bytes and was cut. */
int optinc_path_dir(const char *path, char *dir, size_t size);

/* The length of the well-formed UTF-8 sequence (RFC 3629) that starts s
 * (1 for an ASCII byte, '\0' included), or 0 when s starts none: a stray
 * continuation byte, an overlong form, a surrogate, a cut sequence. */
int optinc_utf8_length(const char *s);
int optinc_path_join(const char *dir, const char *rel, char *out, size_t size);

/* What every reader takes besides its input.  A NULL options pointer, or
 * NULL members, mean the default limits, optinc_resolve_file and no folder
 * besides the top input's for its includes (optinc_read_within). */
typedef struct optinc_read_opts {
    const optinc_limits *limits;
    optinc_resolver resolve;
    void *resolve_ctx;
    /* Folders, separated by ':', whose files a netlist may .include besides
     * those of its own folder (the optinc program: OPTINC_INCLUDE_PATH).
     * Names are still resolved relative to the including file: these
     * folders allow, they are not searched. */
    const char *include_path;
} optinc_read_opts;

/* Resolves rel named in from through opts (or the default resolver), under
 * the input limit of opts' limits as optinc_blob_read_limited. */
optinc_status optinc_read_resolve(const optinc_read_opts *opts, const char *from,
                                  const char *rel, size_t max_bytes, const char *what,
                                  optinc_blob *out, optinc_error *err);
/* Where a netlist's .include may read (optinc-netlist(5)): refuses, as bad
 * input, the file that rel named in from is on the file system (the path
 * optinc_resolve_file reads) when, its "..", "." and symbolic links
 * resolved (realpath(3)), it lies outside the folder of top, the input the
 * reading started from, and outside every folder of opts->include_path.
 * Checked before the file is opened, so what is refused is never read
 * (nor a device opened).  A name the file system does not hold passes:
 * the resolver then says it is missing, or serves it from memory, where
 * there are no folders to keep to.  Relative folders of include_path are
 * relative to the working directory. */
optinc_status optinc_read_within(const optinc_read_opts *opts, const char *top,
                                 const char *from, const char *rel, const char *what,
                                 optinc_error *err);
/* The limits of opts (NULL: the defaults). */
const optinc_limits *optinc_read_limits(const optinc_read_opts *opts);

/* The in-memory entry point of a reader, as optinc_read_whole hands it a
 * file: in, the caller's opts, and arg (where the reader puts its result). */
typedef optinc_status (*optinc_input_reader)(const optinc_input *in,
                                             const optinc_read_opts *opts, void *arg,
                                             optinc_error *err);
/* The path entry point of every reader: reads the file at path whole, as
 * optinc_blob_read_limited does with max_bytes and the input limit of opts
 * (what names it in messages), hands it to read and frees it. */
optinc_status optinc_read_whole(const char *path, size_t max_bytes, const optinc_read_opts *opts,
                                const char *what, optinc_input_reader read, void *arg,
                                optinc_error *err);

/* ------------------------------------------------------------------------
 * The line reader.
 */

/* One physical line of an input. */
typedef struct optinc_line {
    const char *s;        /* its first byte (not '\0'-terminated) */
    size_t len;           /* without the '\n' */
    size_t off;           /* offset of s in the input */
    int number;           /* 1-based */
} optinc_line;

typedef struct optinc_lines {
    optinc_input in;
    size_t next;          /* offset of the next line */
    int number;           /* of the line last returned */
} optinc_lines;

/* Starts reading in line by line, after its byte-order mark if it has one.
 * A text format holds no NUL byte: one is bad input at its position ("NUL
 * byte: a WHAT is a text file"), which is why this and not each reader
 * checks. */
optinc_status optinc_lines_init(optinc_lines *r, const optinc_input *in, const char *what,
                                optinc_error *err);
/* The next line into *l; 0 at the end of the input. */
int optinc_lines_next(optinc_lines *r, optinc_line *l);

/* Line and column of byte offset off of in (off may be in->len: the end). */
void optinc_text_position(const optinc_input *in, size_t off, int *line, int *col);

/* One blank-separated token of a line. */
typedef struct optinc_token {
    const char *s;
    int len;
    int col;              /* 1-based column in its line */
} optinc_token;

/* Splits l at blanks (space, tab, '\r', '\f', '\v') into t[0 .. max); a
 * comment character (0: none) ends the line.  Returns the number of tokens,
 * which may exceed max (only max are stored). */
int optinc_tokens(const optinc_line *l, char comment, optinc_token *t, int max);
/* 1 when the token is exactly s. */
int optinc_token_is(const optinc_token *t, const char *s);
/* The token as a C string in buf; -1 when it does not fit. */
int optinc_token_cstr(const optinc_token *t, char *buf, size_t size);
/* The token as a whole decimal number / a finite decimal number (the
 * grammar of optinc_parse_number, without a 'j' part, and not so small it
 * reads as 0, as 1e-400 would); -1 when it is not one. */
int optinc_token_long(const optinc_token *t, long *v);
int optinc_token_double(const optinc_token *t, double *v);

#endif
