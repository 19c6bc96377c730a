/* bench_gl: the hidden OpenGL context behind the GPU methods of
 * `strider bench` (blend shapes, skinning).
 *
 * bench_gl_open() opens a hidden SDL window with an OpenGL 4.3+ core
 * context through app/platform (the same path as the demo's --hidden mode),
 * initialises the renderer (render/gfx: GLEW, version check, limits) and
 * writes the context's GL_RENDERER and GL_VERSION into the bench_env, so
 * the header of every output names the GPU that produced the numbers.
 * Call order: bench_gl_open() only once a GPU method is selected (CPU-only
 * runs never touch GL) -> GPU work through src/render/ -> bench_gl_close().
 * On failure it prints one line, "strider bench: GPU methods need an OpenGL
 * 4.3+ core context: <why>", and returns false; the benchmark then exits 1
 * (BENCH_EXIT_RUNTIME). Under Xvfb it gets Mesa llvmpipe.
 * Does NOT: make gl* calls itself, time anything, or show a window.
 * Memory: everything lives in the caller's bench_gl; close frees it.
 */
#ifndef STRIDER_BENCH_BENCH_GL_H
#define STRIDER_BENCH_BENCH_GL_H

#include "app/platform.h"
#include "bench/bench_report.h"

#include <stdbool.h>

typedef struct bench_gl {
    platform_t platform;
    bool open;
} bench_gl;

/* ENV may be NULL; otherwise its gl_renderer / gl_version are filled. */
bool bench_gl_open(bench_gl *g, bench_env *env);
void bench_gl_close(bench_gl *g);

#endif
