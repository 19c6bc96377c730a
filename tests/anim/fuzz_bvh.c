/* libFuzzer harness for bvh_parse: any byte string must either fail cleanly
 * or give a hierarchy and frames that the skeleton bridge and FK can use. */
#include "anim/bvh.h"
#include "anim/pose.h"
#include "anim/skel.h"
#include "core/log.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bvh_t b;
    static skel_t s;
    static pose_t pose;
    static float model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    log_set_level(LOG_QUIET);
    if (!bvh_parse(&b, (const char *)data, size, "fuzz.bvh"))
        return 0;
    if (b.joint_count < 1 || b.frame_count < 1 || !b.frames || b.joint_parent[0] != -1)
        abort();
    for (int j = 1; j < b.joint_count; j++)
        if (b.joint_parent[j] < 0 || b.joint_parent[j] >= j)
            abort();
    bvh_map_t map;
    if (bvh_to_skel(&b, &s) && bvh_map_skel(&b, &s, &map)) {
        int frames[2] = {0, b.frame_count - 1};
        for (int i = 0; i < 2; i++) {
            if (!bvh_frame_pose(&b, &s, &map, frames[i], &pose))
                abort();
            pose_model_job_t job = {.skel = &s, .local = &pose, .capacity = SKEL_MAX_JOINTS, .model_mat = model};
            /* Finite channels can still overflow FK; that is a clean false. */
            (void)pose_model_run(&job);
        }
    }
    bvh_free(&b);
    return 0;
}
