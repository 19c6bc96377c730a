/* report: the output side of `strider bench` and `strider eval`: an environment header,
 * an aligned text table, and the same rows as CSV and JSON.
 *
 * Call order: report_env_collect() once -> report_table_init() with column
 * names -> report_table_row_begin() / report_table_str() / report_table_num()
 * per row [+ report_table_note()] -> report_table_print() / report_table_write_csv() /
 * report_table_write_json() -> report_table_free().
 * Every output carries the header (GL renderer, CPU, build type, date), so a
 * number never travels without the machine that produced it.
 * Does NOT: time anything or decide what is measured.
 */
#ifndef STRIDER_CORE_REPORT_H
#define STRIDER_CORE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

enum { REPORT_TEXT_MAX = 160, REPORT_MAX_COLUMNS = 32, REPORT_MAX_NOTES = 64, REPORT_NOTE_MAX = 320 };

typedef struct report_env_t {
    char cpu[REPORT_TEXT_MAX];
    char isa[REPORT_TEXT_MAX];         /* SIMD extensions the CPU reports */
    char gl_renderer[REPORT_TEXT_MAX]; /* "none" when the benchmark used no GL */
    char gl_version[REPORT_TEXT_MAX];
    char build[REPORT_TEXT_MAX];       /* build type, compiler, sanitizers */
    char date[REPORT_TEXT_MAX];        /* UTC, ISO 8601 */
    char command[REPORT_TEXT_MAX * 2]; /* the command line, to reproduce */
    int cores;
} report_env_t;

void report_env_collect(report_env_t *env, int argc, char **argv);
void report_env_print(const report_env_t *env, FILE *out);
/* Names the GL context the GPU methods ran on (bench_gl does this). */
void report_env_set_gl(report_env_t *env, const char *renderer, const char *version);

typedef enum report_cell_kind_t { REPORT_CELL_STR, REPORT_CELL_NUM } report_cell_kind_t;

typedef struct report_cell_t {
    report_cell_kind_t kind;
    char str[REPORT_TEXT_MAX];
    double num;
    int decimals;
} report_cell_t;

typedef struct report_table_t {
    char title[REPORT_TEXT_MAX];
    int columns;
    char names[REPORT_MAX_COLUMNS][48];
    report_cell_t *cells; /* rows x columns, grown as rows are added */
    int rows, capacity_rows;
    int cursor; /* next column of the current row */
    /* Lines about the whole table (the input, what was capped or skipped),
     * printed as '# ' lines before it and in the CSV header; JSON "notes". */
    char notes[REPORT_MAX_NOTES][REPORT_NOTE_MAX];
    int note_count;
} report_table_t;

void report_table_init(report_table_t *t, const char *title, int columns, const char *const *names);
void report_table_free(report_table_t *t);
/* Adds a note (printf format); notes past REPORT_MAX_NOTES are dropped. */
void report_table_note(report_table_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool report_table_row_begin(report_table_t *t);
void report_table_str(report_table_t *t, const char *s);
void report_table_num(report_table_t *t, double v, int decimals);
void report_table_print(const report_table_t *t, FILE *out);
/* Return false (one logged line naming PATH) on I/O errors. */
bool report_table_write_csv(const report_table_t *t, const report_env_t *env, const char *path);
bool report_table_write_json(const report_table_t *t, const report_env_t *env, const char *path);

#endif
