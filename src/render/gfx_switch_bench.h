/* gfx_switch_bench: the renderer's side of `strider bench render`: the
 * game's frames drawn with switch sets (gfx_switches_t) in turn, timed, and at
 * the end the same scene drawn with every set and compared pixel by pixel
 * with the first set's picture.
 * Call order: the caller fills a gfx_switch_bench and hands it to the game
 * (app_options.render_bench) -> per frame gfx_switch_bench_apply() before
 * gfx_render_frame() -> at the last frame gfx_switch_bench_compare().
 * Does NOT: allocate (the caller owns ms[] and pixels[]), or time anything
 * itself (the frame loop fills ms[] from gfx_last_gpu_ms()).
 */
#ifndef STRIDER_RENDER_GFX_SWITCH_BENCH_H
#define STRIDER_RENDER_GFX_SWITCH_BENCH_H

#include "render/gfx.h"
#include "render/gfx_character.h"

#include <stdbool.h>
#include <stdint.h>

/* `strider bench render` (app_options.render_bench): the game as usual, but
 * frame k drawn with the switch set variants[k % count], each render
 * bracketed by glFinish (deformation and swap outside it); at the last frame
 * the same scene is drawn with every set in turn and each picture compared
 * with variants[0]'s. The caller allocates ms[] and pixels[]; the frame
 * loop only fills them. Switch sets also switch the figure's fog
 * (fog_everywhere). */
enum { GFX_SWITCH_BENCH_MAX_VARIANTS = 8 };
typedef struct gfx_switch_bench_t {
    int count; /* 1..GFX_SWITCH_BENCH_MAX_VARIANTS */
    gfx_switches_t variants[GFX_SWITCH_BENCH_MAX_VARIANTS];
    long warmup_frames;                         /* the first frames are not timed */
    int capacity;                               /* entries of each ms[] */
    double *ms[GFX_SWITCH_BENCH_MAX_VARIANTS];  /* out: render times, ms */
    int samples[GFX_SWITCH_BENCH_MAX_VARIANTS]; /* out: entries filled */
    uint8_t *pixels[2];                         /* scratch, width * height * 3 bytes each */
    int pixel_capacity;                         /* pixels the scratch holds */
    /* Out, from the last frame: pixels whose colour differs from
     * variants[0]'s (-1: not compared), the drawable's size, the GL. */
    long differing[GFX_SWITCH_BENCH_MAX_VARIANTS];
    int max_channel_diff[GFX_SWITCH_BENCH_MAX_VARIANTS]; /* largest colour difference of a differing pixel */
    int width, height;
    char renderer[GFX_INFO_STRING_MAX], version[GFX_INFO_STRING_MAX];
} gfx_switch_bench_t;

/* Switch set S for the next render; GC (the shown figure's, or NULL) takes
 * its fog and triangle switches. */
void gfx_switch_bench_apply(const gfx_switches_t *s, gfx_character_t *gc);
/* Draws F with every switch set of RB and counts the pixels that differ
 * from the first set's picture; leaves the first set's picture (and
 * switches) behind, as the frame drew them. False after one logged line. */
bool gfx_switch_bench_compare(gfx_switch_bench_t *rb, const gfx_frame_desc_t *f, gfx_character_t *gc);

#endif
