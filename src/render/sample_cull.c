#include "render/sample_cull.h"

#include <math.h>
#include <stddef.h>

/* The centre range of a window coordinate V on an axis of SIZE pixels:
 * the first centre k + 0.5 at or after V - margin, clamped to [0, size],
 * and the last at or before V + margin, clamped to [-1, size - 1]. The
 * differences are rounded as a box test on the triangle would round them;
 * clamped to [-1, size] first (whole numbers: no result changes), they
 * convert to int exactly, and truncation corrected by one is ceil or floor. */
static void centre_range(float v, int size, int16_t *first, int16_t *last)
{
    float top = (float)size;
    float lo = v - SAMPLE_CULL_MARGIN_PX - 0.5f, hi = v + SAMPLE_CULL_MARGIN_PX - 0.5f;
    lo = lo < -1.0f ? -1.0f : lo > top ? top : lo;
    hi = hi < -1.0f ? -1.0f : hi > top ? top : hi;
    int f = (int)lo, l = (int)hi;
    f += (float)f < lo;
    l -= (float)l > hi;
    *first = (int16_t)(f < 0 ? 0 : f);
    *last = (int16_t)(l > size - 1 ? size - 1 : l);
}

void sample_cull_project(const float mvp[16], int width, int height, const float *positions, uint32_t n,
                         sample_cull_vertex *out)
{
    float hw = 0.5f * (float)width, hh = 0.5f * (float)height;
    for (uint32_t v = 0; v < n; v++) {
        const float *p = positions + 3 * (size_t)v;
        float x = mvp[0] * p[0] + mvp[4] * p[1] + mvp[8] * p[2] + mvp[12];
        float y = mvp[1] * p[0] + mvp[5] * p[1] + mvp[9] * p[2] + mvp[13];
        float w = mvp[3] * p[0] + mvp[7] * p[1] + mvp[11] * p[2] + mvp[15];
        sample_cull_vertex *o = out + v;
        /* Behind or at the eye the rasteriser clips; keep those triangles. */
        bool ok = w > 1e-6f && isfinite(x) && isfinite(y) && isfinite(w);
        float iw = ok ? 1.0f / w : 0.0f;
        o->x = (x * iw + 1.0f) * hw;
        o->y = (y * iw + 1.0f) * hh;
        if (ok && isfinite(o->x) && isfinite(o->y)) {
            centre_range(o->x, width, &o->first[0], &o->last[0]);
            centre_range(o->y, height, &o->first[1], &o->last[1]);
        } else {
            o->first[0] = o->first[1] = o->last[0] = o->last[1] = -1;
        }
    }
}

/* Twice the signed area of ABC in window space (> 0: counter-clockwise),
 * and how far the rasteriser's rounding could move it. */
static bool surely_clockwise(const sample_cull_vertex *a, const sample_cull_vertex *b, const sample_cull_vertex *c)
{
    float ex1 = b->x - a->x, ey1 = b->y - a->y, ex2 = c->x - a->x, ey2 = c->y - a->y;
    float area2 = ex1 * ey2 - ey1 * ex2;
    float slack = SAMPLE_CULL_WINDING_SLACK * (fabsf(ex1) + fabsf(ey1) + fabsf(ex2) + fabsf(ey2)) + 1e-3f;
    return area2 < -slack;
}

static int min3(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

static int max3(int a, int b, int c)
{
    int m = a > b ? a : b;
    return m > c ? m : c;
}

uint32_t sample_cull_triangles(const sample_cull_vertex *projected, bool cull_back, const uint32_t *indices,
                               uint32_t count, uint32_t *out)
{
    uint32_t kept = 0;
    for (uint32_t t = 0; t + 2 < count; t += 3) {
        uint32_t ia = indices[t], ib = indices[t + 1], ic = indices[t + 2];
        const sample_cull_vertex *a = projected + ia, *b = projected + ib, *c = projected + ic;
        int fx = min3(a->first[0], b->first[0], c->first[0]);
        int fy = min3(a->first[1], b->first[1], c->first[1]);
        bool keep = fx <= max3(a->last[0], b->last[0], c->last[0]) && fy <= max3(a->last[1], b->last[1], c->last[1]);
        /* fx < 0: a vertex was not projected; the triangle stays whole. */
        if (keep && cull_back && fx >= 0)
            keep = !surely_clockwise(a, b, c);
        /* Written either way (OUT has room): no branch on the outcome. */
        out[kept] = ia;
        out[kept + 1] = ib;
        out[kept + 2] = ic;
        kept += keep ? 3u : 0u;
    }
    return kept;
}
