/* lod.c: meshoptimizer's simplifier, then its vertex cache optimizer, per
 * mesh and level. */
#include "asset/lod.h"

#include "core/log.h"

#include <math.h>
#include <meshoptimizer.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(chr_vertex_t) % 4 == 0 && sizeof(chr_vertex_t) <= 256,
               "meshoptimizer reads positions with a stride of whole floats, at most 256 bytes");

bool chr_lod_build(const chr_mesh_t *mesh, float fraction, float max_error, chr_lod_t *out)
{
    memset(out, 0, sizeof *out);
    if (!(fraction > 0.0f && fraction <= 1.0f) || !(max_error >= 0.0f) || !isfinite(max_error)) {
        log_error("lod: %s: fraction %g (0..1) and error %g (>= 0) out of range", mesh->name, (double)fraction,
                  (double)max_error);
        return false;
    }
    if (mesh->index_count == 0 || mesh->index_count % 3 != 0) {
        log_error("lod: %s: %u indices are not whole triangles", mesh->name, mesh->index_count);
        return false;
    }
    out->indices = malloc((size_t)mesh->index_count * sizeof *out->indices);
    if (!out->indices) {
        log_error("lod: %s: out of memory for %u indices", mesh->name, mesh->index_count);
        return false;
    }
    uint32_t *kept = malloc((size_t)mesh->index_count * sizeof *kept);
    if (!kept) {
        log_error("lod: %s: out of memory for %u indices", mesh->name, mesh->index_count);
        chr_lod_free(out);
        return false;
    }
    size_t target = (size_t)((double)mesh->index_count * (double)fraction) / 3 * 3;
    float error = 0.0f;
    size_t n = mesh->index_count;
    if (target < n)
        n = meshopt_simplify(kept, mesh->indices, n, &mesh->vertices[0].pos[0], mesh->vertex_count,
                             sizeof(chr_vertex_t), target, max_error, meshopt_SimplifyLockBorder, &error);
    else
        memcpy(kept, mesh->indices, n * sizeof *kept);
    meshopt_optimizeVertexCache(out->indices, kept, n, mesh->vertex_count);
    free(kept);
    out->index_count = (uint32_t)n;
    out->error = error;
    return true;
}

void chr_lod_free(chr_lod_t *lod)
{
    free(lod->indices);
    memset(lod, 0, sizeof *lod);
}
