#include "asset/weld.h"

#include <stdlib.h>
#include <string.h>

typedef struct weld_entry_t {
    float p[3];
    uint32_t index;
} weld_entry_t;

static int cmp_place(const weld_entry_t *a, const weld_entry_t *b)
{
    for (int k = 0; k < 3; k++)
        if (a->p[k] != b->p[k])
            return a->p[k] < b->p[k] ? -1 : 1;
    return 0;
}

/* By place, then by index: a total order, so the sort is the same on every
 * C library. */
static int cmp_entry(const void *pa, const void *pb)
{
    const weld_entry_t *a = pa, *b = pb;
    int c = cmp_place(a, b);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

bool weld_positions(const float (*pos)[3], uint32_t n, uint32_t *group, uint32_t *group_count)
{
    weld_entry_t *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return false;
    for (uint32_t v = 0; v < n; v++) {
        memcpy(e[v].p, pos[v], sizeof e[v].p);
        e[v].index = v;
    }
    qsort(e, n, sizeof *e, cmp_entry);
    uint32_t next = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (k > 0 && cmp_place(&e[k - 1], &e[k]) != 0)
            next++;
        group[e[k].index] = next;
    }
    *group_count = n ? next + 1 : 0;
    free(e);
    return true;
}
