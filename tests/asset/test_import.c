/* import: the plain-array layer on hand-made scenes (a three-joint leg as a
 * skinned tube with a morph target: skeleton, units, ground, weights, rest
 * pose different from the bind pose, rigid meshes, renormalisation, every
 * refusal with exactly one error line), then the glTF loader on the files
 * in ../shared/characters (both MakeHuman characters and RobotExpressive);
 * assimp is opened only by the first glTF read.
 *   usage: test_import [SHARED_CHARACTERS_DIR [CONTROLLER_SKELETON]] */
#define _GNU_SOURCE /* dl_iterate_phdr */

#include "asset/import.h"
#include "asset/import_file.h"
#include "core/log.h"

#include "check.h"

#include <link.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- a leg */

enum { RINGS = 7, SIDES = 6, LEG_VERTS = RINGS * SIDES, LEG_FACES = (RINGS - 1) * SIDES * 2 };

typedef struct leg_t {
    imp_node_t nodes[4];
    imp_mesh_t mesh[2];
    imp_material_t mat[1];
    float pos[LEG_VERTS * 3], nrm[LEG_VERTS * 3], uv[LEG_VERTS * 2];
    uint32_t face_size[LEG_FACES], face_index[LEG_FACES * 3];
    imp_bone_t bones[3];
    uint32_t wv[3][LEG_VERTS];
    float ww[3][LEG_VERTS];
    imp_target_t target;
    float tpos[LEG_VERTS * 3];
    /* A second, rigid mesh (a box under the foot node). */
    float box_pos[8 * 3];
    uint32_t box_size[12], box_index[36];
    imp_scene_t scene;
} leg_t;

static void identity(float m[16])
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

/* A tube of radius 0.06 m from y = 0 (sole) to 0.9 m (hip): joints at 0.9
 * (Hips), 0.45 (Knee) and 0.05 (Foot), rest = bind, facing +Z; the target
 * "bulge" pushes the middle ring out by 2 cm. Node 0 is the scene root
 * (offset by 1 m in x, which the import moves back over the origin). */
static void make_leg(leg_t *L)
{
    memset(L, 0, sizeof *L);
    static const char *const names[4] = {"Scene", "Hips", "Knee", "Foot"};
    const float joint_y[3] = {0.9f, 0.45f, 0.05f};
    for (int i = 0; i < 4; i++) {
        L->nodes[i].name = names[i];
        L->nodes[i].parent = i - 1;
        identity(L->nodes[i].local);
    }
    L->nodes[0].local[12] = 1.0f;
    L->nodes[1].local[13] = 0.9f;
    L->nodes[2].local[13] = -0.45f;
    L->nodes[3].local[13] = -0.40f;
    for (int r = 0; r < RINGS; r++)
        for (int k = 0; k < SIDES; k++) {
            int v = r * SIDES + k;
            float a = 6.2831853f * (float)k / SIDES, y = 0.9f * (float)r / (RINGS - 1);
            /* Mesh space is the scene's (the inverse binds undo the joints'
             * world transforms, root offset included). */
            L->pos[v * 3] = 1.0f + 0.06f * sinf(a);
            L->pos[v * 3 + 1] = y;
            L->pos[v * 3 + 2] = 0.06f * cosf(a);
            L->nrm[v * 3] = sinf(a);
            L->nrm[v * 3 + 2] = cosf(a);
            L->uv[v * 2] = (float)k / SIDES;
            L->uv[v * 2 + 1] = y;
            /* Two joints per vertex by height: weights sum to 1. */
            int j = y > 0.45f ? 0 : 1;
            float t = y > 0.45f ? (0.9f - y) / 0.45f : (0.45f - y) / 0.40f;
            t = fminf(fmaxf(t, 0.0f), 1.0f);
            L->wv[j][v] = L->wv[j + 1][v] = (uint32_t)v;
            L->ww[j][v] = 1.0f - t;
            L->ww[j + 1][v] = t;
        }
    int f = 0;
    for (int r = 0; r + 1 < RINGS; r++)
        for (int k = 0; k < SIDES; k++) {
            uint32_t a = (uint32_t)(r * SIDES + k), b = (uint32_t)(r * SIDES + (k + 1) % SIDES);
            uint32_t c = a + SIDES, d = b + SIDES;
            uint32_t q[6] = {a, b, d, a, d, c};
            for (int e = 0; e < 6; e++)
                L->face_index[f * 3 + e] = q[e];
            L->face_size[f] = L->face_size[f + 1] = 3;
            f += 2;
        }
    for (int j = 0; j < 3; j++) {
        imp_bone_t *b = &L->bones[j];
        b->node = (uint32_t)j + 1;
        identity(b->inverse_bind);
        b->inverse_bind[12] = -1.0f;
        b->inverse_bind[13] = -joint_y[j];
        /* Every vertex listed, weight 0 where the joint does not act. */
        b->weight_count = LEG_VERTS;
        for (int v = 0; v < LEG_VERTS; v++)
            L->wv[j][v] = (uint32_t)v;
        b->weight_vertex = L->wv[j];
        b->weight_value = L->ww[j];
    }
    memcpy(L->tpos, L->pos, sizeof L->tpos);
    for (int k = 0; k < SIDES; k++) {
        int v = 3 * SIDES + k;
        L->tpos[v * 3] += 0.02f * L->nrm[v * 3];
        L->tpos[v * 3 + 2] += 0.02f * L->nrm[v * 3 + 2];
    }
    L->target.name = "bulge";
    L->target.positions = L->tpos;
    L->mat[0] = (imp_material_t){.name = "skin", .color = {0.8f, 0.6f, 0.5f, 1.0f}, .roughness = 0.5f};
    imp_mesh_t *m = &L->mesh[0];
    m->name = "leg";
    m->node = 0;
    m->vertex_count = LEG_VERTS;
    m->positions = L->pos;
    m->normals = L->nrm;
    m->uvs = L->uv;
    m->face_count = LEG_FACES;
    m->face_size = L->face_size;
    m->face_index = L->face_index;
    m->bone_count = 3;
    m->bones = L->bones;
    m->target_count = 1;
    m->targets = &L->target;
    /* The box: a 4 cm cube around its node's origin. */
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++)
            L->box_pos[i * 3 + k] = (i >> k & 1) ? 0.02f : -0.02f;
    static const uint32_t quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                         {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int q = 0; q < 6; q++) {
        uint32_t t[6] = {quads[q][0], quads[q][1], quads[q][2], quads[q][0], quads[q][2], quads[q][3]};
        memcpy(&L->box_index[q * 6], t, sizeof t);
        L->box_size[q * 2] = L->box_size[q * 2 + 1] = 3;
    }
    imp_mesh_t *box = &L->mesh[1];
    box->name = "box";
    box->node = 3;
    box->vertex_count = 8;
    box->positions = L->box_pos;
    box->face_count = 12;
    box->face_size = L->box_size;
    box->face_index = L->box_index;
    L->scene = (imp_scene_t){.node_count = 4,
                             .nodes = L->nodes,
                             .mesh_count = 1,
                             .meshes = L->mesh,
                             .material_count = 1,
                             .materials = L->mat};
}

/* ---------------------------------------------------------------- stderr capture */

/* Runs imp_build with stderr in a file; returns the lines it wrote. */
static int build_lines(const imp_scene_t *s, bool *ok, chr_character_t *c, imp_info_t *info, char *text, size_t cap)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), 2);
    *ok = imp_build(s, "leg.gltf", c, info);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(text, 1, cap - 1, tmp);
    text[n] = '\0';
    fclose(tmp);
    int lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    return lines;
}

static void expect_refused(const char *what, const imp_scene_t *s, const char *needle)
{
    chr_character_t c;
    bool ok;
    char text[2048];
    int lines = build_lines(s, &ok, &c, NULL, text, sizeof text);
    CHECKF(!ok, "%s: should be refused", what);
    CHECKF(lines == 1 && strstr(text, "leg.gltf: ") && strstr(text, needle),
           "%s: one error line naming the file and '%s', got %d: %s", what, needle, lines, text);
    if (ok)
        chr_free(&c);
}

/* ---------------------------------------------------------------- cases */

static void test_leg(void)
{
    static leg_t L;
    make_leg(&L);
    chr_character_t c;
    imp_info_t info;
    char text[2048];
    bool ok;
    int lines = build_lines(&L.scene, &ok, &c, &info, text, sizeof text);
    CHECKF(ok && lines == 0, "the leg imports silently: %s", text);
    if (!ok)
        return;
    /* Joints: the skin's three plus the common ancestor path (Hips is it). */
    CHECK(c.skel.joint_count == 3);
    CHECK(strcmp(c.skel.joint_name[0], "Hips") == 0 && c.skel.joint_parent[0] == -1);
    CHECK(strcmp(c.skel.joint_name[2], "Foot") == 0 && c.skel.joint_parent[2] == 1);
    /* Centimetres, soles on the ground, the root above the origin. */
    CHECK_NEAR(c.skel.joint_offset[0][0], 0.0f, 1e-4);
    CHECK_NEAR(c.skel.joint_offset[0][1], 90.0f, 1e-3);
    CHECK_NEAR(c.skel.joint_offset[1][1], -45.0f, 1e-3);
    CHECK_NEAR(c.skel.joint_offset[2][1], -40.0f, 1e-3);
    CHECK_NEAR(c.bind_inverse[1][13], -45.0f, 1e-3);
    CHECK(info.joints == 3 && info.targets == 1 && info.renormalised == 0 && info.skinned_meshes == 1);
    CHECK_NEAR(info.height_cm, 90.0f, 1e-3);
    float min_y = INFINITY, max_r = 0.0f;
    uint32_t verts = 0;
    for (uint32_t m = 0; m < c.mesh_count; m++)
        for (uint32_t i = 0; i < c.meshes[m].vertex_count; i++) {
            const chr_vertex_t *v = &c.meshes[m].vertices[i];
            min_y = fminf(min_y, v->pos[1]);
            max_r = fmaxf(max_r, hypotf(v->pos[0], v->pos[2]));
            verts++;
            float sum = v->weights[0] + v->weights[1] + v->weights[2] + v->weights[3];
            CHECK_NEAR(sum, 1.0f, 1e-5);
            CHECK(fabsf(v->tangent[3]) == 1.0f);
        }
    CHECK_NEAR(min_y, 0.0f, 1e-4);
    CHECK_NEAR(max_r, 6.0f, 1e-3);
    /* head = the triangles around the bulging ring; body = the rest, with
     * the shared ring copied into both. */
    CHECK(c.mesh_count == 2 && strcmp(c.meshes[0].name, "body") == 0 && strcmp(c.meshes[1].name, "head") == 0);
    CHECK(c.meshes[1].flags & CHR_MESH_MORPHED);
    /* Its one material is single-sided (glTF's default): both meshes may
     * be drawn with back faces culled. */
    CHECK((c.meshes[0].flags & CHR_MESH_SINGLE_SIDED) && (c.meshes[1].flags & CHR_MESH_SINGLE_SIDED));
    CHECK(verts > LEG_VERTS);
    CHECK(c.meshes[0].index_count + c.meshes[1].index_count == LEG_FACES * 3);
    CHECK(c.shape_count == 1 && strcmp(c.shapes[0].name, "bulge") == 0 && c.shapes[0].mesh == 1);
    /* 6 vertices move 2 cm out; they and their ring neighbours turn. */
    int moved = 0, turned = 0;
    for (uint32_t i = 0; c.shape_count && i < c.shapes[0].delta_count; i++) {
        const chr_delta_t *d = &c.shapes[0].deltas[i];
        float dl = sqrtf(d->dpos[0] * d->dpos[0] + d->dpos[1] * d->dpos[1] + d->dpos[2] * d->dpos[2]);
        float nl = sqrtf(d->dnormal[0] * d->dnormal[0] + d->dnormal[1] * d->dnormal[1] + d->dnormal[2] * d->dnormal[2]);
        if (dl > 0.0f) {
            moved++;
            CHECK_NEAR(dl, 2.0f, 1e-3);
        }
        turned += nl > 1e-3f;
    }
    CHECK(moved == SIDES);
    CHECKF(turned >= 2 * SIDES, "normal deltas on the rings beside the bulge (%d)", turned);
    /* Round trip through the file format. */
    uint8_t *bytes = NULL;
    size_t n = 0;
    CHECK(chr_serialize(&c, &bytes, &n));
    chr_character_t back;
    CHECK(bytes && chr_parse(&back, bytes, n, "leg.chr"));
    if (bytes && back.mesh_count == c.mesh_count) {
        size_t bytes1 = c.meshes[1].vertex_count * sizeof(chr_vertex_t);
        CHECK(memcmp(back.meshes[1].vertices, c.meshes[1].vertices, bytes1) == 0);
        chr_free(&back);
    }
    free(bytes);
    chr_free(&c);
    /* A double-sided material keeps its meshes two-sided. */
    L.mat[0].double_sided = true;
    build_lines(&L.scene, &ok, &c, &info, text, sizeof text);
    CHECK(ok && c.mesh_count == 2);
    if (ok) {
        CHECK(!(c.meshes[0].flags & CHR_MESH_SINGLE_SIDED) && !(c.meshes[1].flags & CHR_MESH_SINGLE_SIDED));
        chr_free(&c);
    }
}

/* The rest pose bends the knee 90 degrees while the inverse binds still
 * describe the straight leg: the import skins the mesh into the rest pose,
 * so the foot's vertices end up in front of the knee. A rigid box under
 * the foot node follows it with weight 1. */
static void test_rest_differs_and_rigid(void)
{
    static leg_t L;
    make_leg(&L);
    float *k = L.nodes[2].local;
    /* Rotate -90 degrees about +X: -Y (down the shin) turns to +Z. */
    k[5] = 0.0f;
    k[6] = -1.0f;
    k[9] = 1.0f;
    k[10] = 0.0f;
    L.scene.mesh_count = 2;
    chr_character_t c;
    imp_info_t info;
    if (!imp_build(&L.scene, "leg.gltf", &c, &info)) {
        CHECK(!"bent leg imports");
        return;
    }
    CHECK(info.rigid_meshes == 1 && info.skinned_meshes == 1);
    /* The foot joint now lies 40 cm in front of the knee. */
    CHECK_NEAR(c.skel.joint_offset[2][2], 40.0f, 1e-3);
    CHECK_NEAR(c.skel.joint_offset[2][1], 0.0f, 1e-3);
    /* The sole ring (y = 0 in the straight leg, all on the shin) is ahead. */
    float max_z = -INFINITY;
    int on_foot = 0;
    for (uint32_t m = 0; m < c.mesh_count; m++)
        for (uint32_t i = 0; i < c.meshes[m].vertex_count; i++) {
            const chr_vertex_t *v = &c.meshes[m].vertices[i];
            max_z = fmaxf(max_z, v->pos[2]);
            on_foot += v->joints[0] == 2 && v->weights[0] == 1.0f;
        }
    CHECKF(max_z > 40.0f, "bent shin reaches forward (max z %.2f cm)", (double)max_z);
    CHECKF(on_foot >= 8, "the box's 8 vertices ride on the foot alone (%d)", on_foot);
    chr_free(&c);
}

static void test_renormalise(void)
{
    static leg_t L;
    make_leg(&L);
    for (int j = 0; j < 3; j++)
        for (int v = 0; v < LEG_VERTS; v++)
            L.ww[j][v] *= 0.6f;
    chr_character_t c;
    imp_info_t info;
    char text[2048];
    bool ok;
    int lines = build_lines(&L.scene, &ok, &c, &info, text, sizeof text);
    CHECKF(ok && lines == 0, "unnormalised weights are renormalised (the file loader warns): %s", text);
    if (!ok)
        return;
    CHECK(info.renormalised == LEG_VERTS);
    CHECK_NEAR(info.worst_weight_sum, 0.6f, 1e-5);
    const chr_vertex_t *v = &c.meshes[0].vertices[0];
    CHECK_NEAR(v->weights[0] + v->weights[1] + v->weights[2] + v->weights[3], 1.0f, 1e-5);
    chr_free(&c);
}

static void test_refusals(void)
{
    static leg_t L;
    static imp_node_t many[300];
    static imp_bone_t many_bones[300];

    make_leg(&L);
    L.pos[7] = NAN;
    expect_refused("NaN position", &L.scene, "NaN");

    make_leg(&L);
    L.face_index[10] = LEG_VERTS;
    expect_refused("index out of range", &L.scene, "vertex 42 >= vertex count 42");

    make_leg(&L);
    L.face_size[3] = 4;
    expect_refused("a quad", &L.scene, "only triangles");

    make_leg(&L);
    L.wv[1][5] = 900;
    expect_refused("weight vertex out of range", &L.scene, "vertex 900");

    make_leg(&L);
    L.ww[0][2] = 1.5f;
    expect_refused("weight above 1", &L.scene, "outside [0, 1]");

    make_leg(&L);
    L.ww[0][40] = NAN;
    expect_refused("NaN weight", &L.scene, "NaN");

    make_leg(&L);
    for (int j = 0; j < 3; j++)
        L.ww[j][4] = 0.0f;
    expect_refused("vertex without weight", &L.scene, "vertex 4 has no skin weight");

    make_leg(&L);
    L.nodes[2].parent = 3;
    expect_refused("parent after child", &L.scene, "parent 3 not listed before it");

    make_leg(&L);
    L.tpos[5] = INFINITY;
    expect_refused("infinite target", &L.scene, "morph target 'bulge'");

    make_leg(&L);
    L.target.name = "a_morph_target_name_of_forty_characters";
    expect_refused("long target name", &L.scene, "longer than 31");

    make_leg(&L);
    L.nodes[3].name = "Knee";
    expect_refused("two joints of one name", &L.scene, "two joints are named 'Knee'");

    make_leg(&L);
    L.bones[0].inverse_bind[0] = INFINITY;
    expect_refused("infinite inverse bind", &L.scene, "inverse bind");

    /* A second skinned mesh whose Knee binds elsewhere: two skins. */
    make_leg(&L);
    L.mesh[1] = L.mesh[0];
    L.mesh[1].name = "other";
    static imp_bone_t other[3];
    memcpy(other, L.bones, sizeof other);
    other[1].inverse_bind[13] = -0.3f;
    L.mesh[1].bones = other;
    L.scene.mesh_count = 2;
    expect_refused("two skins", &L.scene, "two skins");

    /* The same skin on two meshes is one skin. */
    make_leg(&L);
    L.mesh[1] = L.mesh[0];
    L.mesh[1].name = "copy";
    L.scene.mesh_count = 2;
    chr_character_t c;
    imp_info_t info;
    CHECK(imp_build(&L.scene, "leg.gltf", &c, &info) && info.skinned_meshes == 2);
    chr_free(&c);

    /* An unskinned mesh on a node outside the skeleton. */
    make_leg(&L);
    L.mesh[1].node = 0;
    L.scene.mesh_count = 2;
    expect_refused("stray rigid mesh", &L.scene, "neither skinned nor attached to a joint");

    make_leg(&L);
    L.mesh[0].bone_count = 0;
    expect_refused("no skin", &L.scene, "no skinned mesh");

    /* 300 joints in a chain, all bound: more than the palette. */
    make_leg(&L);
    char(*names)[16] = malloc(300 * sizeof *names);
    for (int i = 0; i < 300; i++) {
        snprintf(names[i], sizeof names[i], "j%d", i);
        many[i].name = names[i];
        many[i].parent = i - 1;
        identity(many[i].local);
        many_bones[i] = L.bones[0];
        many_bones[i].node = (uint32_t)i;
        many_bones[i].weight_count = i == 0 ? LEG_VERTS : 0;
        for (int v = 0; v < LEG_VERTS; v++)
            L.ww[0][v] = 1.0f;
    }
    L.scene.nodes = many;
    L.scene.node_count = 300;
    L.mesh[0].bones = many_bones;
    L.mesh[0].bone_count = 300;
    L.mesh[0].target_count = 0;
    expect_refused("300 joints", &L.scene, "more than the 256 the skinning palette holds");
    free(names);
}

/* ---------------------------------------------------------------- shared files */

static void test_shared(const char *dir, const skel_t *driver)
{
    static const char *const mh[2] = {"makehuman_cmu31_arkit52_male.glb", "makehuman_cmu31_arkit52_female.glb"};
    char path[1024];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, mh[k]);
        chr_character_t c;
        imp_info_t info;
        if (!imp_load_gltf(path, &c, &info)) {
            CHECKF(0, "%s imports", path);
            continue;
        }
        CHECK(info.source_vertices == 15066 && info.source_triangles == 27676);
        CHECK(info.joints == 31 && c.skel.joint_count == 31 && strcmp(c.skel.joint_name[0], "Hips") == 0);
        CHECK(info.targets == 86 && c.shape_count == 86 && info.renormalised == 0);
        CHECKF(info.height_cm > 150.0f && info.height_cm < 195.0f, "%s is %.1f cm tall", mh[k], (double)info.height_cm);
        CHECK(c.mesh_count == 2 && (c.meshes[1].flags & CHR_MESH_MORPHED));
        /* Its material "skin" is single-sided (doubleSided false). */
        CHECK((c.meshes[0].flags & CHR_MESH_SINGLE_SIDED) && (c.meshes[1].flags & CHR_MESH_SINGLE_SIDED));
        CHECK(chr_find_shape(&c, "eyeBlinkLeft") >= 0 && chr_find_shape(&c, "jawOpen") >= 0);
        uint32_t tris = chr_triangle_count(&c), empty = 0;
        CHECK(tris == 27676);
        for (uint32_t s = 0; s < c.shape_count; s++)
            empty += c.shapes[s].delta_count == 0;
        CHECK(empty == 0);
        /* Soles at 0, the hips about half way up. */
        float min_y = INFINITY;
        for (uint32_t m = 0; m < c.mesh_count; m++)
            for (uint32_t i = 0; i < c.meshes[m].vertex_count; i++)
                min_y = fminf(min_y, c.meshes[m].vertices[i].pos[1]);
        CHECK_NEAR(min_y, 0.0f, 1e-3);
        CHECK(c.skel.joint_offset[0][1] > 0.45f * info.height_cm && c.skel.joint_offset[0][1] < 0.6f * info.height_cm);
        chr_free(&c);
        /* Dressed: the eyes, teeth and tongue found from the mesh, every
         * piece of the outfit on some vertices. */
        if (driver) {
            imp_info_t dressed;
            if (imp_load_character(path, NULL, driver, &c, &dressed)) {
                CHECK(dressed.eyes == 2 && dressed.mouth_parts == 3);
                CHECK(c.material_count == 12);
                uint32_t used[CHR_MAX_MATERIALS] = {0};
                for (uint32_t m = 0; m < c.mesh_count; m++)
                    for (uint32_t i = 0; i < c.meshes[m].vertex_count; i++)
                        used[c.meshes[m].vertices[i].material]++;
                for (uint32_t q = 0; q < c.material_count; q++)
                    CHECKF(used[q] > 0, "%s: material %s on %u vertices", path, c.materials[q].name, used[q]);
                chr_free(&c);
            } else {
                CHECK(!"dressed import");
            }
        }
    }
    /* RobotExpressive: two identical skins (one skin to us), 15 meshes hung
     * rigidly from joints, hands with weights summing up to 1.76. */
    snprintf(path, sizeof path, "%s/RobotExpressive.glb", dir);
    chr_character_t c;
    imp_info_t info;
    if (imp_load_gltf(path, &c, &info)) {
        CHECK(info.joints == 43 && info.rigid_meshes == 15 && info.skinned_meshes == 4);
        CHECKF(info.renormalised > 0 && info.worst_weight_sum > 1.5f, "renormalised %u, worst %.3f", info.renormalised,
               (double)info.worst_weight_sum);
        CHECK(info.targets == 3 && chr_find_shape(&c, "Surprised") >= 0);
        chr_free(&c);
    } else {
        CHECKF(0, "%s imports (renormalised)", path);
    }
}

static int find_assimp(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "libassimp"))
        *(bool *)found = true;
    return 0;
}

/* Whether assimp is mapped into this process. */
static bool assimp_loaded(void)
{
    bool found = false;
    dl_iterate_phdr(find_assimp, &found);
    return found;
}

int main(int argc, char **argv)
{
    /* assimp is opened by the first glTF read, not at start (import_file.c). */
    CHECKF(!assimp_loaded(), "assimp is mapped before any glTF file was read");
    test_leg();
    test_rest_differs_and_rigid();
    test_renormalise();
    test_refusals();
    if (argc > 1) {
        log_set_level(LOG_WARN);
        static skel_t driver;
        bool have = argc > 2 && skel_load(&driver, argv[2]);
        CHECK(argc <= 2 || have);
        test_shared(argv[1], have ? &driver : NULL);
        CHECKF(assimp_loaded(), "reading glTF files opened assimp");
    }
    return check_summary();
}
