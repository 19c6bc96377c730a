/* bench_args: option parsing shared by the benchmarks: common options
 * (--repeats, --warmup, --csv, --json, --smoke) and comma-separated lists of
 * whole numbers or names, each checked against its valid range or set.
 * Errors print one usage line naming the option, the bad value and the
 * valid values, and make the benchmark exit 2.
 * Does NOT: allocate.
 */
#ifndef STRIDER_BENCH_BENCH_ARGS_H
#define STRIDER_BENCH_BENCH_ARGS_H

#include <stdbool.h>

enum { BENCH_LIST_MAX = 32 };

typedef struct bench_common {
    int repeats;       /* timed runs per row */
    int warmup;        /* untimed runs per row */
    const char *csv;
    const char *json;
    bool smoke;        /* tiny sizes: checks that everything runs and agrees */
} bench_common;

/* Parses a comma-separated list of whole numbers in [lo, hi]. */
bool bench_parse_int_list(const char *opt, const char *s, long lo, long hi, int *out, int *count);
/* Parses a comma-separated list of names out of valid[0..nvalid). out gets indices. */
bool bench_parse_name_list(const char *opt, const char *s, const char *const *valid, int nvalid, int *out,
                           int *count);
bool bench_parse_int(const char *opt, const char *s, long lo, long hi, int *out);
/* Consumes a common option at argv[*i]; returns 1 if consumed, 0 if not a
 * common option, -1 on a bad value. */
int bench_parse_common(int argc, char **argv, int *i, bench_common *c);

#endif
