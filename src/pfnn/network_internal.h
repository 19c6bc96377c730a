/* network_internal: what network.c (weight layout, phase modes, running)
 * and network_file.c (reading and checking pfnn.bin) share. Not part of the
 * interface: only src/pfnn/network*.c include it. pfnn_load_checked() reads
 * a file image into a zeroed network and calls pfnn_build_sets(), which lays
 * out the weights; reloading released control points calls it again.
 * Does NOT: own memory of its own, or read files itself.
 */
#ifndef STRIDER_PFNN_NETWORK_INTERNAL_H
#define STRIDER_PFNN_NETWORK_INTERNAL_H

#include "pfnn/network.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline size_t round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }

/* network_file.c: checks the file image DATA (SIZE bytes) field by field and
 * value by value and loads it into NET (zeroed, its name set): dimensions,
 * normalisation, then pfnn_build_sets(). False, with one line naming
 * NET->name and the byte, on the first problem; NET then holds what was
 * built so far, for pfnn_free(). */
bool pfnn_load_checked(pfnn_network_t *net, const uint8_t *data, size_t size, const pfnn_load_desc_t *d);

/* network.c: the weight sets of NET's dimensions from the decoded PAYLOAD:
 * the control points (the cubic mode) always, the modes D asks for. */
bool pfnn_build_sets(pfnn_network_t *net, const float *payload, const pfnn_load_desc_t *d);

#endif
