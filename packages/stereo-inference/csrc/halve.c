/* The half layouts' 2:1 squeeze, one source row at a time as the warp reads
 * it (rowwarp_plan): the row never exists at full size in between, and no
 * squeezed frame is ever whole. The means are OpenCV's resize at exactly 2:1
 * (INTER_LINEAR there is the pair mean; what remap.shrink does without the
 * C extension), to the bit: tests/unit/test_planes_remap.py. */
#include "planes.h"

/* Means of two samples, uint8: (a + b + 1) / 2; and uint16: (a + b) / 2, an
 * odd sum's half rounded to the even side. */
static inline uint8_t mean8(unsigned a, unsigned b) { return (uint8_t)((a + b + 1) >> 1); }

static inline uint16_t mean16(unsigned a, unsigned b) {
    unsigned s = a + b;
    return (uint16_t)((s >> 1) + (s & (s >> 1) & 1u));
}

/* Each sample with the one below it (two stored rows). */
VECTOR_CLONES static void rows_mean_u8(const uint8_t *restrict a, const uint8_t *restrict b,
                                       uint8_t *restrict out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = mean8(a[i], b[i]);
}

VECTOR_CLONES static void rows_mean_u16(const uint16_t *restrict a, const uint16_t *restrict b,
                                        uint16_t *restrict out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = mean16(a[i], b[i]);
}

/* Each pair of neighbours along one row. Its own loop with the stride fixed:
 * the compiler then vectorises it (a loop with the stride as a variable ran
 * scalar, ~18x slower on AVX2). */
VECTOR_CLONES static void pairs_mean_u8(const uint8_t *restrict a, uint8_t *restrict out,
                                        int n) {
    for (int i = 0; i < n; i++)
        out[i] = mean8(a[2 * i], a[2 * i + 1]);
}

VECTOR_CLONES static void pairs_mean_u16(const uint16_t *restrict a, uint16_t *restrict out,
                                         int n) {
    for (int i = 0; i < n; i++)
        out[i] = mean16(a[2 * i], a[2 * i + 1]);
}

void halve_row(const SrcPlane *src, int sr, char *row) {
    if (src->halve == HALVE_X) { /* neighbours along the stored row */
        const char *first = src->buf + sr * src->stride;
        if (src->wide)
            pairs_mean_u16((const uint16_t *)first, (uint16_t *)row, src->w);
        else
            pairs_mean_u8((const uint8_t *)first, (uint8_t *)row, src->w);
        return;
    }
    /* the same sample of two stored rows */
    const char *first = src->buf + 2 * (ptrdiff_t)sr * src->stride;
    const char *second = first + src->stride;
    if (src->wide)
        rows_mean_u16((const uint16_t *)first, (const uint16_t *)second, (uint16_t *)row, src->w);
    else
        rows_mean_u8((const uint8_t *)first, (const uint8_t *)second, (uint8_t *)row, src->w);
}
