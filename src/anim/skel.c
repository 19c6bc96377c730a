#include "anim/skel.h"

#include "core/file.h"
#include "core/log.h"
#include "core/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The skeleton file is a few kB; anything far larger is not a skeleton. */
#define SKEL_FILE_MAX_BYTES (1u << 20)
#define SKEL_LINE_MAX 256
#define SKEL_MAX_TOKENS 8
/* Rest offsets beyond this (cm) are certainly a typo or garbage. */
#define SKEL_OFFSET_LIMIT_CM 1.0e4f

static const char SKEL_HEADER[] = "strider-skeleton";
static const int SKEL_VERSION = 1;

static bool skel_parse_float(const char *s, float *out)
{
    char *end = NULL;
    float v = strtof(s, &end);
    if (end == s || *end != 0 || !isfinite(v) || fabsf(v) > SKEL_OFFSET_LIMIT_CM)
        return false;
    *out = v;
    return true;
}

static bool skel_valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= SKEL_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
                  c == '-';
        if (!ok)
            return false;
    }
    return true;
}

/* Handles one non-empty, comment-stripped record. */
static bool skel_parse_record(skel_t *s, char **tok, int n, const char *source, int lineno)
{
    bool is_joint = strcmp(tok[0], "joint") == 0;
    bool is_end = strcmp(tok[0], "end") == 0;
    if (!is_joint && !is_end) {
        log_error("%s:%d: unknown record '%.32s' (expected 'joint' or 'end')", source, lineno, tok[0]);
        return false;
    }
    if (n != 6) {
        log_error("%s:%d: '%s' needs NAME PARENT OX OY OZ (got %d fields)", source, lineno, tok[0], n - 1);
        return false;
    }
    const char *name = tok[1];
    const char *parent = tok[2];
    if (!skel_valid_name(name) || strcmp(name, "-") == 0) {
        log_error("%s:%d: invalid name '%.40s' (1-%d chars of [A-Za-z0-9_.-])", source, lineno, name,
                  SKEL_NAME_MAX - 1);
        return false;
    }
    if (skel_find(s, name) >= 0 || skel_find_end(s, name) >= 0) {
        log_error("%s:%d: duplicate name '%s'", source, lineno, name);
        return false;
    }
    float off[3];
    for (int k = 0; k < 3; k++) {
        if (!skel_parse_float(tok[3 + k], &off[k])) {
            log_error("%s:%d: bad offset '%.40s' (finite number within +-%g cm expected)", source, lineno, tok[3 + k],
                      (double)SKEL_OFFSET_LIMIT_CM);
            return false;
        }
    }
    int pidx = -1;
    if (strcmp(parent, "-") != 0) {
        pidx = skel_find(s, parent);
        if (pidx < 0) {
            log_error("%s:%d: parent '%.40s' of '%s' is not a joint defined above", source, lineno, parent, name);
            return false;
        }
    }
    if (is_joint) {
        if (pidx < 0 && s->joint_count > 0) {
            log_error("%s:%d: second root joint '%s' (only one root allowed)", source, lineno, name);
            return false;
        }
        if (pidx >= 0 && s->joint_count == 0) {
            log_error("%s:%d: first joint '%s' must be the root (parent '-')", source, lineno, name);
            return false;
        }
        if (s->joint_count >= SKEL_MAX_JOINTS) {
            log_error("%s:%d: more than %d joints", source, lineno, SKEL_MAX_JOINTS);
            return false;
        }
        int j = s->joint_count++;
        memcpy(s->joint_name[j], name, strlen(name) + 1);
        s->joint_parent[j] = pidx;
        memcpy(s->joint_offset[j], off, sizeof off);
    } else {
        if (pidx < 0) {
            log_error("%s:%d: end site '%s' needs a parent joint", source, lineno, name);
            return false;
        }
        if (s->end_count >= SKEL_MAX_ENDS) {
            log_error("%s:%d: more than %d end sites", source, lineno, SKEL_MAX_ENDS);
            return false;
        }
        int e = s->end_count++;
        memcpy(s->end_name[e], name, strlen(name) + 1);
        s->end_parent[e] = pidx;
        memcpy(s->end_offset[e], off, sizeof off);
    }
    return true;
}

bool skel_parse(skel_t *s, const char *text, size_t len, const char *source)
{
    memset(s, 0, sizeof *s);
    if (!text_check_no_nul(text, len, source))
        return false;
    size_t pos = 0;
    int lineno = 0;
    bool have_header = false;
    while (pos < len) {
        lineno++;
        size_t start = pos;
        while (pos < len && text[pos] != '\n')
            pos++;
        size_t llen = pos - start;
        if (pos < len)
            pos++;
        if (llen >= SKEL_LINE_MAX) {
            log_error("%s:%d: line longer than %d bytes", source, lineno, SKEL_LINE_MAX - 1);
            return false;
        }
        char line[SKEL_LINE_MAX];
        memcpy(line, text + start, llen);
        line[llen] = 0;
        if (memchr(line, 0, llen)) {
            log_error("%s:%d: NUL byte in text", source, lineno);
            return false;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *tok[SKEL_MAX_TOKENS];
        int n = text_tokenize(line, tok, SKEL_MAX_TOKENS);
        if (n == 0)
            continue;
        if (!have_header) {
            if (n != 2 || strcmp(tok[0], SKEL_HEADER) != 0) {
                log_error("%s:%d: expected header '%s %d'", source, lineno, SKEL_HEADER, SKEL_VERSION);
                return false;
            }
            if (strcmp(tok[1], "1") != 0) {
                log_error("%s:%d: unsupported version '%.16s' (this build reads %d)", source, lineno, tok[1],
                          SKEL_VERSION);
                return false;
            }
            have_header = true;
            continue;
        }
        if (n > SKEL_MAX_TOKENS) {
            log_error("%s:%d: too many fields", source, lineno);
            return false;
        }
        if (!skel_parse_record(s, tok, n, source, lineno))
            return false;
    }
    if (!have_header) {
        log_error("%s: empty file (no '%s' header)", source, SKEL_HEADER);
        return false;
    }
    if (s->joint_count == 0) {
        log_error("%s: no joints", source);
        return false;
    }
    return true;
}

bool skel_load(skel_t *s, const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    memset(s, 0, sizeof *s);
    if (!file_read_all(path, SKEL_FILE_MAX_BYTES, &data, &size))
        return false;
    bool ok = skel_parse(s, (const char *)data, size, path);
    file_free(data);
    return ok;
}

int skel_find(const skel_t *s, const char *name)
{
    for (int j = 0; j < s->joint_count; j++)
        if (strcmp(s->joint_name[j], name) == 0)
            return j;
    return -1;
}

int skel_find_end(const skel_t *s, const char *name)
{
    for (int e = 0; e < s->end_count; e++)
        if (strcmp(s->end_name[e], name) == 0)
            return e;
    return -1;
}

void skel_rest_positions(const skel_t *s, float (*out)[3])
{
    for (int j = 0; j < s->joint_count; j++) {
        int p = s->joint_parent[j];
        for (int k = 0; k < 3; k++)
            out[j][k] = (p >= 0 ? out[p][k] : 0.0f) + s->joint_offset[j][k];
    }
}

void skel_rest_end_positions(const skel_t *s, const float (*joint_pos)[3], float (*out)[3])
{
    for (int e = 0; e < s->end_count; e++)
        for (int k = 0; k < 3; k++)
            out[e][k] = joint_pos[s->end_parent[e]][k] + s->end_offset[e][k];
}
