/* weld: which vertices of a mesh stand at the same place.
 *
 * Meshes copy a vertex wherever its normal, uv or material changes (seams,
 * a head split from its body); topology (closed surfaces, smooth normals
 * across seams, connected parts) wants them as one. weld_positions() gives
 * every vertex the number of its position: equal positions (by value, so
 * -0 and +0 are one) share a number, and the numbers run in the order of
 * the positions sorted by x, then y, then z, from 0 to *group_count - 1.
 * Call order: weld_positions() once per mesh (or set of meshes, numbered
 * one after another by the caller).
 * Does NOT: weld within a tolerance (only exact copies are one), keep
 * anything, or take NaN positions (the loaders refuse them).
 * Memory: a scratch of 16 bytes a vertex, allocated and freed inside.
 */
#ifndef STRIDER_ASSET_WELD_H
#define STRIDER_ASSET_WELD_H

#include <stdbool.h>
#include <stdint.h>

/* POS[0..n): positions; GROUP[0..n) gets each vertex's number. False (and
 * nothing written) when the scratch cannot be allocated. */
bool weld_positions(const float (*pos)[3], uint32_t n, uint32_t *group, uint32_t *group_count);

#endif
