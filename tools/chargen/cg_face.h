/* cg_face: the facial blend shapes as displacement fields over the head's
 * rest surface, placed with the figure's face landmarks: ~32 modifiers
 * (brows, lids, mouth corners, jaw, lips, cheeks, nose; L/R pairs) and ~31
 * emotions built as weighted mixes of the modifiers, plus numbered "extra"
 * shapes (localised deterministic bumps) for benchmark variants.
 *
 * Call order: cg_face_shape_count() -> cg_face_shape() per index.
 * Does NOT: compute normal/AO deltas (the builder does, from the moved
 * geometry), or touch vertices outside MOVABLE.
 */
#ifndef STRIDER_CHARGEN_FACE_H
#define STRIDER_CHARGEN_FACE_H

#include "cg_figure.h"

#include <stdbool.h>

/* Number of built-in shapes (modifiers + emotions). */
int cg_face_builtin_count(void);
/* Displacement of shape INDEX (0 .. any; indices past the built-ins are
 * extras) for N points P with normals NRM; zero where !movable[v].
 * Writes the shape's name and category (asset CHR_SHAPE_*). */
void cg_face_shape(const cg_face_marks_t *fm, int index, int n, const float (*p)[3], const float (*nrm)[3],
                   const bool *movable, float (*out)[3], char name[32], int *category);

#endif
