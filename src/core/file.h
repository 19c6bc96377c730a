/* file: whole-file reads with a size cap, whole-file writes, folder listings by suffix, and
 * a bounds-checked byte reader for binary loaders.
 *
 * Call order: file_read_all() -> use the bytes -> file_free().
 * file_write_all() is the other direction: one buffer out to one file.
 * A reader_t walks a byte span; every read checks the remaining length and
 * latches an error flag instead of reading past the end, so a loader can do
 * a run of reads and test reader_ok() once.
 * Does NOT: memory-map, or keep files open. The caller owns the returned bytes.
 */
#ifndef STRIDER_CORE_FILE_H
#define STRIDER_CORE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Reads all of PATH into a malloc'd buffer with a terminating 0 byte (not
 * counted in *size). Fails with one logged line if the file is missing,
 * unreadable, a folder or another non-regular file (device, pipe), or
 * larger than max_bytes. */
bool file_read_all(const char *path, size_t max_bytes, uint8_t **data, size_t *size);
void file_free(uint8_t *data);

/* Opens PATH for binary reading if it is a regular file; otherwise logs one
 * line naming PATH and why (missing, unreadable, a folder, a device or pipe)
 * and returns NULL. For readers that want only the head of a file; the
 * caller closes the stream. */
FILE *file_open_regular(const char *path);

/* Writes SIZE bytes to PATH, creating or truncating it. Fails with one
 * logged line naming PATH and the system's reason if it cannot be opened,
 * or if the write or the close (where a full disk shows up) fails. A failed
 * write may leave a partial file; it is not removed (PATH may be a device). */
bool file_write_all(const char *path, const void *data, size_t size);

/* Whether NAME ends in SUFFIX, ignoring case (".glb" matches "A.GLB"). */
bool file_has_suffix(const char *name, const char *suffix);

/* The regular files in DIR whose names end in one of SUFFIXES (any case),
 * as "DIR/NAME" strings of PATH_SIZE bytes each in OUT, sorted, at most
 * MAX. Returns the count; 0 also when DIR cannot be read (not an error:
 * an optional folder). */
int file_list_dir(const char *dir, const char *const *suffixes, int suffix_count, char *out, size_t path_size,
                  int max);

typedef struct reader_t {
    const uint8_t *data;
    size_t size;
    size_t pos;
    bool failed;
} reader_t;

reader_t reader_make(const void *data, size_t size);
bool reader_ok(const reader_t *r);
size_t reader_remaining(const reader_t *r);
/* Each returns 0 (or leaves dst zeroed) and sets r->failed on overrun. */
uint8_t reader_u8(reader_t *r);
uint16_t reader_u16(reader_t *r);
uint32_t reader_u32(reader_t *r);
uint64_t reader_u64(reader_t *r);
float reader_f32(reader_t *r);
void reader_bytes(reader_t *r, void *dst, size_t n);
/* Returns a pointer into the span, or NULL on overrun; no copy. */
const uint8_t *reader_span(reader_t *r, size_t n);
void reader_seek(reader_t *r, size_t pos);

/* FNV-1a 32-bit checksum, used by our binary formats. */
uint32_t file_checksum32(const void *data, size_t size);

#endif
