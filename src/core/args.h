/* args: one command-line parser for the game, `strider bench ...` and
 * `strider eval ...`: a program describes its options as a table of
 * {name, kind, destination, help}; args_parse() fills the destinations from
 * argv and args_usage() prints the usage text from the same table, so an
 * option, its check and its help line are written once.
 *
 * Kinds: a flag, a whole number or a number within a range, a text or a path
 * (shorter than the system's PATHS_MAX: a path is refused, never cut), one
 * of a set of names, a comma-separated list of whole numbers or of names,
 * and a value read by the program's own function (e.g. WxH).
 * Every mistake prints exactly one line on stderr,
 *   "<prog>: <what is wrong><hint>"
 * naming the option and the value (an unknown option, a missing value, a
 * value out of range or not in the set), and args_parse() returns
 * ARGS_ERROR: the program exits 2. --help (and -h) print the usage on stdout
 * and return ARGS_HELP.
 * Call order: fill an args_spec_t (static tables) -> args_parse() -> the
 * program's own checks across options, reported with args_error().
 * A table at file scope (static const) cannot point into the caller's
 * variables: it names its destinations as offsets (ARGS_AT) into one struct,
 * which the spec's base points to at parse time.
 * Does NOT: allocate, open files, or keep pointers past the call (string
 * destinations point into argv).
 */
#ifndef STRIDER_CORE_ARGS_H
#define STRIDER_CORE_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The most values a list option takes. */
enum { ARGS_LIST_MAX = 32 };

typedef enum args_kind_t {
    ARGS_TEXT,      /* not an option: HELP is printed as it stands in the usage (headings, notes) */
    ARGS_FLAG,      /* bool *: set */
    ARGS_INT,       /* int *: a whole number in [lo, hi] */
    ARGS_LONG,      /* long *: a whole number in [lo, hi] */
    ARGS_U32,       /* uint32_t *: a whole number in [lo, hi] (within 0..UINT32_MAX) */
    ARGS_DOUBLE,    /* double *: a number in [flo, fhi] (NaN is never in range) */
    ARGS_STRING,    /* const char **: any text, at most max_len bytes when max_len > 0 */
    ARGS_PATH,      /* const char **: a path shorter than PATHS_MAX */
    ARGS_CHOICE,    /* int *: the index of the value in choices */
    ARGS_INT_LIST,  /* int[ARGS_LIST_MAX] + *count: whole numbers in [lo, hi], comma-separated */
    ARGS_NAME_LIST, /* int[ARGS_LIST_MAX] + *count: indices into choices, comma-separated */
    ARGS_CUSTOM,    /* parse(value, dest); false: the option's error line */
} args_kind_t;

typedef struct args_opt_t {
    const char *name; /* "--frames" */
    args_kind_t kind;
    void *dest;        /* by kind, above; may be NULL where given or text say enough */
    const char *arg;   /* the value's name in the usage ("N", "FILE"); NULL for a flag */
    const char *help;  /* the usage line(s) after the name; a '\n' continues under the first; NULL: not listed */
    const char *label; /* the usage's left column when not "NAME ARG" (e.g. "--verbose | --quiet") */
    long lo, hi;       /* ARGS_INT, ARGS_LONG, ARGS_U32, ARGS_INT_LIST */
    double flo, fhi;   /* ARGS_DOUBLE */
    const char *const *choices; /* ARGS_CHOICE, ARGS_NAME_LIST */
    int nchoices;
    int *count;                                   /* the lists' value count */
    size_t max_len;                               /* ARGS_STRING */
    bool (*parse)(const char *value, void *dest); /* ARGS_CUSTOM */
    /* The line for a bad value, a format with one %s (the value), after
     * "<prog>: "; NULL: the kind's own line. ARGS_CUSTOM needs one. */
    const char *error;
    bool *given;       /* set when the option is given */
    const char **text; /* the value as given (options with a value) */
    /* For a table at file scope, instead of dest, given, text and count:
     * where they are in the struct at the spec's base, ARGS_AT(type, member);
     * 0: none. */
    size_t dest_at, given_at, text_at, count_at;
} args_opt_t;

/* MEMBER's place in TYPE for the *_at fields: one past its offset, so that
 * a field left out (0) names nothing. */
#define ARGS_AT(type, member) (offsetof(type, member) + 1)

typedef struct args_spec_t {
    const char *prog;    /* the errors' prefix: "strider", "strider bench" */
    const char *command; /* the unknown-option line's prefix, when not prog ("strider bench pfnn") */
    const char *hint;    /* after every error line: " (try --help)"; NULL: nothing */
    bool usage_on_error; /* an unknown option also prints the usage on stderr */
    const char *head;    /* the usage's first line(s) */
    const char *tail;    /* its last line(s); may be NULL */
    int label_width;     /* the usage's left column, characters */
    const args_opt_t *opts;
    int count;
    void *base; /* the struct the options' *_at fields point into; NULL: none do */
} args_spec_t;

typedef enum args_result_t { ARGS_OK, ARGS_HELP, ARGS_ERROR } args_result_t;

/* Reads argv[first..argc). */
args_result_t args_parse(const args_spec_t *spec, int argc, char **argv, int first);
void args_usage(const args_spec_t *spec, FILE *out);
/* One error line "<prog>: <message><hint>" on stderr, for the program's own
 * checks after args_parse(); returns ARGS_ERROR. */
args_result_t args_error(const args_spec_t *spec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* strtol over the whole of S within [lo, hi]; nothing printed (for values
 * made of parts, such as WxH). */
bool args_to_long(const char *s, long lo, long hi, long *out);

#endif
