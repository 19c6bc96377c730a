/* motion_metrics.c: the per-step checks (sink, ceiling, edge, wall, pop, bones,
 * speed, crouch height) run as frames arrive; contacts, slides and flights
 * need whole runs of steps, so mm_finish() finds them in the kept records. */
#include "eval/motion_metrics.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MM_PI 3.14159265358979323846f
#define MM_STEP_S (1.0f / 60.0f)
/* A joint turning more than this between two steps is a pop. */
#define MM_POP_DEG 30.0f
/* A point this far below its idle height counts in sink_steps. */
#define MM_SINK_COUNT_CM 1.0f

float mm_height_above_ground(const level_t *level, const float p[3])
{
    return p[1] - terrain_height(&level->terrain, p[0], p[2]);
}

bool mm_begin(mm_acc *a, const level_t *level, const skel_t *skel, const mm_calibration *cal, int capacity,
              int speed_from, int speed_to)
{
    memset(a, 0, sizeof *a);
    a->steps = capacity > 0 ? calloc((size_t)capacity, sizeof *a->steps) : NULL;
    if (!a->steps) {
        log_error("eval: out of memory for %d steps", capacity);
        return false;
    }
    a->level = level;
    a->skel = skel;
    a->cal = *cal;
    a->capacity = capacity;
    a->speed_from = speed_from;
    a->speed_to = speed_to;
    for (int b = 0; b < skel->joint_count && b < MM_JOINTS; b++) {
        const float *o = skel->joint_offset[b];
        a->rest_len[b] = sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
    }
    a->r.sink_max_cm = -1.0e9f;
    a->r.ceiling_max_cm = -1.0e9f;
    a->r.edge_min_cm = 1.0e9f;
    a->r.wall_max_cm = -1.0e9f;
    return true;
}

void mm_free(mm_acc *a)
{
    free(a->steps);
    memset(a, 0, sizeof *a);
}

static bool all_finite(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

static bool frame_finite(const mm_frame *f)
{
    return all_finite(f->root, 3) && all_finite(&f->joint[0][0], MM_JOINTS * 3) &&
           all_finite(&f->joint_rot[0][0], MM_JOINTS * 4) && all_finite(&f->point[0][0], MM_POINTS * 3) &&
           all_finite(f->head_top, 3) && all_finite(&f->head_height_cm, 1) && all_finite(f->gait, CTRL_GAITS);
}

/* Angle (degrees) of the rotation taking unit quaternion A to B. */
static float quat_angle_deg(const float a[4], const float b[4])
{
    float d = fabsf(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    if (d > 1.0f)
        d = 1.0f;
    return 2.0f * acosf(d) * (180.0f / MM_PI);
}

/* Ceiling and wall checks of body point WHICH (see wall_point) at step I. */
static void check_point(mm_acc *a, const float p[3], const float root[3], int which, int i)
{
    const level_t *l = a->level;
    float g = terrain_height(&l->terrain, p[0], p[2]);
    float ceil_cm = level_crouch_ceiling(l, p[0], p[2]);
    if (ceil_cm > 0.0f && p[1] - (g + ceil_cm) > a->r.ceiling_max_cm) {
        a->r.ceiling_max_cm = p[1] - (g + ceil_cm);
        a->r.ceiling_point = which;
        a->r.ceiling_step = i + 1;
    }
    if (p[1] - g < LEVEL_WALL_HEIGHT_CM) {
        float into = -level_wall_clearance_from(l, p[0], p[2], root[0], root[2], NULL, NULL);
        if (into > a->r.wall_max_cm) {
            a->r.wall_max_cm = into;
            a->r.wall_point = which;
            a->r.wall_step = i + 1;
        }
    }
}

void mm_add(mm_acc *a, const mm_frame *f)
{
    if (a->count >= a->capacity)
        return;
    mm_result *r = &a->r;
    int i = a->count++;
    r->steps = a->count;
    r->nan_resets = f->nan_resets;
    if (!frame_finite(f)) {
        r->nonfinite_steps++;
        a->have_prev = false;
        /* Repeat the last good record so the run passes see no garbage. */
        if (i > 0)
            a->steps[i] = a->steps[i - 1];
        return;
    }

    mm_step *s = &a->steps[i];
    s->flag = 0;
    bool sunk = false;
    for (int k = 0; k < MM_POINTS; k++) {
        memcpy(s->p[k], f->point[k], sizeof s->p[k]);
        s->ground[k] = terrain_height(&a->level->terrain, f->point[k][0], f->point[k][2]);
        if (f->flag[k] || f->lock_weight[k] > MM_LOCK_COUNTS)
            s->flag |= (uint8_t)(1u << k);
        float sink = a->cal.idle_height_cm[k] - (f->point[k][1] - s->ground[k]);
        r->sink_max_cm = fmaxf(r->sink_max_cm, sink);
        sunk |= sink > MM_SINK_COUNT_CM;
    }
    r->sink_steps += sunk;
    s->jump = f->gait[CTRL_GAIT_JUMP] > MM_JUMP_GAIT;

    for (int b = 0; b < MM_JOINTS; b++)
        check_point(a, f->joint[b], f->root, b, i);
    check_point(a, f->head_top, f->root, MM_JOINTS, i);
    for (int k = 0; k < MM_POINTS; k++)
        check_point(a, f->point[k], f->root, MM_JOINTS + 1 + k, i);
    r->edge_min_cm = fminf(r->edge_min_cm, level_edge_clearance(a->level, f->root[0], f->root[2]));

    if (a->have_prev) {
        float worst = 0.0f;
        for (int b = 0; b < MM_JOINTS; b++) {
            float ang = quat_angle_deg(a->prev_rot[b], f->joint_rot[b]);
            if (ang > worst)
                worst = ang;
            if (ang > r->pop_max_deg) {
                r->pop_max_deg = ang;
                r->pop_joint = b;
                r->pop_step = i + 1;
            }
        }
        r->pop_steps += worst > MM_POP_DEG;
        if (i > a->speed_from && i <= a->speed_to) {
            a->speed_path_cm += hypotf(f->root[0] - a->prev_root[0], f->root[2] - a->prev_root[2]);
            a->want_sum += f->want_speed_cm_s;
            a->speed_n++;
        }
    }
    memcpy(a->prev_rot, f->joint_rot, sizeof a->prev_rot);
    memcpy(a->prev_root, f->root, sizeof a->prev_root);
    a->have_prev = true;

    for (int b = 1; b < a->skel->joint_count && b < MM_JOINTS; b++) {
        if (a->rest_len[b] < 1e-3f)
            continue;
        const float *p = f->joint[b], *q = f->joint[a->skel->joint_parent[b]];
        float d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
        float e = fabsf(sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - a->rest_len[b]) / a->rest_len[b];
        r->bone_error_max = fmaxf(r->bone_error_max, e);
    }

    if (level_crouch_ceiling(a->level, f->root[0], f->root[2]) > 0.0f) {
        a->head_sum += f->head_height_cm;
        a->head_n++;
    }
}

static int cmp_float(const void *pa, const void *pb)
{
    float a = *(const float *)pa, b = *(const float *)pb;
    return (a > b) - (a < b);
}

/* Nearest-rank percentile of N sorted values (0 when empty). */
static float percentile(const float *sorted, int n, float q)
{
    if (n <= 0)
        return 0.0f;
    int k = (int)ceilf(q * (float)n) - 1;
    return sorted[k < 0 ? 0 : (k >= n ? n - 1 : k)];
}

/* Contacts of point K (docs/MOTION_EVAL.md): marks the steps in contact in
 * MASK (a or b), then adds the slide of each run of marked steps to OUT. */
static void point_contacts(const mm_acc *a, int k, uint8_t *mask, float *out, int *out_n, float *max_cm, int *max_step)
{
    int n = a->count;
    const mm_step *st = a->steps;
    float idle = a->cal.idle_height_cm[k];
    memset(mask, 0, (size_t)n);
    /* (a) flagged runs, while within the band of the touch-down height. */
    float y0 = 0.0f;
    for (int i = 0; i < n; i++) {
        bool on = st[i].flag & (1u << k);
        if (on && (i == 0 || !(st[i - 1].flag & (1u << k))))
            y0 = st[i].p[k][1];
        if (on && fabsf(st[i].p[k][1] - y0) <= MM_TOUCHDOWN_BAND_CM)
            mask[i] = 1;
    }
    /* (b) runs near the idle height above the ground, whatever the flags. */
    for (int i = 0; i < n;) {
        int e = i;
        while (e < n && fabsf(st[e].p[k][1] - st[e].ground[k] - idle) <= MM_GROUND_BAND_CM)
            e++;
        if (e - i >= MM_GROUND_MIN_STEPS)
            memset(mask + i, 1, (size_t)(e - i));
        i = e > i ? e : i + 1;
    }
    for (int i = 0; i < n;) {
        if (!mask[i]) {
            i++;
            continue;
        }
        float slide = 0.0f;
        int e = i + 1;
        for (; e < n && mask[e]; e++)
            slide += hypotf(st[e].p[k][0] - st[e - 1].p[k][0], st[e].p[k][2] - st[e - 1].p[k][2]);
        out[(*out_n)++] = slide;
        if (slide > *max_cm) {
            *max_cm = slide;
            *max_step = i + 1;
        }
        i = e;
    }
}

static void flights(const mm_acc *a, mm_result *r)
{
    const mm_step *st = a->steps;
    for (int i = 0; i < a->count;) {
        float lift = 1.0e9f;
        for (int k = 0; k < MM_POINTS; k++)
            lift = fminf(lift, st[i].p[k][1] - st[i].ground[k] - a->cal.idle_height_cm[k]);
        if (!(lift > MM_FLIGHT_LIFT_CM)) {
            i++;
            continue;
        }
        int e = i;
        bool jump = false;
        for (; e < a->count; e++) {
            float l = 1.0e9f;
            for (int k = 0; k < MM_POINTS; k++)
                l = fminf(l, st[e].p[k][1] - st[e].ground[k] - a->cal.idle_height_cm[k]);
            if (!(l > MM_FLIGHT_LIFT_CM))
                break;
            jump |= st[e].jump;
        }
        float s = (float)(e - i) * MM_STEP_S;
        if (jump) {
            r->jumps++;
            if (s > r->jump_flight_max_s) {
                r->jump_flight_max_s = s;
                r->jump_flight_step = i + 1;
            }
        } else if (s > r->flight_max_s) {
            r->flight_max_s = s;
            r->flight_step = i + 1;
        }
        i = e;
    }
}

void mm_finish(mm_acc *a, mm_result *out)
{
    mm_result *r = &a->r;
    int n = a->count;
    uint8_t *mask = malloc(n > 0 ? (size_t)n : 1u);
    /* A contact spans at least one step, so there are at most n per point. */
    float *slides = malloc(sizeof(float) * (size_t)(2 * n + 1));
    if (!mask || !slides) {
        log_error("eval: out of memory for the contact pass");
    } else {
        for (int type = 0; type < 2; type++) {
            int m = 0;
            float mx = -1.0f;
            point_contacts(a, type, mask, slides, &m, &mx, &r->slide_max_step[type]);     /* left */
            point_contacts(a, 2 + type, mask, slides, &m, &mx, &r->slide_max_step[type]); /* right */
            qsort(slides, (size_t)m, sizeof *slides, cmp_float);
            r->contacts[type] = m;
            r->slide_p50_cm[type] = percentile(slides, m, 0.50f);
            r->slide_p95_cm[type] = percentile(slides, m, 0.95f);
            r->slide_max_cm[type] = m > 0 ? slides[m - 1] : 0.0f;
        }
        flights(a, r);
    }
    free(mask);
    free(slides);
    if (a->speed_n > 0) {
        r->speed_cm_s = (float)(a->speed_path_cm / a->speed_n / MM_STEP_S);
        r->want_speed_cm_s = (float)(a->want_sum / a->speed_n);
    }
    if (a->head_n > 0)
        r->head_crouch_cm = (float)(a->head_sum / a->head_n);
    *out = *r;
}
