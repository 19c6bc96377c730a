/* core/args: the table parser behind the game's, bench's and eval's command
 * lines. Each kind fills its destination from a good value and refuses a bad
 * one with exactly one line naming the option and the value; the usage text
 * comes from the same table. */
/* fmemopen is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "core/args.h"

#include "capture.h"
#include "check.h"
#include "core/paths.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const char *const COLOURS[] = {"red", "green", "blue"};

typedef struct vals_t {
    bool flag, seen_flag, pos_given;
    int i, choice, list[ARGS_LIST_MAX], nlist, names[ARGS_LIST_MAX], nnames;
    long l;
    uint32_t u;
    double d;
    const char *s, *path, *choice_text;
    int w, h;
} vals_t;

static bool parse_wxh(const char *v, void *dest)
{
    vals_t *x = dest;
    return sscanf(v, "%dx%d", &x->w, &x->h) == 2 && x->w > 0 && x->h > 0;
}

/* Parses ARGS (NULL-terminated) with a fresh table over X; the one line of
 * stderr lands in capture_text. */
static args_result_t run(vals_t *x, const char *const *args)
{
    memset(x, 0, sizeof *x);
    const args_opt_t opts[] = {
        {.name = "--flag", .kind = ARGS_FLAG, .dest = &x->flag, .given = &x->seen_flag, .help = "a flag"},
        {.kind = ARGS_TEXT, .help = "\nsection:\n"},
        {.name = "--int", .kind = ARGS_INT, .dest = &x->i, .lo = -2, .hi = 5, .arg = "N", .help = "a number\nmore"},
        {.name = "--long", .kind = ARGS_LONG, .dest = &x->l, .lo = 0, .hi = 5184000, .arg = "N", .help = "long"},
        {.name = "--u32", .kind = ARGS_U32, .dest = &x->u, .lo = 0, .hi = (long)UINT32_MAX, .arg = "N"},
        {.name = "--time",
         .kind = ARGS_DOUBLE,
         .dest = &x->d,
         .flo = -1.0,
         .fhi = 1.0,
         .arg = "S",
         .error = "--time needs seconds from -1 to 1, got '%s'"},
        {.name = "--str", .kind = ARGS_STRING, .dest = &x->s, .max_len = 8, .arg = "TEXT"},
        {.name = "--path", .kind = ARGS_PATH, .dest = &x->path, .given = &x->pos_given, .arg = "FILE"},
        {.name = "--colour",
         .kind = ARGS_CHOICE,
         .dest = &x->choice,
         .text = &x->choice_text,
         .choices = COLOURS,
         .nchoices = 3,
         .label = "--colour red|green|blue",
         .help = "a colour"},
        {.name = "--list", .kind = ARGS_INT_LIST, .dest = x->list, .count = &x->nlist, .lo = 1, .hi = 9},
        {.name = "--names",
         .kind = ARGS_NAME_LIST,
         .dest = x->names,
         .count = &x->nnames,
         .choices = COLOURS,
         .nchoices = 3},
        {.name = "--size", .kind = ARGS_CUSTOM, .dest = x, .parse = parse_wxh, .error = "--size needs WxH, got '%s'"},
    };
    const args_spec_t spec = {.prog = "prog",
                              .hint = " (try --help)",
                              .label_width = 10,
                              .head = "usage: prog\n",
                              .tail = "end\n",
                              .opts = opts,
                              .count = (int)(sizeof opts / sizeof opts[0])};
    char *argv[32] = {"prog"};
    int argc = 1;
    while (args[argc - 1])
        argv[argc] = (char *)args[argc - 1], argc++;
    capture_begin();
    args_result_t r = args_parse(&spec, argc, argv, 1);
    capture_end();
    return r;
}

/* The failure gives exactly the line WANT (and its newline). */
static void expect_error(const char *const *args, const char *want)
{
    vals_t x;
    args_result_t r = run(&x, args);
    char line[512];
    snprintf(line, sizeof line, "%s\n", want);
    CHECKF(r == ARGS_ERROR && strcmp(capture_text, line) == 0, "%s: got %d '%s', want '%s'", args[0], (int)r,
           capture_text, want);
}

static void test_values(void)
{
    vals_t x;
    const char *good[] = {"--flag", "--int",   "-2",        "--long", "5184000", "--u32",    "4294967295", "--time",
                          "0.5",    "--str",   "abcdefgh",  "--path", "a/b",     "--colour", "blue",       "--list",
                          "1,9,3",  "--names", "green,red", "--size", "3x4",     NULL};
    CHECK(run(&x, good) == ARGS_OK);
    CHECKF(strcmp(capture_text, "") == 0, "nothing printed, got '%s'", capture_text);
    CHECK(x.flag && x.seen_flag && x.i == -2 && x.l == 5184000 && x.u == 4294967295u && x.d == 0.5);
    CHECK(strcmp(x.s, "abcdefgh") == 0 && strcmp(x.path, "a/b") == 0 && x.pos_given);
    CHECK(x.choice == 2 && strcmp(x.choice_text, "blue") == 0);
    CHECK(x.nlist == 3 && x.list[0] == 1 && x.list[1] == 9 && x.list[2] == 3);
    CHECK(x.nnames == 2 && x.names[0] == 1 && x.names[1] == 0);
    CHECK(x.w == 3 && x.h == 4);
    const char *none[] = {NULL};
    CHECK(run(&x, none) == ARGS_OK && !x.flag && !x.seen_flag && !x.pos_given && x.choice_text == NULL);
}

static void test_errors(void)
{
    expect_error((const char *[]){"--bogus", NULL}, "prog: unknown option '--bogus' (try --help)");
    expect_error((const char *[]){"--int", NULL}, "prog: option --int needs a value (try --help)");
    expect_error((const char *[]){"--int", "6", NULL},
                 "prog: --int needs a whole number from -2 to 5, got '6' (try --help)");
    expect_error((const char *[]){"--int", "1x", NULL},
                 "prog: --int needs a whole number from -2 to 5, got '1x' (try --help)");
    expect_error((const char *[]){"--int", "", NULL},
                 "prog: --int needs a whole number from -2 to 5, got '' (try --help)");
    expect_error((const char *[]){"--long", "99999999999999999999", NULL},
                 "prog: --long needs a whole number from 0 to 5184000, got '99999999999999999999' (try --help)");
    expect_error((const char *[]){"--u32", "4294967296", NULL},
                 "prog: --u32 needs a whole number from 0 to 4294967295, got '4294967296' (try --help)");
    expect_error((const char *[]){"--time", "nan", NULL},
                 "prog: --time needs seconds from -1 to 1, got 'nan' (try --help)");
    expect_error((const char *[]){"--str", "abcdefghi", NULL}, "prog: --str takes at most 8 characters (try --help)");
    expect_error((const char *[]){"--colour", "teal", NULL},
                 "prog: --colour needs red, green or blue, got 'teal' (try --help)");
    expect_error((const char *[]){"--list", "1,,2", NULL},
                 "prog: --list: item 2 of '1,,2' is empty; --list needs a comma-separated list of whole numbers from 1 "
                 "to 9");
    expect_error((const char *[]){"--list", "0", NULL}, "prog: --list needs a whole number from 1 to 9, got '0'");
    expect_error((const char *[]){"--names", "red,mauve", NULL},
                 "prog: unknown --names value 'mauve'; valid: red,green,blue");
    expect_error((const char *[]){"--size", "3by4", NULL}, "prog: --size needs WxH, got '3by4' (try --help)");
    static char long_path[PATHS_MAX + 1];
    memset(long_path, 'p', PATHS_MAX);
    char want[256];
    snprintf(want, sizeof want, "prog: --path: path of %d bytes, longer than the %d the system allows (try --help)",
             PATHS_MAX, PATHS_MAX - 1);
    expect_error((const char *[]){"--path", long_path, NULL}, want);
    /* A list of more than ARGS_LIST_MAX values. */
    char many[4 * ARGS_LIST_MAX];
    many[0] = 0;
    for (int k = 0; k <= ARGS_LIST_MAX; k++)
        strcat(many, k ? ",1" : "1");
    snprintf(want, sizeof want, "prog: --list takes at most %d values", ARGS_LIST_MAX);
    expect_error((const char *[]){"--list", many, NULL}, want);
}

/* A table at file scope names its destinations by ARGS_AT, into the struct
 * the spec's base points to: the same table fills whichever struct it is
 * handed, the field at offset 0 included. */
static const args_opt_t AT_OPTS[] = {
    {.name = "--flag", .kind = ARGS_FLAG, .dest_at = ARGS_AT(vals_t, flag), .given_at = ARGS_AT(vals_t, seen_flag)},
    {.name = "--int", .kind = ARGS_INT, .dest_at = ARGS_AT(vals_t, i), .lo = -2, .hi = 5},
    {.name = "--colour",
     .kind = ARGS_CHOICE,
     .dest_at = ARGS_AT(vals_t, choice),
     .text_at = ARGS_AT(vals_t, choice_text),
     .choices = COLOURS,
     .nchoices = 3},
    {.name = "--list",
     .kind = ARGS_INT_LIST,
     .dest_at = ARGS_AT(vals_t, list),
     .count_at = ARGS_AT(vals_t, nlist),
     .lo = 1,
     .hi = 9},
};

static void test_offsets(void)
{
    CHECK(offsetof(vals_t, flag) == 0);
    vals_t a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    args_spec_t spec = {.prog = "prog", .opts = AT_OPTS, .count = (int)(sizeof AT_OPTS / sizeof AT_OPTS[0])};
    char *argv_a[] = {"prog", "--flag", "--int", "-2", "--colour", "green", "--list", "3,1"};
    spec.base = &a;
    CHECK(args_parse(&spec, 8, argv_a, 1) == ARGS_OK);
    CHECK(a.flag && a.seen_flag && a.i == -2 && a.choice == 1 && strcmp(a.choice_text, "green") == 0);
    CHECK(a.nlist == 2 && a.list[0] == 3 && a.list[1] == 1);
    char *argv_b[] = {"prog", "--int", "4"};
    spec.base = &b;
    CHECK(args_parse(&spec, 3, argv_b, 1) == ARGS_OK);
    CHECK(b.i == 4 && !b.flag && !b.seen_flag && b.choice_text == NULL && b.nlist == 0);
    CHECK(a.i == -2);
}

static void test_usage(void)
{
    vals_t x;
    args_result_t r = run(&x, (const char *[]){"--flag", "--help", NULL});
    CHECK(r == ARGS_HELP);
    /* The usage is built from the table, in its order; --help goes to
     * stdout, so print it again into a buffer. */
    const args_opt_t opts[] = {
        {.name = "--flag", .kind = ARGS_FLAG, .help = "a flag"},
        {.kind = ARGS_TEXT, .help = "\nsection:\n"},
        {.name = "--int", .kind = ARGS_INT, .arg = "N", .help = "a number\nmore"},
        {.name = "--hidden", .kind = ARGS_FLAG},
        {.name = "--colour", .kind = ARGS_CHOICE, .label = "--colour red|green|blue", .help = "a colour"},
    };
    const args_spec_t spec = {.prog = "prog",
                              .label_width = 10,
                              .head = "usage: prog\n",
                              .tail = "end\n",
                              .opts = opts,
                              .count = (int)(sizeof opts / sizeof opts[0])};
    char buf[1024] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    args_usage(&spec, f);
    fclose(f);
    const char *want = "usage: prog\n"
                       "  --flag     a flag\n"
                       "\nsection:\n"
                       "  --int N    a number\n"
                       "             more\n"
                       "  --colour red|green|blue  a colour\n"
                       "end\n";
    CHECKF(strcmp(buf, want) == 0, "usage:\n%s\nwant:\n%s", buf, want);
}

int main(void)
{
    test_values();
    test_errors();
    test_offsets();
    test_usage();
    return check_summary();
}
