/* sample_cull: the triangles of a mesh that can light up a pixel centre.
 *
 * A single-sample rasteriser makes fragments only at pixel centres inside a
 * triangle; one whose bounding box holds no centre makes none at all, so
 * leaving it out of a draw changes no pixel and no depth. A software
 * rasteriser still transforms, sets up and bins every triangle it is
 * given, and a detailed figure seen from a few metres, or drawn into a
 * shadow map whose texels are centimetres wide, is mostly such triangles
 * (the hardware's own small-triangle rejection does this on GPUs).
 *
 * Call order: sample_cull_project() the vertices once per view, then
 * sample_cull_triangles() for each run of indices (sixteen triangles at a
 * time where the CPU has AVX-512, sample_cull_avx512.c; one at a time
 * elsewhere, the same triangles kept).
 * The test is conservative: a triangle is kept when its box comes within
 * SAMPLE_CULL_MARGIN_PX of a centre (the rasteriser rounds positions to
 * 1/256 pixel and computes them in its own float order), when a vertex is
 * not in front of the eye (w <= 0: the triangle is clipped, not projected),
 * or when a coordinate is not finite.
 * With back-face culling on, a triangle whose window-space winding is
 * clockwise (GL's default front face is counter-clockwise) by more than the
 * rasteriser's rounding could turn (SAMPLE_CULL_WINDING_SLACK per pixel of
 * edge) is left out too: GL would cull it after setting it up.
 * Does NOT: call GL or allocate.
 */
#ifndef STRIDER_RENDER_SAMPLE_CULL_H
#define STRIDER_RENDER_SAMPLE_CULL_H

#include <stdbool.h>
#include <stdint.h>

#define SAMPLE_CULL_MARGIN_PX (1.0f / 16.0f)
#define SAMPLE_CULL_WINDING_SLACK (1.0f / 32.0f)

/* Viewports up to this many pixels a side (the centre ranges are 16-bit). */
#define SAMPLE_CULL_MAX_SIZE 32767

/* A vertex as the cull sees it: its window position and the range of
 * pixel-centre columns (rows) within SAMPLE_CULL_MARGIN_PX of it, first
 * clamped to [0, size] and last to [-1, size - 1]. A triangle's box holds a
 * centre when its vertices' smallest first is at most their largest last on
 * both axes: rounding and floor/ceil are monotonic, so this is the test on
 * the box of their positions, exactly, with the rounding done once a vertex
 * instead of once a triangle. A vertex that cannot be projected has first
 * -1 on both axes (no other vertex has), and its triangles are kept. */
typedef struct sample_cull_vertex_t {
    float x, y;       /* window position, pixels, GL's lower-left origin */
    int16_t first[2]; /* first centre column, row */
    int16_t last[2];  /* last centre column, row */
} sample_cull_vertex_t;

/* Projects N model-space POSITIONS (3 floats each) under MVP (column-major,
 * model to clip space) onto a WIDTH x HEIGHT viewport (1 to
 * SAMPLE_CULL_MAX_SIZE a side) into OUT[N]. */
void sample_cull_project(const float mvp[16], int width, int height, const float *positions, uint32_t n,
                         sample_cull_vertex_t *out);

/* Copies to OUT the triangles of INDICES[0..COUNT) (COUNT a multiple of 3,
 * indices below the projected vertex count) that may cover a pixel centre
 * of the viewport the vertices were projected onto (and, with CULL_BACK,
 * may face the eye), in their order; returns how many indices it wrote.
 * OUT has room for COUNT indices and may not overlap INDICES. */
uint32_t sample_cull_triangles(const sample_cull_vertex_t *projected, bool cull_back, const uint32_t *indices,
                               uint32_t count, uint32_t *out);

/* From now on, in every thread, sample_cull_triangles() tests one triangle
 * at a time even where it would take sixteen (AVX-512): the same triangles
 * kept, for `strider bench render` to time the two (gfx_switches_t). */
void sample_cull_set_scalar(bool scalar);

#endif
