#include "bvh_lite.h"

#include "core/file.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BVH_MAX_BYTES ((size_t)256 << 20)
#define BVH_MAX_FRAMES 1000000

typedef struct lexer_t {
    const char *p, *end;
    char tok[64];
} lexer_t;

static bool next_tok(lexer_t *lx)
{
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' || *lx->p == '\n'))
        lx->p++;
    if (lx->p >= lx->end)
        return false;
    size_t n = 0;
    while (lx->p < lx->end && !(*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' || *lx->p == '\n')) {
        if (n + 1 < sizeof lx->tok)
            lx->tok[n++] = *lx->p;
        lx->p++;
    }
    lx->tok[n] = 0;
    return true;
}

static bool parse_float(const char *s, float *out)
{
    char *e = NULL;
    float v = strtof(s, &e);
    if (e == s || *e != 0 || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool bvh_lite_load(bvh_lite_t *b, const char *path)
{
    memset(b, 0, sizeof *b);
    uint8_t *data = NULL;
    size_t size = 0;
    if (!file_read_all(path, BVH_MAX_BYTES, &data, &size))
        return false;
    lexer_t lx = {.p = (const char *)data, .end = (const char *)data + size};
    bool ok = true;
    const char *err = NULL;
    while (ok && next_tok(&lx)) {
        if (!strcmp(lx.tok, "ROOT") || !strcmp(lx.tok, "JOINT")) {
            if (b->joint_count >= SKEL_MAX_JOINTS || !next_tok(&lx)) {
                err = "too many joints or missing name";
                ok = false;
                break;
            }
            int j = b->joint_count++;
            size_t n = strlen(lx.tok);
            if (n >= SKEL_NAME_MAX)
                n = SKEL_NAME_MAX - 1;
            memcpy(b->name[j], lx.tok, n);
            b->name[j][n] = 0;
        } else if (!strcmp(lx.tok, "CHANNELS")) {
            if (b->joint_count == 0 || !next_tok(&lx)) {
                err = "CHANNELS outside a joint";
                ok = false;
                break;
            }
            int c = atoi(lx.tok);
            if (c != 3 && c != 6) {
                err = "only 3 or 6 channels per joint are supported";
                ok = false;
                break;
            }
            int j = b->joint_count - 1;
            b->channels[j] = c;
            b->first_channel[j] = b->channel_count;
            b->channel_count += c;
            /* Check the rotation order is Z Y X (after any positions). */
            for (int k = 0; k < c; k++) {
                if (!next_tok(&lx)) {
                    ok = false;
                    break;
                }
                static const char *rot[3] = {"Zrotation", "Yrotation", "Xrotation"};
                int r = k - (c - 3);
                if (r >= 0 && strcmp(lx.tok, rot[r]) != 0) {
                    err = "rotation order is not Z Y X";
                    ok = false;
                }
            }
        } else if (!strcmp(lx.tok, "MOTION")) {
            float ft;
            if (!next_tok(&lx) || strcmp(lx.tok, "Frames:") || !next_tok(&lx)) {
                err = "bad MOTION header";
                ok = false;
                break;
            }
            long fc = strtol(lx.tok, NULL, 10);
            if (fc < 1 || fc > BVH_MAX_FRAMES || !next_tok(&lx) || strcmp(lx.tok, "Frame") ||
                !next_tok(&lx) || !next_tok(&lx) || !parse_float(lx.tok, &ft)) {
                err = "bad frame count or frame time";
                ok = false;
                break;
            }
            b->frame_count = (int)fc;
            b->frames = malloc((size_t)fc * (size_t)(b->channel_count ? b->channel_count : 1) * sizeof(float));
            if (!b->frames) {
                err = "out of memory";
                ok = false;
                break;
            }
            for (long i = 0; i < fc * b->channel_count; i++) {
                if (!next_tok(&lx) || !parse_float(lx.tok, &b->frames[i])) {
                    err = "truncated or bad number in MOTION";
                    ok = false;
                    break;
                }
            }
            break;
        }
    }
    if (ok && (b->joint_count == 0 || b->frame_count == 0)) {
        err = "no joints or no frames";
        ok = false;
    }
    if (!ok) {
        log_error("%s: %s", path, err ? err : "unexpected end of file");
        bvh_lite_free(b);
    }
    file_free(data);
    return ok;
}

void bvh_lite_free(bvh_lite_t *b)
{
    free(b->frames);
    memset(b, 0, sizeof *b);
}

static void quat_mul(const float a[4], const float b[4], float o[4])
{
    float t[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, t, sizeof t);
}

bool bvh_lite_pose(const bvh_lite_t *b, const skel_t *s, int frame, float (*local_q)[4],
                   float root_t[3])
{
    if (frame < 0 || frame >= b->frame_count)
        return false;
    const float *f = &b->frames[(size_t)frame * b->channel_count];
    root_t[0] = root_t[1] = root_t[2] = 0.0f;
    for (int j = 0; j < s->joint_count; j++) {
        local_q[j][0] = local_q[j][1] = local_q[j][2] = 0.0f;
        local_q[j][3] = 1.0f;
        int bj = -1;
        for (int k = 0; k < b->joint_count; k++)
            if (!strcmp(b->name[k], s->joint_name[j]))
                bj = k;
        if (bj < 0)
            continue;
        const float *c = f + b->first_channel[bj];
        if (b->channels[bj] == 6) {
            if (j == 0)
                memcpy(root_t, c, 3 * sizeof *c);
            c += 3;
        }
        /* R = Rz * Ry * Rx (degrees). */
        const float d2r = 3.14159265f / 180.0f;
        float qz[4] = {0, 0, sinf(0.5f * c[0] * d2r), cosf(0.5f * c[0] * d2r)};
        float qy[4] = {0, sinf(0.5f * c[1] * d2r), 0, cosf(0.5f * c[1] * d2r)};
        float qx[4] = {sinf(0.5f * c[2] * d2r), 0, 0, cosf(0.5f * c[2] * d2r)};
        float t[4];
        quat_mul(qz, qy, t);
        quat_mul(t, qx, local_q[j]);
    }
    return true;
}
