#include "cg_mesh.h"

#include "core/log.h"

/* pi as a float (M_PI is not in strict C11). */
#define CG_PI 3.14159265358979f

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        log_error("chargen: out of memory (%zu bytes)", n);
        exit(1);
    }
    return q;
}

void cg_mesh_free(cg_mesh_t *m)
{
    free(m->p);
    free(m->t);
    memset(m, 0, sizeof *m);
}

int cg_mesh_add_vertex(cg_mesh_t *m, const float p[3])
{
    if (m->nv == m->cap_v) {
        m->cap_v = m->cap_v ? m->cap_v * 2 : 1024;
        m->p = xrealloc(m->p, (size_t)m->cap_v * sizeof *m->p);
    }
    memcpy(m->p[m->nv], p, sizeof m->p[0]);
    return m->nv++;
}

void cg_mesh_add_tri(cg_mesh_t *m, int a, int b, int c)
{
    if (m->nt == m->cap_t) {
        m->cap_t = m->cap_t ? m->cap_t * 2 : 2048;
        m->t = xrealloc(m->t, (size_t)m->cap_t * sizeof *m->t);
    }
    m->t[m->nt][0] = a;
    m->t[m->nt][1] = b;
    m->t[m->nt][2] = c;
    m->nt++;
}

static float dist2(const float a[3], const float b[3])
{
    float d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* Adds quad a,b,c,d (counter-clockwise) as two triangles split along the
 * shorter diagonal, which keeps the triangles closer to equilateral. */
static void add_quad(cg_mesh_t *m, int a, int b, int c, int d)
{
    if (dist2(m->p[a], m->p[c]) <= dist2(m->p[b], m->p[d])) {
        cg_mesh_add_tri(m, a, b, c);
        cg_mesh_add_tri(m, a, c, d);
    } else {
        cg_mesh_add_tri(m, a, b, d);
        cg_mesh_add_tri(m, b, c, d);
    }
}

/* Ramp length, in coarse cells, over which spacing grows from fine to coarse. */
#define CG_GRADE_RAMP_CELLS 2.0f

static float axis_spacing(const cg_axis_t *ax, float t)
{
    if (ax->h_fine <= 0.0f || ax->fine_hi <= ax->fine_lo)
        return ax->h_coarse;
    float d = t < ax->fine_lo ? ax->fine_lo - t : (t > ax->fine_hi ? t - ax->fine_hi : 0.0f);
    float s = d / (CG_GRADE_RAMP_CELLS * ax->h_coarse);
    if (s > 1.0f)
        s = 1.0f;
    return ax->h_fine + (ax->h_coarse - ax->h_fine) * s;
}

/* Node coordinates of one axis; returns the count (malloc'd in *out). */
static int axis_nodes(const cg_axis_t *ax, float **out)
{
    int cap = 256, n = 0;
    float *c = xrealloc(NULL, (size_t)cap * sizeof *c);
    float t = ax->lo;
    for (;;) {
        if (n == cap) {
            cap *= 2;
            c = xrealloc(c, (size_t)cap * sizeof *c);
        }
        c[n++] = t;
        if (t >= ax->hi)
            break;
        t += axis_spacing(ax, t);
    }
    *out = c;
    return n;
}

bool cg_mesh_polygonize(cg_field_fn_t f, const void *ctx, const cg_axis_t axis[3], cg_mesh_t *out)
{
    memset(out, 0, sizeof *out);
    int n[3];
    float *X[3];
    for (int i = 0; i < 3; i++)
        n[i] = axis_nodes(&axis[i], &X[i]);
    size_t nodes = (size_t)n[0] * n[1] * n[2];
    if (nodes > (size_t)400 * 1000 * 1000) {
        log_error("chargen: grid of %zu nodes is too large", nodes);
        for (int i = 0; i < 3; i++)
            free(X[i]);
        return false;
    }
    float *val = xrealloc(NULL, nodes * sizeof *val);
#define NODE(i, j, k) ((size_t)(i) + (size_t)n[0] * ((size_t)(j) + (size_t)n[1] * (size_t)(k)))
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                float p[3] = {X[0][i], X[1][j], X[2][k]};
                float v = f(ctx, p);
                /* Never exactly zero, so every edge has a clear sign. */
                if (v == 0.0f)
                    v = 1e-7f;
                val[NODE(i, j, k)] = v;
            }
    int *cell = xrealloc(NULL, nodes * sizeof *cell);
    for (size_t i = 0; i < nodes; i++)
        cell[i] = -1;
    static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                                     {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
    static const int edge[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                    {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (int k = 0; k + 1 < n[2]; k++)
        for (int j = 0; j + 1 < n[1]; j++)
            for (int i = 0; i + 1 < n[0]; i++) {
                float cv[8];
                int inside = 0;
                for (int c = 0; c < 8; c++) {
                    cv[c] = val[NODE(i + corner[c][0], j + corner[c][1], k + corner[c][2])];
                    inside += cv[c] < 0.0f;
                }
                if (inside == 0 || inside == 8)
                    continue;
                float acc[3] = {0, 0, 0};
                int cnt = 0;
                const int base[3] = {i, j, k};
                for (int e = 0; e < 12; e++) {
                    float a = cv[edge[e][0]], b = cv[edge[e][1]];
                    if ((a < 0.0f) == (b < 0.0f))
                        continue;
                    float t = a / (a - b);
                    for (int d = 0; d < 3; d++) {
                        float ca = X[d][base[d] + corner[edge[e][0]][d]];
                        float cb = X[d][base[d] + corner[edge[e][1]][d]];
                        acc[d] += ca + (cb - ca) * t;
                    }
                    cnt++;
                }
                float p[3] = {acc[0] / (float)cnt, acc[1] / (float)cnt, acc[2] / (float)cnt};
                cell[NODE(i, j, k)] = cg_mesh_add_vertex(out, p);
            }
    /* One quad per sign-changing grid edge, joining the four cells around it.
     * Around +X the cells (j-1,k-1) (j,k-1) (j,k) (j-1,k) run counter-clockwise
     * (y x z = x); the normal must point from inside (negative) to outside. */
    for (int k = 1; k + 1 < n[2]; k++)
        for (int j = 1; j + 1 < n[1]; j++)
            for (int i = 0; i + 1 < n[0]; i++) {
                bool a = val[NODE(i, j, k)] < 0.0f, b = val[NODE(i + 1, j, k)] < 0.0f;
                if (a == b)
                    continue;
                int q0 = cell[NODE(i, j - 1, k - 1)], q1 = cell[NODE(i, j, k - 1)];
                int q2 = cell[NODE(i, j, k)], q3 = cell[NODE(i, j - 1, k)];
                if (a)
                    add_quad(out, q0, q1, q2, q3);
                else
                    add_quad(out, q3, q2, q1, q0);
            }
    for (int k = 1; k + 1 < n[2]; k++)
        for (int j = 0; j + 1 < n[1]; j++)
            for (int i = 1; i + 1 < n[0]; i++) {
                bool a = val[NODE(i, j, k)] < 0.0f, b = val[NODE(i, j + 1, k)] < 0.0f;
                if (a == b)
                    continue;
                /* Around +Y: (z, x) order, z x x = y. */
                int q0 = cell[NODE(i - 1, j, k - 1)], q1 = cell[NODE(i - 1, j, k)];
                int q2 = cell[NODE(i, j, k)], q3 = cell[NODE(i, j, k - 1)];
                if (a)
                    add_quad(out, q0, q1, q2, q3);
                else
                    add_quad(out, q3, q2, q1, q0);
            }
    for (int k = 0; k + 1 < n[2]; k++)
        for (int j = 1; j + 1 < n[1]; j++)
            for (int i = 1; i + 1 < n[0]; i++) {
                bool a = val[NODE(i, j, k)] < 0.0f, b = val[NODE(i, j, k + 1)] < 0.0f;
                if (a == b)
                    continue;
                /* Around +Z: (x, y) order. */
                int q0 = cell[NODE(i - 1, j - 1, k)], q1 = cell[NODE(i, j - 1, k)];
                int q2 = cell[NODE(i, j, k)], q3 = cell[NODE(i - 1, j, k)];
                if (a)
                    add_quad(out, q0, q1, q2, q3);
                else
                    add_quad(out, q3, q2, q1, q0);
            }
#undef NODE
    free(val);
    free(cell);
    for (int i = 0; i < 3; i++)
        free(X[i]);
    return out->nt > 0;
}

/* Drops vertices no triangle uses, renumbering the triangles. */
static void compact(cg_mesh_t *m)
{
    int *map = xrealloc(NULL, (size_t)(m->nv ? m->nv : 1) * sizeof *map);
    for (int i = 0; i < m->nv; i++)
        map[i] = -1;
    for (int t = 0; t < m->nt; t++)
        for (int c = 0; c < 3; c++)
            map[m->t[t][c]] = 0;
    int n = 0;
    for (int i = 0; i < m->nv; i++) {
        if (map[i] < 0)
            continue;
        memcpy(m->p[n], m->p[i], sizeof m->p[0]);
        map[i] = n++;
    }
    m->nv = n;
    for (int t = 0; t < m->nt; t++)
        for (int c = 0; c < 3; c++)
            m->t[t][c] = map[m->t[t][c]];
    free(map);
}

void cg_mesh_keep(cg_mesh_t *m, cg_point_pred_t pred, const void *ctx)
{
    int n = 0;
    for (int t = 0; t < m->nt; t++) {
        bool keep = true;
        for (int c = 0; c < 3; c++)
            keep = keep && pred(ctx, m->p[m->t[t][c]]);
        if (keep)
            memcpy(m->t[n++], m->t[t], sizeof m->t[0]);
    }
    m->nt = n;
    compact(m);
}

/* Open-addressing set of directed edges (a, b) packed into 64 bits. */
typedef struct edge_set_t {
    uint64_t *key;
    size_t cap;
} edge_set_t;

static uint64_t edge_key(int a, int b) { return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b; }

static size_t edge_hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

static void edge_set_init(edge_set_t *s, size_t n)
{
    s->cap = 1;
    while (s->cap < n * 2 + 16)
        s->cap <<= 1;
    s->key = xrealloc(NULL, s->cap * sizeof *s->key);
    for (size_t i = 0; i < s->cap; i++)
        s->key[i] = UINT64_MAX;
}

static void edge_set_add(edge_set_t *s, uint64_t k)
{
    size_t i = edge_hash(k, s->cap);
    while (s->key[i] != UINT64_MAX && s->key[i] != k)
        i = (i + 1) & (s->cap - 1);
    s->key[i] = k;
}

static bool edge_set_has(const edge_set_t *s, uint64_t k)
{
    size_t i = edge_hash(k, s->cap);
    while (s->key[i] != UINT64_MAX) {
        if (s->key[i] == k)
            return true;
        i = (i + 1) & (s->cap - 1);
    }
    return false;
}

int cg_mesh_boundary_loop(const cg_mesh_t *m, int **loop)
{
    *loop = NULL;
    edge_set_t es;
    edge_set_init(&es, (size_t)m->nt * 3);
    for (int t = 0; t < m->nt; t++)
        for (int c = 0; c < 3; c++)
            edge_set_add(&es, edge_key(m->t[t][c], m->t[t][(c + 1) % 3]));
    /* Boundary half-edges a->b have no twin b->a; next[a] = b. */
    int *next = xrealloc(NULL, (size_t)m->nv * sizeof *next);
    for (int i = 0; i < m->nv; i++)
        next[i] = -1;
    for (int t = 0; t < m->nt; t++)
        for (int c = 0; c < 3; c++) {
            int a = m->t[t][c], b = m->t[t][(c + 1) % 3];
            if (!edge_set_has(&es, edge_key(b, a)))
                next[a] = b;
        }
    free(es.key);
    bool *seen = calloc((size_t)m->nv, 1);
    int best_len = 0, best_start = -1;
    for (int v = 0; v < m->nv; v++) {
        if (next[v] < 0 || seen[v])
            continue;
        int len = 0, u = v;
        while (u >= 0 && !seen[u]) {
            seen[u] = true;
            u = next[u];
            len++;
        }
        if (u == v && len > best_len) {
            best_len = len;
            best_start = v;
        }
    }
    free(seen);
    if (best_start >= 0) {
        *loop = xrealloc(NULL, (size_t)best_len * sizeof **loop);
        int u = best_start;
        for (int i = 0; i < best_len; i++) {
            (*loop)[i] = u;
            u = next[u];
        }
    }
    free(next);
    return best_len;
}

int cg_mesh_append(cg_mesh_t *dst, const cg_mesh_t *src)
{
    int off = dst->nv;
    for (int i = 0; i < src->nv; i++)
        cg_mesh_add_vertex(dst, src->p[i]);
    for (int t = 0; t < src->nt; t++)
        cg_mesh_add_tri(dst, src->t[t][0] + off, src->t[t][1] + off, src->t[t][2] + off);
    return off;
}

static float loop_angle(const float p[3], const float c[3]) { return atan2f(p[2] - c[2], p[0] - c[0]); }

/* Angles of LOOP's vertices in the travel direction DIR, in [0, 2pi),
 * rotated so the sequence starts at its smallest; out has n + 1 entries
 * (the last is the first plus 2pi) and *start receives the first index. */
static float *loop_angles(const cg_mesh_t *m, const int *loop, int n, float dir, const float c[3], int *start)
{
    const float two_pi = 2.0f * CG_PI;
    float *raw = xrealloc(NULL, (size_t)n * sizeof *raw);
    int s = 0;
    for (int i = 0; i < n; i++) {
        float a = dir * loop_angle(m->p[loop[i]], c);
        while (a < 0.0f)
            a += two_pi;
        while (a >= two_pi)
            a -= two_pi;
        raw[i] = a;
        if (a < raw[s])
            s = i;
    }
    float *out = xrealloc(NULL, ((size_t)n + 1) * sizeof *out);
    for (int i = 0; i < n; i++) {
        float a = raw[(s + i) % n];
        /* Keep the sequence non-decreasing where the loop wiggles. */
        if (i > 0 && a < out[i - 1])
            a = out[i - 1];
        out[i] = a;
    }
    out[n] = out[0] + two_pi;
    free(raw);
    *start = s;
    return out;
}

void cg_mesh_zip(cg_mesh_t *m, const int *a, int na, const int *b, int nb, const float centre[3])
{
    /* Direction of travel: the sign of the summed angle steps along A. */
    float s = 0.0f;
    for (int i = 0; i < na; i++) {
        float d = loop_angle(m->p[a[(i + 1) % na]], centre) - loop_angle(m->p[a[i]], centre);
        if (d > CG_PI)
            d -= 2.0f * CG_PI;
        if (d < -CG_PI)
            d += 2.0f * CG_PI;
        s += d;
    }
    float dir = s >= 0.0f ? 1.0f : -1.0f;
    int sa, sb;
    float *ta = loop_angles(m, a, na, dir, centre, &sa);
    float *tb = loop_angles(m, b, nb, dir, centre, &sb);
    int first = m->nt;
    int i = 0, j = 0;
    while (i < na || j < nb) {
        int va = a[(sa + i) % na], vb = b[(sb + j) % nb];
        bool advance_a = (j >= nb) || (i < na && ta[i + 1] <= tb[j + 1]);
        if (advance_a) {
            cg_mesh_add_tri(m, va, a[(sa + i + 1) % na], vb);
            i++;
        } else {
            cg_mesh_add_tri(m, va, b[(sb + j + 1) % nb], vb);
            j++;
        }
    }
    free(ta);
    free(tb);
    /* Wind every new triangle so its normal points away from the axis. */
    for (int t = first; t < m->nt; t++) {
        const float *p0 = m->p[m->t[t][0]], *p1 = m->p[m->t[t][1]], *p2 = m->p[m->t[t][2]];
        float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        float nx = e1[1] * e2[2] - e1[2] * e2[1], nz = e1[0] * e2[1] - e1[1] * e2[0];
        float cx = (p0[0] + p1[0] + p2[0]) / 3.0f - centre[0];
        float cz = (p0[2] + p1[2] + p2[2]) / 3.0f - centre[2];
        if (nx * cx + nz * cz < 0.0f) {
            int tmp = m->t[t][1];
            m->t[t][1] = m->t[t][2];
            m->t[t][2] = tmp;
        }
    }
}

static void field_grad(cg_field_fn_t f, const void *ctx, const float p[3], float g[3])
{
    const float e = 0.01f;
    for (int i = 0; i < 3; i++) {
        float a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
        a[i] += e;
        b[i] -= e;
        g[i] = (f(ctx, a) - f(ctx, b)) / (2.0f * e);
    }
}

void cg_mesh_project(cg_mesh_t *m, cg_field_fn_t f, const void *ctx, const bool *fixed, int iters)
{
    for (int v = 0; v < m->nv; v++) {
        if (fixed && fixed[v])
            continue;
        for (int it = 0; it < iters; it++) {
            float d = f(ctx, m->p[v]);
            if (fabsf(d) < 1e-4f)
                break;
            float g[3];
            field_grad(f, ctx, m->p[v], g);
            float g2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
            if (g2 < 1e-8f)
                break;
            /* Limit the step so a bad gradient cannot throw a vertex away. */
            float s = d / g2;
            float len = fabsf(s) * sqrtf(g2);
            if (len > 0.5f)
                s *= 0.5f / len;
            for (int k = 0; k < 3; k++)
                m->p[v][k] -= s * g[k];
        }
    }
}

void cg_mesh_adjacency(const cg_mesh_t *m, cg_adj_t *adj)
{
    int *deg = calloc((size_t)m->nv + 1, sizeof *deg);
    for (int t = 0; t < m->nt; t++)
        for (int c = 0; c < 3; c++)
            deg[m->t[t][c]] += 2;
    adj->off = xrealloc(NULL, ((size_t)m->nv + 1) * sizeof *adj->off);
    adj->off[0] = 0;
    for (int v = 0; v < m->nv; v++)
        adj->off[v + 1] = adj->off[v] + deg[v];
    int *tmp = xrealloc(NULL, (size_t)(adj->off[m->nv] ? adj->off[m->nv] : 1) * sizeof *tmp);
    memset(deg, 0, ((size_t)m->nv + 1) * sizeof *deg);
    for (int t = 0; t < m->nt; t++)
        for (int c = 0; c < 3; c++) {
            int v = m->t[t][c];
            tmp[adj->off[v] + deg[v]++] = m->t[t][(c + 1) % 3];
            tmp[adj->off[v] + deg[v]++] = m->t[t][(c + 2) % 3];
        }
    /* Deduplicate each vertex's list (each neighbour appears twice). */
    adj->adj = xrealloc(NULL, (size_t)(adj->off[m->nv] ? adj->off[m->nv] : 1) * sizeof *adj->adj);
    int w = 0;
    int start = 0;
    for (int v = 0; v < m->nv; v++) {
        int s0 = w;
        for (int i = adj->off[v]; i < adj->off[v + 1]; i++) {
            int u = tmp[i];
            bool dup = false;
            for (int k = s0; k < w; k++)
                dup = dup || adj->adj[k] == u;
            if (!dup)
                adj->adj[w++] = u;
        }
        adj->off[v] = start;
        start = w;
    }
    adj->off[m->nv] = w;
    free(tmp);
    free(deg);
}

void cg_adj_free(cg_adj_t *adj)
{
    free(adj->off);
    free(adj->adj);
    adj->off = adj->adj = NULL;
}

void cg_mesh_vertex_normals(const cg_mesh_t *m, float (*out)[3])
{
    memset(out, 0, (size_t)m->nv * sizeof *out);
    for (int t = 0; t < m->nt; t++) {
        const float *p0 = m->p[m->t[t][0]], *p1 = m->p[m->t[t][1]], *p2 = m->p[m->t[t][2]];
        float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                out[m->t[t][c]][k] += n[k];
    }
    for (int v = 0; v < m->nv; v++) {
        float l = sqrtf(out[v][0] * out[v][0] + out[v][1] * out[v][1] + out[v][2] * out[v][2]);
        if (l > 0.0f)
            for (int k = 0; k < 3; k++)
                out[v][k] /= l;
        else
            out[v][1] = 1.0f;
    }
}

void cg_mesh_relax(cg_mesh_t *m, const cg_adj_t *adj, cg_field_fn_t f, const void *ctx, const bool *fixed, int iters,
                   float step)
{
    float(*nrm)[3] = xrealloc(NULL, (size_t)m->nv * sizeof *nrm);
    float(*np)[3] = xrealloc(NULL, (size_t)m->nv * sizeof *np);
    for (int it = 0; it < iters; it++) {
        cg_mesh_vertex_normals(m, nrm);
        for (int v = 0; v < m->nv; v++) {
            memcpy(np[v], m->p[v], sizeof np[v]);
            int a = adj->off[v], b = adj->off[v + 1];
            if ((fixed && fixed[v]) || b == a)
                continue;
            float c[3] = {0, 0, 0};
            for (int i = a; i < b; i++)
                for (int k = 0; k < 3; k++)
                    c[k] += m->p[adj->adj[i]][k];
            float d[3];
            for (int k = 0; k < 3; k++)
                d[k] = c[k] / (float)(b - a) - m->p[v][k];
            float dn = d[0] * nrm[v][0] + d[1] * nrm[v][1] + d[2] * nrm[v][2];
            for (int k = 0; k < 3; k++)
                np[v][k] = m->p[v][k] + step * (d[k] - dn * nrm[v][k]);
        }
        memcpy(m->p, np, (size_t)m->nv * sizeof *np);
        if (f)
            cg_mesh_project(m, f, ctx, fixed, 3);
    }
    free(nrm);
    free(np);
}
