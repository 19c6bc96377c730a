/* feet_stats.c: the shown character's feet and head for --report (see
 * feet_stats.h). */
#include "game/feet_stats.h"

#include "core/stats.h"
#include "ctrl/ctrl_pins.h"
#include "world/terrain.h"

#include <math.h>
#include <string.h>

static float horizontal(const float a[3], const float b[3]) { return hypotf(a[0] - b[0], a[2] - b[2]); }

static void contact_end(feet_stats_t *fs, int side, int k)
{
    if (fs->contacts < FEET_CONTACTS_MAX) {
        fs->contact_slide_cm[fs->contacts] = fs->point_run_cm[side][k];
        fs->ctrl_contact_slide_cm[fs->contacts] = fs->ctrl_point_run_cm[side][k];
    }
    fs->contacts++;
    fs->contact_slide_max_cm = fmaxf(fs->contact_slide_max_cm, fs->point_run_cm[side][k]);
    fs->ctrl_contact_slide_max_cm = fmaxf(fs->ctrl_contact_slide_max_cm, fs->ctrl_point_run_cm[side][k]);
}

void feet_stats_contact_p95(feet_stats_t *fs, float *shown_cm, float *ctrl_cm)
{
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 2; k++)
            if (fs->point_prev_contact[side][k]) {
                contact_end(fs, side, k);
                fs->point_prev_contact[side][k] = false;
            }
    int n = fs->contacts < FEET_CONTACTS_MAX ? fs->contacts : FEET_CONTACTS_MAX;
    stats_sort_f(fs->contact_slide_cm, n);
    stats_sort_f(fs->ctrl_contact_slide_cm, n);
    *shown_cm = stats_percentile(fs->contact_slide_cm, n, 0.95f);
    *ctrl_cm = stats_percentile(fs->ctrl_contact_slide_cm, n, 0.95f);
}

/* The ankle and toe joints against the motion goals: slide per contact
 * (the controller's heel flag for the ankle, its toe flag for the toe) and
 * sinking below the rest height over the terrain. */
static void points_add(feet_stats_t *fs, const feet_shown_t *sh, const ctrl_stats_t *st, const float (*contact)[3],
                       const level_t *level)
{
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 2; k++) {
            if (!sh->has_point[side][k])
                continue;
            int c = side * 2 + k; /* network order: left heel, left toe, right heel, right toe */
            bool on = st->contact[c] && ctrl_point_held(st, c);
            const float *p = sh->point[side][k];
            float sink = sh->rest_height_cm[side][k] - (p[1] - terrain_height(&level->terrain, p[0], p[2]));
            fs->sink_max_cm = fmaxf(fs->sink_max_cm, sink);
            const float *q = contact[c];
            float csink = sh->ctrl_rest_height_cm[side][k] - (q[1] - terrain_height(&level->terrain, q[0], q[2]));
            fs->ctrl_sink_max_cm = fmaxf(fs->ctrl_sink_max_cm, csink);
            if (on && fs->point_prev_contact[side][k]) {
                fs->point_run_cm[side][k] += horizontal(p, fs->point_prev[side][k]);
                fs->ctrl_point_run_cm[side][k] += horizontal(q, fs->ctrl_point_prev[side][k]);
            } else if (!on && fs->point_prev_contact[side][k]) {
                contact_end(fs, side, k);
            }
            if (on && !fs->point_prev_contact[side][k])
                fs->point_run_cm[side][k] = fs->ctrl_point_run_cm[side][k] = 0.0f;
            fs->point_prev_contact[side][k] = on;
            memcpy(fs->point_prev[side][k], p, sizeof fs->point_prev[side][k]);
            memcpy(fs->ctrl_point_prev[side][k], q, sizeof fs->ctrl_point_prev[side][k]);
        }
}

void feet_stats_add(feet_stats_t *fs, const feet_shown_t *sh, const ctrl_stats_t *st, const float (*contact)[3],
                    const level_t *level)
{
    fs->frames++;
    if (fs->frames == 1) {
        fs->finite = true;
        fs->sink_max_cm = fs->ctrl_sink_max_cm = -INFINITY;
    }
    /* The ankles while the controller holds that heel in contact, against
     * the controller's own heel. */
    float ankle[2][3], heel[2][3];
    bool held[2];
    for (int side = 0; side < 2; side++) {
        for (int r = 0; r < 3; r++)
            ankle[side][r] = sh->has_point[side][0] ? sh->point[side][0][r] : 0.0f;
        memcpy(heel[side], contact[side * 2], sizeof heel[side]);
        held[side] = st->contact[side * 2] && ctrl_point_held(st, side * 2);
        fs->finite = fs->finite && isfinite(ankle[side][0]) && isfinite(ankle[side][1]) && isfinite(ankle[side][2]);
        if (fs->have_prev && held[side] && fs->prev_contact[side]) {
            float d = horizontal(ankle[side], fs->prev_ankle[side]), dc = horizontal(heel[side], fs->prev_heel[side]);
            fs->contact_frames++;
            fs->slide_cm[side] += d;
            fs->ctrl_slide_cm[side] += dc;
            fs->slide_max_cm = fmaxf(fs->slide_max_cm, d);
            fs->ctrl_slide_max_cm = fmaxf(fs->ctrl_slide_max_cm, dc);
        }
    }
    memcpy(fs->prev_ankle, ankle, sizeof ankle);
    memcpy(fs->prev_heel, heel, sizeof heel);
    memcpy(fs->prev_contact, held, sizeof held);
    fs->have_prev = true;
    points_add(fs, sh, st, contact, level);
    if (sh->has_head) {
        const float *top = sh->head_top;
        fs->head_top_max_cm = fmaxf(fs->head_top_max_cm, top[1] - sh->ground_y_cm);
        float ceiling = level_crouch_ceiling(level, top[0], top[2]);
        if (ceiling > 0.0f) {
            float room = ceiling - (top[1] - terrain_height(&level->terrain, top[0], top[2]));
            fs->ceiling_clearance_min_cm = fs->ceiling_frames ? fminf(fs->ceiling_clearance_min_cm, room) : room;
            fs->ceiling_frames++;
        }
    }
}
