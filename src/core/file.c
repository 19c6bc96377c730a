/* fileno and fstat are POSIX, not C11; so are opendir and readdir. */
#define _POSIX_C_SOURCE 200809L

#include "core/file.h"

#include "core/log.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

FILE *file_open_regular(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        log_error("%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    /* fopen opens a folder too (and its "size" is then nonsense): say what
     * it is. Devices, pipes and sockets are not whole files either. */
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        log_error("%s: cannot stat: %s", path, strerror(errno));
        fclose(f);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        log_error("%s: %s", path, S_ISDIR(st.st_mode) ? "is a folder, not a file" : "not a regular file");
        fclose(f);
        return NULL;
    }
    return f;
}

bool file_read_all(const char *path, size_t max_bytes, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = file_open_regular(path);
    if (!f)
        return false;
    if (fseek(f, 0, SEEK_END) != 0) {
        log_error("%s: cannot seek: %s", path, strerror(errno));
        fclose(f);
        return false;
    }
    long len = ftell(f);
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
        log_error("%s: cannot determine size (not a regular file?)", path);
        fclose(f);
        return false;
    }
    if ((unsigned long)len > max_bytes) {
        log_error("%s: file is %ld bytes, more than the %zu allowed", path, len, max_bytes);
        fclose(f);
        return false;
    }
    uint8_t *buf = malloc((size_t)len + 1);
    if (!buf) {
        log_error("%s: out of memory reading %ld bytes", path, len);
        fclose(f);
        return false;
    }
    size_t got = fread(buf, 1, (size_t)len, f);
    int err = ferror(f);
    fclose(f);
    if (err || got != (size_t)len) {
        log_error("%s: read %zu of %ld bytes", path, got, len);
        free(buf);
        return false;
    }
    buf[len] = 0;
    *data = buf;
    *size = (size_t)len;
    return true;
}

void file_free(uint8_t *data) { free(data); }

bool file_write_all(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        log_error("%s: cannot open for writing: %s", path, strerror(errno));
        return false;
    }
    size_t wrote = fwrite(data, 1, size, f);
    int write_errno = errno;
    /* Close exactly once, whatever fwrite did; a failed close (full disk on
     * flush) is a failed write too. */
    int close_rc = fclose(f);
    int close_errno = errno;
    if (wrote != size) {
        log_error("%s: write failed after %zu of %zu bytes: %s", path, wrote, size, strerror(write_errno));
        return false;
    }
    if (close_rc != 0) {
        log_error("%s: write failed: %s", path, strerror(close_errno));
        return false;
    }
    return true;
}

reader_t reader_make(const void *data, size_t size)
{
    reader_t r = {.data = data, .size = size, .pos = 0, .failed = false};
    return r;
}

bool reader_ok(const reader_t *r) { return !r->failed; }

size_t reader_remaining(const reader_t *r) { return r->failed ? 0 : r->size - r->pos; }

const uint8_t *reader_span(reader_t *r, size_t n)
{
    if (r->failed || n > r->size - r->pos) {
        r->failed = true;
        return NULL;
    }
    const uint8_t *p = r->data + r->pos;
    r->pos += n;
    return p;
}

void reader_bytes(reader_t *r, void *dst, size_t n)
{
    const uint8_t *p = reader_span(r, n);
    if (p)
        memcpy(dst, p, n);
    else
        memset(dst, 0, n);
}

/* All our binary formats are little-endian; assemble bytes explicitly so the
 * reader is correct on any host and never does an unaligned load. */
uint8_t reader_u8(reader_t *r)
{
    const uint8_t *p = reader_span(r, 1);
    return p ? p[0] : 0;
}

uint16_t reader_u16(reader_t *r)
{
    const uint8_t *p = reader_span(r, 2);
    return p ? (uint16_t)(p[0] | (p[1] << 8)) : 0;
}

uint32_t reader_u32(reader_t *r)
{
    const uint8_t *p = reader_span(r, 4);
    return p ? (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                   ((uint32_t)p[3] << 24)
             : 0;
}

uint64_t reader_u64(reader_t *r)
{
    uint64_t lo = reader_u32(r);
    uint64_t hi = reader_u32(r);
    return lo | (hi << 32);
}

float reader_f32(reader_t *r)
{
    uint32_t u = reader_u32(r);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void reader_seek(reader_t *r, size_t pos)
{
    if (pos > r->size)
        r->failed = true;
    else
        r->pos = pos;
}

uint32_t file_checksum32(const void *data, size_t size)
{
    const uint8_t *p = data;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

bool file_has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (k > n)
        return false;
    for (size_t i = 0; i < k; i++)
        if (tolower((unsigned char)s[n - k + i]) != tolower((unsigned char)suffix[i]))
            return false;
    return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

int file_list_dir(const char *dir, const char *const *suffixes, int suffix_count, char *out, size_t path_size,
                  int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while (n < max && (e = readdir(d)) != NULL) {
        bool match = false;
        for (int i = 0; i < suffix_count && !match; i++)
            match = file_has_suffix(e->d_name, suffixes[i]);
        char *path = out + (size_t)n * path_size;
        struct stat st;
        if (!match || (size_t)snprintf(path, path_size, "%s/%s", dir, e->d_name) >= path_size ||
            stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        n++;
    }
    closedir(d);
    qsort(out, (size_t)n, path_size, cmp_str);
    return n;
}
