#include "cg_ao.h"

#include "core/mathx.h"

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rays start this far off the surface (cm) so they miss their own triangles. */
#define CG_AO_BIAS_CM 0.04f

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "strider: error: chargen: out of memory\n");
        exit(1);
    }
    return p;
}

void cg_ao_scene_build(cg_ao_scene_t *s, int nv, const float (*p)[3], int nt, const int (*t)[3], float cell_cm)
{
    memset(s, 0, sizeof *s);
    s->nt = nt;
    s->cell = cell_cm;
    s->tri = xmalloc((size_t)nt * sizeof *s->tri);
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (int v = 0; v < nv; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], p[v][k]);
            hi[k] = fmaxf(hi[k], p[v][k]);
        }
    for (int k = 0; k < 3; k++) {
        s->lo[k] = lo[k] - cell_cm;
        s->dim[k] = (int)((hi[k] - s->lo[k]) / cell_cm) + 2;
    }
    size_t ncell = (size_t)s->dim[0] * s->dim[1] * s->dim[2];
    s->cell_start = calloc(ncell + 1, sizeof *s->cell_start);
    int(*range)[6] = xmalloc((size_t)nt * sizeof *range);
    for (int i = 0; i < nt; i++) {
        float tlo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, thi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) {
                float x = p[t[i][c]][k];
                s->tri[i][c * 3 + k] = x;
                tlo[k] = fminf(tlo[k], x);
                thi[k] = fmaxf(thi[k], x);
            }
        for (int k = 0; k < 3; k++) {
            range[i][k] = clampi((int)((tlo[k] - s->lo[k]) / cell_cm), 0, s->dim[k] - 1);
            range[i][3 + k] = clampi((int)((thi[k] - s->lo[k]) / cell_cm), 0, s->dim[k] - 1);
        }
        for (int z = range[i][2]; z <= range[i][5]; z++)
            for (int y = range[i][1]; y <= range[i][4]; y++)
                for (int x = range[i][0]; x <= range[i][3]; x++)
                    s->cell_start[((size_t)z * s->dim[1] + y) * s->dim[0] + x + 1]++;
    }
    for (size_t c = 0; c < ncell; c++)
        s->cell_start[c + 1] += s->cell_start[c];
    s->cell_tris = xmalloc((size_t)s->cell_start[ncell] * sizeof *s->cell_tris);
    int *fill = calloc(ncell, sizeof *fill);
    for (int i = 0; i < nt; i++)
        for (int z = range[i][2]; z <= range[i][5]; z++)
            for (int y = range[i][1]; y <= range[i][4]; y++)
                for (int x = range[i][0]; x <= range[i][3]; x++) {
                    size_t c = ((size_t)z * s->dim[1] + y) * s->dim[0] + x;
                    s->cell_tris[s->cell_start[c] + fill[c]++] = i;
                }
    free(fill);
    free(range);
}

void cg_ao_scene_free(cg_ao_scene_t *s)
{
    free(s->tri);
    free(s->cell_start);
    free(s->cell_tris);
    memset(s, 0, sizeof *s);
}

/* Moller-Trumbore; returns the hit distance or FLT_MAX. */
static float ray_tri(const float o[3], const float d[3], const float *t)
{
    float e1[3] = {t[3] - t[0], t[4] - t[1], t[5] - t[2]};
    float e2[3] = {t[6] - t[0], t[7] - t[1], t[8] - t[2]};
    float pv[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
    float det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    if (fabsf(det) < 1e-9f)
        return FLT_MAX;
    float inv = 1.0f / det;
    float tv[3] = {o[0] - t[0], o[1] - t[1], o[2] - t[2]};
    float u = (tv[0] * pv[0] + tv[1] * pv[1] + tv[2] * pv[2]) * inv;
    if (u < 0.0f || u > 1.0f)
        return FLT_MAX;
    float qv[3] = {tv[1] * e1[2] - tv[2] * e1[1], tv[2] * e1[0] - tv[0] * e1[2], tv[0] * e1[1] - tv[1] * e1[0]};
    float v = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) * inv;
    if (v < 0.0f || u + v > 1.0f)
        return FLT_MAX;
    float h = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) * inv;
    return h > 0.0f ? h : FLT_MAX;
}

/* Marches the grid cells along the ray in half-cell steps. */
static bool ray_hits(const cg_ao_scene_t *s, const float o[3], const float d[3], float max_dist)
{
    float step = 0.5f * s->cell;
    size_t last = (size_t)-1;
    for (float t = 0.0f; t <= max_dist + step; t += step) {
        int c[3];
        bool out = false;
        for (int k = 0; k < 3; k++) {
            c[k] = (int)((o[k] + d[k] * t - s->lo[k]) / s->cell);
            out = out || c[k] < 0 || c[k] >= s->dim[k];
        }
        if (out)
            return false;
        size_t ci = ((size_t)c[2] * s->dim[1] + c[1]) * s->dim[0] + c[0];
        if (ci == last)
            continue;
        last = ci;
        for (int i = s->cell_start[ci]; i < s->cell_start[ci + 1]; i++)
            if (ray_tri(o, d, s->tri[s->cell_tris[i]]) < max_dist)
                return true;
    }
    return false;
}

static unsigned lcg(unsigned *st)
{
    *st = *st * 1664525u + 1013904223u;
    return *st >> 8;
}

float cg_ao_vertex(const cg_ao_scene_t *s, const float p[3], const float n[3], int rays, float max_dist, unsigned seed)
{
    /* Orthonormal frame around n. */
    float a[3] = {fabsf(n[0]) < 0.9f ? 1.0f : 0.0f, fabsf(n[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
    float t[3] = {a[1] * n[2] - a[2] * n[1], a[2] * n[0] - a[0] * n[2], a[0] * n[1] - a[1] * n[0]};
    float tl = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    for (int k = 0; k < 3; k++)
        t[k] /= tl;
    float b[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]};
    float o[3] = {p[0] + n[0] * CG_AO_BIAS_CM, p[1] + n[1] * CG_AO_BIAS_CM, p[2] + n[2] * CG_AO_BIAS_CM};
    unsigned st = seed * 747796405u + 2891336453u;
    int hit = 0;
    for (int r = 0; r < rays; r++) {
        /* Cosine-weighted hemisphere sample, stratified in azimuth. */
        float u1 = ((float)(lcg(&st) & 0xffff) + 0.5f) / 65536.0f;
        float u2 = ((float)r + ((float)(lcg(&st) & 0xffff) + 0.5f) / 65536.0f) / (float)rays;
        float rr = sqrtf(u1), phi = 6.2831853f * u2;
        float x = rr * cosf(phi), y = rr * sinf(phi), z = sqrtf(fmaxf(0.0f, 1.0f - u1));
        float d[3];
        for (int k = 0; k < 3; k++)
            d[k] = x * t[k] + y * b[k] + z * n[k];
        hit += ray_hits(s, o, d, max_dist);
    }
    return 1.0f - (float)hit / (float)rays;
}
