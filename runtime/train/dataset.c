/*
 * dataset.c - IDX image/label files through zlib (see dataset.h).
 *
 * The IDX format is a big-endian header (magic 0x000008TT with TT the number
 * of dimensions, then one u32 per dimension) followed by the unsigned bytes.
 * gzdopen/gzread read gzip'd and plain files alike, and gzbuffer gives them a
 * large buffer: the 26 MB training images decompress in a fraction of a
 * second.  Every header field is checked, and a short read is reported as a
 * truncated file rather than trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "compiler/core/freeall.h"
#include "optinc/dataset.h"

#define IDX_IMAGES 0x00000803u
#define IDX_LABELS 0x00000801u

/* Reads exactly len bytes; 0 on success. */
static int read_all(gzFile f, void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len) {
        unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned)len;
        int got = gzread(f, p, chunk);
        if (got <= 0)
            return -1;
        p += got;
        len -= (size_t)got;
    }
    return 0;
}

static int read_u32(gzFile f, uint32_t *v)
{
    unsigned char b[4];
    if (read_all(f, b, 4))
        return -1;
    *v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    return 0;
}

/* Opens an IDX file, checks its magic, reads its dimensions.  The file is
 * opened without blocking and must be a regular file: gzopen() on a FIFO
 * would wait for a writer for ever. */
static optinc_status idx_open(const char *path, uint32_t magic, uint32_t *dims, gzFile *out,
                              optinc_error *err)
{
    struct stat sb;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "cannot open: %s", strerror(errno));
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || flags < 0 ||
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
        close(fd);
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "not a regular file; give the path "
                           "of an IDX file");
    }
    gzFile f = gzdopen(fd, "rb");
    if (!f) {
        close(fd);
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "out of memory opening the file");
    }
    gzbuffer(f, 1 << 20);
    uint32_t m;
    if (read_u32(f, &m)) {
        gzclose(f);
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                           "truncated IDX file: no 4-byte magic number");
    }
    if (m != magic) {
        gzclose(f);
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                           "IDX magic 0x%08x, expected 0x%08x (%s): give the %s file of the pair",
                           m, magic, magic == IDX_IMAGES ? "images" : "labels",
                           magic == IDX_IMAGES ? "images" : "labels");
    }
    int nd = (int)(magic & 0xff);
    for (int d = 0; d < nd; d++)
        if (read_u32(f, &dims[d])) {
            gzclose(f);
            return optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                               "truncated IDX header: %d dimensions announced", nd);
        }
    *out = f;
    return OPTINC_OK;
}

optinc_status optinc_dataset_load_idx(const char *images, const char *labels, int limit,
                                      optinc_dataset **out, optinc_error *err)
{
    *out = NULL;
    uint32_t di[3], dl[1];
    gzFile fi, fl;
    optinc_status st = idx_open(images, IDX_IMAGES, di, &fi, err);
    if (st)
        return st;
    if ((st = idx_open(labels, IDX_LABELS, dl, &fl, err))) {
        gzclose(fi);
        return st;
    }
    optinc_dataset *ds = calloc(1, sizeof *ds);
    if (!ds) {
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        goto done;
    }
    if (di[0] != dl[0] || di[0] == 0 || di[0] > (1u << 28) || di[1] == 0 || di[2] == 0 ||
        (uint64_t)di[1] * di[2] > (1u << 20)) {
        st = optinc_fail(err, OPTINC_EINPUT, images, 0, 0,
                         "%u images of %ux%u and %u labels in %s: give an image file and the "
                         "label file of the same split", di[0], di[1], di[2], dl[0], labels);
        goto done;
    }
    ds->n = limit > 0 && (uint32_t)limit < di[0] ? limit : (int)di[0];
    ds->rows = (int)di[1];
    ds->cols = (int)di[2];
    ds->features = ds->rows * ds->cols;
    ds->images = malloc((size_t)ds->n * (size_t)ds->features);
    ds->labels = malloc((size_t)ds->n);
    if (!ds->images || !ds->labels) {
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for %d images", ds->n);
        goto done;
    }
    if (read_all(fi, ds->images, (size_t)ds->n * (size_t)ds->features)) {
        st = optinc_fail(err, OPTINC_EINPUT, images, 0, 0,
                         "truncated IDX file: fewer than the %d images its header announces",
                         ds->n);
        goto done;
    }
    if (read_all(fl, ds->labels, (size_t)ds->n)) {
        st = optinc_fail(err, OPTINC_EINPUT, labels, 0, 0,
                         "truncated IDX file: fewer than the %d labels its header announces",
                         ds->n);
        goto done;
    }
    for (int i = 0; i < ds->n; i++) {
        if (ds->labels[i] > 99) {
            st = optinc_fail(err, OPTINC_EINPUT, labels, 0, 0,
                             "label %d of sample %d: classification labels are 0..99",
                             ds->labels[i], i);
            goto done;
        }
        if (ds->labels[i] + 1 > ds->classes)
            ds->classes = ds->labels[i] + 1;
    }
done:
    gzclose(fi);
    gzclose(fl);
    if (st)
        optinc_dataset_free(ds);
    else
        *out = ds;
    return st;
}

/* dir/base with ".gz" when that file exists, else dir/base; 0 when found. */
static int find_file(const char *dir, const char *base, char *path, size_t size)
{
    snprintf(path, size, "%s/%s.gz", dir, base);
    if (access(path, R_OK) == 0)
        return 0;
    snprintf(path, size, "%s/%s", dir, base);
    if (access(path, R_OK) == 0)
        return 0;
    snprintf(path, size, "%s/%s.gz", dir, base);
    return -1;
}

const char *const optinc_fashion_mnist_files[] = {
    "train-images-idx3-ubyte", "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", NULL};

optinc_status optinc_dataset_fashion_mnist(const char *dir, int test, int limit,
                                           optinc_dataset **out, optinc_error *err)
{
    *out = NULL;
    if (!dir || !*dir)
        dir = OPTINC_FASHION_MNIST_DIR;
    const char *const *split = optinc_fashion_mnist_files + (test ? 2 : 0);
    char images[1200], labels[1200];
    int missing = find_file(dir, split[0], images, sizeof images);
    missing |= find_file(dir, split[1], labels, sizeof labels);
    if (missing)
        return optinc_fail(err, OPTINC_EINPUT, access(images, R_OK) ? images : labels, 0, 0,
                           "Fashion-MNIST not found: install the Debian package "
                           "dataset-fashion-mnist (apt-get install dataset-fashion-mnist), or "
                           "give --data DIR with the four IDX files");
    return optinc_dataset_load_idx(images, labels, limit, out, err);
}

void optinc_dataset_free(optinc_dataset *ds)
{
    if (!ds)
        return;
    OPTINC_FREE_ALL(ds->images, ds->labels, ds);
}
