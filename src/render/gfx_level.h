/* gfx_level: turns a level_t (plain data) into GPU meshes: the terrain grid,
 * wall boxes, crouch-tunnel roofs on pillars and jump discs; and builds the
 * marker mesh. Used by gfx.c only (the public entry is gfx_level_load).
 *
 * The terrain is cut into square chunks, each with index lists at four
 * levels of detail (every sample, every 2nd, 4th, 8th) plus skirts that hide
 * cracks between neighbours at different levels. Per pass,
 * gfx_level_cull_terrain() culls chunks against a frustum and picks each
 * one's level from its distance to the eye; gfx_level_draw_culled() draws
 * them in one call, or in two parts with two programs (the chunks beyond
 * the shadow map without its lookup).
 * Call order: gfx_level_build() -> gfx_level_cull_terrain() ->
 * gfx_level_draw_culled() / draw the other meshes (gfx.c) -> gfx_level_gpu_free().
 * Does NOT: keep pointers into the level or set GL state beyond binding its
 * vertex array; all allocation happens in gfx_level_build().
 */
#ifndef STRIDER_RENDER_GFX_LEVEL_H
#define STRIDER_RENDER_GFX_LEVEL_H

#include "render/gfx_mesh.h"
#include "world/level.h"

/* Visual sizes, cm (walls are LEVEL_WALL_HEIGHT_CM tall: chest-high, so
 * they block the path but not the view). */
#define GFX_MARKER_HEIGHT_CM 170.0f
#define GFX_MARKER_RADIUS_CM 22.0f

enum { GFX_TERRAIN_LODS = 4, GFX_TERRAIN_CHUNK_CELLS = 32 };

typedef struct gfx_terrain_chunk {
    float box[2][3];                   /* world AABB (skirts excluded), cm */
    int first[GFX_TERRAIN_LODS];       /* first index in the terrain index buffer */
    int count[GFX_TERRAIN_LODS];       /* indices (16-bit, relative to base) */
    uint32_t base;                     /* the chunk's first vertex: its draws' base vertex */
} gfx_terrain_chunk;

typedef struct gfx_level_gpu {
    gfx_mesh terrain;  /* grid + skirt vertices, all chunks' index lists */
    gfx_terrain_chunk *chunks;
    int chunk_count;
    float cell_cm;     /* spacing of the drawn grid */
    /* Per-draw scratch for glMultiDrawElementsBaseVertex, sized chunk_count at build time. */
    int *draw_counts;
    const void **draw_offsets;
    float *draw_dist;
    int *draw_base;
    int last_drawn_chunks;      /* entries of the lists filled by the latest cull (stats too) */
    int last_drawn_triangles;
    gfx_mesh walls;    /* opaque */
    gfx_mesh crouch;   /* opaque roofs and pillars */
    gfx_mesh jump;     /* translucent discs */
    float height_min, height_max;   /* terrain heights, cm */
    float min_x, min_z, max_x, max_z; /* terrain extent, cm */
    bool loaded;
} gfx_level_gpu;

bool gfx_level_build(gfx_level_gpu *g, const level_t *lvl);
/* Lists the chunks that intersect the frustum of VIEW_PROJ (column-major)
 * for gfx_level_draw_culled, with detail chosen by distance to EYE but
 * never finer than MIN_LOD (the shadow pass uses 1: casters need less
 * detail than what receives light), near chunks first. With
 * LIGHT_VIEW_PROJ (the sun's orthographic clip space, column-major; NULL:
 * none), the chunks whose points may look up its shadow map (within
 * LIGHT_MARGIN clip units of its window) come first, each part nearest
 * first, and the count of that first part is returned; else the count of
 * all. The rest lie wholly outside the map, where the shaders' shadow term
 * is 1: they may be drawn by a program without the lookup. */
int gfx_level_cull_terrain(gfx_level_gpu *g, const float view_proj[16], const float eye[3], int min_lod,
                           const float *light_view_proj, float light_margin);
/* Draws COUNT entries of the latest cull from FIRST. The caller binds the program. */
void gfx_level_draw_culled(gfx_level_gpu *g, int first, int count);
void gfx_level_gpu_free(gfx_level_gpu *g);

/* The marker at the origin, facing +Z, feet at y = 0. */
bool gfx_marker_build(gfx_mesh *m);

#endif
