/* gfx_validate: see gfx_validate.h. */
#include "render/gfx_validate.h"

#include "core/log.h"

#include <GL/glew.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    bool on;        /* validation */
    bool installed; /* the KHR_debug callback */
} V;

static bool env_asks(void)
{
    const char *e = getenv("STRIDER_GL_VALIDATE");
    return e && e[0] && strcmp(e, "0") != 0;
}

static void fail(const char *what, const char *problem)
{
    log_error("GL validation: %s: %s", what, problem);
    fflush(NULL);
    abort();
}

static void GLAPIENTRY debug_callback(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                                      const GLchar *message, const void *user)
{
    (void)source;
    (void)length;
    (void)user;
    if (severity == GL_DEBUG_SEVERITY_NOTIFICATION)
        return;
    bool error = severity == GL_DEBUG_SEVERITY_HIGH || type == GL_DEBUG_TYPE_ERROR;
    if (error && V.on) {
        char line[512];
        snprintf(line, sizeof line, "KHR_debug error %u: %s", id, message);
        fail("driver", line);
    }
    if (error)
        log_warn("GL error %u: %s", id, message);
    else
        log_debug("GL %u: %s", id, message);
}

bool gfx_validate_init(bool debug_output)
{
#ifndef NDEBUG
    V.on = true;
#else
    V.on = env_asks();
#endif
    V.installed = false;
    if ((debug_output || V.on) && GLEW_KHR_debug) {
        glEnable(GL_DEBUG_OUTPUT);
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        glDebugMessageCallback(debug_callback, NULL);
        V.installed = true;
    }
    if (V.on)
        log_debug("render: GL validation on (%s)",
                  V.installed ? "draw checks and KHR_debug errors fatal" : "draw checks; no KHR_debug here");
    return V.installed;
}

void gfx_validate_shutdown(void)
{
    if (V.installed)
        glDebugMessageCallback(NULL, NULL);
    V.installed = false;
}

bool gfx_validate_on(void) { return V.on; }

/* Every block of INTERFACE (storage or uniform) of PROG has a buffer at its
 * binding point in TARGET's indexed bindings. */
static void check_blocks(GLuint prog, GLenum interface, GLenum binding_query, const char *kind, const char *what)
{
    GLint blocks = 0;
    glGetProgramInterfaceiv(prog, interface, GL_ACTIVE_RESOURCES, &blocks);
    for (GLint b = 0; b < blocks; b++) {
        const GLenum props[1] = {GL_BUFFER_BINDING};
        GLint binding = -1;
        glGetProgramResourceiv(prog, interface, (GLuint)b, 1, props, 1, NULL, &binding);
        GLint buffer = 0;
        glGetIntegeri_v(binding_query, (GLuint)binding, &buffer);
        if (buffer == 0) {
            char name[96] = "?", problem[256];
            glGetProgramResourceName(prog, interface, (GLuint)b, sizeof name, NULL, name);
            snprintf(problem, sizeof problem, "%s block '%s' at binding %d has no buffer bound", kind, name, binding);
            fail(what, problem);
        }
    }
}

static GLuint current_program(const char *what)
{
    GLint prog = 0;
    glGetIntegerv(GL_CURRENT_PROGRAM, &prog);
    if (prog == 0)
        fail(what, "no program is bound");
    return (GLuint)prog;
}

void gfx_validate_dispatch(const char *what)
{
    if (!V.on)
        return;
    GLuint prog = current_program(what);
    check_blocks(prog, GL_SHADER_STORAGE_BLOCK, GL_SHADER_STORAGE_BUFFER_BINDING, "storage", what);
    check_blocks(prog, GL_UNIFORM_BLOCK, GL_UNIFORM_BUFFER_BINDING, "uniform", what);
}

void gfx_validate_draw(const char *what)
{
    if (!V.on)
        return;
    GLuint prog = current_program(what);
    GLint vao = 0;
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vao);
    if (vao == 0)
        fail(what, "no vertex array object is bound");
    check_blocks(prog, GL_SHADER_STORAGE_BLOCK, GL_SHADER_STORAGE_BUFFER_BINDING, "storage", what);
    check_blocks(prog, GL_UNIFORM_BLOCK, GL_UNIFORM_BUFFER_BINDING, "uniform", what);
    GLint tf_active = 0, tf_buffer = 0;
    glGetIntegerv(GL_TRANSFORM_FEEDBACK_ACTIVE, &tf_active);
    if (tf_active)
        glGetIntegeri_v(GL_TRANSFORM_FEEDBACK_BUFFER_BINDING, 0, &tf_buffer);
    GLint attribs = 0;
    glGetIntegerv(GL_MAX_VERTEX_ATTRIBS, &attribs);
    for (GLint a = 0; a < attribs; a++) {
        GLint enabled = 0;
        glGetVertexAttribiv((GLuint)a, GL_VERTEX_ATTRIB_ARRAY_ENABLED, &enabled);
        if (!enabled)
            continue;
        GLint buffer = 0;
        glGetVertexAttribiv((GLuint)a, GL_VERTEX_ATTRIB_ARRAY_BUFFER_BINDING, &buffer);
        char problem[256];
        if (buffer == 0) {
            /* GL 4.5 core leaves the result undefined: llvmpipe reads
             * zeros, NVIDIA's driver crashes. */
            snprintf(problem, sizeof problem,
                     "vertex attribute %d is enabled in vertex array %d but its binding has no buffer", a, vao);
            fail(what, problem);
        }
        if (tf_active && buffer == tf_buffer) {
            snprintf(problem, sizeof problem,
                     "vertex attribute %d reads buffer %d, which transform feedback writes in the same draw", a,
                     buffer);
            fail(what, problem);
        }
    }
}
