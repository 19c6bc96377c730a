/* bench_gl: the hidden OpenGL context behind the GPU methods of
 * `strider bench` (blend shapes, skinning).
 * bench_gl_open() opens a hidden SDL window with a GL 4.3+ core context via
 * app/platform (the demo's --hidden path), runs gfx_init (GLEW, version
 * check, limits) and writes GL_RENDERER / GL_VERSION into the report_env_t so
 * every output header names the GPU. On failure: one line "strider bench:
 * GPU methods need an OpenGL 4.3+ core context: <why>", false; the caller
 * exits 1 (CPU methods never open GL). Under Xvfb this is Mesa llvmpipe.
 * Call order: bench_gl_open() once a GPU method is selected -> GPU work
 * through src/render/ and src/bench/gpu/ -> bench_gl_close().
 * Does NOT: make gl* calls itself, time anything, or show a window.
 * Memory: everything lives in the caller's bench_gl.
 */
#ifndef STRIDER_BENCH_BENCH_GL_H
#define STRIDER_BENCH_BENCH_GL_H

#include "app/platform.h"
#include "core/report.h"

#include <stdbool.h>

typedef struct bench_gl_t {
    platform_t platform;
    bool open;
} bench_gl_t;

/* ENV may be NULL; otherwise its gl_renderer / gl_version are filled. */
bool bench_gl_open(bench_gl_t *g, report_env_t *env);
void bench_gl_close(bench_gl_t *g);

#endif
