#include "anim/bvh.h"

#include "core/file.h"
#include "core/log.h"
#include "core/text.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest CMU clip is about 1 MB; a 256 MB file is not a clip. */
#define BVH_FILE_MAX_BYTES (256u << 20)
/* Longer numeric tokens than this are garbage, not numbers. */
#define BVH_NUMBER_MAX_CHARS 64
#define BVH_DEG_TO_RAD 0.017453292519943295f

typedef struct bvh_lex_t {
    const char *p, *end;
    int line; /* 1-based line of p */
    const char *source;
} bvh_lex_t;

typedef struct bvh_tok_t {
    const char *s;
    size_t n;
    int line;
} bvh_tok_t;

static bool bvh_fail(const bvh_lex_t *lx, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool bvh_fail(const bvh_lex_t *lx, int line, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_error("%s:%d: %s", lx->source, line, msg);
    return false;
}

static bool bvh_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

/* The token starting at the cursor, up to a blank or the line's end. */
static bool bvh_take(bvh_lex_t *lx, bvh_tok_t *t)
{
    t->s = lx->p;
    t->line = lx->line;
    while (lx->p < lx->end && !bvh_blank(*lx->p) && *lx->p != '\n')
        lx->p++;
    t->n = (size_t)(lx->p - t->s);
    return t->n > 0;
}

/* Next whitespace-separated token across lines; false at the end of text. */
static bool bvh_next(bvh_lex_t *lx, bvh_tok_t *t)
{
    while (lx->p < lx->end && (bvh_blank(*lx->p) || *lx->p == '\n')) {
        if (*lx->p == '\n')
            lx->line++;
        lx->p++;
    }
    return bvh_take(lx, t);
}

/* Next token on the current line only; false at the end of the line. */
static bool bvh_next_on_line(bvh_lex_t *lx, bvh_tok_t *t)
{
    while (lx->p < lx->end && bvh_blank(*lx->p))
        lx->p++;
    return bvh_take(lx, t);
}

/* Moves past the end of the current line. */
static void bvh_end_line(bvh_lex_t *lx)
{
    if (lx->p < lx->end && *lx->p == '\n') {
        lx->p++;
        lx->line++;
    }
}

/* Case-insensitive keyword match (files differ in "End Site" / "End site"). */
static bool bvh_is(const bvh_tok_t *t, const char *kw)
{
    size_t n = strlen(kw);
    if (t->n != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char a = t->s[i], b = kw[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z')
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return false;
    }
    return true;
}

/* A printable excerpt of a token for messages. */
static int bvh_show_len(const bvh_tok_t *t) { return t->n > 32 ? 32 : (int)t->n; }

static bool bvh_number(const bvh_tok_t *t, float *out)
{
    char buf[BVH_NUMBER_MAX_CHARS];
    if (t->n == 0 || t->n >= sizeof buf)
        return false;
    memcpy(buf, t->s, t->n);
    buf[t->n] = 0;
    char *end = NULL;
    double v = strtod(buf, &end);
    /* Range-check before narrowing: an out-of-range double -> float is UB. */
    if (end != buf + t->n || !isfinite(v) || fabs(v) > (double)FLT_MAX)
        return false;
    *out = (float)v;
    return true;
}

static bool bvh_int(const bvh_tok_t *t, int max, int *out)
{
    if (t->n == 0 || t->n > 9)
        return false;
    int v = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->s[i] < '0' || t->s[i] > '9')
            return false;
        v = v * 10 + (t->s[i] - '0');
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

static bool bvh_expect(bvh_lex_t *lx, const char *kw)
{
    bvh_tok_t t;
    if (!bvh_next(lx, &t))
        return bvh_fail(lx, t.line, "unexpected end of file, expected '%s'", kw);
    if (!bvh_is(&t, kw))
        return bvh_fail(lx, t.line, "expected '%s', found '%.*s'", kw, bvh_show_len(&t), t.s);
    return true;
}

static bool bvh_offset(bvh_lex_t *lx, float out[3])
{
    for (int i = 0; i < 3; i++) {
        bvh_tok_t t;
        if (!bvh_next(lx, &t) || !bvh_number(&t, &out[i]))
            return bvh_fail(lx, t.line, "OFFSET needs 3 finite numbers");
        if (fabsf(out[i]) > (float)BVH_MAX_OFFSET)
            return bvh_fail(lx, t.line, "OFFSET value %g outside +-%g", (double)out[i], BVH_MAX_OFFSET);
    }
    return true;
}

static bool bvh_channel_name(const bvh_tok_t *t, unsigned char *out)
{
    static const char *names[] = {"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"};
    for (int i = 0; i < 6; i++)
        if (bvh_is(t, names[i])) {
            *out = (unsigned char)i;
            return true;
        }
    return false;
}

/* ROOT/JOINT NAME { ... : registers the joint, returns its index or -1. */
static int bvh_begin_joint(bvh_t *b, bvh_lex_t *lx, int parent)
{
    bvh_tok_t name;
    if (!bvh_next(lx, &name)) {
        bvh_fail(lx, name.line, "joint without a name");
        return -1;
    }
    if (name.n >= SKEL_NAME_MAX) {
        bvh_fail(lx, name.line, "joint name '%.*s...' longer than %d characters", bvh_show_len(&name), name.s,
                 SKEL_NAME_MAX - 1);
        return -1;
    }
    if (b->joint_count >= BVH_MAX_JOINTS) {
        bvh_fail(lx, name.line, "more than %d joints", BVH_MAX_JOINTS);
        return -1;
    }
    for (int j = 0; j < b->joint_count; j++)
        if (strlen(b->joint_name[j]) == name.n && memcmp(b->joint_name[j], name.s, name.n) == 0) {
            bvh_fail(lx, name.line, "joint '%s' defined twice", b->joint_name[j]);
            return -1;
        }
    int j = b->joint_count++;
    memcpy(b->joint_name[j], name.s, name.n);
    b->joint_name[j][name.n] = 0;
    b->joint_parent[j] = parent;
    b->channel_count[j] = 0;
    if (!bvh_expect(lx, "{"))
        return -1;
    return j;
}

static bool bvh_channels(bvh_t *b, bvh_lex_t *lx, int j, int line)
{
    bvh_tok_t t;
    int n = 0;
    if (b->channel_count[j] != 0)
        return bvh_fail(lx, line, "joint '%s' has two CHANNELS lines", b->joint_name[j]);
    if (!bvh_next(lx, &t) || !bvh_int(&t, BVH_MAX_JOINT_CHANNELS, &n) || (n != 3 && n != 6))
        return bvh_fail(lx, t.line, "joint '%s': CHANNELS count must be 3 or 6, found '%.*s'", b->joint_name[j],
                        bvh_show_len(&t), t.s);
    for (int c = 0; c < n; c++) {
        if (!bvh_next(lx, &t) || !bvh_channel_name(&t, &b->channel[j][c]))
            return bvh_fail(lx, t.line, "joint '%s': expected %d channel names, '%.*s' is not one", b->joint_name[j], n,
                            bvh_show_len(&t), t.s);
        for (int d = 0; d < c; d++)
            if (b->channel[j][d] == b->channel[j][c])
                return bvh_fail(lx, t.line, "joint '%s': channel '%.*s' listed twice", b->joint_name[j],
                                bvh_show_len(&t), t.s);
    }
    b->channel_count[j] = n;
    b->channel_first[j] = b->channels_per_frame;
    b->channels_per_frame += n;
    return true;
}

static bool bvh_end_site(bvh_t *b, bvh_lex_t *lx, int parent, int line)
{
    if (!bvh_expect(lx, "Site") || !bvh_expect(lx, "{") || !bvh_expect(lx, "OFFSET"))
        return false;
    if (b->end_count >= BVH_MAX_ENDS)
        return bvh_fail(lx, line, "more than %d End Sites", BVH_MAX_ENDS);
    int e = b->end_count++;
    b->end_parent[e] = parent;
    return bvh_offset(lx, b->end_offset[e]) && bvh_expect(lx, "}");
}

static bool bvh_hierarchy(bvh_t *b, bvh_lex_t *lx)
{
    if (!bvh_expect(lx, "HIERARCHY") || !bvh_expect(lx, "ROOT"))
        return false;
    int stack[BVH_MAX_JOINTS];
    bool has_offset[BVH_MAX_JOINTS] = {false};
    int depth = 0;
    int j = bvh_begin_joint(b, lx, -1);
    if (j < 0)
        return false;
    stack[depth++] = j;
    while (depth > 0) {
        int cur = stack[depth - 1];
        bvh_tok_t t;
        if (!bvh_next(lx, &t))
            return bvh_fail(lx, t.line, "unexpected end of file inside joint '%s'", b->joint_name[cur]);
        if (bvh_is(&t, "OFFSET")) {
            if (has_offset[cur])
                return bvh_fail(lx, t.line, "joint '%s' has two OFFSETs", b->joint_name[cur]);
            has_offset[cur] = true;
            if (!bvh_offset(lx, b->joint_offset[cur]))
                return false;
        } else if (bvh_is(&t, "CHANNELS")) {
            if (!bvh_channels(b, lx, cur, t.line))
                return false;
        } else if (bvh_is(&t, "JOINT")) {
            int child = bvh_begin_joint(b, lx, cur);
            if (child < 0)
                return false;
            /* joint_count <= BVH_MAX_JOINTS bounds the depth. */
            stack[depth++] = child;
        } else if (bvh_is(&t, "End")) {
            if (!bvh_end_site(b, lx, cur, t.line))
                return false;
        } else if (bvh_is(&t, "}")) {
            if (!has_offset[cur])
                return bvh_fail(lx, t.line, "joint '%s' has no OFFSET", b->joint_name[cur]);
            if (b->channel_count[cur] == 0)
                return bvh_fail(lx, t.line, "joint '%s' has no CHANNELS", b->joint_name[cur]);
            depth--;
        } else {
            return bvh_fail(lx, t.line, "unexpected '%.*s' in joint '%s'", bvh_show_len(&t), t.s, b->joint_name[cur]);
        }
    }
    return true;
}

/* One column of the frame data: its joint and channel, and the limit. */
typedef struct bvh_column_t {
    int joint;
    const char *name;
    double limit;
} bvh_column_t;

static bool bvh_motion(bvh_t *b, bvh_lex_t *lx)
{
    bvh_tok_t t;
    if (!bvh_next(lx, &t))
        return bvh_fail(lx, t.line, "unexpected end of file, expected 'MOTION'");
    if (bvh_is(&t, "ROOT"))
        return bvh_fail(lx, t.line, "more than one ROOT is not supported");
    if (!bvh_is(&t, "MOTION"))
        return bvh_fail(lx, t.line, "expected 'MOTION', found '%.*s'", bvh_show_len(&t), t.s);
    if (!bvh_expect(lx, "Frames:"))
        return false;
    int frames = 0;
    bool got = bvh_next(lx, &t);
    int frames_line = t.line;
    if (!got || !bvh_int(&t, 999999999, &frames) || frames < 1)
        return bvh_fail(lx, t.line, "Frames: needs a count >= 1, found '%.*s'", bvh_show_len(&t), t.s);
    if (!bvh_expect(lx, "Frame") || !bvh_expect(lx, "Time:"))
        return false;
    if (!bvh_next(lx, &t) || !bvh_number(&t, &b->frame_time_s) || !(b->frame_time_s > 0.0f))
        return bvh_fail(lx, t.line, "Frame Time: needs a positive number of seconds");
    bvh_tok_t extra;
    if (bvh_next_on_line(lx, &extra))
        return bvh_fail(lx, extra.line, "unexpected '%.*s' after Frame Time", bvh_show_len(&extra), extra.s);
    bvh_end_line(lx);
    int cpf = b->channels_per_frame;
    /* Every value needs at least one character and one separator: refuse a
     * count the remaining text cannot hold before allocating for it. */
    size_t left = (size_t)(lx->end - lx->p);
    if ((size_t)frames > (left + 1) / 2 / (size_t)cpf)
        return bvh_fail(lx, frames_line, "truncated: Frames: %d of %d values cannot fit in the %zu bytes left", frames,
                        cpf, left);
    b->frames = malloc(sizeof(float) * (size_t)frames * (size_t)cpf);
    if (!b->frames)
        return bvh_fail(lx, t.line, "out of memory for %d frames", frames);
    /* What each column is, for the range check and its message. */
    static const char *const channel_names[] = {"Xposition", "Yposition", "Zposition",
                                                "Xrotation", "Yrotation", "Zrotation"};
    bvh_column_t cols[BVH_MAX_JOINTS * BVH_MAX_JOINT_CHANNELS];
    for (int j = 0; j < b->joint_count; j++)
        for (int c = 0; c < b->channel_count[j]; c++) {
            bvh_column_t *col = &cols[b->channel_first[j] + c];
            col->joint = j;
            col->name = channel_names[b->channel[j][c]];
            col->limit = b->channel[j][c] <= BVH_ZPOS ? BVH_MAX_POSITION : BVH_MAX_ROTATION_DEG;
        }
    for (int f = 0; f < frames; f++) {
        /* Skip blank lines between frames. */
        bool found = false;
        while (!found && lx->p < lx->end) {
            found = bvh_next_on_line(lx, &t);
            if (!found)
                bvh_end_line(lx);
        }
        if (!found)
            return bvh_fail(lx, lx->line, "truncated: Frames: %d but the data ends after %d", frames, f);
        float *row = b->frames + (size_t)f * (size_t)cpf;
        int n = 0;
        int line = t.line;
        do {
            if (n == cpf)
                return bvh_fail(lx, line, "frame %d has more than %d values", f, cpf);
            if (!bvh_number(&t, &row[n]))
                return bvh_fail(lx, line, "frame %d: '%.*s' is not a finite number", f, bvh_show_len(&t), t.s);
            const bvh_column_t *col = &cols[n];
            if (fabsf(row[n]) > (float)col->limit)
                return bvh_fail(lx, line, "frame %d: joint '%s' %s %g outside +-%g", f, b->joint_name[col->joint],
                                col->name, (double)row[n], col->limit);
            n++;
        } while (bvh_next_on_line(lx, &t));
        if (n != cpf)
            return bvh_fail(lx, line, "truncated: frame %d has %d of %d values", f, n, cpf);
        bvh_end_line(lx);
    }
    if (bvh_next(lx, &t))
        return bvh_fail(lx, t.line, "more frame data than Frames: %d", frames);
    b->frame_count = frames;
    return true;
}

void bvh_free(bvh_t *b)
{
    if (!b)
        return;
    free(b->frames);
    b->frames = NULL;
    b->frame_count = 0;
}

bool bvh_parse(bvh_t *b, const char *text, size_t len, const char *source)
{
    memset(b, 0, sizeof *b);
    snprintf(b->source, sizeof b->source, "%s", source ? source : "(bvh)");
    static const char empty[1] = "";
    if (!text)
        len = 0;
    bvh_lex_t lx = {.p = text ? text : empty, .end = (text ? text : empty) + len, .line = 1, .source = b->source};
    size_t nul_column = 0;
    int nul_line = text ? text_nul_line(text, len, &nul_column) : 0;
    if (nul_line) {
        bvh_fail(&lx, nul_line, "NUL byte at column %zu; a text file holds none", nul_column);
        return false;
    }
    if (!bvh_hierarchy(b, &lx) || !bvh_motion(b, &lx)) {
        char keep[BVH_SOURCE_MAX];
        memcpy(keep, b->source, sizeof keep);
        free(b->frames);
        memset(b, 0, sizeof *b);
        memcpy(b->source, keep, sizeof keep);
        return false;
    }
    return true;
}

bool bvh_load(bvh_t *b, const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    if (!file_read_all(path, BVH_FILE_MAX_BYTES, &data, &size)) {
        memset(b, 0, sizeof *b);
        return false;
    }
    bool ok = bvh_parse(b, (const char *)data, size, path);
    file_free(data);
    return ok;
}

static int bvh_find(const bvh_t *b, const char *name)
{
    for (int j = 0; j < b->joint_count; j++)
        if (strcmp(b->joint_name[j], name) == 0)
            return j;
    return -1;
}

bool bvh_map_skel(const bvh_t *b, const skel_t *s, bvh_map_t *out)
{
    out->joint_count = 0;
    if (s->joint_count < 1 || s->joint_count > SKEL_MAX_JOINTS) {
        log_error("%s: skeleton has %d joints", b->source, s->joint_count);
        return false;
    }
    for (int j = 0; j < s->joint_count; j++) {
        int bj = bvh_find(b, s->joint_name[j]);
        if (bj < 0) {
            log_error("%s: skeleton joint '%s' is missing from the file", b->source, s->joint_name[j]);
            return false;
        }
        int sp = s->joint_parent[j];
        int want = sp < 0 ? -1 : out->bvh_joint[sp];
        if (sp >= j || b->joint_parent[bj] != want) {
            const char *bp = b->joint_parent[bj] < 0 ? "(root)" : b->joint_name[b->joint_parent[bj]];
            log_error("%s: joint '%s' hangs from '%s' in the file but from '%s' in the skeleton", b->source,
                      s->joint_name[j], bp, sp < 0 ? "(root)" : s->joint_name[sp]);
            return false;
        }
        out->bvh_joint[j] = bj;
    }
    out->joint_count = s->joint_count;
    return true;
}

bool bvh_frame_pose(const bvh_t *b, const skel_t *s, const bvh_map_t *map, int frame, pose_t *out)
{
    if (map->joint_count != s->joint_count || s->joint_count < 1) {
        log_error("%s: the joint map does not belong to this skeleton", b->source);
        return false;
    }
    if (frame < 0 || frame >= b->frame_count || !b->frames) {
        log_error("%s: frame %d out of range (the file has %d)", b->source, frame, b->frame_count);
        return false;
    }
    static const float axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const float *row = b->frames + (size_t)frame * (size_t)b->channels_per_frame;
    out->joint_count = s->joint_count;
    for (int j = 0; j < s->joint_count; j++) {
        int bj = map->bvh_joint[j];
        if (bj < 0 || bj >= b->joint_count) {
            log_error("%s: joint map entry %d is out of range", b->source, j);
            return false;
        }
        const float *v = row + b->channel_first[bj];
        float q[4] = {0, 0, 0, 1};
        float t[3] = {s->joint_offset[j][0], s->joint_offset[j][1], s->joint_offset[j][2]};
        for (int c = 0; c < b->channel_count[bj]; c++) {
            int ch = b->channel[bj][c];
            if (ch <= BVH_ZPOS) {
                t[ch - BVH_XPOS] += v[c];
            } else {
                /* Channels compose in file order: R = R1 R2 R3. */
                float r[4], qn[4];
                pose_quat_axis_angle(axes[ch - BVH_XROT], v[c] * BVH_DEG_TO_RAD, r);
                pose_quat_mul(q, r, qn);
                memcpy(q, qn, sizeof q);
            }
        }
        memcpy(out->rot[j], q, sizeof q);
        memcpy(out->trans[j], t, sizeof t);
    }
    return true;
}

bool bvh_to_skel(const bvh_t *b, skel_t *out)
{
    memset(out, 0, sizeof *out);
    if (b->joint_count < 1) {
        log_error("%s: no joints", b->source);
        return false;
    }
    if (b->end_count > SKEL_MAX_ENDS) {
        log_error("%s: %d End Sites, a skeleton holds %d", b->source, b->end_count, SKEL_MAX_ENDS);
        return false;
    }
    out->joint_count = b->joint_count;
    for (int j = 0; j < b->joint_count; j++) {
        memcpy(out->joint_name[j], b->joint_name[j], SKEL_NAME_MAX);
        out->joint_parent[j] = b->joint_parent[j];
        memcpy(out->joint_offset[j], b->joint_offset[j], sizeof out->joint_offset[j]);
    }
    out->end_count = b->end_count;
    for (int e = 0; e < b->end_count; e++) {
        int p = b->end_parent[e];
        snprintf(out->end_name[e], SKEL_NAME_MAX, "%.*s_end", SKEL_NAME_MAX - 5, b->joint_name[p]);
        out->end_parent[e] = p;
        memcpy(out->end_offset[e], b->end_offset[e], sizeof out->end_offset[e]);
    }
    return true;
}
