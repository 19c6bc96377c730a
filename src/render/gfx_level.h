/* gfx_level: turns a level_t (plain data) into GPU meshes: the terrain grid,
 * wall boxes, crouch-tunnel roofs on pillars and jump discs; and builds the
 * marker mesh. Used by gfx.c (build, free) and gfx_frame.c (draw) only (the
 * public entry is gfx_level_load).
 *
 * The terrain is cut into square chunks, each with index lists at four
 * levels of detail (every sample, every 2nd, 4th, 8th) plus skirts that hide
 * cracks between neighbours at different levels (drawn only on such sides
 * and at the terrain's edge). Per pass,
 * gfx_level_cull_terrain() culls chunks against a frustum and picks each
 * one's level from its distance to the eye, and groups them by what they
 * need (the shadow lookup, the fog); gfx_level_draw_culled() draws a group's
 * surfaces (or all) in one call, each group with the program it needs, and
 * gfx_level_draw_culled_skirts() their skirts once every surface is drawn.
 * Call order: gfx_level_build() -> gfx_level_cull_terrain() ->
 * gfx_level_draw_culled() for each group, then gfx_level_draw_culled_skirts()
 * for each / draw the other meshes (gfx_frame.c) -> gfx_level_gpu_free().
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

/* A chunk's four sides, each with a skirt: its first and last row (the
 * neighbours before and after it in z) and column (in x). */
enum { GFX_TERRAIN_SIDE_Z0, GFX_TERRAIN_SIDE_Z1, GFX_TERRAIN_SIDE_X0, GFX_TERRAIN_SIDE_X1, GFX_TERRAIN_SIDES };

typedef struct gfx_terrain_chunk_t {
    float box[2][3]; /* world AABB (skirts excluded), cm */
    /* Per level of detail, the chunk's indices (16-bit, relative to base) in
     * the terrain index buffer: from first, the surface's, then each side's
     * skirt in GFX_TERRAIN_SIDE_* order. */
    int first[GFX_TERRAIN_LODS];
    int surface[GFX_TERRAIN_LODS];                  /* the surface's index count */
    int skirt[GFX_TERRAIN_LODS][GFX_TERRAIN_SIDES]; /* each skirt's index count */
    uint32_t base;                                  /* the chunk's first vertex: its draws' base vertex */
} gfx_terrain_chunk_t;

typedef struct gfx_level_gpu_t {
    gfx_mesh_t terrain;          /* grid + skirt vertices, all chunks' index lists */
    gfx_terrain_chunk_t *chunks; /* chunks_x x chunks_z, row by row (z) */
    int chunk_count, chunks_x, chunks_z;
    float cell_cm; /* spacing of the drawn grid */
    /* Per-cull scratch, sized at build time: each chunk's level of detail
     * (-1: not drawn); the listed chunks (nearest first by group), their
     * distance from the eye to the box (cm), GFX_TERRAIN_* bits and
     * surface's draw; their skirts' runs (adjacent sides merged, at most 2
     * a chunk) and each listed chunk's first run (chunk_count + 1 entries). */
    int8_t *chunk_lod;
    int *draw_chunk;
    float *draw_dist;
    uint8_t *draw_group;
    int *draw_counts;
    const void **draw_offsets;
    int *draw_base;
    int *skirt_run;
    int *skirt_counts;
    const void **skirt_offsets;
    int *skirt_base;
    int last_drawn_chunks; /* chunks listed by the latest cull (stats too) */
    int last_drawn_triangles;
    gfx_mesh_t walls;                 /* opaque */
    gfx_mesh_t crouch;                /* opaque roofs and pillars */
    gfx_mesh_t jump;                  /* translucent discs */
    float height_min, height_max;     /* terrain heights, cm */
    float min_x, min_z, max_x, max_z; /* terrain extent, cm */
    bool loaded;
} gfx_level_gpu_t;

bool gfx_level_build(gfx_level_gpu_t *g, const level_t *lvl);

/* Groups of culled chunks, in the order they are listed (and drawn): a
 * chunk is FOGGED unless every point of it (skirts included) lies nearer
 * the eye than the fog's start, where the shaders' fog amount is exactly 0;
 * it is BEYOND_MAP when none of its points may look up the shadow map,
 * where the shadow term is exactly 1. A group may so be drawn by a program
 * without the fog, or the lookup, with the same pixels. */
enum { GFX_TERRAIN_BEYOND_MAP = 1 << 0, GFX_TERRAIN_FOGGED = 1 << 1, GFX_TERRAIN_GROUPS = 4 };

/* What the main pass splits the terrain by, and whether it leaves out the
 * skirts that cannot show (the shadow pass splits nothing and draws every
 * skirt: its cache is drawn seldom). */
typedef struct gfx_terrain_split_t {
    const float *light_view_proj; /* the sun's orthographic clip space, column-major;
                                     NULL: no chunk is BEYOND_MAP */
    float light_margin;           /* how far past the map's window [-1, 1]^2 a lookup may reach
                                     (the shaders' normal offset), clip units */
    float fog_free_cm;            /* no fog nearer than this (gfx_pass_info_t's); < 0: no fog
                                     (no chunk is FOGGED) */
    bool all_skirts;              /* every chunk's four skirts, also those that cannot show */
} gfx_terrain_split_t;

/* Lists the chunks that intersect the frustum of VIEW_PROJ (column-major)
 * for gfx_level_draw_culled, with detail chosen by distance to EYE but
 * never finer than MIN_LOD (the shadow pass uses 1: casters need less
 * detail than what receives light). With SPLIT (and not its all_skirts), a
 * side shared with a listed chunk of the same detail, or with one out of
 * view, goes without its skirt: the surfaces meet there vertex for vertex,
 * and the skirt hangs below them, hidden from an eye above the terrain by
 * the surface in front of it. The list holds group 0, then 1, 2 and
 * 3 (by SPLIT; NULL: all in group 0), each nearest first; GROUP_COUNT (may
 * be NULL) receives their sizes. Returns the list's length. */
int gfx_level_cull_terrain(gfx_level_gpu_t *g, const float view_proj[16], const float eye[3], int min_lod,
                           const gfx_terrain_split_t *split, int group_count[GFX_TERRAIN_GROUPS]);
/* Draws the surfaces of COUNT chunks of the latest cull's list from FIRST;
 * gfx_level_draw_culled_skirts() their skirts. The main pass (gfx_frame.c) draws
 * every surface before any skirt, the skirts pushed back by a polygon
 * offset: a skirt then loses every depth tie, and every near tie that
 * rounding could turn, to the surface in front of it, as if it were not
 * drawn, so the skirts left out change no pixel. The caller binds the
 * program. */
void gfx_level_draw_culled(gfx_level_gpu_t *g, int first, int count);
void gfx_level_draw_culled_skirts(gfx_level_gpu_t *g, int first, int count);
void gfx_level_gpu_free(gfx_level_gpu_t *g);

/* The marker at the origin, facing +Z, feet at y = 0. */
bool gfx_marker_build(gfx_mesh_t *m);

#endif
