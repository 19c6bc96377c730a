#include "asset/import_file.h"

#include "anim/retarget.h"
#include "asset/gltf.h"
#include "asset/import_look.h"
#include "core/file.h"
#include "core/log.h"

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(ai_real) == sizeof(float), "assimp must be built with single-precision ai_real");
_Static_assert(sizeof(struct aiVector3D) == 3 * sizeof(float), "aiVector3D must be three packed floats");

/* assimp is opened the first time a glTF file is read, not linked: a run
 * that only loads .chr files never maps it (with libdraco and libminizip
 * about 3 MB of resident memory, mostly relocated data and constructors,
 * measured with the game on the shipped character). STRIDER_ASSIMP_SONAME
 * comes from the build (pkg-config's version). */
#ifndef STRIDER_ASSIMP_SONAME
#error "STRIDER_ASSIMP_SONAME (the assimp library to open, e.g. libassimp.so.5) is set by src/asset/CMakeLists.txt"
#endif

/* The calls used, as the headers declare them. */
typedef struct assimp_api_t {
    const struct aiScene *(*import_file)(const char *path, unsigned int flags, struct aiFileIO *io);
    void (*release_import)(const struct aiScene *scene);
    const char *(*error_string)(void);
    enum aiReturn (*material_string)(const struct aiMaterial *m, const char *key, unsigned int type, unsigned int index,
                                     struct aiString *out);
    enum aiReturn (*material_color)(const struct aiMaterial *m, const char *key, unsigned int type, unsigned int index,
                                    struct aiColor4D *out);
    enum aiReturn (*material_floats)(const struct aiMaterial *m, const char *key, unsigned int type, unsigned int index,
                                     ai_real *out, unsigned int *max);
} assimp_api_t;

/* Checked against the headers' prototypes without referencing the symbols. */
#define SAME_TYPE(fn, member) __builtin_types_compatible_p(__typeof__(&fn), __typeof__(((assimp_api_t *)0)->member))
_Static_assert(SAME_TYPE(aiImportFileEx, import_file) && SAME_TYPE(aiReleaseImport, release_import) &&
                   SAME_TYPE(aiGetErrorString, error_string) && SAME_TYPE(aiGetMaterialString, material_string) &&
                   SAME_TYPE(aiGetMaterialColor, material_color) && SAME_TYPE(aiGetMaterialFloatArray, material_floats),
               "assimp_api must match assimp's C API");
#undef SAME_TYPE

static assimp_api_t g_ai;

/* Opens assimp once (it stays loaded); false with one line naming PATH, the
 * file that needed it, when the library or a call is missing. */
static bool assimp_ready(const char *path)
{
    static bool tried, ok;
    static char why[256];
    if (!tried) {
        tried = true;
        void *lib = dlopen(STRIDER_ASSIMP_SONAME, RTLD_NOW | RTLD_LOCAL);
        static const char *const names[] = {"aiImportFileEx",      "aiReleaseImport",    "aiGetErrorString",
                                            "aiGetMaterialString", "aiGetMaterialColor", "aiGetMaterialFloatArray"};
        enum { CALLS = sizeof names / sizeof names[0] };
        void *sym[CALLS] = {0};
        ok = lib != NULL;
        for (size_t i = 0; ok && i < CALLS; i++)
            ok = (sym[i] = dlsym(lib, names[i])) != NULL;
        if (ok) {
            /* POSIX: a function's address comes back as a void pointer. */
            memcpy(&g_ai.import_file, &sym[0], sizeof sym[0]);
            memcpy(&g_ai.release_import, &sym[1], sizeof sym[1]);
            memcpy(&g_ai.error_string, &sym[2], sizeof sym[2]);
            memcpy(&g_ai.material_string, &sym[3], sizeof sym[3]);
            memcpy(&g_ai.material_color, &sym[4], sizeof sym[4]);
            memcpy(&g_ai.material_floats, &sym[5], sizeof sym[5]);
        } else {
            const char *e = dlerror();
            snprintf(why, sizeof why, "%s", e ? e : "a call is missing");
            if (lib)
                dlclose(lib);
        }
    }
    if (!ok)
        log_error("%s: glTF import needs %s: %s", path, STRIDER_ASSIMP_SONAME, why);
    return ok;
}

bool imp_is_gltf_path(const char *path) { return file_has_suffix(path, ".glb") || file_has_suffix(path, ".gltf"); }

/* ------------------------------------------------------------ the package as assimp's file system */

/* assimp reads the package only: the document under this name, and each
 * external resource under this folder followed by its uri (assimp asks for
 * the document's folder + uri). Any other name it asks for does not exist. */
#define MEMORY_FOLDER "/strider-package/"

typedef struct memory_file_t {
    const uint8_t *data;
    size_t size, pos;
} memory_file_t;

/* The open files of one import, in fixed slots: the callbacks allocate
 * nothing (so a leak check that ignores assimp's own allocations still
 * sees every one of ours). assimp keeps the document and a buffer or two
 * open at once. */
enum { IO_MAX_OPEN = 32 };

typedef struct io_state_t {
    const gltf_package_t *pkg;
    struct aiFile file[IO_MAX_OPEN];
    memory_file_t mem[IO_MAX_OPEN];
    bool used[IO_MAX_OPEN];
} io_state_t;

static size_t io_read(struct aiFile *f, char *buf, size_t size, size_t count)
{
    memory_file_t *m = (memory_file_t *)f->UserData;
    if (size == 0 || count == 0)
        return 0;
    size_t n = (m->size - m->pos) / size;
    if (n > count)
        n = count;
    memcpy(buf, m->data + m->pos, n * size);
    m->pos += n * size;
    return n;
}

static size_t io_write(struct aiFile *f, const char *buf, size_t size, size_t count)
{
    (void)f, (void)buf, (void)size, (void)count;
    return 0;
}

static size_t io_tell(struct aiFile *f) { return ((memory_file_t *)f->UserData)->pos; }

static size_t io_size(struct aiFile *f) { return ((memory_file_t *)f->UserData)->size; }

static void io_flush(struct aiFile *f) { (void)f; }

static enum aiReturn io_seek(struct aiFile *f, size_t offset, enum aiOrigin origin)
{
    memory_file_t *m = (memory_file_t *)f->UserData;
    size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? m->pos : m->size;
    if (offset > m->size || base > m->size - offset)
        return aiReturn_FAILURE;
    m->pos = base + offset;
    return aiReturn_SUCCESS;
}

static struct aiFile *io_open(struct aiFileIO *io, const char *name, const char *mode)
{
    io_state_t *st = (io_state_t *)io->UserData;
    const gltf_package_t *pkg = st->pkg;
    const char *doc_name = pkg->binary ? MEMORY_FOLDER "model.glb" : MEMORY_FOLDER "model.gltf";
    const uint8_t *data = NULL;
    size_t size = 0;
    if (!name || !mode || strpbrk(mode, "wa+"))
        return NULL;
    if (strcmp(name, doc_name) == 0) {
        data = pkg->doc;
        size = pkg->doc_size;
    } else if (strncmp(name, MEMORY_FOLDER, strlen(MEMORY_FOLDER)) == 0) {
        const gltf_resource_t *r = gltf_package_find(pkg, name + strlen(MEMORY_FOLDER));
        if (!r)
            return NULL;
        data = r->data;
        size = r->size;
    } else {
        return NULL;
    }
    for (int i = 0; i < IO_MAX_OPEN; i++) {
        if (st->used[i])
            continue;
        st->used[i] = true;
        st->mem[i] = (memory_file_t){.data = data, .size = size};
        st->file[i] = (struct aiFile){.ReadProc = io_read,
                                      .WriteProc = io_write,
                                      .TellProc = io_tell,
                                      .FileSizeProc = io_size,
                                      .SeekProc = io_seek,
                                      .FlushProc = io_flush,
                                      .UserData = (aiUserData)&st->mem[i]};
        return &st->file[i];
    }
    return NULL;
}

static void io_close(struct aiFileIO *io, struct aiFile *f)
{
    io_state_t *st = (io_state_t *)io->UserData;
    if (f >= st->file && f < st->file + IO_MAX_OPEN)
        st->used[f - st->file] = false;
}

/* Row-major aiMatrix4x4 -> column-major floats. */
static void matrix_from_ai(const struct aiMatrix4x4 *m, float out[16])
{
    const float rows[4][4] = {{m->a1, m->a2, m->a3, m->a4},
                              {m->b1, m->b2, m->b3, m->b4},
                              {m->c1, m->c2, m->c3, m->c4},
                              {m->d1, m->d2, m->d3, m->d4}};
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[c * 4 + r] = rows[r][c];
}

/* The plain-array scene and what it owns (assimp's arrays are borrowed). */
typedef struct file_scene_t {
    imp_scene_t scene;
    const struct aiScene *ai;
    imp_node_t *nodes;
    const struct aiNode **ai_node;
    imp_mesh_t *meshes;
    imp_material_t *materials;
    char (*material_name)[64];
    void **owned; /* every other allocation, freed together */
    size_t owned_count, owned_cap;
    bool failed;
} file_scene_t;

static void *own(file_scene_t *fs, size_t n, size_t size)
{
    if (fs->failed)
        return NULL;
    if (fs->owned_count == fs->owned_cap) {
        size_t cap = fs->owned_cap ? fs->owned_cap * 2 : 64;
        void **p = realloc(fs->owned, cap * sizeof *p);
        if (!p) {
            fs->failed = true;
            return NULL;
        }
        fs->owned = p;
        fs->owned_cap = cap;
    }
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fs->failed = true;
        return NULL;
    }
    fs->owned[fs->owned_count++] = p;
    return p;
}

static void file_scene_free(file_scene_t *fs)
{
    for (size_t i = 0; i < fs->owned_count; i++)
        free(fs->owned[i]);
    free(fs->owned);
    free(fs->nodes);
    free(fs->ai_node);
    free(fs->meshes);
    free(fs->materials);
    free(fs->material_name);
    if (fs->ai)
        g_ai.release_import(fs->ai);
    memset(fs, 0, sizeof *fs);
}

/* Nodes depth first, so parents come before children. */
static bool read_nodes(file_scene_t *fs, const char *path)
{
    const struct aiNode *stack[IMP_MAX_NODES];
    int parent[IMP_MAX_NODES];
    int top = 0;
    uint32_t n = 0;
    fs->nodes = calloc(IMP_MAX_NODES, sizeof *fs->nodes);
    fs->ai_node = calloc(IMP_MAX_NODES, sizeof *fs->ai_node);
    if (!fs->nodes || !fs->ai_node) {
        log_error("%s: out of memory", path);
        return false;
    }
    stack[top] = fs->ai->mRootNode;
    parent[top++] = -1;
    while (top > 0) {
        top--;
        const struct aiNode *an = stack[top];
        if (n >= IMP_MAX_NODES) {
            log_error("%s: more than %d nodes", path, IMP_MAX_NODES);
            return false;
        }
        imp_node_t *node = &fs->nodes[n];
        node->name = an->mName.data;
        node->parent = parent[top];
        matrix_from_ai(&an->mTransformation, node->local);
        fs->ai_node[n] = an;
        /* Children pushed in reverse so they come out in file order. */
        for (unsigned c = an->mNumChildren; c-- > 0;) {
            if (top >= IMP_MAX_NODES) {
                log_error("%s: more than %d nodes", path, IMP_MAX_NODES);
                return false;
            }
            stack[top] = an->mChildren[c];
            parent[top++] = (int)n;
        }
        n++;
    }
    fs->scene.nodes = fs->nodes;
    fs->scene.node_count = n;
    return true;
}

/* The node a bone names. glTF node names need not be unique and assimp
 * binds bones by name, so where several nodes share it the one without
 * meshes (a joint, not a mesh holder) wins; -2 when that is still ambiguous. */
static int node_named(const file_scene_t *fs, const char *name)
{
    int found = -1, found_bare = -1, bare = 0;
    for (uint32_t i = 0; i < fs->scene.node_count; i++) {
        if (strcmp(fs->nodes[i].name, name) != 0)
            continue;
        if (found < 0)
            found = (int)i;
        if (fs->ai_node[i]->mNumMeshes == 0) {
            bare++;
            if (found_bare < 0)
                found_bare = (int)i;
        }
    }
    if (bare > 1)
        return -2;
    return found_bare >= 0 ? found_bare : found;
}

/* One placed mesh: assimp's mesh MI as hung from node NODE. */
static bool read_mesh(file_scene_t *fs, const char *path, unsigned mi, uint32_t node, imp_mesh_t *out)
{
    const struct aiMesh *am = fs->ai->mMeshes[mi];
    out->name = am->mName.data;
    out->node = node;
    out->material = am->mMaterialIndex;
    out->vertex_count = am->mNumVertices;
    out->positions = (const float *)am->mVertices;
    out->normals = am->mNormals ? (const float *)am->mNormals : NULL;
    if (am->mTextureCoords[0] && am->mNumVertices > 0) {
        float *uv = own(fs, am->mNumVertices, 2 * sizeof(float));
        if (uv)
            for (unsigned i = 0; i < am->mNumVertices; i++) {
                uv[i * 2] = am->mTextureCoords[0][i].x;
                uv[i * 2 + 1] = am->mTextureCoords[0][i].y;
            }
        out->uvs = uv;
    }
    /* Faces: sizes first; the corners are copied only for triangles (a
     * larger face is refused by the validation from its size alone). */
    out->face_count = am->mNumFaces;
    uint32_t *size = own(fs, am->mNumFaces, sizeof *size);
    uint32_t *index = own(fs, (size_t)am->mNumFaces * 3, sizeof *index);
    if (size && index)
        for (unsigned f = 0; f < am->mNumFaces; f++) {
            const struct aiFace *face = &am->mFaces[f];
            size[f] = face->mNumIndices;
            for (unsigned k = 0; k < 3 && face->mNumIndices == 3; k++)
                index[f * 3 + k] = face->mIndices[k];
        }
    out->face_size = size;
    out->face_index = index;
    out->bone_count = am->mNumBones;
    imp_bone_t *bones = own(fs, am->mNumBones, sizeof *bones);
    for (unsigned b = 0; bones && b < am->mNumBones; b++) {
        const struct aiBone *ab = am->mBones[b];
        int n = node_named(fs, ab->mName.data);
        if (n == -2) {
            log_error("%s: mesh '%s': joint '%s' names several nodes", path, am->mName.data, ab->mName.data);
            return false;
        }
        if (n < 0) {
            log_error("%s: mesh '%s': joint '%s' is not a node of the scene", path, am->mName.data, ab->mName.data);
            return false;
        }
        bones[b].node = (uint32_t)n;
        matrix_from_ai(&ab->mOffsetMatrix, bones[b].inverse_bind);
        bones[b].weight_count = ab->mNumWeights;
        uint32_t *wv = own(fs, ab->mNumWeights, sizeof *wv);
        float *ww = own(fs, ab->mNumWeights, sizeof *ww);
        for (unsigned i = 0; wv && ww && i < ab->mNumWeights; i++) {
            wv[i] = ab->mWeights[i].mVertexId;
            ww[i] = ab->mWeights[i].mWeight;
        }
        bones[b].weight_vertex = wv;
        bones[b].weight_value = ww;
    }
    out->bones = bones;
    out->target_count = am->mNumAnimMeshes;
    imp_target_t *targets = own(fs, am->mNumAnimMeshes, sizeof *targets);
    for (unsigned t = 0; targets && t < am->mNumAnimMeshes; t++) {
        const struct aiAnimMesh *an = am->mAnimMeshes[t];
        if (an->mNumVertices != am->mNumVertices) {
            log_error("%s: mesh '%s' morph target '%s': %u vertices, the mesh has %u", path, am->mName.data,
                      an->mName.data, an->mNumVertices, am->mNumVertices);
            return false;
        }
        targets[t].name = an->mName.data;
        targets[t].positions = an->mVertices ? (const float *)an->mVertices : NULL;
    }
    out->targets = targets;
    if (fs->failed) {
        log_error("%s: out of memory", path);
        return false;
    }
    return true;
}

static bool read_meshes(file_scene_t *fs, const char *path)
{
    uint32_t count = 0;
    for (uint32_t n = 0; n < fs->scene.node_count; n++)
        count += fs->ai_node[n]->mNumMeshes;
    if (count == 0) {
        log_error("%s: no mesh in the scene", path);
        return false;
    }
    if (count > IMP_MAX_MESHES) {
        log_error("%s: %u meshes, more than %d", path, count, IMP_MAX_MESHES);
        return false;
    }
    fs->meshes = calloc(count, sizeof *fs->meshes);
    if (!fs->meshes) {
        log_error("%s: out of memory", path);
        return false;
    }
    uint32_t k = 0;
    for (uint32_t n = 0; n < fs->scene.node_count; n++) {
        const struct aiNode *an = fs->ai_node[n];
        for (unsigned i = 0; i < an->mNumMeshes; i++) {
            unsigned mi = an->mMeshes[i];
            if (mi >= fs->ai->mNumMeshes) {
                log_error("%s: node '%s' names mesh %u of %u", path, an->mName.data, mi, fs->ai->mNumMeshes);
                return false;
            }
            if (!read_mesh(fs, path, mi, n, &fs->meshes[k++]))
                return false;
        }
    }
    fs->scene.meshes = fs->meshes;
    fs->scene.mesh_count = k;
    return true;
}

static bool read_materials(file_scene_t *fs, const char *path)
{
    unsigned n = fs->ai->mNumMaterials;
    if (n < 1 || n > IMP_MAX_MATERIALS) {
        log_error("%s: %u materials (1..%d)", path, n, IMP_MAX_MATERIALS);
        return false;
    }
    fs->materials = calloc(n, sizeof *fs->materials);
    fs->material_name = calloc(n, sizeof *fs->material_name);
    if (!fs->materials || !fs->material_name) {
        log_error("%s: out of memory", path);
        return false;
    }
    for (unsigned i = 0; i < n; i++) {
        const struct aiMaterial *am = fs->ai->mMaterials[i];
        imp_material_t *m = &fs->materials[i];
        struct aiString name;
        if (g_ai.material_string(am, AI_MATKEY_NAME, &name) == aiReturn_SUCCESS)
            snprintf(fs->material_name[i], sizeof fs->material_name[i], "%.63s", name.data);
        m->name = fs->material_name[i];
        struct aiColor4D c = {0.8f, 0.8f, 0.8f, 1.0f};
        if (g_ai.material_color(am, AI_MATKEY_BASE_COLOR, &c) != aiReturn_SUCCESS)
            g_ai.material_color(am, AI_MATKEY_COLOR_DIFFUSE, &c);
        m->color[0] = c.r;
        m->color[1] = c.g;
        m->color[2] = c.b;
        m->color[3] = c.a;
        ai_real rough = 0.6f;
        unsigned one = 1;
        g_ai.material_floats(am, AI_MATKEY_ROUGHNESS_FACTOR, &rough, &one);
        m->roughness = rough;
        /* glTF's doubleSided (false when absent), an integer property that
         * the float getter converts. */
        ai_real two_sided = 0.0f;
        one = 1;
        g_ai.material_floats(am, AI_MATKEY_TWOSIDED, &two_sided, &one);
        m->double_sided = two_sided != 0.0f;
    }
    fs->scene.materials = fs->materials;
    fs->scene.material_count = n;
    return true;
}

bool imp_load_gltf_package(const gltf_package_t *pkg, const char *source, chr_character_t *out, imp_info_t *info)
{
    memset(out, 0, sizeof *out);
    if (!assimp_ready(source))
        return false;
    io_state_t st;
    memset(&st, 0, sizeof st);
    st.pkg = pkg;
    struct aiFileIO io = {.OpenProc = io_open, .CloseProc = io_close, .UserData = (aiUserData)&st};
    file_scene_t fs;
    memset(&fs, 0, sizeof fs);
    const char *doc_name = pkg->binary ? MEMORY_FOLDER "model.glb" : MEMORY_FOLDER "model.gltf";
    fs.ai = g_ai.import_file(doc_name, aiProcess_Triangulate, &io);
    if (!fs.ai) {
        const char *why = g_ai.error_string();
        /* assimp's messages can span lines; keep the first. */
        char line[256];
        snprintf(line, sizeof line, "%s", why && why[0] ? why : "unknown error");
        line[strcspn(line, "\r\n")] = '\0';
        log_error("%s: cannot read the glTF file: %s", source, line);
        return false;
    }
    bool ok = true;
    if ((fs.ai->mFlags & AI_SCENE_FLAGS_INCOMPLETE) || !fs.ai->mRootNode) {
        log_error("%s: incomplete glTF scene (no node hierarchy or meshes)", source);
        ok = false;
    }
    ok = ok && read_nodes(&fs, source) && read_materials(&fs, source) && read_meshes(&fs, source);
    ok = ok && imp_build(&fs.scene, source, out, info);
    file_scene_free(&fs);
    return ok;
}

bool imp_load_gltf(const char *path, chr_character_t *out, imp_info_t *info)
{
    memset(out, 0, sizeof *out);
    if (!imp_is_gltf_path(path)) {
        log_error("%s: not a glTF file name (.glb or .gltf expected)", path);
        return false;
    }
    gltf_package_t pkg;
    if (!gltf_package_load(&pkg, path))
        return false;
    bool ok = imp_load_gltf_package(&pkg, path, out, info);
    gltf_package_free(&pkg);
    return ok;
}

bool imp_load_character(const char *path, const char *map_path, const skel_t *driver, chr_character_t *out,
                        imp_info_t *info)
{
    if (!imp_is_gltf_path(path))
        return chr_load(out, path);
    imp_info_t local;
    if (!info)
        info = &local;
    if (!imp_load_gltf(path, out, info))
        return false;
    if (driver) {
        static retarget_map_t map;
        imp_look_info_t look;
        if (!retarget_map_resolve(map_path, driver, &out->skel, path, &map) ||
            !imp_dress(out, driver, &map, path, &look)) {
            chr_free(out);
            return false;
        }
        info->eyes = look.eyes;
        info->mouth_parts = look.mouth_parts;
    }
    /* The one warning comes only once everything else has passed, so a
     * refused file still fails with one line. */
    if (info->renormalised > 0)
        log_warn("%s: %u vertices' skin weights do not sum to 1 (furthest: %.4f); renormalised", path,
                 info->renormalised, (double)info->worst_weight_sum);
    return true;
}
