/* network_internal: what network.c (weight layout, phase modes, running)
 * and network_file.c (reading and checking pfnn.bin) share. Not part of the
 * interface: only the .c files of src/pfnn include it. pfnn_load_checked() reads
 * a file image into a zeroed network and calls pfnn_build_sets(), which lays
 * out the weights; reloading released control points calls it again.
 * pfnn_phase_terms() and pfnn_isa_resolve() serve batch.c too.
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

/* network.c: the weight sets one forward pass of MODE at PHASE sums, in
 * the order it sums them, and their coefficients (indices into net->sets;
 * some coefficients may be 0, which the pass skips). Returns the count
 * (1, 2 or PFNN_CONTROL_POINTS). pfnn_run() and pfnn_batch_run() share it. */
int pfnn_phase_terms(const pfnn_network_t *net, pfnn_mode_t mode, float phase, int sets[PFNN_CONTROL_POINTS],
                     float c[PFNN_CONTROL_POINTS]);
/* ISA, or for PFNN_ISA_AUTO the widest this CPU runs with DTYPE weights. */
pfnn_isa_t pfnn_isa_resolve(pfnn_isa_t isa, pfnn_dtype_t dtype);

#endif
