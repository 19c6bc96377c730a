#include "testnet.h"

#include "core/file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TESTNET_HEADER = 64, TESTNET_CP = 4 };

void testnet_put_u32(uint8_t *data, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

void testnet_put_f32(uint8_t *data, size_t at, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    testnet_put_u32(data, at, u);
}

void testnet_fix_checksum(uint8_t *data, size_t size)
{
    testnet_put_u32(data, 52, file_checksum32(data + TESTNET_HEADER, size - TESTNET_HEADER));
}

static float rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return (float)(*s >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
}

uint8_t *testnet_make(int n_in, int h0, int h1, int n_out, uint32_t seed, size_t *size)
{
    const size_t per_cp = (size_t)h0 * n_in + h0 + (size_t)h1 * h0 + h1 + (size_t)n_out * h1 + n_out;
    const size_t floats = 2 * (size_t)n_in + 2 * (size_t)n_out + TESTNET_CP * per_cp;
    *size = TESTNET_HEADER + 4 * floats;
    uint8_t *d = calloc(1, *size);
    if (!d)
        return NULL;
    memcpy(d, "SPFN", 4);
    const uint32_t head[] = {
        1, TESTNET_HEADER,        (uint32_t)n_in, (uint32_t)h0, (uint32_t)h1, (uint32_t)n_out, TESTNET_CP, 21, 12, 6,
        0, (uint32_t)(4 * floats)};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        testnet_put_u32(d, 4 + 4 * i, head[i]);
    uint32_t s = seed ? seed : 1;
    size_t at = TESTNET_HEADER;
#define PUT(v)                                                                                                         \
    do {                                                                                                               \
        testnet_put_f32(d, at, (v));                                                                                   \
        at += 4;                                                                                                       \
    } while (0)
    /* Means within +-2 and deviations within 0.5..2.5: inside every
     * group's plausible range (docs/FORMATS_PFNN.md section 8). */
    for (int i = 0; i < n_in; i++)
        PUT(2.0f * rnd(&s));
    for (int i = 0; i < n_in; i++)
        PUT(1.5f + rnd(&s));
    for (int i = 0; i < n_out; i++)
        PUT(2.0f * rnd(&s));
    for (int i = 0; i < n_out; i++)
        PUT(1.5f + rnd(&s));
    const int ins[3] = {n_in, h0, h1}, outs[3] = {h0, h1, n_out};
    for (int k = 0; k < TESTNET_CP; k++) {
        for (int l = 0; l < 3; l++) {
            const float a = sqrtf(6.0f / (float)(ins[l] + outs[l]));
            for (size_t j = 0; j < (size_t)ins[l] * (size_t)outs[l]; j++)
                PUT(a * rnd(&s));
            for (int j = 0; j < outs[l]; j++)
                PUT(0.1f * rnd(&s));
        }
    }
#undef PUT
    testnet_fix_checksum(d, *size);
    return d;
}
