/* chr_bshape: the blend-shape sets of a loaded character (anim/bshape.h)
 * built from its chr shapes and correctives, and the joint-angle weights of
 * its correctives.
 *
 * A set gathers the targets of one chr mesh: first every chr shape whose
 * mesh is that mesh (in file order), then every corrective of that mesh;
 * dense and sparse layouts as anim/bshape.h describes them, the sparse one
 * built from the shape-major sparse file data.
 * Call order: chr_load() -> chr_bshape_set_build() once at load (all
 * allocation happens here, or in chr_bshape_set_add_layouts() for a layout
 * wanted later) -> per frame chr_bshape_corrective_weights() and
 * bshape_run() -> bshape_set_free().
 * Does NOT: run the blend (anim/bshape.h does), skin, or touch GL.
 * Lives in asset because it reads chr types; the kernel below it knows
 * nothing of the file format.
 */
#ifndef STRIDER_ASSET_CHR_BSHAPE_H
#define STRIDER_ASSET_CHR_BSHAPE_H

#include "anim/bshape.h"
#include "anim/pose.h"
#include "asset/character.h"

#include <stdbool.h>
#include <stdint.h>

_Static_assert(BSHAPE_MAX_ACTIVE == CHR_MAX_SHAPES + CHR_MAX_CORRECTIVES,
               "an active list can name every shape and corrective of a chr");

/* Builds the targets of chr mesh MESH in the layouts named by BUILD_FLAGS.
 * Fails (one logged line) on a bad mesh index, an out-of-range delta vertex
 * or when memory runs out; the set is then empty. */
bool chr_bshape_set_build(bshape_set_t *set, const chr_character_t *c, uint32_t mesh, unsigned build_flags);
/* Adds the layouts named by BUILD_FLAGS that SET (built from C) lacks, for
 * a layout wanted only later (the dense one is large); false (one logged
 * line) when memory runs out, the set keeping what it had. The dense layout
 * of a set with the sparse one is built from the sparse pairs, so C's
 * delta arrays may have been released by then (figure does). */
bool chr_bshape_set_add_layouts(bshape_set_t *set, const chr_character_t *c, unsigned build_flags);
/* The deltas of TARGET as the chr stores them (ascending vertex order),
 * read back from the sparse layout: writes up to CAPACITY into OUT and
 * returns the target's delta count (0 without the sparse layout). */
uint32_t chr_bshape_target_deltas(const bshape_set_t *set, uint32_t target, chr_delta_t *out, uint32_t capacity);

/* Corrective weights of every chr corrective for the local pose POSE
 * (see chr_corrective_t): out_weights has c->corrective_count entries. */
void chr_bshape_corrective_weights(const chr_character_t *c, const pose_t *pose, float *out_weights);

#endif
