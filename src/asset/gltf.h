/* gltf: reads a glTF 2.0 file and everything it references into memory and
 * checks it, before assimp is given any of it (asset/import_file.c then
 * serves assimp this package through its file-system interface, so assimp
 * opens no file itself).
 *
 * Call order: gltf_package_load() (a file and its folder) or
 * gltf_package_memory() (bytes and named resources: tests, fuzzing) ->
 * gltf_package_find() for each name assimp asks for -> gltf_package_free().
 * What is checked (docs/FORMATS_CHARACTER.md, "glTF files from elsewhere"):
 *  - the .glb container: header length = file size, a JSON chunk first,
 *    chunks inside the file; the JSON strictly (core/json.h), nesting and
 *    value count limited;
 *  - node count and node depth, one parent per node, no cycles, every index
 *    in range; buffers, views and accessors inside each other; every
 *    primitive attribute and morph target as long as POSITION; index and
 *    joint values within the vertices and joints; sparse accessors;
 *  - external resources: a buffer or image uri is a data: URI or a relative
 *    path that stays inside the model's folder (lexically, then by
 *    realpath, so symlinks cannot leave it); only regular files are read
 *    (core/file.h), sizes capped; Draco compression is refused.
 * What is changed: a skin without inverseBindMatrices gets identity
 * matrices (what the spec says they are), and animations are dropped (the
 * import does not use them), in a rewritten copy of the document.
 * Errors: ONE logged line "SOURCE: problem" naming the field and value.
 * Does NOT: build the character (import_file.c, import.c), decode images.
 * Memory: the package owns its document and resources (gltf_package_free()).
 */
#ifndef STRIDER_ASSET_GLTF_H
#define STRIDER_ASSET_GLTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    GLTF_MAX_JSON_DEPTH = 64,       /* arrays and objects nested in the JSON */
    GLTF_MAX_JSON_VALUES = 1 << 21, /* values in the JSON (mesh data lives in buffers) */
    GLTF_MAX_NODE_DEPTH = 1024,     /* nodes from a scene root down to the deepest child */
    GLTF_MAX_BUFFERS = 256,
    GLTF_MAX_SKINS = 64,
    GLTF_MAX_SCENES = 1024,
    GLTF_MAX_CAMERAS = 1024,
    GLTF_MAX_IMAGES = 4096,
    GLTF_MAX_URI = 1024 /* bytes of a decoded uri */
};
/* A .glb or .gltf file, and all its buffers together (declared and real). */
#define GLTF_MAX_FILE_BYTES ((size_t)256 << 20)
#define GLTF_MAX_BUFFER_BYTES ((size_t)256 << 20)

/* One external resource, named as the document's uri (JSON-decoded): the
 * name assimp asks for. */
typedef struct gltf_resource_t {
    char *uri;
    uint8_t *data;
    size_t size;
} gltf_resource_t;

typedef struct gltf_package_t {
    uint8_t *doc; /* the (possibly rewritten) .glb or .gltf bytes assimp reads */
    size_t doc_size;
    bool binary; /* .glb */
    gltf_resource_t *res;
    uint32_t res_count;
    uint32_t identity_skins; /* skins given identity inverse bind matrices */
    uint32_t nodes, node_depth;
} gltf_package_t;

/* A named file for gltf_package_memory(). */
typedef struct gltf_memory_file_t {
    const char *name; /* as a uri names it */
    const uint8_t *data;
    size_t size;
} gltf_memory_file_t;

/* Reads PATH (.glb or .gltf, by its name) and the external buffers it
 * names from PATH's folder. */
bool gltf_package_load(gltf_package_t *pkg, const char *path);
/* The same checks on DATA (binary when NAME ends in .glb); external
 * buffers come from FILES only (the uri rules still apply). */
bool gltf_package_memory(gltf_package_t *pkg, const char *name, const uint8_t *data, size_t size,
                         const gltf_memory_file_t *files, uint32_t file_count);
void gltf_package_free(gltf_package_t *pkg);
/* The resource a uri names, or NULL. */
const gltf_resource_t *gltf_package_find(const gltf_package_t *pkg, const char *uri);

#endif
