#include "core/args.h"

#include "core/paths.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool args_to_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return false;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool to_double(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s)
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

/* The items of a comma-separated list, in place: each call gives the next
 * item's start and length; false at the end. Empty items are items (of
 * length 0), so that the callers can refuse them; nothing is copied, so a
 * list of any length is read whole. */
typedef struct list_cursor_t {
    const char *p;
    bool done;
} list_cursor_t;

static bool list_next(list_cursor_t *c, const char **item, size_t *len)
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
static bool list_item_ok(const char *prog, const char *opt, const char *s, int k, size_t len, const char *valid)
{
    if (len == 0) {
        fprintf(stderr, "%s: %s: item %d of '%s' is empty; %s needs %s\n", prog, opt, k + 1, s, opt, valid);
        return false;
    }
    if (k == ARGS_LIST_MAX) {
        fprintf(stderr, "%s: %s takes at most %d values\n", prog, opt, ARGS_LIST_MAX);
        return false;
    }
    return true;
}

static bool parse_int_list(const char *prog, const char *opt, const char *s, long lo, long hi, int *out, int *count)
{
    *count = 0;
    char valid[96];
    snprintf(valid, sizeof valid, "a comma-separated list of whole numbers from %ld to %ld", lo, hi);
    if (!s || !*s) {
        fprintf(stderr, "%s: %s needs %s\n", prog, opt, valid);
        return false;
    }
    list_cursor_t c = {.p = s};
    const char *item;
    size_t len;
    while (list_next(&c, &item, &len)) {
        if (!list_item_ok(prog, opt, s, *count, len, valid))
            return false;
        char *end = NULL;
        errno = 0;
        long v = strtol(item, &end, 10);
        if (errno || end != item + len || v < lo || v > hi) {
            fprintf(stderr, "%s: %s needs a whole number from %ld to %ld, got '%.*s'\n", prog, opt, lo, hi, (int)len,
                    item);
            return false;
        }
        out[(*count)++] = (int)v;
    }
    return true;
}

static bool parse_name_list(const char *prog, const char *opt, const char *s, const char *const *valid, int nvalid,
                            int *out, int *count)
{
    *count = 0;
    if (!s || !*s) {
        fprintf(stderr, "%s: %s needs at least one value\n", prog, opt);
        return false;
    }
    list_cursor_t c = {.p = s};
    const char *item;
    size_t len;
    while (list_next(&c, &item, &len)) {
        if (!list_item_ok(prog, opt, s, *count, len, "a comma-separated list of names"))
            return false;
        int k = -1;
        for (int v = 0; v < nvalid; v++)
            if (strlen(valid[v]) == len && strncmp(item, valid[v], len) == 0)
                k = v;
        if (k < 0) {
            fprintf(stderr, "%s: unknown %s value '%.*s'; valid:", prog, opt, (int)len, item);
            for (int v = 0; v < nvalid; v++)
                fprintf(stderr, "%s%s", v ? "," : " ", valid[v]);
            fputc('\n', stderr);
            return false;
        }
        out[(*count)++] = k;
    }
    return true;
}

static const char *hint(const args_spec_t *s) { return s->hint ? s->hint : ""; }

static args_result_t verror(const args_spec_t *spec, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", spec->prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "%s\n", hint(spec));
    return ARGS_ERROR;
}

args_result_t args_error(const args_spec_t *spec, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(spec, fmt, ap);
    va_end(ap);
    return ARGS_ERROR;
}

/* The option's own error line for a bad VALUE, or the kind's. */
static args_result_t bad_value(const args_spec_t *spec, const args_opt_t *o, const char *value, const char *kind_fmt,
                               ...)
{
    if (o->error)
        return args_error(spec, o->error, value);
    va_list ap;
    va_start(ap, kind_fmt);
    verror(spec, kind_fmt, ap);
    va_end(ap);
    return ARGS_ERROR;
}

/* "A, B or C" for a choice's line. */
static void choice_list(const args_opt_t *o, char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    for (int c = 0; c < o->nchoices && n < size; c++) {
        const char *sep = c == 0 ? "" : (c == o->nchoices - 1 ? " or " : ", ");
        int w = snprintf(out + n, size - n, "%s%s", sep, o->choices[c]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

static args_result_t take_value(const args_spec_t *spec, const args_opt_t *o, const char *v)
{
    long n = 0;
    switch (o->kind) {
    case ARGS_INT:
    case ARGS_LONG:
    case ARGS_U32:
        if (!args_to_long(v, o->lo, o->hi, &n))
            return bad_value(spec, o, v, "%s needs a whole number from %ld to %ld, got '%s'", o->name, o->lo, o->hi, v);
        if (o->kind == ARGS_INT)
            *(int *)o->dest = (int)n;
        else if (o->kind == ARGS_LONG)
            *(long *)o->dest = n;
        else
            *(uint32_t *)o->dest = (uint32_t)n;
        return ARGS_OK;
    case ARGS_DOUBLE:
        if (!to_double(v, o->flo, o->fhi, (double *)o->dest))
            return bad_value(spec, o, v, "%s needs a number from %g to %g, got '%s'", o->name, o->flo, o->fhi, v);
        return ARGS_OK;
    case ARGS_STRING:
        if (o->max_len > 0 && strlen(v) > o->max_len)
            return bad_value(spec, o, v, "%s takes at most %zu characters", o->name, o->max_len);
        break;
    case ARGS_PATH:
        if (strlen(v) >= PATHS_MAX)
            return args_error(spec, "%s: path of %zu bytes, longer than the %d the system allows", o->name, strlen(v),
                              PATHS_MAX - 1);
        break;
    case ARGS_CHOICE: {
        int k = -1;
        for (int c = 0; c < o->nchoices && k < 0; c++)
            if (strcmp(v, o->choices[c]) == 0)
                k = c;
        if (k < 0) {
            char list[256];
            choice_list(o, list, sizeof list);
            return bad_value(spec, o, v, "%s needs %s, got '%s'", o->name, list, v);
        }
        if (o->dest)
            *(int *)o->dest = k;
        break;
    }
    case ARGS_INT_LIST:
        if (!parse_int_list(spec->prog, o->name, v, o->lo, o->hi, (int *)o->dest, o->count))
            return ARGS_ERROR;
        break;
    case ARGS_NAME_LIST:
        if (!parse_name_list(spec->prog, o->name, v, o->choices, o->nchoices, (int *)o->dest, o->count))
            return ARGS_ERROR;
        break;
    case ARGS_CUSTOM:
        if (!o->parse(v, o->dest))
            return bad_value(spec, o, v, "%s: bad value '%s'", o->name, v);
        break;
    case ARGS_TEXT:
    case ARGS_FLAG: break;
    }
    if ((o->kind == ARGS_STRING || o->kind == ARGS_PATH) && o->dest)
        *(const char **)o->dest = v;
    return ARGS_OK;
}

/* O with its *_at fields made into pointers into the spec's base. */
static args_opt_t at_base(const args_spec_t *spec, const args_opt_t *o)
{
    args_opt_t b = *o;
    char *base = spec->base;
    if (!base)
        return b;
    if (o->dest_at)
        b.dest = base + o->dest_at - 1;
    if (o->given_at)
        b.given = (bool *)(void *)(base + o->given_at - 1);
    if (o->text_at)
        b.text = (const char **)(void *)(base + o->text_at - 1);
    if (o->count_at)
        b.count = (int *)(void *)(base + o->count_at - 1);
    return b;
}

args_result_t args_parse(const args_spec_t *spec, int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            args_usage(spec, stdout);
            return ARGS_HELP;
        }
        const args_opt_t *o = NULL;
        for (int k = 0; k < spec->count && !o; k++)
            if (spec->opts[k].kind != ARGS_TEXT && strcmp(a, spec->opts[k].name) == 0)
                o = &spec->opts[k];
        if (!o) {
            fprintf(stderr, "%s: unknown option '%s'%s\n", spec->command ? spec->command : spec->prog, a, hint(spec));
            if (spec->usage_on_error)
                args_usage(spec, stderr);
            return ARGS_ERROR;
        }
        args_opt_t bound = at_base(spec, o);
        o = &bound;
        if (o->given)
            *o->given = true;
        if (o->kind == ARGS_FLAG) {
            if (o->dest)
                *(bool *)o->dest = true;
            continue;
        }
        if (i + 1 >= argc)
            return args_error(spec, "option %s needs a value", a);
        const char *v = argv[++i];
        if (take_value(spec, o, v) != ARGS_OK)
            return ARGS_ERROR;
        if (o->text)
            *o->text = v;
    }
    return ARGS_OK;
}

/* HELP after the left column; each '\n' goes on under the first line. */
static void print_help(FILE *out, const char *help, int indent)
{
    for (const char *p = help; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(out, "%.*s\n", (int)len, p);
        if (!nl)
            break;
        p = nl + 1;
        if (*p)
            fprintf(out, "%*s", indent, "");
    }
}

void args_usage(const args_spec_t *spec, FILE *out)
{
    if (spec->head)
        fputs(spec->head, out);
    for (int k = 0; k < spec->count; k++) {
        const args_opt_t *o = &spec->opts[k];
        if (!o->help)
            continue;
        if (o->kind == ARGS_TEXT) {
            fputs(o->help, out);
            continue;
        }
        char label[128];
        if (o->label)
            snprintf(label, sizeof label, "%s", o->label);
        else
            snprintf(label, sizeof label, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        int w = (int)strlen(label);
        /* A label wider than the column keeps two spaces before its help. */
        fprintf(out, "  %-*s%s", spec->label_width, label, w > spec->label_width ? "  " : " ");
        print_help(out, o->help, 2 + spec->label_width + 1);
    }
    if (spec->tail)
        fputs(spec->tail, out);
}
