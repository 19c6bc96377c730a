/* libFuzzer harness for script_parse: any byte string either parses into
 * events whose steps never decrease and whose values lie in their
 * command's range (every one then fired and folded as the game does), or
 * fails cleanly with nothing held. */
#include "core/log.h"
#include "game/crowd.h"
#include "game/script.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    script_t s;
    log_set_level(LOG_QUIET);
    if (!script_parse(&s, (const char *)data, size, "fuzz.script"))
        return 0;
    if (s.count < 0 || (s.count > 0 && !s.events))
        abort();
    uint64_t last = 0;
    for (int i = 0; i < s.count; i++) {
        const script_event_t *ev = &s.events[i];
        if (ev->step < last || !isfinite(ev->a) || !isfinite(ev->b))
            abort();
        last = ev->step;
        if (ev->cmd == SCRIPT_CROWD && !(ev->a >= 1.0f && ev->a <= (float)CROWD_MAX))
            abort();
        if (ev->cmd == SCRIPT_MOVE && (fabsf(ev->a) > 1.0f || fabsf(ev->b) > 1.0f))
            abort();
    }
    const script_event_t *ev;
    int fired = 0;
    while ((ev = script_next_due(&s, UINT64_MAX)) != NULL) {
        script_apply(&s, ev);
        fired++;
    }
    if (fired != s.count || !script_finished(&s))
        abort();
    script_free(&s);
    return 0;
}
