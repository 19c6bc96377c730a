/* libFuzzer harness for the PFNN loaders: any byte string must either load
 * into a network that runs one forward pass in every prepared mode, or fail
 * cleanly. Each input is tried as is, and again with its header checksum
 * recomputed so that mutations get past the hash into the dims/value checks.
 * Any dims are accepted (not only the shipped 282/284) to keep inputs small. */
#include "core/file.h"
#include "core/log.h"
#include "pfnn/network.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void try_load(const uint8_t *data, size_t size)
{
    pfnn_network_t net;
    pfnn_load_desc_t desc = {.fp16 = (size & 1) != 0, .any_dims = true};
    if (!pfnn_load_memory(&net, "fuzz.bin", data, size, &desc))
        return;
    if (net.n_in < 1 || net.n_out < 1 || !net.sets)
        abort();
    pfnn_workspace_t ws;
    float *x = calloc((size_t)net.n_in, sizeof(float));
    float *y = calloc((size_t)net.n_out, sizeof(float));
    if (x && y && pfnn_workspace_init(&ws, &net)) {
        for (int m = 0; m < PFNN_PHASE_MODE_COUNT; m++) {
            pfnn_job_t job = {&net, &ws, (pfnn_mode_t)m, net.has_f16 ? PFNN_F16 : PFNN_F32, PFNN_ISA_AUTO, 1.0f, x, y};
            if (!pfnn_run(&job))
                abort();
            (void)pfnn_output_is_finite(y, net.n_out);
        }
        pfnn_workspace_free(&ws);
    }
    free(x);
    free(y);
    pfnn_free(&net);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    log_set_level(LOG_QUIET);
    try_load(data, size);
    pfnn_ref_t ref;
    if (pfnn_ref_load_memory(&ref, "fuzz_ref.bin", data, size))
        pfnn_ref_free(&ref);
    if (size >= 64) {
        uint8_t *copy = malloc(size);
        if (!copy)
            return 0;
        memcpy(copy, data, size);
        uint32_t sum = file_checksum32(copy + 64, size - 64);
        for (int i = 0; i < 4; i++)
            copy[52 + i] = (uint8_t)(sum >> (8 * i));
        try_load(copy, size);
        free(copy);
    }
    return 0;
}
