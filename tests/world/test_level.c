/* Tests for level: every shipped level loads and is playable (spawn on
 * walkable ground outside walls, crouch floors flat, jump areas next to a
 * height change), every malformed file fails with one "file:line:" error,
 * and the collision/area queries give the expected answers.
 * usage: test_world_level SCRATCH_DIR   (a writable folder for temp files) */
#include "core/log.h"
#include "core/paths.h"
#include "world/level.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Walkable means the ground normal is within 30 degrees of vertical. */
#define WALKABLE_NORMAL_Y 0.866f

static level_t g_lvl;

static void test_builtin_levels(void)
{
    static const char *const want[] = {"flat", "hills", "tunnel", "gaps", "course", "steps"};
    CHECK(level_builtin_count() == 6);
    CHECK(level_builtin_name(-1) == NULL);
    CHECK(level_builtin_name(6) == NULL);
    char path[LEVEL_PATH_MAX];
    CHECK(!level_path_for_name("nosuch", path, sizeof path));
    CHECK(!level_path_for_name("../flat", path, sizeof path));
    for (int i = 0; i < level_builtin_count(); i++) {
        const char *name = level_builtin_name(i);
        CHECK(name && strcmp(name, want[i]) == 0);
        CHECK(level_path_for_name(name, path, sizeof path));
        CHECK(strstr(path, "assets/levels/") != NULL);
        if (!level_load(&g_lvl, path)) {
            fprintf(stderr, "shipped level %s failed: %s\n", name, level_last_error());
            check_failed++;
            continue;
        }
        level_t *l = &g_lvl;
        CHECK(strcmp(l->name, name) == 0);
        CHECK(l->title[0] != 0);
        CHECK(l->terrain.width >= 64 && l->terrain.depth >= 64);
        /* Spawn: on walkable ground, clear of every wall by a body radius. */
        float n[3];
        terrain_normal(&l->terrain, l->spawn_x, l->spawn_z, n);
        CHECK(n[1] > WALKABLE_NORMAL_Y);
        float sx = l->spawn_x, sz = l->spawn_z;
        CHECK(!level_push_out_of_walls(l, &sx, &sz, 30.0f));
        CHECK(level_crouch_ceiling(l, l->spawn_x, l->spawn_z) == 0.0f);
        /* Crouch areas are tunnels over flat floors. */
        for (int c = 0; c < l->crouch_count; c++) {
            const level_crouch_area_t *a = &l->crouch[c];
            float lo = 1e9f, hi = -1e9f;
            for (float z = a->min_z; z <= a->max_z; z += 10.0f)
                for (float x = a->min_x; x <= a->max_x; x += 10.0f) {
                    float h = terrain_height(&l->terrain, x, z);
                    lo = fminf(lo, h);
                    hi = fmaxf(hi, h);
                }
            CHECK(hi - lo < 5.0f);
            CHECK(a->ceiling_cm >= 90.0f && a->ceiling_cm <= 130.0f);
        }
        /* Jump areas lead to something to jump: a gap or an obstacle of at
         * least 30 cm within two radii of their centre. */
        for (int k = 0; k < l->jump_count; k++) {
            const level_jump_area_t *a = &l->jump[k];
            float h0 = terrain_height(&l->terrain, a->x, a->z), dmax = 0.0f;
            for (float dz = -2 * a->radius_cm; dz <= 2 * a->radius_cm; dz += 5.0f)
                for (float dx = -2 * a->radius_cm; dx <= 2 * a->radius_cm; dx += 5.0f)
                    dmax = fmaxf(dmax, fabsf(terrain_height(&l->terrain, a->x + dx, a->z + dz) - h0));
            CHECK(dmax >= 30.0f);
            CHECK(level_in_jump_area(l, a->x, a->z));
        }
        printf("level %-7s %3dx%-3d walls %3d crouch %d jump %d\n", name, l->terrain.width, l->terrain.depth,
               l->wall_count, l->crouch_count, l->jump_count);
        level_free(l);
        CHECK(l->terrain.heights == NULL);
    }
    /* The features each level is for are really there. */
    char p[LEVEL_PATH_MAX];
    CHECK(level_path_for_name("tunnel", p, sizeof p) && level_load(&g_lvl, p));
    CHECK(g_lvl.crouch_count >= 1 && g_lvl.wall_count >= 2);
    level_free(&g_lvl);
    CHECK(level_path_for_name("gaps", p, sizeof p) && level_load(&g_lvl, p));
    CHECK(g_lvl.jump_count >= 2);
    level_free(&g_lvl);
    CHECK(level_path_for_name("flat", p, sizeof p) && level_load(&g_lvl, p));
    CHECK(g_lvl.wall_count >= 4);
    level_free(&g_lvl);
}

static bool parse(const char *text)
{
    bool ok = level_parse(&g_lvl, text, strlen(text), "test.lvl", NULL);
    level_free(&g_lvl);
    return ok;
}

/* Expects TEXT to fail with an error starting "test.lvl:LINE:" and
 * containing WHAT. */
static void expect_fail(const char *text, int line, const char *what)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "test.lvl:%d: ", line);
    bool ok = parse(text);
    const char *err = level_last_error();
    if (ok || strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what)) {
        fprintf(stderr, "expected failure '%s...%s', got %s '%s' for:\n%s\n", prefix, what, ok ? "success" : "error",
                err, text);
        check_failed++;
    }
    CHECK(strchr(err, '\n') == NULL);
}

#define HDR "strider-level 1\nname t\nflat 16 16 cell 10 height 0\n"

static void test_parse_good(void)
{
    const char *text = "# comment line\n"
                       "\n"
                       "strider-level 1   # trailing comment\n"
                       "name my-level_2\n"
                       "title \"A #1 level\"\n"
                       "\tflat 16 8 cell 10 height 25.5\r\n"
                       "spawn 10 -5 90\n"
                       "crouch -50 -30 50 30 110\n"
                       "crouch -20 -30 20 30 95\n"
                       "jump 40 0 25\n"
                       "wall -70 -30 70 -30\n"
                       "wall 70 -30 70 30 7.5";
    CHECK(level_parse(&g_lvl, text, strlen(text), "test.lvl", NULL));
    level_t *l = &g_lvl;
    CHECK(strcmp(l->name, "my-level_2") == 0);
    CHECK(strcmp(l->title, "A #1 level") == 0);
    CHECK(l->terrain.width == 16 && l->terrain.depth == 8);
    CHECK_NEAR(terrain_height(&l->terrain, 0, 0), 25.5f, 1e-5);
    CHECK_NEAR(l->spawn_x, 10, 0);
    CHECK_NEAR(l->spawn_z, -5, 0);
    CHECK_NEAR(l->spawn_heading_rad, 1.5707963f, 1e-6);
    CHECK(l->crouch_count == 2 && l->jump_count == 1 && l->wall_count == 2);
    CHECK_NEAR(l->walls[0].radius_cm, LEVEL_DEFAULT_WALL_RADIUS_CM, 0);
    CHECK_NEAR(l->walls[1].radius_cm, 7.5f, 0);

    /* Crouch: inside one area, inside the overlap (lowest wins), outside. */
    CHECK_NEAR(level_crouch_ceiling(l, -40, 0), 110, 0);
    CHECK_NEAR(level_crouch_ceiling(l, 0, 0), 95, 0);
    CHECK_NEAR(level_crouch_ceiling(l, 50, 30), 110, 0);
    CHECK_NEAR(level_crouch_ceiling(l, 51, 0), 0, 0);
    CHECK_NEAR(level_crouch_ceiling(l, 0, -31), 0, 0);
    /* Jump: inside, on the rim, outside. */
    CHECK(level_in_jump_area(l, 40, 0));
    CHECK(level_in_jump_area(l, 65, 0));
    CHECK(level_in_jump_area(l, 50, 10));
    CHECK(!level_in_jump_area(l, 66, 0));
    CHECK(!level_in_jump_area(l, 0, 0));
    level_free(l);

    /* Title defaults to the name; a heightmap without base_dir is a stand-in. */
    const char *t2 = "strider-level 1\nname x\nheightmap a/b.png cell 20 min -5 max 5\nspawn 0 0 0\n";
    CHECK(level_parse(&g_lvl, t2, strlen(t2), "test.lvl", NULL));
    CHECK(strcmp(g_lvl.title, "x") == 0);
    CHECK(g_lvl.terrain.width == LEVEL_STANDIN_SAMPLES);
    CHECK_NEAR(terrain_height(&g_lvl.terrain, 0, 0), -5.0f, 0);
    level_free(&g_lvl);

    /* The text need not be 0-terminated: parse a prefix of a longer buffer. */
    const char *t3 = HDR "spawn 0 0 0\nGARBAGE";
    CHECK(level_parse(&g_lvl, t3, strlen(t3) - strlen("GARBAGE"), "test.lvl", NULL));
    level_free(&g_lvl);
}

static void test_parse_bad(void)
{
    log_set_level(LOG_QUIET);
    expect_fail("", 0, "empty file");
    expect_fail("# only a comment\n\n", 2, "empty file");
    expect_fail("name t\nstrider-level 1\n", 1, "expected header");
    expect_fail("strider-level 2\n", 1, "unsupported version");
    expect_fail("strider-level 1 extra\n", 1, "expected header");
    expect_fail(HDR "spawn 0 0 0\nportal 1 2 3\n", 5, "unknown keyword 'portal'");
    expect_fail(HDR "spawn 0 0 0\nwall 1 2 3\n", 5, "wall: got 3 fields");
    expect_fail(HDR "spawn 0 0 0\nwall 1 2 3 4 5 6\n", 5, "wall: got 6 fields");
    expect_fail(HDR "spawn 0 0 0\njump 0 0\n", 5, "jump: got 2 fields");
    expect_fail(HDR "spawn 0 0 0\ncrouch 0 0 10 10\n", 5, "crouch: got 4 fields");
    expect_fail(HDR "spawn 0 0\n", 4, "spawn: got 2 fields");
    expect_fail(HDR "spawn 0 0 0\njump 0 0 nan\n", 5, "jump radius");
    expect_fail(HDR "spawn inf 0 0\n", 4, "spawn x");
    expect_fail(HDR "spawn 0 -infinity 0\n", 4, "spawn z");
    expect_fail(HDR "spawn 0 0 1e39\n", 4, "spawn heading");
    expect_fail(HDR "spawn 0 0 0\nwall 0 0 10 10abc\n", 5, "not a number");
    expect_fail(HDR "spawn 0 0 0\nwall 0 0 10 0x\n", 5, "not a number");
    expect_fail(HDR "spawn 0 0 0\nwall 0 0 10 10 0\n", 5, "wall radius");
    expect_fail(HDR "spawn 0 0 0\nwall 0 0 0.5 0\n", 5, "shorter than");
    expect_fail(HDR "spawn 0 0 0\ncrouch -10 -10 10 10 5000\n", 5, "crouch ceiling");
    expect_fail(HDR "spawn 0 0 0\ncrouch 10 -10 -10 10 110\n", 5, "min x < max x");
    expect_fail(HDR "spawn 0 0 0\njump 0 0 1e7\n", 5, "jump radius");
    /* Outside the 16x16 grid at 10 cm: x and z in [-75, 75]. */
    expect_fail(HDR "spawn 0 0 0\nwall 0 0 76 0\n", 5, "outside the terrain");
    expect_fail(HDR "spawn 0 0 0\njump 0 80 20\n", 5, "outside the terrain");
    expect_fail(HDR "spawn 0 0 0\ncrouch -80 -10 10 10 110\n", 5, "outside the terrain");
    expect_fail(HDR "spawn 100 0 0\n", 4, "outside the terrain");
    /* Terrain lines. */
    expect_fail("strider-level 1\nname t\nflat 1 16 cell 10 height 0\n", 3, "flat width");
    expect_fail("strider-level 1\nname t\nflat 100000 16 cell 10 height 0\n", 3, "flat width");
    expect_fail("strider-level 1\nname t\nflat 16.5 16 cell 10 height 0\n", 3, "not an integer");
    expect_fail("strider-level 1\nname t\nflat 16 16 cell 0 height 0\n", 3, "flat cell");
    expect_fail("strider-level 1\nname t\nflat 16 16 size 10 height 0\n", 3, "expected 'cell'");
    expect_fail("strider-level 1\nname t\nflat 16 16 cell 10 height 1e9\n", 3, "flat height");
    expect_fail("strider-level 1\nname t\nheightmap h.png cell 20 min 5 max 5\n", 3, "must exceed min");
    expect_fail("strider-level 1\nname t\nheightmap ../h.png cell 20 min 0 max 5\n", 3, "relative path");
    expect_fail("strider-level 1\nname t\nheightmap /etc/h.png cell 20 min 0 max 5\n", 3, "relative path");
    expect_fail("strider-level 1\nname t\nheightmap h.png cell 20 min 0\n", 3, "heightmap: got 5 fields");
    expect_fail(HDR "flat 16 16 cell 10 height 0\n", 4, "second terrain line");
    /* Missing or repeated one-off lines, and order. */
    expect_fail("strider-level 1\nname t\nspawn 0 0 0\n", 3, "before the terrain line");
    expect_fail("strider-level 1\nname t\nwall 0 0 1 1\n", 3, "before the terrain line");
    expect_fail("strider-level 1\nname t\n", 2, "no terrain line");
    expect_fail(HDR, 3, "no 'spawn' line");
    expect_fail("strider-level 1\nflat 16 16 cell 10 height 0\nspawn 0 0 0\n", 3, "no 'name'");
    expect_fail(HDR "spawn 0 0 0\nspawn 0 0 0\n", 5, "second 'spawn'");
    expect_fail(HDR "name u\n", 4, "second 'name'");
    expect_fail("strider-level 1\nname T\n", 2, "name 'T'");
    expect_fail("strider-level 1\nname a b\n", 2, "name: got 2 fields");
    expect_fail(HDR "title unquoted\n", 4, "must be quoted");
    expect_fail(HDR "title \"\"\n", 4, "1..127");
    expect_fail(HDR "title \"a\"b\"\n", 4, "quote or non-printable");
    expect_fail(HDR "title \"x\"\ntitle \"y\"\n", 5, "second 'title'");
    /* Spawn inside a wall (reported at the spawn line). */
    expect_fail(HDR "spawn 0 0 0\nwall -20 5 20 5 10\n", 4, "inside wall 1");
    /* Binary junk and overlong lines. */
    static const char nul[] = "strider-level 1\nname t\0x\n";
    CHECK(!level_parse(&g_lvl, nul, sizeof nul - 1, "test.lvl", NULL));
    CHECK(strstr(level_last_error(), "test.lvl:2: NUL byte") != NULL);
    char longline[400];
    memset(longline, 'a', sizeof longline);
    memcpy(longline, "strider-level 1\n#", 17);
    longline[sizeof longline - 1] = 0;
    expect_fail(longline, 2, "line longer than");

    /* Too many entries: one more than each limit. */
    size_t cap = 64 * 1024;
    char *big = malloc(cap);
    size_t n = (size_t)snprintf(big, cap, HDR "spawn 0 0 0\n");
    for (int i = 0; i <= LEVEL_MAX_WALLS; i++)
        n += (size_t)snprintf(big + n, cap - n, "wall 10 10 20 20\n");
    expect_fail(big, 5 + LEVEL_MAX_WALLS, "more than 256 walls");
    n = (size_t)snprintf(big, cap, HDR "spawn 0 0 0\n");
    for (int i = 0; i <= LEVEL_MAX_JUMP; i++)
        n += (size_t)snprintf(big + n, cap - n, "jump 10 10 20\n");
    expect_fail(big, 5 + LEVEL_MAX_JUMP, "more than 64 jump areas");
    n = (size_t)snprintf(big, cap, HDR "spawn 0 0 0\n");
    for (int i = 0; i <= LEVEL_MAX_CROUCH; i++)
        n += (size_t)snprintf(big + n, cap - n, "crouch 10 10 20 20 110\n");
    expect_fail(big, 5 + LEVEL_MAX_CROUCH, "more than 64 crouch areas");
    free(big);
    CHECK(g_lvl.terrain.heights == NULL);
    log_set_level(LOG_INFO);
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(data, 1, size, f) == size);
        fclose(f);
    }
}

/* Files on disk: missing level, missing heightmap, truncated heightmap, and
 * a good heightmap found relative to the level's folder. */
static void test_files(const char *scratch)
{
    char lvl_path[LEVEL_PATH_MAX], png_path[LEVEL_PATH_MAX], src[LEVEL_PATH_MAX];
    log_set_level(LOG_QUIET);
    snprintf(lvl_path, sizeof lvl_path, "%s/no_such_level.lvl", scratch);
    CHECK(!level_load(&g_lvl, lvl_path));
    CHECK(strstr(level_last_error(), "no_such_level.lvl") != NULL);

    static const char text[] = "strider-level 1\nname disk\n"
                               "heightmap disk.png cell 20 min -600 max 600\nspawn 0 0 0\n";
    snprintf(lvl_path, sizeof lvl_path, "%s/disk.lvl", scratch);
    snprintf(png_path, sizeof png_path, "%s/disk.png", scratch);
    remove(png_path);
    write_file(lvl_path, text, sizeof text - 1);
    CHECK(!level_load(&g_lvl, lvl_path));
    CHECK(strstr(level_last_error(), "disk.png") != NULL);

    /* Copy the shipped hills heightmap: whole, then cut in half. */
    CHECK(paths_join("assets/levels/hills.png", src, sizeof src));
    FILE *f = fopen(src, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    static unsigned char png[1 << 20];
    size_t size = fread(png, 1, sizeof png, f);
    fclose(f);
    CHECK(size > 1000 && size < sizeof png);
    write_file(png_path, png, size);
    log_set_level(LOG_INFO);
    CHECK(level_load(&g_lvl, lvl_path));
    CHECK(g_lvl.terrain.width == 256);
    level_t ref;
    char hills[LEVEL_PATH_MAX];
    CHECK(level_path_for_name("hills", hills, sizeof hills) && level_load(&ref, hills));
    CHECK(memcmp(ref.terrain.heights, g_lvl.terrain.heights, 256 * 256 * sizeof(float)) == 0);
    level_free(&ref);
    level_free(&g_lvl);
    log_set_level(LOG_QUIET);
    write_file(png_path, png, size / 2);
    CHECK(!level_load(&g_lvl, lvl_path));
    CHECK(strstr(level_last_error(), "disk.png: ") != NULL);
    CHECK(g_lvl.terrain.heights == NULL);
    write_file(png_path, png, 40);
    CHECK(!level_load(&g_lvl, lvl_path));
    CHECK(strstr(level_last_error(), "disk.png: ") != NULL);
    log_set_level(LOG_INFO);
    remove(png_path);
    remove(lvl_path);
}

static void test_walls(void)
{
    const char *text = HDR "spawn 0 -60 0\n"
                           "wall 0 0 50 0 10\n"
                           "wall 0 0 0 50 10\n";
    CHECK(level_parse(&g_lvl, text, strlen(text), "test.lvl", NULL));
    level_t *l = &g_lvl;
    /* Beside the first wall: pushed straight out to 10 + 20 cm. */
    float x = 30, z = 5;
    CHECK(level_push_out_of_walls(l, &x, &z, 20.0f));
    CHECK_NEAR(x, 30, 1e-4);
    CHECK_NEAR(z, 30, 1e-4);
    /* Clear of both walls: untouched. */
    x = 40;
    z = 40;
    CHECK(!level_push_out_of_walls(l, &x, &z, 20.0f));
    CHECK(x == 40 && z == 40);
    /* Past the end cap: pushed radially from the end point. */
    x = 60;
    z = 0;
    CHECK(level_push_out_of_walls(l, &x, &z, 5.0f));
    CHECK_NEAR(x, 65, 1e-4);
    CHECK_NEAR(z, 0, 1e-4);
    /* On the centre line: leaves to the wall's left side (+z for +x). */
    x = 30;
    z = 0;
    CHECK(level_push_out_of_walls(l, &x, &z, 5.0f));
    CHECK_NEAR(x, 30, 1e-4);
    CHECK_NEAR(z, 15, 1e-4);
    /* In the corner between the walls: ends clear of both. */
    x = 12;
    z = 12;
    CHECK(level_push_out_of_walls(l, &x, &z, 20.0f));
    CHECK(x >= 30.0f - 1e-3f && z >= 30.0f - 1e-3f);
    float x2 = x, z2 = z;
    CHECK(!level_push_out_of_walls(l, &x2, &z2, 19.9f));

    /* Segment crossing the wall centre lines. */
    CHECK(level_segment_crosses_wall(l, 25, -10, 25, 10));
    CHECK(level_segment_crosses_wall(l, -10, 25, 10, 25));
    CHECK(!level_segment_crosses_wall(l, 25, 5, 25, 40));
    CHECK(!level_segment_crosses_wall(l, 60, -10, 60, 10));
    CHECK(!level_segment_crosses_wall(l, 10, 10, 40, 40));
    /* Touching counts: an end point on the wall, a collinear overlap. */
    CHECK(level_segment_crosses_wall(l, 25, 10, 25, 0));
    CHECK(level_segment_crosses_wall(l, 40, 0, 70, 0));
    CHECK(!level_segment_crosses_wall(l, 51, 0, 70, 0));
    /* Degenerate segment (no movement) inside free space. */
    CHECK(!level_segment_crosses_wall(l, 30, 30, 30, 30));
    level_free(l);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_world_level SCRATCH_DIR\n");
        return 2;
    }
    paths_init(NULL);
    test_builtin_levels();
    test_parse_good();
    test_parse_bad();
    test_files(argv[1]);
    test_walls();
    return check_summary();
}
