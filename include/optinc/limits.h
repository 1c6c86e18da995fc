/*
 * limits.h - the resource limits optinc puts on its inputs (optinc-limits(7)).
 *
 * A spec or a netlist is a small program: a few bytes can ask for a
 * 10^6-mode mesh (5 * 10^11 MZIs), a hierarchy that flattens to 10^15 cards,
 * or YAML that makes a parser run for hours.  optinc refuses such inputs
 * before it allocates or computes anything, with a message that names the
 * limit and says how to get under it or raise it.  Two kinds:
 *
 *  - Soft limits on the size of the circuit and of the files read, which a
 *    bigger machine may want to raise.  Their defaults are what a laptop
 *    compiles in seconds; a netlist is written only when the reader accepts it
 *    (netlist.h).  They travel in an explicit
 *    optinc_limits that the caller fills (the library never reads the
 *    environment); the optinc program fills it from the environment
 *    variables of the same names, up to a hard cap that keeps every index
 *    within its integer type.
 *  - Hard limits on the shape of the text (nesting, counts that keep the
 *    readers' checks linear), compile-time constants here and in spec.h,
 *    netlist.h and fileio.h: no real input comes near them.
 */
#ifndef OPTINC_LIMITS_H
#define OPTINC_LIMITS_H

typedef enum optinc_limit_id {
    OPTINC_LIMIT_MODES,   /* OPTINC_MAX_MODES: rows and cols of a layer (modes of a mesh) */
    OPTINC_LIMIT_CARDS,   /* OPTINC_MAX_CARDS: cards of a compiled circuit or a flattened
                           * netlist (MZIs, phase shifters, attenuators, cell instances) */
    OPTINC_LIMIT_INPUT_BYTES, /* OPTINC_MAX_INPUT_BYTES: bytes of one input read whole (a
                           * spec, a matrix file, a calibration file, a histogram), and of
                           * a netlist with its includes together: each inclusion of a
                           * file counted again, and as at least
                           * OPTINC_NETLIST_INCLUDE_BYTES_MIN */
    OPTINC_LIMIT_INCLUDES, /* OPTINC_MAX_INCLUDES: .include lines a netlist's reading
                           * follows, each time its file is read (repeats counted) */
    OPTINC_LIMIT_COUNT
} optinc_limit_id;

#define OPTINC_MODES_DEFAULT 1024L        /* 523,776 MZIs per mesh, ~8 s to decompose */
#define OPTINC_MODES_CAP 65536L           /* = OPTINC_MATRIX_DIM_MAX */
#define OPTINC_CARDS_DEFAULT (1L << 23)   /* 8,388,608: eight 1024 x 1024 layers */
#define OPTINC_CARDS_CAP (1L << 28)       /* card ends are int indices: 4 per card */
/* A default that reads every input a circuit within the default modes takes
 * (a 1024 x 1024 complex .csv is 60 MB, its netlist 160 MB) and keeps a path
 * to a sparse or an endless file from filling the memory; the cap is the
 * largest reader's own limit (OPTINC_CSV_BYTES_MAX, a matrix of 2^26 entries
 * as text), above which no reader reads anyway. */
#define OPTINC_INPUT_BYTES_DEFAULT (256L << 20)
#define OPTINC_INPUT_BYTES_CAP (4L << 30)
/* A hand-written netlist includes a few files, a library of cells some
 * dozens; 10,000 is far past any of them and, at some 20 us an include
 * (resolve, open, read, lex), a bomb of includes stops at it in 0.2 s.
 * The cap keeps the files of one reading (an int id each, a few hundred
 * bytes of the reader's own) within a gigabyte; the bytes of the files
 * are held by OPTINC_MAX_INPUT_BYTES. */
#define OPTINC_INCLUDES_DEFAULT 10000L
#define OPTINC_INCLUDES_CAP (1L << 20)

/* The soft limits a reader or the compiler enforces.  A NULL
 * `const optinc_limits *` everywhere means the defaults. */
typedef struct optinc_limits {
    long value[OPTINC_LIMIT_COUNT];
} optinc_limits;

/* Every limit at its default. */
void optinc_limits_init(optinc_limits *lim);
/* Sets limit id from text, as the environment variable optinc_limit_name(id)
 * spells it: a whole decimal number in 1..cap.  Returns 0, or -1 and leaves
 * the limit unchanged when text is NULL, empty or not such a number (the
 * messages print the limit in force, so a typo shows there). */
int optinc_limits_set(optinc_limits *lim, optinc_limit_id id, const char *text);
/* The limit in force: lim's value, or the default when lim is NULL. */
long optinc_limits_get(const optinc_limits *lim, optinc_limit_id id);
/* "OPTINC_MAX_MODES": the name of the limit and of its environment variable. */
const char *optinc_limit_name(optinc_limit_id id);
/* "the limit of 1024 (OPTINC_MAX_MODES); to go past it set the environment
 * variable OPTINC_MAX_MODES (at most 65536)": the tail of every message about
 * a soft limit.  Returns buf. */
char *optinc_limits_text(const optinc_limits *lim, optinc_limit_id id, char *buf,
                         unsigned size);

/* Hard limits on the text. */
#define OPTINC_LAYERS_MAX 4096            /* layers, or matrices, in a spec or netlist */
#define OPTINC_SPEC_NODES_MAX (1L << 22)  /* YAML nodes in a spec: ~180 bytes each */
#define OPTINC_SPEC_ANCHORS_MAX 1024      /* YAML &anchors in a spec */
#define OPTINC_SPEC_ALIASES_MAX 65536     /* YAML *aliases in a spec */
#define OPTINC_NETLIST_NEST_MAX 64        /* levels of .subckt instantiation, top included */
#define OPTINC_NETLIST_PARAMS_MAX 4096    /* .param entries of one scope (globals, a cell) */

#endif
