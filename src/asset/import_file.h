/* import_file: reads a glTF 2.0 character (.glb or .gltf) with Debian's
 * assimp (C API) into import.h's plain arrays and builds it (imp_build);
 * imp_load_character() is the one entry the game, the viewer, the
 * converter and the benchmarks use for any character path (.chr or glTF).
 *
 * Call order: imp_load_gltf() / imp_load_character() -> use -> chr_free().
 * Given the controller's skeleton, a glTF character must map onto it
 * (anim/retarget.h: its own joint names, the built-in CMU 31-joint names,
 * or MAP_PATH) and is then dressed by region (import_look.h).
 * Bad input (missing, unreadable, truncated or not glTF; anything gltf.h
 * or import.h refuses) fails with ONE logged line naming the file; nothing
 * is kept. The file and what it references are read and checked first
 * (asset/gltf.h); assimp then reads that package from memory through a
 * file system of ours (aiFileIO) and opens no file itself. assimp is asked
 * to triangulate only: every other check is ours. Its library is opened
 * (dlopen) when the first glTF file is read and stays loaded; without it
 * that read fails with one line.
 * Does NOT: write files (see chr_save), or keep the assimp scene.
 * Memory: the character's arrays are malloc'd (chr_free()).
 */
#ifndef STRIDER_ASSET_IMPORT_FILE_H
#define STRIDER_ASSET_IMPORT_FILE_H

#include "anim/skel.h"
#include "asset/character.h"
#include "asset/gltf.h"
#include "asset/import.h"

#include <stdbool.h>

/* Whether PATH names a glTF file (.glb or .gltf, any case). */
bool imp_is_gltf_path(const char *path);
/* Reads and imports the glTF file PATH; INFO may be NULL. Not dressed. */
bool imp_load_gltf(const char *path, chr_character_t *out, imp_info_t *info);
/* Imports a checked package (asset/gltf.h; messages name SOURCE): assimp
 * reads it from memory and opens no file. imp_load_gltf() is
 * gltf_package_load() then this; the fuzz target calls it directly. */
bool imp_load_gltf_package(const gltf_package_t *pkg, const char *source, chr_character_t *out, imp_info_t *info);
/* Any character: .chr through chr_load(), glTF through imp_load_gltf();
 * with DRIVER (the controller's skeleton, or NULL) a glTF character must
 * map onto it (MAP_PATH: a joint map file for rigs without known names, or
 * NULL) and is dressed by region. The one warning a load may give
 * (renormalised weights) comes only once everything has passed. INFO (may
 * be NULL) is filled for glTF only. */
bool imp_load_character(const char *path, const char *map_path, const skel_t *driver, chr_character_t *out,
                        imp_info_t *info);

#endif
