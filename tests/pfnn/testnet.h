/* testnet: builds a valid pfnn.bin image (docs/FORMATS_PFNN.md) with random
 * weights in memory, for tests and the benchmark when no trained file is at
 * hand, plus small helpers to patch an image and capture log lines.
 *
 * Call order: testnet_make() -> pfnn_load_memory() -> free() the bytes.
 * Weights are uniform in +-sqrt(6 / (in + out)) (Glorot), different per
 * control point; normalisation is random, inside the plausible ranges.
 * Deterministic per seed.
 * Does NOT: train anything; its outputs mean nothing as motion.
 */
#ifndef STRIDER_TESTS_PFNN_TESTNET_H
#define STRIDER_TESTS_PFNN_TESTNET_H

#include <stddef.h>
#include <stdint.h>

/* malloc'd file image; *size gets its length. NULL on allocation failure. */
uint8_t *testnet_make(int n_in, int h0, int h1, int n_out, uint32_t seed, size_t *size);
/* Recomputes the header checksum of a pfnn.bin image after a patch. */
void testnet_fix_checksum(uint8_t *data, size_t size);
void testnet_put_u32(uint8_t *data, size_t at, uint32_t v);
void testnet_put_f32(uint8_t *data, size_t at, float v);

#endif
