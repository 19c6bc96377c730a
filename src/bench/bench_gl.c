#include "bench/bench_gl.h"

#include "core/log.h"
#include "render/gfx.h"
#include "render/gfx_probe.h"

#include <stdio.h>
#include <string.h>

/* The window is never shown; its size only matters for the default
 * framebuffer, which the benchmarks do not draw into. */
enum { BENCH_GL_WINDOW_W = 64, BENCH_GL_WINDOW_H = 64 };

/* What the display offers without asking for a version, for the error
 * line: "no display", "OpenGL 3.3 (llvmpipe ...)", ... */
static void describe_display(char *out, size_t size)
{
    snprintf(out, size, "no OpenGL context at all");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        snprintf(out, size, "no video: %s", SDL_GetError());
        return;
    }
    SDL_Window *w = SDL_CreateWindow("strider bench probe", 0, 0, BENCH_GL_WINDOW_W, BENCH_GL_WINDOW_H,
                                     SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
    SDL_GLContext ctx = w ? SDL_GL_CreateContext(w) : NULL;
    char version[BENCH_TEXT_MAX];
    if (ctx && SDL_GL_MakeCurrent(w, ctx) == 0 && gfx_probe_version_string(version, sizeof version))
        snprintf(out, size, "found only OpenGL %s", version);
    if (ctx)
        SDL_GL_DeleteContext(ctx);
    if (w)
        SDL_DestroyWindow(w);
    SDL_Quit();
}

bool bench_gl_open(bench_gl *g, bench_env *env)
{
    memset(g, 0, sizeof *g);
    platform_desc pd = {.title = "strider bench", .width = BENCH_GL_WINDOW_W, .height = BENCH_GL_WINDOW_H,
                        .hidden = true};
    /* The platform and renderer log their own lines (the version found,
     * "render: llvmpipe ..."); the benchmark says it in one line instead. */
    log_level saved = log_get_level();
    log_set_level(LOG_QUIET);
    bool have_context = platform_init(&g->platform, &pd);
    bool have_renderer = have_context && gfx_init(&(gfx_desc){0});
    log_set_level(saved);
    if (!have_renderer) {
        char why[BENCH_TEXT_MAX * 2];
        if (have_context) {
            snprintf(why, sizeof why, "the renderer could not start on OpenGL %d.%d", g->platform.gl_major,
                     g->platform.gl_minor);
            platform_shutdown(&g->platform);
        } else {
            describe_display(why, sizeof why);
        }
        fprintf(stderr, "strider bench: GPU methods need an OpenGL 4.3+ core context: %s (CPU methods still work)\n",
                why);
        return false;
    }
    g->open = true;
    if (env)
        bench_env_set_gl(env, gfx_get_info()->renderer, gfx_get_info()->version);
    return true;
}

void bench_gl_close(bench_gl *g)
{
    if (!g->open)
        return;
    gfx_shutdown();
    platform_shutdown(&g->platform);
    g->open = false;
}
