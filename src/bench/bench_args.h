/* bench_args: what the benchmark commands share of core/args: the common
 * options (--repeats, --warmup, --csv, --json, --smoke) as table rows, and
 * one call that parses a command's table. Value errors print one line
 * "strider bench: ..." naming the option, the bad value and the valid
 * values; an unknown option prints "strider bench <what>: unknown option"
 * and the command's usage; both make the benchmark exit 2.
 * Call order: a command lists BENCH_COMMON_OPTS(&c) and its own rows ->
 * bench_parse_args() -> its own checks across options (args_error()).
 * Does NOT: allocate.
 */
#ifndef STRIDER_BENCH_BENCH_ARGS_H
#define STRIDER_BENCH_BENCH_ARGS_H

#include "core/args.h"

#include <stdbool.h>

enum { BENCH_LIST_MAX = ARGS_LIST_MAX };

typedef struct bench_common_t {
    int repeats; /* timed runs per row */
    int warmup;  /* untimed runs per row */
    const char *csv;
    const char *json;
    bool smoke; /* tiny sizes: checks that everything runs and agrees */
} bench_common_t;

/* The common options' rows (not listed in the usage: each command says
 * where they go with an ARGS_TEXT row, BENCH_COMMON_HELP at the end). */
#define BENCH_COMMON_OPTS(c)                                                                                           \
    {.name = "--repeats", .kind = ARGS_INT, .dest = &(c)->repeats, .lo = 3, .hi = 100000},                             \
        {.name = "--warmup", .kind = ARGS_INT, .dest = &(c)->warmup, .lo = 0, .hi = 100000},                           \
        {.name = "--csv", .kind = ARGS_PATH, .dest = &(c)->csv},                                                       \
        {.name = "--json", .kind = ARGS_PATH, .dest = &(c)->json},                                                     \
    {                                                                                                                  \
        .name = "--smoke", .kind = ARGS_FLAG, .dest = &(c)->smoke                                                      \
    }
#define BENCH_COMMON_HELP "  --repeats N --warmup N --csv PATH --json PATH --smoke\n"

/* Fills names with the built-in levels' names (for an ARGS_CHOICE or
 * ARGS_NAME_LIST row) and returns their count, at most max. */
int bench_level_names(const char **names, int max);
/* The index of name in names, or -1. */
int bench_level_index(const char *const *names, int count, const char *name);
/* An ARGS_CUSTOM parser for --size WxH (each side CLI_MIN_SIZE..4096): dest
 * is an app_options_t, whose width and height it sets. */
bool bench_parse_size(const char *s, void *dest);
/* The --size row: OPT an app_options_t *, HELP its line. */
#define BENCH_SIZE_OPT(opt, help_text)                                                                                 \
    {                                                                                                                  \
        .name = "--size", .kind = ARGS_CUSTOM, .dest = (opt), .parse = bench_parse_size, .arg = "WxH",                 \
        .help = (help_text), .error = "--size needs WxH, each from 64 to 4096, got '%s'"                               \
    }

/* The spec of `strider bench COMMAND` (COMMAND: "strider bench pfnn"). */
args_spec_t bench_args_spec(const char *command, const char *head, const args_opt_t *opts, int count);
/* Parses argv[2..] (argv[1] names the command): -1 to go on, else the
 * exit code (0 after --help, 2 after a usage error). */
int bench_parse_args(const args_spec_t *spec, int argc, char **argv);

#endif
