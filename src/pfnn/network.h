/* network (pfnn_): the phase-functioned neural network runtime. Loads and
 * validates pfnn.bin (docs/FORMATS_PFNN.md) and runs y = f(x, phase) as a job.
 * Call order: pfnn_load[_ex|_memory]() -> pfnn_workspace_init() -> per step:
 * fill a pfnn_job_t, pfnn_run(), pfnn_output_is_finite(y) (reset on false)
 * -> pfnn_workspace_free() -> pfnn_free(). pfnn_ref_load() reads pfnn_ref.bin.
 * Between steps, pfnn_prepare_mode() builds a phase mode not made at load
 * (the game loads cubic only and builds the others when the menu picks
 * them) and pfnn_release_mode() gives a mode's memory back; a network
 * loaded from a file may release even the control points (the game does
 * while a slice mode runs), which a later prepare reads from the file again.
 * Phase modes, chosen per job: CONSTANT = nearest of 50 precomputed slices;
 * LINEAR = 10 slices, the two neighbours' layer outputs (pre-ELU) blended,
 * which equals blending their weights but reads the same bytes and writes
 * no blended matrix; CUBIC = exact sum_k c_k (W_k x + b_k) over the 4 control
 * points (zero c_k skipped). Weights live in 32-row panels so each gemv
 * streams memory linearly; scalar, SSE2, AVX2+FMA (+F16C for fp16) kernels.
 * Memory: allocated at load, workspace init and pfnn_prepare_mode(), owned
 * by the structs (pfnn_mode_bytes() reports it); the caller owns x and y.
 * pfnn_run() never allocates. Does NOT: build or interpret x/y (the controller does), thread.
 */
#ifndef STRIDER_PFNN_NETWORK_H
#define STRIDER_PFNN_NETWORK_H

#include "core/paths.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The shipped layout (docs/FORMATS_PFNN.md sections 2-4); the index
 * meanings the controller relies on only hold for these dims. */
enum {
    PFNN_N_IN = 282,
    PFNN_N_OUT = 284,
    PFNN_N_JOINTS = 21,
    PFNN_N_TRAJ = 12,
    PFNN_N_GAITS = 6,
    PFNN_CONTROL_POINTS = 4,
    PFNN_MAX_DIM = 8192,
    PFNN_CONSTANT_SLICES = 50,
    PFNN_LINEAR_SLICES = 10,
    /* Output rows per weight panel (4 AVX or 8 SSE accumulators). */
    PFNN_PANEL_ROWS = 32,
    PFNN_LAYERS = 3
};

/* Implementation cap on pfnn.bin (the shipped 512-wide file is 8.5 MiB). */
#define PFNN_MAX_FILE_BYTES ((size_t)256 << 20)

typedef enum pfnn_mode_t {
    PFNN_PHASE_CONSTANT = 0,
    PFNN_PHASE_LINEAR,
    PFNN_PHASE_CUBIC,
    PFNN_PHASE_MODE_COUNT
} pfnn_mode_t;

typedef enum pfnn_dtype_t {
    PFNN_F32 = 0,
    PFNN_F16, /* weights only; needs pfnn_load_desc.fp16 */
    PFNN_DTYPE_COUNT
} pfnn_dtype_t;

typedef enum pfnn_isa_t {
    PFNN_ISA_AUTO = 0, /* the widest this CPU runs */
    PFNN_ISA_SCALAR,
    PFNN_ISA_SSE2,
    PFNN_ISA_AVX2 /* AVX2 + FMA (+ F16C for fp16 weights) */
} pfnn_isa_t;

/* One set of weights for the 3 layers in panel layout. Layer L maps
 * in[L] -> out[L]; its matrix holds out_pad[L] / PFNN_PANEL_ROWS panels, each
 * in[L] x PFNN_PANEL_ROWS values: element (o, i) of the doc's row-major W is
 * at [(o / 32) * in * 32 + i * 32 + o % 32]. Padding rows are 0. */
typedef struct pfnn_weights_t {
    const float *w32[PFNN_LAYERS];    /* NULL when only fp16 was kept */
    const uint16_t *w16[PFNN_LAYERS]; /* IEEE binary16, or NULL */
    const float *b[PFNN_LAYERS];      /* out_pad[L] each */
} pfnn_weights_t;

typedef struct pfnn_network_t {
    /* Header fields. */
    int n_in, h0, h1, n_out;
    int n_joints, n_traj, n_gaits;
    int in[PFNN_LAYERS], out[PFNN_LAYERS], out_pad[PFNN_LAYERS];
    /* Normalisation (n_in / n_out floats). */
    float *x_mean, *x_std, *y_mean, *y_std;
    /* [0..3] control points (CUBIC), then CONSTANT slices, then LINEAR
     * slices; a mode's sets point into its blocks once it is built. */
    pfnn_weights_t *sets;
    int set_count;
    int const_base, lin_base; /* first CONSTANT / LINEAR slice in sets */
    bool has_mode[PFNN_PHASE_MODE_COUNT];
    bool has_f16; /* every built mode also holds fp16 weights */
    size_t mode_bytes[PFNN_PHASE_MODE_COUNT][PFNN_DTYPE_COUNT];
    /* Per mode: the aligned blocks its sets point into (freed by
     * pfnn_release_mode / pfnn_free). */
    void *block32[PFNN_PHASE_MODE_COUNT], *block16[PFNN_PHASE_MODE_COUNT];
    void *block_b[PFNN_PHASE_MODE_COUNT];
    char name[PATHS_MAX]; /* file name (whole), for messages */
    char *path;           /* the file loaded (pfnn_load_ex), to read released control points again; NULL from memory */
    uint32_t checksum;    /* the payload's, from the header */
} pfnn_network_t;

typedef struct pfnn_load_desc_t {
    unsigned modes; /* bit (1 << pfnn_mode_t) per mode to prepare; 0: all three
                       (CUBIC, the control points, is always built) */
    bool fp16;      /* also keep fp16 copies of the weights of those modes */
    bool any_dims;  /* accept dims other than the shipped 282/284/21/12/6 (tests, fuzzing) */
} pfnn_load_desc_t;

/* Scratch for one forward pass at a time; sized from the network. */
typedef struct pfnn_workspace_t {
    float *xn;   /* n_in */
    float *h[2]; /* out_pad[0], out_pad[1] */
    float *yn;   /* out_pad[2] */
    void *block;
} pfnn_workspace_t;

typedef struct pfnn_job_t {
    const pfnn_network_t *net;
    pfnn_workspace_t *ws;
    pfnn_mode_t mode;
    pfnn_dtype_t dtype;
    pfnn_isa_t isa;
    float phase;    /* radians, any real value */
    const float *x; /* raw input, n_in */
    float *y;       /* raw output, n_out (caller-owned) */
} pfnn_job_t;

/* Reads PATH and loads it with all modes in fp32, checking the shipped dims.
 * false + one logged line naming the file and the problem otherwise. */
bool pfnn_load(pfnn_network_t *net, const char *path);
bool pfnn_load_ex(pfnn_network_t *net, const char *path, const pfnn_load_desc_t *desc);
/* Same from bytes in memory; NAME is used in messages. DESC may be NULL. */
bool pfnn_load_memory(pfnn_network_t *net, const char *name, const uint8_t *data, size_t size,
                      const pfnn_load_desc_t *desc);
void pfnn_free(pfnn_network_t *net);

/* Builds MODE's slices if it was not prepared (a no-op when it was): 106 MB
 * and about a tenth of a second for CONSTANT's 50 fp32 slices of the shipped
 * network, 21 MB for LINEAR's 10, plus fp16 copies when the load kept fp16.
 * Released control points (CUBIC, and the source of every slice) are read
 * from the file again first, with a load's checks; it must still hold the
 * network loaded. false + one logged line when memory runs out (or a slice
 * exceeds fp16), or the file is gone, unreadable or another network. */
bool pfnn_prepare_mode(pfnn_network_t *net, pfnn_mode_t mode);
/* Frees MODE's weights: CONSTANT's or LINEAR's slices, or CUBIC's control
 * points when the network was loaded from a file (pfnn_load_ex; from
 * memory they stay). No job may use MODE afterwards until it is prepared
 * again. */
void pfnn_release_mode(pfnn_network_t *net, pfnn_mode_t mode);

/* Bytes of weights + biases held for MODE in DTYPE (0 when not prepared). */
size_t pfnn_mode_bytes(const pfnn_network_t *net, pfnn_mode_t mode, pfnn_dtype_t dtype);
/* Weight + bias bytes one forward pass reads in MODE (at a generic phase). */
size_t pfnn_bytes_per_inference(const pfnn_network_t *net, pfnn_mode_t mode, pfnn_dtype_t dtype);
bool pfnn_has_mode(const pfnn_network_t *net, pfnn_mode_t mode, pfnn_dtype_t dtype);

bool pfnn_workspace_init(pfnn_workspace_t *ws, const pfnn_network_t *net);
void pfnn_workspace_free(pfnn_workspace_t *ws);

/* O(1) checks of pointers, mode, dtype and ISA; one logged line on failure. */
bool pfnn_validate(const pfnn_job_t *job);
/* Validates, then computes y. A non-finite x gives a non-finite y (it is
 * propagated, never hidden): check with pfnn_output_is_finite(). */
bool pfnn_run(const pfnn_job_t *job);
/* Same without pfnn_validate() (for callers that validated once). */
void pfnn_run_unchecked(const pfnn_job_t *job);

/* true when all N values are finite; the controller resets on false. */
bool pfnn_output_is_finite(const float *y, int n);

/* Catmull-Rom control-point weights for PHASE (doc section 1, step 2). */
void pfnn_phase_coeffs(float phase, float coeffs[PFNN_CONTROL_POINTS]);

pfnn_isa_t pfnn_isa_best(void);
bool pfnn_isa_supported(pfnn_isa_t isa, pfnn_dtype_t dtype);
const char *pfnn_isa_name(pfnn_isa_t isa);
const char *pfnn_mode_name(pfnn_mode_t mode);
const char *pfnn_dtype_name(pfnn_dtype_t dtype);

/* pfnn_ref.bin: COUNT records of phase, x[n_in], y[n_out]. */
typedef struct pfnn_ref_t {
    int count, n_in, n_out;
    float *phase; /* count */
    float *x;     /* count * n_in */
    float *y;     /* count * n_out */
} pfnn_ref_t;

bool pfnn_ref_load(pfnn_ref_t *ref, const char *path);
bool pfnn_ref_load_memory(pfnn_ref_t *ref, const char *name, const uint8_t *data, size_t size);
void pfnn_ref_free(pfnn_ref_t *ref);

/* IEEE binary16 <-> binary32, round to nearest even (portable). */
uint16_t pfnn_f32_to_f16(float f);
float pfnn_f16_to_f32(uint16_t h);

#endif
