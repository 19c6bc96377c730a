/* pose_dump: one CSV row per fixed step of the character as displayed, for
 * anyone who wants to analyse a run (`strider --dump-pose FILE.csv`, and the
 * motion evaluation's --dump-dir). Columns (header row first):
 *   step, time_s, root_x, root_y, root_z, heading_deg,
 *   gait_stand .. gait_spare (6), contact_* and lock_* for l_heel, l_toe,
 *   r_heel, r_toe (flags 0/1 and lock weights), the four foot points and the
 *   head top (x, y, z), then every joint's world position, named after the
 *   skeleton (hip_x, hip_y, hip_z, ...). Units: cm, seconds, degrees.
 * Call order: pose_dump_open() -> pose_dump_row() per step ->
 * pose_dump_close(), which reports whether every byte reached the file.
 * Does NOT: run the simulation or allocate per row.
 */
#ifndef STRIDER_GAME_POSE_DUMP_H
#define STRIDER_GAME_POSE_DUMP_H

#include "ctrl/ctrl.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pose_dump_t {
    FILE *f;
    const char *path;
    const skel_t *skel;
} pose_dump_t;

/* One logged line naming PATH when it cannot be created. */
bool pose_dump_open(pose_dump_t *d, const char *path, const skel_t *skel);
/* POSE: the displayed local pose (hip in world space). */
void pose_dump_row(pose_dump_t *d, uint64_t step, const ctrl_t *c, const pose_t *pose, const ctrl_stats_t *st);
/* False (one logged line) if any write or the close failed. */
bool pose_dump_close(pose_dump_t *d);

#endif
