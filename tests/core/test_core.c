/* Tests for core's file rule, paths, text and JSON helpers:
 *  - a FIFO given as input is refused at once (no writer ever comes), as is
 *    a FIFO without a reader given as output, and nothing is truncated;
 *  - a read is capped by the file's real size and the caller's limit;
 *  - paths are copied whole or refused (paths_copy), never cut;
 *  - text_nul_line finds a NUL byte and its line;
 *  - json_parse accepts JSON and refuses what is not (NaN, depth, escaped
 *    NUL, lone surrogates, trailing text), json_get decodes keys and
 *    reports duplicates.
 * A test that would hang (a blocking open) is caught by alarm(). */
#define _POSIX_C_SOURCE 200809L

#include "core/file.h"
#include "core/json.h"
#include "core/log.h"
#include "core/paths.h"
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"

static int lines_of(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_fifo(const char *dir)
{
    char path[PATHS_MAX];
    snprintf(path, sizeof path, "%s/test_core_fifo", dir);
    unlink(path);
    CHECK(mkfifo(path, 0600) == 0);
    /* Opening a FIFO for reading blocks until a writer comes; the rule opens
     * without blocking. An alarm turns a hang into a failure. */
    alarm(10);
    uint8_t *data = NULL;
    size_t size = 0;
    capture_begin();
    bool ok = file_read_all(path, 1024, &data, &size);
    capture_end();
    CHECK(!ok && data == NULL && lines_of(capture_text) == 1);
    CHECK(strstr(capture_text, path) && strstr(capture_text, ": not a regular file (a FIFO)"));
    capture_begin();
    FILE *f = file_open_regular(path);
    capture_end();
    CHECK(f == NULL && strstr(capture_text, "not a regular file (a FIFO)"));
    CHECK(!file_is_regular(path, NULL));
    /* As an output: no reader, so refused at once instead of waiting. */
    capture_begin();
    ok = file_write_all(path, "x", 1);
    capture_end();
    CHECK(!ok && lines_of(capture_text) == 1 &&
          strstr(capture_text, "cannot open for writing: not a regular file (a FIFO or socket)"));
    /* The why variant keeps the line instead of logging it. */
    char why[PATHS_LINE_MAX];
    capture_begin();
    ok = file_read_all_why(path, 1024, &data, &size, why, sizeof why);
    capture_end();
    CHECK(!ok && capture_text[0] == 0 && strstr(why, "not a regular file (a FIFO)") && strstr(why, path));
    alarm(0);
    unlink(path);

    /* A folder is not written over; a regular file is truncated and written. */
    capture_begin();
    ok = file_write_all(dir, "x", 1);
    capture_end();
    CHECK(!ok && strstr(capture_text, "cannot open for writing"));
    snprintf(path, sizeof path, "%s/test_core_file.bin", dir);
    CHECK(file_write_all(path, "0123456789", 10));
    CHECK(file_write_all(path, "abc", 3));
    uint64_t got = 0;
    CHECK(file_is_regular(path, &got) && got == 3);
    /* The cap: the real size against the limit, before anything is read. */
    capture_begin();
    ok = file_read_all(path, 2, &data, &size);
    capture_end();
    CHECK(!ok && strstr(capture_text, "file is 3 bytes, more than the 2 allowed"));
    CHECK(file_read_all(path, 3, &data, &size) && size == 3 && memcmp(data, "abc", 4) == 0);
    file_free(data);
    unlink(path);
}

static void test_paths(void)
{
    char small[8];
    CHECK(paths_copy("1234567", small, sizeof small) && strcmp(small, "1234567") == 0);
    capture_begin();
    bool ok = paths_copy("12345678", small, sizeof small);
    capture_end();
    CHECK(!ok && small[0] == 0 && strstr(capture_text, "12345678: path of 8 bytes, longer than the 7 allowed"));
    /* A long path shows its tail (the file's name), not 4 KB. */
    char longp[5000];
    memset(longp, 'd', sizeof longp);
    memcpy(longp + sizeof longp - 8, "/x.chr", 7);
    char out[PATHS_MAX];
    capture_begin();
    ok = paths_copy(longp, out, sizeof out);
    capture_end();
    CHECK(!ok && strstr(capture_text, "/x.chr: path of 4998 bytes, longer than the 4095 allowed") &&
          strlen(capture_text) < 200);
}

static void test_text(void)
{
    size_t col = 0;
    CHECK(text_nul_line("a\nb\n", 4, &col) == 0);
    static const char t[] = "ok\n0 quit\0IGNORED\n";
    CHECK(text_nul_line(t, sizeof t - 1, &col) == 2 && col == 7);
}

static bool parses(const char *s, int depth, char *err, size_t err_size)
{
    json_doc_t d;
    json_limits_t lim = {.max_depth = depth, .max_values = 1000};
    bool ok = json_parse(&d, s, strlen(s), &lim, err, err_size);
    json_free(&d);
    return ok;
}

static void test_json(void)
{
    char err[160];
    static const char *const good[] = {
        "{}", "[]", " {\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\"]} ", "0", "\"\\\"\\\\\\/\"",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECKF(parses(good[i], 8, err, sizeof err), "'%s' refused: %s", good[i], err);
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"{\"a\": NaN}", "byte 6 (line 1): unexpected 'N'"},
        {"[Infinity]", "unexpected 'I'"},
        {"[1e999]", "number 1e999 is out of range"},
        {"[01]", "expected ',' or ']'"},
        {"{\"a\":1,}", "expected a member name"},
        {"[1] 2", "text after the JSON value"},
        {"\xEF\xBB\xBF{}", "unexpected byte 0xef"},
        {"[\"a\\u0000b\"]", "escaped NUL"},
        {"[\"\\udc00\"]", "lone low surrogate"},
        {"[\"\\ud800x\"]", "without its low half"},
        {"[\"a\tb\"]", "control character 0x09"},
        {"\n[[[[[[[[[1]]]]]]]]]", "byte 9 (line 2): nested deeper than 8 levels"},
        {"[\"abc", "string not closed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool ok = parses(bad[i].text, 8, err, sizeof err);
        CHECKF(!ok && strstr(err, bad[i].want), "'%s': %s (want '%s')", bad[i].text, ok ? "accepted" : err,
               bad[i].want);
    }
    /* Keys are compared decoded; a key given twice is reported. */
    static const char obj[] = "{\"\\u0075ri\": \"a.bin\", \"n\": 7, \"n\": 8, \"big\": 9007199254740993}";
    json_doc_t d;
    json_limits_t lim = {.max_depth = 4, .max_values = 100};
    CHECK(json_parse(&d, obj, sizeof obj - 1, &lim, err, sizeof err));
    bool dup = true;
    uint32_t v = json_get(&d, 0, "uri", &dup);
    char s[16];
    CHECK(v != JSON_NONE && !dup && json_string(&d, v, s, sizeof s) && strcmp(s, "a.bin") == 0);
    CHECK(!json_string(&d, v, s, 5));
    v = json_get(&d, 0, "n", &dup);
    uint64_t n = 0;
    CHECK(v != JSON_NONE && dup && json_uint(&d, v, 100, &n) && n == 7);
    CHECK(!json_uint(&d, v, 6, &n));
    CHECK(!json_uint(&d, json_get(&d, 0, "big", NULL), UINT64_MAX, &n));
    CHECK(json_get(&d, 0, "missing", NULL) == JSON_NONE);
    json_free(&d);
    /* The value cap. */
    lim.max_values = 3;
    CHECK(!json_parse(&d, "[1,2,3]", 7, &lim, err, sizeof err) && strstr(err, "more than 3 values"));
}

int main(int argc, char **argv)
{
    const char *tmp = argc > 1 ? argv[1] : "/tmp";
    test_fifo(tmp);
    test_paths();
    test_text();
    test_json();
    return check_summary();
}
