#include "render/gfx_shader.h"

#include "core/file.h"
#include "core/log.h"
#include "core/paths.h"

#include <GL/glew.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHADER_VERSION_LINE "#version 450 core\n"
enum { SHADER_NAME_MAX = 128, SHADER_LOG_MAX = 4096 };

/* State of one expansion: the output buffer and the files seen so far, whose
 * order gives the source-string numbers used in #line directives. */
typedef struct expand_ctx_t {
    char *out;
    size_t size, len;
    bool overflow;
    int file_count;
    char files[GFX_SHADER_MAX_FILES][SHADER_NAME_MAX];
} expand_ctx_t;

static void ctx_append(expand_ctx_t *c, const char *s, size_t n)
{
    if (c->overflow || c->len + n + 1 > c->size) {
        c->overflow = true;
        return;
    }
    memcpy(c->out + c->len, s, n);
    c->len += n;
    c->out[c->len] = 0;
}

static void ctx_appendf_line(expand_ctx_t *c, int line, int file)
{
    char buf[48];
    int n = snprintf(buf, sizeof buf, "#line %d %d\n", line, file);
    ctx_append(c, buf, (size_t)n);
}

/* Returns true and the file name if LINE (not 0-terminated, len bytes) is
 * `#include "name"`. */
static bool parse_include(const char *line, size_t len, char *name, size_t name_size)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i >= len || line[i] != '#')
        return false;
    i++;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    static const char kw[] = "include";
    if (len - i < sizeof kw - 1 || memcmp(line + i, kw, sizeof kw - 1) != 0)
        return false;
    i += sizeof kw - 1;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i >= len || line[i] != '"')
        return false;
    i++;
    size_t start = i;
    while (i < len && line[i] != '"')
        i++;
    if (i >= len || i == start || i - start >= name_size)
        return false;
    memcpy(name, line + start, i - start);
    name[i - start] = 0;
    return true;
}

static bool expand_file(expand_ctx_t *c, const char *name, int depth);

static bool expand_text(expand_ctx_t *c, const char *name, const char *text, size_t size, int file_index, int depth)
{
    int line_no = 1;
    size_t pos = 0;
    while (pos < size) {
        size_t end = pos;
        while (end < size && text[end] != '\n')
            end++;
        char inc[SHADER_NAME_MAX];
        if (parse_include(text + pos, end - pos, inc, sizeof inc)) {
            if (strstr(inc, "..") || inc[0] == '/') {
                log_error("shaders/%s:%d: include \"%s\" must name a file inside shaders/", name, line_no, inc);
                return false;
            }
            if (depth + 1 >= GFX_SHADER_MAX_FILES) {
                log_error("shaders/%s:%d: includes nested too deeply", name, line_no);
                return false;
            }
            if (!expand_file(c, inc, depth + 1))
                return false;
            ctx_appendf_line(c, line_no + 1, file_index);
        } else {
            ctx_append(c, text + pos, end - pos);
            ctx_append(c, "\n", 1);
        }
        pos = end + 1;
        line_no++;
    }
    if (c->overflow) {
        log_error("shaders/%s: expanded source longer than %zu bytes", name, c->size);
        return false;
    }
    return true;
}

static bool expand_file(expand_ctx_t *c, const char *name, int depth)
{
    if (c->file_count >= GFX_SHADER_MAX_FILES) {
        log_error("shaders/%s: more than %d files included", name, GFX_SHADER_MAX_FILES);
        return false;
    }
    char rel[PATHS_MAX], path[PATHS_MAX];
    snprintf(rel, sizeof rel, "shaders/%s", name);
    if (!paths_join(rel, path, sizeof path))
        return false;
    uint8_t *data = NULL;
    size_t size = 0;
    if (!file_read_all(path, GFX_SHADER_MAX_BYTES, &data, &size))
        return false;
    int index = c->file_count++;
    snprintf(c->files[index], SHADER_NAME_MAX, "%s", name);
    if (index > 0)
        ctx_appendf_line(c, 1, index);
    bool ok = expand_text(c, name, (const char *)data, size, index, depth);
    file_free(data);
    return ok;
}

static bool expand_into(expand_ctx_t *c, const char *name, const char *defines, char *out, size_t out_size)
{
    memset(c, 0, sizeof *c);
    c->out = out;
    c->size = out_size;
    if (out_size > 0)
        out[0] = 0;
    ctx_append(c, SHADER_VERSION_LINE, sizeof SHADER_VERSION_LINE - 1);
    if (defines) {
        ctx_append(c, defines, strlen(defines));
        ctx_append(c, "\n", 1);
    }
    /* Line numbers of the top file start at 1 after the inserted version line. */
    ctx_appendf_line(c, 1, 0);
    return expand_file(c, name, 0) && !c->overflow;
}

bool gfx_shader_expand(const char *name, const char *defines, char *out, size_t out_size)
{
    expand_ctx_t *c = malloc(sizeof *c);
    if (!c) {
        log_error("shaders/%s: out of memory", name);
        return false;
    }
    bool ok = expand_into(c, name, defines, out, out_size);
    free(c);
    return ok;
}

/* Newlines in GL logs become " | " so each error stays one line. */
static void flatten_log(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\n' || s[i] == '\r')
            s[i] = ';';
}

static GLuint compile_stage(GLenum stage, const char *name, const char *defines, const char *label)
{
    expand_ctx_t *c = malloc(sizeof *c);
    char *src = malloc(GFX_SHADER_MAX_BYTES);
    GLuint sh = 0;
    if (!c || !src) {
        log_error("shaders/%s: out of memory", name);
        goto done;
    }
    if (!expand_into(c, name, defines, src, GFX_SHADER_MAX_BYTES))
        goto done;
    sh = glCreateShader(stage);
    const char *srcs[1] = {src};
    glShaderSource(sh, 1, srcs, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[SHADER_LOG_MAX];
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        flatten_log(log);
        char files[GFX_SHADER_MAX_FILES * (SHADER_NAME_MAX + 8)];
        size_t fl = 0;
        files[0] = 0;
        for (int i = 0; i < c->file_count && fl < sizeof files; i++)
            fl += (size_t)snprintf(files + fl, sizeof files - fl, "%s%d=%s", i ? " " : "", i, c->files[i]);
        log_error("shaders/%s: compile failed (files %s): %s", name, files, log);
        glDeleteShader(sh);
        sh = 0;
        goto done;
    }
    char lbl[SHADER_NAME_MAX * 2];
    snprintf(lbl, sizeof lbl, "%s:%s", label, name);
    glObjectLabel(GL_SHADER, sh, -1, lbl);
done:
    free(src);
    free(c);
    return sh;
}

bool gfx_shader_program_build(gfx_program_t *out, const gfx_shader_program_desc_t *d)
{
    out->id = 0;
    const char *first = d->cs ? d->cs : d->vs;
    GLuint vs = compile_stage(d->cs ? GL_COMPUTE_SHADER : GL_VERTEX_SHADER, first, d->defines, d->label);
    if (!vs)
        return false;
    GLuint fs = 0;
    if (!d->cs && d->fs && !(fs = compile_stage(GL_FRAGMENT_SHADER, d->fs, d->defines, d->label))) {
        glDeleteShader(vs);
        return false;
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    if (fs)
        glAttachShader(prog, fs);
    if (!d->cs && d->varying_count > 0)
        glTransformFeedbackVaryings(prog, d->varying_count, d->varyings, GL_INTERLEAVED_ATTRIBS);
    glLinkProgram(prog);
    glDetachShader(prog, vs);
    glDeleteShader(vs);
    if (fs) {
        glDetachShader(prog, fs);
        glDeleteShader(fs);
    }
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[SHADER_LOG_MAX];
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        flatten_log(log);
        if (fs)
            log_error("shaders/%s + shaders/%s: link failed: %s", d->vs, d->fs, log);
        else
            log_error("shaders/%s: link failed: %s", first, log);
        glDeleteProgram(prog);
        return false;
    }
    glObjectLabel(GL_PROGRAM, prog, -1, d->label);
    out->id = prog;
    return true;
}

bool gfx_shader_program_load(gfx_program_t *out, const char *vs_name, const char *fs_name, const char *defines,
                             const char *label)
{
    gfx_shader_program_desc_t d = {.vs = vs_name, .fs = fs_name, .defines = defines, .label = label};
    return gfx_shader_program_build(out, &d);
}

void gfx_shader_program_free(gfx_program_t *p)
{
    if (p->id)
        glDeleteProgram(p->id);
    p->id = 0;
}
