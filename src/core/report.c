/* gmtime_r is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "core/report.h"

#include "core/cpu.h"
#include "core/file.h"
#include "core/log.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef STRIDER_BUILD_TYPE
#define STRIDER_BUILD_TYPE "unknown"
#endif

static void read_cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ')
                    colon++;
                snprintf(out, size, "%s", colon);
                out[strcspn(out, "\n")] = 0;
            }
            break;
        }
    }
    fclose(f);
}

static void read_isa(char *out, size_t size)
{
    out[0] = 0;
#if defined(__x86_64__) || defined(__i386__)
    /* The features the benchmarks' kernels choose between. */
    static const cpu_feature_t feats[] = {CPU_SSE2, CPU_SSE42, CPU_AVX, CPU_AVX2, CPU_FMA, CPU_AVX512F};
    for (size_t i = 0; i < sizeof feats / sizeof feats[0]; i++) {
        if (!cpu_has(feats[i]))
            continue;
        size_t n = strlen(out);
        snprintf(out + n, size - n, "%s%s", n ? " " : "", cpu_feature_name(feats[i]));
    }
#else
    snprintf(out, size, "non-x86");
#endif
}

void report_env_collect(report_env_t *env, int argc, char **argv)
{
    memset(env, 0, sizeof *env);
    read_cpu_model(env->cpu, sizeof env->cpu);
    read_isa(env->isa, sizeof env->isa);
    snprintf(env->gl_renderer, sizeof env->gl_renderer, "none");
    snprintf(env->gl_version, sizeof env->gl_version, "none");
    const char *san = "";
#if defined(__SANITIZE_ADDRESS__)
    san = ", ASan";
#endif
    snprintf(env->build, sizeof env->build, "%s, gcc %d.%d%s", STRIDER_BUILD_TYPE, __GNUC__, __GNUC_MINOR__, san);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(env->date, sizeof env->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    env->cores = cores > 0 ? (int)cores : 1;
    size_t n = 0;
    for (int i = 0; i < argc && n + 2 < sizeof env->command; i++) {
        int w = snprintf(env->command + n, sizeof env->command - n, "%s%s", i ? " " : "", argv[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

void report_env_set_gl(report_env_t *env, const char *renderer, const char *version)
{
    snprintf(env->gl_renderer, sizeof env->gl_renderer, "%s", renderer ? renderer : "unknown");
    snprintf(env->gl_version, sizeof env->gl_version, "%s", version ? version : "unknown");
}

void report_env_print(const report_env_t *env, FILE *out)
{
    fprintf(out, "# command: %s\n", env->command);
    fprintf(out, "# date: %s\n", env->date);
    fprintf(out, "# cpu: %s (%d cores online; %s)\n", env->cpu, env->cores, env->isa);
    fprintf(out, "# gl: %s, %s\n", env->gl_renderer, env->gl_version);
    fprintf(out, "# build: %s\n", env->build);
}

void report_table_init(report_table_t *t, const char *title, int columns, const char *const *names)
{
    memset(t, 0, sizeof *t);
    snprintf(t->title, sizeof t->title, "%s", title);
    t->columns = columns > REPORT_MAX_COLUMNS ? REPORT_MAX_COLUMNS : columns;
    for (int c = 0; c < t->columns; c++)
        snprintf(t->names[c], sizeof t->names[c], "%s", names[c]);
}

void report_table_free(report_table_t *t)
{
    free(t->cells);
    t->cells = NULL;
    t->rows = t->capacity_rows = 0;
}

void report_table_note(report_table_t *t, const char *fmt, ...)
{
    if (t->note_count >= REPORT_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->notes[t->note_count++], REPORT_NOTE_MAX, fmt, ap);
    va_end(ap);
}

static void print_notes(const report_table_t *t, FILE *out)
{
    for (int i = 0; i < t->note_count; i++)
        fprintf(out, "# %s\n", t->notes[i]);
}

bool report_table_row_begin(report_table_t *t)
{
    if (t->rows == t->capacity_rows) {
        int cap = t->capacity_rows ? t->capacity_rows * 2 : 32;
        report_cell_t *grown = realloc(t->cells, (size_t)cap * (size_t)t->columns * sizeof *grown);
        if (!grown) {
            log_error("bench: out of memory for result rows");
            return false;
        }
        t->cells = grown;
        t->capacity_rows = cap;
    }
    memset(&t->cells[(size_t)t->rows * (size_t)t->columns], 0, (size_t)t->columns * sizeof *t->cells);
    t->rows++;
    t->cursor = 0;
    return true;
}

static report_cell_t *next_cell(report_table_t *t)
{
    if (t->rows == 0 || t->cursor >= t->columns)
        return NULL;
    return &t->cells[(size_t)(t->rows - 1) * (size_t)t->columns + (size_t)t->cursor++];
}

void report_table_str(report_table_t *t, const char *s)
{
    report_cell_t *c = next_cell(t);
    if (!c)
        return;
    c->kind = REPORT_CELL_STR;
    snprintf(c->str, sizeof c->str, "%s", s);
}

void report_table_num(report_table_t *t, double v, int decimals)
{
    report_cell_t *c = next_cell(t);
    if (!c)
        return;
    c->kind = REPORT_CELL_NUM;
    c->num = v;
    c->decimals = decimals;
}

static void cell_text(const report_cell_t *c, char *buf, size_t size)
{
    if (c->kind == REPORT_CELL_STR)
        snprintf(buf, size, "%s", c->str);
    else if (!isfinite(c->num))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.*f", c->decimals, c->num);
}

void report_table_print(const report_table_t *t, FILE *out)
{
    int width[REPORT_MAX_COLUMNS];
    char buf[REPORT_TEXT_MAX];
    for (int c = 0; c < t->columns; c++) {
        width[c] = (int)strlen(t->names[c]);
        for (int r = 0; r < t->rows; r++) {
            cell_text(&t->cells[(size_t)r * (size_t)t->columns + (size_t)c], buf, sizeof buf);
            int w = (int)strlen(buf);
            if (w > width[c])
                width[c] = w;
        }
    }
    print_notes(t, out);
    fprintf(out, "\n%s\n", t->title);
    for (int c = 0; c < t->columns; c++)
        fprintf(out, "%s%*s", c ? "  " : "", c ? width[c] : -width[c], t->names[c]);
    fputc('\n', out);
    for (int c = 0; c < t->columns; c++) {
        fprintf(out, "%s", c ? "  " : "");
        for (int k = 0; k < width[c]; k++)
            fputc('-', out);
    }
    fputc('\n', out);
    for (int r = 0; r < t->rows; r++) {
        for (int c = 0; c < t->columns; c++) {
            const report_cell_t *cell = &t->cells[(size_t)r * (size_t)t->columns + (size_t)c];
            cell_text(cell, buf, sizeof buf);
            /* Text left-aligned, numbers right-aligned. */
            int w = cell->kind == REPORT_CELL_STR ? -width[c] : width[c];
            fprintf(out, "%s%*s", c ? "  " : "", w, buf);
        }
        fputc('\n', out);
    }
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static bool finish_file(FILE *f, const char *path)
{
    bool ok = !ferror(f);
    if (fclose(f) != 0)
        ok = false;
    if (!ok)
        log_error("%s: write failed", path);
    return ok;
}

bool report_table_write_csv(const report_table_t *t, const report_env_t *env, const char *path)
{
    FILE *f = file_open_write(path);
    if (!f)
        return false;
    /* The header travels with the numbers as '#' comment lines. */
    report_env_print(env, f);
    print_notes(t, f);
    for (int c = 0; c < t->columns; c++)
        fprintf(f, "%s%s", c ? "," : "", t->names[c]);
    fputc('\n', f);
    char buf[REPORT_TEXT_MAX];
    for (int r = 0; r < t->rows; r++) {
        for (int c = 0; c < t->columns; c++) {
            const report_cell_t *cell = &t->cells[(size_t)r * (size_t)t->columns + (size_t)c];
            if (cell->kind == REPORT_CELL_NUM && isfinite(cell->num))
                snprintf(buf, sizeof buf, "%.9g", cell->num);
            else
                cell_text(cell, buf, sizeof buf);
            fprintf(f, "%s%s", c ? "," : "", buf);
        }
        fputc('\n', f);
    }
    return finish_file(f, path);
}

bool report_table_write_json(const report_table_t *t, const report_env_t *env, const char *path)
{
    FILE *f = file_open_write(path);
    if (!f)
        return false;
    fprintf(f, "{\n  \"benchmark\": ");
    json_string(f, t->title);
    fprintf(f, ",\n  \"env\": {\"command\": ");
    json_string(f, env->command);
    fprintf(f, ", \"date\": ");
    json_string(f, env->date);
    fprintf(f, ", \"cpu\": ");
    json_string(f, env->cpu);
    fprintf(f, ", \"cores\": %d, \"isa\": ", env->cores);
    json_string(f, env->isa);
    fprintf(f, ", \"gl_renderer\": ");
    json_string(f, env->gl_renderer);
    fprintf(f, ", \"gl_version\": ");
    json_string(f, env->gl_version);
    fprintf(f, ", \"build\": ");
    json_string(f, env->build);
    fprintf(f, "},\n  \"notes\": [");
    for (int i = 0; i < t->note_count; i++) {
        fputs(i ? ", " : "", f);
        json_string(f, t->notes[i]);
    }
    fprintf(f, "],\n  \"rows\": [\n");
    for (int r = 0; r < t->rows; r++) {
        fprintf(f, "    {");
        for (int c = 0; c < t->columns; c++) {
            const report_cell_t *cell = &t->cells[(size_t)r * (size_t)t->columns + (size_t)c];
            fprintf(f, "%s", c ? ", " : "");
            json_string(f, t->names[c]);
            fputs(": ", f);
            if (cell->kind == REPORT_CELL_STR)
                json_string(f, cell->str);
            else if (isfinite(cell->num))
                fprintf(f, "%.9g", cell->num);
            else
                fputs("null", f);
        }
        fprintf(f, "}%s\n", r + 1 < t->rows ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return finish_file(f, path);
}
