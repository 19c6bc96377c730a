#include "render/sample_cull.h"

#include <math.h>
#include <stddef.h>

void sample_cull_project(const float mvp[16], int width, int height, const float *positions, uint32_t n,
                         float *out)
{
    float hw = 0.5f * (float)width, hh = 0.5f * (float)height;
    for (uint32_t v = 0; v < n; v++) {
        const float *p = positions + 3 * (size_t)v;
        float x = mvp[0] * p[0] + mvp[4] * p[1] + mvp[8] * p[2] + mvp[12];
        float y = mvp[1] * p[0] + mvp[5] * p[1] + mvp[9] * p[2] + mvp[13];
        float w = mvp[3] * p[0] + mvp[7] * p[1] + mvp[11] * p[2] + mvp[15];
        float *o = out + 3 * (size_t)v;
        /* Behind or at the eye the rasteriser clips; keep those triangles. */
        bool ok = w > 1e-6f && isfinite(x) && isfinite(y) && isfinite(w);
        float iw = ok ? 1.0f / w : 0.0f;
        o[0] = (x * iw + 1.0f) * hw;
        o[1] = (y * iw + 1.0f) * hh;
        o[2] = ok && isfinite(o[0]) && isfinite(o[1]) ? 1.0f : 0.0f;
    }
}

/* Whether some centre k + 0.5 (0 <= k < size) lies in [lo, hi] widened by
 * the margin: the first centre at or after lo - margin is at or before
 * hi + margin. */
static bool centre_between(float lo, float hi, int size)
{
    float first = ceilf(lo - SAMPLE_CULL_MARGIN_PX - 0.5f);
    float last = floorf(hi + SAMPLE_CULL_MARGIN_PX - 0.5f);
    if (first < 0.0f)
        first = 0.0f;
    if (last > (float)(size - 1))
        last = (float)(size - 1);
    return first <= last;
}

/* Twice the signed area of ABC in window space (> 0: counter-clockwise),
 * and how far the rasteriser's rounding could move it. */
static bool surely_clockwise(const float *a, const float *b, const float *c)
{
    float ex1 = b[0] - a[0], ey1 = b[1] - a[1], ex2 = c[0] - a[0], ey2 = c[1] - a[1];
    float area2 = ex1 * ey2 - ey1 * ex2;
    float slack = SAMPLE_CULL_WINDING_SLACK * (fabsf(ex1) + fabsf(ey1) + fabsf(ex2) + fabsf(ey2)) + 1e-3f;
    return area2 < -slack;
}

uint32_t sample_cull_triangles(const float *projected, int width, int height, bool cull_back,
                               const uint32_t *indices, uint32_t count, uint32_t *out)
{
    uint32_t kept = 0;
    for (uint32_t t = 0; t + 2 < count; t += 3) {
        const float *a = projected + 3 * (size_t)indices[t];
        const float *b = projected + 3 * (size_t)indices[t + 1];
        const float *c = projected + 3 * (size_t)indices[t + 2];
        bool keep = a[2] == 0.0f || b[2] == 0.0f || c[2] == 0.0f;
        if (!keep) {
            float x0 = fminf(a[0], fminf(b[0], c[0])), x1 = fmaxf(a[0], fmaxf(b[0], c[0]));
            float y0 = fminf(a[1], fminf(b[1], c[1])), y1 = fmaxf(a[1], fmaxf(b[1], c[1]));
            keep = centre_between(x0, x1, width) && centre_between(y0, y1, height) &&
                   !(cull_back && surely_clockwise(a, b, c));
        }
        if (keep) {
            out[kept] = indices[t];
            out[kept + 1] = indices[t + 1];
            out[kept + 2] = indices[t + 2];
            kept += 3;
        }
    }
    return kept;
}
