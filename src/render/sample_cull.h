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
 * sample_cull_triangles() for each run of indices.
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

/* Window x, y (pixels, GL's lower-left origin) and a flag (1: projected,
 * 0: keep every triangle of this vertex) of N model-space POSITIONS (3
 * floats each) under MVP (column-major, model to clip space) and a
 * WIDTH x HEIGHT viewport, into OUT (3 floats per vertex). */
void sample_cull_project(const float mvp[16], int width, int height, const float *positions, uint32_t n,
                         float *out);

/* Copies to OUT the triangles of INDICES[0..COUNT) (COUNT a multiple of 3,
 * indices below the projected vertex count) that may cover a pixel centre
 * of the WIDTH x HEIGHT viewport (and, with CULL_BACK, may face the eye),
 * in their order; returns how many indices it wrote. OUT may not overlap
 * INDICES. */
uint32_t sample_cull_triangles(const float *projected, int width, int height, bool cull_back,
                               const uint32_t *indices, uint32_t count, uint32_t *out);

#endif
