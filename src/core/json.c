#include "core/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest number literal read (digits, sign, point, exponent). */
enum { JSON_NUMBER_MAX = 64 };

typedef struct json_parser_t {
    json_doc_t *doc;
    const char *p;
    size_t len, pos;
    const json_limits_t *lim;
    char *err;
    size_t err_size;
} json_parser_t;

__attribute__((format(printf, 3, 4))) static bool json_fail(json_parser_t *ps, size_t at, const char *fmt, ...)
{
    int line = 1;
    for (size_t i = 0; i < at && i < ps->len; i++)
        line += ps->p[i] == '\n';
    int n = snprintf(ps->err, ps->err_size, "byte %zu (line %d): ", at, line);
    if (n >= 0 && (size_t)n < ps->err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->err + n, ps->err_size - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

static uint32_t json_new(json_parser_t *ps, json_type_t type, size_t start)
{
    json_doc_t *d = ps->doc;
    if (d->count >= ps->lim->max_values) {
        json_fail(ps, start, "more than %u values", ps->lim->max_values);
        return JSON_NONE;
    }
    if (d->count == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 256;
        if (cap > ps->lim->max_values)
            cap = ps->lim->max_values;
        json_value_t *v = realloc(d->v, (size_t)cap * sizeof *v);
        if (!v) {
            json_fail(ps, start, "out of memory for %u values", cap);
            return JSON_NONE;
        }
        d->v = v;
        d->cap = cap;
    }
    json_value_t *v = &d->v[d->count];
    memset(v, 0, sizeof *v);
    v->type = (uint8_t)type;
    v->start = (uint32_t)start;
    v->first = v->next = JSON_NONE;
    return d->count++;
}

static void json_skip_space(json_parser_t *ps)
{
    while (ps->pos < ps->len) {
        char c = ps->p[ps->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        ps->pos++;
    }
}

static int json_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Four hex digits at P (bounds checked by the caller), or -1. */
static long json_hex4(const char *p)
{
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = json_hex(p[k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Checks the string starting at the quote at ps->pos and moves past it. */
static bool json_scan_string(json_parser_t *ps)
{
    size_t start = ps->pos++;
    while (ps->pos < ps->len) {
        unsigned char c = (unsigned char)ps->p[ps->pos];
        if (c == '"') {
            ps->pos++;
            return true;
        }
        if (c < 0x20)
            return json_fail(ps, ps->pos, "control character 0x%02x in a string (it must be escaped)", c);
        if (c != '\\') {
            ps->pos++;
            continue;
        }
        if (ps->pos + 1 >= ps->len)
            break;
        char e = ps->p[ps->pos + 1];
        if (e && strchr("\"\\/bfnrt", e)) {
            ps->pos += 2;
            continue;
        }
        if (e != 'u')
            return json_fail(ps, ps->pos, "bad escape '\\%c' in a string", e >= 0x20 && e < 0x7f ? e : '?');
        if (ps->pos + 6 > ps->len)
            break;
        long u = json_hex4(ps->p + ps->pos + 2);
        if (u < 0)
            return json_fail(ps, ps->pos, "bad \\u escape in a string");
        if (u == 0)
            return json_fail(ps, ps->pos, "escaped NUL (\\u0000) in a string");
        if (u >= 0xDC00 && u <= 0xDFFF)
            return json_fail(ps, ps->pos, "lone low surrogate \\u%04lx in a string", u);
        if (u >= 0xD800 && u <= 0xDBFF) {
            long lo = ps->pos + 12 <= ps->len && ps->p[ps->pos + 6] == '\\' && ps->p[ps->pos + 7] == 'u'
                          ? json_hex4(ps->p + ps->pos + 8)
                          : -1;
            if (lo < 0xDC00 || lo > 0xDFFF)
                return json_fail(ps, ps->pos, "high surrogate \\u%04lx without its low half", u);
            ps->pos += 6;
        }
        ps->pos += 6;
    }
    return json_fail(ps, start, "string not closed");
}

static bool json_scan_number(json_parser_t *ps, json_value_t *v)
{
    size_t start = ps->pos, i = ps->pos;
    const char *p = ps->p;
    bool integer = true;
    if (i < ps->len && p[i] == '-') {
        integer = false;
        i++;
    }
    if (i < ps->len && p[i] == '0') {
        i++;
    } else if (i < ps->len && p[i] >= '1' && p[i] <= '9') {
        while (i < ps->len && p[i] >= '0' && p[i] <= '9')
            i++;
    } else {
        return json_fail(ps, start, "bad number");
    }
    if (i < ps->len && p[i] == '.') {
        integer = false;
        i++;
        if (i >= ps->len || p[i] < '0' || p[i] > '9')
            return json_fail(ps, start, "bad number (no digit after '.')");
        while (i < ps->len && p[i] >= '0' && p[i] <= '9')
            i++;
    }
    if (i < ps->len && (p[i] == 'e' || p[i] == 'E')) {
        integer = false;
        i++;
        if (i < ps->len && (p[i] == '+' || p[i] == '-'))
            i++;
        if (i >= ps->len || p[i] < '0' || p[i] > '9')
            return json_fail(ps, start, "bad number (no digit in the exponent)");
        while (i < ps->len && p[i] >= '0' && p[i] <= '9')
            i++;
    }
    if (i - start >= JSON_NUMBER_MAX)
        return json_fail(ps, start, "number of %zu characters, more than %d", i - start, JSON_NUMBER_MAX - 1);
    char buf[JSON_NUMBER_MAX];
    memcpy(buf, p + start, i - start);
    buf[i - start] = 0;
    double d = strtod(buf, NULL);
    if (!isfinite(d))
        return json_fail(ps, start, "number %s is out of range", buf);
    v->number = d;
    v->integer = integer;
    ps->pos = i;
    return true;
}

static bool json_value_at(json_parser_t *ps, int depth, uint32_t *out);

/* An array or object at ps->pos (its bracket); members read keys. */
static bool json_container(json_parser_t *ps, int depth, uint32_t self, bool object)
{
    const char close = object ? '}' : ']';
    ps->pos++;
    json_skip_space(ps);
    if (ps->pos < ps->len && ps->p[ps->pos] == close) {
        ps->pos++;
        return true;
    }
    uint32_t last = JSON_NONE;
    for (;;) {
        json_skip_space(ps);
        size_t key_start = 0, key_end = 0;
        if (object) {
            if (ps->pos >= ps->len || ps->p[ps->pos] != '"')
                return json_fail(ps, ps->pos, "expected a member name (a string)");
            key_start = ps->pos;
            if (!json_scan_string(ps))
                return false;
            key_end = ps->pos;
            json_skip_space(ps);
            if (ps->pos >= ps->len || ps->p[ps->pos] != ':')
                return json_fail(ps, ps->pos, "expected ':' after a member name");
            ps->pos++;
        }
        uint32_t child;
        if (!json_value_at(ps, depth + 1, &child))
            return false;
        json_value_t *v = ps->doc->v;
        v[child].key_start = (uint32_t)key_start;
        v[child].key_end = (uint32_t)key_end;
        if (last == JSON_NONE)
            v[self].first = child;
        else
            v[last].next = child;
        last = child;
        v[self].count++;
        json_skip_space(ps);
        if (ps->pos >= ps->len)
            return json_fail(ps, ps->pos, "%s not closed", object ? "object" : "array");
        char c = ps->p[ps->pos++];
        if (c == close)
            return true;
        if (c != ',')
            return json_fail(ps, ps->pos - 1, "expected ',' or '%c'", close);
    }
}

static bool json_value_at(json_parser_t *ps, int depth, uint32_t *out)
{
    json_skip_space(ps);
    if (ps->pos >= ps->len)
        return json_fail(ps, ps->pos, "unexpected end of the text");
    char c = ps->p[ps->pos];
    json_type_t type;
    if (c == '{' || c == '[') {
        if (depth > ps->lim->max_depth)
            return json_fail(ps, ps->pos, "nested deeper than %d levels", ps->lim->max_depth);
        type = c == '{' ? JSON_OBJECT : JSON_ARRAY;
    } else if (c == '"') {
        type = JSON_STRING;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        type = JSON_NUMBER;
    } else if (c == 't' || c == 'f' || c == 'n') {
        type = c == 't' ? JSON_TRUE : (c == 'f' ? JSON_FALSE : JSON_NULL);
    } else if (c >= 0x20 && c < 0x7f) {
        return json_fail(ps, ps->pos, "unexpected '%c'", c);
    } else {
        return json_fail(ps, ps->pos, "unexpected byte 0x%02x", (unsigned char)c);
    }
    uint32_t self = json_new(ps, type, ps->pos);
    if (self == JSON_NONE)
        return false;
    bool ok = true;
    switch (type) {
    case JSON_OBJECT:
    case JSON_ARRAY: ok = json_container(ps, depth, self, type == JSON_OBJECT); break;
    case JSON_STRING: ok = json_scan_string(ps); break;
    case JSON_NUMBER: ok = json_scan_number(ps, &ps->doc->v[self]); break;
    default: {
        const char *word = type == JSON_TRUE ? "true" : (type == JSON_FALSE ? "false" : "null");
        size_t n = strlen(word);
        if (ps->len - ps->pos < n || memcmp(ps->p + ps->pos, word, n) != 0)
            return json_fail(ps, ps->pos, "unexpected '%c' (not %s)", c, word);
        ps->pos += n;
    }
    }
    if (!ok)
        return false;
    ps->doc->v[self].end = (uint32_t)ps->pos;
    *out = self;
    return true;
}

bool json_parse(json_doc_t *doc, const char *text, size_t len, const json_limits_t *lim, char *err, size_t err_size)
{
    memset(doc, 0, sizeof *doc);
    doc->text = text;
    doc->len = len;
    json_parser_t ps = {.doc = doc, .p = text, .len = len, .lim = lim, .err = err, .err_size = err_size};
    if (err_size)
        err[0] = 0;
    /* Offsets are 32-bit. */
    if (len >= UINT32_MAX) {
        json_fail(&ps, 0, "text of %zu bytes, more than 4 GiB", len);
        return false;
    }
    uint32_t root;
    bool ok = json_value_at(&ps, 1, &root);
    if (ok) {
        json_skip_space(&ps);
        if (ps.pos < len)
            ok = json_fail(&ps, ps.pos, "text after the JSON value");
    }
    if (!ok) {
        json_free(doc);
        doc->text = text;
        doc->len = len;
    }
    return ok;
}

void json_free(json_doc_t *doc)
{
    free(doc->v);
    memset(doc, 0, sizeof *doc);
}

/* Decodes the string whose quotes are at START and END - 1 into OUT
 * (NUL-terminated); the decoded length, or -1 if it does not fit in SIZE - 1
 * bytes. The text has been checked by the parser. */
static long json_decode(const char *text, uint32_t start, uint32_t end, char *out, size_t size)
{
    size_t n = 0;
    for (uint32_t i = start + 1; i + 1 < end;) {
        char c = text[i];
        unsigned char utf[4];
        size_t k = 1;
        if (c != '\\') {
            utf[0] = (unsigned char)c;
            i++;
        } else {
            char e = text[i + 1];
            if (e != 'u') {
                static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
                utf[0] = (unsigned char)to[strchr(from, e) - from];
                i += 2;
            } else {
                unsigned long u = (unsigned long)json_hex4(text + i + 2);
                i += 6;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    unsigned long lo = (unsigned long)json_hex4(text + i + 2);
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
                if (u < 0x80) {
                    utf[0] = (unsigned char)u;
                } else if (u < 0x800) {
                    utf[0] = (unsigned char)(0xC0 | (u >> 6));
                    utf[1] = (unsigned char)(0x80 | (u & 0x3F));
                    k = 2;
                } else if (u < 0x10000) {
                    utf[0] = (unsigned char)(0xE0 | (u >> 12));
                    utf[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
                    utf[2] = (unsigned char)(0x80 | (u & 0x3F));
                    k = 3;
                } else {
                    utf[0] = (unsigned char)(0xF0 | (u >> 18));
                    utf[1] = (unsigned char)(0x80 | ((u >> 12) & 0x3F));
                    utf[2] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
                    utf[3] = (unsigned char)(0x80 | (u & 0x3F));
                    k = 4;
                }
            }
        }
        if (n + k >= size)
            return -1;
        memcpy(out + n, utf, k);
        n += k;
    }
    if (size)
        out[n] = 0;
    return (long)n;
}

uint32_t json_get(const json_doc_t *doc, uint32_t obj, const char *key, bool *duplicate)
{
    if (duplicate)
        *duplicate = false;
    if (obj == JSON_NONE || obj >= doc->count || doc->v[obj].type != JSON_OBJECT)
        return JSON_NONE;
    /* Keys we look up are short; a longer one cannot match. */
    char buf[64];
    uint32_t found = JSON_NONE;
    for (uint32_t m = doc->v[obj].first; m != JSON_NONE; m = doc->v[m].next) {
        const json_value_t *v = &doc->v[m];
        if (json_decode(doc->text, v->key_start, v->key_end, buf, sizeof buf) < 0 || strcmp(buf, key) != 0)
            continue;
        if (found != JSON_NONE) {
            if (duplicate)
                *duplicate = true;
            break;
        }
        found = m;
    }
    return found;
}

uint32_t json_child(const json_doc_t *doc, uint32_t v)
{
    return v == JSON_NONE || v >= doc->count ? JSON_NONE : doc->v[v].first;
}

uint32_t json_next(const json_doc_t *doc, uint32_t v)
{
    return v == JSON_NONE || v >= doc->count ? JSON_NONE : doc->v[v].next;
}

bool json_uint(const json_doc_t *doc, uint32_t v, uint64_t max, uint64_t *out)
{
    if (v == JSON_NONE || v >= doc->count || doc->v[v].type != JSON_NUMBER || !doc->v[v].integer)
        return false;
    /* Digits only, so the double is exact below 2^53; from there it may be
     * rounded, and is refused. */
    double d = doc->v[v].number;
    if (d >= 9007199254740992.0 || d > (double)max)
        return false;
    *out = (uint64_t)d;
    return true;
}

bool json_string(const json_doc_t *doc, uint32_t v, char *out, size_t size)
{
    if (v == JSON_NONE || v >= doc->count || doc->v[v].type != JSON_STRING)
        return false;
    return json_decode(doc->text, doc->v[v].start, doc->v[v].end, out, size) >= 0;
}

bool json_key(const json_doc_t *doc, uint32_t v, char *out, size_t size)
{
    if (v == JSON_NONE || v >= doc->count || doc->v[v].key_end == 0)
        return false;
    return json_decode(doc->text, doc->v[v].key_start, doc->v[v].key_end, out, size) >= 0;
}

bool json_string_is(const json_doc_t *doc, uint32_t v, const char *s)
{
    char buf[64];
    return json_string(doc, v, buf, sizeof buf) && strcmp(buf, s) == 0;
}
