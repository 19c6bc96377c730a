/* bench_report: the output side of `strider bench`: an environment header,
 * an aligned text table, and the same rows as CSV and JSON.
 *
 * Call order: bench_env_collect() once -> bench_table_init() with column
 * names -> bench_table_row_begin() / bench_table_str() / bench_table_num()
 * per row [+ bench_table_note()] -> bench_table_print() / bench_table_write_csv() /
 * bench_table_write_json() -> bench_table_free().
 * Every output carries the header (GL renderer, CPU, build type, date), so a
 * number never travels without the machine that produced it.
 * Does NOT: time anything or decide what is measured.
 */
#ifndef STRIDER_BENCH_BENCH_REPORT_H
#define STRIDER_BENCH_BENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

enum { BENCH_TEXT_MAX = 160, BENCH_MAX_COLUMNS = 32, BENCH_MAX_NOTES = 24, BENCH_NOTE_MAX = 320 };

typedef struct bench_env {
    char cpu[BENCH_TEXT_MAX];
    char isa[BENCH_TEXT_MAX];        /* SIMD extensions the CPU reports */
    char gl_renderer[BENCH_TEXT_MAX]; /* "none" when the benchmark used no GL */
    char gl_version[BENCH_TEXT_MAX];
    char build[BENCH_TEXT_MAX];      /* build type, compiler, sanitizers */
    char date[BENCH_TEXT_MAX];       /* UTC, ISO 8601 */
    char command[BENCH_TEXT_MAX * 2]; /* the command line, to reproduce */
    int cores;
} bench_env;

void bench_env_collect(bench_env *env, int argc, char **argv);
void bench_env_print(const bench_env *env, FILE *out);
/* Names the GL context the GPU methods ran on (bench_gl does this). */
void bench_env_set_gl(bench_env *env, const char *renderer, const char *version);

typedef enum bench_cell_kind { BENCH_CELL_STR, BENCH_CELL_NUM } bench_cell_kind;

typedef struct bench_cell {
    bench_cell_kind kind;
    char str[BENCH_TEXT_MAX];
    double num;
    int decimals;
} bench_cell;

typedef struct bench_table {
    char title[BENCH_TEXT_MAX];
    int columns;
    char names[BENCH_MAX_COLUMNS][48];
    bench_cell *cells; /* rows x columns, grown as rows are added */
    int rows, capacity_rows;
    int cursor;        /* next column of the current row */
    /* Lines about the whole table (the input, what was capped or skipped),
     * printed as '# ' lines before it and in the CSV header; JSON "notes". */
    char notes[BENCH_MAX_NOTES][BENCH_NOTE_MAX];
    int note_count;
} bench_table;

void bench_table_init(bench_table *t, const char *title, int columns, const char *const *names);
void bench_table_free(bench_table *t);
/* Adds a note (printf format); notes past BENCH_MAX_NOTES are dropped. */
void bench_table_note(bench_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool bench_table_row_begin(bench_table *t);
void bench_table_str(bench_table *t, const char *s);
void bench_table_num(bench_table *t, double v, int decimals);
void bench_table_print(const bench_table *t, FILE *out);
/* Return false (one logged line naming PATH) on I/O errors. */
bool bench_table_write_csv(const bench_table *t, const bench_env *env, const char *path);
bool bench_table_write_json(const bench_table *t, const bench_env *env, const char *path);

#endif
