/* ctrl_world: where the character may be. The terrain under a point, the
 * root's height (the support rule: ground, gaps jumped over, falls), and the
 * collision of the root and the trajectory with walls.
 * Does NOT: move anything by itself, look at the network, or pose the body.
 */
#ifndef STRIDER_CTRL_WORLD_H
#define STRIDER_CTRL_WORLD_H

#include "ctrl/ctrl_internal.h"

float ctrl_ground(const ctrl_t *c, float x, float z);
/* Ground under a foot: the terrain, or the root's height over a gap
 * (held, with the terrain more than CTRL_GAP_RELEASE_CM below it): the edge
 * it jumps from or lands on. */
float ctrl_foot_ground(const ctrl_t *c, float x, float z);
/* The root is held over a gap, or has just landed from one: the ground
 * under a foot over the gap is the root's height. */
bool ctrl_over_gap(const ctrl_t *c);
/* The ground under a foot with that floor over the gap weighted by W
 * (0: the terrain, 1: ctrl_foot_ground's): the feet's floor comes and goes
 * smoothly (ctrl_foot.c). */
float ctrl_gap_floor_ground(const ctrl_t *c, float x, float z, float w);
/* Points the controller at SHARED's view of c->level, or (NULL) (re)builds
 * its own (allocated here, kept across resets, freed by ctrl_world_free). */
void ctrl_world_reset(ctrl_t *c, const ctrl_level_t *shared);
void ctrl_world_free(ctrl_t *c);
/* (x, z) lies on a ledge: ground near it is more than CTRL_STEP_MAX_CM
 * higher or lower (a trench's sides, a cliff). */
bool ctrl_on_ledge(const ctrl_t *c, float x, float z);
/* Moves (x, z) from FROM towards the candidate CAND without entering or
 * crossing a wall, leaving the level, going deeper into another character
 * (ctrl_set_obstacles; pushed out around them) or (unless OVER_LEDGES: a
 * jump) walking over a ledge; CAND receives the result. */
void ctrl_collide_point(const ctrl_t *c, const float from[2], float radius, bool over_ledges, float cand[2]);
/* A move from FROM to TO goes down further than a step down
 * (CTRL_LEDGE_STEP_DOWN_CM): the lowest ground of TO's terrain cell lies
 * that far below FROM's ground (a trench's side, not a box's). */
bool ctrl_drops_past_step(const ctrl_t *c, const float from[2], const float to[2]);
/* The root's height at (x, z) after the last height PREV_H. */
float ctrl_support_height(ctrl_t *c, float x, float z, float prev_h);
/* While the root is held over a gap: the root motion (DX, DZ) this step is
 * made to carry it on to ground ahead, or back where it took off. */
void ctrl_gap_carry(ctrl_t *c, float *dx, float *dz);

/* How deep (cm, CTRL_WALL_MARGIN_CM included) P reaches into the nearest
 * wall below its top, and the way out (AX, AZ); 0 when it is clear. */
float ctrl_wall_depth(const ctrl_t *c, const float p[3], float *ax, float *az);
/* Moves the whole character (root, pose, fed-back joints) out of the walls
 * until no joint, toe tip or the head top reaches into one; MOVED receives
 * the move (x, z). Called on the network's pose before the foot IK, and
 * again after it (the solved knees and placed feet differ). */
bool ctrl_keep_out_of_walls(ctrl_t *c, float moved[2]);

/* A crouch area's ceiling at (x, z) is too low to stand under. */
bool ctrl_low_ceiling(const ctrl_t *c, float x, float z);
/* The character is under a low ceiling, or will be within the next
 * CTRL_CEILING_AHEAD_S of its trajectory, or its head is: it must crouch. */
bool ctrl_ceiling_near(const ctrl_t *c);
/* Lowers the posed body (the hip) so that no joint above the legs and not
 * the head top rises within CTRL_CEILING_MARGIN_CM of a ceiling; the drop
 * follows the need at once and relaxes slowly. Call before the foot IK. */
void ctrl_fit_ceiling(ctrl_t *c, float dt_s);

#endif
