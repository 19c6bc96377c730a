/* file: whole-file reads with a size cap, whole-file writes, folder listings by suffix, and
 * a bounds-checked byte reader for binary loaders.
 *
 * Call order: file_read_all() -> use the bytes -> file_free().
 * file_write_all() is the other direction: one buffer out to one file.
 * The one rule for every file a loader reads: it is opened without
 * blocking (O_NONBLOCK, so a FIFO named as input cannot hang the program),
 * then fstat'ed; only a regular file is read, at most its real size and
 * never more than the caller's documented cap. Outputs never block either:
 * a FIFO or socket named as output is refused (devices such as /dev/null
 * are written). A path is never truncated: one the system cannot open
 * (over PATH_MAX) fails like any other unopenable path.
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
/* The same, but the line ("PATH: problem") goes into WHY instead of the
 * log, for a caller that names more (the model a buffer belongs to). */
bool file_read_all_why(const char *path, size_t max_bytes, uint8_t **data, size_t *size, char *why, size_t why_size);
void file_free(uint8_t *data);

/* Opens PATH for binary reading if it is a regular file; otherwise logs one
 * line naming PATH and why (missing, unreadable, a folder, a device, a
 * FIFO, a socket) and returns NULL. Never blocks. For readers that want
 * only the head of a file; the caller closes the stream. */
FILE *file_open_regular(const char *path);

/* Whether PATH names a regular file (stat: follows links, opens nothing,
 * logs nothing); *SIZE (may be NULL) gets its size in bytes. For optional
 * files and summaries, never as a check before reading (use the readers,
 * which check the file they actually opened). */
bool file_is_regular(const char *path, uint64_t *size);

/* Opens PATH for binary writing, creating or truncating it. A regular file
 * or a device (/dev/null) is opened; a folder, a FIFO or a socket is
 * refused without blocking and without being truncated; one logged line
 * naming PATH and why on failure. The caller closes the stream. */
FILE *file_open_write(const char *path);

/* Writes SIZE bytes to PATH through file_open_write(). Fails with one
 * logged line naming PATH and the reason if it cannot be opened, or if the
 * write or the close (where a full disk shows up) fails. A failed write may
 * leave a partial file; it is not removed (PATH may be a device). */
bool file_write_all(const char *path, const void *data, size_t size);

/* Whether NAME ends in SUFFIX, ignoring case (".glb" matches "A.GLB"). */
bool file_has_suffix(const char *name, const char *suffix);

/* The regular files in DIR whose names end in one of SUFFIXES (any case),
 * as "DIR/NAME" strings of PATH_SIZE bytes each in OUT, sorted, at most
 * MAX. Returns the count; 0 also when DIR cannot be read (not an error:
 * an optional folder). */
int file_list_dir(const char *dir, const char *const *suffixes, int suffix_count, char *out, size_t path_size, int max);

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
