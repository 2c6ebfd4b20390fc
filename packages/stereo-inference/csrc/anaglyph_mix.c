/* The red/cyan anaglyph of two warped eyes, mixed on YUV 4:2:0 planes in one
 * pass over each output plane (stereo_inference.anaglyph holds the matrices
 * and what they mean). Everything between the input and the output planes is
 * float: one rounding per output sample. */
#include "planes.h"

#include <stdlib.h>

/* The nearest level, halves up, saturated (clamped as integers: float
 * comparisons would keep the loops from vectorising). */
static inline uint8_t level(float f) {
    int i = (int)(f + 0.5f); /* toward zero: a negative value ends at 0 below anyway */
    i = i < 0 ? 0 : i;
    return (uint8_t)(i > 255 ? 255 : i);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* The chroma-size terms of one row: the luma output's part into term, U, V out.
 * Three simple loops (pair sums, 2x2 means, the mix) over locals and restrict
 * pointers: as one loop, or with the uint8 stores free to alias anything, the
 * compiler does not vectorise them (3.5x slower). */
VECTOR_CLONES static void chroma_row(const MixPlanes *p, int j, const float *l, const float *r,
                                     float *restrict term, float *restrict scratch) {
    const int cw = p->w / 2, w = p->w;
    const uint8_t *restrict y0 = p->luma + (ptrdiff_t)(2 * j) * p->luma_stride;
    const uint8_t *restrict y1 = y0 + p->luma_stride;
    const uint8_t *restrict u = p->u + (ptrdiff_t)j * p->u_stride;
    const uint8_t *restrict v = p->v + (ptrdiff_t)j * p->v_stride;
    uint8_t *restrict ou = p->out_u + (ptrdiff_t)j * p->u_out_stride;
    uint8_t *restrict ov = p->out_v + (ptrdiff_t)j * p->v_out_stride;
    float *restrict pairs = scratch, *restrict mean = scratch + 2 * w; /* 2w, then w */
    for (int x = 0; x < 2 * w; x++) pairs[x] = (float)(y0[x] + y1[x]);
    for (int i = 0; i < w; i++) mean[i] = 0.25f * (pairs[2 * i] + pairs[2 * i + 1]);
    const float *restrict sl = mean, *restrict sr = mean + cw;
    const float l0 = l[0], l1 = l[1], l2 = l[2], l3 = l[3] + r[3];
    const float l4 = l[4], l5 = l[5], l6 = l[6], l7 = l[7] + r[7];
    const float l8 = l[8], l9 = l[9], l10 = l[10], l11 = l[11] + r[11];
    const float r0 = r[0], r1 = r[1], r2 = r[2], r4 = r[4], r5 = r[5], r6 = r[6];
    const float r8 = r[8], r9 = r[9], r10 = r[10];
    for (int i = 0; i < cw; i++) {
        float ul = u[i], vl = v[i], ur = u[cw + i], vr = v[cw + i];
        term[i] = l0 * ul + l1 * vl + l2 * sl[i] + l3 + r0 * ur + r1 * vr + r2 * sr[i];
        ou[i] = level(l4 * ul + l5 * vl + l6 * sl[i] + l7 + r4 * ur + r5 * vr + r6 * sr[i]);
        ov[i] = level(l8 * ul + l9 * vl + l10 * sl[i] + l11 + r8 * ur + r9 * vr + r10 * sr[i]);
    }
}

/* One luma output row: the eyes' luma weighted, plus the term upsampled 2x
 * (bilinear, half-pixel centres: weights 3/4 and 1/4, the ends replicated). */
VECTOR_CLONES static void luma_row(const MixPlanes *p, int y, const float *restrict above,
                                   const float *restrict below, float wa,
                                   float *restrict padded, float *restrict up, float a,
                                   float b) {
    const int cw = p->w / 2, w = p->w;
    const float wb = 1.0f - wa;
    for (int i = 0; i < cw; i++) padded[i + 1] = wa * above[i] + wb * below[i];
    padded[0] = padded[1];
    padded[cw + 1] = padded[cw];
    for (int i = 0; i < cw; i++) {
        up[2 * i] = 0.25f * padded[i] + 0.75f * padded[i + 1];
        up[2 * i + 1] = 0.75f * padded[i + 1] + 0.25f * padded[i + 2];
    }
    const uint8_t *restrict yl = p->luma + (ptrdiff_t)y * p->luma_stride;
    const uint8_t *restrict yr = yl + w;
    uint8_t *restrict out = p->out_y + (ptrdiff_t)y * p->y_stride;
    for (int x = 0; x < w; x++) out[x] = level(a * yl[x] + b * yr[x] + up[x]);
}

int anaglyph_mix(const MixPlanes *p, const float left[12], const float right[12], float a,
                 float b) {
    int ch = p->h / 2, cw = p->w / 2;
    /* term (ch x cw), then a row's scratch: 3w floats for chroma_row, or
     * padded (cw + 2) and up (w) for luma_row */
    float *term = malloc(sizeof(float) * ((size_t)ch * cw + 3 * (size_t)p->w));
    if (term == NULL) return -1;
    float *scratch = term + (size_t)ch * cw, *padded = scratch, *up = scratch + cw + 2;
    for (int j = 0; j < ch; j++) chroma_row(p, j, left, right, term + (size_t)j * cw, scratch);
    for (int y = 0; y < p->h; y++) {
        /* source row of output row y at (y + 0.5) / 2 - 0.5: rows k-1, k or k, k+1 */
        int k = y / 2, r0 = (y % 2) ? k : (k > 0 ? k - 1 : 0);
        int r1 = (y % 2) ? (k + 1 < ch ? k + 1 : ch - 1) : k;
        float wa = (y % 2) ? 0.75f : 0.25f;
        luma_row(p, y, term + (size_t)r0 * cw, term + (size_t)r1 * cw, wa, padded, up, a, b);
    }
    free(term);
    return 0;
}
