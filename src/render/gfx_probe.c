#include "render/gfx_probe.h"

#include <GL/gl.h>
#include <stdio.h>

bool gfx_probe_version_string(char *out, size_t out_size)
{
    /* glGetString is OpenGL 1.1, exported by libGL itself: no loader needed. */
    const char *version = (const char *)glGetString(GL_VERSION);
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    if (!version)
        return false;
    snprintf(out, out_size, "%s (%s)", version, renderer ? renderer : "unknown renderer");
    return true;
}
