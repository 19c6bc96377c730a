/* app: the demo application: ties platform, input, script, simulation,
 * renderer and debug menu together in one fixed-step loop.
 *
 * One frame: events (UI first) -> input sample -> N fixed 60 Hz steps
 * (script events, sim_step) -> interpolate -> render -> menu -> screenshot
 * -> swap; each stage is timed into the profiler ring buffer.
 * In automated runs (--frames or --script) every rendered frame advances
 * exactly one fixed step, so results never depend on the machine's speed.
 * Call order: app_run() does everything and returns the process exit code.
 * Does NOT: make gl* calls (render/ does) or parse the command line (cli.h).
 */
#ifndef STRIDER_APP_APP_H
#define STRIDER_APP_APP_H

#include "app/cli.h"
#include "render/gfx.h"

#include <stdint.h>

/* `strider bench render` (app_options.render_bench): the game as usual, but
 * frame k drawn with the switch set variants[k % count], each render
 * bracketed by glFinish (deformation and swap outside it); at the last frame
 * the same scene is drawn with every set in turn and each picture compared
 * with variants[0]'s. The caller allocates ms[] and pixels[]; the frame
 * loop only fills them. Switch sets also switch the figure's fog
 * (fog_everywhere). */
enum { APP_RENDER_BENCH_MAX_VARIANTS = 8 };
typedef struct app_render_bench {
    int count;                                  /* 1..APP_RENDER_BENCH_MAX_VARIANTS */
    gfx_switches variants[APP_RENDER_BENCH_MAX_VARIANTS];
    long warmup_frames;                         /* the first frames are not timed */
    int capacity;                               /* entries of each ms[] */
    double *ms[APP_RENDER_BENCH_MAX_VARIANTS];  /* out: render times, ms */
    int samples[APP_RENDER_BENCH_MAX_VARIANTS]; /* out: entries filled */
    uint8_t *pixels[2];                         /* scratch, width * height * 3 bytes each */
    int pixel_capacity;                         /* pixels the scratch holds */
    /* Out, from the last frame: pixels whose colour differs from
     * variants[0]'s (-1: not compared), the drawable's size, the GL. */
    long differing[APP_RENDER_BENCH_MAX_VARIANTS];
    int max_channel_diff[APP_RENDER_BENCH_MAX_VARIANTS]; /* largest colour difference of a differing pixel */
    int width, height;
    char renderer[GFX_INFO_STRING_MAX], version[GFX_INFO_STRING_MAX];
} app_render_bench;

int app_run(const app_options *opt);

#endif
