#include "game/pose_dump.h"

#include "core/file.h"
#include "core/log.h"

#include <math.h>
#include <string.h>

#define POSE_DUMP_STEP_S (1.0 / 60.0)

static const char *const POINT_NAMES[CTRL_CONTACTS] = {"l_heel", "l_toe", "r_heel", "r_toe"};
static const char *const GAIT_NAMES[CTRL_GAITS] = {"stand", "walk", "run", "crouch", "jump", "spare"};

bool pose_dump_open(pose_dump_t *d, const char *path, const skel_t *skel)
{
    memset(d, 0, sizeof *d);
    d->f = file_open_write(path);
    if (!d->f)
        return false;
    d->path = path;
    d->skel = skel;
    fputs("step,time_s,root_x,root_y,root_z,heading_deg", d->f);
    for (int g = 0; g < CTRL_GAITS; g++)
        fprintf(d->f, ",gait_%s", GAIT_NAMES[g]);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        fprintf(d->f, ",contact_%s", POINT_NAMES[k]);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        fprintf(d->f, ",lock_%s", POINT_NAMES[k]);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        fprintf(d->f, ",%s_x,%s_y,%s_z", POINT_NAMES[k], POINT_NAMES[k], POINT_NAMES[k]);
    fputs(",head_top_x,head_top_y,head_top_z", d->f);
    for (int b = 0; b < skel->joint_count && b < CTRL_JOINTS; b++) {
        const char *n = skel->joint_name[b];
        fprintf(d->f, ",%s_x,%s_y,%s_z", n, n, n);
    }
    fputc('\n', d->f);
    return true;
}

void pose_dump_row(pose_dump_t *d, uint64_t step, const ctrl_t *c, const pose_t *pose, const ctrl_stats_t *st)
{
    if (!d->f)
        return;
    ctrl_sample_t s;
    ctrl_sample(c, pose, &s);
    FILE *f = d->f;
    fprintf(f, "%llu,%.4f,%.3f,%.3f,%.3f,%.3f", (unsigned long long)step, (double)step * POSE_DUMP_STEP_S,
            (double)st->root_pos[0], (double)st->root_pos[1], (double)st->root_pos[2],
            (double)(st->heading_rad * (180.0f / 3.14159265f)));
    for (int g = 0; g < CTRL_GAITS; g++)
        fprintf(f, ",%.4f", (double)st->gait[g]);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        fprintf(f, ",%d", st->contact[k] ? 1 : 0);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        fprintf(f, ",%.3f", (double)st->lock_weight[k]);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        fprintf(f, ",%.3f,%.3f,%.3f", (double)s.point[k][0], (double)s.point[k][1], (double)s.point[k][2]);
    fprintf(f, ",%.3f,%.3f,%.3f", (double)s.head_top[0], (double)s.head_top[1], (double)s.head_top[2]);
    for (int b = 0; b < d->skel->joint_count && b < CTRL_JOINTS; b++)
        fprintf(f, ",%.3f,%.3f,%.3f", (double)s.joint[b][0], (double)s.joint[b][1], (double)s.joint[b][2]);
    fputc('\n', f);
}

bool pose_dump_close(pose_dump_t *d)
{
    if (!d->f)
        return true;
    bool ok = !ferror(d->f);
    /* A full disk often shows only when the buffer is flushed. */
    ok = (fclose(d->f) == 0) && ok;
    if (!ok)
        log_error("%s: writing the pose dump failed (disk full or I/O error)", d->path);
    d->f = NULL;
    return ok;
}
