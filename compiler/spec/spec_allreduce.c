/*
 * spec_allreduce.c - the allreduce: section of a spec (optinc-spec(5)): the
 * OptINC all-reduce of N servers, whose ONN sums the servers' b-bit gradient
 * codes sent as PAM4 symbols (2 bits each, so b is even), and the ONN's
 * hidden layers, approximation and cascade.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "optinc/fileio.h"
#include "compiler/spec/spec_internal.h"

/* The preprocessing P before the ONN; the first is the default. */

void optinc_spec_allreduce_defaults(optinc_spec_allreduce *a)
{
    a->enabled = 1;
    a->gradient_bits = OPTINC_SPEC_AR_DEFAULT_BITS;
    a->block_size = OPTINC_SPEC_AR_DEFAULT_BLOCK;
    snprintf(a->preprocessing, sizeof a->preprocessing, "%s", optinc_preprocessing_names[0]);
    a->hidden[0] = a->hidden[1] = 64;
    a->n_hidden = 2;
    a->activation = OPTINC_ACT_RELU_EO;
    a->cascade_levels = 1;
}

static optinc_status parse_onn(ctx *c, yaml_node_t *n, optinc_spec_allreduce *a)
{
    static const char *const keys[] = {"hidden", "activation", "approximation",
                                       "approximate_layers", NULL};
    static const char *const approx[] = {"none", "unitary_diagonal", NULL};
    const char *what = "allreduce.onn";
    int act = (int)a->activation;
    optinc_status st;
    yaml_node_t *v;
    if ((st = optinc_spec_check_map(c, n, what, keys)) ||
        ((v = optinc_spec_get(c, n, "hidden")) &&
         (st = optinc_spec_read_int_list(c, v, "hidden", what, 1, OPTINC_MATRIX_DIM_MAX,
                                         a->hidden, OPTINC_MAX_HIDDEN, &a->n_hidden))) ||
        (st = optinc_spec_read_enum(c, n, "activation", what, optinc_activation_names,
                                    &act)) ||
        (st = optinc_spec_read_enum(c, n, "approximation", what, approx,
                                    &a->approximate)))
        return st;
    a->activation = (optinc_activation)act;
    if (!(v = optinc_spec_get(c, n, "approximate_layers")) ||
        (v->type == YAML_SCALAR_NODE && !strcmp(scalar_of(v), "all")))
        return OPTINC_OK;
    if (v->type == YAML_SCALAR_NODE)
        return optinc_spec_fail(c, v, "'approximate_layers' in %s must be 'all' or a list of "
                                "layer numbers such as [4, 5, 6], got '%.60s'", what,
                                scalar_of(v));
    return optinc_spec_read_int_list(c, v, "approximate_layers", what, 1, a->n_hidden + 1,
                                     a->approximate_layers, OPTINC_MAX_HIDDEN + 1,
                                     &a->n_approximate_layers);
}

static optinc_status parse_cascade(ctx *c, yaml_node_t *n, optinc_spec_allreduce *a)
{
    static const char *const keys[] = {"fan_in", "levels", NULL};
    static const field fields[] = {
        {"fan_in", 'i', offsetof(optinc_spec_allreduce, cascade_fan_in), 2, 4096, 0, 0, NULL},
        {"levels", 'i', offsetof(optinc_spec_allreduce, cascade_levels), 1, 8, 0, 0, NULL},
        FIELDS_END};
    const char *what = "allreduce.cascade";
    optinc_status st;
    yaml_node_t *v;
    if ((st = optinc_spec_check_map(c, n, what, keys)) ||
        (st = optinc_spec_read_fields(c, n, what, fields, a)))
        return st;
    if (a->cascade_levels > 1 &&
        (st = optinc_spec_require(c, n, "fan_in", what, "give the number of inputs of each unit",
                                  &v)))
        return st;
    double served = pow(a->cascade_fan_in, a->cascade_levels);   /* exact below 2^53 */
    if (served != a->servers)
        return optinc_spec_fail(c, n, "cascade of %d levels with fan_in %d serves %d^%d = %.0f "
                                "servers, but allreduce.servers is %d; make fan_in^levels equal "
                                "servers (e.g. fan_in 4, levels 2 for 16 servers)",
                                a->cascade_levels, a->cascade_fan_in, a->cascade_fan_in,
                                a->cascade_levels, served, a->servers);
    return OPTINC_OK;
}

optinc_status optinc_spec_parse_allreduce(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"enabled", "servers", "gradient_bits", "symbol",
                                       "block_quantization", "preprocessing", "onn",
                                       "cascade", NULL};
    static const char *const bq_keys[] = {"block_size", NULL};
    static const char *const symbols[] = {"pam4", NULL};
    static const field fields[] = {
        {"servers", 'i', offsetof(optinc_spec_allreduce, servers), 2, 65536, 0, 0, NULL},
        {"gradient_bits", 'i', offsetof(optinc_spec_allreduce, gradient_bits), 2, 16, 0, 0,
         NULL},
        FIELDS_END};
    static const field bq_fields[] = {
        {"block_size", 'i', offsetof(optinc_spec_allreduce, block_size), 1, 1 << 30, 0, 0,
         NULL},
        FIELDS_END};
    const char *what = "allreduce", *bq_what = "allreduce.block_quantization";
    optinc_spec_allreduce *a = &c->spec->allreduce;
    int symbol = 0, prep = 0;
    optinc_status st;
    yaml_node_t *v;
    a->present = 1;
    if ((st = optinc_spec_check_map(c, n, what, keys)) ||
        (st = optinc_spec_read_bool(c, n, "enabled", what, &a->enabled)) ||
        (st = optinc_spec_require(c, n, "servers", what, "add 'servers: N' (N >= 2)", &v)) ||
        (st = optinc_spec_read_fields(c, n, what, fields, a)) ||
        (st = optinc_spec_read_enum(c, n, "symbol", what, symbols, &symbol)) ||
        (st = optinc_spec_read_enum(c, n, "preprocessing", what, optinc_preprocessing_names, &prep)))
        return st;
    if (a->gradient_bits % 2)
        return optinc_spec_fail(c, optinc_spec_get(c, n, "gradient_bits"), "'gradient_bits' in "
                                "allreduce is %d, an odd width; PAM4 carries 2 bits per symbol, "
                                "so use an even width such as 8 or 16", a->gradient_bits);
    snprintf(a->preprocessing, sizeof a->preprocessing, "%s", optinc_preprocessing_names[prep]);
    if ((v = optinc_spec_get(c, n, "preprocessing"))) {
        a->preprocessing_line = (int)v->start_mark.line + 1;
        a->preprocessing_column = (int)v->start_mark.column + 1;
    }
    a->cascade_fan_in = a->servers;
    if ((v = optinc_spec_get(c, n, "block_quantization")) &&
        ((st = optinc_spec_check_map(c, v, bq_what, bq_keys)) ||
         (st = optinc_spec_read_fields(c, v, bq_what, bq_fields, a))))
        return st;
    if ((v = optinc_spec_get(c, n, "onn")) && (st = parse_onn(c, v, a)))
        return st;
    if ((v = optinc_spec_get(c, n, "cascade")) && (st = parse_cascade(c, v, a)))
        return st;
    return OPTINC_OK;
}
