/* gfx_switch_bench.c: `strider bench render`'s switch sets and picture
 * comparison (see gfx_switch_bench.h). */
#include "render/gfx_switch_bench.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gfx_switch_bench_apply(const gfx_switches_t *s, gfx_character_t *gc)
{
    gfx_set_switches(s);
    if (gc) {
        gfx_character_set_fog_everywhere(gc, s->fog_everywhere);
        gfx_character_set_all_triangles(gc, s->all_triangles);
    }
}

bool gfx_switch_bench_compare(gfx_switch_bench_t *rb, const gfx_frame_desc_t *f, gfx_character_t *gc)
{
    rb->width = f->width;
    rb->height = f->height;
    snprintf(rb->renderer, sizeof rb->renderer, "%s", gfx_get_info()->renderer);
    snprintf(rb->version, sizeof rb->version, "%s", gfx_get_info()->version);
    long n = (long)f->width * f->height;
    if (n > rb->pixel_capacity) {
        log_error("bench render: a %dx%d frame does not fit the %d pixels set aside to compare", f->width, f->height,
                  rb->pixel_capacity);
        return false;
    }
    for (int v = 0; v < rb->count; v++)
        rb->differing[v] = -1;
    for (int k = 0; k <= rb->count; k++) {
        int v = k % rb->count; /* the first set again at the end */
        gfx_switch_bench_apply(&rb->variants[v], gc);
        gfx_render_frame(f);
        if (k == rb->count)
            break;
        if (!gfx_read_pixels_rgb(f->width, f->height, rb->pixels[v == 0 ? 0 : 1])) {
            log_error("bench render: the %dx%d picture could not be read back", f->width, f->height);
            return false;
        }
        long diff = 0;
        int most = 0;
        for (long i = 0; v > 0 && i < n; i++) {
            if (memcmp(rb->pixels[0] + 3 * i, rb->pixels[1] + 3 * i, 3) == 0)
                continue;
            diff++;
            for (int c = 0; c < 3; c++) {
                int d = abs((int)rb->pixels[0][3 * i + c] - (int)rb->pixels[1][3 * i + c]);
                most = d > most ? d : most;
            }
        }
        rb->differing[v] = diff;
        rb->max_channel_diff[v] = most;
    }
    return true;
}
