/* import_skeleton: the build's first stages (import_internal.h): the one
 * skin of the scene (imp_find_skin) and the skeleton from its joints, the
 * nodes between them and their common ancestor (imp_build_skeleton), with
 * every node's rest world transform. */
#include "asset/import_internal.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Inverse bind matrices of one joint in two meshes count as the same skin
 * when no entry differs by more than this (relative to the matrix scale). */
#define IMP_SAME_BIND_TOLERANCE 1.0e-4f

/* ---------------------------------------------------------------- skeleton */

static bool same_bind(const float a[16], const float b[16])
{
    float scale = 1.0f;
    for (int i = 0; i < 16; i++)
        scale = fmaxf(scale, fabsf(a[i]));
    for (int i = 0; i < 16; i++)
        if (fabsf(a[i] - b[i]) > IMP_SAME_BIND_TOLERANCE * scale)
            return false;
    return true;
}

/* The bone of MESH bound to NODE, or NULL. */
const imp_bone_t *imp_find_bone(const imp_mesh_t *m, uint32_t node)
{
    for (uint32_t i = 0; i < m->bone_count; i++)
        if (m->bones[i].node == node)
            return &m->bones[i];
    return NULL;
}

/* Exactly one skin: every skinned mesh binds the same joints with the same
 * inverse bind matrices (several meshes sharing a skin are fine). */
bool imp_find_skin(build_t *b)
{
    const imp_scene_t *s = b->scene;
    for (uint32_t mi = 0; mi < s->mesh_count; mi++) {
        const imp_mesh_t *m = &s->meshes[mi];
        if (m->bone_count == 0)
            continue;
        for (uint32_t i = 0; i < m->bone_count; i++)
            for (uint32_t k = 0; k < i; k++)
                if (m->bones[i].node == m->bones[k].node) {
                    log_error("%s: mesh '%s' binds joint '%s' twice", b->src, m->name, s->nodes[m->bones[i].node].name);
                    return false;
                }
        if (!b->skin) {
            b->skin = m;
            continue;
        }
        bool same = m->bone_count == b->skin->bone_count;
        for (uint32_t i = 0; same && i < m->bone_count; i++) {
            const imp_bone_t *o = imp_find_bone(b->skin, m->bones[i].node);
            same = o && same_bind(o->inverse_bind, m->bones[i].inverse_bind);
        }
        if (!same) {
            log_error("%s: two skins (meshes '%s' and '%s' bind different joints or bind poses); strider imports a "
                      "character with one skin",
                      b->src, b->skin->name, m->name);
            return false;
        }
    }
    if (!b->skin) {
        log_error("%s: no skinned mesh (no joints with vertex weights): not a skinned character", b->src);
        return false;
    }
    return true;
}

/* Nearest joint at or above NODE, or -1. */
int imp_joint_at_or_above(const build_t *b, int node)
{
    while (node >= 0 && b->joint_of_node[node] < 0)
        node = b->scene->nodes[node].parent;
    return node >= 0 ? b->joint_of_node[node] : -1;
}

/* Joints: the skin's nodes, the nodes between them and their common
 * ancestor, which becomes the root. Node order is parents first, so
 * numbering marked nodes in node order keeps parents before children. */
bool imp_build_skeleton(build_t *b)
{
    const imp_scene_t *s = b->scene;
    uint32_t nc = s->node_count;
    bool ok = true;
    b->world = xcalloc(nc, sizeof *b->world, &ok);
    b->joint_of_node = xcalloc(nc, sizeof *b->joint_of_node, &ok);
    uint8_t *mark = xcalloc(nc, 1, &ok);
    int *depth = xcalloc(nc, sizeof *depth, &ok);
    if (!ok) {
        free(mark);
        free(depth);
        log_error("%s: out of memory", b->src);
        return false;
    }
    for (uint32_t i = 0; i < nc; i++) {
        const imp_node_t *n = &s->nodes[i];
        if (n->parent < 0) {
            memcpy(b->world[i], n->local, sizeof b->world[i]);
            depth[i] = 0;
        } else {
            mat4_mul(b->world[n->parent], n->local, b->world[i]);
            depth[i] = depth[n->parent] + 1;
        }
        b->joint_of_node[i] = -1;
    }
    /* Common ancestor of every skin joint: walk the deeper one up. */
    int lca = (int)b->skin->bones[0].node;
    for (uint32_t i = 0; i < b->skin->bone_count; i++) {
        int x = (int)b->skin->bones[i].node;
        while (lca != x && lca >= 0 && x >= 0) {
            if (depth[lca] >= depth[x])
                lca = s->nodes[lca].parent;
            else
                x = s->nodes[x].parent;
        }
        if (lca < 0 || x < 0) {
            log_error("%s: the skin's joints '%s' and '%s' share no root node", b->src,
                      s->nodes[b->skin->bones[0].node].name, s->nodes[b->skin->bones[i].node].name);
            free(mark);
            free(depth);
            return false;
        }
    }
    for (uint32_t i = 0; i < b->skin->bone_count; i++)
        for (int x = (int)b->skin->bones[i].node; x >= 0 && !mark[x]; x = s->nodes[x].parent) {
            mark[x] = 1;
            if (x == lca)
                break;
        }
    mark[lca] = 1;
    int count = 0;
    for (uint32_t i = 0; i < nc; i++)
        count += mark[i];
    free(depth);
    if (count > SKEL_MAX_JOINTS) {
        log_error("%s: %d joints, more than the %d the skinning palette holds", b->src, count, SKEL_MAX_JOINTS);
        free(mark);
        return false;
    }
    int j = 0;
    for (uint32_t i = 0; i < nc; i++) {
        if (!mark[i])
            continue;
        const char *name = s->nodes[i].name;
        size_t len = strlen(name);
        if (len < 1 || len >= SKEL_NAME_MAX) {
            log_error("%s: joint node %u: name '%.40s' empty or longer than %d characters", b->src, i, name,
                      SKEL_NAME_MAX - 1);
            free(mark);
            return false;
        }
        for (int k = 0; k < j; k++)
            if (strcmp(s->nodes[b->joint_node[k]].name, name) == 0) {
                log_error("%s: two joints are named '%s'", b->src, name);
                free(mark);
                return false;
            }
        b->joint_of_node[i] = j;
        b->joint_node[j] = i;
        for (int k = 0; k < 3; k++)
            b->joint_pos[j][k] = b->world[i][12 + k];
        j++;
    }
    free(mark);
    b->joint_count = j;
    b->info.joints = (uint32_t)j;
    return true;
}
