/* Tests of anim/bshape: dense == sparse, zero weights give the base bit for
 * bit, one shape at weight 1 gives base + delta, tangents stay orthonormal,
 * AO is clamped, bad active lists are refused, corrective weights follow
 * the chr definition, the dense layout built from the sparse one and the
 * deltas read back from it equal the chr's. Uses a hand-built character
 * (no file). */
#include "anim/bshape.h"
#include "asset/chr_bshape.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VC = 517, SHAPES = 9, CORRECTIVES = 2 };

static uint32_t g_rng = 12345u;
static float frand(void) /* [-1, 1) */
{
    g_rng = g_rng * 1664525u + 1013904223u;
    return (float)(g_rng >> 8) / 8388608.0f - 1.0f;
}

static void normalize3(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    v[0] /= l;
    v[1] /= l;
    v[2] /= l;
}

static chr_delta_t *make_deltas(uint32_t *count, int stride, int phase)
{
    uint32_t n = 0;
    chr_delta_t *d = calloc(VC, sizeof *d);
    for (uint32_t v = (uint32_t)phase; v < VC; v += (uint32_t)stride) {
        d[n].vertex = v;
        for (int k = 0; k < 3; k++) {
            d[n].dpos[k] = frand() * 2.0f;
            d[n].dnormal[k] = frand() * 0.3f;
            d[n].dtangent[k] = frand() * 0.3f;
        }
        d[n].dao = frand() * 0.6f;
        n++;
    }
    *count = n;
    return d;
}

/* Mesh 0: morphed (shapes); mesh 1: correctives only. */
static void build_character(chr_character_t *c)
{
    memset(c, 0, sizeof *c);
    c->skel.joint_count = 3;
    c->skel.joint_parent[0] = -1;
    c->skel.joint_parent[1] = 0;
    c->skel.joint_parent[2] = 1;
    c->mesh_count = 2;
    for (int m = 0; m < 2; m++) {
        chr_mesh_t *mesh = &c->meshes[m];
        snprintf(mesh->name, sizeof mesh->name, "mesh%d", m);
        mesh->vertex_count = VC;
        mesh->vertices = calloc(VC, sizeof *mesh->vertices);
        for (int v = 0; v < VC; v++) {
            chr_vertex_t *x = &mesh->vertices[v];
            float n[3] = {frand(), frand(), frand() + 2.0f};
            normalize3(n);
            float a[3] = {1.0f, 0.0f, 0.0f};
            float d = a[0] * n[0];
            float t[3] = {a[0] - n[0] * d, -n[1] * d, -n[2] * d};
            normalize3(t);
            for (int k = 0; k < 3; k++) {
                x->pos[k] = frand() * 90.0f + 100.0f;
                x->normal[k] = n[k];
                x->tangent[k] = t[k];
            }
            x->tangent[3] = (v & 1) ? -1.0f : 1.0f;
            x->ao = 0.5f + 0.5f * frand();
        }
    }
    c->shape_count = SHAPES;
    c->shapes = calloc(SHAPES, sizeof *c->shapes);
    for (int s = 0; s < SHAPES; s++) {
        snprintf(c->shapes[s].name, sizeof c->shapes[s].name, "shape%d", s);
        c->shapes[s].mesh = 0;
        c->shapes[s].deltas = make_deltas(&c->shapes[s].delta_count, 2 + s % 4, s % 3);
    }
    c->corrective_count = CORRECTIVES;
    c->correctives = calloc(CORRECTIVES, sizeof *c->correctives);
    for (int k = 0; k < CORRECTIVES; k++) {
        chr_corrective_t *cr = &c->correctives[k];
        cr->mesh = 1;
        cr->joint = 1 + (uint32_t)k;
        cr->axis[0] = 1.0f;
        cr->angle_zero_deg = 0.0f;
        cr->angle_full_deg = 90.0f;
        cr->deltas = make_deltas(&cr->delta_count, 3, k);
    }
}

static void free_character(chr_character_t *c)
{
    for (uint32_t m = 0; m < c->mesh_count; m++)
        free(c->meshes[m].vertices);
    for (uint32_t s = 0; s < c->shape_count; s++)
        free(c->shapes[s].deltas);
    for (uint32_t k = 0; k < c->corrective_count; k++)
        free(c->correctives[k].deltas);
    free(c->shapes);
    free(c->correctives);
}

typedef struct soa_t {
    float pos[VC * 3], nrm[VC * 3], tan[VC * 4], ao[VC];
} soa_t;

static void extract(const chr_mesh_t *m, soa_t *out)
{
    for (int v = 0; v < VC; v++) {
        memcpy(&out->pos[v * 3], m->vertices[v].pos, 3 * sizeof(float));
        memcpy(&out->nrm[v * 3], m->vertices[v].normal, 3 * sizeof(float));
        memcpy(&out->tan[v * 4], m->vertices[v].tangent, 4 * sizeof(float));
        out->ao[v] = m->vertices[v].ao;
    }
}

static bool run(bshape_set_t *set, bshape_layout_t layout, const soa_t *base, int n, const uint32_t *idx,
                const float *w, soa_t *out)
{
    bshape_job_t job = {.set = set,
                        .layout = layout,
                        .active_count = n,
                        .active_target = idx,
                        .active_weight = w,
                        .positions = base->pos,
                        .normals = base->nrm,
                        .tangents = base->tan,
                        .ao = base->ao,
                        .out_positions = out->pos,
                        .out_normals = out->nrm,
                        .out_tangents = out->tan,
                        .out_ao = out->ao};
    return bshape_run(&job);
}

static float max_diff(const float *a, const float *b, int n)
{
    float m = 0.0f;
    for (int i = 0; i < n; i++)
        m = fmaxf(m, fabsf(a[i] - b[i]));
    return m;
}

static soa_t g_base, g_a, g_b;

static void test_layouts(const chr_character_t *c)
{
    bshape_set_t set;
    CHECK(chr_bshape_set_build(&set, c, 0, BSHAPE_BUILD_DENSE | BSHAPE_BUILD_SPARSE));
    CHECK(set.shape_count == SHAPES && set.corrective_count == 0 && set.target_count == SHAPES);
    uint32_t expected_pairs = 0;
    for (int s = 0; s < SHAPES; s++)
        expected_pairs += c->shapes[s].delta_count;
    CHECK(set.pair_count == expected_pairs);
    CHECK(bshape_set_find_shape(&set, 4) == 4);
    extract(&c->meshes[0], &g_base);

    /* Zero weights (and an empty list) reproduce the base exactly. */
    uint32_t idx[SHAPES];
    float w[SHAPES];
    for (int i = 0; i < SHAPES; i++) {
        idx[i] = (uint32_t)i;
        w[i] = 0.0f;
    }
    for (int layout = 0; layout < 2; layout++) {
        CHECK(run(&set, (bshape_layout_t)layout, &g_base, SHAPES, idx, w, &g_a));
        CHECK(memcmp(g_a.pos, g_base.pos, sizeof g_a.pos) == 0);
        CHECK(memcmp(g_a.nrm, g_base.nrm, sizeof g_a.nrm) == 0);
        CHECK(memcmp(g_a.tan, g_base.tan, sizeof g_a.tan) == 0);
        CHECK(memcmp(g_a.ao, g_base.ao, sizeof g_a.ao) == 0);
        CHECK(run(&set, (bshape_layout_t)layout, &g_base, 0, NULL, NULL, &g_a));
        CHECK(memcmp(g_a.pos, g_base.pos, sizeof g_a.pos) == 0);
    }

    /* One shape at weight 1 = base + delta, the normal renormalised. */
    for (int layout = 0; layout < 2; layout++) {
        uint32_t s = 5;
        float one = 1.0f;
        CHECK(run(&set, (bshape_layout_t)layout, &g_base, 1, &s, &one, &g_a));
        const chr_shape_t *sh = &c->shapes[s];
        float err = 0.0f;
        uint32_t di = 0;
        for (uint32_t v = 0; v < VC; v++) {
            const chr_delta_t *d = di < sh->delta_count && sh->deltas[di].vertex == v ? &sh->deltas[di++] : NULL;
            float n[3];
            for (int k = 0; k < 3; k++) {
                float p = g_base.pos[v * 3 + k] + (d ? d->dpos[k] : 0.0f);
                err = fmaxf(err, fabsf(p - g_a.pos[v * 3 + k]));
                n[k] = g_base.nrm[v * 3 + k] + (d ? d->dnormal[k] : 0.0f);
            }
            normalize3(n);
            for (int k = 0; k < 3; k++)
                err = fmaxf(err, fabsf(n[k] - g_a.nrm[v * 3 + k]));
            float ao = g_base.ao[v] + (d ? d->dao : 0.0f);
            ao = ao < 0.0f ? 0.0f : (ao > 1.0f ? 1.0f : ao);
            err = fmaxf(err, fabsf(ao - g_a.ao[v]));
            if (!d)
                CHECK(memcmp(&g_a.tan[v * 4], &g_base.tan[v * 4], 4 * sizeof(float)) == 0);
        }
        printf("bshape: single shape (layout %d) max error vs base+delta %.3g\n", layout, (double)err);
        CHECK(err <= 1e-6f);
    }

    /* Random active sets: dense == sparse; tangent orthonormal, AO in range. */
    for (int trial = 0; trial < 20; trial++) {
        int n = trial % (SHAPES + 1);
        uint32_t ai[SHAPES + 2];
        float aw[SHAPES + 2];
        for (int i = 0; i < n; i++) {
            ai[i] = (uint32_t)((i * 7 + trial) % SHAPES);
            aw[i] = frand() * 1.5f;
        }
        /* 7 and SHAPES are coprime: the indices are distinct. */
        CHECK(run(&set, BSHAPE_DENSE, &g_base, n, ai, aw, &g_a));
        CHECK(run(&set, BSHAPE_SPARSE, &g_base, n, ai, aw, &g_b));
        float d = fmaxf(fmaxf(max_diff(g_a.pos, g_b.pos, VC * 3), max_diff(g_a.nrm, g_b.nrm, VC * 3)),
                        fmaxf(max_diff(g_a.tan, g_b.tan, VC * 4), max_diff(g_a.ao, g_b.ao, VC)));
        CHECK(d <= 1e-6f);
        float ortho = 0.0f, unit = 0.0f;
        for (int v = 0; v < VC; v++) {
            const float *nn = &g_b.nrm[v * 3], *t = &g_b.tan[v * 4];
            ortho = fmaxf(ortho, fabsf(nn[0] * t[0] + nn[1] * t[1] + nn[2] * t[2]));
            unit = fmaxf(unit, fabsf(sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]) - 1.0f));
            unit = fmaxf(unit, fabsf(sqrtf(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]) - 1.0f));
            CHECK(g_b.ao[v] >= 0.0f && g_b.ao[v] <= 1.0f);
            CHECK(t[3] == g_base.tan[v * 4 + 3]);
        }
        CHECK(ortho < 1e-5f && unit < 1e-5f);
        if (trial == SHAPES)
            printf("bshape: %d active: dense vs sparse max diff %.3g, |n.t| %.3g\n", n, (double)d, (double)ortho);
    }

    /* Bad lists are refused. */
    uint32_t bad = SHAPES;
    float one = 1.0f, nan = NAN;
    CHECK(!run(&set, BSHAPE_SPARSE, &g_base, 1, &bad, &one, &g_a));
    uint32_t ok = 0;
    CHECK(!run(&set, BSHAPE_DENSE, &g_base, 1, &ok, &nan, &g_a));
    CHECK(!run(&set, BSHAPE_SPARSE, &g_base, -1, &ok, &one, &g_a));
    bshape_set_free(&set);

    /* A set built sparse-only refuses the dense layout. */
    CHECK(chr_bshape_set_build(&set, c, 0, BSHAPE_BUILD_SPARSE));
    CHECK(!run(&set, BSHAPE_DENSE, &g_base, 1, &ok, &one, &g_a));
    bshape_set_free(&set);
    CHECK(!chr_bshape_set_build(&set, c, 7, BSHAPE_BUILD_SPARSE));
}

static void test_correctives(const chr_character_t *c)
{
    bshape_set_t set;
    CHECK(chr_bshape_set_build(&set, c, 1, BSHAPE_BUILD_SPARSE | BSHAPE_BUILD_DENSE));
    CHECK(set.shape_count == 0 && set.corrective_count == CORRECTIVES);
    CHECK(bshape_set_find_shape(&set, 0) == -1);

    pose_t pose;
    memset(&pose, 0, sizeof pose);
    pose.joint_count = 3;
    for (int j = 0; j < 3; j++)
        pose.rot[j][3] = 1.0f;
    float x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
    pose_quat_axis_angle(x, 60.0f * 0.017453293f, pose.rot[1]); /* 60 of 90 degrees */
    pose_quat_axis_angle(y, 60.0f * 0.017453293f, pose.rot[2]); /* about another axis */
    float w[CORRECTIVES];
    chr_bshape_corrective_weights(c, &pose, w);
    printf("bshape: corrective weights %.4f %.4f\n", (double)w[0], (double)w[1]);
    CHECK(fabsf(w[0] - 2.0f / 3.0f) < 1e-4f);
    CHECK(fabsf(w[1]) < 1e-6f);
    /* The same rotation written with q.w < 0 gives the same angle. */
    float q[4] = {-pose.rot[1][0], -pose.rot[1][1], -pose.rot[1][2], -pose.rot[1][3]};
    CHECK(fabsf(bshape_twist_angle_deg(q, x) - 60.0f) < 1e-3f);
    pose_quat_axis_angle(x, 120.0f * 0.017453293f, pose.rot[1]);
    chr_bshape_corrective_weights(c, &pose, w);
    CHECK(w[0] == 1.0f);
    pose_quat_axis_angle(x, -30.0f * 0.017453293f, pose.rot[1]);
    chr_bshape_corrective_weights(c, &pose, w);
    CHECK(w[0] == 0.0f);

    /* Corrective targets apply like shapes: dense == sparse. */
    extract(&c->meshes[1], &g_base);
    uint32_t idx[2] = {0, 1};
    float aw[2] = {0.7f, 0.25f};
    CHECK(run(&set, BSHAPE_DENSE, &g_base, 2, idx, aw, &g_a));
    CHECK(run(&set, BSHAPE_SPARSE, &g_base, 2, idx, aw, &g_b));
    CHECK(max_diff(g_a.pos, g_b.pos, VC * 3) <= 1e-6f);
    CHECK(max_diff(g_a.pos, g_base.pos, VC * 3) > 0.01f);
    bshape_set_free(&set);
}

/* The sparse layout holds every delta: the dense layout built from it (the
 * chr's arrays gone, as figure_load leaves them) equals the one built from
 * the chr, and each target's deltas read back equal the chr's. */
static void test_read_back(const chr_character_t *c)
{
    for (uint32_t mesh = 0; mesh < 2; mesh++) {
        bshape_set_t from_chr, from_pairs;
        CHECK(chr_bshape_set_build(&from_chr, c, mesh, BSHAPE_BUILD_DENSE | BSHAPE_BUILD_SPARSE));
        CHECK(chr_bshape_set_build(&from_pairs, c, mesh, BSHAPE_BUILD_SPARSE));
        /* A copy of the character without its delta arrays. */
        chr_character_t bare = *c;
        chr_shape_t shapes[SHAPES];
        chr_corrective_t correctives[CORRECTIVES];
        memcpy(shapes, c->shapes, sizeof shapes);
        memcpy(correctives, c->correctives, sizeof correctives);
        for (int s = 0; s < SHAPES; s++)
            shapes[s].deltas = NULL;
        for (int k = 0; k < CORRECTIVES; k++)
            correctives[k].deltas = NULL;
        bare.shapes = shapes;
        bare.correctives = correctives;
        CHECK(chr_bshape_set_add_layouts(&from_pairs, &bare, BSHAPE_BUILD_DENSE));
        size_t n = (size_t)from_chr.target_count * from_chr.vertex_count * BSHAPE_DELTA_FLOATS;
        CHECK(from_pairs.dense && memcmp(from_pairs.dense, from_chr.dense, n * sizeof(float)) == 0);

        static chr_delta_t back[VC];
        for (uint32_t s = 0; s < c->shape_count; s++) {
            int t = bshape_set_find_shape(&from_pairs, s);
            CHECK((t >= 0) == (c->shapes[s].mesh == mesh));
            if (t < 0)
                continue;
            uint32_t count = c->shapes[s].delta_count;
            CHECK(chr_bshape_target_deltas(&from_pairs, (uint32_t)t, back, VC) == count);
            CHECK(memcmp(back, c->shapes[s].deltas, count * sizeof *back) == 0);
            /* A short buffer gets what fits; the count is still the whole. */
            memset(back, 0, sizeof back);
            CHECK(chr_bshape_target_deltas(&from_pairs, (uint32_t)t, back, 2) == count);
            CHECK(memcmp(back, c->shapes[s].deltas, 2 * sizeof *back) == 0 && back[2].vertex == 0);
        }
        for (uint32_t k = 0; k < c->corrective_count; k++) {
            int t = bshape_set_find_corrective(&from_pairs, k);
            CHECK((t >= 0) == (c->correctives[k].mesh == mesh));
            if (t < 0)
                continue;
            uint32_t count = c->correctives[k].delta_count;
            CHECK(chr_bshape_target_deltas(&from_pairs, (uint32_t)t, back, VC) == count);
            CHECK(memcmp(back, c->correctives[k].deltas, count * sizeof *back) == 0);
        }
        CHECK(chr_bshape_target_deltas(&from_pairs, from_pairs.target_count, back, VC) == 0);
        bshape_set_free(&from_chr);
        bshape_set_free(&from_pairs);
    }
}

int main(void)
{
    static chr_character_t c;
    build_character(&c);
    test_layouts(&c);
    test_correctives(&c);
    test_read_back(&c);
    free_character(&c);
    return check_summary();
}
