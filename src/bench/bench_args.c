/* strtok_r is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "bench/bench_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool bench_parse_int(const char *opt, const char *s, long lo, long hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || errno || *end || v < lo || v > hi) {
        fprintf(stderr, "strider bench: %s needs a whole number from %ld to %ld, got '%s'\n", opt, lo, hi,
                s ? s : "(nothing)");
        return false;
    }
    *out = (int)v;
    return true;
}

bool bench_parse_int_list(const char *opt, const char *s, long lo, long hi, int *out, int *count)
{
    *count = 0;
    if (!s || !*s) {
        fprintf(stderr, "strider bench: %s needs a comma-separated list of numbers from %ld to %ld\n", opt, lo, hi);
        return false;
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*count == BENCH_LIST_MAX) {
            fprintf(stderr, "strider bench: %s takes at most %d values\n", opt, BENCH_LIST_MAX);
            return false;
        }
        if (!bench_parse_int(opt, tok, lo, hi, &out[*count]))
            return false;
        (*count)++;
    }
    return *count > 0;
}

bool bench_parse_name_list(const char *opt, const char *s, const char *const *valid, int nvalid, int *out,
                           int *count)
{
    *count = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s ? s : "");
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int k = -1;
        for (int v = 0; v < nvalid; v++)
            if (strcmp(tok, valid[v]) == 0)
                k = v;
        if (k < 0 || *count == BENCH_LIST_MAX) {
            fprintf(stderr, "strider bench: unknown %s value '%s'; valid:", opt, tok);
            for (int v = 0; v < nvalid; v++)
                fprintf(stderr, "%s%s", v ? "," : " ", valid[v]);
            fputc('\n', stderr);
            return false;
        }
        out[(*count)++] = k;
    }
    if (*count == 0) {
        fprintf(stderr, "strider bench: %s needs at least one value\n", opt);
        return false;
    }
    return true;
}

int bench_parse_common(int argc, char **argv, int *i, bench_common *c)
{
    const char *a = argv[*i];
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(a, "--smoke") == 0) {
        c->smoke = true;
        return 1;
    }
    bool takes_value = strcmp(a, "--repeats") == 0 || strcmp(a, "--warmup") == 0 || strcmp(a, "--csv") == 0 ||
                       strcmp(a, "--json") == 0;
    if (!takes_value)
        return 0;
    if (!v) {
        fprintf(stderr, "strider bench: option %s needs a value\n", a);
        return -1;
    }
    (*i)++;
    if (strcmp(a, "--repeats") == 0)
        return bench_parse_int(a, v, 3, 100000, &c->repeats) ? 1 : -1;
    if (strcmp(a, "--warmup") == 0)
        return bench_parse_int(a, v, 0, 100000, &c->warmup) ? 1 : -1;
    if (strcmp(a, "--csv") == 0)
        c->csv = v;
    else
        c->json = v;
    return 1;
}
