/*
 * vocab.c - the words of the enums of spec.h (mesh kinds, attenuator
 * positions, activations, learning-rate schedules), of
 * allreduce.preprocessing (all of them, and those an ONN computes) and of
 * the ONN's info: onn_rounding and onn_code.
 *
 * One table per word list, so that the spec loader, the netlist writer and
 * reader and the drawings cannot drift apart: a value added to an enum needs
 * one word here, and every reader then accepts it and every writer spells it
 * the same way.  Each table is indexed by its enum and ends with NULL.
 */
#include <stddef.h>
#include <string.h>
#include "optinc/spec.h"

const char *const optinc_mesh_kind_names[] = {"clements", "reck", NULL};
const char *const optinc_att_position_names[] = {"middle", "none", "input", "output", NULL};
const char *const optinc_activation_names[] = {"none", "relu_eo", "abs2", NULL};
const char *const optinc_preprocessing_names[] = {"digit_sums", "weighted_sum", "none", NULL};
const char *const optinc_onn_preprocessing_names[] = {"digit_sums", "weighted_sum", NULL};
const char *const optinc_onn_rounding_names[] = {"half_even", "half_up", NULL};
const char *const optinc_onn_code_names[] = {"binary", "gray", "offset", NULL};
const char *const optinc_lr_schedule_names[] = {"constant", "cosine", NULL};

int optinc_word_index(const char *const *names, const char *word)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], word))
            return i;
    return -1;
}
