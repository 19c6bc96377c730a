/* eval_scenarios.c: the built-in motion scenarios. Each names a level, an
 * optional spawn (x, z in cm, heading in degrees; the camera starts behind
 * the character, so "move 0 1" is forward along the heading and "move 1 0"
 * to its right), and a script in the --script format. Positions were chosen
 * from the levels' files and heightmaps (docs/LEVELS.md). */
#include "eval/motion_eval.h"

#include <stddef.h>

#define WALK "0 move 0 1 speed 0\n"
#define HALF "0 move 0 1 speed 0.5\n"
#define RUN "0 move 0 1 speed 1\n"

/* Straight from the spawn on a level at three speeds. */
#define STRAIGHT(lvl)                                                                                                  \
    {lvl "_walk", "straight", lvl, false, 0, 0, 0, WALK, 14.0f, 0, 0, 0},                                              \
        {lvl "_half", "straight", lvl, false, 0, 0, 0, HALF, 14.0f, 0, 0, 0},                                          \
    {                                                                                                                  \
        lvl "_run", "straight", lvl, false, 0, 0, 0, RUN, 14.0f, 0, 0, 0                                               \
    }

/* Flat ground along the open south strip of 'flat' (46 m to the east edge). */
#define FLAT_X -2300.0f
#define FLAT_Z -2100.0f

static const eval_scenario_t SCENARIOS[] = {
    /* Idle on flat ground: also the calibration's stance. */
    {"flat_idle", "straight", "flat", true, FLAT_X, FLAT_Z, 90, "0 move 0 0\n", 6.0f, EVAL_FLAT, 0, 0},
    {"flat_walk", "straight", "flat", true, FLAT_X, FLAT_Z, 90, WALK, 14.0f, EVAL_FLAT | EVAL_SPEED, 5, 13},
    {"flat_half", "straight", "flat", true, FLAT_X, FLAT_Z, 90, HALF, 14.0f, EVAL_FLAT | EVAL_SPEED, 5, 13},
    {"flat_run", "straight", "flat", true, FLAT_X, FLAT_Z, 90, RUN, 14.0f, EVAL_FLAT | EVAL_SPEED, 5, 13},
    STRAIGHT("hills"),
    STRAIGHT("tunnel"),
    STRAIGHT("gaps"),
    STRAIGHT("course"),
    STRAIGHT("steps"),

    {"flat_stop_start", "start-stop", "flat", true, FLAT_X, FLAT_Z, 90,
     "0 move 0 1 speed 0\n2 move 0 0\n3.5 move 0 1 speed 1\n5.5 move 0 0\n7 move 0 1 speed 0.5\n"
     "9 move 0 0\n10 move 0 1 speed 1\n10.6 move 0 0\n12 quit\n",
     12.0f, 0, 0, 0},
    {"hills_stop_start", "start-stop", "hills", false, 0, 0, 0,
     "0 move 0 1 speed 1\n2 move 0 0\n3 move 0 1 speed 0\n5 move 0 0\n6 move 0 1 speed 1\n7 move 0 0\n9 quit\n", 9.0f,
     0, 0, 0},

    {"flat_zigzag_walk", "turns", "flat", true, FLAT_X, FLAT_Z, 90,
     "0 move 0.7 0.7 speed 0\n1 move -0.7 0.7\n2 move 0.7 0.7\n3 move -0.7 0.7\n4 move 0.7 0.7\n"
     "5 move -0.7 0.7\n6 move 0.7 0.7\n7 move -0.7 0.7\n8 move 0.7 0.7\n9 move -0.7 0.7\n10 quit\n",
     10.0f, 0, 0, 0},
    {"flat_zigzag_run", "turns", "flat", true, FLAT_X, FLAT_Z, 90,
     "0 move 0.7 0.7 speed 1\n0.8 move -0.7 0.7\n1.6 move 0.7 0.7\n2.4 move -0.7 0.7\n3.2 move 0.7 0.7\n"
     "4 move -0.7 0.7\n4.8 move 0.7 0.7\n5.6 move -0.7 0.7\n6.4 move 0.7 0.7\n7.2 move -0.7 0.7\n8 quit\n",
     8.0f, 0, 0, 0},
    {"flat_reverse_walk", "turns", "flat", true, -1000, FLAT_Z, 90,
     "0 move 0 1 speed 0\n2 move 0 -1\n4 move 0 1\n6 move 0 -1\n8 move 0 1\n10 quit\n", 10.0f, 0, 0, 0},
    {"flat_reverse_run", "turns", "flat", true, -1000, FLAT_Z, 90,
     "0 move 0 1 speed 1\n2 move 0 -1\n4 move 0 1\n6 move 0 -1\n8 move 0 1\n10 quit\n", 10.0f, 0, 0, 0},
    {"flat_circle_run", "turns", "flat", true, FLAT_X + 400, FLAT_Z, 90, "0 move 0 1 speed 1 orbit 90 0\n", 10.0f, 0, 0,
     0},
    {"flat_strafe", "turns", "flat", true, -1000, FLAT_Z, 90,
     "0 strafe 1 move 1 0 speed 0\n2 move -1 0\n4 move 0 -1\n6 move 1 1\n8 quit\n", 8.0f, 0, 0, 0},
    {"hills_zigzag_walk", "slopes", "hills", false, 0, 0, 0,
     "0 move 0.7 0.7 speed 0\n1 move -0.7 0.7\n2 move 0.7 0.7\n3 move -0.7 0.7\n4 move 0.7 0.7\n"
     "5 move -0.7 0.7\n6 move 0.7 0.7\n7 move -0.7 0.7\n8 quit\n",
     8.0f, 0, 0, 0},
    {"hills_circle_walk", "slopes", "hills", true, 600, -600, 0, "0 move 0 1 speed 0 orbit 60 0\n", 12.0f, 0, 0, 0},
    {"hills_circle_run", "slopes", "hills", true, 500, -600, 0, "0 move 0 1 speed 1 orbit 90 0\n", 10.0f, 0, 0, 0},
    {"hills_downhill_run", "slopes", "hills", true, 200, -1770, 100, RUN, 6.0f, 0, 0, 0},
    {"hills_uphill_walk", "slopes", "hills", true, -300, -1800, -90, WALK, 10.0f, 0, 0, 0},

    {"flat_jump_stand", "jumps", "flat", true, FLAT_X, FLAT_Z, 90, "1 jump 1\n1.1 jump 0\n4 jump 1\n4.1 jump 0\n", 7.0f,
     0, 0, 0},
    {"flat_jump_walk", "jumps", "flat", true, FLAT_X, FLAT_Z, 90,
     "0 move 0 1 speed 0\n2 jump 1\n2.1 jump 0\n4.5 jump 1\n4.6 jump 0\n7 quit\n", 7.0f, 0, 0, 0},
    {"flat_jump_run", "jumps", "flat", true, FLAT_X, FLAT_Z, 90,
     "0 move 0 1 speed 1\n2 jump 1\n2.1 jump 0\n4 jump 1\n4.1 jump 0\n6 jump 1\n6.5 jump 0\n8 quit\n", 8.0f, 0, 0, 0},
    /* Jump while walking down the side of a hill: the ground falls away. */
    {"hills_jump_downhill", "jumps", "hills", true, 200, -1770, 100.27f,
     "0 move 0 1 speed 0.6\n1 jump 1\n1.1 jump 0\n6 quit\n", 6.0f, 0, 0, 0},
    {"hills_jump_downhill_run", "jumps", "hills", true, 200, -1770, 100.27f,
     "0 move 0 1 speed 1\n1 jump 1\n1.1 jump 0\n2.5 jump 1\n2.6 jump 0\n5 quit\n", 5.0f, 0, 0, 0},
    {"hills_jump_uphill", "jumps", "hills", true, -300, -1800, -90,
     "0 move 0 1 speed 0.5\n1.5 jump 1\n1.6 jump 0\n3.5 jump 1\n3.6 jump 0\n6 quit\n", 6.0f, 0, 0, 0},
    /* Over the crest near (-1150, -1800). */
    {"hills_jump_crest", "jumps", "hills", true, -1900, -1800, 90,
     "0 move 0 1 speed 1\n2.6 jump 1\n2.7 jump 0\n5 quit\n", 5.0f, 0, 0, 0},
    {"hills_jump_stand_slope", "jumps", "hills", true, 700, -1800, 90, "1 jump 1\n1.1 jump 0\n4 quit\n", 4.0f, 0, 0, 0},
    /* The trenches of 'gaps' away from their jump areas (x = 200): the
     * button at the first trench's edge, and walking into it without one. */
    {"gaps_trench_button_run", "jumps", "gaps", true, 200, -1700, 0,
     "0 move 0 1 speed 1\n1.4 jump 1\n1.5 jump 0\n5 quit\n", 5.0f, 0, 0, 0},
    {"gaps_trench_button_walk", "jumps", "gaps", true, 200, -1500, 0,
     "0 move 0 1 speed 0\n2.6 jump 1\n2.7 jump 0\n7 quit\n", 7.0f, 0, 0, 0},
    {"gaps_trench_walk_in", "jumps", "gaps", true, 200, -1500, 0, WALK, 8.0f, 0, 0, 0},
    {"gaps_trench2_button_run", "jumps", "gaps", true, -200, 200, 0,
     "0 move 0 1 speed 1\n1.3 jump 1\n1.4 jump 0\n5 quit\n", 5.0f, 0, 0, 0},
    {"gaps_jump_in_trench_stop", "jumps", "gaps", true, 0, -1700, 0, "0 move 0 1 speed 1\n1.4 move 0 0\n5 quit\n", 5.0f,
     0, 0, 0},
    /* The two obstacles of 'gaps' (35 cm at z -310..-250, 45 cm at z
     * 1550..1610) run into away from their jump areas (x = 200), without a
     * jump. */
    {"gaps_box35_run", "jumps", "gaps", true, 200, -800, 0, RUN, 4.0f, 0, 0, 0},
    {"gaps_box45_run", "jumps", "gaps", true, 200, 1050, 0, RUN, 4.0f, 0, 0, 0},
    {"gaps_box45_walk", "jumps", "gaps", true, 200, 1250, 0, WALK, 6.0f, 0, 0, 0},

    {"tunnel_crouch_held", "crouch", "tunnel", false, 0, 0, 0, "0 move 0 1 speed 0 crouch 1\n", 30.0f, EVAL_CROUCH, 0,
     0},
    {"tunnel_crouch_released_inside", "crouch", "tunnel", false, 0, 0, 0,
     "0 move 0 1 speed 0 crouch 1\n16 crouch 0\n20 move 0 0\n22 move 0 1\n26 quit\n", 26.0f, EVAL_CROUCH, 0, 0},
    {"tunnel_crouch_toggled_mouth", "crouch", "tunnel", false, 0, 0, 0,
     "0 move 0 1 speed 0\n8 crouch 1\n8.5 crouch 0\n9 crouch 1\n9.5 crouch 0\n10 crouch 1\n10.5 crouch 0\n"
     "11 crouch 1\n11.5 crouch 0\n12 move 0 0\n13 move 0 1\n16 quit\n",
     16.0f, EVAL_CROUCH, 0, 0},
    {"tunnel_run_in", "crouch", "tunnel", false, 0, 0, 0, RUN, 14.0f, EVAL_CROUCH, 0, 0},
    {"tunnel_stop_at_mouth", "crouch", "tunnel", true, 0, -1500, 0,
     "0 move 0 1 speed 0\n2.4 move 0 0\n4 move 0 -1\n5 move 0 1 speed 1\n6 move 0 0\n8 quit\n", 8.0f, 0, 0, 0},
    /* The gap between the two tunnel sections: stand up, then go on. */
    {"tunnel_between", "crouch", "tunnel", true, 0, -300, 0,
     "0 move 0 1 speed 0\n3 move 0 0\n5 move 0 1\n8 move 0 -1 speed 1\n10 quit\n", 10.0f, EVAL_CROUCH, 0, 0},
    {"course_tunnel_walk", "crouch", "course", true, -1500, -900, 0, WALK, 22.0f, EVAL_CROUCH, 0, 0},

    /* The courtyard's south wall (z = -1500, x 150..1500) at 90, 60, 30 and
     * 10 degrees, then pushing along it. */
    {"flat_wall_90_run", "walls", "flat", true, 800, -2000, 0, RUN, 6.0f, 0, 0, 0},
    {"flat_wall_60_run", "walls", "flat", true, 500, -2000, 30, RUN, 6.0f, 0, 0, 0},
    {"flat_wall_30_run", "walls", "flat", true, 300, -1800, 60, RUN, 6.0f, 0, 0, 0},
    {"flat_wall_10_walk", "walls", "flat", true, 300, -1620, 80, WALK, 10.0f, 0, 0, 0},
    {"flat_wall_slide_strafe", "walls", "flat", true, 800, -1700, 0,
     "0 move 0 1 speed 0\n2 move 1 0.3\n5 move -1 0.3 speed 1\n8 quit\n", 8.0f, 0, 0, 0},
    {"flat_pillar_run", "walls", "flat", true, -590, -1800, 0, RUN, 4.0f, 0, 0, 0},
    {"hills_fence_run", "walls", "hills", true, -1000, -400, 150, RUN, 5.0f, 0, 0, 0},

    /* Level edges, square on and at angles. */
    {"flat_edge_run", "edges", "flat", true, 0, -2300, 180, RUN, 6.0f, 0, 0, 0},
    {"flat_edge_45_run", "edges", "flat", true, 0, -2300, 135, RUN, 8.0f, 0, 0, 0},
    {"flat_edge_walk", "edges", "flat", true, -2300, 0, -90, WALK, 8.0f, 0, 0, 0},
    {"hills_edge_run", "edges", "hills", true, -2300, 0, -90, RUN, 6.0f, 0, 0, 0},
    {"steps_edge_run", "edges", "steps", false, 0, 0, 0, "0 move 0 -1 speed 1\n8 quit\n", 8.0f, 0, 0, 0},
    {"flat_corner_run", "edges", "flat", true, -2300, -2300, -135, RUN, 6.0f, 0, 0, 0},

    {"soak_flat", "soak", "flat", false, 0, 0, 0, NULL, 0.0f, EVAL_SOAK, 0, 0},
    {"soak_hills", "soak", "hills", false, 0, 0, 0, NULL, 0.0f, EVAL_SOAK, 0, 0},
    {"soak_tunnel", "soak", "tunnel", false, 0, 0, 0, NULL, 0.0f, EVAL_SOAK, 0, 0},
    {"soak_gaps", "soak", "gaps", false, 0, 0, 0, NULL, 0.0f, EVAL_SOAK, 0, 0},
    {"soak_course", "soak", "course", false, 0, 0, 0, NULL, 0.0f, EVAL_SOAK, 0, 0},
    {"soak_steps", "soak", "steps", false, 0, 0, 0, NULL, 0.0f, EVAL_SOAK, 0, 0},

    /* Crowds of wanderers (game/crowd, seeded by --seed): every member
     * against the goals, and no two capsules overlapping. */
    {"crowd20_hills", "crowd", "hills", false, 0, 0, 0, NULL, 30.0f, EVAL_CROWD20, 0, 0},
    {"crowd20_gaps", "crowd", "gaps", false, 0, 0, 0, NULL, 30.0f, EVAL_CROWD20, 0, 0},
    {"crowd20_course", "crowd", "course", false, 0, 0, 0, NULL, 30.0f, EVAL_CROWD20, 0, 0},
    {"crowd100_hills", "crowd", "hills", false, 0, 0, 0, NULL, 15.0f, EVAL_CROWD100, 0, 0},
    {"crowd100_gaps", "crowd", "gaps", false, 0, 0, 0, NULL, 15.0f, EVAL_CROWD100, 0, 0},
    {"crowd100_course", "crowd", "course", false, 0, 0, 0, NULL, 15.0f, EVAL_CROWD100, 0, 0},
};

const eval_scenario_t *eval_scenarios(int *count)
{
    *count = (int)(sizeof SCENARIOS / sizeof SCENARIOS[0]);
    return SCENARIOS;
}
