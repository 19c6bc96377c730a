/* cg_preview: a small software rasteriser (z-buffer, per-pixel normals,
 * Lambert key/fill/rim lights, ambient occlusion) so the generator can show
 * the character without the GL renderer.
 *
 * Call order: cg_image_create() -> cg_preview_draw() per view (into a tile of
 * the image) -> cg_image_save_png() -> cg_image_free().
 * Does NOT: texture, shadow, or anti-alias beyond 2x2 supersampling.
 */
#ifndef STRIDER_CHARGEN_PREVIEW_H
#define STRIDER_CHARGEN_PREVIEW_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cg_image_t {
    int w, h;
    uint8_t *rgb;
} cg_image_t;

/* A mesh to draw: positions, unit normals, linear colours, AO (may be NULL). */
typedef struct cg_draw_mesh_t {
    int nv, nt;
    const float (*p)[3];
    const float (*n)[3];
    const float (*color)[3];
    const float *ao;
    const int (*t)[3];
} cg_draw_mesh_t;

typedef struct cg_view_t {
    float yaw_deg;   /* camera orbit about Y; 0 looks at the character's front */
    float pitch_deg; /* positive looks down */
    float target[3];
    float dist; /* cm */
    float fov_deg;
} cg_view_t;

bool cg_image_create(cg_image_t *img, int w, int h);
void cg_image_free(cg_image_t *img);
/* Draws into the tile (x0, y0, w, h) of IMG, clearing it first. */
void cg_preview_draw(cg_image_t *img, int x0, int y0, int w, int h, const cg_view_t *view, const cg_draw_mesh_t *meshes,
                     int count);
bool cg_image_save_png(const cg_image_t *img, const char *path);

#endif
