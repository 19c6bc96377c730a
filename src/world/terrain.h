/* terrain: a regular heightmap grid with bilinear height and normal queries.
 *
 * Units are centimetres, like the skeleton. Sample (i, j) sits at world
 * x = origin_x + i * cell_cm, z = origin_z + j * cell_cm; heights are stored
 * row-major by z then x: heights[j * width + i].
 * Call order: terrain_load_png() or terrain_create_flat() -> queries -> terrain_free().
 * Queries outside the grid clamp to the border samples.
 * PNG layout: pixel column i is sample i along +x, pixel row j (top row first)
 * is sample j along +z; stb's vertical-flip setting must be left at its default.
 * Does NOT: render, or allocate after loading. The terrain owns its heights.
 */
#ifndef STRIDER_WORLD_TERRAIN_H
#define STRIDER_WORLD_TERRAIN_H

#include <stdbool.h>
#include <stddef.h>

enum {
    TERRAIN_MIN_SAMPLES = 2,   /* per axis */
    TERRAIN_MAX_SAMPLES = 4096 /* per axis; larger heightmaps are rejected */
};

typedef struct terrain_t {
    int width;      /* samples along x, >= 2 */
    int depth;      /* samples along z, >= 2 */
    float cell_cm;  /* spacing between samples */
    float origin_x; /* world x of sample column 0 */
    float origin_z; /* world z of sample row 0 */
    float *heights; /* width * depth heights in cm */
} terrain_t;

/* Loads a 16-bit greyscale PNG: height = min_cm + v / 65535 * (max_cm - min_cm).
 * The grid is centred on the world origin. Errors: one line naming the file. */
bool terrain_load_png(terrain_t *t, const char *path, float cell_cm, float min_cm, float max_cm);
/* The same, for a file another one asked for: the one error line starts
 * with CONTEXT (e.g. "x.lvl:3: heightmap"), then names the PNG. */
bool terrain_load_png_for(terrain_t *t, const char *path, const char *context, float cell_cm, float min_cm,
                          float max_cm);
/* Same from bytes already in memory; NAME is used in error messages (fuzzer, tests). */
bool terrain_load_png_memory(terrain_t *t, const void *data, size_t size, const char *name, float cell_cm, float min_cm,
                             float max_cm);
bool terrain_create_flat(terrain_t *t, int width, int depth, float cell_cm, float height_cm);
void terrain_free(terrain_t *t);
/* The last error line this module reported (without the log prefix), or "". */
const char *terrain_last_error(void);

float terrain_height(const terrain_t *t, float x, float z);
/* FIELD (one value per sample, laid out as the heights) at (x, z),
 * interpolated as the heights are; terrain_height() is this of the heights. */
float terrain_interpolate(const terrain_t *t, const float *field, float x, float z);
/* Unit normal of the bilinear surface (central differences), Y up. */
void terrain_normal(const terrain_t *t, float x, float z, float out_normal[3]);
/* World-space extent: min x/z and max x/z covered by the samples. */
void terrain_bounds(const terrain_t *t, float *min_x, float *min_z, float *max_x, float *max_z);

#endif
