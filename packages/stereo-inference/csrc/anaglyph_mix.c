/* The red/cyan anaglyph of a frame's two warped eyes, on YUV 4:2:0 planes
 * (stereo_inference.anaglyph holds the matrices and what they mean). Row by
 * row: each pair of luma rows of both eyes and their chroma row are warped
 * into row buffers, mixed into the output's chroma row, and the luma rows of
 * the pair before are mixed once the chroma row below them is known (their
 * chroma part is upsampled from it). No warped plane is ever whole, and
 * everything between the source's and the output's samples is float: one
 * rounding per output sample. */
#include "planes.h"

#include <stdlib.h>

/* The nearest level, halves up, saturated (clamped as integers: float
 * comparisons would keep the loops from vectorising). */
static inline uint8_t level(float f) {
    int i = (int)(f + 0.5f); /* toward zero: a negative value ends at 0 below anyway */
    i = i < 0 ? 0 : i;
    return (uint8_t)(i > 255 ? 255 : i);
}

/* One chroma row of the output from the warped rows: the luma output's
 * chroma part into term, U and V out. y0, y1: the two luma rows (both eyes
 * side by side, 2w); u, v: the eyes' chroma rows side by side (w). Three
 * simple loops (pair sums, 2x2 means, the mix) over locals and restrict
 * pointers: as one loop, or with the uint8 stores free to alias anything, the
 * compiler does not vectorise them (3.5x slower). */
VECTOR_CLONES static void chroma_row(const uint8_t *restrict y0, const uint8_t *restrict y1,
                                     const uint8_t *restrict u, const uint8_t *restrict v,
                                     uint8_t *restrict ou, uint8_t *restrict ov,
                                     float *restrict term, int w, const MixCoefficients *c,
                                     float *restrict scratch) {
    const int cw = w / 2;
    float *restrict pairs = scratch, *restrict mean = scratch + 2 * w; /* 2w, then w */
    for (int x = 0; x < 2 * w; x++) pairs[x] = (float)(y0[x] + y1[x]);
    for (int i = 0; i < w; i++) mean[i] = 0.25f * (pairs[2 * i] + pairs[2 * i + 1]);
    const float *restrict sl = mean, *restrict sr = mean + cw;
    const float *l = c->left, *r = c->right;
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

/* One luma output row from its warped luma row (both eyes, 2w): the eyes'
 * luma weighted, plus the chroma part upsampled 2x from term rows above and
 * below (bilinear, half-pixel centres: weights 3/4 and 1/4, ends held). */
VECTOR_CLONES static void luma_row(const uint8_t *restrict yl, const float *restrict above,
                                   const float *restrict below, float wa,
                                   uint8_t *restrict out, int w, float a, float b,
                                   float *restrict scratch) {
    const int cw = w / 2;
    const float wb = 1.0f - wa;
    float *restrict padded = scratch, *restrict up = scratch + cw + 2;
    for (int i = 0; i < cw; i++) padded[i + 1] = wa * above[i] + wb * below[i];
    padded[0] = padded[1];
    padded[cw + 1] = padded[cw];
    for (int i = 0; i < cw; i++) {
        up[2 * i] = 0.25f * padded[i] + 0.75f * padded[i + 1];
        up[2 * i + 1] = 0.75f * padded[i + 1] + 0.25f * padded[i + 2];
    }
    const uint8_t *restrict yr = yl + w;
    for (int x = 0; x < w; x++) out[x] = level(a * yl[x] + b * yr[x] + up[x]);
}

/* Output luma row y, its warped row in ring, the chroma part from term. */
static void output_luma(const AnaglyphPlanes *p, const MixCoefficients *c, int y,
                        const uint8_t *warped, const float *term, float *scratch) {
    int ch = p->y.h / 2, cw = p->y.w / 2;
    /* source row of output row y at (y + 0.5) / 2 - 0.5: rows k-1, k or k, k+1 */
    int k = y / 2, r0 = (y % 2) ? k : (k > 0 ? k - 1 : 0);
    int r1 = (y % 2) ? (k + 1 < ch ? k + 1 : ch - 1) : k;
    float wa = (y % 2) ? 0.75f : 0.25f;
    luma_row(warped, term + (size_t)r0 * cw, term + (size_t)r1 * cw, wa,
             p->out_y + (ptrdiff_t)y * p->y_stride, p->y.w, c->a, c->b, scratch);
}

int anaglyph_warp_mix(const AnaglyphPlanes *p, const MixCoefficients *c, int simd) {
    const int h = p->y.h, w = p->y.w, ch = h / 2, cw = w / 2;
    const int level = planes_simd_level(simd);
    Plan luma_plan = p->plan, chroma_plan = p->plan;
    luma_plan.widen = 1;
    chroma_plan.widen = 0;
    /* term (ch x cw), a row's scratch (3w floats), four warped luma rows
     * (2w each: the pair being warped and the pair waiting for the chroma row
     * below it), the warped U and V rows (w each) */
    size_t floats = (size_t)ch * cw + 3 * (size_t)w;
    char *mem = malloc(sizeof(float) * floats + 10 * (size_t)w);
    if (mem == NULL) return -1;
    float *term = (float *)mem, *scratch = term + (size_t)ch * cw;
    uint8_t *ring = (uint8_t *)(mem + sizeof(float) * floats), *urow = ring + 8 * (size_t)w;
    uint8_t *vrow = urow + w;
    for (int j = 0; j < ch; j++) {
        for (int y = 2 * j; y < 2 * j + 2; y++)
            rowwarp_row(&p->y, y, plan_positions(&luma_plan, y, h, scratch),
                        (char *)ring + (size_t)(y % 4) * 2 * w, 2 * w, level);
        const float *m = plan_positions(&chroma_plan, j, ch, scratch);
        rowwarp_row(&p->u, j, m, (char *)urow, w, level);
        rowwarp_row(&p->v, j, m, (char *)vrow, w, level);
        chroma_row(ring + (size_t)(2 * j % 4) * 2 * w, ring + (size_t)((2 * j + 1) % 4) * 2 * w,
                   urow, vrow, p->out_u + (ptrdiff_t)j * p->u_stride,
                   p->out_v + (ptrdiff_t)j * p->v_stride, term + (size_t)j * cw, w, c, scratch);
        for (int y = 2 * j - 2; j > 0 && y < 2 * j; y++) /* the pair above: its rows below known */
            output_luma(p, c, y, ring + (size_t)(y % 4) * 2 * w, term, scratch);
    }
    for (int y = 2 * ch - 2; y < 2 * ch; y++)
        output_luma(p, c, y, ring + (size_t)(y % 4) * 2 * w, term, scratch);
    free(mem);
    return 0;
}
