/* lod: fewer-triangle versions of a character's meshes, to draw it far
 * away (levels of detail). meshoptimizer's edge-collapse simplifier
 * (Debian's libmeshoptimizer) removes triangles from a mesh's bind pose
 * until it keeps FRACTION of them or the next collapse would move the
 * surface by more than MAX_ERROR of the mesh's extent. The vertices are the
 * full mesh's (only the index list changes, so skinning, materials and
 * every vertex attribute stay as they are), and each mesh's border is
 * kept where it is: where the body meets the head (the neck seam) the two
 * simplified meshes still meet without a crack. The kept triangles are then
 * ordered for the GPU's post-transform vertex cache (meshoptimizer's
 * vertex cache optimizer): the same triangles, each vertex shaded fewer
 * times. With FRACTION 1 nothing is removed, only reordered (a crowd's
 * nearest level: the mesh as it is, drawn faster).
 * Call order: chr_lod_build() per mesh and level at load -> use the
 * indices -> chr_lod_free().
 * Does NOT: touch the vertices or the chr, keep the order of the triangles, weigh attributes other than
 * position (normals and UVs may stretch across a collapsed region), or
 * run per frame: it allocates and takes milliseconds per mesh.
 */
#ifndef STRIDER_ASSET_LOD_H
#define STRIDER_ASSET_LOD_H

#include "asset/character.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct chr_lod_t {
    uint32_t index_count; /* a multiple of 3, <= the mesh's */
    uint32_t *indices;    /* into the mesh's vertices; malloc'd */
    float error;          /* the simplifier's own measure: surface moved, fraction of the mesh's extent */
} chr_lod_t;

/* FRACTION in (0, 1], MAX_ERROR >= 0 (both checked). false + one logged
 * line naming the mesh when a value is out of range or memory runs out. */
bool chr_lod_build(const chr_mesh_t *mesh, float fraction, float max_error, chr_lod_t *out);
void chr_lod_free(chr_lod_t *lod);

#endif
