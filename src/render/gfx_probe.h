/* gfx_probe: asks whatever context is current for its version string, before
 * GLEW or gfx_init() exist. The platform uses it to say which OpenGL version a
 * machine offers when it cannot give the 4.3+ core context Strider needs.
 * Does NOT: initialise GLEW or keep any state.
 */
#ifndef STRIDER_RENDER_GFX_PROBE_H
#define STRIDER_RENDER_GFX_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* Copies "<GL_VERSION> (<GL_RENDERER>)" of the current context into out. */
bool gfx_probe_version_string(char *out, size_t out_size);

#endif
