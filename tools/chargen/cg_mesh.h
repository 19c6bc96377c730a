/* cg_mesh: triangle meshes for the generator: polygonising a signed
 * distance field with surface nets on a box grid, cutting a mesh at a plane,
 * zipping two boundary loops, projecting onto the field, tangential
 * relaxation, adjacency and normals.
 *
 * Call order: cg_mesh_polygonize() -> cg_mesh_keep() / cg_mesh_boundary_loop()
 * -> cg_mesh_append() / cg_mesh_zip() -> cg_mesh_relax() ... -> cg_mesh_free().
 * Does NOT: know about skeletons or materials (per-vertex attributes are
 * kept by the caller in arrays indexed like the vertices).
 * Memory: each cg_mesh_t owns its arrays; cg_mesh_free() releases them.
 */
#ifndef STRIDER_CHARGEN_MESH_H
#define STRIDER_CHARGEN_MESH_H

#include <stdbool.h>

typedef float (*cg_field_fn_t)(const void *ctx, const float p[3]);

typedef struct cg_mesh_t {
    int nv, cap_v;
    float (*p)[3];
    int nt, cap_t;
    int (*t)[3];
} cg_mesh_t;

/* Vertex adjacency in CSR form (neighbours of v: adj[off[v] .. off[v+1])). */
typedef struct cg_adj_t {
    int *off;
    int *adj;
} cg_adj_t;

void cg_mesh_free(cg_mesh_t *m);
int cg_mesh_add_vertex(cg_mesh_t *m, const float p[3]);
void cg_mesh_add_tri(cg_mesh_t *m, int a, int b, int c);

/* One axis of a graded grid: spacing h_fine inside [fine_lo, fine_hi],
 * growing linearly to h_coarse over RAMP cm outside it (h_fine <= 0 or an
 * empty fine range: uniform h_coarse). */
typedef struct cg_axis_t {
    float lo, hi;
    float fine_lo, fine_hi;
    float h_fine, h_coarse;
} cg_axis_t;

/* Surface nets over a graded box grid; triangles wind counter-clockwise
 * seen from outside (the field's positive side). */
bool cg_mesh_polygonize(cg_field_fn_t f, const void *ctx, const cg_axis_t axis[3], cg_mesh_t *out);
/* Keeps the triangles whose three vertices all satisfy KEEP, and drops
 * unused vertices. */
typedef bool (*cg_point_pred_t)(const void *ctx, const float p[3]);
void cg_mesh_keep(cg_mesh_t *m, cg_point_pred_t keep, const void *ctx);
/* The longest boundary loop, in the mesh's boundary-edge direction.
 * *loop is malloc'd; returns its length (0 if none). */
int cg_mesh_boundary_loop(const cg_mesh_t *m, int **loop);
/* Appends SRC to DST; returns the index offset of SRC's vertices in DST. */
int cg_mesh_append(cg_mesh_t *dst, const cg_mesh_t *src);
/* Triangulates the band between loops A (na) and B (nb), both closed and
 * running the same way around the Y axis through CENTRE; adds triangles to
 * M wound so their normals point away from CENTRE (horizontally). */
void cg_mesh_zip(cg_mesh_t *m, const int *a, int na, const int *b, int nb, const float centre[3]);
/* Newton steps moving each vertex onto the field's zero set. */
void cg_mesh_project(cg_mesh_t *m, cg_field_fn_t f, const void *ctx, const bool *fixed, int iters);
void cg_mesh_adjacency(const cg_mesh_t *m, cg_adj_t *adj);
void cg_adj_free(cg_adj_t *adj);
/* Tangential Laplacian relaxation, each pass followed by projection. */
void cg_mesh_relax(cg_mesh_t *m, const cg_adj_t *adj, cg_field_fn_t f, const void *ctx, const bool *fixed, int iters,
                   float step);
/* Area-weighted vertex normals from the triangles (out: nv x 3, unit). */
void cg_mesh_vertex_normals(const cg_mesh_t *m, float (*out)[3]);

#endif
