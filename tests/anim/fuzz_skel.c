/* libFuzzer harness for skel_parse: any byte string must either parse into a
 * well-formed skeleton (parents before children) or fail cleanly. */
#include "anim/skel.h"
#include "core/log.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static skel_t s;
    log_set_level(LOG_QUIET);
    if (skel_parse(&s, (const char *)data, size, "fuzz.skel")) {
        if (s.joint_count < 1 || s.joint_count > SKEL_MAX_JOINTS || s.joint_parent[0] != -1)
            abort();
        for (int j = 1; j < s.joint_count; j++)
            if (s.joint_parent[j] < 0 || s.joint_parent[j] >= j)
                abort();
        static float pos[SKEL_MAX_JOINTS][3];
        skel_rest_positions(&s, pos);
    }
    return 0;
}
