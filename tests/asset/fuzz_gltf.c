/* libFuzzer harness for the whole glTF import, assimp included: the bytes
 * are a .glb (when they start with "glTF") or a .gltf document, checked by
 * asset/gltf.h from memory, then read by assimp through the same in-memory
 * file system (aiFileIO) the game uses, and built by asset/import.h. A
 * document may name one external buffer, "fuzz.bin", which holds the input
 * itself; any other file name must be refused without being opened. Every
 * input must either fail with one message or give a character that passes
 * chr_validate() (the import's promise), and nothing may crash: assimp
 * itself is not instrumented, so its out-of-bounds reads show up only as
 * crashes, which is why the checks before it bound every index it follows.
 * Seeds: tests/asset/fuzz_seeds_gltf (a tiny skinned strip and the hostile
 * cases of tests/hostile) and, where present, the MakeHuman characters of
 * ../shared (too large to commit).
 */
#include "asset/character.h"
#include "asset/gltf.h"
#include "asset/import_file.h"
#include "core/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    log_set_level(LOG_QUIET);
    const bool glb = size >= 4 && memcmp(data, "glTF", 4) == 0;
    const char *name = glb ? "fuzz.glb" : "fuzz.gltf";
    const gltf_memory_file_t files[] = {{.name = "fuzz.bin", .data = data, .size = size}};
    gltf_package_t pkg;
    if (!gltf_package_memory(&pkg, name, data, size, files, 1))
        return 0;
    /* The document assimp reads passed the checks, and so does every
     * resource: at most the one named file. */
    if (!pkg.doc || pkg.res_count > 1 || (pkg.res_count == 1 && strcmp(pkg.res[0].uri, "fuzz.bin") != 0))
        abort();
    chr_character_t chr;
    imp_info_t info;
    if (imp_load_gltf_package(&pkg, name, &chr, &info)) {
        if (!chr_validate(&chr, name))
            abort();
        chr_free(&chr);
    }
    gltf_package_free(&pkg);
    return 0;
}
