#include "game/script.h"

#include "game/crowd.h"
#include "game/loop.h"
#include "core/file.h"
#include "core/log.h"
#include "core/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SCRIPT_MAX_BYTES = 4 << 20, SCRIPT_MAX_EVENTS = 1 << 16, SCRIPT_TOKEN_MAX = 64 };
/* Scripts longer than a day of simulated time are surely a typo. */
#define SCRIPT_MAX_TIME_S 86400.0

typedef struct cursor_t {
    const char *p, *end;
} cursor_t;

static bool next_token(cursor_t *c, char *out, size_t out_size)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
        c->p++;
    if (c->p >= c->end || *c->p == '#')
        return false;
    size_t n = 0;
    while (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '\r' && *c->p != '#') {
        if (n + 1 < out_size)
            out[n++] = *c->p;
        else
            n = out_size; /* mark as too long */
        c->p++;
    }
    if (n >= out_size) {
        out[0] = 0;
        return true; /* an empty token is rejected by every caller */
    }
    out[n] = 0;
    return true;
}

static bool parse_number(const char *tok, float lo, float hi, float *out)
{
    if (!tok[0])
        return false;
    char *end = NULL;
    double v = strtod(tok, &end);
    if (end == tok || *end != 0 || !isfinite(v) || v < lo || v > hi)
        return false;
    *out = (float)v;
    return true;
}

static int lookup(const char *tok, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(tok, names[i]) == 0)
            return i;
    return -1;
}

static const char *const k_axis_names[] = {"leftx", "lefty", "rightx", "righty", "lefttrigger", "righttrigger"};
static const int k_axis_ids[] = {SCRIPT_PAD_LEFTX,  SCRIPT_PAD_LEFTY,       SCRIPT_PAD_RIGHTX,
                                 SCRIPT_PAD_RIGHTY, SCRIPT_PAD_TRIGGERLEFT, SCRIPT_PAD_TRIGGERRIGHT};
static const char *const k_button_names[] = {"a", "b", "x", "y", "back", "start", "leftshoulder", "rightshoulder"};
static const int k_button_ids[] = {SCRIPT_PAD_A,
                                   SCRIPT_PAD_B,
                                   SCRIPT_PAD_X,
                                   SCRIPT_PAD_Y,
                                   SCRIPT_PAD_BACK,
                                   SCRIPT_PAD_START,
                                   SCRIPT_PAD_LEFTSHOULDER,
                                   SCRIPT_PAD_RIGHTSHOULDER};

/* Parses one command and its arguments at the cursor into ev. */
static bool parse_command(cursor_t *c, const char *cmd, script_event_t *ev, const char *source, int line)
{
    char tok[SCRIPT_TOKEN_MAX];
    int nargs = 0;
    float args[2] = {0, 0};
    float lo = -1.0f, hi = 1.0f;

    if (strcmp(cmd, "move") == 0) {
        ev->cmd = SCRIPT_MOVE;
        nargs = 2;
    } else if (strcmp(cmd, "speed") == 0) {
        ev->cmd = SCRIPT_SPEED;
        nargs = 1;
        lo = 0.0f;
    } else if (strcmp(cmd, "strafe") == 0 || strcmp(cmd, "crouch") == 0 || strcmp(cmd, "jump") == 0) {
        ev->cmd = cmd[0] == 's' ? SCRIPT_STRAFE : (cmd[0] == 'c' ? SCRIPT_CROUCH : SCRIPT_JUMP);
        nargs = 1;
        lo = 0.0f;
    } else if (strcmp(cmd, "orbit") == 0) {
        ev->cmd = SCRIPT_ORBIT;
        nargs = 2;
        lo = -3600.0f;
        hi = 3600.0f;
    } else if (strcmp(cmd, "zoom") == 0) {
        ev->cmd = SCRIPT_ZOOM;
        nargs = 1;
        lo = -10.0f;
        hi = 10.0f;
    } else if (strcmp(cmd, "pad") == 0 || strcmp(cmd, "button") == 0) {
        bool axis = cmd[0] == 'p';
        ev->cmd = axis ? SCRIPT_PAD_AXIS : SCRIPT_PAD_BUTTON;
        if (!next_token(c, tok, sizeof tok)) {
            log_error("%s:%d: '%s' needs a name", source, line, cmd);
            return false;
        }
        int k = axis ? lookup(tok, k_axis_names, 6) : lookup(tok, k_button_names, 8);
        if (k < 0) {
            log_error("%s:%d: unknown gamepad %s '%s'", source, line, axis ? "axis" : "button", tok);
            return false;
        }
        ev->index = axis ? k_axis_ids[k] : k_button_ids[k];
        nargs = 1;
        lo = axis ? -1.0f : 0.0f;
    } else if (strcmp(cmd, "screenshot") == 0) {
        ev->cmd = SCRIPT_SCREENSHOT;
    } else if (strcmp(cmd, "character") == 0) {
        ev->cmd = SCRIPT_CHARACTER;
        nargs = 1;
        lo = 0.0f;
        hi = 15.0f;
    } else if (strcmp(cmd, "crowd") == 0) {
        ev->cmd = SCRIPT_CROWD;
        nargs = 1;
        lo = 1.0f;
        hi = (float)CROWD_MAX;
    } else if (strcmp(cmd, "quit") == 0) {
        ev->cmd = SCRIPT_QUIT;
    } else {
        log_error("%s:%d: unknown command '%s'", source, line, cmd);
        return false;
    }
    for (int i = 0; i < nargs; i++) {
        if (!next_token(c, tok, sizeof tok) || !parse_number(tok, lo, hi, &args[i])) {
            log_error("%s:%d: '%s' needs %d number%s in [%g, %g]", source, line, cmd, nargs, nargs > 1 ? "s" : "",
                      (double)lo, (double)hi);
            return false;
        }
    }
    bool is_flag = ev->cmd == SCRIPT_STRAFE || ev->cmd == SCRIPT_CROUCH || ev->cmd == SCRIPT_JUMP ||
                   ev->cmd == SCRIPT_PAD_BUTTON;
    if (is_flag && args[0] != 0.0f && args[0] != 1.0f) {
        log_error("%s:%d: '%s' takes 0 or 1", source, line, cmd);
        return false;
    }
    ev->a = args[0];
    ev->b = args[1];
    return true;
}

bool script_parse(script_t *s, const char *text, size_t len, const char *source)
{
    memset(s, 0, sizeof *s);
    if (!text_check_no_nul(text, len, source))
        return false;
    /* Upper bound: every command needs at least two bytes. */
    size_t cap = len / 2 + 1;
    if (cap > SCRIPT_MAX_EVENTS)
        cap = SCRIPT_MAX_EVENTS;
    s->events = calloc(cap, sizeof *s->events);
    if (!s->events) {
        log_error("%s: out of memory", source);
        return false;
    }
    const char *p = text, *end = text + len;
    int line = 0;
    double last_time = 0.0;
    while (p < end) {
        line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        cursor_t c = {p, eol};
        char tok[SCRIPT_TOKEN_MAX];
        if (next_token(&c, tok, sizeof tok)) {
            float t;
            if (!parse_number(tok, 0.0f, (float)SCRIPT_MAX_TIME_S, &t)) {
                log_error("%s:%d: expected a time in seconds, got '%s'", source, line, tok);
                goto fail;
            }
            if (t < last_time) {
                log_error("%s:%d: time %g is before the previous %g", source, line, (double)t, last_time);
                goto fail;
            }
            last_time = t;
            int on_line = 0;
            while (next_token(&c, tok, sizeof tok)) {
                if ((size_t)s->count == cap) {
                    log_error("%s:%d: more than %zu events", source, line, cap);
                    goto fail;
                }
                script_event_t *ev = &s->events[s->count];
                memset(ev, 0, sizeof *ev);
                ev->step = (uint64_t)llround((double)t * LOOP_STEP_HZ);
                if (!parse_command(&c, tok, ev, source, line))
                    goto fail;
                s->count++;
                on_line++;
            }
            if (on_line == 0) {
                log_error("%s:%d: a time with no command", source, line);
                goto fail;
            }
        }
        p = eol + 1;
    }
    return true;
fail:
    script_free(s);
    return false;
}

bool script_load(script_t *s, const char *path)
{
    uint8_t *data;
    size_t size;
    memset(s, 0, sizeof *s);
    if (!file_read_all(path, SCRIPT_MAX_BYTES, &data, &size))
        return false;
    bool ok = script_parse(s, (const char *)data, size, path);
    file_free(data);
    return ok;
}

void script_free(script_t *s)
{
    free(s->events);
    memset(s, 0, sizeof *s);
}

const script_event_t *script_next_due(script_t *s, uint64_t step)
{
    if (s->next < s->count && s->events[s->next].step <= step)
        return &s->events[s->next++];
    return NULL;
}

void script_apply(script_t *s, const script_event_t *ev)
{
    input_frame_t *h = &s->held;
    /* Script rates are in degrees for readability; the frame is in radians. */
    const float deg = 3.14159265358979f / 180.0f;
    switch (ev->cmd) {
    case SCRIPT_MOVE:
        h->move_x = ev->a;
        h->move_y = ev->b;
        break;
    case SCRIPT_SPEED: h->speed = ev->a; break;
    case SCRIPT_STRAFE: h->strafe = ev->a != 0.0f; break;
    case SCRIPT_CROUCH: h->crouch = ev->a != 0.0f; break;
    case SCRIPT_JUMP: h->jump = ev->a != 0.0f; break;
    case SCRIPT_ORBIT:
        h->orbit_yaw_rate = ev->a * deg;
        h->orbit_pitch_rate = ev->b * deg;
        break;
    case SCRIPT_ZOOM: h->zoom_rate = ev->a; break;
    case SCRIPT_PAD_AXIS:
    case SCRIPT_PAD_BUTTON:
    case SCRIPT_SCREENSHOT:
    case SCRIPT_CHARACTER:
    case SCRIPT_CROWD:
    case SCRIPT_QUIT: break;
    }
}

bool script_finished(const script_t *s) { return s->next >= s->count; }

bool script_has_quit(const script_t *s)
{
    for (size_t i = 0; i < (size_t)s->count; i++)
        if (s->events[i].cmd == SCRIPT_QUIT)
            return true;
    return false;
}
