/* gfx_level: turns a level_t (plain data) into GPU meshes: the terrain grid,
 * wall boxes, crouch-tunnel roofs on pillars and jump discs; and builds the
 * marker mesh. Used by gfx.c only (the public entry is gfx_level_load).
 *
 * Call order: gfx_level_build() -> draw the meshes (gfx.c) -> gfx_level_gpu_free().
 * Does NOT: keep pointers into the level, draw, or set GL state; all
 * allocation happens in gfx_level_build().
 */
#ifndef STRIDER_RENDER_GFX_LEVEL_H
#define STRIDER_RENDER_GFX_LEVEL_H

#include "render/gfx_mesh.h"
#include "world/level.h"

/* Visual sizes, cm. Walls have no height in the level format; this one is
 * chest-high on the 170 cm character so walls block the path but not the view. */
#define GFX_WALL_HEIGHT_CM 150.0f
#define GFX_MARKER_HEIGHT_CM 170.0f
#define GFX_MARKER_RADIUS_CM 22.0f

typedef struct gfx_level_gpu {
    gfx_mesh terrain;  /* grid, coloured procedurally by the shader */
    gfx_mesh walls;    /* opaque */
    gfx_mesh crouch;   /* opaque roofs and pillars */
    gfx_mesh jump;     /* translucent discs */
    float height_min, height_max;   /* terrain heights, cm */
    float min_x, min_z, max_x, max_z; /* terrain extent, cm */
    bool loaded;
} gfx_level_gpu;

bool gfx_level_build(gfx_level_gpu *g, const level_t *lvl);
void gfx_level_gpu_free(gfx_level_gpu *g);

/* The marker at the origin, facing +Z, feet at y = 0. */
bool gfx_marker_build(gfx_mesh *m);

#endif
