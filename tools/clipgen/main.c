/* strider-clipgen: samples a vertex-animated clip (.vac, docs/FORMATS_CLIP.md)
 * from the character itself: an expression curve (anim/excurve, e.g. the
 * built-in "talk") drives the character's blend shapes (anim/bshape, sparse
 * layout), and every 1/fps s the morphed mesh is taken as a key. Only the
 * vertices some key changes (position, normal or AO not bit-identical to the
 * bind pose) are stored; offsets are quantised with the step that maps the
 * largest offset to 127.
 *
 *   strider-clipgen --in FILE.chr --out FILE.vac [--curve NAME] [--mesh NAME] [--fps N]
 *
 * The shipped clip is regenerated with (see assets/clips/README.md)
 *   build/release/tools/clipgen/strider-clipgen --in assets/characters/strider.chr --out talk_full.vac
 *   build/release/tools/keyreduce/strider-keyreduce --in talk_full.vac --out assets/clips/talk.vac
 * Same inputs give the same bytes. Exit 0, or 1 with one error line.
 */
#include "anim/bshape.h"
#include "asset/chr_bshape.h"
#include "anim/excurve.h"
#include "asset/character.h"
#include "asset/clip.h"
#include "core/file.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FPS 12.0f
#define MAX_FPS 120.0f

typedef struct options_t {
    const char *in, *out, *curve, *mesh;
    float fps;
} options_t;

static void usage(void)
{
    fprintf(stderr, "usage: strider-clipgen --in FILE.chr --out FILE.vac [--curve NAME] [--mesh NAME] [--fps N]\n"
                    "  --curve  built-in expression curve (default talk)\n"
                    "  --mesh   character mesh to sample (default head)\n"
                    "  --fps    key rate, 1..120 (default 12)\n");
}

static bool parse_args(int argc, char **argv, options_t *o)
{
    memset(o, 0, sizeof *o);
    o->curve = "talk";
    o->mesh = "head";
    o->fps = DEFAULT_FPS;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            log_error("clipgen: %s needs a value", a);
            return false;
        }
        i++;
        if (!strcmp(a, "--in"))
            o->in = v;
        else if (!strcmp(a, "--out"))
            o->out = v;
        else if (!strcmp(a, "--curve"))
            o->curve = v;
        else if (!strcmp(a, "--mesh"))
            o->mesh = v;
        else if (!strcmp(a, "--fps")) {
            char *e = NULL;
            o->fps = strtof(v, &e);
            if (e == v || *e || !(o->fps >= 1.0f && o->fps <= MAX_FPS)) {
                log_error("clipgen: --fps wants a number in 1..120, got '%s'", v);
                return false;
            }
        } else {
            log_error("clipgen: unknown option '%s'", a);
            return false;
        }
    }
    if (!o->in || !o->out) {
        log_error("clipgen: --in and --out are required");
        return false;
    }
    return true;
}

/* Bind-pose arrays of one mesh in the layout bshape takes, and the keys. */
typedef struct sampler_t {
    uint32_t vc;
    float *pos, *nrm, *tan, *ao;
    float *m_pos, *m_nrm, *m_tan, *m_ao;
    float *key_pos, *key_nrm; /* key_count x vc x 3 */
    float *key_ao;            /* key_count x vc */
} sampler_t;

static void sampler_free(sampler_t *s)
{
    free(s->pos);
    free(s->nrm);
    free(s->tan);
    free(s->ao);
    free(s->m_pos);
    free(s->m_nrm);
    free(s->m_tan);
    free(s->m_ao);
    free(s->key_pos);
    free(s->key_nrm);
    free(s->key_ao);
}

static bool sampler_init(sampler_t *s, const chr_mesh_t *m, uint32_t key_count)
{
    size_t n = m->vertex_count;
    s->vc = m->vertex_count;
    s->pos = calloc(n * 3, sizeof(float));
    s->nrm = calloc(n * 3, sizeof(float));
    s->tan = calloc(n * 4, sizeof(float));
    s->ao = calloc(n, sizeof(float));
    s->m_pos = calloc(n * 3, sizeof(float));
    s->m_nrm = calloc(n * 3, sizeof(float));
    s->m_tan = calloc(n * 4, sizeof(float));
    s->m_ao = calloc(n, sizeof(float));
    s->key_pos = calloc(n * 3 * key_count, sizeof(float));
    s->key_nrm = calloc(n * 3 * key_count, sizeof(float));
    s->key_ao = calloc(n * key_count, sizeof(float));
    if (!s->pos || !s->nrm || !s->tan || !s->ao || !s->m_pos || !s->m_nrm || !s->m_tan || !s->m_ao || !s->key_pos ||
        !s->key_nrm || !s->key_ao) {
        log_error("clipgen: out of memory for %zu vertices x %u keys", n, key_count);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(&s->pos[i * 3], m->vertices[i].pos, 3 * sizeof(float));
        memcpy(&s->nrm[i * 3], m->vertices[i].normal, 3 * sizeof(float));
        memcpy(&s->tan[i * 4], m->vertices[i].tangent, 4 * sizeof(float));
        s->ao[i] = m->vertices[i].ao;
    }
    return true;
}

static bool same_bits(const float *a, const float *b) { return memcmp(a, b, 3 * sizeof(float)) == 0; }

static int run(const options_t *o)
{
    const excurve_clip_t *curve = excurve_builtin_find(o->curve);
    if (!curve || !excurve_clip_check(curve)) {
        log_error("clipgen: no built-in curve '%s'", o->curve);
        return 1;
    }
    chr_character_t chr;
    if (!chr_load(&chr, o->in))
        return 1;
    int rc = 1;
    bshape_set_t set;
    memset(&set, 0, sizeof set);
    sampler_t s;
    memset(&s, 0, sizeof s);
    clip_t clip;
    memset(&clip, 0, sizeof clip);
    int mesh = chr_find_mesh(&chr, o->mesh);
    /* One key per 1/fps s over the curve's length; a clamped curve keeps its end key. */
    uint32_t key_count = (uint32_t)lrintf(curve->duration_s * o->fps) + (curve->loop ? 0u : 1u);
    uint32_t target[EXCURVE_MAX_TRACKS];
    float weight[EXCURVE_MAX_TRACKS];
    if (mesh < 0) {
        log_error("%s: no mesh '%s'", o->in, o->mesh);
        goto done;
    }
    if (key_count < 2 || key_count > CLIP_MAX_KEYS) {
        log_error("clipgen: %u keys (curve '%s' at %g fps) outside 2..%d", key_count, o->curve, (double)o->fps,
                  CLIP_MAX_KEYS);
        goto done;
    }
    if (!chr_bshape_set_build(&set, &chr, (uint32_t)mesh, BSHAPE_BUILD_SPARSE) ||
        !sampler_init(&s, &chr.meshes[mesh], key_count))
        goto done;
    for (int t = 0; t < curve->track_count; t++) {
        int shape = chr_find_shape(&chr, curve->tracks[t].shape);
        int tgt = shape >= 0 ? bshape_set_find_shape(&set, (uint32_t)shape) : -1;
        if (tgt < 0) {
            log_error("%s: curve '%s' drives shape '%s', which mesh '%s' does not have", o->in, o->curve,
                      curve->tracks[t].shape, o->mesh);
            goto done;
        }
        target[t] = (uint32_t)tgt;
    }
    size_t stride = (size_t)s.vc * 3;
    for (uint32_t k = 0; k < key_count; k++) {
        double time_s = k / (double)o->fps;
        for (int t = 0; t < curve->track_count; t++)
            weight[t] = excurve_track_weight(curve, &curve->tracks[t], time_s);
        bshape_job_t job = {.set = &set,
                            .layout = BSHAPE_SPARSE,
                            .active_count = curve->track_count,
                            .active_target = target,
                            .active_weight = weight,
                            .positions = s.pos,
                            .normals = s.nrm,
                            .tangents = s.tan,
                            .ao = s.ao,
                            .out_positions = s.m_pos,
                            .out_normals = s.m_nrm,
                            .out_tangents = s.m_tan,
                            .out_ao = s.m_ao};
        if (!bshape_run(&job))
            goto done;
        memcpy(s.key_pos + k * stride, s.m_pos, stride * sizeof(float));
        memcpy(s.key_nrm + k * stride, s.m_nrm, stride * sizeof(float));
        memcpy(s.key_ao + k * s.vc, s.m_ao, s.vc * sizeof(float));
    }
    /* The animated vertices: moved by some key (bshape copies the others bit for bit). */
    uint32_t animated = 0;
    float max_offset = 0.0f;
    for (uint32_t i = 0; i < s.vc; i++) {
        bool moved = false;
        for (uint32_t k = 0; k < key_count; k++) {
            const float *p = s.key_pos + k * stride + (size_t)i * 3, *nr = s.key_nrm + k * stride + (size_t)i * 3;
            moved = moved || !same_bits(p, &s.pos[i * 3]) || !same_bits(nr, &s.nrm[i * 3]) ||
                    s.key_ao[k * s.vc + i] != s.ao[i];
            for (int c = 0; c < 3; c++)
                max_offset = fmaxf(max_offset, fabsf(p[c] - s.pos[i * 3 + c]));
        }
        animated += moved;
    }
    if (animated == 0 || !(max_offset > 0.0f)) {
        log_error("clipgen: curve '%s' moves no vertex of mesh '%s'", o->curve, o->mesh);
        goto done;
    }
    if (!clip_alloc(&clip, animated, key_count))
        goto done;
    snprintf(clip.mesh, sizeof clip.mesh, "%s", o->mesh);
    clip.mesh_vertex_count = s.vc;
    clip.flags = curve->loop ? CLIP_LOOP : 0u;
    clip.fps = o->fps;
    clip.pos_step_cm = max_offset / (float)CLIP_Q_MAX;
    for (uint32_t k = 0; k < key_count; k++)
        clip.key_time[k] = (float)(k / (double)o->fps);
    clip.duration_s = curve->loop ? curve->duration_s : clip.key_time[key_count - 1];
    uint32_t n = 0;
    for (uint32_t i = 0; i < s.vc; i++) {
        bool moved = false;
        for (uint32_t k = 0; k < key_count && !moved; k++)
            moved = !same_bits(s.key_pos + k * stride + (size_t)i * 3, &s.pos[i * 3]) ||
                    !same_bits(s.key_nrm + k * stride + (size_t)i * 3, &s.nrm[i * 3]) ||
                    s.key_ao[k * s.vc + i] != s.ao[i];
        if (moved)
            clip.vertex[n++] = i;
    }
    /* Key k as offsets, normals and AO of the animated vertices (reusing m_pos/m_nrm/m_ao). */
    float q_err = 0.0f, n_err = 0.0f, a_err = 0.0f;
    for (uint32_t k = 0; k < key_count; k++) {
        for (uint32_t j = 0; j < animated; j++) {
            uint32_t v = clip.vertex[j];
            for (int c = 0; c < 3; c++) {
                s.m_pos[j * 3 + c] = s.key_pos[k * stride + v * 3 + c] - s.pos[v * 3 + c];
                s.m_nrm[j * 3 + c] = s.key_nrm[k * stride + v * 3 + c];
            }
            s.m_ao[j] = s.key_ao[k * s.vc + v];
        }
        clip_set_key(&clip, k, s.m_pos, s.m_nrm, s.m_ao);
        size_t base = (size_t)k * animated * 3;
        for (size_t j = 0; j < (size_t)animated * 3; j++) {
            q_err = fmaxf(q_err, fabsf(clip.offset[base + j] - s.m_pos[j]));
            n_err = fmaxf(n_err, fabsf(clip.normal[base + j] - s.m_nrm[j]));
        }
        for (size_t j = 0; j < animated; j++)
            a_err = fmaxf(a_err, fabsf(clip.ao[base / 3 + j] - s.m_ao[j]));
    }
    if (!clip_save(&clip, o->out))
        goto done;
    /* For the summary only: the clip was written by then. */
    uint64_t written = 0;
    long bytes = file_is_regular(o->out, &written) ? (long)written : -1;
    printf("%s: mesh '%s', %u of %u vertices animated, %u keys at %g fps (%s, %g s), largest offset %.3f cm, "
           "step %.4f cm, max quantisation error %.4f cm (normals %.4f, AO %.4f), %ld bytes\n",
           o->out, o->mesh, animated, s.vc, key_count, (double)o->fps, curve->loop ? "loop" : "clamped",
           (double)clip.duration_s, (double)max_offset, (double)clip.pos_step_cm, (double)q_err, (double)n_err,
           (double)a_err, bytes);
    rc = 0;
done:
    clip_free(&clip);
    sampler_free(&s);
    bshape_set_free(&set);
    chr_free(&chr);
    return rc;
}

int main(int argc, char **argv)
{
    options_t o;
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        usage();
        return argc < 2 ? 1 : 0;
    }
    if (!parse_args(argc, argv, &o)) {
        usage();
        return 1;
    }
    return run(&o);
}
