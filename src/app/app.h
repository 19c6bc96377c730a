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

int app_run(const app_options_t *opt);

/* What `strider bench crowd` measures in the game's own frames (set in
 * app_options_t.crowd_bench; not an option). Automated runs take one fixed
 * step per frame; from frame warmup_frames on, frame k's times go in sample
 * k - warmup_frames: the crowd step's three parts (the network as one
 * batch on even frames, one inference per member on odd ones), the
 * deformation (the crowd's palettes, in CPU mode its skinning, and the
 * player's figure) and the render (glFinish-bracketed). At the end of the
 * run the crowd's figures. */
enum { APP_CROWD_BENCH_MAX_SAMPLES = 4096 };
typedef enum app_crowd_deform_t {
    APP_CROWD_DEFORM_GPU = 0,
    APP_CROWD_DEFORM_CPU,
    APP_CROWD_DEFORM_BOTH
} app_crowd_deform_t;
typedef struct app_crowd_bench_t {
    int warmup_frames;
    int samples;
    double begin_ms[APP_CROWD_BENCH_MAX_SAMPLES], net_ms[APP_CROWD_BENCH_MAX_SAMPLES];
    double finish_ms[APP_CROWD_BENCH_MAX_SAMPLES], deform_ms[APP_CROWD_BENCH_MAX_SAMPLES];
    double render_ms[APP_CROWD_BENCH_MAX_SAMPLES];
    bool single[APP_CROWD_BENCH_MAX_SAMPLES]; /* that step's network ran one inference per member */
    bool cpu[APP_CROWD_BENCH_MAX_SAMPLES];    /* that frame's crowd was skinned on the CPU */
    /* Set by the bench: the crowd's deformation, GPU, CPU, or both, by
     * turns of two frames (one batch and one single network step each). */
    app_crowd_deform_t deform;
    /* At the end: */
    int members;
    int threads;
    size_t member_bytes; /* crowd_member_bytes() */
    unsigned long long overlap_steps;
    float min_gap_cm;
    int drawn_main, drawn_shadow; /* crowd members the last frame drew in each pass */
    char renderer[128], version[128];
} app_crowd_bench_t;

#endif
