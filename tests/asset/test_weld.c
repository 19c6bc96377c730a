/* asset/weld: vertices at the same place share a number; numbers run in
 * the positions' sorted order; -0 and +0 are one place; copies far apart in
 * the array are found. */
#include "asset/weld.h"

#include "check.h"

#include <stdlib.h>

static void test_groups(void)
{
    const float pos[][3] = {
        {1.0f, 0.0f, 0.0f},  /* 0: group 2 */
        {0.0f, 0.0f, 0.0f},  /* 1: group 0 */
        {1.0f, 0.0f, 0.0f},  /* 2: a copy of 0 */
        {0.0f, 1.0f, 0.0f},  /* 3: group 1 (x ties, y decides) */
        {-0.0f, 0.0f, 0.0f}, /* 4: the same place as 1 */
        {2.0f, -5.0f, 9.0f}, /* 5: group 3 */
    };
    uint32_t group[6], count = 99;
    CHECK(weld_positions(pos, 6, group, &count));
    CHECKF(count == 4, "4 places, got %u", count);
    CHECK(group[1] == 0 && group[4] == 0);
    CHECK(group[3] == 1);
    CHECK(group[0] == 2 && group[2] == 2);
    CHECK(group[5] == 3);
    CHECK(weld_positions(pos, 0, group, &count) && count == 0);
}

/* A larger set: each of 500 places written 3 times, spread over the array:
 * every copy gets its place's number and no number is shared by two places. */
static void test_many(void)
{
    enum { PLACES = 500, COPIES = 3, N = PLACES * COPIES };
    static float pos[N][3];
    static uint32_t group[N];
    for (int i = 0; i < N; i++) {
        int p = (i * 7) % PLACES;
        pos[i][0] = (float)(p % 10);
        pos[i][1] = (float)(p / 10 % 10);
        pos[i][2] = (float)(p / 100);
    }
    uint32_t count = 0;
    CHECK(weld_positions((const float(*)[3])pos, N, group, &count));
    CHECK(count == PLACES);
    int bad = 0;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            bool same = pos[i][0] == pos[j][0] && pos[i][1] == pos[j][1] && pos[i][2] == pos[j][2];
            bad += same != (group[i] == group[j]);
        }
    CHECKF(bad == 0, "%d pairs numbered against their places", bad);
}

int main(void)
{
    test_groups();
    test_many();
    return check_summary();
}
