/*
 * dataset.h - image classification data sets in the IDX format (MNIST,
 * Fashion-MNIST), read through zlib.
 *
 * Pixels stay bytes in memory (47 MB for the 60,000 training images rather
 * than 188 MB of floats, which matters when every MPI rank loads its own
 * copy); the trainer scales a batch to floats in [0, 1] as it builds it.
 * gzread reads gzip'd and plain files alike, so tests can write small
 * uncompressed IDX files.
 */
#ifndef OPTINC_DATASET_H
#define OPTINC_DATASET_H

#include <stdint.h>
#include "optinc/error.h"

/* Where the Debian package dataset-fashion-mnist installs its files. */
#define OPTINC_FASHION_MNIST_DIR "/usr/share/datasets/fashion-mnist"

typedef struct optinc_dataset {
    int n;                /* samples */
    int rows, cols;       /* image shape */
    int features;         /* rows * cols */
    int classes;          /* largest label + 1 */
    uint8_t *images;      /* n * features pixels, sample-major */
    uint8_t *labels;      /* n labels */
} optinc_dataset;

/* Reads an IDX image file (magic 0x00000803) and its label file (0x00000801),
 * gzip'd or not; keeps the first `limit` samples (0 = all). */
optinc_status optinc_dataset_load_idx(const char *images, const char *labels, int limit,
                                      optinc_dataset **out, optinc_error *err);
/* Fashion-MNIST from dir (NULL or "": OPTINC_FASHION_MNIST_DIR): the
 * training split or, when test is set, the
 * test split (train-* / t10k-*-idx?-ubyte.gz).  A missing file is reported
 * with the Debian package that provides it. */
optinc_status optinc_dataset_fashion_mnist(const char *dir, int test, int limit,
                                           optinc_dataset **out, optinc_error *err);
/* The four file names it looks for in dir, each also with ".gz" (the
 * training images and labels, then the test ones); NULL-terminated. */
extern const char *const optinc_fashion_mnist_files[];
void optinc_dataset_free(optinc_dataset *ds);

#endif
