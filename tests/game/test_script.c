/* Unit tests of game/script: parsing, timing and folding of script lines. */
#include "check.h"
#include "core/log.h"
#include "game/camera.h"
#include "game/intent.h"
#include "game/loop.h"
#include "game/script.h"
#include "game/sim.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265358979f

static void test_script(void)
{
    script_t s;
    const char *ok = "# walk then run\n"
                     "0.0 move 0 1 speed 0.5\n"
                     "1.5 speed 1 crouch 1   # trailing comment\n"
                     "2 pad leftx -0.5 button a 1\n"
                     "3 quit\n";
    CHECK(script_parse(&s, ok, strlen(ok), "ok.script"));
    CHECK(s.count == 7);
    const script_event_t *ev = script_next_due(&s, 0);
    CHECK(ev && ev->cmd == SCRIPT_MOVE && ev->b == 1.0f);
    script_apply(&s, ev);
    ev = script_next_due(&s, 0);
    CHECK(ev && ev->cmd == SCRIPT_SPEED);
    script_apply(&s, ev);
    CHECK(script_next_due(&s, 89) == NULL); /* 1.5 s is step 90 */
    ev = script_next_due(&s, 90);
    CHECK(ev && ev->cmd == SCRIPT_SPEED && ev->step == 90);
    script_apply(&s, ev);
    CHECK(s.held.move_y == 1.0f && s.held.speed == 1.0f);
    ev = script_next_due(&s, 90);
    script_apply(&s, ev);
    CHECK(s.held.crouch);
    ev = script_next_due(&s, 120);
    CHECK(ev && ev->cmd == SCRIPT_PAD_AXIS && ev->index == SCRIPT_PAD_LEFTX && ev->a == -0.5f);
    script_free(&s);

    /* The menu's switches: the caller's to handle, script_apply leaves
     * the held state alone. */
    const char *menu = "0 crowd 40 character 1\n1 crowd 1\n";
    CHECK(script_parse(&s, menu, strlen(menu), "menu.script"));
    CHECK(s.count == 3);
    ev = script_next_due(&s, 0);
    CHECK(ev && ev->cmd == SCRIPT_CROWD && ev->a == 40.0f);
    input_frame_t before = s.held;
    script_apply(&s, ev);
    CHECK(memcmp(&before, &s.held, sizeof before) == 0);
    ev = script_next_due(&s, 0);
    CHECK(ev && ev->cmd == SCRIPT_CHARACTER && ev->a == 1.0f);
    ev = script_next_due(&s, 60);
    CHECK(ev && ev->cmd == SCRIPT_CROWD && ev->a == 1.0f);
    script_free(&s);

    /* Each bad script is rejected (the message names file:line). */
    const char *bad[] = {"0 walk 1\n",     "0 move 0\n",       "1 move 0 1\n0.5 speed 1\n",
                         "0 move 0 nan\n", "0 speed 2\n",      "x move 0 1\n",
                         "0 crouch 0.5\n", "0 pad stick 1\n",  "0\n",
                         "-1 move 0 1\n",  "0 move 0 1e999\n", "0 button z 1\n",
                         "0 crowd 0\n",    "0 crowd 4097\n",   "0 crowd\n"};
    log_level_t saved = log_get_level();
    log_set_level(LOG_QUIET);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool parsed = script_parse(&s, bad[i], strlen(bad[i]), "bad.script");
        CHECK(!parsed);
        if (parsed) {
            fprintf(stderr, "  accepted bad script: %s", bad[i]);
            script_free(&s);
        }
    }
    log_set_level(saved);
}

int main(void)
{
    test_script();
    return check_summary();
}
