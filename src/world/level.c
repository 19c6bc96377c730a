#include "world/level.h"

#include "core/file.h"
#include "core/log.h"
#include "core/paths.h"
#include "core/text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Level files are a few kB; anything far larger is not a level. */
#define LEVEL_FILE_MAX_BYTES (1u << 20)
#define LEVEL_LINE_MAX 256
#define LEVEL_MAX_TOKENS 12
#define LEVEL_ERROR_MAX 1024
/* Plausibility limits (cm unless noted): values outside are typos or garbage. */
#define LEVEL_COORD_LIMIT_CM 1.0e6f
#define LEVEL_CELL_MIN_CM 1.0f
#define LEVEL_CELL_MAX_CM 500.0f
#define LEVEL_HEIGHT_LIMIT_CM 1.0e5f
#define LEVEL_HEADING_LIMIT_DEG 720.0f
#define LEVEL_CEILING_MIN_CM 50.0f
#define LEVEL_CEILING_MAX_CM 400.0f
#define LEVEL_JUMP_RADIUS_MIN_CM 10.0f
#define LEVEL_JUMP_RADIUS_MAX_CM 1000.0f
#define LEVEL_WALL_RADIUS_MIN_CM 1.0f
#define LEVEL_WALL_RADIUS_MAX_CM 200.0f
#define LEVEL_WALL_MIN_LENGTH_CM 1.0f
/* Areas and walls may touch the terrain edge; this slack absorbs rounding. */
#define LEVEL_BOUNDS_SLACK_CM 0.01f
/* Passes of wall push-out: a point in a corner needs one per wall it touches. */
#define LEVEL_PUSH_PASSES 4
#define LEVEL_HEIGHTMAP_NAME_MAX 200

static const char LEVEL_HEADER[] = "strider-level";
static const char LEVEL_VERSION[] = "1";

static const char *const LEVEL_BUILTIN[] = {"flat", "hills", "tunnel", "gaps", "course", "steps"};
enum { LEVEL_BUILTIN_COUNT = (int)(sizeof LEVEL_BUILTIN / sizeof LEVEL_BUILTIN[0]) };

static char g_level_error[LEVEL_ERROR_MAX];

/* Records the message for level_last_error() and logs it as one line. */
__attribute__((format(printf, 1, 2))) static void level_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_level_error, sizeof g_level_error, fmt, ap);
    va_end(ap);
    log_error("%s", g_level_error);
}

const char *level_last_error(void) { return g_level_error; }

/* State of one parse: where we are, and which one-off lines were seen. */
typedef struct level_parser_t {
    level_t *lvl;
    const char *source;
    const char *base_dir;
    int lineno;
    const char *keyword; /* first field of the current line, for messages */
    bool have_name, have_title, have_terrain, have_spawn;
    int spawn_line;
} level_parser_t;

/* Cuts a '#' comment, except inside a "quoted" title. */
static void level_strip_comment(char *line)
{
    bool quoted = false;
    for (char *p = line; *p; p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (*p == '#' && !quoted) {
            *p = 0;
            return;
        }
    }
}

static bool level_number(level_parser_t *ps, const char *what, const char *s, float lo, float hi, float *out)
{
    char *end = NULL;
    errno = 0;
    float v = strtof(s, &end);
    if (end == s || *end != 0) {
        level_fail("%s:%d: %s %s: '%.32s' is not a number", ps->source, ps->lineno, ps->keyword, what, s);
        return false;
    }
    if (!isfinite(v) || v < lo || v > hi) {
        level_fail("%s:%d: %s %s %.32s outside [%g, %g]", ps->source, ps->lineno, ps->keyword, what, s, (double)lo,
                   (double)hi);
        return false;
    }
    *out = v;
    return true;
}

static bool level_integer(level_parser_t *ps, const char *what, const char *s, long lo, long hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != 0 || errno == ERANGE) {
        level_fail("%s:%d: %s %s: '%.32s' is not an integer", ps->source, ps->lineno, ps->keyword, what, s);
        return false;
    }
    if (v < lo || v > hi) {
        level_fail("%s:%d: %s %s %ld outside [%ld, %ld]", ps->source, ps->lineno, ps->keyword, what, v, lo, hi);
        return false;
    }
    *out = (int)v;
    return true;
}

/* Checks "KEYWORD" at tok[i] - used for the named fields of terrain lines. */
static bool level_expect_word(level_parser_t *ps, char **tok, int i, const char *word, const char *usage)
{
    if (strcmp(tok[i], word) != 0) {
        level_fail("%s:%d: expected '%s' at field %d (usage: %s)", ps->source, ps->lineno, word, i, usage);
        return false;
    }
    return true;
}

static bool level_check_count(level_parser_t *ps, int n, int want_min, int want_max, const char *usage)
{
    if (n - 1 < want_min || n - 1 > want_max) {
        level_fail("%s:%d: %s: got %d fields (usage: %s)", ps->source, ps->lineno, ps->keyword, n - 1, usage);
        return false;
    }
    return true;
}

static bool level_in_bounds(const level_t *lvl, float x, float z)
{
    float x0, z0, x1, z1;
    terrain_bounds(&lvl->terrain, &x0, &z0, &x1, &z1);
    return x >= x0 - LEVEL_BOUNDS_SLACK_CM && x <= x1 + LEVEL_BOUNDS_SLACK_CM && z >= z0 - LEVEL_BOUNDS_SLACK_CM &&
           z <= z1 + LEVEL_BOUNDS_SLACK_CM;
}

static bool level_require_bounds(level_parser_t *ps, const char *what, float x, float z)
{
    if (!level_in_bounds(ps->lvl, x, z)) {
        float x0, z0, x1, z1;
        terrain_bounds(&ps->lvl->terrain, &x0, &z0, &x1, &z1);
        level_fail("%s:%d: %s point (%g, %g) outside the terrain [%g, %g] x [%g, %g]", ps->source, ps->lineno, what,
                   (double)x, (double)z, (double)x0, (double)x1, (double)z0, (double)z1);
        return false;
    }
    return true;
}

static bool level_require_terrain(level_parser_t *ps, const char *what)
{
    if (!ps->have_terrain) {
        level_fail("%s:%d: '%s' before the terrain line ('heightmap' or 'flat' must come first)", ps->source,
                   ps->lineno, what);
        return false;
    }
    return true;
}

static bool level_valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= LEVEL_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* A heightmap reference stays inside the level's folder: relative, no "..",
 * and only plain file-name characters. */
static bool level_valid_heightmap_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= LEVEL_HEIGHTMAP_NAME_MAX || s[0] == '/')
        return false;
    if (strstr(s, "..") != NULL)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                  c == '.' || c == '/';
        if (!ok)
            return false;
    }
    return true;
}

/* title "TEXT": the rest of the raw line, one pair of quotes, printable ASCII. */
static bool level_parse_title(level_parser_t *ps, const char *rest)
{
    static const char usage[] = "title \"TEXT\"";
    if (ps->have_title) {
        level_fail("%s:%d: second 'title' line", ps->source, ps->lineno);
        return false;
    }
    while (*rest == ' ' || *rest == '\t')
        rest++;
    size_t n = strlen(rest);
    while (n > 0 && (rest[n - 1] == ' ' || rest[n - 1] == '\t' || rest[n - 1] == '\r'))
        n--;
    if (n < 2 || rest[0] != '"' || rest[n - 1] != '"') {
        level_fail("%s:%d: title must be quoted (usage: %s)", ps->source, ps->lineno, usage);
        return false;
    }
    size_t tlen = n - 2;
    if (tlen == 0 || tlen >= sizeof ps->lvl->title) {
        level_fail("%s:%d: title must have 1..%zu characters", ps->source, ps->lineno, sizeof ps->lvl->title - 1);
        return false;
    }
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char c = (unsigned char)rest[i];
        if (c == '"' || c < 0x20 || c > 0x7e) {
            level_fail("%s:%d: title has a quote or non-printable character at column %zu", ps->source, ps->lineno,
                       i + 1);
            return false;
        }
    }
    memcpy(ps->lvl->title, rest + 1, tlen);
    ps->lvl->title[tlen] = 0;
    ps->have_title = true;
    return true;
}

static bool level_parse_heightmap(level_parser_t *ps, char **tok, int n)
{
    static const char usage[] = "heightmap FILE.png cell CM min CM max CM";
    float cell, lo, hi;
    if (!level_check_count(ps, n, 7, 7, usage) || !level_expect_word(ps, tok, 2, "cell", usage) ||
        !level_expect_word(ps, tok, 4, "min", usage) || !level_expect_word(ps, tok, 6, "max", usage))
        return false;
    if (!level_valid_heightmap_name(tok[1])) {
        level_fail("%s:%d: heightmap name '%.40s' must be a relative path of [A-Za-z0-9_./-] "
                   "without '..'",
                   ps->source, ps->lineno, tok[1]);
        return false;
    }
    if (!level_number(ps, "cell", tok[3], LEVEL_CELL_MIN_CM, LEVEL_CELL_MAX_CM, &cell) ||
        !level_number(ps, "min", tok[5], -LEVEL_HEIGHT_LIMIT_CM, LEVEL_HEIGHT_LIMIT_CM, &lo) ||
        !level_number(ps, "max", tok[7], -LEVEL_HEIGHT_LIMIT_CM, LEVEL_HEIGHT_LIMIT_CM, &hi))
        return false;
    if (hi <= lo) {
        level_fail("%s:%d: heightmap max %g must exceed min %g", ps->source, ps->lineno, (double)hi, (double)lo);
        return false;
    }
    if (!ps->base_dir)
        return terrain_create_flat(&ps->lvl->terrain, LEVEL_STANDIN_SAMPLES, LEVEL_STANDIN_SAMPLES, cell, lo);
    char path[LEVEL_PATH_MAX];
    int len = snprintf(path, sizeof path, "%s/%s", ps->base_dir, tok[1]);
    if (len < 0 || (size_t)len >= sizeof path) {
        level_fail("%s:%d: heightmap path too long", ps->source, ps->lineno);
        return false;
    }
    char context[LEVEL_ERROR_MAX];
    snprintf(context, sizeof context, "%s:%d: heightmap", ps->source, ps->lineno);
    if (!terrain_load_png_for(&ps->lvl->terrain, path, context, cell, lo, hi)) {
        /* terrain has logged one line naming this line and the PNG; keep it
         * for callers. */
        snprintf(g_level_error, sizeof g_level_error, "%s", terrain_last_error());
        return false;
    }
    return true;
}

static bool level_parse_flat(level_parser_t *ps, char **tok, int n)
{
    static const char usage[] = "flat WIDTH DEPTH cell CM height CM";
    int w, d;
    float cell, h;
    if (!level_check_count(ps, n, 6, 6, usage) || !level_expect_word(ps, tok, 3, "cell", usage) ||
        !level_expect_word(ps, tok, 5, "height", usage) ||
        !level_integer(ps, "width", tok[1], TERRAIN_MIN_SAMPLES, TERRAIN_MAX_SAMPLES, &w) ||
        !level_integer(ps, "depth", tok[2], TERRAIN_MIN_SAMPLES, TERRAIN_MAX_SAMPLES, &d) ||
        !level_number(ps, "cell", tok[4], LEVEL_CELL_MIN_CM, LEVEL_CELL_MAX_CM, &cell) ||
        !level_number(ps, "height", tok[6], -LEVEL_HEIGHT_LIMIT_CM, LEVEL_HEIGHT_LIMIT_CM, &h))
        return false;
    if (!terrain_create_flat(&ps->lvl->terrain, w, d, cell, h)) {
        snprintf(g_level_error, sizeof g_level_error, "%s:%d: %s", ps->source, ps->lineno, terrain_last_error());
        return false;
    }
    return true;
}

static bool level_parse_spawn(level_parser_t *ps, char **tok, int n)
{
    static const char usage[] = "spawn X Z HEADING_DEG";
    level_t *lvl = ps->lvl;
    float x, z, deg;
    if (ps->have_spawn) {
        level_fail("%s:%d: second 'spawn' line", ps->source, ps->lineno);
        return false;
    }
    if (!level_require_terrain(ps, "spawn") || !level_check_count(ps, n, 3, 3, usage) ||
        !level_number(ps, "x", tok[1], -LEVEL_COORD_LIMIT_CM, LEVEL_COORD_LIMIT_CM, &x) ||
        !level_number(ps, "z", tok[2], -LEVEL_COORD_LIMIT_CM, LEVEL_COORD_LIMIT_CM, &z) ||
        !level_number(ps, "heading", tok[3], -LEVEL_HEADING_LIMIT_DEG, LEVEL_HEADING_LIMIT_DEG, &deg) ||
        !level_require_bounds(ps, "spawn", x, z))
        return false;
    lvl->spawn_x = x;
    lvl->spawn_z = z;
    lvl->spawn_heading_rad = deg * (3.14159265358979f / 180.0f);
    ps->have_spawn = true;
    ps->spawn_line = ps->lineno;
    return true;
}

static bool level_parse_crouch(level_parser_t *ps, char **tok, int n)
{
    static const char usage[] = "crouch MINX MINZ MAXX MAXZ CEILING_CM";
    level_t *lvl = ps->lvl;
    float v[4], ceiling;
    static const char *const names[4] = {"min x", "min z", "max x", "max z"};
    if (!level_require_terrain(ps, "crouch") || !level_check_count(ps, n, 5, 5, usage))
        return false;
    for (int k = 0; k < 4; k++)
        if (!level_number(ps, names[k], tok[1 + k], -LEVEL_COORD_LIMIT_CM, LEVEL_COORD_LIMIT_CM, &v[k]))
            return false;
    if (!level_number(ps, "ceiling", tok[5], LEVEL_CEILING_MIN_CM, LEVEL_CEILING_MAX_CM, &ceiling))
        return false;
    if (!(v[0] < v[2]) || !(v[1] < v[3])) {
        level_fail("%s:%d: crouch area needs min x < max x and min z < max z", ps->source, ps->lineno);
        return false;
    }
    if (!level_require_bounds(ps, "crouch", v[0], v[1]) || !level_require_bounds(ps, "crouch", v[2], v[3]))
        return false;
    if (lvl->crouch_count >= LEVEL_MAX_CROUCH) {
        level_fail("%s:%d: more than %d crouch areas", ps->source, ps->lineno, LEVEL_MAX_CROUCH);
        return false;
    }
    level_crouch_area_t *a = &lvl->crouch[lvl->crouch_count++];
    a->min_x = v[0];
    a->min_z = v[1];
    a->max_x = v[2];
    a->max_z = v[3];
    a->ceiling_cm = ceiling;
    return true;
}

static bool level_parse_jump(level_parser_t *ps, char **tok, int n)
{
    static const char usage[] = "jump X Z RADIUS_CM";
    level_t *lvl = ps->lvl;
    float x, z, r;
    if (!level_require_terrain(ps, "jump") || !level_check_count(ps, n, 3, 3, usage) ||
        !level_number(ps, "x", tok[1], -LEVEL_COORD_LIMIT_CM, LEVEL_COORD_LIMIT_CM, &x) ||
        !level_number(ps, "z", tok[2], -LEVEL_COORD_LIMIT_CM, LEVEL_COORD_LIMIT_CM, &z) ||
        !level_number(ps, "radius", tok[3], LEVEL_JUMP_RADIUS_MIN_CM, LEVEL_JUMP_RADIUS_MAX_CM, &r) ||
        !level_require_bounds(ps, "jump", x, z))
        return false;
    if (lvl->jump_count >= LEVEL_MAX_JUMP) {
        level_fail("%s:%d: more than %d jump areas", ps->source, ps->lineno, LEVEL_MAX_JUMP);
        return false;
    }
    level_jump_area_t *a = &lvl->jump[lvl->jump_count++];
    a->x = x;
    a->z = z;
    a->radius_cm = r;
    return true;
}

static bool level_parse_wall(level_parser_t *ps, char **tok, int n)
{
    static const char usage[] = "wall X0 Z0 X1 Z1 [RADIUS_CM]";
    level_t *lvl = ps->lvl;
    float v[4], r = LEVEL_DEFAULT_WALL_RADIUS_CM;
    static const char *const names[4] = {"x0", "z0", "x1", "z1"};
    if (!level_require_terrain(ps, "wall") || !level_check_count(ps, n, 4, 5, usage))
        return false;
    for (int k = 0; k < 4; k++)
        if (!level_number(ps, names[k], tok[1 + k], -LEVEL_COORD_LIMIT_CM, LEVEL_COORD_LIMIT_CM, &v[k]))
            return false;
    if (n == 6 && !level_number(ps, "radius", tok[5], LEVEL_WALL_RADIUS_MIN_CM, LEVEL_WALL_RADIUS_MAX_CM, &r))
        return false;
    if (!level_require_bounds(ps, "wall", v[0], v[1]) || !level_require_bounds(ps, "wall", v[2], v[3]))
        return false;
    if (hypotf(v[2] - v[0], v[3] - v[1]) < LEVEL_WALL_MIN_LENGTH_CM) {
        level_fail("%s:%d: wall shorter than %g cm", ps->source, ps->lineno, (double)LEVEL_WALL_MIN_LENGTH_CM);
        return false;
    }
    if (lvl->wall_count >= LEVEL_MAX_WALLS) {
        level_fail("%s:%d: more than %d walls", ps->source, ps->lineno, LEVEL_MAX_WALLS);
        return false;
    }
    level_wall_t *w = &lvl->walls[lvl->wall_count++];
    w->x0 = v[0];
    w->z0 = v[1];
    w->x1 = v[2];
    w->z1 = v[3];
    w->radius_cm = r;
    return true;
}

/* Handles one comment-stripped line with at least one token. RAW is the
 * untokenized line (the title keeps its blanks). */
static bool level_parse_record(level_parser_t *ps, char **tok, int n, const char *raw)
{
    const char *kw = tok[0];
    ps->keyword = kw;
    if (strcmp(kw, "title") == 0) {
        const char *rest = strstr(raw, "title") + strlen("title");
        return level_parse_title(ps, rest);
    }
    if (n > LEVEL_MAX_TOKENS) {
        level_fail("%s:%d: too many fields", ps->source, ps->lineno);
        return false;
    }
    if (strcmp(kw, "name") == 0) {
        if (ps->have_name) {
            level_fail("%s:%d: second 'name' line", ps->source, ps->lineno);
            return false;
        }
        if (!level_check_count(ps, n, 1, 1, "name NAME"))
            return false;
        if (!level_valid_name(tok[1])) {
            level_fail("%s:%d: name '%.40s' must be 1..%d chars of [a-z0-9_-]", ps->source, ps->lineno, tok[1],
                       LEVEL_NAME_MAX - 1);
            return false;
        }
        memcpy(ps->lvl->name, tok[1], strlen(tok[1]) + 1);
        ps->have_name = true;
        return true;
    }
    bool is_heightmap = strcmp(kw, "heightmap") == 0;
    if (is_heightmap || strcmp(kw, "flat") == 0) {
        if (ps->have_terrain) {
            level_fail("%s:%d: second terrain line (only one 'heightmap' or 'flat')", ps->source, ps->lineno);
            return false;
        }
        bool ok = is_heightmap ? level_parse_heightmap(ps, tok, n) : level_parse_flat(ps, tok, n);
        ps->have_terrain = ok;
        return ok;
    }
    if (strcmp(kw, "spawn") == 0)
        return level_parse_spawn(ps, tok, n);
    if (strcmp(kw, "crouch") == 0)
        return level_parse_crouch(ps, tok, n);
    if (strcmp(kw, "jump") == 0)
        return level_parse_jump(ps, tok, n);
    if (strcmp(kw, "wall") == 0)
        return level_parse_wall(ps, tok, n);
    level_fail("%s:%d: unknown keyword '%.32s'", ps->source, ps->lineno, kw);
    return false;
}

/* Distance from (x, z) to the centre line of wall W, and the closest point. */
static float level_wall_distance(const level_wall_t *w, float x, float z, float *cx, float *cz)
{
    float dx = w->x1 - w->x0, dz = w->z1 - w->z0;
    float len2 = dx * dx + dz * dz;
    float t = len2 > 0.0f ? ((x - w->x0) * dx + (z - w->z0) * dz) / len2 : 0.0f;
    if (!(t > 0.0f))
        t = 0.0f;
    if (t > 1.0f)
        t = 1.0f;
    *cx = w->x0 + t * dx;
    *cz = w->z0 + t * dz;
    return hypotf(x - *cx, z - *cz);
}

/* Whole-file checks that need every line: what must exist, and a spawn that
 * is not inside a wall. */
static bool level_check_complete(level_parser_t *ps)
{
    level_t *lvl = ps->lvl;
    if (!ps->have_name) {
        level_fail("%s:%d: no 'name' line", ps->source, ps->lineno);
        return false;
    }
    if (!ps->have_terrain) {
        level_fail("%s:%d: no terrain line ('heightmap' or 'flat')", ps->source, ps->lineno);
        return false;
    }
    if (!ps->have_spawn) {
        level_fail("%s:%d: no 'spawn' line", ps->source, ps->lineno);
        return false;
    }
    for (int i = 0; i < lvl->wall_count; i++) {
        float cx, cz;
        const level_wall_t *w = &lvl->walls[i];
        if (level_wall_distance(w, lvl->spawn_x, lvl->spawn_z, &cx, &cz) <= w->radius_cm) {
            level_fail("%s:%d: spawn (%g, %g) is inside wall %d", ps->source, ps->spawn_line, (double)lvl->spawn_x,
                       (double)lvl->spawn_z, i + 1);
            return false;
        }
    }
    if (!ps->have_title)
        memcpy(lvl->title, lvl->name, sizeof lvl->name);
    return true;
}

static bool level_parse_lines(level_parser_t *ps, const char *text, size_t len)
{
    size_t pos = 0;
    bool have_header = false;
    while (pos < len) {
        ps->lineno++;
        size_t start = pos;
        while (pos < len && text[pos] != '\n')
            pos++;
        size_t llen = pos - start;
        if (pos < len)
            pos++;
        if (llen >= LEVEL_LINE_MAX) {
            level_fail("%s:%d: line longer than %d bytes", ps->source, ps->lineno, LEVEL_LINE_MAX - 1);
            return false;
        }
        char line[LEVEL_LINE_MAX], raw[LEVEL_LINE_MAX];
        memcpy(line, text + start, llen);
        line[llen] = 0;
        if (memchr(line, 0, llen)) {
            level_fail("%s:%d: NUL byte in text", ps->source, ps->lineno);
            return false;
        }
        level_strip_comment(line);
        memcpy(raw, line, llen + 1);
        char *tok[LEVEL_MAX_TOKENS];
        int n = text_tokenize(line, tok, LEVEL_MAX_TOKENS);
        if (n == 0)
            continue;
        if (!have_header) {
            if (n != 2 || strcmp(tok[0], LEVEL_HEADER) != 0) {
                level_fail("%s:%d: expected header '%s %s'", ps->source, ps->lineno, LEVEL_HEADER, LEVEL_VERSION);
                return false;
            }
            if (strcmp(tok[1], LEVEL_VERSION) != 0) {
                level_fail("%s:%d: unsupported version '%.16s' (this build reads %s)", ps->source, ps->lineno, tok[1],
                           LEVEL_VERSION);
                return false;
            }
            have_header = true;
            continue;
        }
        if (!level_parse_record(ps, tok, n, raw))
            return false;
    }
    if (!have_header) {
        level_fail("%s:%d: empty file (no '%s %s' header)", ps->source, ps->lineno, LEVEL_HEADER, LEVEL_VERSION);
        return false;
    }
    return level_check_complete(ps);
}

bool level_parse(level_t *lvl, const char *text, size_t len, const char *source, const char *base_dir)
{
    memset(lvl, 0, sizeof *lvl);
    g_level_error[0] = 0;
    level_parser_t ps = {.lvl = lvl, .source = source, .base_dir = base_dir};
    size_t nul_column = 0;
    int nul_line = text_nul_line(text, len, &nul_column);
    if (nul_line) {
        level_fail("%s:%d: NUL byte at column %zu; a text file holds none", source, nul_line, nul_column);
        return false;
    }
    if (!level_parse_lines(&ps, text, len)) {
        level_free(lvl);
        return false;
    }
    return true;
}

bool level_load(level_t *lvl, const char *path)
{
    memset(lvl, 0, sizeof *lvl);
    g_level_error[0] = 0;
    uint8_t *data = NULL;
    size_t size = 0;
    if (!file_read_all(path, LEVEL_FILE_MAX_BYTES, &data, &size)) {
        /* file_read_all has logged the one line; keep a copy for callers. */
        snprintf(g_level_error, sizeof g_level_error, "%s: cannot read level file", path);
        return false;
    }
    char dir[LEVEL_PATH_MAX];
    if (!paths_dirname(path, dir, sizeof dir)) {
        level_fail("%s: path too long", path);
        file_free(data);
        return false;
    }
    bool ok = level_parse(lvl, (const char *)data, size, path, dir);
    file_free(data);
    return ok;
}

void level_free(level_t *lvl)
{
    terrain_free(&lvl->terrain);
    memset(lvl, 0, sizeof *lvl);
}

int level_builtin_count(void) { return LEVEL_BUILTIN_COUNT; }

const char *level_builtin_name(int index)
{
    if (index < 0 || index >= LEVEL_BUILTIN_COUNT)
        return NULL;
    return LEVEL_BUILTIN[index];
}

bool level_path_for_name(const char *name, char *out, size_t out_size)
{
    for (int i = 0; i < LEVEL_BUILTIN_COUNT; i++) {
        if (strcmp(name, LEVEL_BUILTIN[i]) == 0) {
            char rel[LEVEL_PATH_MAX];
            snprintf(rel, sizeof rel, "assets/levels/%s.lvl", name);
            return paths_join(rel, out, out_size);
        }
    }
    return false;
}

float level_crouch_ceiling(const level_t *lvl, float x, float z)
{
    /* Overlapping areas: the lowest ceiling wins, it is the one that binds. */
    float ceiling = 0.0f;
    for (int i = 0; i < lvl->crouch_count; i++) {
        const level_crouch_area_t *a = &lvl->crouch[i];
        if (x >= a->min_x && x <= a->max_x && z >= a->min_z && z <= a->max_z &&
            (ceiling == 0.0f || a->ceiling_cm < ceiling))
            ceiling = a->ceiling_cm;
    }
    return ceiling;
}

bool level_in_jump_area(const level_t *lvl, float x, float z)
{
    for (int i = 0; i < lvl->jump_count; i++) {
        const level_jump_area_t *a = &lvl->jump[i];
        float dx = x - a->x, dz = z - a->z;
        if (dx * dx + dz * dz <= a->radius_cm * a->radius_cm)
            return true;
    }
    return false;
}

bool level_push_out_of_walls(const level_t *lvl, float *x, float *z, float radius_cm)
{
    bool moved = false;
    for (int pass = 0; pass < LEVEL_PUSH_PASSES; pass++) {
        bool moved_now = false;
        for (int i = 0; i < lvl->wall_count; i++) {
            const level_wall_t *w = &lvl->walls[i];
            float cx, cz;
            float d = level_wall_distance(w, *x, *z, &cx, &cz);
            float reach = w->radius_cm + radius_cm;
            if (!(d < reach))
                continue;
            float nx, nz;
            if (d > 1e-4f) {
                nx = (*x - cx) / d;
                nz = (*z - cz) / d;
            } else {
                /* Exactly on the centre line: leave to the wall's left side. */
                float dx = w->x1 - w->x0, dz = w->z1 - w->z0;
                float len = hypotf(dx, dz);
                nx = -dz / len;
                nz = dx / len;
            }
            *x = cx + nx * reach;
            *z = cz + nz * reach;
            moved_now = true;
        }
        moved |= moved_now;
        if (!moved_now)
            break;
    }
    return moved;
}

/* Twice the signed area of (a, b, c): > 0 when c is left of a->b. */
static float level_orient(float ax, float az, float bx, float bz, float cx, float cz)
{
    return (bx - ax) * (cz - az) - (bz - az) * (cx - ax);
}

/* For collinear c: is it within the bounding box of a-b? */
static bool level_on_segment(float ax, float az, float bx, float bz, float cx, float cz)
{
    return cx >= fminf(ax, bx) && cx <= fmaxf(ax, bx) && cz >= fminf(az, bz) && cz <= fmaxf(az, bz);
}

/* Does the segment a->b cross wall W's centre line (touching counts)? */
static bool level_wall_crossed(const level_wall_t *w, float ax, float az, float bx, float bz)
{
    float d1 = level_orient(w->x0, w->z0, w->x1, w->z1, ax, az);
    float d2 = level_orient(w->x0, w->z0, w->x1, w->z1, bx, bz);
    float d3 = level_orient(ax, az, bx, bz, w->x0, w->z0);
    float d4 = level_orient(ax, az, bx, bz, w->x1, w->z1);
    if (((d1 > 0.0f && d2 < 0.0f) || (d1 < 0.0f && d2 > 0.0f)) &&
        ((d3 > 0.0f && d4 < 0.0f) || (d3 < 0.0f && d4 > 0.0f)))
        return true;
    return (d1 == 0.0f && level_on_segment(w->x0, w->z0, w->x1, w->z1, ax, az)) ||
           (d2 == 0.0f && level_on_segment(w->x0, w->z0, w->x1, w->z1, bx, bz)) ||
           (d3 == 0.0f && level_on_segment(ax, az, bx, bz, w->x0, w->z0)) ||
           (d4 == 0.0f && level_on_segment(ax, az, bx, bz, w->x1, w->z1));
}

/* Clearance of (x, z); with FROM, a point beyond a wall's centre line as
 * seen from FROM is measured back to FROM's side (see the header). */
static float level_wall_clearance_impl(const level_t *lvl, float x, float z, const float *from, float *away_x,
                                       float *away_z)
{
    float best = 1.0e9f, bx = 0.0f, bz = 0.0f;
    for (int i = 0; i < lvl->wall_count; i++) {
        const level_wall_t *w = &lvl->walls[i];
        float cx, cz;
        float d = level_wall_distance(w, x, z, &cx, &cz);
        bool beyond = from && level_wall_crossed(w, from[0], from[1], x, z);
        float clear = beyond ? -(d + w->radius_cm) : d - w->radius_cm;
        if (!(clear < best))
            continue;
        best = clear;
        if (d > 1e-4f) {
            /* Out the near face, or back across the centre line. */
            float s = beyond ? -1.0f : 1.0f;
            bx = s * (x - cx) / d;
            bz = s * (z - cz) / d;
        } else {
            /* On the centre line: out of the wall's left side (as push-out),
             * or towards FROM's side. */
            float dx = w->x1 - w->x0, dz = w->z1 - w->z0;
            float len = hypotf(dx, dz);
            bx = -dz / len;
            bz = dx / len;
            if (from && level_orient(w->x0, w->z0, w->x1, w->z1, from[0], from[1]) < 0.0f) {
                bx = -bx;
                bz = -bz;
            }
        }
    }
    if (away_x)
        *away_x = bx;
    if (away_z)
        *away_z = bz;
    return best;
}

float level_wall_clearance(const level_t *lvl, float x, float z, float *away_x, float *away_z)
{
    return level_wall_clearance_impl(lvl, x, z, NULL, away_x, away_z);
}

float level_wall_clearance_from(const level_t *lvl, float x, float z, float from_x, float from_z, float *away_x,
                                float *away_z)
{
    const float from[2] = {from_x, from_z};
    return level_wall_clearance_impl(lvl, x, z, from, away_x, away_z);
}

float level_edge_clearance(const level_t *lvl, float x, float z)
{
    float min_x, min_z, max_x, max_z;
    terrain_bounds(&lvl->terrain, &min_x, &min_z, &max_x, &max_z);
    return fminf(fminf(x - min_x, max_x - x), fminf(z - min_z, max_z - z));
}

bool level_segment_crosses_wall(const level_t *lvl, float ax, float az, float bx, float bz)
{
    for (int i = 0; i < lvl->wall_count; i++)
        if (level_wall_crossed(&lvl->walls[i], ax, az, bx, bz))
            return true;
    return false;
}
