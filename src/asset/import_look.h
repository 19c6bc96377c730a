/* import_look: dresses an imported character by region, so a scanned or
 * generated body with one skin-coloured material (the MakeHuman files) reads
 * as a person: eyes, teeth and tongue get their own shading, the body a
 * simple outfit (shirt with short sleeves, trousers, shoes) and painted
 * hair and brows.
 * Regions come from the mesh itself, never from outside files:
 *  - small closed parts are found as connected components (welded over
 *    identical positions): two mirrored round ones in the head are the
 *    eyes (sclera, iris and pupil by the angle from the eye's forward
 *    axis), the others on the mid-line inside the mouth the teeth and the
 *    largest of them the tongue;
 *  - body regions come from each vertex's skin weights through the joint
 *    map onto the controller's skeleton (which joints are thighs, shins,
 *    feet, upper arms...), cut at heights and along limbs taken from the
 *    joints' rest positions (belt, neckline, sleeve, shoe top, hairline).
 * Call order: imp_build() -> retarget_map_resolve() -> imp_dress().
 * Does NOT: move vertices, add geometry, or read files.
 * Memory: scratch is malloc'd and freed inside.
 */
#ifndef STRIDER_ASSET_IMPORT_LOOK_H
#define STRIDER_ASSET_IMPORT_LOOK_H

#include "anim/retarget.h"
#include "asset/character.h"

#include <stdbool.h>

/* What imp_dress() found, for the summary and the tests. */
typedef struct imp_look_info_t {
    int eyes;        /* eyeballs found (0 or 2) */
    int mouth_parts; /* teeth and tongue parts found */
    uint32_t vertices_by_material[CHR_MAX_MATERIALS];
} imp_look_info_t;

/* Replaces C's materials with the outfit's and assigns every vertex one.
 * SOURCE is the controller's skeleton MAP refers to. False (one logged
 * line naming NAME) only when memory runs out. INFO may be NULL. */
bool imp_dress(chr_character_t *c, const skel_t *source, const retarget_map_t *map, const char *name,
               imp_look_info_t *info);

#endif
