/* level: a playable level = terrain + spawn + crouch areas + jump areas + walls,
 * read from a small line-based text file (format documented in docs/LEVELS.md).
 *
 * Call order: level_load() -> read fields / level queries -> level_free().
 * level_parse() works on a text buffer (used by level_load and the fuzzer).
 * Errors: one line naming the file and line, e.g.
 * "hills.lvl:7: wall: got 3 fields (usage: wall X0 Z0 X1 Z1 [RADIUS_CM])".
 * Does NOT: render, or allocate after loading. Fixed maximum counts keep the
 * frame loop allocation-free.
 */
#ifndef STRIDER_WORLD_LEVEL_H
#define STRIDER_WORLD_LEVEL_H

#include "core/paths.h"
#include "world/terrain.h"

#include <stdbool.h>
#include <stddef.h>

enum {
    LEVEL_NAME_MAX = 64,
    LEVEL_PATH_MAX = PATHS_MAX,
    LEVEL_MAX_CROUCH = 64,
    LEVEL_MAX_JUMP = 64,
    LEVEL_MAX_WALLS = 256,
    LEVEL_STANDIN_SAMPLES = 256
};

/* Wall thickness (radius, cm) when a 'wall' line gives none. */
#define LEVEL_DEFAULT_WALL_RADIUS_CM 15.0f
/* Height of every wall above the terrain (cm): the renderer draws them this
 * tall, and what is below their top collides with them. */
#define LEVEL_WALL_HEIGHT_CM 150.0f

/* Axis-aligned box on the ground plane; inside it a ceiling at ceiling_cm above
 * the terrain forces a crouch. */
typedef struct level_crouch_area_t {
    float min_x, min_z, max_x, max_z;
    float ceiling_cm;
} level_crouch_area_t;

/* Circle on the ground plane that makes the character jump when its
 * trajectory enters it. */
typedef struct level_jump_area_t {
    float x, z, radius_cm;
} level_jump_area_t;

/* 2-D wall segment on the ground plane, with a thickness (radius) in cm. */
typedef struct level_wall_t {
    float x0, z0, x1, z1;
    float radius_cm;
} level_wall_t;

typedef struct level_t {
    char name[LEVEL_NAME_MAX];
    char title[LEVEL_NAME_MAX * 2];
    terrain_t terrain;
    /* Spawn on the ground plane; heading 0 faces +Z, pi/2 faces +X
     * (forward = (sin h, 0, cos h)). */
    float spawn_x, spawn_z, spawn_heading_rad;
    int crouch_count, jump_count, wall_count;
    level_crouch_area_t crouch[LEVEL_MAX_CROUCH];
    level_jump_area_t jump[LEVEL_MAX_JUMP];
    level_wall_t walls[LEVEL_MAX_WALLS];
} level_t;

/* Loads PATH; a relative heightmap path in the file resolves against the
 * level file's folder. */
bool level_load(level_t *lvl, const char *path);
/* Parses TEXT (len bytes, need not be 0-terminated); 'source' names it in
 * errors. LVL is overwritten (free a loaded level first) and left empty on
 * failure. Heightmaps are loaded relative to base_dir (NULL: no heightmap
 * loading allowed, a flat terrain of LEVEL_STANDIN_SAMPLES^2 samples at the
 * given cell size and minimum height is made instead - used by the fuzzer). */
bool level_parse(level_t *lvl, const char *text, size_t len, const char *source, const char *base_dir);
void level_free(level_t *lvl);
/* The last error line the world module reported for a level or its heightmap
 * (without the log prefix), e.g. "x.lvl:7: wall needs 4 or 5 numbers"; "" if none. */
const char *level_last_error(void);

/* Finds assets/levels/NAME.lvl under the data root. Returns false if the
 * name is not one of the shipped levels. */
bool level_path_for_name(const char *name, char *out, size_t out_size);
/* Names of the shipped levels in key order (key 1 = index 0). */
int level_builtin_count(void);
const char *level_builtin_name(int index);

/* Queries used by the controller and the marker. */
/* Ceiling height above terrain at (x, z) if inside a crouch area, else 0. */
float level_crouch_ceiling(const level_t *lvl, float x, float z);
bool level_in_jump_area(const level_t *lvl, float x, float z);
/* Pushes the point (x, z) with radius r out of every wall; returns true if moved. */
bool level_push_out_of_walls(const level_t *lvl, float *x, float *z, float radius_cm);
/* True if the segment a->b crosses a wall's centre line. */
bool level_segment_crosses_wall(const level_t *lvl, float ax, float az, float bx, float bz);
/* Distance (cm) from (x, z) to the surface of the nearest wall: negative
 * inside one; a large positive value when the level has no walls. When
 * AWAY_X/AWAY_Z are given they receive the unit direction out of that wall. */
float level_wall_clearance(const level_t *lvl, float x, float z, float *away_x, float *away_z);
/* As level_wall_clearance, seen from the body standing at FROM: a point
 * that the segment from FROM crosses a wall's centre line to reach is on the
 * far side, its clearance is minus the way back to FROM's side (distance plus
 * the wall's half thickness) and AWAY points there. A hand or head pushed
 * through a thin wall's middle would otherwise be "nearer" the far face and
 * sent on through it. */
float level_wall_clearance_from(const level_t *lvl, float x, float z, float from_x, float from_z, float *away_x,
                                float *away_z);
/* Distance (cm) from (x, z) to the nearest edge of the terrain: negative
 * outside it. */
float level_edge_clearance(const level_t *lvl, float x, float z);

#endif
