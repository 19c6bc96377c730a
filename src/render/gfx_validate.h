/* gfx_validate: the checks a GL driver may leave out, made by Strider itself,
 * so that a mistake one driver forgives fails on every driver.
 *
 * Why: GL 4.5 core leaves some misuse undefined rather than an error. Mesa's
 * llvmpipe (CI's only GL) answers it with zeros; NVIDIA's driver dereferences
 * what it was handed. The stream-out blend-shape baseline drew with enabled
 * vertex attributes whose buffer binding was empty: llvmpipe read zeros,
 * NVIDIA 580 jumped to an address that was no code (`bench blendshapes`
 * killed by SIGSEGV). Checked here before every draw and dispatch:
 *   - a program and a vertex array object are bound (draws);
 *   - every enabled vertex attribute has a buffer;
 *   - every storage and uniform block of the program has a buffer bound;
 *   - no buffer is read as a vertex array while transform feedback writes it.
 * and the KHR_debug messages of type error (or of high severity) end the
 * process with one line naming the GL call's message.
 *
 * On: in debug builds, and wherever the environment has STRIDER_GL_VALIDATE=1
 * (every GL test, tests/CMakeLists.txt; the GPU machine's check script).
 * Off, gfx_validate_draw() is one branch. A failed check logs one line
 * ("GL validation: <what>: <problem>") and aborts: in a test that is a
 * failure with the reason on stderr.
 * Call order: gfx_validate_init() by gfx_init() after GLEW -> the draw
 * sites call gfx_validate_draw("what") just before glDraw* / glDispatch* ->
 * gfx_validate_shutdown() by gfx_shutdown().
 * Does NOT: check that buffers are large enough for the vertex range (the
 * loaders' and the techniques' own checks do), or change any GL state.
 */
#ifndef STRIDER_RENDER_GFX_VALIDATE_H
#define STRIDER_RENDER_GFX_VALIDATE_H

#include <stdbool.h>

/* Installs the KHR_debug callback (feeding core/log) when DEBUG_OUTPUT is
 * asked for or validation is on; returns whether a callback is installed. */
bool gfx_validate_init(bool debug_output);
void gfx_validate_shutdown(void);
/* Whether validation is on (debug build or STRIDER_GL_VALIDATE=1). */
bool gfx_validate_on(void);
/* The checks above for the draw about to be issued; WHAT names it in the
 * failure line. */
void gfx_validate_draw(const char *what);
/* For a compute dispatch: a program is bound, and its storage and uniform
 * blocks have buffers (draws check the blocks too). */
void gfx_validate_dispatch(const char *what);

#endif
