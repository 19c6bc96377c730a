/* gfx_shader: GLSL program loading for the render modules.
 *
 * Sources are read from "<data root>/shaders/<name>". The loader puts
 * "#version 450 core" first and expands every line of the form
 *   #include "file"
 * textually with shaders/file (nested up to GFX_SHADER_MAX_FILES files), so
 * shaders share shaders/shader_interface.h with C. Sources must not carry
 * their own #version line.
 * Call order: gfx_shader_program_load() or _build() (after gfx_init's GLEW setup) -> use ->
 * gfx_shader_program_free().
 * Errors: one line naming the file, with the GLSL log flattened onto it;
 * GLSL logs number files by source string: 0 is the top file, then the
 * includes in the order listed in the message.
 * Does NOT: cache, hot-reload, or keep the source text after linking.
 */
#ifndef STRIDER_RENDER_GFX_SHADER_H
#define STRIDER_RENDER_GFX_SHADER_H

#include "render/gfx.h"

#include <stdbool.h>
#include <stddef.h>

enum {
    GFX_SHADER_MAX_FILES = 16,        /* distinct files in one expanded source */
    GFX_SHADER_MAX_BYTES = 256 * 1024 /* per file and per expanded source */
};

/* Builds a program from shaders/VS_NAME and shaders/FS_NAME; LABEL names it
 * in GL debug output. DEFINES (may be NULL) is inserted right after the
 * #version line of both stages, e.g. "#define STRIDER_NO_SHADOWS\n", to make
 * variants without run-time branches. On failure *out stays {0}. */
bool gfx_shader_program_load(gfx_program_t *out, const char *vs_name, const char *fs_name, const char *defines,
                             const char *label);

/* The general form: a vertex shader, an optional fragment shader, and
 * optional transform-feedback varyings captured interleaved into one
 * buffer (programs that only stream vertices out, with rasterisation
 * discarded, have no fragment shader); or a compute shader alone. */
typedef struct gfx_shader_program_desc_t {
    const char *vs;              /* shaders/ name; NULL with cs */
    const char *cs;              /* shaders/ name of a compute shader: the program's only stage */
    const char *fs;              /* NULL: vertex stage only */
    const char *defines;         /* NULL: none */
    const char *const *varyings; /* NULL: no transform feedback */
    int varying_count;
    const char *label;
} gfx_shader_program_desc_t;
bool gfx_shader_program_build(gfx_program_t *out, const gfx_shader_program_desc_t *d);
void gfx_shader_program_free(gfx_program_t *p);

/* Expands includes of shaders/NAME into out (0-terminated), with DEFINES
 * (may be NULL) after the version line. Exposed for tests. */
bool gfx_shader_expand(const char *name, const char *defines, char *out, size_t out_size);

#endif
