/* cg_ao: per-vertex ambient occlusion (self-occlusion) by ray casting
 * against triangle soups in a uniform grid.
 *
 * Call order: cg_ao_scene_build() -> cg_ao_vertex() for chosen vertices ->
 * cg_ao_scene_free(); rebuild the scene when geometry moves (blend shapes).
 * Ray directions depend only on the vertex id and normal, so AO of a shape
 * minus AO at rest changes only where geometry changed (no sampling noise).
 * Does NOT: handle more than one scene at a time per object; thread.
 */
#ifndef STRIDER_CHARGEN_AO_H
#define STRIDER_CHARGEN_AO_H

typedef struct cg_ao_scene_t {
    int nt;
    float (*tri)[9];
    float lo[3];
    float cell;
    int dim[3];
    int *cell_start; /* dim product + 1 */
    int *cell_tris;
} cg_ao_scene_t;

/* Triangles given as index triples into positions; several meshes may be
 * added by calling with the concatenated arrays. */
void cg_ao_scene_build(cg_ao_scene_t *s, int nv, const float (*p)[3], int nt, const int (*t)[3], float cell_cm);
void cg_ao_scene_free(cg_ao_scene_t *s);
/* AO in [0, 1] (1 = unoccluded) at P with unit normal N; RAYS rays up to
 * MAX_DIST cm; SEED picks the ray set. */
float cg_ao_vertex(const cg_ao_scene_t *s, const float p[3], const float n[3], int rays, float max_dist, unsigned seed);

#endif
