#include "cg_preview.h"

#include "core/log.h"
#include "core/mathx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stb_image_write.h>

/* Supersampling factor per axis. */
#define CG_SS 2

bool cg_image_create(cg_image_t *img, int w, int h)
{
    img->w = w;
    img->h = h;
    img->rgb = calloc((size_t)w * (size_t)h * 3, 1);
    if (!img->rgb)
        log_error("chargen: out of memory for a %dx%d image", w, h);
    return img->rgb != NULL;
}

void cg_image_free(cg_image_t *img)
{
    free(img->rgb);
    img->rgb = NULL;
}

bool cg_image_save_png(const cg_image_t *img, const char *path)
{
    if (!stbi_write_png(path, img->w, img->h, 3, img->rgb, img->w * 3)) {
        log_error("%s: cannot write PNG", path);
        return false;
    }
    return true;
}

typedef struct camera_t {
    float right[3], up[3], fwd[3], eye[3];
    float focal; /* pixels */
    float cx, cy;
} camera_t;

static void cam_setup(camera_t *c, const cg_view_t *v, int w, int h)
{
    float yaw = v->yaw_deg * 3.14159265f / 180.0f, pitch = v->pitch_deg * 3.14159265f / 180.0f;
    /* Camera sits in front (+Z) of the target at yaw 0. */
    float dir[3] = {sinf(yaw) * cosf(pitch), sinf(pitch), cosf(yaw) * cosf(pitch)};
    for (int i = 0; i < 3; i++)
        c->eye[i] = v->target[i] + dir[i] * v->dist;
    for (int i = 0; i < 3; i++)
        c->fwd[i] = -dir[i];
    float wup[3] = {0, 1, 0};
    c->right[0] = c->fwd[1] * wup[2] - c->fwd[2] * wup[1];
    c->right[1] = c->fwd[2] * wup[0] - c->fwd[0] * wup[2];
    c->right[2] = c->fwd[0] * wup[1] - c->fwd[1] * wup[0];
    float l = sqrtf(c->right[0] * c->right[0] + c->right[1] * c->right[1] + c->right[2] * c->right[2]);
    for (int i = 0; i < 3; i++)
        c->right[i] /= l;
    c->up[0] = c->right[1] * c->fwd[2] - c->right[2] * c->fwd[1];
    c->up[1] = c->right[2] * c->fwd[0] - c->right[0] * c->fwd[2];
    c->up[2] = c->right[0] * c->fwd[1] - c->right[1] * c->fwd[0];
    c->focal = 0.5f * (float)h / tanf(0.5f * v->fov_deg * 3.14159265f / 180.0f);
    c->cx = 0.5f * (float)w;
    c->cy = 0.5f * (float)h;
}

/* Screen x, y and view depth of P. */
static void project(const camera_t *c, const float p[3], float o[3])
{
    float d[3] = {p[0] - c->eye[0], p[1] - c->eye[1], p[2] - c->eye[2]};
    float z = d[0] * c->fwd[0] + d[1] * c->fwd[1] + d[2] * c->fwd[2];
    float x = d[0] * c->right[0] + d[1] * c->right[1] + d[2] * c->right[2];
    float y = d[0] * c->up[0] + d[1] * c->up[1] + d[2] * c->up[2];
    o[2] = z;
    if (z < 1.0f)
        z = 1.0f;
    o[0] = c->cx + c->focal * x / z;
    o[1] = c->cy - c->focal * y / z;
}

static void shade(const camera_t *cam, const float n_in[3], const float col[3], float ao, float out[3])
{
    float n[3] = {n_in[0], n_in[1], n_in[2]};
    float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (l > 0.0f)
        for (int i = 0; i < 3; i++)
            n[i] /= l;
    /* Lights are fixed to the camera so every view is lit from its front. */
    float key[3], fill[3], rim[3];
    for (int i = 0; i < 3; i++) {
        key[i] = -0.55f * cam->right[i] + 0.65f * cam->up[i] - 0.55f * cam->fwd[i];
        fill[i] = 0.7f * cam->right[i] + 0.1f * cam->up[i] - 0.6f * cam->fwd[i];
        rim[i] = 0.3f * cam->right[i] + 0.5f * cam->up[i] + 0.8f * cam->fwd[i];
    }
    float kl = sqrtf(key[0] * key[0] + key[1] * key[1] + key[2] * key[2]);
    float fl = sqrtf(fill[0] * fill[0] + fill[1] * fill[1] + fill[2] * fill[2]);
    float rl = sqrtf(rim[0] * rim[0] + rim[1] * rim[1] + rim[2] * rim[2]);
    float dk = (n[0] * key[0] + n[1] * key[1] + n[2] * key[2]) / kl;
    float df = (n[0] * fill[0] + n[1] * fill[1] + n[2] * fill[2]) / fl;
    float dr = (n[0] * rim[0] + n[1] * rim[1] + n[2] * rim[2]) / rl;
    /* Half-wrapped key (softer terminator, reads as skin/cloth). */
    float k = clamp01f((dk + 0.25f) / 1.25f);
    float sky = 0.5f + 0.5f * n[1];
    float amb = (0.22f + 0.16f * sky) * ao;
    float lit = 1.05f * k * (0.35f + 0.65f * ao) + 0.28f * clamp01f(df) * ao + 0.35f * clamp01f(dr) * ao;
    for (int i = 0; i < 3; i++)
        out[i] = col[i] * (amb + lit);
}

static uint8_t to_srgb8(float v)
{
    v = clamp01f(v);
    float s = v <= 0.0031308f ? 12.92f * v : 1.055f * powf(v, 1.0f / 2.4f) - 0.055f;
    return (uint8_t)(s * 255.0f + 0.5f);
}

void cg_preview_draw(cg_image_t *img, int x0, int y0, int w, int h, const cg_view_t *view, const cg_draw_mesh_t *meshes,
                     int count)
{
    int W = w * CG_SS, H = h * CG_SS;
    float *zb = malloc((size_t)W * H * sizeof *zb);
    float *cb = malloc((size_t)W * H * 3 * sizeof *cb);
    if (!zb || !cb) {
        free(zb);
        free(cb);
        log_error("chargen: out of memory for the preview");
        return;
    }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            /* Background: a soft vertical gradient. */
            float t = (float)y / (float)H;
            float *c = &cb[((size_t)y * W + x) * 3];
            c[0] = 0.16f + 0.10f * t;
            c[1] = 0.18f + 0.10f * t;
            c[2] = 0.22f + 0.08f * t;
            zb[(size_t)y * W + x] = 1e30f;
        }
    camera_t cam;
    cam_setup(&cam, view, W, H);
    for (int mi = 0; mi < count; mi++) {
        const cg_draw_mesh_t *m = &meshes[mi];
        float(*sp)[3] = malloc((size_t)m->nv * sizeof *sp);
        if (!sp)
            continue;
        for (int v = 0; v < m->nv; v++)
            project(&cam, m->p[v], sp[v]);
        for (int t = 0; t < m->nt; t++) {
            int i0 = m->t[t][0], i1 = m->t[t][1], i2 = m->t[t][2];
            const float *a = sp[i0], *b = sp[i1], *c = sp[i2];
            if (a[2] < 1.0f || b[2] < 1.0f || c[2] < 1.0f)
                continue;
            float area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
            /* Counter-clockwise in the world is clockwise on a y-down screen. */
            if (area >= 0.0f)
                continue;
            int minx = (int)floorf(fminf(a[0], fminf(b[0], c[0])));
            int maxx = (int)ceilf(fmaxf(a[0], fmaxf(b[0], c[0])));
            int miny = (int)floorf(fminf(a[1], fminf(b[1], c[1])));
            int maxy = (int)ceilf(fmaxf(a[1], fmaxf(b[1], c[1])));
            if (minx < 0)
                minx = 0;
            if (miny < 0)
                miny = 0;
            if (maxx > W - 1)
                maxx = W - 1;
            if (maxy > H - 1)
                maxy = H - 1;
            for (int y = miny; y <= maxy; y++)
                for (int x = minx; x <= maxx; x++) {
                    float px = (float)x + 0.5f, py = (float)y + 0.5f;
                    float w0 = (b[0] - px) * (c[1] - py) - (b[1] - py) * (c[0] - px);
                    float w1 = (c[0] - px) * (a[1] - py) - (c[1] - py) * (a[0] - px);
                    float w2 = (a[0] - px) * (b[1] - py) - (a[1] - py) * (b[0] - px);
                    if (w0 > 0.0f || w1 > 0.0f || w2 > 0.0f)
                        continue;
                    w0 /= area;
                    w1 /= area;
                    w2 /= area;
                    /* Perspective-correct weights. */
                    float q0 = w0 / a[2], q1 = w1 / b[2], q2 = w2 / c[2];
                    float qs = q0 + q1 + q2;
                    float z = 1.0f / qs;
                    size_t zi = (size_t)y * W + x;
                    if (z >= zb[zi])
                        continue;
                    zb[zi] = z;
                    q0 *= z;
                    q1 *= z;
                    q2 *= z;
                    float n[3], col[3];
                    for (int k = 0; k < 3; k++) {
                        n[k] = q0 * m->n[i0][k] + q1 * m->n[i1][k] + q2 * m->n[i2][k];
                        col[k] = q0 * m->color[i0][k] + q1 * m->color[i1][k] + q2 * m->color[i2][k];
                    }
                    float ao = m->ao ? q0 * m->ao[i0] + q1 * m->ao[i1] + q2 * m->ao[i2] : 1.0f;
                    shade(&cam, n, col, ao, &cb[zi * 3]);
                }
        }
        free(sp);
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float acc[3] = {0, 0, 0};
            for (int sy = 0; sy < CG_SS; sy++)
                for (int sx = 0; sx < CG_SS; sx++)
                    for (int k = 0; k < 3; k++)
                        acc[k] += cb[(((size_t)y * CG_SS + sy) * W + x * CG_SS + sx) * 3 + k];
            int ox = x0 + x, oy = y0 + y;
            if (ox < 0 || oy < 0 || ox >= img->w || oy >= img->h)
                continue;
            for (int k = 0; k < 3; k++)
                img->rgb[((size_t)oy * img->w + ox) * 3 + k] = to_srgb8(acc[k] / (CG_SS * CG_SS));
        }
    free(zb);
    free(cb);
}
