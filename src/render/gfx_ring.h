/* gfx_ring: a persistently mapped buffer cut into COUNT slots, so the CPU
 * writes one slot while the GPU still reads the older ones (the character's
 * vertex streams, the hybrid's skinned keys). Each slot has a fence, set
 * after the slot's last reader of a frame and waited for before the slot is
 * written again.
 * Call order: gfx_ring_create() -> per write: s = gfx_ring_next() -> wait
 * fence[s] (the caller's wait, which counts its stalls) -> gfx_ring_begin()
 * -> write gfx_ring_slot(s) -> gfx_ring_end() (s is now `last`) -> draws
 * -> gfx_ring_fence(s) after its last reader -> ... -> gfx_ring_destroy().
 * Does NOT: wait on fences unasked (gfx_ring_wait does, for the caller),
 * know what a slot holds, or allocate CPU memory.
 */
#ifndef STRIDER_RENDER_GFX_RING_H
#define STRIDER_RENDER_GFX_RING_H

#include "render/gfx.h"

#include <GL/glew.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { GFX_RING_MAX = 4 };

typedef struct gfx_ring_t {
    gfx_buffer_t buffer; /* count x slot_bytes, persistently mapped, coherent */
    uint8_t *mapped;
    size_t slot_bytes;
    int count;
    GLsync fence[GFX_RING_MAX];
    int writing, last; /* slots being written and last written; -1: none */
} gfx_ring_t;

/* A ring with no buffer yet: every slot free, none written. */
void gfx_ring_init(gfx_ring_t *r);
/* The buffer of COUNT (<= GFX_RING_MAX) slots of SLOT_BYTES, labelled
 * "LABEL.NAME"; false (one logged line naming the ring as NOUN) when it
 * cannot be mapped. */
bool gfx_ring_create(gfx_ring_t *r, int count, size_t slot_bytes, const char *label, const char *name,
                     const char *noun);
/* Deletes the fences, unmaps and deletes the buffer; the ring is as after
 * gfx_ring_init(). */
void gfx_ring_destroy(gfx_ring_t *r);

/* The slot after the last written one. */
static inline int gfx_ring_next(const gfx_ring_t *r) { return (r->last + 1) % r->count; }
static inline uint8_t *gfx_ring_slot(const gfx_ring_t *r, int s) { return r->mapped + (size_t)s * r->slot_bytes; }
static inline void gfx_ring_begin(gfx_ring_t *r, int s) { r->writing = s; }
/* The slot being written becomes the last written. */
static inline void gfx_ring_end(gfx_ring_t *r)
{
    r->last = r->writing;
    r->writing = -1;
}
/* After slot S's last reader: a new fence replaces its old one. */
void gfx_ring_fence(gfx_ring_t *r, int s);
/* Waits up to TIMEOUT_NS for slot S's fence (if any) and deletes it;
 * *WAITED: the GPU still held it, *WAITED_MS: how long that took (0 when
 * free). False (nothing logged: the caller names the ring) when the GPU
 * does not get there. gfx_crowd's wait; gfx_character keeps its own. */
bool gfx_ring_wait(gfx_ring_t *r, int s, uint64_t timeout_ns, bool *waited, double *waited_ms);

#endif
