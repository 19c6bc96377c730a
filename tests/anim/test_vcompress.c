/* Tests for vcompress (the 24-byte skinned vertex) on random vertices plus
 * the hard normals (the six axes, the octahedron's folded edges), with these
 * stated bounds; each fails if its part of the packing is broken:
 *  - position: within half a unorm16 step of the largest axis (extent/131070,
 *    1.3e-3 cm for a 170 cm box), i.e. < 1e-5 of the mesh height;
 *  - normal (octahedral snorm16): < 0.01 degrees;
 *  - tangent (snorm10): < 0.15 degrees, handedness never flips;
 *  - weights: each within 1/255, summing to exactly 255, order kept; joints exact;
 *  - 24 bytes per vertex instead of 64.
 * Then negative controls: a corrupted vertex must show up in the measured
 * error, and bad jobs (257 joints, an index >= joint count, NaN) are refused. */
#include "anim/vcompress.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV 20011
#define MAX_POS_REL 1e-5
#define MAX_NORMAL_DEG 0.01
#define MAX_TANGENT_DEG 0.15
#define HEIGHT_CM 170.0f

static uint32_t g_rng = 2463534242u;

static float rnd(float lo, float hi)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return lo + (hi - lo) * (float)(g_rng >> 8) * (1.0f / 16777216.0f);
}

static void random_unit(float *v)
{
    float len;
    do {
        v[0] = rnd(-1, 1);
        v[1] = rnd(-1, 1);
        v[2] = rnd(-1, 1);
        len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    } while (len < 0.1f || len > 1.0f);
    for (int k = 0; k < 3; k++)
        v[k] /= len;
}

typedef struct src_t {
    float pos[NV * 3], nrm[NV * 3], tan[NV * 4], w[NV * 4];
    uint16_t j[NV * 4];
    vcompress_vertex_t packed[NV];
} src_t;

static void fill(src_t *s)
{
    static const float hard[][3] = {{1, 0, 0},
                                    {-1, 0, 0},
                                    {0, 1, 0},
                                    {0, -1, 0},
                                    {0, 0, 1},
                                    {0, 0, -1},
                                    {0.7071068f, 0, -0.7071068f},
                                    {0, -0.7071068f, -0.7071068f},
                                    {0.6f, 0.8f, 0},
                                    {-0.6f, 0, -0.8f}};
    int nh = (int)(sizeof hard / sizeof hard[0]);
    for (int v = 0; v < NV; v++) {
        s->pos[3 * v] = rnd(-45, 45);
        s->pos[3 * v + 1] = rnd(0, HEIGHT_CM);
        s->pos[3 * v + 2] = rnd(-20, 25);
        if (v < nh)
            memcpy(s->nrm + 3 * v, hard[v], sizeof hard[v]);
        else
            random_unit(s->nrm + 3 * v);
        random_unit(s->tan + 4 * v);
        s->tan[4 * v + 3] = rnd(0, 1) < 0.3f ? -1.0f : 1.0f;
        /* 1 to 4 non-zero weights, sorted descending, summing to 1. */
        int k = 1 + v % 4;
        float w[4] = {0, 0, 0, 0}, sum = 0;
        for (int i = 0; i < k; i++)
            sum += (w[i] = rnd(0.01f, 1.0f));
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++)
                if (w[b] > w[a]) {
                    float t = w[a];
                    w[a] = w[b];
                    w[b] = t;
                }
        for (int i = 0; i < 4; i++) {
            s->w[4 * v + i] = w[i] / sum;
            s->j[4 * v + i] = (uint16_t)((v * 7 + i * 31) % 200);
        }
    }
}

int main(void)
{
    static src_t s;
    fill(&s);
    vcompress_params_t params;
    vcompress_pack_job_t job = {.vertex_count = NV,
                                .positions = s.pos,
                                .normals = s.nrm,
                                .tangents = s.tan,
                                .joints = s.j,
                                .weights = s.w,
                                .joint_count = 200,
                                .out_vertices = s.packed,
                                .out_params = &params};
    CHECKF(vcompress_pack(&job), "pack");
    vcompress_error_t e;
    vcompress_measure(&job, &e);
    printf("bytes per vertex %d -> %d; position %.3g cm (bound %.3g, %.3g of height %.1f cm); normal %.4f deg; "
           "tangent %.4f deg; weight %.4f; flips %d; joint mismatches %d\n",
           e.bytes_before, e.bytes_after, e.max_pos_cm, e.pos_bound_cm, e.max_pos_cm / e.height_cm, e.height_cm,
           e.max_normal_deg, e.max_tangent_deg, e.max_weight, e.handedness_flips, e.joint_mismatches);
    CHECKF(e.bytes_before == 64 && e.bytes_after == 24, "sizes %d -> %d", e.bytes_before, e.bytes_after);
    CHECKF(e.max_pos_cm <= e.pos_bound_cm, "position error %.3g > bound %.3g", e.max_pos_cm, e.pos_bound_cm);
    CHECKF(e.max_pos_cm / e.height_cm < MAX_POS_REL, "relative position error %.3g", e.max_pos_cm / e.height_cm);
    CHECKF(e.max_normal_deg < MAX_NORMAL_DEG, "normal error %.4f deg", e.max_normal_deg);
    CHECKF(e.max_tangent_deg < MAX_TANGENT_DEG, "tangent error %.4f deg", e.max_tangent_deg);
    CHECKF(e.handedness_flips == 0 && e.joint_mismatches == 0, "flips %d, joints %d", e.handedness_flips,
           e.joint_mismatches);
    CHECKF(e.max_weight <= 1.0 / 255.0 + 1e-7, "weight error %.5f", e.max_weight);
    int bad_sum = 0, bad_order = 0;
    for (int v = 0; v < NV; v++) {
        const uint8_t *q = s.packed[v].weights;
        bad_sum += q[0] + q[1] + q[2] + q[3] != VCOMPRESS_WEIGHT_SUM;
        bad_order += q[0] < q[1] || q[1] < q[2] || q[2] < q[3];
    }
    CHECKF(bad_sum == 0 && bad_order == 0, "%d weight sums != 255, %d out of order", bad_sum, bad_order);
    /* The axes must come back exactly (the octahedron's vertices). */
    for (int v = 0; v < 6; v++) {
        float d[3];
        vcompress_oct_decode(s.packed[v].normal, d);
        CHECKF(fabsf(d[0] - s.nrm[3 * v]) + fabsf(d[1] - s.nrm[3 * v + 1]) + fabsf(d[2] - s.nrm[3 * v + 2]) < 1e-6f,
               "axis %d decodes to %g %g %g", v, (double)d[0], (double)d[1], (double)d[2]);
    }

    /* Negative controls: each corruption must be seen by the measurement. */
    vcompress_vertex_t keep = s.packed[100];
    s.packed[100].pos[1] ^= 0x0100;
    vcompress_measure(&job, &e);
    CHECKF(e.max_pos_cm > e.pos_bound_cm, "a flipped position bit went unnoticed");
    s.packed[100] = keep;
    s.packed[100].normal[0] = (int16_t)(s.packed[100].normal[0] ^ 0x0400);
    vcompress_measure(&job, &e);
    CHECKF(e.max_normal_deg > MAX_NORMAL_DEG, "a flipped normal bit went unnoticed (%.4f deg)", e.max_normal_deg);
    s.packed[100] = keep;
    s.packed[100].tangent ^= 1u << 31;
    vcompress_measure(&job, &e);
    CHECKF(e.handedness_flips == 1, "a flipped handedness bit went unnoticed");
    s.packed[100] = keep;
    s.packed[100].weights[0] = (uint8_t)(s.packed[100].weights[0] - 3);
    vcompress_measure(&job, &e);
    CHECKF(e.max_weight > 1.0 / 255.0 + 1e-7, "a changed weight went unnoticed");
    s.packed[100] = keep;

    /* Bad jobs are refused with one logged line. */
    vcompress_pack_job_t bad = job;
    bad.joint_count = 257;
    CHECKF(!vcompress_pack(&bad), "257 joints accepted");
    bad = job;
    bad.joint_count = 150; /* indices go up to 199 */
    CHECKF(!vcompress_pack(&bad), "joint index >= joint count accepted");
    s.pos[5] = NAN;
    CHECKF(!vcompress_pack(&job), "a NaN position accepted");

    return check_summary();
}
