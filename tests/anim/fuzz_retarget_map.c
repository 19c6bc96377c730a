/* libFuzzer harness for the joint-map parser (anim/retarget.h): any text
 * either parses into a map whose every entry is a joint of the controller's
 * skeleton (or unmapped), or fails with one message; a parsed map is then
 * checked by retarget_init and, when accepted, run once on the rest pose.
 * The character is the controller's own skeleton under CMU 31-joint-like
 * names, built here (no files). */
#include "anim/retarget.h"
#include "core/log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char SKEL[] =
    "strider-skeleton 1\n"
    "joint hip - 0 0 0\njoint abdomen hip 0 20.7 -0.7\njoint chest abdomen 0 11.7 -0.5\n"
    "joint neck chest 0 22.2 -2.2\njoint head neck -0.2 7.1 1.2\nend head_end head 0.2 8 8\n"
    "joint lCollar chest 2.7 19.3 -4.9\njoint lShldr lCollar 8.8 -2 1.5\njoint lForeArm lShldr 28.2 -1.7 0.5\n"
    "joint lHand lForeArm 22.6 0.8 7.1\nend lHand_end lHand 6.9 0.4 2.7\n"
    "joint rCollar chest -2.7 19.3 -4.9\njoint rShldr rCollar -8.8 -2 1.5\njoint rForeArm rShldr -28.2 -1.7 0.5\n"
    "joint rHand rForeArm -22.6 0.8 7.1\nend rHand_end rHand -6.9 0.4 2.7\n"
    "joint lButtock hip 8.8 4.4 1.2\njoint lThigh lButtock 0 -1.7 -2.2\njoint lShin lThigh 0 -36.8 0.7\n"
    "joint lFoot lShin -0.7 -45.1 -5.1\nend lFoot_end lFoot 1.1 -3.7 12.1\n"
    "joint rButtock hip -8.8 4.4 1.2\njoint rThigh rButtock 0 -1.7 -2.2\njoint rShin rThigh 0 -36.8 0.7\n"
    "joint rFoot rShin 0.7 -45.1 -5.1\nend rFoot_end rFoot -1.1 -3.7 12.1\n";

static const char *const RENAME[][2] = {
    {"hip", "Hips"},        {"lThigh", "LeftUpLeg"},  {"lShin", "LeftLeg"},
    {"lFoot", "LeftFoot"},  {"rThigh", "RightUpLeg"}, {"rShin", "RightLeg"},
    {"rFoot", "RightFoot"}, {"chest", "Spine1"},      {"head", "Head"},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    log_set_level(LOG_QUIET);
    static skel_t src, dst;
    static bool ready;
    if (!ready) {
        if (!skel_parse(&src, SKEL, sizeof SKEL - 1, "fuzz.skel"))
            abort();
        dst = src;
        for (size_t i = 0; i < sizeof RENAME / sizeof RENAME[0]; i++)
            snprintf(dst.joint_name[skel_find(&src, RENAME[i][0])], SKEL_NAME_MAX, "%s", RENAME[i][1]);
        /* Soles on y = 0, as imported characters stand. */
        dst.joint_offset[0][1] = 95.0f;
        ready = true;
    }
    static retarget_map_t map;
    if (!retarget_map_parse((const char *)data, size, "fuzz.map", &src, &dst, &map))
        return 0;
    for (int j = 0; j < map.joint_count; j++)
        if (map.source[j] != RETARGET_UNMAPPED && (map.source[j] < 0 || map.source[j] >= src.joint_count))
            abort();
    static retarget_t rt;
    if (!retarget_init(&rt, &src, &dst, &map, 0.0f, "fuzz"))
        return 0;
    pose_t in, out;
    pose_rest(&src, &in);
    retarget_job_t job = {.rt = &rt, .source = &in, .scale_xz = 1.0f, .ik = true, .out = &out};
    if (!retarget_run(&job))
        abort();
    return 0;
}
