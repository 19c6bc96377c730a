#include "render/gfx_level.h"

#include "core/log.h"
#include "render/gfx_validate.h"

#include <cglm/cglm.h>

#include <GL/glew.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Terrains larger than this many samples per side are drawn with a stride, so
 * the grid stays cheap on software rasterisers. */
enum { TERRAIN_MAX_DRAW_SIDE = 1025, TERRAIN_MAX_SIDE = 8192 };

/* Colours (sRGB). */
#define COLOR_WALL DEBUG_RGBA(196, 186, 170, 255)
#define COLOR_WALL_TOP DEBUG_RGBA(226, 218, 204, 255)
#define COLOR_ROOF DEBUG_RGBA(222, 120, 48, 255)
#define COLOR_ROOF_EDGE DEBUG_RGBA(245, 200, 60, 255)
#define COLOR_PILLAR DEBUG_RGBA(110, 110, 122, 255)
#define COLOR_JUMP_RING DEBUG_RGBA(40, 160, 255, 235)
#define COLOR_JUMP_FILL DEBUG_RGBA(40, 160, 255, 80)
#define COLOR_MARKER_BODY DEBUG_RGBA(215, 50, 60, 255)
#define COLOR_MARKER_NOSE DEBUG_RGBA(250, 225, 90, 255)

static const float WALL_SINK_CM = 40.0f;  /* walls start below the ground so slopes show no gap */
static const float WALL_STEP_CM = 100.0f; /* walls follow the terrain in pieces this long */
static const float ROOF_THICKNESS_CM = 18.0f;
static const float ROOF_STEP_CM = 100.0f;
static const float PILLAR_HALF_CM = 10.0f;
static const float PILLAR_SPACING_CM = 400.0f;
static const float JUMP_LIFT_CM = 3.0f;  /* above the terrain; plus polygon offset when drawn */
static const float JUMP_RING_CM = 18.0f; /* width of the opaque rim */

/* Bilinear height, clamped at the border (same rule as world/terrain). */
static float height_at(const terrain_t *t, float x, float z)
{
    float fx = (x - t->origin_x) / t->cell_cm;
    float fz = (z - t->origin_z) / t->cell_cm;
    fx = glm_clamp(fx, 0.0f, (float)(t->width - 1));
    fz = glm_clamp(fz, 0.0f, (float)(t->depth - 1));
    int i = (int)fx, j = (int)fz;
    if (i > t->width - 2)
        i = t->width - 2;
    if (j > t->depth - 2)
        j = t->depth - 2;
    float u = fx - (float)i, v = fz - (float)j;
    const float *h = t->heights;
    float h00 = h[j * t->width + i], h10 = h[j * t->width + i + 1];
    float h01 = h[(j + 1) * t->width + i], h11 = h[(j + 1) * t->width + i + 1];
    return (h00 * (1 - u) + h10 * u) * (1 - v) + (h01 * (1 - u) + h11 * u) * v;
}

static void normal_at(const terrain_t *t, float x, float z, float out[3])
{
    float e = t->cell_cm;
    float dx = height_at(t, x + e, z) - height_at(t, x - e, z);
    float dz = height_at(t, x, z + e) - height_at(t, x, z - e);
    vec3 n = {-dx, 2.0f * e, -dz};
    glm_vec3_normalize(n);
    glm_vec3_copy(n, out);
}

static bool terrain_valid(const terrain_t *t, const char *name)
{
    if (!t->heights || t->width < 2 || t->depth < 2 || t->width > TERRAIN_MAX_SIDE || t->depth > TERRAIN_MAX_SIDE ||
        !(t->cell_cm > 0.0f) || !isfinite(t->cell_cm) || !isfinite(t->origin_x) || !isfinite(t->origin_z)) {
        log_error("render: level '%s': terrain %dx%d, cell %g cm is not drawable", name, t->width, t->depth,
                  (double)t->cell_cm);
        return false;
    }
    for (int k = 0; k < t->width * t->depth; k++) {
        if (!isfinite(t->heights[k])) {
            log_error("render: level '%s': terrain height %d is not finite", name, k);
            return false;
        }
    }
    return true;
}

/* Skirts hang this far below each chunk's border, deeper than the largest
 * height error between two levels of detail on walkable terrain. */
static const float SKIRT_CM = 120.0f;
/* A chunk may use a coarser level while one of its cells would span less
 * than this fraction of the distance to the eye (about 2.9 degrees, ~40
 * pixels at 720p with a 55 degree lens). Small triangles are what costs most
 * on software rasterisers, which shade whole pixel blocks per triangle. */
static const float LOD_ANGLE = 0.05f;

/* Appends the indices of one chunk at sampling stride S, relative to BASE
 * (the chunk's first vertex; drawn with it as the base vertex): the
 * surface's, then each side's skirt (GFX_TERRAIN_SIDE_* order), their
 * counts into *SURFACE and SKIRT. Grid positions are in drawn-grid units;
 * (ia..ib, ja..jb) are inclusive corner samples. TOP maps a grid position
 * (j * nx + i) to its surface vertex, LOWERED one on a chunk border to its
 * lowered copy. */
static void chunk_indices(gfx_mesh_builder_t *b, int nx, const uint32_t *top, const uint32_t *lowered, uint32_t base,
                          int ia, int ib, int ja, int jb, int s, int *surface, int skirt[GFX_TERRAIN_SIDES])
{
    int xs[GFX_TERRAIN_CHUNK_CELLS + 2], zs[GFX_TERRAIN_CHUNK_CELLS + 2];
    if (s > GFX_TERRAIN_CHUNK_CELLS)
        s = GFX_TERRAIN_CHUNK_CELLS;
    int cx = 0, cz = 0;
    for (int i = ia; i < ib; i += s)
        xs[cx++] = i;
    xs[cx++] = ib;
    for (int j = ja; j < jb; j += s)
        zs[cz++] = j;
    zs[cz++] = jb;
#define G(i, j) ((j)*nx + (i))
#define V(i, j) (top[G(i, j)] - base)
#define L(i, j) (lowered[G(i, j)] - base)
    int start = b->icount;
    for (int z = 0; z + 1 < cz; z++) {
        for (int x = 0; x + 1 < cx; x++) {
            uint32_t a = V(xs[x], zs[z]), c = V(xs[x], zs[z + 1]);
            uint32_t a1 = V(xs[x + 1], zs[z]), c1 = V(xs[x + 1], zs[z + 1]);
            /* Counter-clockwise seen from above (+Y). */
            gfx_mb_triangle(b, a, c, a1);
            gfx_mb_triangle(b, a1, c, c1);
        }
    }
    *surface = b->icount - start;
    /* Skirts: each border edge gets a quad down to the lowered copy of its
     * vertices, side by side. */
    for (int side = 0; side < GFX_TERRAIN_SIDES; side++) {
        start = b->icount;
        if (side == GFX_TERRAIN_SIDE_Z0 || side == GFX_TERRAIN_SIDE_Z1) {
            int j = side == GFX_TERRAIN_SIDE_Z0 ? ja : jb;
            for (int x = 0; x + 1 < cx; x++) {
                gfx_mb_triangle(b, V(xs[x], j), V(xs[x + 1], j), L(xs[x + 1], j));
                gfx_mb_triangle(b, V(xs[x], j), L(xs[x + 1], j), L(xs[x], j));
            }
        } else {
            int i = side == GFX_TERRAIN_SIDE_X0 ? ia : ib;
            for (int z = 0; z + 1 < cz; z++) {
                gfx_mb_triangle(b, V(i, zs[z]), V(i, zs[z + 1]), L(i, zs[z + 1]));
                gfx_mb_triangle(b, V(i, zs[z]), L(i, zs[z + 1]), L(i, zs[z]));
            }
        }
        skirt[side] = b->icount - start;
    }
#undef L
#undef V
#undef G
}

static bool build_terrain(gfx_level_gpu_t *g, const terrain_t *t)
{
    int side = t->width > t->depth ? t->width : t->depth;
    int step = (side + TERRAIN_MAX_DRAW_SIDE - 2) / (TERRAIN_MAX_DRAW_SIDE - 1);
    if (step < 1)
        step = 1;
    /* Sample columns 0, step, 2*step ... and always the last one. */
    int nx = (t->width - 1 + step - 1) / step + 1;
    int nz = (t->depth - 1 + step - 1) / step + 1;
    const int C = GFX_TERRAIN_CHUNK_CELLS;
    gfx_mesh_builder_t b;
    gfx_mesh_builder_init(&b);
    g->height_min = INFINITY;
    g->height_max = -INFINITY;
    /* Row by row, the surface vertices and then the lowered copies the
     * skirts hang down to: only of the vertices on a chunk border (every
     * level's skirts use a subset of those), not of the whole grid, which
     * was 94% unused. Rows in order keep each chunk's vertices within 16-bit
     * indices of its first one (33 rows of at most 2 x 1025 vertices). */
    uint32_t *top = malloc((size_t)nx * (size_t)nz * sizeof *top);
    uint32_t *skirt = malloc((size_t)nx * (size_t)nz * sizeof *skirt);
    uint32_t *row_end = malloc((size_t)nz * sizeof *row_end);
    if (!top || !skirt || !row_end)
        b.failed = true;
    for (int jz = 0; jz < nz && !b.failed; jz++) {
        int j = jz * step < t->depth - 1 ? jz * step : t->depth - 1;
        bool border_row = jz % C == 0 || jz == nz - 1;
        for (int copy = 0; copy < 2; copy++) {
            for (int ix = 0; ix < nx; ix++) {
                if (copy && !border_row && ix % C != 0 && ix != nx - 1)
                    continue;
                int i = ix * step < t->width - 1 ? ix * step : t->width - 1;
                float x = t->origin_x + (float)i * t->cell_cm;
                float z = t->origin_z + (float)j * t->cell_cm;
                float h = t->heights[j * t->width + i];
                float p[3] = {x, copy ? h - SKIRT_CM : h, z}, n[3];
                normal_at(t, x, z, n);
                /* Alpha 0 marks skirt vertices for the shader. */
                uint32_t v = gfx_mb_vertex(&b, p, n, DEBUG_RGBA(255, 255, 255, copy ? 0 : 255));
                (copy ? skirt : top)[jz * nx + ix] = v;
                g->height_min = fminf(g->height_min, h);
                g->height_max = fmaxf(g->height_max, h);
            }
        }
        row_end[jz] = (uint32_t)b.vcount;
    }
    int ncx = (nx - 1 + C - 1) / C, ncz = (nz - 1 + C - 1) / C;
    g->chunks_x = ncx;
    g->chunks_z = ncz;
    g->chunk_count = ncx * ncz;
    /* A chunk's skirts form at most 2 runs (when the sides kept alternate). */
    size_t nc = (size_t)g->chunk_count, nr = 2 * nc;
    g->chunks = calloc(nc, sizeof *g->chunks);
    g->chunk_lod = calloc(nc, sizeof *g->chunk_lod);
    g->draw_chunk = calloc(nc, sizeof *g->draw_chunk);
    g->draw_dist = calloc(nc, sizeof *g->draw_dist);
    g->draw_group = calloc(nc, sizeof *g->draw_group);
    g->draw_counts = calloc(nc, sizeof *g->draw_counts);
    g->draw_offsets = calloc(nc, sizeof *g->draw_offsets);
    g->draw_base = calloc(nc, sizeof *g->draw_base);
    g->skirt_run = calloc(nc + 1, sizeof *g->skirt_run);
    g->skirt_counts = calloc(nr, sizeof *g->skirt_counts);
    g->skirt_offsets = calloc(nr, sizeof *g->skirt_offsets);
    g->skirt_base = calloc(nr, sizeof *g->skirt_base);
    bool ok = !b.failed && g->chunks && g->chunk_lod && g->draw_chunk && g->draw_dist && g->draw_group &&
              g->draw_counts && g->draw_offsets && g->draw_base && g->skirt_run && g->skirt_counts &&
              g->skirt_offsets && g->skirt_base;
    for (int cj = 0; ok && cj < ncz; cj++) {
        for (int ci = 0; ci < ncx; ci++) {
            gfx_terrain_chunk_t *ch = &g->chunks[cj * ncx + ci];
            int ia = ci * C, ib = ia + C < nx - 1 ? ia + C : nx - 1;
            int ja = cj * C, jb = ja + C < nz - 1 ? ja + C : nz - 1;
            float lo = INFINITY, hi = -INFINITY;
            for (int j = ja; j <= jb; j++)
                for (int i = ia; i <= ib; i++) {
                    float h = b.v[top[j * nx + i]].pos[1];
                    lo = fminf(lo, h);
                    hi = fmaxf(hi, h);
                }
            const gfx_vertex_t *v0 = &b.v[top[ja * nx + ia]], *v1 = &b.v[top[jb * nx + ib]];
            float box[2][3] = {{v0->pos[0], lo, v0->pos[2]}, {v1->pos[0], hi, v1->pos[2]}};
            memcpy(ch->box, box, sizeof box);
            ch->base = top[ja * nx];
            if (row_end[jb] - ch->base > UINT16_MAX + 1u) {
                log_error("render: terrain chunk of %u vertices exceeds 16-bit indices", row_end[jb] - ch->base);
                ok = false;
                break;
            }
            for (int l = 0; l < GFX_TERRAIN_LODS; l++) {
                ch->first[l] = b.icount;
                chunk_indices(&b, nx, top, skirt, ch->base, ia, ib, ja, jb, 1 << l, &ch->surface[l], ch->skirt[l]);
            }
        }
    }
    ok = ok && !b.failed && gfx_mesh_upload_short(&g->terrain, &b, "terrain");
    gfx_mesh_builder_free(&b);
    free(top);
    free(skirt);
    free(row_end);
    g->cell_cm = t->cell_cm * (float)step;
    g->min_x = t->origin_x;
    g->min_z = t->origin_z;
    g->max_x = t->origin_x + (float)(t->width - 1) * t->cell_cm;
    g->max_z = t->origin_z + (float)(t->depth - 1) * t->cell_cm;
    return ok;
}

/* Whether the points of CH (skirts included) may look up the shadow map of
 * LIGHT_VIEW_PROJ: their sun clip-space xy, pushed off the surface by up to
 * MARGIN (the shaders' normal offset), reaches the map's window [-1, 1]^2.
 * The projection is orthographic, so the box's corners bound the points. */
static bool chunk_reaches_shadow_map(const gfx_terrain_chunk_t *ch, const float light_view_proj[16], float margin)
{
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int k = 0; k < 8; k++) {
        float p[3] = {ch->box[k & 1][0], ch->box[(k >> 1) & 1][1], ch->box[(k >> 2) & 1][2]};
        if (!((k >> 1) & 1))
            p[1] -= SKIRT_CM;
        for (int a = 0; a < 2; a++) {
            float c = light_view_proj[a] * p[0] + light_view_proj[4 + a] * p[1] + light_view_proj[8 + a] * p[2] +
                      light_view_proj[12 + a];
            lo[a] = fminf(lo[a], c);
            hi[a] = fmaxf(hi[a], c);
        }
    }
    float edge = 1.0f + margin;
    return lo[0] < edge && hi[0] > -edge && lo[1] < edge && hi[1] > -edge;
}

/* Whether every point of CH, skirts included, lies nearer EYE than
 * FOG_FREE_CM: its box's farthest corner (skirts hang below the box). */
static bool chunk_before_fog(const gfx_terrain_chunk_t *ch, const float eye[3], float fog_free_cm)
{
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++) {
        float lo = ch->box[0][a] - (a == 1 ? SKIRT_CM : 0.0f);
        float c = fmaxf(fabsf(eye[a] - lo), fabsf(ch->box[1][a] - eye[a]));
        d2 += c * c;
    }
    return sqrtf(d2) < fog_free_cm;
}

/* Whether the skirt on SIDE of the listed chunk K may show in the latest
 * cull's view: at the terrain's edge, or where the chunk across is drawn
 * at another level (the two surfaces part between their shared samples).
 * Elsewhere it hangs below surfaces that meet vertex for vertex: a ray
 * from an eye above the terrain to any point of it meets a surface first,
 * inside the view (on the segment from the near plane to that point), so
 * on a chunk the cull keeps; that includes a neighbour outside the view,
 * whose surface the ray then does not cross. */
static bool skirt_may_show(const gfx_level_gpu_t *g, int k, int side)
{
    static const int step[GFX_TERRAIN_SIDES][2] = {{0, -1}, {0, 1}, {-1, 0}, {1, 0}};
    int ci = k % g->chunks_x + step[side][0], cj = k / g->chunks_x + step[side][1];
    if (ci < 0 || cj < 0 || ci >= g->chunks_x || cj >= g->chunks_z)
        return true;
    int lod = g->chunk_lod[cj * g->chunks_x + ci];
    return lod >= 0 && lod != g->chunk_lod[k];
}

/* Lists the listed chunk K's draws at its level: its surface at AT in the
 * list, and its skirts (ALL_SKIRTS: all four; else those that may show) as
 * runs from *RUNS (adjacent sides merged). Returns the triangles. */
static int list_draws(gfx_level_gpu_t *g, int k, int at, bool all_skirts, int *runs)
{
    const gfx_terrain_chunk_t *ch = &g->chunks[k];
    int lod = g->chunk_lod[k], from = ch->first[lod] + ch->surface[lod], to = from, tris = ch->surface[lod] / 3;
    g->draw_counts[at] = ch->surface[lod];
    g->draw_offsets[at] = (const void *)((uintptr_t)ch->first[lod] * sizeof(uint16_t));
    g->draw_base[at] = (int)ch->base;
    for (int side = 0; side <= GFX_TERRAIN_SIDES; side++) {
        if (side < GFX_TERRAIN_SIDES && (all_skirts || skirt_may_show(g, k, side))) {
            to += ch->skirt[lod][side];
            continue;
        }
        /* A side left out (or the end): close the run, skip its skirt. */
        if (to > from) {
            g->skirt_counts[*runs] = to - from;
            g->skirt_offsets[*runs] = (const void *)((uintptr_t)from * sizeof(uint16_t));
            g->skirt_base[*runs] = (int)ch->base;
            tris += (to - from) / 3;
            (*runs)++;
        }
        from = to = to + (side < GFX_TERRAIN_SIDES ? ch->skirt[lod][side] : 0);
    }
    return tris;
}

int gfx_level_cull_terrain(gfx_level_gpu_t *g, const float view_proj[16], const float eye[3], int min_lod,
                           const gfx_terrain_split_t *split, int group_count[GFX_TERRAIN_GROUPS])
{
    g->last_drawn_chunks = 0;
    g->last_drawn_triangles = 0;
    if (group_count)
        memset(group_count, 0, GFX_TERRAIN_GROUPS * sizeof *group_count);
    if (!g->loaded || !g->terrain.vao.id)
        return 0;
    mat4 vp;
    vec4 planes[6];
    memcpy(vp, view_proj, sizeof vp);
    glm_frustum_planes(vp, planes);
    int n = 0;
    for (int k = 0; k < g->chunk_count; k++) {
        gfx_terrain_chunk_t *ch = &g->chunks[k];
        g->chunk_lod[k] = -1;
        if (!glm_aabb_frustum(ch->box, planes))
            continue;
        /* Distance from the eye to the box decides the level of detail. */
        float d2 = 0.0f;
        for (int a = 0; a < 3; a++) {
            float c = glm_clamp(eye[a], ch->box[0][a], ch->box[1][a]) - eye[a];
            d2 += c * c;
        }
        float d = sqrtf(d2);
        int lod = glm_clamp(min_lod, 0, GFX_TERRAIN_LODS - 1);
        while (lod + 1 < GFX_TERRAIN_LODS && g->cell_cm * (float)(1 << (lod + 1)) < LOD_ANGLE * d)
            lod++;
        g->chunk_lod[k] = (int8_t)lod;
        uint8_t group = 0;
        if (split && split->light_view_proj &&
            !chunk_reaches_shadow_map(ch, split->light_view_proj, split->light_margin))
            group |= GFX_TERRAIN_BEYOND_MAP;
        if (split && split->fog_free_cm >= 0.0f && !chunk_before_fog(ch, eye, split->fog_free_cm))
            group |= GFX_TERRAIN_FOGGED;
        /* Insertion by group, then distance: near chunks first, so the
         * early depth test rejects what they hide before it is shaded. */
        int at = n;
        while (at > 0 &&
               (g->draw_group[at - 1] > group || (g->draw_group[at - 1] == group && g->draw_dist[at - 1] > d))) {
            g->draw_dist[at] = g->draw_dist[at - 1];
            g->draw_group[at] = g->draw_group[at - 1];
            g->draw_chunk[at] = g->draw_chunk[at - 1];
            at--;
        }
        g->draw_dist[at] = d;
        g->draw_group[at] = group;
        g->draw_chunk[at] = k;
        if (group_count)
            group_count[group]++;
        n++;
    }
    /* Every level is known now: each listed chunk's draws, in list order. */
    int runs = 0, tris = 0;
    bool all_skirts = !split || split->all_skirts;
    for (int i = 0; i < n; i++) {
        g->skirt_run[i] = runs;
        tris += list_draws(g, g->draw_chunk[i], i, all_skirts, &runs);
    }
    g->skirt_run[n] = runs;
    g->last_drawn_chunks = n;
    g->last_drawn_triangles = tris;
    return n;
}

/* Whether [FIRST, FIRST + COUNT) is a non-empty range of the latest cull's list. */
static bool listed(const gfx_level_gpu_t *g, int first, int count)
{
    return first >= 0 && count > 0 && first <= g->last_drawn_chunks - count;
}

/* N indexed draws of the terrain's mesh in one call. */
static void multi_draw(const gfx_level_gpu_t *g, const int *counts, const void *const *offsets, const int *base, int n)
{
    if (n <= 0)
        return;
    glBindVertexArray(g->terrain.vao.id);
    gfx_validate_draw("terrain");
    glMultiDrawElementsBaseVertex(GL_TRIANGLES, counts, GL_UNSIGNED_SHORT, offsets, n, base);
}

void gfx_level_draw_culled(gfx_level_gpu_t *g, int first, int count)
{
    if (listed(g, first, count))
        multi_draw(g, g->draw_counts + first, g->draw_offsets + first, g->draw_base + first, count);
}

void gfx_level_draw_culled_skirts(gfx_level_gpu_t *g, int first, int count)
{
    if (!listed(g, first, count))
        return;
    int r0 = g->skirt_run[first];
    multi_draw(g, g->skirt_counts + r0, g->skirt_offsets + r0, g->skirt_base + r0, g->skirt_run[first + count] - r0);
}

/* One wall: a box around the segment (half-thickness = radius, extended by the
 * radius past both ends like the capsule used for collision), cut into pieces
 * whose bottom and top follow the terrain. */
static void build_wall(gfx_mesh_builder_t *b, const terrain_t *t, const level_wall_t *w)
{
    float r = fmaxf(w->radius_cm, 5.0f);
    float dx = w->x1 - w->x0, dz = w->z1 - w->z0;
    float len = sqrtf(dx * dx + dz * dz);
    float ux = 0.0f, uz = 1.0f;
    if (len > 1e-3f) {
        ux = dx / len;
        uz = dz / len;
    }
    /* Perpendicular, pointing to the wall's right-hand side. */
    float px = uz, pz = -ux;
    float total = len + 2.0f * r;
    int pieces = (int)ceilf(total / WALL_STEP_CM);
    if (pieces < 1)
        pieces = 1;
    float sx = w->x0 - ux * r, sz = w->z0 - uz * r;
    float prev_l[2][3], prev_r[2][3];
    for (int k = 0; k <= pieces; k++) {
        float s = total * (float)k / (float)pieces;
        float cx = sx + ux * s, cz = sz + uz * s;
        float lx = cx - px * r, lz = cz - pz * r, rx = cx + px * r, rz = cz + pz * r;
        float hl = height_at(t, lx, lz), hr = height_at(t, rx, rz), hc = height_at(t, cx, cz);
        float bottom = fminf(hl, hr) - WALL_SINK_CM;
        float top = hc + LEVEL_WALL_HEIGHT_CM;
        /* [0] = bottom, [1] = top */
        float cur_l[2][3] = {{lx, bottom, lz}, {lx, top, lz}};
        float cur_r[2][3] = {{rx, bottom, rz}, {rx, top, rz}};
        if (k == 0) {
            gfx_mb_quad(b, cur_l[0], cur_r[0], cur_r[1], cur_l[1], COLOR_WALL); /* start cap */
        } else {
            gfx_mb_quad(b, prev_l[0], prev_l[1], cur_l[1], cur_l[0], COLOR_WALL);
            gfx_mb_quad(b, prev_r[0], cur_r[0], cur_r[1], prev_r[1], COLOR_WALL);
            gfx_mb_quad(b, prev_l[1], prev_r[1], cur_r[1], cur_l[1], COLOR_WALL_TOP);
        }
        if (k == pieces)
            gfx_mb_quad(b, cur_l[0], cur_l[1], cur_r[1], cur_r[0], COLOR_WALL); /* end cap */
        memcpy(prev_l, cur_l, sizeof prev_l);
        memcpy(prev_r, cur_r, sizeof prev_r);
    }
}

static void pillar(gfx_mesh_builder_t *b, const terrain_t *t, float x, float z, float ceiling_cm)
{
    float g = height_at(t, x, z);
    float lo[3] = {x - PILLAR_HALF_CM, g - WALL_SINK_CM, z - PILLAR_HALF_CM};
    float hi[3] = {x + PILLAR_HALF_CM, g + ceiling_cm, z + PILLAR_HALF_CM};
    gfx_mb_box(b, lo, hi, COLOR_PILLAR);
}

/* A crouch area: a roof slab whose underside sits ceiling_cm above the
 * terrain everywhere (as the controller sees it), on pillars along the two
 * long sides so the open ends read as the tunnel's entrances. */
static void build_crouch(gfx_mesh_builder_t *b, const terrain_t *t, const level_crouch_area_t *a)
{
    float x0 = fminf(a->min_x, a->max_x), x1 = fmaxf(a->min_x, a->max_x);
    float z0 = fminf(a->min_z, a->max_z), z1 = fmaxf(a->min_z, a->max_z);
    float ceil_cm = fmaxf(a->ceiling_cm, 10.0f);
    int nx = (int)ceilf((x1 - x0) / ROOF_STEP_CM), nz = (int)ceilf((z1 - z0) / ROOF_STEP_CM);
    nx = nx < 1 ? 1 : (nx > 256 ? 256 : nx);
    nz = nz < 1 ? 1 : (nz > 256 ? 256 : nz);
    for (int j = 0; j < nz; j++) {
        for (int i = 0; i < nx; i++) {
            float xa = x0 + (x1 - x0) * (float)i / (float)nx, xb = x0 + (x1 - x0) * (float)(i + 1) / (float)nx;
            float za = z0 + (z1 - z0) * (float)j / (float)nz, zb = z0 + (z1 - z0) * (float)(j + 1) / (float)nz;
            float ha = height_at(t, xa, za) + ceil_cm, hb = height_at(t, xb, za) + ceil_cm;
            float hc = height_at(t, xb, zb) + ceil_cm, hd = height_at(t, xa, zb) + ceil_cm;
            float T = ROOF_THICKNESS_CM;
            float ua[3] = {xa, ha, za}, ub[3] = {xb, hb, za}, uc[3] = {xb, hc, zb}, ud[3] = {xa, hd, zb};
            float ta[3] = {xa, ha + T, za}, tb[3] = {xb, hb + T, za}, tc[3] = {xb, hc + T, zb},
                  td[3] = {xa, hd + T, zb};
            gfx_mb_quad(b, ua, ub, uc, ud, COLOR_ROOF); /* underside, faces down */
            gfx_mb_quad(b, ta, td, tc, tb, COLOR_ROOF); /* top, faces up */
            if (j == 0)
                gfx_mb_quad(b, ua, ta, tb, ub, COLOR_ROOF_EDGE);
            if (j == nz - 1)
                gfx_mb_quad(b, ud, uc, tc, td, COLOR_ROOF_EDGE);
            if (i == 0)
                gfx_mb_quad(b, ua, ud, td, ta, COLOR_ROOF_EDGE);
            if (i == nx - 1)
                gfx_mb_quad(b, ub, tb, tc, uc, COLOR_ROOF_EDGE);
        }
    }
    /* Pillars along the longer sides, inset by their own size. */
    bool along_x = (x1 - x0) >= (z1 - z0);
    float len = along_x ? x1 - x0 : z1 - z0;
    int n = (int)ceilf(len / PILLAR_SPACING_CM);
    if (n < 1)
        n = 1;
    if (n > 64)
        n = 64;
    for (int k = 0; k <= n; k++) {
        float s = (float)k / (float)n;
        if (along_x) {
            float x = x0 + PILLAR_HALF_CM + (x1 - x0 - 2.0f * PILLAR_HALF_CM) * s;
            pillar(b, t, x, z0 + PILLAR_HALF_CM, ceil_cm);
            pillar(b, t, x, z1 - PILLAR_HALF_CM, ceil_cm);
        } else {
            float z = z0 + PILLAR_HALF_CM + (z1 - z0 - 2.0f * PILLAR_HALF_CM) * s;
            pillar(b, t, x0 + PILLAR_HALF_CM, z, ceil_cm);
            pillar(b, t, x1 - PILLAR_HALF_CM, z, ceil_cm);
        }
    }
}

/* A jump area: a translucent disc with an opaque rim, draped on the terrain. */
static void build_jump(gfx_mesh_builder_t *b, const terrain_t *t, const level_jump_area_t *a)
{
    enum { SEGMENTS = 48 };
    float R = fmaxf(a->radius_cm, 10.0f);
    float rim = fminf(JUMP_RING_CM, R * 0.5f);
    /* Radii of the rings of vertices: interior rings about every 50 cm, then the rim. */
    float radii[16];
    int nr = 0;
    radii[nr++] = 0.0f;
    int inner = (int)ceilf((R - rim) / 50.0f);
    if (inner > 12)
        inner = 12;
    for (int k = 1; k <= inner; k++)
        radii[nr++] = (R - rim) * (float)k / (float)inner;
    radii[nr++] = R;
    uint32_t base = (uint32_t)b->vcount;
    for (int ring = 0; ring < nr; ring++) {
        /* The inner edge of the rim appears twice, once in each colour. */
        int copies = (ring == nr - 2) ? 2 : 1;
        for (int c = 0; c < copies; c++) {
            uint32_t col = (ring == nr - 1 || c == 1) ? COLOR_JUMP_RING : COLOR_JUMP_FILL;
            for (int s = 0; s < SEGMENTS; s++) {
                float ang = 2.0f * GLM_PIf * (float)s / (float)SEGMENTS;
                float x = a->x + radii[ring] * cosf(ang), z = a->z + radii[ring] * sinf(ang);
                float p[3] = {x, height_at(t, x, z) + JUMP_LIFT_CM, z}, n[3];
                normal_at(t, x, z, n);
                gfx_mb_vertex(b, p, n, col);
            }
        }
    }
    /* Row r of the vertex table: ring 0 .. nr-2 (fill), nr-1 (rim copy of nr-2), nr (outer rim). */
    int rows = nr + 1;
    for (int row = 0; row + 1 < rows; row++) {
        if (row == nr - 2)
            continue; /* between the two copies of the same ring: no triangles */
        for (int s = 0; s < SEGMENTS; s++) {
            int s1 = (s + 1) % SEGMENTS;
            uint32_t a0 = base + (uint32_t)(row * SEGMENTS + s), a1 = base + (uint32_t)(row * SEGMENTS + s1);
            uint32_t b0 = a0 + SEGMENTS, b1 = a1 + SEGMENTS;
            gfx_mb_triangle(b, a0, b1, b0);
            if (row > 0)
                gfx_mb_triangle(b, a0, a1, b1);
        }
    }
}

bool gfx_level_build(gfx_level_gpu_t *g, const level_t *lvl)
{
    memset(g, 0, sizeof *g);
    const terrain_t *t = &lvl->terrain;
    if (!terrain_valid(t, lvl->name))
        return false;
    if (lvl->wall_count < 0 || lvl->wall_count > LEVEL_MAX_WALLS || lvl->crouch_count < 0 ||
        lvl->crouch_count > LEVEL_MAX_CROUCH || lvl->jump_count < 0 || lvl->jump_count > LEVEL_MAX_JUMP) {
        log_error("render: level '%s': area or wall count out of range", lvl->name);
        return false;
    }
    if (!build_terrain(g, t)) {
        gfx_level_gpu_free(g);
        return false;
    }
    gfx_mesh_builder_t b;
    bool ok = true;

    gfx_mesh_builder_init(&b);
    for (int k = 0; k < lvl->wall_count; k++)
        build_wall(&b, t, &lvl->walls[k]);
    if (b.vcount > 0)
        ok = ok && gfx_mesh_upload(&g->walls, &b, "walls");
    ok = ok && !b.failed;
    gfx_mesh_builder_free(&b);

    gfx_mesh_builder_init(&b);
    for (int k = 0; k < lvl->crouch_count; k++)
        build_crouch(&b, t, &lvl->crouch[k]);
    if (b.vcount > 0)
        ok = ok && gfx_mesh_upload(&g->crouch, &b, "crouch_areas");
    ok = ok && !b.failed;
    gfx_mesh_builder_free(&b);

    gfx_mesh_builder_init(&b);
    for (int k = 0; k < lvl->jump_count; k++)
        build_jump(&b, t, &lvl->jump[k]);
    if (b.vcount > 0)
        ok = ok && gfx_mesh_upload(&g->jump, &b, "jump_areas");
    ok = ok && !b.failed;
    gfx_mesh_builder_free(&b);

    if (!ok) {
        log_error("render: level '%s': could not build its meshes", lvl->name);
        gfx_level_gpu_free(g);
        return false;
    }
    g->loaded = true;
    return true;
}

void gfx_level_gpu_free(gfx_level_gpu_t *g)
{
    free(g->chunks);
    free(g->chunk_lod);
    free(g->draw_chunk);
    free(g->draw_dist);
    free(g->draw_group);
    free(g->draw_counts);
    free(g->draw_offsets);
    free(g->draw_base);
    free(g->skirt_run);
    free(g->skirt_counts);
    free(g->skirt_offsets);
    free(g->skirt_base);
    g->chunks = NULL;
    g->chunk_lod = NULL;
    g->draw_chunk = NULL;
    g->draw_dist = NULL;
    g->draw_group = NULL;
    g->draw_counts = NULL;
    g->draw_offsets = NULL;
    g->draw_base = NULL;
    g->skirt_run = NULL;
    g->skirt_counts = NULL;
    g->skirt_offsets = NULL;
    g->skirt_base = NULL;
    g->chunk_count = g->chunks_x = g->chunks_z = 0;
    gfx_mesh_free(&g->terrain);
    gfx_mesh_free(&g->walls);
    gfx_mesh_free(&g->crouch);
    gfx_mesh_free(&g->jump);
    g->loaded = false;
}

bool gfx_marker_build(gfx_mesh_t *m)
{
    gfx_mesh_builder_t b;
    gfx_mesh_builder_init(&b);
    gfx_mb_capsule(&b, 0.0f, 0.0f, 0.0f, GFX_MARKER_HEIGHT_CM, GFX_MARKER_RADIUS_CM, 20, COLOR_MARKER_BODY);
    /* Nose at eye height pointing along +Z (the heading). */
    float nose_base[3] = {0.0f, GFX_MARKER_HEIGHT_CM - 25.0f, GFX_MARKER_RADIUS_CM - 4.0f};
    float nose_tip[3] = {0.0f, GFX_MARKER_HEIGHT_CM - 25.0f, GFX_MARKER_RADIUS_CM + 28.0f};
    gfx_mb_cone(&b, nose_base, nose_tip, 9.0f, 12, COLOR_MARKER_NOSE);
    /* Arrow on the ground ahead of the feet, readable from high cameras. */
    float a[3] = {-22.0f, 2.0f, GFX_MARKER_RADIUS_CM + 12.0f};
    float c[3] = {22.0f, 2.0f, GFX_MARKER_RADIUS_CM + 12.0f};
    float tip[3] = {0.0f, 2.0f, GFX_MARKER_RADIUS_CM + 62.0f};
    float up[3] = {0.0f, 1.0f, 0.0f};
    uint32_t i0 = gfx_mb_vertex(&b, a, up, COLOR_MARKER_NOSE);
    uint32_t i1 = gfx_mb_vertex(&b, c, up, COLOR_MARKER_NOSE);
    uint32_t i2 = gfx_mb_vertex(&b, tip, up, COLOR_MARKER_NOSE);
    gfx_mb_triangle(&b, i0, i2, i1);
    /* Arrow on top of the head: the heading also reads from behind and above,
     * where the body hides the nose and the ground arrow. */
    float h = GFX_MARKER_HEIGHT_CM + 2.0f;
    float ta[3] = {-17.0f, h, -12.0f}, tc[3] = {17.0f, h, -12.0f}, tt[3] = {0.0f, h, GFX_MARKER_RADIUS_CM + 22.0f};
    uint32_t j0 = gfx_mb_vertex(&b, ta, up, COLOR_MARKER_NOSE);
    uint32_t j1 = gfx_mb_vertex(&b, tc, up, COLOR_MARKER_NOSE);
    uint32_t j2 = gfx_mb_vertex(&b, tt, up, COLOR_MARKER_NOSE);
    gfx_mb_triangle(&b, j0, j2, j1);
    bool ok = gfx_mesh_upload(m, &b, "marker");
    gfx_mesh_builder_free(&b);
    return ok;
}
