#include "render/gfx_ring.h"

#include "core/log.h"

#include <stdio.h>
#include <string.h>

void gfx_ring_init(gfx_ring_t *r)
{
    memset(r, 0, sizeof *r);
    r->writing = -1;
    r->last = -1;
}

bool gfx_ring_create(gfx_ring_t *r, int count, size_t slot_bytes, const char *label, const char *name, const char *noun)
{
    r->count = count;
    r->slot_bytes = slot_bytes;
    GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    GLsizeiptr total = (GLsizeiptr)(slot_bytes * (size_t)count);
    glCreateBuffers(1, &r->buffer.id);
    glNamedBufferStorage(r->buffer.id, total, NULL, flags);
    char full[96];
    snprintf(full, sizeof full, "%s.%s", label, name);
    glObjectLabel(GL_BUFFER, r->buffer.id, -1, full);
    r->mapped = glMapNamedBufferRange(r->buffer.id, 0, total, flags);
    if (!r->mapped) {
        log_error("render: %s: cannot map the %lld-byte %s", label, (long long)total, noun);
        return false;
    }
    return true;
}

void gfx_ring_destroy(gfx_ring_t *r)
{
    for (int s = 0; s < GFX_RING_MAX; s++)
        if (r->fence[s])
            glDeleteSync(r->fence[s]);
    if (r->mapped)
        glUnmapNamedBuffer(r->buffer.id);
    if (r->buffer.id)
        glDeleteBuffers(1, &r->buffer.id);
    gfx_ring_init(r);
}

void gfx_ring_fence(gfx_ring_t *r, int s)
{
    if (r->fence[s])
        glDeleteSync(r->fence[s]);
    r->fence[s] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}
