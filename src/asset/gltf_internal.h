/* gltf_internal: what gltf.c (the package: the .glb container, external
 * resources, the rewrite) and gltf_check.c (the document's structure:
 * nodes, scenes, views, accessors, meshes, skins) share: the state of one
 * check and the JSON helpers that report one line ("SOURCE: problem") and
 * return false. Not an interface: only those two files include it.
 * Memory: gltf_track() hands an allocation to the check, which frees it at
 * the end (gltf.c's package_build()).
 */
#ifndef STRIDER_ASSET_GLTF_INTERNAL_H
#define STRIDER_ASSET_GLTF_INTERNAL_H

#include "asset/gltf.h"
#include "core/json.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Accessor component types. */
enum {
    GL_BYTE = 5120,
    GL_UNSIGNED_BYTE = 5121,
    GL_SHORT = 5122,
    GL_UNSIGNED_SHORT = 5123,
    GL_UNSIGNED_INT = 5125,
    GL_FLOAT = 5126
};

/* Longest JSON text quoted back in a message. */
enum { SHOWN = 40 };

/* What a fetch does with an external file: check that it exists inside the
 * folder (and give its size, unread, when SIZE is not NULL), check that it
 * is inside the folder if it exists (images, which are not read), or read
 * it into *DATA and *SIZE. */
typedef enum gltf_fetch_mode_t { GLTF_FETCH_CHECK, GLTF_FETCH_CHECK_OPTIONAL, GLTF_FETCH_READ } gltf_fetch_mode_t;

typedef bool (*gltf_fetch_fn_t)(void *ctx, const char *source, const char *what, const char *uri,
                                gltf_fetch_mode_t mode, uint8_t **data, size_t *size);

/* One buffer's bytes (borrowed from the file, a resource, or decoded). */
typedef struct gbuf_t {
    const uint8_t *data;
    uint64_t length; /* byteLength: what views may address */
} gbuf_t;

typedef struct gview_t {
    uint32_t buffer;
    uint64_t offset, length, stride;
} gview_t;

typedef struct gacc_t {
    uint32_t comps, csize, elem, stride;
    uint32_t ctype;
    uint64_t count;
    const uint8_t *data; /* first element, or NULL (all zero) */
    bool sparse;
    char type[8];
} gacc_t;

typedef struct gcheck_t {
    const char *source;
    json_doc_t j;
    gltf_fetch_fn_t fetch;
    void *ctx;
    gltf_package_t *pkg;
    const uint8_t *bin; /* the .glb BIN chunk, or NULL */
    uint64_t bin_size;
    /* Top-level arrays: the JSON value, the count, and each item's value. */
    uint32_t *node, *mesh, *acc_v, *view_v, *buf_v, *skin;
    uint32_t n_node, n_mesh, n_acc, n_view, n_buf, n_skin, n_mat, n_cam, n_img, n_scene;
    uint32_t a_acc, a_view, a_buf, a_anim;
    int *parent;
    gbuf_t *buf;
    gview_t *view;
    gacc_t *acc;
    uint8_t **owned;
    uint32_t owned_count;
} gcheck_t;

static inline uint32_t gltf_le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* One line naming the source, then false. */
bool gltf_bad(const gcheck_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The JSON text of a value, for messages (at most SHOWN bytes). */
int gltf_shown_len(const gcheck_t *c, uint32_t v);
const char *gltf_shown(const gcheck_t *c, uint32_t v);
/* Frees P with the check (NULL stays NULL). */
void *gltf_track(gcheck_t *c, void *p);
/* Member KEY of OBJ (a duplicate key fails: assimp's parser would take one
 * of them, and it must be the one checked). */
bool gltf_member(const gcheck_t *c, uint32_t obj, const char *key, const char *what, uint32_t *out);
/* An index member below LIMIT (JSON_NONE when absent and not REQUIRED). */
bool gltf_index(const gcheck_t *c, uint32_t obj, const char *key, uint32_t limit, const char *limit_name,
                const char *what, bool required, uint32_t *out);
/* A whole number member in [LO, HI] (DEF when absent and not REQUIRED). */
bool gltf_whole(const gcheck_t *c, uint32_t obj, const char *key, uint64_t lo, uint64_t hi, uint64_t def,
                const char *what, bool required, uint64_t *out);
/* A member that must be an array (of NUMBERS numbers when NUMBERS > 0). */
bool gltf_array(const gcheck_t *c, uint32_t obj, const char *key, uint32_t numbers, const char *what, uint32_t *out);
/* Top-level array KEY of at most MAX items: its count, and each item's
 * value in *ITEMS (tracked; items must be objects) unless ITEMS is NULL. */
bool gltf_top_array(gcheck_t *c, const char *key, uint32_t max, uint32_t *arr, uint32_t *n, uint32_t **items);

/* The document's checks (gltf_check.c), in the order package_build() runs them. */
bool gltf_check_asset(gcheck_t *c);
bool gltf_check_nodes(gcheck_t *c);
bool gltf_check_scenes(gcheck_t *c);
bool gltf_check_views(gcheck_t *c);
bool gltf_check_accessors(gcheck_t *c);
bool gltf_check_meshes(gcheck_t *c);
bool gltf_check_skins(gcheck_t *c, uint32_t *missing_ibm, uint32_t *max_joints);
bool gltf_check_joint_values(gcheck_t *c);

#endif
