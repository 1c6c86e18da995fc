/*
 * options.c - cli_parse(): one option table drives parsing, range checks and
 * --help (options.h).
 *
 * getopt_long does the scanning, so the command line behaves as users of
 * GNU tools expect: options and operands in any order, "--" ends the
 * options, a unique prefix of a long option stands for it.  The long-option
 * array is made from the table; each option's value index is 256 + its
 * place in the table, above every short option character.
 *
 * --help shows each option's default as the value its variable holds when
 * cli_parse() starts; the defaults are written down before the first option
 * is parsed, so "--lr 0.1 --help" still shows the real default.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "optinc/spec.h"
#include "optinc/text.h"

enum { HELP_WIDTH = 80, LEFT_MAX = 24, VALUE_MAX = 128 };

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    /* One write of the whole message: stderr is unbuffered, and under
     * mpirun the lines of several ranks and of mpirun itself interleave
     * piece by piece. */
    char msg[2048];
    int n = snprintf(msg, sizeof msg, "optinc %s: error: ", cmd);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof msg)
        n += vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof msg)
        snprintf(msg + n, sizeof msg - (size_t)n, "\nTry 'optinc %s --help'.\n", cmd);
    fputs(msg, stderr);
    return 2;
}

static int takes_arg(const cli_opt *o)
{
    return o->type != CLI_FLAG && o->type != CLI_SET;
}

/* Integers as the help and the messages write them: 2^64-1, 2^31-1 and
 * 2^34 read better than their digits. */
static void format_u64(char *buf, size_t n, uint64_t x)
{
    int k = 0;
    if (x == UINT64_MAX)
        snprintf(buf, n, "2^64-1");
    else if (x >= (1u << 20) && !(x & (x - 1))) {
        while ((1ull << k) != x)
            k++;
        snprintf(buf, n, "2^%d", k);
    } else if (x >= (1u << 20) && !((x + 1) & x)) {
        while ((1ull << k) != x + 1)
            k++;
        snprintf(buf, n, "2^%d-1", k);
    } else
        snprintf(buf, n, "%llu", (unsigned long long)x);
}

/* The range of a number: in messages "from 1 to 256", "> 0", "in [0, 1)";
 * in --help (terse) "1..256", "even, 2..16", "1..4096 each", "> 0",
 * "[0, 1)"; "" for an unbounded double and for the other types. */
static void range_text(const cli_opt *o, int terse, char *buf, size_t n)
{
    char a[40], b[40];
    buf[0] = '\0';
    if (o->type == CLI_DOUBLE) {
        cli_shortest(a, o->lo);
        cli_shortest(b, o->hi);
        if (isinf(o->lo) && isinf(o->hi))
            return;
        if (isinf(o->hi))
            snprintf(buf, n, "%s %s", o->flags & CLI_ABOVE ? ">" : ">=", a);
        else if (isinf(o->lo))
            snprintf(buf, n, "%s %s", o->flags & CLI_BELOW ? "<" : "<=", b);
        else
            snprintf(buf, n, "%s%c%s, %s%c", terse ? "" : "in ", o->flags & CLI_ABOVE ? '(' : '[',
                     a, b, o->flags & CLI_BELOW ? ')' : ']');
    } else if (o->type == CLI_INT || o->type == CLI_LONG || o->type == CLI_U64
               || o->type == CLI_INTS) {
        format_u64(a, sizeof a, o->min);
        format_u64(b, sizeof b, o->max);
        if (terse)
            snprintf(buf, n, "%s%s..%s%s", o->flags & CLI_EVEN ? "even, " : "", a, b,
                     o->type == CLI_INTS ? " each" : "");
        else
            snprintf(buf, n, "from %s to %s", a, b);
    }
}

/* "ring|optinc|exact" as "ring, optinc or exact". */
static void word_list(const char *bars, char *buf, size_t n)
{
    size_t k = 0;
    const char *last = strrchr(bars, '|');
    for (const char *p = bars; *p && k + 5 < n; p++) {
        if (*p != '|')
            buf[k++] = *p;
        else if (p == last)
            k += (size_t)snprintf(buf + k, n - k, " or ");
        else
            k += (size_t)snprintf(buf + k, n - k, ", ");
    }
    buf[k < n ? k : n - 1] = '\0';
}

/* The words of an enum joined by '|'. */
static void enum_words(const cli_opt *o, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; o->words[i] && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? "|" : "", o->words[i]);
}

/* The message for a value out of its type or range. */
static int bad_value(const char *cmd, const cli_opt *o, const char *arg)
{
    char what[160], range[120];
    if (o->type == CLI_ENUM || o->type == CLI_CALLBACK) {
        char bars[160];
        if (o->type == CLI_ENUM)
            enum_words(o, bars, sizeof bars);
        else
            snprintf(bars, sizeof bars, "%s", o->arg);
        word_list(bars, what, sizeof what);
        return cli_usage_error(cmd, "--%s takes %s, not '%s'", o->name, what, arg);
    }
    if ((o->type == CLI_STRING || o->type == CLI_PATH) && !*arg)
        return cli_usage_error(cmd, "--%s takes %s, not an empty string", o->name,
                               o->arg ? o->arg : "a value");
    if (o->type == CLI_PATH)
        return cli_usage_error(cmd, "--%s takes a path of at most %zu bytes", o->name,
                               o->size - 1);
    range_text(o, 0, range, sizeof range);
    if (o->type == CLI_INTS)
        return cli_usage_error(cmd, "--%s takes up to %zu integers %s, separated by commas, "
                               "not '%s'", o->name, o->size, range, arg);
    snprintf(what, sizeof what, "%s", o->what ? o->what
                                      : o->type == CLI_DOUBLE ? "a number"
                                      : o->flags & CLI_EVEN   ? "an even integer"
                                                              : "an integer");
    return cli_usage_error(cmd, "--%s takes %s%s%s, not '%s'", o->name, what,
                           *range ? " " : "", range, arg);
}

/* A whole decimal number >= 0: digits after an optional sign ("-0" is 0),
 * no blanks, as the numbers of the files. */
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (isspace((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || (*s == '-' && v != 0))
        return -1;
    *out = v;
    return 0;
}

static int in_range(const cli_opt *o, uint64_t v)
{
    return v >= o->min && v <= o->max && !(o->flags & CLI_EVEN && v % 2);
}

/* Every comma separates two values: an empty one ("1,,2", "1,") is refused,
 * not skipped, since the list would then mean something else than it says. */
static int parse_ints(const cli_opt *o, const char *arg)
{
    char *copy = strdup(arg);
    int n = 0, bad = !copy;
    for (char *t = copy, *next; t && !bad; t = next) {
        uint64_t v;
        next = strchr(t, ',');
        if (next)
            *next++ = '\0';
        bad = (size_t)n == o->size || !*t || parse_u64(t, &v) || !in_range(o, v);
        if (!bad)
            ((int *)o->dst)[n++] = (int)v;
    }
    free(copy);
    if (!bad)
        *o->count = n;
    return bad ? -1 : 0;
}

/* Stores arg (NULL for options without one) as o's value; 0, or -1 when
 * arg is not a value o takes. */
static int store(const cli_opt *o, const char *arg)
{
    uint64_t u;
    double d;
    optinc_token t;
    switch (o->type) {
    case CLI_FLAG: *(int *)o->dst = 1; return 0;
    case CLI_SET: *(int *)o->dst = o->set; return 0;
    case CLI_INT:
    case CLI_LONG:
    case CLI_U64:
        if (parse_u64(arg, &u) || !in_range(o, u))
            return -1;
        if (o->type == CLI_INT)
            *(int *)o->dst = (int)u;
        else if (o->type == CLI_LONG)
            *(long *)o->dst = (long)u;
        else
            *(uint64_t *)o->dst = u;
        return 0;
    case CLI_DOUBLE:
        /* a real in the one number grammar of the files (text.h) */
        t = (optinc_token){arg, (int)strnlen(arg, 256), 1};
        if (arg[t.len] || optinc_token_double(&t, &d))
            return -1;
        if (d < o->lo || d > o->hi
            || (o->flags & CLI_ABOVE && d == o->lo) || (o->flags & CLI_BELOW && d == o->hi))
            return -1;
        *(double *)o->dst = d;
        return 0;
    case CLI_STRING: /* a string option names something: a file, a name */
        if (!*arg && !(o->flags & CLI_EMPTY_OK))
            return -1;
        *(const char **)o->dst = arg;
        return 0;
    case CLI_PATH:
        if (!*arg || strlen(arg) >= o->size)
            return -1;
        memcpy(o->dst, arg, strlen(arg) + 1);
        return 0;
    case CLI_ENUM: {
        int i = optinc_word_index(o->words, arg ? arg : o->words[0]);
        if (i < 0)
            return -1;
        *(int *)o->dst = i;
        return 0;
    }
    case CLI_INTS: return parse_ints(o, arg);
    case CLI_CALLBACK: return o->parse(arg, o->dst) ? -1 : 0;
    default: return -1;
    }
}

/* ---- --help -------------------------------------------------------------- */

/* The value o holds now, as --help shows a default ("" for none). */
static void format_value(const cli_opt *o, char *buf, size_t n)
{
    buf[0] = '\0';
    if (o->dflt) {
        snprintf(buf, n, "%s", o->dflt);
        return;
    }
    switch (o->type) {
    case CLI_INT: snprintf(buf, n, "%d", *(const int *)o->dst); break;
    case CLI_LONG: snprintf(buf, n, "%ld", *(const long *)o->dst); break;
    case CLI_U64: snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)o->dst); break;
    case CLI_DOUBLE: {
        char s[40];
        snprintf(buf, n, "%s", cli_shortest(s, *(const double *)o->dst));
        break;
    }
    case CLI_STRING: {
        const char *s = *(const char *const *)o->dst;
        snprintf(buf, n, "%s", s ? s : "");
        break;
    }
    case CLI_PATH: snprintf(buf, n, "%s", (const char *)o->dst); break;
    case CLI_ENUM:
        if (!(o->flags & CLI_OPTIONAL))
            snprintf(buf, n, "%s", o->words[*(const int *)o->dst]);
        break;
    case CLI_INTS:
        for (int i = 0, k = 0; i < *o->count && (size_t)k < n; i++)
            k += snprintf(buf + k, n - (size_t)k, "%s%d", i ? "," : "", ((const int *)o->dst)[i]);
        break;
    default: break;
    }
}

/* "-o, --output NET.sp", "--detect field|intensity", "--calibrate[=local|refit]". */
static void left_column(const cli_opt *o, char *buf, size_t n)
{
    char words[160] = "";
    int k = o->short_name ? snprintf(buf, n, "-%c, --%s", o->short_name, o->name)
                          : snprintf(buf, n, "--%s", o->name);
    if (!takes_arg(o))
        return;
    if (o->type == CLI_ENUM && !o->arg)
        enum_words(o, words, sizeof words);
    else
        snprintf(words, sizeof words, "%s", o->arg ? o->arg : "VALUE");
    snprintf(buf + k, n - (size_t)k, o->flags & CLI_OPTIONAL ? "[=%s]" : " %s", words);
}

/* "-o DIR" (or "--name ARG"): how the usage line names a required option. */
static void short_form(const cli_opt *o, char *buf, size_t n)
{
    char left[200];
    left_column(o, left, sizeof left);
    if (o->short_name)   /* left is "-o, --output DIR": keep "-o" and " DIR" */
        snprintf(buf, n, "-%c%s", o->short_name, left + strlen("-o, --") + strlen(o->name));
    else
        snprintf(buf, n, "%s", left);
}

/* Writes text from column col on, wrapped at HELP_WIDTH with lines indented
 * to col. */
static void put_wrapped(FILE *f, const char *text, int col)
{
    int at = col;
    while (*text) {
        int word = (int)strcspn(text, " ");
        if (at > col && at + 1 + word > HELP_WIDTH) {
            fprintf(f, "\n%*s", col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', f);
            at++;
        }
        fprintf(f, "%.*s", word, text);
        at += word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', f);
}

static void print_help(const cli_cmd *cmd, const cli_opt *opts, char (*dflt)[VALUE_MAX])
{
    int width = (int)strlen("-h, --help");
    char left[200], text[600], range[120];
    printf("usage: optinc %s%s%s", cmd->name, cmd->operands ? " " : "",
           cmd->operands ? cmd->operands : "");
    for (const cli_opt *o = opts; o->type != CLI_END; o++)
        if (o->flags & CLI_REQUIRED) {
            short_form(o, left, sizeof left);
            printf(" %s", left);
        }
    printf(" [options]\n");
    if (cmd->more_usage)
        printf("       optinc %s %s\n", cmd->name, cmd->more_usage);
    printf("%s\n", cmd->about);
    for (const cli_opt *o = opts; o->type != CLI_END; o++) {
        if (o->type == CLI_GROUP)
            continue;
        left_column(o, left, sizeof left);
        int n = (int)strlen(left);
        if (n <= LEFT_MAX && n > width)
            width = n;
    }
    for (const cli_opt *o = opts; o->type != CLI_END; o++) {
        size_t i = (size_t)(o - opts);
        if (o->type == CLI_GROUP) {
            printf("%s\n", o->help);
            continue;
        }
        left_column(o, left, sizeof left);
        range_text(o, 1, range, sizeof range);
        const char *d = dflt[i];
        snprintf(text, sizeof text, "%s%s%s%s%s%s%s", o->help, *range || *d ? " (" : "", range,
                 *range && *d ? "; " : "", *d ? "default " : "", d, *range || *d ? ")" : "");
        int n = printf("  %-*s", width, left);
        if (n > 2 + width) {
            printf("\n%*s", 4 + width, "");
        } else
            printf("  ");
        put_wrapped(stdout, text, 4 + width);
    }
    printf("  %-*s  print this help and exit\n", width, "-h, --help");
    printf("See optinc-%.*s(1).\n", (int)strcspn(cmd->name, " "), cmd->name);
}

/* ---- parsing ------------------------------------------------------------- */

/* The operand names of cmd: "NET.sp|SPEC" as "NET.sp or SPEC"; how many are
 * required and how many allowed. */
static int operand_names(const cli_cmd *cmd, char names[CLI_MAX_OPERANDS][80], int *required)
{
    int n = 0;
    *required = 0;
    for (const char *p = cmd->operands ? cmd->operands : ""; *p && n < CLI_MAX_OPERANDS;) {
        size_t len = strcspn(p, " ");
        int optional = p[0] == '[';
        char word[80];
        snprintf(word, sizeof word, "%.*s", (int)(len - (optional ? 2 : 0)), p + optional);
        word_list(word, names[n++], 80);
        *required += !optional;
        p += len;
        p += strspn(p, " ");
    }
    return n;
}

static int check_operands(const cli_cmd *cmd, char names[][80], int required, int allowed,
                          int count, const char *extra)
{
    char all[400] = "";
    if (count < required)
        return cli_usage_error(cmd->name, "missing %s", names[count]);
    if (count <= allowed)
        return 0;
    if (!allowed)
        return cli_usage_error(cmd->name, "unexpected argument '%s'", extra);
    for (int i = 0, k = 0; i < allowed; i++)
        k += snprintf(all + k, sizeof all - (size_t)k, "%s%s", i ? " and " : "", names[i]);
    return cli_usage_error(cmd->name, "%s%s only, got '%s' too", allowed == 1 ? "one " : "", all,
                           extra);
}

static int check_required(const cli_cmd *cmd, const cli_opt *opts, const char *given)
{
    char left[200];
    for (const cli_opt *o = opts; o->type != CLI_END; o++)
        if (o->flags & CLI_REQUIRED && !given[o - opts]) {
            short_form(o, left, sizeof left);
            return cli_usage_error(cmd->name, "missing %s%s%s%s", left, o->what ? " (" : "",
                                   o->what ? o->what : "", o->what ? ")" : "");
        }
    return 0;
}

int cli_parse(const cli_cmd *cmd, const cli_opt *opts, int argc, char **argv,
              const char *operands[CLI_MAX_OPERANDS])
{
    size_t n = 0;
    while (opts[n].type != CLI_END)
        n++;
    struct option *longs = calloc(n + 2, sizeof *longs);
    char (*dflt)[VALUE_MAX] = calloc(n + 1, sizeof *dflt);
    char *given = calloc(n + 1, 1), shorts[2 * 64 + 4] = "-h";
    if (!longs || !dflt || !given) {
        free(longs);
        free(dflt);
        free(given);
        fprintf(stderr, "optinc %s: error: out of memory\n", cmd->name);
        return 1;
    }
    size_t nl = 0, ns = 2;
    for (size_t i = 0; i < n; i++) {
        const cli_opt *o = &opts[i];
        if (o->type == CLI_GROUP)
            continue;
        format_value(o, dflt[i], VALUE_MAX);
        longs[nl++] = (struct option){o->name, !takes_arg(o) ? no_argument
                                               : o->flags & CLI_OPTIONAL ? optional_argument
                                                                         : required_argument,
                                      NULL, 256 + (int)i};
        if (o->short_name && ns + 3 < sizeof shorts) {
            shorts[ns++] = (char)o->short_name;
            if (takes_arg(o))
                shorts[ns++] = ':';
        }
    }
    shorts[ns] = '\0';
    longs[nl] = (struct option){"help", no_argument, NULL, 'h'};

    char names[CLI_MAX_OPERANDS][80];
    int required, allowed = operand_names(cmd, names, &required);
    int rc = -1, count = 0, ch;
    const char *extra = NULL;      /* the first operand past the allowed ones */
    for (int i = 0; i < CLI_MAX_OPERANDS; i++)
        operands[i] = NULL;
    optind = 1;
    opterr = 0;
    /* "-" in shorts hands back each operand in place (as 1) */
    while (rc < 0 && (ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const cli_opt *o = ch >= 256 ? &opts[ch - 256] : NULL;
        for (size_t i = 0; !o && ch > 1 && ch != 'h' && i < n; i++)
            if (opts[i].short_name == ch && opts[i].type != CLI_GROUP)
                o = &opts[i];
        if (ch == 1) {
            if (count < allowed)
                operands[count] = optarg;
            else if (!extra)
                extra = optarg;
            count++;
        } else if (ch == 'h') {
            print_help(cmd, opts, dflt);
            rc = 0;
        } else if (!o) {
            rc = cli_usage_error(cmd->name, "unknown or incomplete option '%s'",
                                 argv[optind - 1]);
        } else if (store(o, optarg)) {
            rc = bad_value(cmd->name, o, optarg);
        } else {
            given[o - opts] = 1;
            if (o->given)
                *o->given = 1;
        }
    }
    for (; rc < 0 && optind < argc; optind++, count++) {   /* the operands after "--" */
        if (count < allowed)
            operands[count] = argv[optind];
        else if (!extra)
            extra = argv[optind];
    }
    if (rc < 0) {
        rc = check_operands(cmd, names, required, allowed, count, extra);
        if (!rc)
            rc = check_required(cmd, opts, given);
        if (!rc)
            rc = -1;
    }
    free(longs);
    free(dflt);
    free(given);
    return rc;
}
