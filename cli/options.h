/*
 * options.h - the command line, declared once.  Each command (and each
 * `optinc onn` subcommand) describes its options in one table: the name,
 * the argument, one line of help, where the value goes and the range it
 * must lie in.  cli_parse() parses argv from that table (getopt_long
 * underneath, so unique prefixes of long options work), checks every value
 * against its range with one message shape,
 *
 *   optinc CMD: error: --seed takes an integer from 0 to 2^64-1, not '-1'
 *
 * and prints --help from the same table, with each option's range and its
 * default (the value the table's variable holds before parsing), so parsing,
 * checking and the help text cannot disagree.
 *
 * The options several commands take are defined once below (CLI_OPT_SEED,
 * ...): one spelling, one type and one range everywhere.  Where a command's
 * library cannot take the common range, the command's table says why.
 */
#ifndef OPTINC_CLI_OPTIONS_H
#define OPTINC_CLI_OPTIONS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cli_type {
    CLI_END = 0,    /* ends the table */
    CLI_GROUP,      /* not an option: a heading in --help (help is its text) */
    CLI_FLAG,       /* int set to 1 */
    CLI_SET,        /* int set to .set; of several such options the last one given wins */
    CLI_INT,        /* int in min..max */
    CLI_LONG,       /* long in min..max */
    CLI_U64,        /* uint64_t in min..max */
    CLI_DOUBLE,     /* finite double in the interval lo..hi (see CLI_ABOVE, CLI_BELOW) */
    CLI_STRING,     /* const char *, pointing into argv */
    CLI_PATH,       /* copied into a char array of .size bytes */
    CLI_ENUM,       /* int: the index of the argument in .words */
    CLI_INTS,       /* comma-separated ints in min..max, at most .size, their count in *count */
    CLI_CALLBACK    /* .parse(arg, dst) returns 0 when it takes arg; .arg lists the words */
} cli_type;

enum {
    CLI_EVEN = 1,       /* integers: even values only */
    CLI_ABOVE = 2,      /* doubles: greater than lo (lo itself is refused) */
    CLI_BELOW = 4,      /* doubles: less than hi */
    CLI_OPTIONAL = 8,   /* CLI_ENUM: --name alone means words[0], or --name=WORD */
    CLI_REQUIRED = 16,  /* the command cannot run without it */
    CLI_EMPTY_OK = 32   /* CLI_STRING: "" goes to the command, whose own check of the value
                           says more; any other empty string or path is refused here */
};

typedef struct cli_opt {
    const char *name;           /* the long name without "--" */
    int short_name;             /* 'o' for -o, or 0 */
    cli_type type;
    void *dst;                  /* the value (its C type follows .type) */
    const char *arg;            /* the argument's name in --help ("N", "FILE") */
    const char *help;           /* one line for --help */
    uint64_t min, max;          /* integers */
    double lo, hi;              /* doubles: -INFINITY / INFINITY for no bound */
    unsigned flags;
    const char *what;           /* the value in messages ("a chip count"); for a missing
                                   CLI_REQUIRED option, what it is for */
    const char *dflt;           /* the default as --help says it, when the initial value
                                   would mislead; "" says none */
    const char *const *words;   /* CLI_ENUM: the accepted words, NULL-ended */
    int set;                    /* CLI_SET: the value stored */
    size_t size;                /* CLI_PATH: bytes of the array; CLI_INTS: most values */
    int *count;                 /* CLI_INTS: how many were given */
    int *given;                 /* when not NULL: set to 1 when the option is given */
    int (*parse)(const char *arg, void *dst);   /* CLI_CALLBACK */
} cli_opt;

/* What --help says of a command besides its options: a constant at the top
 * of the command's file (for `optinc onn`, the table of its subcommands).
 * The option table goes to cli_parse() beside it, since its entries point
 * to the command's own variables. */
typedef struct cli_cmd {
    const char *name;           /* "compile", "onn verify": in messages and --help; its page
                                   is optinc-FIRST_WORD(1) */
    const char *operands;       /* "SPEC", "NET.sp|SPEC", "[SPEC]", "LEVEL1 LEVEL2", or NULL:
                                   one word per operand, optional ones in [ ] */
    const char *more_usage;     /* another form of the command for --help, or NULL */
    const char *about;          /* what the command does, for --help */
} cli_cmd;

/* The most operands a command takes. */
#define CLI_MAX_OPERANDS 4

/* Parses argv[1..argc-1] (argv[0] is the command's name) into the variables
 * of the option table opts (which ends with a CLI_END entry) and the
 * operands (in order, the missing ones NULL).  Returns -1 to go on, or the
 * exit status: 0 after printing --help, 2 after printing a usage error. */
int cli_parse(const cli_cmd *cmd, const cli_opt *opts, int argc, char **argv,
              const char *operands[CLI_MAX_OPERANDS]);

/* dst, checked at compile time to point to T. */
#define CLI_DST(T, p) ((void *)(1 ? (p) : (T *)NULL))

/* A flag (int set to 1) and a string option (const char *). */
#define CLI_OPT_FLAG(name, p, text) {name, 0, CLI_FLAG, CLI_DST(int, p), NULL, text, .flags = 0}
#define CLI_OPT_STRING(name, short_name, p, argname, text) \
    {name, short_name, CLI_STRING, CLI_DST(const char *, p), argname, text, .flags = 0}

/* ---- the options several commands share --------------------------------- */

/* Every seed is a uint64_t in the library (and in specs and netlists).
 * g (may be NULL) is set when the option is given; d (may be NULL) says the
 * default when it is not the variable's value. */
#define CLI_OPT_SEED(p, g, d, text) \
    {"seed", 0, CLI_U64, CLI_DST(uint64_t, p), "S", text, .min = 0, .max = UINT64_MAX, \
     .given = g, .dflt = d}
#define CLI_OPT_CHIP_SEED(p, g, d, text) \
    {"chip-seed", 0, CLI_U64, CLI_DST(uint64_t, p), "S", text, .min = 0, .max = UINT64_MAX, \
     .given = g, .dflt = d}
#define CLI_OPT_JSON(p, text) CLI_OPT_FLAG("json", p, text)
#define CLI_OPT_QUIET(p, text) CLI_OPT_FLAG("quiet", p, text)
/* The file or folder a command writes; fl is 0 or CLI_REQUIRED, why (may
 * be NULL) what a missing one is for. */
#define CLI_OPT_OUTPUT(p, argname, fl, why, text) \
    {"output", 'o', CLI_STRING, CLI_DST(const char *, p), argname, text, .flags = fl, \
     .what = why}
/* The form of a netlist written (optinc_netlist_options): --flatten and
 * --hierarchical set one variable, the last one given wins. */
#define CLI_OPT_FLATTEN(p) \
    {"flatten", 0, CLI_SET, CLI_DST(int, p), NULL, "one flat cell instead of one cell per layer", \
     .set = 1}
#define CLI_OPT_HIERARCHICAL(p) \
    {"hierarchical", 0, CLI_SET, CLI_DST(int, p), NULL, \
     "one cell per layer (the default)", .set = 0}
#define CLI_OPT_EXPAND_MZI(p) \
    CLI_OPT_FLAG("expand-mzi", p, "each MZI as phase shifters and 50:50 couplers")
#define CLI_OPT_CALIBRATION(p, text) CLI_OPT_STRING("calibration", 0, p, "FILE", text)
#define CLI_OPT_EPOCHS(p, g, text) \
    {"epochs", 0, CLI_INT, CLI_DST(int, p), "E", text, .min = 1, .max = 1000000, .given = g}
#define CLI_OPT_BATCH(p, g, text) \
    {"batch", 0, CLI_INT, CLI_DST(int, p), "B", text, .min = 1, .max = 1 << 20, .given = g}
#define CLI_OPT_LR(p, g, text) \
    {"lr", 0, CLI_DOUBLE, CLI_DST(double, p), "X", text, .lo = 0, .hi = INFINITY, \
     .flags = CLI_ABOVE, .given = g}
/* Random points, 0 for every point of the set.  Counts past 2^34 would take
 * days to check. */
#define CLI_OPT_SAMPLE(p, text) \
    {"sample", 0, CLI_U64, CLI_DST(uint64_t, p), "N", text, .min = 0, .max = 1ull << 34}
/* The static phase error of every phase shifter (--sigma, --phase-sigma), at
 * most a full turn: past 2 pi the phase is uniform noise, no chip. */
#define CLI_OPT_PHASE_SIGMA(name, p, g, text) \
    {name, 0, CLI_DOUBLE, CLI_DST(double, p), "RAD", text, .lo = 0, .hi = 2 * M_PI, \
     .what = "radians", .given = g}

/* A chip file (optinc-onn(1), CHIP FILES): the whole device model of the chip an ONN
 * is evaluated on. */
#define CLI_OPT_CHIP(p, g, text) \
    {"chip", 0, CLI_STRING, CLI_DST(const char *, p), "CHIP.yaml", text, .given = g}

#define CLI_OPT_GROUP(text) {NULL, 0, CLI_GROUP, NULL, NULL, text, .flags = 0}
#define CLI_OPT_END {NULL, 0, CLI_END, NULL, NULL, NULL, .flags = 0}

#endif
