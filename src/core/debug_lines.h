/* debug_lines: a plain-data list of coloured line segments that simulation
 * code fills and the renderer draws (layer GFX_LAYER_DEBUG_LINES).
 *
 * Call order: the owner points 'vertices' at storage for 'capacity' vertices
 * (allocated once, at load time) -> each frame debug_lines_clear() ->
 * debug_lines_add() ... -> pass &lines in gfx_frame_desc.lines.
 * Two consecutive vertices make one segment; positions are world cm.
 * Does NOT: allocate, or call GL. Adds past 'capacity' are dropped and counted
 * in 'dropped' so an undersized buffer shows up instead of corrupting memory.
 * The caller owns the storage.
 */
#ifndef STRIDER_CORE_DEBUG_LINES_H
#define STRIDER_CORE_DEBUG_LINES_H

#include <stdint.h>

/* Packs an sRGB colour with alpha into the 0xAABBGGRR layout (R in the low
 * byte, so the bytes in memory read R, G, B, A). */
#define DEBUG_RGBA(r, g, b, a) ((uint32_t)(r) | ((uint32_t)(g) << 8) | ((uint32_t)(b) << 16) | ((uint32_t)(a) << 24))

typedef struct debug_line_vertex_t {
    float pos[3];  /* world position, cm */
    uint32_t rgba; /* DEBUG_RGBA(...) */
} debug_line_vertex_t;

typedef struct debug_lines_t {
    debug_line_vertex_t *vertices; /* caller-owned, 'capacity' entries */
    int capacity;                  /* vertices, not segments */
    int count;                     /* vertices in use; always even */
    int dropped;                   /* segments lost to a full buffer since the last clear */
} debug_lines_t;

static inline void debug_lines_clear(debug_lines_t *dl)
{
    dl->count = 0;
    dl->dropped = 0;
}

static inline void debug_lines_add(debug_lines_t *dl, const float a[3], const float b[3], uint32_t rgba)
{
    if (!dl->vertices || dl->count + 2 > dl->capacity) {
        dl->dropped++;
        return;
    }
    debug_line_vertex_t *v = &dl->vertices[dl->count];
    for (int k = 0; k < 3; k++) {
        v[0].pos[k] = a[k];
        v[1].pos[k] = b[k];
    }
    v[0].rgba = rgba;
    v[1].rgba = rgba;
    dl->count += 2;
}

#endif
