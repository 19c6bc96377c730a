/* gfx_level: turns a level_t (plain data) into GPU meshes: the terrain grid,
 * wall boxes, crouch-tunnel roofs on pillars and jump discs; and builds the
 * marker mesh. Used by gfx.c only (the public entry is gfx_level_load).
 *
 * The terrain is cut into square chunks, each with index lists at four
 * levels of detail (every sample, every 2nd, 4th, 8th) plus skirts that hide
 * cracks between neighbours at different levels. Per pass,
 * gfx_level_cull_terrain() culls chunks against a frustum and picks each
 * one's level from its distance to the eye, and groups them by what they
 * need (the shadow lookup, the fog); gfx_level_draw_culled() draws a group
 * (or all) in one call, each group with the program it needs.
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
    float *draw_dist;   /* from the eye to the chunk's box, cm */
    uint8_t *draw_group; /* GFX_TERRAIN_* bits */
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

/* Groups of culled chunks, in the order they are listed (and drawn): a
 * chunk is FOGGED unless every point of it (skirts included) lies nearer
 * the eye than the fog's start, where the shaders' fog amount is exactly 0;
 * it is BEYOND_MAP when none of its points may look up the shadow map,
 * where the shadow term is exactly 1. A group may so be drawn by a program
 * without the fog, or the lookup, with the same pixels. */
enum {
    GFX_TERRAIN_BEYOND_MAP = 1 << 0,
    GFX_TERRAIN_FOGGED = 1 << 1,
    GFX_TERRAIN_GROUPS = 4
};

/* What the main pass splits the terrain by (the shadow pass splits nothing). */
typedef struct gfx_terrain_split {
    const float *light_view_proj; /* the sun's orthographic clip space, column-major;
                                     NULL: no chunk is BEYOND_MAP */
    float light_margin;           /* how far past the map's window [-1, 1]^2 a lookup may reach
                                     (the shaders' normal offset), clip units */
    float fog_free_cm;            /* no fog nearer than this (gfx_pass_info's); < 0: no fog
                                     (no chunk is FOGGED) */
} gfx_terrain_split;

/* Lists the chunks that intersect the frustum of VIEW_PROJ (column-major)
 * for gfx_level_draw_culled, with detail chosen by distance to EYE but
 * never finer than MIN_LOD (the shadow pass uses 1: casters need less
 * detail than what receives light). The list holds group 0, then 1, 2 and
 * 3 (by SPLIT; NULL: all in group 0), each nearest first; GROUP_COUNT (may
 * be NULL) receives their sizes. Returns the list's length. */
int gfx_level_cull_terrain(gfx_level_gpu *g, const float view_proj[16], const float eye[3], int min_lod,
                           const gfx_terrain_split *split, int group_count[GFX_TERRAIN_GROUPS]);
/* Draws COUNT entries of the latest cull from FIRST. The caller binds the program. */
void gfx_level_draw_culled(gfx_level_gpu *g, int first, int count);
void gfx_level_gpu_free(gfx_level_gpu *g);

/* The marker at the origin, facing +Z, feet at y = 0. */
bool gfx_marker_build(gfx_mesh *m);

#endif
