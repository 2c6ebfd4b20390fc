/* The half layouts' 2:1 squeeze, one source row at a time as the warp reads
 * it (rowwarp_plan): the row never exists at full size in between, and no
 * squeezed frame is ever whole. The means are OpenCV's resize at exactly 2:1
 * (INTER_LINEAR there is the pair mean; what remap.shrink does without the
 * C extension), to the bit: tests/unit/test_planes_remap.py. */
#include "planes.h"

/* Pair means, uint8: (a + b + 1) / 2. */
VECTOR_CLONES static void mean_u8(const uint8_t *restrict a, const uint8_t *restrict b,
                                  int step, uint8_t *restrict out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = (uint8_t)((a[step * i] + b[step * i] + 1) >> 1);
}

/* Pair means, uint16: (a + b) / 2, an odd sum's half rounded to the even side. */
VECTOR_CLONES static void mean_u16(const uint16_t *restrict a, const uint16_t *restrict b,
                                   int step, uint16_t *restrict out, int n) {
    for (int i = 0; i < n; i++) {
        unsigned s = (unsigned)a[step * i] + b[step * i];
        out[i] = (uint16_t)((s >> 1) + (s & (s >> 1) & 1u));
    }
}

void halve_row(const SrcPlane *src, int sr, char *row) {
    const char *first, *second;
    int step;
    if (src->halve == HALVE_X) { /* neighbours along the stored row */
        first = src->buf + sr * src->stride;
        second = first + (src->wide ? 2 : 1);
        step = 2;
    } else { /* the same sample of two stored rows */
        first = src->buf + 2 * (ptrdiff_t)sr * src->stride;
        second = first + src->stride;
        step = 1;
    }
    if (src->wide)
        mean_u16((const uint16_t *)first, (const uint16_t *)second, step, (uint16_t *)row,
                 src->w);
    else
        mean_u8((const uint8_t *)first, (const uint8_t *)second, step, (uint8_t *)row, src->w);
}
