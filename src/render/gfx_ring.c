#include "render/gfx_ring.h"

#include "core/log.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

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

bool gfx_ring_wait(gfx_ring_t *r, int s, uint64_t timeout_ns, bool *waited, double *waited_ms)
{
    *waited = false;
    *waited_ms = 0.0;
    if (!r->fence[s])
        return true;
    GLenum w = glClientWaitSync(r->fence[s], 0, 0);
    if (w == GL_TIMEOUT_EXPIRED) {
        /* The GPU is more than the ring's frames behind: wait, and say so. */
        struct timespec t0, t1;
        timespec_get(&t0, TIME_UTC);
        w = glClientWaitSync(r->fence[s], GL_SYNC_FLUSH_COMMANDS_BIT, timeout_ns);
        timespec_get(&t1, TIME_UTC);
        *waited = true;
        *waited_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    }
    if (w == GL_WAIT_FAILED || w == GL_TIMEOUT_EXPIRED)
        return false;
    glDeleteSync(r->fence[s]);
    r->fence[s] = NULL;
    return true;
}
