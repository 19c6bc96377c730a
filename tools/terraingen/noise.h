/* noise: deterministic 2-D gradient noise and its fractal sums (fBm, ridged).
 *
 * Coordinates are in lattice units: one unit is the wavelength of the first
 * octave. Results depend only on (x, z, octaves, seed) - no global state, no
 * random-number generator - so a seed always regenerates the same terrain.
 * Call order: any function, any time.
 * Does NOT: allocate, or know about centimetres (the caller scales).
 */
#ifndef STRIDER_TOOLS_NOISE_H
#define STRIDER_TOOLS_NOISE_H

#include <stdint.h>

enum { NOISE_MAX_OCTAVES = 12 };

/* Gradient (Perlin-style) noise, roughly in [-1, 1], 0 at lattice points. */
float noise_gradient(float x, float z, uint32_t seed);
/* Fractal Brownian motion: octaves of gradient noise, each at double the
 * frequency and half the amplitude, normalised to roughly [-1, 1]. */
float noise_fbm(float x, float z, int octaves, uint32_t seed);
/* Ridged multifractal: sharp crests where the noise crosses zero, in [0, 1]. */
float noise_ridged(float x, float z, int octaves, uint32_t seed);

#endif
