/* json: a strict RFC 8259 JSON reader with limits, for checking a
 * document before another parser (assimp's) is trusted with it.
 *
 * Call order: json_parse() -> json_get() / json_child() / json_next() /
 * json_uint() / json_string() ... -> json_free().
 * Every value becomes a node of one flat array (objects and arrays know
 * their first child and count; children know their next sibling; object
 * members carry their key), with its byte span in the text, so a caller
 * can also splice the text. Limits: nesting depth and value count (the
 * caller's), strings without unescaped control characters or an escaped
 * NUL, numbers in JSON's grammar that are finite as doubles (NaN, Infinity
 * and 1e999 are refused), UTF-8 passed through unchecked.
 * Errors: json_parse() fills ERR with "byte N (line L): what" (no file
 * name; the caller adds it) and returns false.
 * Does NOT: recurse deeper than the depth limit, keep a copy of the text
 * (values point into the caller's bytes), or write JSON.
 * Memory: json_parse() mallocs the value array; json_free() releases it.
 */
#ifndef STRIDER_CORE_JSON_H
#define STRIDER_CORE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum json_type_t {
    JSON_NULL = 0,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_type_t;

/* "No value" for indices (a missing member, the end of a list). */
#define JSON_NONE UINT32_MAX

typedef struct json_value_t {
    uint8_t type;                /* json_type_t */
    bool integer;                /* a number written as digits only (no sign, '.' or exponent) */
    uint32_t start, end;         /* the value's bytes [start, end); a string's include its quotes */
    uint32_t key_start, key_end; /* an object member's key (quotes included), else 0, 0 */
    uint32_t first;              /* first child (array element or object member), or JSON_NONE */
    uint32_t next;               /* next sibling, or JSON_NONE */
    uint32_t count;              /* children */
    double number;
} json_value_t;

typedef struct json_doc_t {
    const char *text;
    size_t len;
    json_value_t *v; /* v[0] is the root */
    uint32_t count, cap;
} json_doc_t;

typedef struct json_limits_t {
    int max_depth; /* nesting of arrays and objects; the root is depth 1 */
    uint32_t max_values;
} json_limits_t;

/* Parses TEXT[0..LEN) (whitespace may surround the value; a byte order
 * mark is refused, as RFC 8259 allows, since other parsers refuse it too). */
bool json_parse(json_doc_t *doc, const char *text, size_t len, const json_limits_t *lim, char *err, size_t err_size);
void json_free(json_doc_t *doc);

/* The member KEY of object OBJ (escapes in keys are decoded before the
 * comparison), or JSON_NONE when OBJ is no object or has no such member.
 * A key present twice is reported in *DUPLICATE (may be NULL) and the
 * first is returned. */
uint32_t json_get(const json_doc_t *doc, uint32_t obj, const char *key, bool *duplicate);
uint32_t json_child(const json_doc_t *doc, uint32_t v);
uint32_t json_next(const json_doc_t *doc, uint32_t v);
/* Whether V is a number written as a whole number no larger than MAX;
 * *OUT gets it. */
bool json_uint(const json_doc_t *doc, uint32_t v, uint64_t max, uint64_t *out);
/* Decodes string V into OUT (NUL-terminated, at most SIZE - 1 bytes);
 * false when V is no string or does not fit. */
bool json_string(const json_doc_t *doc, uint32_t v, char *out, size_t size);
/* Decodes the key of object member V into OUT, as json_string(). */
bool json_key(const json_doc_t *doc, uint32_t v, char *out, size_t size);
/* Whether V is a string whose decoded text is S. */
bool json_string_is(const json_doc_t *doc, uint32_t v, const char *s);

#endif
