/* gfx_character_hybrid: Cebenoyan's hybrid ("Efficient Animation"). With
 * CPU skinning, the CPU skins a key only every N frames into a
 * persistent-mapped ring of KEY_SLOTS fenced keys; every frame in between,
 * the vertex shader blends the last two keys at t (0 the older, 1 the
 * newer). A slot ended with the hybrid on remembers its key and t. */
#include "render/gfx_character_internal.h"

#include "core/log.h"

#include <stdio.h>
#include <string.h>

/* The older hybrid key's arrays from the key ring at BASE, for VAO. */
static void add_key0(const gfx_character_t *gc, GLuint vao, GLintptr base)
{
    static const struct {
        GLuint attr, binding, size;
        GLsizei stride;
    } key0[] = {{ATTR_KEY0_POSITION, BIND_KEY0_POS, 3, 3 * sizeof(float)},
                {ATTR_KEY0_NORMAL, BIND_KEY0_NORMAL, 3, 3 * sizeof(float)},
                {ATTR_KEY0_TANGENT, BIND_KEY0_TANGENT, 4, 4 * sizeof(float)},
                {ATTR_KEY0_AO, BIND_KEY0_AO, 1, sizeof(float)}};
    const size_t off[] = {0, gc->off_normal, gc->off_tangent, gc->off_ao};
    for (size_t i = 0; i < sizeof key0 / sizeof key0[0]; i++) {
        glVertexArrayVertexBuffer(vao, key0[i].binding, gc->keys.buffer.id, base + (GLintptr)off[i], key0[i].stride);
        glEnableVertexArrayAttrib(vao, key0[i].attr);
        glVertexArrayAttribFormat(vao, key0[i].attr, (GLint)key0[i].size, GL_FLOAT, GL_FALSE, 0);
        glVertexArrayAttribBinding(vao, key0[i].attr, key0[i].binding);
    }
}

/* The hybrid's programs (CPU-path variants that blend two keys), its
 * persistent-mapped key ring and a VAO per key, built by the first key;
 * false (one line, once) on a shader or mapping error. */
bool gfx_char_hybrid_build(gfx_character_t *gc)
{
    if (gc->hybrid_built)
        return true;
    if (gc->hybrid_failed)
        return false;
    gc->hybrid_failed = true; /* until the end of this function */
    static const struct {
        const char *vs, *fs, *defines, *what;
    } kinds[KIND_DEFORM] = {{"character.vert", "character.frag", "", "lit"},
                            {"character.vert", "character.frag", "#define STRIDER_NO_SHADOWS\n", "lit_noshadow"},
                            {"character_shadow.vert", "character_shadow.frag", "", "shadow"},
                            {"character.vert", "character_shadow.frag", "#define STRIDER_SKIN_CAPTURE\n", "capture"}};
    for (int k = 0; k < KIND_DEFORM; k++) {
        if (k == KIND_CAPTURE && gfx_get_info()->max_vertex_ssbo_blocks < 1)
            continue; /* capture refused later */
        char defines[96], name[96];
        snprintf(defines, sizeof defines, "#define STRIDER_HYBRID\n%s", kinds[k].defines);
        snprintf(name, sizeof name, "%s.hybrid.%s", gc->label, kinds[k].what);
        if (!gfx_char_load_program(&gc->hybrid_prog[k], kinds[k].vs, kinds[k].fs, defines, name))
            return false;
        if (k == KIND_LIT || k == KIND_NOSHADOW)
            gfx_char_set_materials(gc, &gc->hybrid_prog[k]);
    }
    /* A key is a slot's vertex arrays (positions .. AO), without palettes. */
    if (!gfx_ring_create(&gc->keys, KEY_SLOTS, gc->off_palette, gc->label, "hybrid_keys", "hybrid key ring"))
        return false;
    /* Key k's VAO reads k as the newer key and k - 1 as the older. */
    for (int k = 0; k < KEY_SLOTS; k++) {
        char what[32];
        snprintf(what, sizeof what, "hybrid_vao[%d]", k);
        GLuint vao = gfx_char_make_vao(gc, gc->keys.buffer.id, (GLintptr)((size_t)k * gc->keys.slot_bytes), what);
        add_key0(gc, vao, (GLintptr)((size_t)((k + KEY_SLOTS - 1) % KEY_SLOTS) * gc->keys.slot_bytes));
        gc->hybrid_vao[k].id = vao;
    }
    gc->hybrid_failed = false;
    gc->hybrid_built = true;
    return true;
}

void gfx_char_hybrid_destroy(gfx_character_t *gc)
{
    for (int k = 0; k < KEY_SLOTS; k++)
        if (gc->hybrid_vao[k].id)
            glDeleteVertexArrays(1, &gc->hybrid_vao[k].id);
    gfx_ring_destroy(&gc->keys);
    for (int k = 0; k < KINDS; k++)
        gfx_shader_program_free(&gc->hybrid_prog[k].prog);
}

bool gfx_character_begin_key(gfx_character_t *gc, gfx_character_stream_t *out)
{
    if (!gfx_char_hybrid_build(gc))
        return false;
    int k = gfx_ring_next(&gc->keys);
    if (!gfx_char_wait_fence(gc, &gc->keys.fence[k], "hybrid key"))
        return false;
    gfx_ring_begin(&gc->keys, k);
    uint8_t *base = gfx_ring_slot(&gc->keys, k);
    memset(out, 0, sizeof *out);
    out->vertex_count = gc->vertex_count;
    out->positions = (float *)base;
    out->normals = (float *)(base + gc->off_normal);
    out->tangents = (float *)(base + gc->off_tangent);
    out->ao = (float *)(base + gc->off_ao);
    out->slot = k;
    return true;
}

void gfx_character_end_key(gfx_character_t *gc, bool first)
{
    if (gc->keys.writing < 0)
        return;
    gfx_ring_end(&gc->keys);
    gc->key_single = first;
    gc->stats.keys_written++;
}

void gfx_char_hybrid_draw(gfx_character_t *gc, int s, int kind, bool main_pass)
{
    const program_locs_t *p = &gc->hybrid_prog[kind];
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->slot[s].model);
    glProgramUniform1f(p->prog.id, p->u_hybrid_t, gc->slot[s].key_single ? 1.0f : gc->slot[s].hybrid_t);
    glBindVertexArray(gc->hybrid_vao[gc->slot[s].key].id);
    gfx_char_draw_range(gc, 0, gc->mesh_count, DRAW_TRIANGLES);
    glBindVertexArray(0);
    if (main_pass)
        gc->stats.morph_draws = 0;
}

void gfx_char_hybrid_fence_keys(gfx_character_t *gc, int s)
{
    /* The main pass is also the last reader of the slot's two keys. */
    int keys[2] = {gc->slot[s].key, (gc->slot[s].key + KEY_SLOTS - 1) % KEY_SLOTS};
    for (int i = 0; i < 2; i++)
        gfx_ring_fence(&gc->keys, keys[i]);
}
