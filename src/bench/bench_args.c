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

/* The items of a comma-separated list, in place: each call gives the next
 * item's start and length; false at the end. Empty items are items (of
 * length 0), so that the callers can refuse them; nothing is copied, so a
 * list of any length is read whole. */
typedef struct list_cursor {
    const char *p;
    bool done;
} list_cursor;

static bool list_next(list_cursor *c, const char **item, size_t *len)
{
    if (c->done)
        return false;
    const char *comma = strchr(c->p, ',');
    *item = c->p;
    *len = comma ? (size_t)(comma - c->p) : strlen(c->p);
    if (comma)
        c->p = comma + 1;
    else
        c->done = true;
    return true;
}

/* Checks the list as a whole and item K (0-based) of length LEN; one line
 * naming the option and the list on an empty item or too many items. */
static bool list_item_ok(const char *opt, const char *s, int k, size_t len, const char *valid)
{
    if (len == 0) {
        fprintf(stderr, "strider bench: %s: item %d of '%s' is empty; %s needs %s\n", opt, k + 1, s, opt, valid);
        return false;
    }
    if (k == BENCH_LIST_MAX) {
        fprintf(stderr, "strider bench: %s takes at most %d values\n", opt, BENCH_LIST_MAX);
        return false;
    }
    return true;
}

bool bench_parse_int_list(const char *opt, const char *s, long lo, long hi, int *out, int *count)
{
    *count = 0;
    char valid[96];
    snprintf(valid, sizeof valid, "a comma-separated list of whole numbers from %ld to %ld", lo, hi);
    if (!s || !*s) {
        fprintf(stderr, "strider bench: %s needs %s\n", opt, valid);
        return false;
    }
    list_cursor c = {.p = s};
    const char *item;
    size_t len;
    while (list_next(&c, &item, &len)) {
        if (!list_item_ok(opt, s, *count, len, valid))
            return false;
        char *end = NULL;
        errno = 0;
        long v = strtol(item, &end, 10);
        if (errno || end != item + len || v < lo || v > hi) {
            fprintf(stderr, "strider bench: %s needs a whole number from %ld to %ld, got '%.*s'\n", opt, lo, hi,
                    (int)len, item);
            return false;
        }
        out[(*count)++] = (int)v;
    }
    return true;
}

bool bench_parse_name_list(const char *opt, const char *s, const char *const *valid, int nvalid, int *out,
                           int *count)
{
    *count = 0;
    if (!s || !*s) {
        fprintf(stderr, "strider bench: %s needs at least one value\n", opt);
        return false;
    }
    list_cursor c = {.p = s};
    const char *item;
    size_t len;
    while (list_next(&c, &item, &len)) {
        if (!list_item_ok(opt, s, *count, len, "a comma-separated list of names"))
            return false;
        int k = -1;
        for (int v = 0; v < nvalid; v++)
            if (strlen(valid[v]) == len && strncmp(item, valid[v], len) == 0)
                k = v;
        if (k < 0) {
            fprintf(stderr, "strider bench: unknown %s value '%.*s'; valid:", opt, (int)len, item);
            for (int v = 0; v < nvalid; v++)
                fprintf(stderr, "%s%s", v ? "," : " ", valid[v]);
            fputc('\n', stderr);
            return false;
        }
        out[(*count)++] = k;
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
