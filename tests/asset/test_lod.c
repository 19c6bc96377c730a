/* asset/lod on the shipped character: each level keeps fewer triangles
 * than the one before and at most its fraction (or stopped at its error),
 * indexes only the mesh's own vertices in whole triangles, and keeps every
 * border edge of the mesh (where the body meets the head: no crack at the
 * neck), and bad values are refused with one line. Level 0 (fraction 1)
 * keeps exactly the mesh's triangles, each with its winding, in an order
 * that shades fewer vertices (meshoptimizer's own cache model says how
 * many). */
#include "asset/lod.h"

#include "check.h"
#include "core/log.h"

#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#define CHR_PATH "assets/characters/strider.chr"

/* Vertices at one position are one (a UV or normal seam splits a vertex
 * in two; the simplifier may collapse along a seam, it is no border). */
static const chr_mesh_t *g_mesh;
static int by_position(const void *pa, const void *pb)
{
    const float *a = g_mesh->vertices[*(const uint32_t *)pa].pos, *b = g_mesh->vertices[*(const uint32_t *)pb].pos;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* WELD[v]: the lowest vertex index at v's position. */
static uint32_t *weld_map(const chr_mesh_t *mesh)
{
    uint32_t *order = malloc(mesh->vertex_count * sizeof *order), *weld = malloc(mesh->vertex_count * sizeof *weld);
    if (!order || !weld) {
        free(order);
        free(weld);
        return NULL;
    }
    for (uint32_t v = 0; v < mesh->vertex_count; v++)
        order[v] = v;
    g_mesh = mesh;
    qsort(order, mesh->vertex_count, sizeof *order, by_position);
    for (uint32_t k = 0; k < mesh->vertex_count;) {
        uint32_t e = k, low = order[k];
        while (e < mesh->vertex_count && by_position(&order[k], &order[e]) == 0) {
            low = order[e] < low ? order[e] : low;
            e++;
        }
        for (uint32_t j = k; j < e; j++)
            weld[order[j]] = low;
        k = e;
    }
    free(order);
    return weld;
}

/* Edges (a, b) of welded vertices used by exactly one triangle of INDICES:
 * the border. Pairs in BORDER (2 per edge, a < b); returns their count. */
static size_t border_edges(const uint32_t *indices, uint32_t n, const uint32_t *weld, uint32_t *border, size_t cap)
{
    size_t count = 0;
    for (uint32_t t = 0; t < n; t += 3)
        for (int e = 0; e < 3; e++) {
            uint32_t a = weld[indices[t + e]], b = weld[indices[t + (e + 1) % 3]];
            uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
            int uses = 0;
            for (uint32_t u = 0; u < n && uses < 2; u += 3)
                for (int f = 0; f < 3; f++) {
                    uint32_t c = weld[indices[u + f]], d = weld[indices[u + (f + 1) % 3]];
                    if ((c == lo && d == hi) || (c == hi && d == lo))
                        uses++;
                }
            if (uses == 1 && count < cap) {
                border[2 * count] = lo;
                border[2 * count + 1] = hi;
                count++;
            }
        }
    return count;
}

static bool has_vertex(const uint32_t *indices, uint32_t n, const uint32_t *weld, uint32_t v)
{
    for (uint32_t k = 0; k < n; k++)
        if (weld[indices[k]] == v)
            return true;
    return false;
}

/* A triangle as its three indices rotated to start at the smallest (the
 * winding kept), for sorting. */
static void canonical(const uint32_t *t, uint32_t out[3])
{
    int r = t[0] <= t[1] && t[0] <= t[2] ? 0 : t[1] <= t[2] ? 1 : 2;
    for (int k = 0; k < 3; k++)
        out[k] = t[(r + k) % 3];
}
static int by_triangle(const void *pa, const void *pb)
{
    const uint32_t *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* Vertex shader runs per triangle in meshoptimizer's model of a GPU cache
 * (32 entries, 32-thread warps, 32-triangle groups). */
static float shaded_per_triangle(const uint32_t *indices, uint32_t n, uint32_t vertex_count)
{
    return meshopt_analyzeVertexCache(indices, n, vertex_count, 32, 32, 32).acmr;
}

/* Level 0 of MESH: the same triangles, reordered for the cache. */
static void check_reordered(const chr_mesh_t *mesh)
{
    chr_lod_t lod;
    bool ok = chr_lod_build(mesh, 1.0f, 0.0f, &lod);
    CHECKF(ok && lod.index_count == mesh->index_count, "%s level 0: %u of %u indices", mesh->name, lod.index_count,
           mesh->index_count);
    if (!ok || lod.index_count != mesh->index_count)
        return;
    uint32_t n = mesh->index_count;
    uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    CHECK(a && b);
    if (a && b) {
        for (uint32_t t = 0; t < n; t += 3) {
            canonical(mesh->indices + t, a + t);
            canonical(lod.indices + t, b + t);
        }
        qsort(a, n / 3, 3 * sizeof *a, by_triangle);
        qsort(b, n / 3, 3 * sizeof *b, by_triangle);
        CHECKF(!memcmp(a, b, n * sizeof *a), "%s level 0: the triangles (with their winding) are the mesh's",
               mesh->name);
    }
    float before = shaded_per_triangle(mesh->indices, n, mesh->vertex_count);
    float after = shaded_per_triangle(lod.indices, n, mesh->vertex_count);
    printf("lod: %s level 0: %u triangles reordered: %.3f -> %.3f vertices shaded per triangle\n", mesh->name, n / 3,
           (double)before, (double)after);
    CHECKF(after < before, "%s level 0: %.3f vertices shaded per triangle after %.3f", mesh->name, (double)after,
           (double)before);
    free(a);
    free(b);
    chr_lod_free(&lod);
}

int main(void)
{
    chr_character_t c;
    if (!chr_load(&c, CHR_PATH))
        return 1;
    const float fraction[] = {0.3f, 0.1f}, error[] = {0.01f, 0.04f};
    for (uint32_t m = 0; m < c.mesh_count; m++) {
        const chr_mesh_t *mesh = &c.meshes[m];
        check_reordered(mesh);
        uint32_t before = mesh->index_count;
        uint32_t *weld = weld_map(mesh);
        CHECK(weld != NULL);
        if (!weld)
            continue;
        for (int l = 0; l < 2; l++) {
            chr_lod_t lod;
            bool ok = chr_lod_build(mesh, fraction[l], error[l], &lod);
            CHECKF(ok, "%s level %d built", mesh->name, l + 1);
            if (!ok)
                continue;
            CHECKF(lod.index_count % 3 == 0 && lod.index_count > 0 && lod.index_count <= before,
                   "%s level %d: %u indices after %u", mesh->name, l + 1, lod.index_count, before);
            /* At most the fraction, unless the error bound stopped it first. */
            CHECKF(lod.index_count <= (uint32_t)(fraction[l] * (float)mesh->index_count) + 3 ||
                       lod.error >= 0.5f * error[l],
                   "%s level %d: %u of %u indices at error %.4f", mesh->name, l + 1, lod.index_count, mesh->index_count,
                   (double)lod.error);
            bool in_range = true;
            for (uint32_t k = 0; k < lod.index_count; k++)
                in_range = in_range && lod.indices[k] < mesh->vertex_count;
            CHECKF(in_range, "%s level %d: every index within the mesh", mesh->name, l + 1);
            /* The border of the full mesh stays: both ends of each of its
             * edges are still used (a small mesh may have thousands: check
             * the first 256). */
            enum { CAP = 256 };
            uint32_t border[2 * CAP];
            size_t nb = mesh->index_count < 60000 ? border_edges(mesh->indices, mesh->index_count, weld, border, CAP)
                                                  : 0;
            size_t kept = 0;
            for (size_t e = 0; e < nb; e++)
                kept += has_vertex(lod.indices, lod.index_count, weld, border[2 * e]) &&
                        has_vertex(lod.indices, lod.index_count, weld, border[2 * e + 1]);
            CHECKF(kept == nb, "%s level %d: %zu of %zu border edges' vertices kept", mesh->name, l + 1, kept, nb);
            printf("lod: %s level %d: %u -> %u triangles (error %.4f), %zu border edges checked\n", mesh->name, l + 1,
                   mesh->index_count / 3, lod.index_count / 3, (double)lod.error, nb);
            before = lod.index_count;
            chr_lod_free(&lod);
        }
        free(weld);
    }
    chr_lod_t bad;
    CHECK(!chr_lod_build(&c.meshes[0], 0.0f, 0.01f, &bad) && bad.indices == NULL);
    CHECK(!chr_lod_build(&c.meshes[0], 1.5f, 0.01f, &bad));
    CHECK(!chr_lod_build(&c.meshes[0], 0.5f, -1.0f, &bad));
    chr_free(&c);
    return check_summary();
}
