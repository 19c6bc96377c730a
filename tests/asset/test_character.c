/* Tests for the .chr loader: a small synthetic character round-trips through
 * chr_serialize/chr_parse; truncation, a corrupt checksum, an out-of-range
 * joint index, NaN and bad shape indices each fail with the right message;
 * chr_save writes the same bytes and reports a path it cannot write; the
 * committed asset (when given on the command line) loads and is sane;
 * chr_closed_meshes tells closed surfaces from open ones. */
/* dup/dup2 to capture the loader's message. */
#define _POSIX_C_SOURCE 200809L
#include "asset/character.h"
#include "core/file.h"
#include "core/log.h"
#include "capture.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the loader (or the writer) prints is captured (capture.h) so that
 * the message can be checked. */
static bool parse_capture(const uint8_t *data, size_t size, chr_character_t *c)
{
    capture_begin();
    bool ok = chr_parse(c, data, size, "test.chr");
    capture_end();
    return ok;
}

static bool save_capture(const chr_character_t *c, const char *path)
{
    capture_begin();
    bool ok = chr_save(c, path);
    capture_end();
    return ok;
}

/* Two joints, a tetrahedron skinned to both, one shape, one corrective. */
static void build_tiny(chr_character_t *c)
{
    static chr_vertex_t verts[4];
    static uint32_t idx[12] = {0, 1, 2, 0, 3, 1, 1, 3, 2, 2, 3, 0};
    static chr_delta_t sd[2], cd[1];
    static chr_shape_t shape;
    static chr_corrective_t corr;
    memset(c, 0, sizeof *c);
    c->skel.joint_count = 2;
    strcpy(c->skel.joint_name[0], "root");
    strcpy(c->skel.joint_name[1], "child");
    c->skel.joint_parent[0] = -1;
    c->skel.joint_parent[1] = 0;
    c->skel.joint_offset[1][1] = 10.0f;
    for (int j = 0; j < 2; j++) {
        for (int k = 0; k < 4; k++)
            c->bind_inverse[j][k * 5] = 1.0f;
    }
    c->bind_inverse[1][13] = -10.0f;
    c->material_count = 1;
    strcpy(c->materials[0].name, "skin");
    c->materials[0].color[3] = 1.0f;
    const float p[4][3] = {{0, 0, 0}, {5, 0, 0}, {0, 0, 5}, {0, 10, 0}};
    for (int i = 0; i < 4; i++) {
        memcpy(verts[i].pos, p[i], sizeof p[i]);
        verts[i].normal[1] = 1.0f;
        verts[i].tangent[0] = 1.0f;
        verts[i].tangent[3] = 1.0f;
        verts[i].joints[0] = (uint16_t)(i == 3);
        verts[i].joints[1] = (uint16_t)(i != 3);
        verts[i].weights[0] = 0.75f;
        verts[i].weights[1] = 0.25f;
        verts[i].ao = 1.0f;
    }
    c->mesh_count = 1;
    strcpy(c->meshes[0].name, "body");
    c->meshes[0].flags = CHR_MESH_MORPHED;
    c->meshes[0].vertex_count = 4;
    c->meshes[0].index_count = 12;
    c->meshes[0].vertices = verts;
    c->meshes[0].indices = idx;
    sd[0] = (chr_delta_t){.vertex = 1, .dpos = {1, 0, 0}, .dao = -0.5f};
    sd[1] = (chr_delta_t){.vertex = 3, .dpos = {0, 2, 0}};
    strcpy(shape.name, "jawOpen");
    shape.category = CHR_SHAPE_MODIFIER;
    shape.delta_count = 2;
    shape.deltas = sd;
    c->shape_count = 1;
    c->shapes = &shape;
    cd[0] = (chr_delta_t){.vertex = 2, .dpos = {0, 0, 1}};
    strcpy(corr.name, "knee");
    corr.joint = 1;
    corr.axis[0] = 1.0f;
    corr.angle_zero_deg = 30.0f;
    corr.angle_full_deg = 120.0f;
    corr.delta_count = 1;
    corr.deltas = cd;
    c->corrective_count = 1;
    c->correctives = &corr;
}

/* Recomputes the stored checksum after a deliberate mutation, so the test
 * reaches the check behind it. */
static void fix_checksum(uint8_t *d, size_t n)
{
    uint32_t s = file_checksum32(d + 16, n - 16);
    d[12] = (uint8_t)s;
    d[13] = (uint8_t)(s >> 8);
    d[14] = (uint8_t)(s >> 16);
    d[15] = (uint8_t)(s >> 24);
}

static uint32_t rd32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* Byte offset of the first vertex of the first mesh. */
static size_t first_vertex_offset(const uint8_t *d)
{
    /* Section 3 (MESH) is the third table entry; 4-byte mesh count + header. */
    size_t entry = 24 + 2 * 12;
    return rd32(d + entry + 4) + 4 + 48;
}

static void expect_fail(uint8_t *d, size_t n, const char *needle)
{
    static chr_character_t c;
    bool ok = parse_capture(d, n, &c);
    CHECK(!ok);
    if (!strstr(capture_text, needle) || !strstr(capture_text, "test.chr")) {
        fprintf(stderr, "expected an error containing '%s', got: %s\n", needle, capture_text);
        check_failed++;
    }
    /* Exactly one line. */
    char *nl = strchr(capture_text, '\n');
    CHECK(nl && nl[1] == 0);
}

static void test_round_trip_and_errors(void)
{
    static chr_character_t tiny, back;
    build_tiny(&tiny);
    uint8_t *data = NULL;
    size_t size = 0;
    CHECK(chr_serialize(&tiny, &data, &size));
    if (!data)
        return;
    CHECK(chr_parse(&back, data, size, "test.chr"));
    CHECK(back.skel.joint_count == 2 && back.mesh_count == 1 && back.shape_count == 1);
    CHECK(back.meshes[0].vertex_count == 4 && back.meshes[0].index_count == 12);
    CHECK(memcmp(back.meshes[0].vertices, tiny.meshes[0].vertices, 4 * sizeof(chr_vertex_t)) == 0);
    CHECK(back.shapes[0].deltas[1].vertex == 3 && back.shapes[0].deltas[0].dao == -0.5f);
    CHECK(back.correctives[0].joint == 1 && back.correctives[0].angle_full_deg == 120.0f);
    CHECK(chr_find_shape(&back, "jawOpen") == 0 && chr_find_shape(&back, "nope") == -1);
    CHECK(chr_triangle_count(&back) == 4);
    float dense[4][3];
    chr_shape_scatter_dense(&back.shapes[0], 4, dense);
    CHECK(dense[1][0] == 1.0f && dense[3][1] == 2.0f && dense[0][0] == 0.0f);
    chr_free(&back);
    CHECK(back.mesh_count == 0 && back.shapes == NULL);

    uint8_t *m = malloc(size);
    size_t vtx = first_vertex_offset(data);

    /* Truncated: every prefix must fail, the header-size message for most. */
    for (size_t n = 0; n < size; n += 7) {
        static chr_character_t c;
        log_set_level(LOG_QUIET);
        CHECK(!chr_parse(&c, data, n, "test.chr"));
        log_set_level(LOG_ERROR);
    }
    expect_fail(data, size - 5, "truncated");

    memcpy(m, data, size);
    m[size - 3] ^= 0x40;
    expect_fail(m, size, "checksum mismatch");

    memcpy(m, data, size);
    m[0] = 'X';
    expect_fail(m, size, "bad magic");

    /* Joint index of vertex 0, influence 0, set to 7 (2 joints). */
    memcpy(m, data, size);
    m[vtx + 48] = 7;
    fix_checksum(m, size);
    expect_fail(m, size, "joint index 7 >= joint count 2");

    /* NaN in the x of vertex 0's position. */
    memcpy(m, data, size);
    const uint8_t qnan[4] = {0x00, 0x00, 0xc0, 0x7f};
    memcpy(m + vtx, qnan, 4);
    fix_checksum(m, size);
    expect_fail(m, size, "NaN");

    /* Weights that no longer sum to 1: weight[1] of vertex 0 = 0.5. */
    memcpy(m, data, size);
    const uint8_t half[4] = {0x00, 0x00, 0x00, 0x3f};
    memcpy(m + vtx + 60, half, 4);
    fix_checksum(m, size);
    expect_fail(m, size, "weights sum to");

    /* Index buffer pointing past the vertices. */
    memcpy(m, data, size);
    m[vtx + 4 * 80] = 9;
    fix_checksum(m, size);
    expect_fail(m, size, "vertex 9 >= vertex count 4");

    /* Shape delta vertex out of range: first delta after SHAP count+header. */
    memcpy(m, data, size);
    size_t shap = rd32(m + 24 + 3 * 12 + 4) + 4 + 48;
    m[shap] = 200;
    fix_checksum(m, size);
    expect_fail(m, size, "vertex index 200 >= vertex count 4");

    /* Section offset past the end of the file. */
    memcpy(m, data, size);
    m[24 + 4 + 3] = 0x70;
    fix_checksum(m, size);
    expect_fail(m, size, "outside the file");

    /* The writer refuses a character that would not load. */
    tiny.meshes[0].vertices[2].joints[0] = 2;
    uint8_t *bad = NULL;
    size_t bad_size = 0;
    log_set_level(LOG_QUIET);
    CHECK(!chr_serialize(&tiny, &bad, &bad_size) && bad == NULL);
    log_set_level(LOG_ERROR);
    tiny.meshes[0].vertices[2].joints[0] = 1;

    free(m);
    free(data);
}

/* The committed character: loads, and meets the budget the issue sets. */
static void test_committed(const char *path)
{
    static chr_character_t c;
    CHECK(chr_load(&c, path));
    if (c.mesh_count == 0)
        return;
    CHECK(c.skel.joint_count == 21);
    CHECK(chr_find_mesh(&c, "body") >= 0 && chr_find_mesh(&c, "head") >= 0);
    CHECK(chr_find_mesh(&c, "eyes") >= 0);
    uint32_t tris = chr_triangle_count(&c);
    CHECK(tris > 10000 && tris <= 33000);
    CHECK(c.shape_count >= 50);
    CHECK(c.corrective_count >= 4);
    int head = chr_find_mesh(&c, "head");
    for (uint32_t i = 0; i < c.shape_count; i++)
        CHECK(c.shapes[i].mesh == (uint32_t)head && c.shapes[i].delta_count > 0);
    const char *need[] = {"happy",   "sad",     "angry",    "surprised", "blink_L",
                          "blink_R", "jawOpen", "browUp_L", "pucker",    "cheekPuff_R"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        if (chr_find_shape(&c, need[i]) < 0) {
            fprintf(stderr, "missing shape %s\n", need[i]);
            check_failed++;
        }
    }
    /* The seam: head vertices that coincide with body vertices must carry
     * identical normals and weights, and no blend shape may move them. */
    const chr_mesh_t *hm = &c.meshes[head], *bm = &c.meshes[chr_find_mesh(&c, "body")];
    uint32_t seam = 0;
    bool *on_seam = calloc(hm->vertex_count, 1);
    for (uint32_t i = 0; i < hm->vertex_count && on_seam; i++) {
        const chr_vertex_t *hv = &hm->vertices[i];
        for (uint32_t k = 0; k < bm->vertex_count; k++) {
            const chr_vertex_t *bv = &bm->vertices[k];
            if (memcmp(hv->pos, bv->pos, sizeof hv->pos) != 0)
                continue;
            seam++;
            on_seam[i] = true;
            CHECK(memcmp(hv->normal, bv->normal, sizeof hv->normal) == 0);
            CHECK(memcmp(hv->joints, bv->joints, sizeof hv->joints) == 0);
            CHECK(memcmp(hv->weights, bv->weights, sizeof hv->weights) == 0);
            break;
        }
    }
    CHECK(seam >= 16);
    for (uint32_t si = 0; si < c.shape_count && on_seam; si++)
        for (uint32_t d = 0; d < c.shapes[si].delta_count; d++)
            if (on_seam[c.shapes[si].deltas[d].vertex]) {
                const float *dp = c.shapes[si].deltas[d].dpos;
                CHECK(dp[0] == 0.0f && dp[1] == 0.0f && dp[2] == 0.0f);
            }
    free(on_seam);
    /* The generated figure is closed but for the head (a 1.5 cm gap in
     * the mouth behind the lips, folds at the ears); the generator marks all
     * three meshes one-sided, so the renderer culls every back face. */
    uint32_t closed = chr_closed_meshes(&c), all = (1u << c.mesh_count) - 1u;
    CHECK(closed & (1u << chr_find_mesh(&c, "body")));
    CHECK(closed & (1u << chr_find_mesh(&c, "eyes")));
    CHECKF(chr_cullable_meshes(&c) == all, "committed character: cullable meshes 0x%x, want 0x%x",
           chr_cullable_meshes(&c), all);
    for (uint32_t m = 0; m < c.mesh_count; m++)
        printf("committed character: mesh %s %s%s\n", c.meshes[m].name, closed & (1u << m) ? "closed" : "open",
               c.meshes[m].flags & CHR_MESH_SINGLE_SIDED ? ", one-sided" : "");
    printf("committed character: %u seam vertices, %d joints, %u meshes, %u triangles, %u shapes, %u correctives\n",
           seam, c.skel.joint_count, c.mesh_count, tris, c.shape_count, c.corrective_count);
    chr_free(&c);
}

/* chr_closed_meshes: a tetrahedron cut into two meshes (one of its corners
 * split by a seam: two vertices at one position) is closed, both parts;
 * an open quad beside it is not (chr_cullable_meshes: unless marked
 * one-sided); a triangle missing or turned the other way round opens the
 * meshes at its edges. */
static void test_closed_meshes(void)
{
    static chr_character_t c;
    memset(&c, 0, sizeof c);
    static chr_vertex_t va[4], vb[4], vq[4];
    const float p[4][3] = {{0, 0, 0}, {10, 0, 0}, {0, 10, 0}, {0, 0, 10}};
    for (int k = 0; k < 4; k++) {
        memcpy(va[k].pos, p[k], sizeof va[k].pos);
        memcpy(vb[k].pos, p[k], sizeof vb[k].pos);
        vb[k].normal[1] = 1.0f; /* a seam: same places, other attributes */
        vq[k].pos[0] = 100.0f + (float)(k & 1) * 10.0f;
        vq[k].pos[2] = (float)(k >> 1) * 10.0f;
    }
    /* Outward faces of the tetrahedron (counter-clockwise seen from outside). */
    uint32_t ia[6] = {0, 2, 1, 0, 1, 3};
    uint32_t ib[6] = {0, 3, 2, 1, 2, 3};
    uint32_t iq[6] = {0, 2, 1, 1, 2, 3};
    c.mesh_count = 3;
    c.meshes[0] = (chr_mesh_t){.name = "a", .vertex_count = 4, .index_count = 6, .vertices = va, .indices = ia};
    c.meshes[1] = (chr_mesh_t){.name = "b", .vertex_count = 4, .index_count = 6, .vertices = vb, .indices = ib};
    c.meshes[2] = (chr_mesh_t){.name = "quad", .vertex_count = 4, .index_count = 6, .vertices = vq, .indices = iq};
    CHECKF(chr_closed_meshes(&c) == 3u, "tetrahedron in two meshes + quad: closed 0x%x, want 0x3",
           chr_closed_meshes(&c));
    /* Cullable: the closed meshes, and an open one only when it is marked
     * one-sided. */
    CHECKF(chr_cullable_meshes(&c) == 3u, "unmarked quad: cullable 0x%x, want 0x3", chr_cullable_meshes(&c));
    c.meshes[2].flags = CHR_MESH_SINGLE_SIDED;
    CHECKF(chr_cullable_meshes(&c) == 7u, "one-sided quad: cullable 0x%x, want 0x7", chr_cullable_meshes(&c));
    c.meshes[2].flags = 0;
    c.meshes[1].index_count = 3;
    CHECKF(chr_closed_meshes(&c) == 0u, "a face missing: closed 0x%x, want 0", chr_closed_meshes(&c));
    c.meshes[1].index_count = 6;
    uint32_t t = ib[1];
    ib[1] = ib[2];
    ib[2] = t;
    CHECKF(chr_closed_meshes(&c) == 0u, "a face turned round: closed 0x%x, want 0", chr_closed_meshes(&c));
}

/* chr_save writes exactly chr_serialize's bytes; a folder that does not
 * exist and a full device each fail with one line naming the path. */
static void test_save(void)
{
    static chr_character_t tiny;
    build_tiny(&tiny);
    uint8_t *want = NULL, *got = NULL;
    size_t want_size = 0, got_size = 0;
    CHECK(chr_serialize(&tiny, &want, &want_size));
    char path[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/test_character_%ld.chr", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    CHECK(chr_save(&tiny, path));
    CHECK(file_read_all(path, 1u << 20, &got, &got_size));
    CHECK(want && got && got_size == want_size && memcmp(got, want, want_size) == 0);
    file_free(got);
    free(want);
    remove(path);

    const char *missing = "/nonexistent-strider-folder/out.chr";
    CHECK(!save_capture(&tiny, missing));
    CHECK(strstr(capture_text, missing) && strstr(capture_text, "cannot open for writing"));
    if (access("/dev/full", W_OK) == 0) {
        CHECK(!save_capture(&tiny, "/dev/full"));
        CHECK(strstr(capture_text, "/dev/full: write failed"));
    }
}

/* The whole-file reader (every loader's first step) and the head-only opener
 * refuse what is not a regular file with one line naming the path and what
 * it is, and the reader refuses a file over its cap. */
static bool read_capture(const char *path, size_t cap)
{
    uint8_t *data = NULL;
    size_t size = 0;
    capture_begin();
    bool ok = file_read_all(path, cap, &data, &size);
    capture_end();
    file_free(data);
    return ok && size <= cap;
}

static void test_read_errors(void)
{
    CHECK(!read_capture("/nonexistent-strider-folder/a.chr", 1024));
    CHECK(strstr(capture_text, "/nonexistent-strider-folder/a.chr: cannot open"));
    CHECK(!read_capture("/", 1024));
    CHECK(strstr(capture_text, "/: is a folder, not a file"));
    CHECK(!read_capture("/dev/null", 1024));
    CHECK(strstr(capture_text, "/dev/null: not a regular file"));

    char path[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/test_character_read_%ld.bin", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    static const uint8_t bytes[100] = {1, 2, 3};
    CHECK(file_write_all(path, bytes, sizeof bytes));
    CHECK(read_capture(path, sizeof bytes));
    CHECK(!read_capture(path, sizeof bytes - 1));
    CHECK(strstr(capture_text, "file is 100 bytes, more than the 99 allowed"));

    capture_begin();
    FILE *f = file_open_regular(path);
    FILE *dir = file_open_regular("/");
    capture_end();
    CHECK(f != NULL && dir == NULL);
    CHECK(strstr(capture_text, "/: is a folder, not a file"));
    if (f)
        fclose(f);
    remove(path);
}

/* Writes the synthetic character, a fuzz seed (tests/asset/fuzz_seeds_chr). */
static int write_seed(const char *path)
{
    static chr_character_t tiny;
    build_tiny(&tiny);
    return chr_save(&tiny, path) ? 0 : 1;
}

int main(int argc, char **argv)
{
    log_set_level(LOG_ERROR);
    if (argc == 3 && strcmp(argv[1], "--write-seed") == 0)
        return write_seed(argv[2]);
    test_round_trip_and_errors();
    test_save();
    test_read_errors();
    test_closed_meshes();
    if (argc > 1)
        test_committed(argv[1]);
    return check_summary();
}
