/* motion_metrics.c: the per-step checks (sink, ceiling, edge, wall, joint
 * rotation and heel/toe steps, bones, speed, crouch height) run as frames
 * arrive; contacts, slides, flights and the flexion near events need whole
 * runs of steps, so mm_finish() finds them in the kept records. */
#include "game/motion_metrics.h"

#include "core/stats.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MM_PI 3.14159265358979323846f
#define MM_STEP_S (1.0f / 60.0f)
/* A point this far below its idle height counts in sink_steps. */
#define MM_SINK_COUNT_CM 1.0f

const char *const MM_HINGE_NAMES[MM_HINGES] = {"lShin", "rShin", "lForeArm", "rForeArm"};

float mm_height_above_ground(const level_t *level, const float p[3])
{
    return p[1] - terrain_height(&level->terrain, p[0], p[2]);
}

bool mm_begin(mm_acc_t *a, const level_t *level, const skel_t *skel, const mm_calibration_t *cal, int capacity,
              int speed_from, int speed_to)
{
    memset(a, 0, sizeof *a);
    a->steps = capacity > 0 ? calloc((size_t)capacity, sizeof *a->steps) : NULL;
    a->rot_hist = calloc((size_t)MM_JOINTS * MM_ROT_BINS, sizeof *a->rot_hist);
    if (!a->steps || !a->rot_hist) {
        log_error("eval: out of memory for %d steps", capacity);
        mm_free(a);
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
    for (int h = 0; h < MM_HINGES; h++) {
        int j = skel_find(skel, MM_HINGE_NAMES[h]), child = -1;
        for (int b = 0; j >= 0 && b < skel->joint_count && b < MM_JOINTS; b++)
            if (skel->joint_parent[b] == j) {
                child = b;
                break;
            }
        bool ok = j > 0 && j < MM_JOINTS && child > 0;
        a->hinge[h][0] = ok ? skel->joint_parent[j] : -1;
        a->hinge[h][1] = ok ? j : -1;
        a->hinge[h][2] = ok ? child : -1;
    }
    a->prev_wall_pushes = -1;
    a->r.sink_max_cm = -1.0e9f;
    a->r.ceiling_max_cm = -1.0e9f;
    a->r.edge_min_cm = 1.0e9f;
    a->r.wall_max_cm = -1.0e9f;
    return true;
}

void mm_free(mm_acc_t *a)
{
    free(a->steps);
    free(a->rot_hist);
    memset(a, 0, sizeof *a);
}

static bool all_finite(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

static bool frame_finite(const mm_frame_t *f)
{
    return all_finite(f->root, 3) && all_finite(&f->joint[0][0], MM_JOINTS * 3) &&
           all_finite(&f->joint_rot[0][0], MM_JOINTS * 4) && all_finite(&f->point[0][0], MM_POINTS * 3) &&
           all_finite(f->head_top, 3) && all_finite(&f->head_height_cm, 1) && all_finite(f->gait, CTRL_GAITS);
}

float mm_quat_angle_deg(const float a[4], const float b[4])
{
    float d = fabsf(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    if (d > 1.0f)
        d = 1.0f;
    return 2.0f * acosf(d) * (180.0f / MM_PI);
}

float mm_hinge_flexion(const mm_acc_t *a, int h, const float (*joint)[3])
{
    const int *j = a->hinge[h];
    if (j[1] < 0)
        return NAN;
    float u[3], v[3];
    for (int k = 0; k < 3; k++) {
        u[k] = joint[j[1]][k] - joint[j[0]][k];
        v[k] = joint[j[2]][k] - joint[j[1]][k];
    }
    float lu = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), lv = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(lu > 1e-6f) || !(lv > 1e-6f))
        return 0.0f;
    float c = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (lu * lv);
    return acosf(c < -1.0f ? -1.0f : (c > 1.0f ? 1.0f : c)) * (180.0f / MM_PI);
}

/* Per-step smoothness of a finite frame F at step I: local rotation
 * changes, hinge flexion changes (kept per step for mm_finish's event
 * pass), heel/toe displacement and acceleration; then F becomes the last. */
static void add_smoothness(mm_acc_t *a, const mm_frame_t *f, mm_step_t *s, int i)
{
    mm_result_t *r = &a->r;
    float flex[MM_HINGES];
    for (int h = 0; h < MM_HINGES; h++) {
        flex[h] = mm_hinge_flexion(a, h, f->joint);
        s->flex_change[h] = a->have_prev && isfinite(flex[h]) ? fabsf(flex[h] - a->prev_flex[h]) : 0.0f;
    }
    if (a->have_prev) {
        a->rot_count++;
        for (int b = 0; b < MM_JOINTS; b++) {
            float ang = mm_quat_angle_deg(a->prev_local[b], f->joint_local[b]);
            int bin = (int)(ang / MM_ROT_BIN_DEG);
            a->rot_hist[(size_t)b * MM_ROT_BINS + (size_t)(bin < MM_ROT_BINS ? bin : MM_ROT_BINS - 1)]++;
            if (ang > r->rot_max_deg[b]) {
                r->rot_max_deg[b] = ang;
                r->rot_max_step[b] = i + 1;
            }
        }
        for (int k = 0; k < MM_POINTS; k++) {
            const float *p = f->point[k], *q = a->prev_point[0][k], *o = a->prev_point[1][k];
            float d = sqrtf((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                            (p[2] - q[2]) * (p[2] - q[2]));
            if (d > r->point_step_max_cm) {
                r->point_step_max_cm = d;
                r->point_step_point = k;
                r->point_step_step = i + 1;
            }
            if (a->have_prev < 2)
                continue;
            float acc[3];
            for (int c = 0; c < 3; c++)
                acc[c] = p[c] - 2.0f * q[c] + o[c];
            float ac = sqrtf(acc[0] * acc[0] + acc[1] * acc[1] + acc[2] * acc[2]);
            if (ac > r->point_accel_max_cm) {
                r->point_accel_max_cm = ac;
                r->point_accel_point = k;
                r->point_accel_step = i + 1;
            }
        }
    }
    /* Events: a wall changed the root's move, the crouch gait crossed. */
    bool crouch = f->gait[CTRL_GAIT_CROUCH] > MM_CROUCH_GAIT;
    s->event = (a->prev_wall_pushes >= 0 && f->wall_pushes != a->prev_wall_pushes) ||
               (a->count > 1 && crouch != a->prev_crouch);
    a->prev_wall_pushes = f->wall_pushes;
    a->prev_crouch = crouch;
    memcpy(a->prev_local, f->joint_local, sizeof a->prev_local);
    memcpy(a->prev_flex, flex, sizeof a->prev_flex);
    memcpy(a->prev_point[1], a->prev_point[0], sizeof a->prev_point[1]);
    memcpy(a->prev_point[0], f->point, sizeof a->prev_point[0]);
    if (a->have_prev < 2)
        a->have_prev++;
}

/* Ceiling and wall checks of body point WHICH (see wall_point) at step I. */
static void check_point(mm_acc_t *a, const float p[3], const float root[3], int which, int i)
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

void mm_add(mm_acc_t *a, const mm_frame_t *f)
{
    if (a->count >= a->capacity)
        return;
    mm_result_t *r = &a->r;
    int i = a->count++;
    r->steps = a->count;
    r->nan_resets = f->nan_resets;
    if (!frame_finite(f) || !all_finite(&f->joint_local[0][0], MM_JOINTS * 4)) {
        r->nonfinite_steps++;
        a->have_prev = 0;
        /* Repeat the last good record so the run passes see no garbage. */
        if (i > 0) {
            a->steps[i] = a->steps[i - 1];
            memset(a->steps[i].flex_change, 0, sizeof a->steps[i].flex_change);
            a->steps[i].event = 0;
        }
        return;
    }

    mm_step_t *s = &a->steps[i];
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
    /* A held foot point standing on ground a step or more from the body's
     * (a foot up on a trench's cliff top from inside it): outside jumps. */
    for (int k = 0; k < MM_POINTS && !s->jump; k++) {
        if (!(s->flag & (1u << k)))
            continue;
        float off = fabsf(f->point[k][1] - a->cal.idle_height_cm[k] - f->root[1]);
        if (off > r->stand_off_cm) {
            r->stand_off_cm = off;
            r->stand_off_step = i + 1;
        }
    }

    for (int b = 0; b < MM_JOINTS; b++)
        check_point(a, f->joint[b], f->root, b, i);
    check_point(a, f->head_top, f->root, MM_JOINTS, i);
    for (int k = 0; k < MM_POINTS; k++)
        check_point(a, f->point[k], f->root, MM_JOINTS + 1 + k, i);
    r->edge_min_cm = fminf(r->edge_min_cm, level_edge_clearance(a->level, f->root[0], f->root[2]));

    if (a->have_prev && i > a->speed_from && i <= a->speed_to) {
        a->speed_path_cm += hypotf(f->root[0] - a->prev_root[0], f->root[2] - a->prev_root[2]);
        a->want_sum += f->want_speed_cm_s;
        a->speed_n++;
    }
    memcpy(a->prev_root, f->root, sizeof a->prev_root);
    add_smoothness(a, f, s, i);

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

/* Contacts of point K (docs/MOTION_EVAL.md): marks the steps in contact in
 * MASK (a or b), then adds the slide of each run of marked steps to OUT. */
static void point_contacts(const mm_acc_t *a, int k, uint8_t *mask, float *out, int *out_n, float *max_cm,
                           int *max_step)
{
    int n = a->count;
    const mm_step_t *st = a->steps;
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

/* Flights (docs/MOTION_EVAL.md); a jump flight's first and last steps are
 * events (take-off and landing) in EVENT. */
static void flights(const mm_acc_t *a, mm_result_t *r, uint8_t *event)
{
    const mm_step_t *st = a->steps;
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
            event[i] = event[e - 1] = 1;
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

/* The largest hinge flexion change in steady play and within
 * MM_EVENT_NEAR_S of an event (EVENT: a mask per step, counted here). */
static void flexion(const mm_acc_t *a, mm_result_t *r, const uint8_t *event)
{
    int n = a->count, near = (int)lrintf(MM_EVENT_NEAR_S / MM_STEP_S);
    int last = -1000000000, next = -1;
    r->events = 0;
    for (int i = 0; i < n; i++)
        r->events += event[i];
    for (int i = 0; i < n; i++) {
        if (event[i])
            last = i;
        if (next < i)
            for (next = i; next < n && !event[next]; next++)
                ;
        int ctx = (i - last <= near || (next < n && next - i <= near)) ? MM_NEAR_EVENT : MM_STEADY;
        for (int h = 0; h < MM_HINGES; h++)
            if (a->steps[i].flex_change[h] > r->flex_max_deg[ctx]) {
                r->flex_max_deg[ctx] = a->steps[i].flex_change[h];
                r->flex_hinge[ctx] = h;
                r->flex_step[ctx] = i + 1;
            }
    }
}

/* Each joint's 99.9th percentile (nearest rank) of local rotation change:
 * the upper edge of the histogram bin it falls in, or the largest change
 * when that is the last bin. */
static void rotation_percentiles(const mm_acc_t *a, mm_result_t *r)
{
    uint32_t n = a->rot_count;
    if (n == 0)
        return;
    uint32_t rank = (uint32_t)ceil(0.999 * (double)n);
    for (int b = 0; b < MM_JOINTS; b++) {
        const uint32_t *h = &a->rot_hist[(size_t)b * MM_ROT_BINS];
        uint32_t seen = 0;
        int bin = 0;
        for (; bin < MM_ROT_BINS - 1; bin++) {
            seen += h[bin];
            if (seen >= rank)
                break;
        }
        r->rot_p999_deg[b] = bin < MM_ROT_BINS - 1 ? fminf((float)(bin + 1) * MM_ROT_BIN_DEG, r->rot_max_deg[b])
                                                   : r->rot_max_deg[b];
    }
}

void mm_finish(mm_acc_t *a, mm_result_t *out)
{
    mm_result_t *r = &a->r;
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
            stats_sort_f(slides, m);
            r->contacts[type] = m;
            r->slide_p50_cm[type] = stats_percentile(slides, m, 0.50f);
            r->slide_p95_cm[type] = stats_percentile(slides, m, 0.95f);
            r->slide_max_cm[type] = m > 0 ? slides[m - 1] : 0.0f;
        }
        for (int i = 0; i < n; i++)
            mask[i] = a->steps[i].event;
        flights(a, r, mask);
        flexion(a, r, mask);
    }
    rotation_percentiles(a, r);
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
