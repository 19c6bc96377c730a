/* open, fstat, fcntl, fdopen, opendir and readdir are POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "core/file.h"

#include "core/log.h"
#include "core/paths.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular file is, for the one error line. */
static const char *not_regular_why(mode_t mode)
{
    if (S_ISDIR(mode))
        return "is a folder, not a file";
    if (S_ISFIFO(mode))
        return "not a regular file (a FIFO)";
    if (S_ISSOCK(mode))
        return "not a regular file (a socket)";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "not a regular file (a device)";
    return "not a regular file";
}

/* The one line of a failed read: logged, or kept in the caller's buffer. */
typedef struct file_why_t {
    char *buf;
    size_t size;
} file_why_t;

__attribute__((format(printf, 2, 3))) static void why_line(file_why_t *w, const char *fmt, ...)
{
    char line[PATHS_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (w && w->buf)
        snprintf(w->buf, w->size, "%s", line);
    else
        log_error("%s", line);
}

/* The reading half of the rule: open without blocking (opening a FIFO for
 * reading would otherwise wait for a writer forever), fstat what was
 * opened, keep it only if it is a regular file. Returns the descriptor
 * (blocking again: reads of a regular file never wait) and its stat, or -1
 * after one line. */
static int open_regular_fd(const char *path, struct stat *st, file_why_t *w)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        why_line(w, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, st) != 0) {
        why_line(w, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        why_line(w, "%s: %s", path, not_regular_why(st->st_mode));
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        why_line(w, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

FILE *file_open_regular(const char *path)
{
    struct stat st;
    int fd = open_regular_fd(path, &st, NULL);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        log_error("%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

bool file_is_regular(const char *path, uint64_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    if (size)
        *size = (uint64_t)st.st_size;
    return true;
}

static bool read_all(const char *path, size_t max_bytes, uint8_t **data, size_t *size, file_why_t *w)
{
    *data = NULL;
    *size = 0;
    struct stat st;
    int fd = open_regular_fd(path, &st, w);
    if (fd < 0)
        return false;
    /* The size of the file that was opened, not of whatever the name points
     * to by now; the cap is checked before anything is allocated. */
    if (st.st_size < 0 || (uint64_t)st.st_size > (uint64_t)max_bytes) {
        why_line(w, "%s: file is %lld bytes, more than the %zu allowed", path, (long long)st.st_size, max_bytes);
        close(fd);
        return false;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *buf = malloc(len + 1);
    if (!buf) {
        why_line(w, "%s: out of memory reading %zu bytes", path, len);
        close(fd);
        return false;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            why_line(w, "%s: read failed after %zu of %zu bytes: %s", path, got, len, strerror(errno));
            break;
        }
        if (n == 0) {
            why_line(w, "%s: read %zu of %zu bytes (the file shrank while it was read)", path, got, len);
            break;
        }
        got += (size_t)n;
    }
    close(fd);
    if (got != len) {
        free(buf);
        return false;
    }
    buf[len] = 0;
    *data = buf;
    *size = len;
    return true;
}

bool file_read_all(const char *path, size_t max_bytes, uint8_t **data, size_t *size)
{
    return read_all(path, max_bytes, data, size, NULL);
}

bool file_read_all_why(const char *path, size_t max_bytes, uint8_t **data, size_t *size, char *why, size_t why_size)
{
    file_why_t w = {.buf = why, .size = why_size};
    if (why_size)
        why[0] = 0;
    return read_all(path, max_bytes, data, size, &w);
}

void file_free(uint8_t *data) { free(data); }

FILE *file_open_write(const char *path)
{
    /* Without blocking: opening a FIFO for writing would wait for a reader.
     * Not truncated at open, so that nothing is lost when it is refused. */
    int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
    if (fd < 0) {
        /* A FIFO without a reader: ENXIO, which strerror words obscurely. */
        log_error("%s: cannot open for writing: %s", path,
                  errno == ENXIO ? "not a regular file (a FIFO or socket)" : strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        log_error("%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    bool device = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode);
    if (!S_ISREG(st.st_mode) && !device) {
        log_error("%s: cannot open for writing: %s", path, not_regular_why(st.st_mode));
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if ((S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        log_error("%s: cannot open for writing: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        log_error("%s: cannot open for writing: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

bool file_write_all(const char *path, const void *data, size_t size)
{
    FILE *f = file_open_write(path);
    if (!f)
        return false;
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
    return p ? (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24) : 0;
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

int file_list_dir(const char *dir, const char *const *suffixes, int suffix_count, char *out, size_t path_size, int max)
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
        if (!match || (size_t)snprintf(path, path_size, "%s/%s", dir, e->d_name) >= path_size || stat(path, &st) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        n++;
    }
    closedir(d);
    qsort(out, (size_t)n, path_size, cmp_str);
    return n;
}
