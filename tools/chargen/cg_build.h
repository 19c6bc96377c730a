/* cg_build: the generator pipeline, from the rest skeleton to a complete
 * chr_character_t: figure -> body and head surfaces (surface nets) zipped at
 * the neck -> relaxation -> eyes -> normals, tangents, UVs, materials ->
 * skin weights [-> extra joints] -> ambient occlusion -> facial blend shapes
 * with normal/tangent/AO deltas -> elbow and knee correctives.
 *
 * Call order: cg_build_character() -> use/save -> chr_free().
 * Output is deterministic: the same skeleton and parameters give the same
 * bytes (single-threaded, fixed ray sets, no clocks or random seeds).
 * Does NOT: write files or render (see main.c, cg_preview).
 */
#ifndef STRIDER_CHARGEN_BUILD_H
#define STRIDER_CHARGEN_BUILD_H

#include "anim/skel.h"
#include "asset/character.h"

#include <stdbool.h>

typedef struct cg_params_t {
    float density;   /* triangle-count multiplier (1 = default ~30k) */
    int extra_bones; /* joints added beyond the skeleton file's */
    int shapes;      /* total blend shapes (>= built-ins; 0 = built-ins) */
    bool tiny;       /* a very coarse character (fuzz seeds) */
    bool verbose;
} cg_params_t;

bool cg_build_character(const skel_t *s, const cg_params_t *prm, chr_character_t *out);

#endif
