#include "noise.h"

#include <math.h>

/* Amplitude of raw 2-D gradient noise peaks near 0.7; scale it to ~1. */
#define NOISE_GRADIENT_SCALE 1.41421356f
#define NOISE_LACUNARITY 2.0f
#define NOISE_GAIN 0.5f
/* Rotating each octave's lattice hides the axis-aligned grid pattern. */
#define NOISE_OCTAVE_ROTATION_RAD 0.5f

/* Integer hash of a lattice point (lowbias32 mixer): well spread, cheap,
 * and the same on every platform. */
static uint32_t noise_hash(int32_t ix, int32_t iz, uint32_t seed)
{
    uint32_t h = (uint32_t)ix * 0x8da6b343u ^ (uint32_t)iz * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/* Dot product of the corner's pseudo-random unit gradient with the offset. */
static float noise_corner(int32_t ix, int32_t iz, uint32_t seed, float dx, float dz)
{
    /* 16 gradient directions spaced evenly around the circle. */
    static const float dirs[16][2] = {
        {1.0f, 0.0f},  {0.92388f, 0.38268f},   {0.70711f, 0.70711f},   {0.38268f, 0.92388f},
        {0.0f, 1.0f},  {-0.38268f, 0.92388f},  {-0.70711f, 0.70711f},  {-0.92388f, 0.38268f},
        {-1.0f, 0.0f}, {-0.92388f, -0.38268f}, {-0.70711f, -0.70711f}, {-0.38268f, -0.92388f},
        {0.0f, -1.0f}, {0.38268f, -0.92388f},  {0.70711f, -0.70711f},  {0.92388f, -0.38268f}};
    const float *g = dirs[noise_hash(ix, iz, seed) >> 28];
    return g[0] * dx + g[1] * dz;
}

/* Quintic fade: zero first and second derivatives at the lattice, so the
 * surface (and its normals) are smooth across cell borders. */
static float noise_fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }

float noise_gradient(float x, float z, uint32_t seed)
{
    float fx = floorf(x), fz = floorf(z);
    int32_t ix = (int32_t)fx, iz = (int32_t)fz;
    float dx = x - fx, dz = z - fz;
    float n00 = noise_corner(ix, iz, seed, dx, dz);
    float n10 = noise_corner(ix + 1, iz, seed, dx - 1.0f, dz);
    float n01 = noise_corner(ix, iz + 1, seed, dx, dz - 1.0f);
    float n11 = noise_corner(ix + 1, iz + 1, seed, dx - 1.0f, dz - 1.0f);
    float u = noise_fade(dx), v = noise_fade(dz);
    float a = n00 + (n10 - n00) * u;
    float b = n01 + (n11 - n01) * u;
    return (a + (b - a) * v) * NOISE_GRADIENT_SCALE;
}

static int noise_clamp_octaves(int octaves)
{
    if (octaves < 1)
        return 1;
    return octaves > NOISE_MAX_OCTAVES ? NOISE_MAX_OCTAVES : octaves;
}

float noise_fbm(float x, float z, int octaves, uint32_t seed)
{
    octaves = noise_clamp_octaves(octaves);
    const float c = cosf(NOISE_OCTAVE_ROTATION_RAD), s = sinf(NOISE_OCTAVE_ROTATION_RAD);
    float sum = 0.0f, norm = 0.0f, amp = 1.0f;
    for (int k = 0; k < octaves; k++) {
        sum += amp * noise_gradient(x, z, seed + (uint32_t)k * 0x9e3779b9u);
        norm += amp;
        float rx = (c * x - s * z) * NOISE_LACUNARITY;
        float rz = (s * x + c * z) * NOISE_LACUNARITY;
        x = rx;
        z = rz;
        amp *= NOISE_GAIN;
    }
    return sum / norm;
}

float noise_ridged(float x, float z, int octaves, uint32_t seed)
{
    octaves = noise_clamp_octaves(octaves);
    const float c = cosf(NOISE_OCTAVE_ROTATION_RAD), s = sinf(NOISE_OCTAVE_ROTATION_RAD);
    float sum = 0.0f, norm = 0.0f, amp = 1.0f, weight = 1.0f;
    for (int k = 0; k < octaves; k++) {
        float n = noise_gradient(x, z, seed + (uint32_t)k * 0x9e3779b9u);
        float r = 1.0f - fabsf(n);
        if (r < 0.0f)
            r = 0.0f;
        r *= r;
        /* Finer octaves show mostly on the crests, as in Musgrave's ridged
         * multifractal: valleys stay smooth and walkable. */
        sum += amp * r * weight;
        norm += amp;
        weight = r;
        float rx = (c * x - s * z) * NOISE_LACUNARITY;
        float rz = (s * x + c * z) * NOISE_LACUNARITY;
        x = rx;
        z = rz;
        amp *= NOISE_GAIN;
    }
    return sum / norm;
}
