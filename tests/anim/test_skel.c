/* Tests for skel: the committed cmu21 skeleton parses with the expected
 * hierarchy and rest geometry, and malformed files fail with one error. */
#include "anim/skel.h"
#include "core/log.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void test_committed_skeleton(void)
{
    static skel_t s;
    bool loaded = skel_load(&s, "assets/skeleton/cmu21.skel");
    CHECK(loaded);
    if (!loaded)
        return;
    CHECK(s.joint_count == 21);
    CHECK(s.end_count == 5);
    CHECK(skel_find(&s, "hip") == 0);
    CHECK(s.joint_parent[0] == -1);
    for (int j = 1; j < s.joint_count; j++)
        CHECK(s.joint_parent[j] >= 0 && s.joint_parent[j] < j);
    int shin = skel_find(&s, "lShin");
    CHECK(shin >= 0 && s.joint_parent[shin] == skel_find(&s, "lThigh"));
    CHECK(skel_find(&s, "nosuch") == -1);
    CHECK(skel_find_end(&s, "head_end") >= 0);
    CHECK(skel_find(&s, "head_end") == -1);

    float jp[SKEL_MAX_JOINTS][3], ep[SKEL_MAX_ENDS][3];
    skel_rest_positions(&s, jp);
    skel_rest_end_positions(&s, (const float(*)[3])jp, ep);
    int head_end = skel_find_end(&s, "head_end");
    int ltoe = skel_find_end(&s, "lFoot_end"), rtoe = skel_find_end(&s, "rFoot_end");
    float height = ep[head_end][1] - ep[ltoe][1];
    /* Sum of the Y offsets in the file: 69.70 - (-82.99). */
    CHECK(fabsf(height - 152.69f) < 0.05f);
    CHECK(fabsf(ep[ltoe][1] - ep[rtoe][1]) < 1e-3f);
    /* Mirror symmetry of the T-pose: hands at +-X, same height. */
    int lh = skel_find(&s, "lHand"), rh = skel_find(&s, "rHand");
    CHECK(jp[lh][0] > 60.0f && fabsf(jp[lh][0] + jp[rh][0]) < 1e-3f);
    CHECK(fabsf(jp[lh][1] - jp[rh][1]) < 1e-3f);
    /* Toes point forward (+Z). */
    CHECK(ep[ltoe][2] > jp[skel_find(&s, "lFoot")][2] + 10.0f);
}

static bool parse_str(const char *text)
{
    static skel_t s;
    return skel_parse(&s, text, strlen(text), "test.skel");
}

static void test_bad_files(void)
{
    const char *hdr = "strider-skeleton 1\n";
    char buf[512];
    CHECK(parse_str("strider-skeleton 1\njoint a - 0 0 0\nend e a 0 1 0\n"));
    CHECK(!parse_str(""));
    CHECK(!parse_str("# only a comment\n"));
    CHECK(!parse_str("strider-skeleton 2\njoint a - 0 0 0\n"));
    CHECK(!parse_str("skeleton 1\njoint a - 0 0 0\n"));
    CHECK(!parse_str(hdr));
    snprintf(buf, sizeof buf, "%sjoint a - 0 0 0\njoint b nosuch 0 1 0\n", hdr);
    CHECK(!parse_str(buf));
    snprintf(buf, sizeof buf, "%sjoint a - 0 0 0\njoint a a 0 1 0\n", hdr);
    CHECK(!parse_str(buf));
    snprintf(buf, sizeof buf, "%sjoint a - 0 0 0\njoint b - 0 1 0\n", hdr);
    CHECK(!parse_str(buf));
    snprintf(buf, sizeof buf, "%sjoint a - 0 nan 0\n", hdr);
    CHECK(!parse_str(buf));
    snprintf(buf, sizeof buf, "%sjoint a - 0 1e30 0\n", hdr);
    CHECK(!parse_str(buf));
    snprintf(buf, sizeof buf, "%sjoint a - 0 1x 0\n", hdr);
    CHECK(!parse_str(buf));
    snprintf(buf, sizeof buf, "%sjoint a - 0 0\n", hdr);
    CHECK(!parse_str(buf));
    snprintf(buf, sizeof buf, "%sjoint a - 0 0 0 0 0 0 0 0 0 0\n", hdr);
    CHECK(!parse_str(buf));
    snprintf(buf, sizeof buf, "%sbone a - 0 0 0\n", hdr);
    CHECK(!parse_str(buf));
    snprintf(buf, sizeof buf, "%send e - 0 0 0\n", hdr);
    CHECK(!parse_str(buf));
    snprintf(buf, sizeof buf, "%sjoint a - 0 0 0\njoint this_name_is_far_too_long_for_us a 0 1 0\n", hdr);
    CHECK(!parse_str(buf));
    /* A NUL inside the text must not be skipped silently. */
    static const char nul[] = "strider-skeleton 1\njoint a - 0 0 0\0junk\n";
    static skel_t s;
    CHECK(!skel_parse(&s, nul, sizeof nul - 1, "nul.skel"));
    /* Too many joints. */
    static char big[64 * 1024];
    size_t n = (size_t)snprintf(big, sizeof big, "%sjoint j0 - 0 0 0\n", hdr);
    for (int i = 1; i <= SKEL_MAX_JOINTS; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "joint j%d j%d 0 1 0\n", i, i - 1);
    CHECK(!parse_str(big));
    CHECK(!skel_load(&s, "tests/anim/does_not_exist.skel"));
}

int main(void)
{
    log_set_level(LOG_QUIET);
    test_committed_skeleton();
    test_bad_files();
    return check_summary();
}
