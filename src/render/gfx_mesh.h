/* gfx_mesh: indexed triangle meshes of gfx_vertex_t (position, normal, colour)
 * built on the CPU at load time and uploaded once.
 *
 * Call order: gfx_mesh_builder_init() -> gfx_mb_* adds (quads, boxes,
 * capsules...) -> gfx_mesh_upload() -> gfx_mesh_builder_free(); per frame
 * gfx_mesh_draw(); at the end gfx_mesh_free().
 * Builder growth uses realloc: load-time only, never in the frame loop. A
 * failed allocation latches 'failed' and later adds do nothing, so callers
 * test once before uploading.
 * Does NOT: own shaders or set uniforms; the renderer (gfx_frame.c) binds the program.
 */
#ifndef STRIDER_RENDER_GFX_MESH_H
#define STRIDER_RENDER_GFX_MESH_H

#include "render/gfx.h"

#include <stdbool.h>
#include <stdint.h>

/* Matches the ATTR_POSITION / ATTR_NORMAL / ATTR_COLOR layout set up in gfx_mesh_upload. */
typedef struct gfx_vertex_t {
    float pos[3];    /* cm */
    float normal[3]; /* unit */
    uint32_t rgba;   /* sRGB + alpha, DEBUG_RGBA layout */
} gfx_vertex_t;

typedef struct gfx_mesh_t {
    gfx_vertex_array_t vao;
    gfx_buffer_t vbo, ibo;
    int index_count;
    int index_bytes; /* 4 (GL_UNSIGNED_INT) or 2 (GL_UNSIGNED_SHORT, gfx_mesh_upload_short) */
} gfx_mesh_t;

typedef struct gfx_mesh_builder_t {
    gfx_vertex_t *v;
    uint32_t *idx;
    int vcount, icount, vcap, icap;
    bool failed;
} gfx_mesh_builder_t;

void gfx_mesh_builder_init(gfx_mesh_builder_t *b);
void gfx_mesh_builder_free(gfx_mesh_builder_t *b);
/* Returns the new vertex's index (or 0 after a failure). */
uint32_t gfx_mb_vertex(gfx_mesh_builder_t *b, const float pos[3], const float normal[3], uint32_t rgba);
void gfx_mb_triangle(gfx_mesh_builder_t *b, uint32_t a, uint32_t c, uint32_t d);
/* Flat quad a-b-c-d (counter-clockwise seen from the front) with its own vertices. */
void gfx_mb_quad(gfx_mesh_builder_t *b, const float a[3], const float c[3], const float d[3], const float e[3],
                 uint32_t rgba);
/* Axis-aligned box from lo to hi. */
void gfx_mb_box(gfx_mesh_builder_t *b, const float lo[3], const float hi[3], uint32_t rgba);
/* Vertical capsule: radius r, from y0 to y1 (total height, caps included), around (x, z). */
void gfx_mb_capsule(gfx_mesh_builder_t *b, float x, float z, float y0, float y1, float r, int segments, uint32_t rgba);
/* Cone from base centre 'base' (disc of radius r facing -axis) to 'tip'. */
void gfx_mb_cone(gfx_mesh_builder_t *b, const float base[3], const float tip[3], float r, int segments, uint32_t rgba);

/* Uploads the builder's contents; false if it failed or is empty. */
bool gfx_mesh_upload(gfx_mesh_t *m, const gfx_mesh_builder_t *b, const char *label);
/* The same with 16-bit indices (half the index memory) for a builder whose
 * indices all fit, as for draws with a base vertex; false (logged) if one
 * does not. */
bool gfx_mesh_upload_short(gfx_mesh_t *m, const gfx_mesh_builder_t *b, const char *label);
void gfx_mesh_draw(const gfx_mesh_t *m);
void gfx_mesh_free(gfx_mesh_t *m);

#endif
