#include "bench/bench_gl.h"

#include "core/log.h"
#include "render/gfx.h"

#include <stdio.h>
#include <string.h>

/* The window is never shown; its size only matters for the default
 * framebuffer, which the benchmarks do not draw into. */
enum { BENCH_GL_WINDOW_W = 64, BENCH_GL_WINDOW_H = 64 };

bool bench_gl_open(bench_gl_t *g, report_env_t *env)
{
    memset(g, 0, sizeof *g);
    platform_desc_t pd = {
        .title = "strider bench", .width = BENCH_GL_WINDOW_W, .height = BENCH_GL_WINDOW_H, .hidden = true};
    /* The platform and renderer log their own lines (the version found,
     * "render: llvmpipe ..."); the benchmark says it in one line instead. */
    log_level_t saved = log_get_level();
    log_set_level(LOG_QUIET);
    bool have_context = platform_init(&g->platform, &pd);
    bool have_renderer = have_context && gfx_init(&(gfx_desc_t){0});
    log_set_level(saved);
    if (!have_renderer) {
        char why[REPORT_TEXT_MAX * 2];
        if (have_context) {
            snprintf(why, sizeof why, "the renderer could not start on OpenGL %d.%d", g->platform.gl_major,
                     g->platform.gl_minor);
            platform_shutdown(&g->platform);
        } else {
            /* platform_init() already found out what the display offers (it
             * pins the GL driver for the leak checker before letting go of
             * the probe context; a second probe here would not). */
            snprintf(why, sizeof why, "%s", g->platform.error);
        }
        fprintf(stderr, "strider bench: GPU methods need an OpenGL 4.3+ core context: %s (CPU methods still work)\n",
                why);
        return false;
    }
    g->open = true;
    if (env)
        report_env_set_gl(env, gfx_get_info()->renderer, gfx_get_info()->version);
    return true;
}

void bench_gl_close(bench_gl_t *g)
{
    if (!g->open)
        return;
    gfx_shutdown();
    platform_shutdown(&g->platform);
    g->open = false;
}
