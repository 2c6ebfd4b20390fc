/* Planes resampled along x only: the CPU warp's inner loop.
 *
 * rowwarp_plane writes dst[r, x] = src[r % h, :] read at map[r, x], linearly
 * between its two neighbours, the ends replicated. The
 * value is OpenCV 5's bilinear remap at whole rows, to the bit: the weight is
 * the position's fraction in float, p0 + a * (p1 - p0) with one rounding (a
 * fused multiply-add), then the nearest integer, ties to even. OpenCV's
 * remap is a general 2-D gather; a warp moves pixels along rows only, so
 * here eight (AVX2) or sixteen (AVX-512) neighbour pairs come from one
 * window of the row, or one gather where a depth edge spreads them.
 *
 * Planes are uint8 or uint16 (10-bit), contiguous along x; the map is float32
 * of dst's shape, and dst has as many rows as a multiple of src's (two eyes
 * stacked read the plane twice).
 */
#include "planes.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define ROWWARP_X86 1
#endif

/* The neighbour pair of position v in a row of w samples: left index and weight. */
static inline int pair(float v, int w, float *a) {
    float f = floorf(v);
    int i = (int)f;
    if (!(f >= 0.0f)) { /* left of the row, or not a number: the first sample */
        *a = 0.0f;
        return 0;
    }
    if (f > (float)(w - 2)) { /* at or past the last sample */
        *a = 1.0f;
        return w - 2;
    }
    *a = v - f;
    return i;
}

#define SCALAR_ROW(T, NAME)                                                        \
    static void NAME(const T *s, int w, const float *m, T *d, int n) {            \
        for (int x = 0; x < n; x++) {                                              \
            float a;                                                               \
            int i = pair(m[x], w, &a);                                             \
            float p0 = (float)s[i], p1 = (float)s[i + 1];                          \
            d[x] = (T)lrintf(fmaf(a, p1 - p0, p0));                                \
        }                                                                          \
    }
SCALAR_ROW(uint8_t, row_u8)
SCALAR_ROW(uint16_t, row_u16)

#ifdef ROWWARP_X86
/* Eight positions: clamped left indices and weights, as pair() gives them,
 * with min and max instead of its tests: the position clamped into the row
 * first (max takes 0 for NaN), its floor held at w - 2 (weight 1 at the end). */
__attribute__((target("avx2,fma"))) static inline __m256i pairs8(const float *m, int w, __m256 *a) {
    __m256 v = _mm256_max_ps(_mm256_loadu_ps(m), _mm256_setzero_ps());
    v = _mm256_min_ps(v, _mm256_set1_ps((float)(w - 1)));
    __m256 f = _mm256_min_ps(_mm256_floor_ps(v), _mm256_set1_ps((float)(w - 2)));
    *a = _mm256_sub_ps(v, f);
    return _mm256_cvttps_epi32(f);
}

__attribute__((target("avx2,fma"))) static inline __m256i lerp8(__m256i p0i, __m256i p1i, __m256 a) {
    __m256 p0 = _mm256_cvtepi32_ps(p0i), p1 = _mm256_cvtepi32_ps(p1i);
    return _mm256_cvtps_epi32(_mm256_fmadd_ps(a, _mm256_sub_ps(p1, p0), p0)); /* ties to even */
}

/* Eight neighbour pairs from a 16-byte window of the row when their left
 * indices lie within it (a warp moves neighbours together: nearly always),
 * else from a gather, which reads 4 bytes at s + i for i <= w - 2: two past
 * the row's end, so the caller keeps this off the buffer's last row. */
__attribute__((target("avx2,fma"))) static void row_u8_avx2(const uint8_t *s, int w, const float *m,
                                                         uint8_t *d, int n) {
    const __m256i low = _mm256_set1_epi32(0xff), span = _mm256_set1_epi32(14);
    int x = 0;
    for (; w >= 16 && x + 8 <= n; x += 8) {
        __m256 a;
        __m256i i = pairs8(m + x, w, &a), p0, p1;
        int base = _mm256_cvtsi256_si32(i) - 4;
        base = base < 0 ? 0 : (base > w - 16 ? w - 16 : base);
        __m256i off = _mm256_sub_epi32(i, _mm256_set1_epi32(base));
        __m256i out = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), off),
                                      _mm256_cmpgt_epi32(off, span));
        if (_mm256_testz_si256(out, out)) {
            __m128i win = _mm_loadu_si128((const __m128i *)(s + base));
            __m128i o16 = _mm_packs_epi32(_mm256_castsi256_si128(off),
                                          _mm256_extracti128_si256(off, 1));
            __m128i o8 = _mm_packus_epi16(o16, o16);
            p0 = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(win, o8));
            p1 = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(win, _mm_add_epi8(o8, _mm_set1_epi8(1))));
        } else {
            __m256i g = _mm256_i32gather_epi32((const int *)s, i, 1);
            p0 = _mm256_and_si256(g, low);
            p1 = _mm256_and_si256(_mm256_srli_epi32(g, 8), low);
        }
        __m256i r = lerp8(p0, p1, a);
        __m128i r16 = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        _mm_storel_epi64((__m128i *)(d + x), _mm_packus_epi16(r16, r16));
    }
    row_u8(s, w, m + x, d + x, n - x);
}

/* Sixteen samples a step: the row window is 32 bytes, widened to 16-bit
 * words and read with one word permute per neighbour (AVX-512BW has no byte
 * permute); the arithmetic is the AVX2 loop's, so are the pixels. */
__attribute__((target("avx512f,avx512bw,avx2,fma"))) static void row_u8_avx512(
    const uint8_t *s, int w, const float *m, uint8_t *d, int n) {
    const __m512i low = _mm512_set1_epi32(0xff), span = _mm512_set1_epi32(30);
    const __m512i one = _mm512_set1_epi16(1);
    const __m512 last = _mm512_set1_ps((float)(w - 1)), last_pair = _mm512_set1_ps((float)(w - 2));
    int x = 0;
    for (; w >= 32 && x + 16 <= n; x += 16) {
        __m512 v = _mm512_max_ps(_mm512_loadu_ps(m + x), _mm512_setzero_ps());
        v = _mm512_min_ps(v, last);
        __m512 f = _mm512_min_ps(_mm512_roundscale_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
                                 last_pair);
        __m512 a = _mm512_sub_ps(v, f);
        __m512i i = _mm512_cvttps_epi32(f), p0, p1;
        int base = _mm_cvtsi128_si32(_mm512_castsi512_si128(i)) - 8;
        base = base < 0 ? 0 : (base > w - 32 ? w - 32 : base);
        __m512i off = _mm512_sub_epi32(i, _mm512_set1_epi32(base));
        if (_mm512_cmpgt_epu32_mask(off, span) == 0) { /* all in the window (negatives too big) */
            __m512i win = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(s + base)));
            __m512i o = _mm512_castsi256_si512(_mm512_cvtepi32_epi16(off));
            p0 = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(_mm512_permutexvar_epi16(o, win)));
            p1 = _mm512_cvtepu16_epi32(
                _mm512_castsi512_si256(_mm512_permutexvar_epi16(_mm512_add_epi16(o, one), win)));
        } else {
            __m512i g = _mm512_i32gather_epi32(i, (const void *)s, 1);
            p0 = _mm512_and_si512(g, low);
            p1 = _mm512_and_si512(_mm512_srli_epi32(g, 8), low);
        }
        __m512 f0 = _mm512_cvtepi32_ps(p0), f1 = _mm512_cvtepi32_ps(p1);
        __m512i r = _mm512_cvtps_epi32(_mm512_fmadd_ps(a, _mm512_sub_ps(f1, f0), f0));
        _mm_storeu_si128((__m128i *)(d + x), _mm512_cvtusepi32_epi8(r));
    }
    row_u8_avx2(s, w, m + x, d + x, n - x);
}

/* Reads 4 bytes at s + 2i for i <= w - 2: within the row. */
__attribute__((target("avx2,fma"))) static void row_u16_avx2(const uint16_t *s, int w, const float *m,
                                                          uint16_t *d, int n) {
    const __m256i low = _mm256_set1_epi32(0xffff);
    int x = 0;
    for (; x + 8 <= n; x += 8) {
        __m256 a;
        __m256i i = pairs8(m + x, w, &a);
        __m256i g = _mm256_i32gather_epi32((const int *)s, i, 2);
        __m256i r = lerp8(_mm256_and_si256(g, low), _mm256_srli_epi32(g, 16), a);
        __m128i r16 = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        _mm_storeu_si128((__m128i *)(d + x), r16);
    }
    row_u16(s, w, m + x, d + x, n - x);
}

int planes_simd(void) {
    static int known = -1;
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        if (known && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
            known = SIMD_AVX512;
    }
    return known;
}
#else
int planes_simd(void) { return SIMD_NONE; }
#endif

int planes_simd_level(int asked) {
    int best = planes_simd();
    asked = asked < SIMD_NONE ? SIMD_NONE : asked;
    return asked < best ? asked : best;
}

void rowwarp_row(const SrcPlane *src, int sr, const float *m, char *d, int n, int level) {
    const char *srow = src->buf + sr * src->stride;
    if (src->wide) {
#ifdef ROWWARP_X86
        if (level >= SIMD_AVX2) {
            row_u16_avx2((const uint16_t *)srow, src->w, m, (uint16_t *)d, n);
            return;
        }
#endif
        row_u16((const uint16_t *)srow, src->w, m, (uint16_t *)d, n);
        return;
    }
#ifdef ROWWARP_X86
    /* the gather reads two bytes past a row: never on the buffer's last one */
    int last = !src->padded && (src->stride > 0 ? sr == src->h - 1 : sr == 0);
    if (level >= SIMD_AVX512 && !last) {
        row_u8_avx512((const uint8_t *)srow, src->w, m, (uint8_t *)d, n);
        return;
    }
    if (level >= SIMD_AVX2 && !last) {
        row_u8_avx2((const uint8_t *)srow, src->w, m, (uint8_t *)d, n);
        return;
    }
#endif
    row_u8((const uint8_t *)srow, src->w, m, (uint8_t *)d, n);
}

void rowwarp_plane(const SrcPlane *src, const float *map, ptrdiff_t mstride, char *dst,
                   ptrdiff_t dstride, int rows, int cols, int simd) {
    int level = planes_simd_level(simd);
    for (int r = 0; r < rows; r++)
        rowwarp_row(src, r % src->h, (const float *)((const char *)map + r * mstride),
                    dst + r * dstride, cols, level);
}

/* Row r of rows as a position between plan rows: (row, weight of the next),
 * half-pixel centres, the ends held (OpenCV's bilinear resize along y). */
static int plan_row(int r, int rows, int prows, float *fy) {
    double sy = (r + 0.5) * prows / rows - 0.5;
    int y0 = (int)floor(sy);
    *fy = (float)(sy - y0);
    if (y0 < 0) {
        *fy = 0.0f;
        return 0;
    }
    if (y0 >= prows - 1) {
        *fy = 0.0f;
        return prows - 1;
    }
    return y0;
}

/* A widened map row: each of `eyes` blocks of v (`e` wide) upsampled 2x
 * (weights 1/4 and 3/4, the block's own ends held), positions doubled. The
 * ends apart, so that the loop between them vectorises. */
VECTOR_CLONES static void widen_row(const float *restrict v, int e, int eyes,
                                    float *restrict out) {
    for (int k = 0; k < eyes; k++, v += e, out += 2 * e) {
        for (int i = 1; i < e - 1; i++) {
            out[2 * i] = 2.0f * (0.25f * v[i - 1] + 0.75f * v[i]) + 0.5f;
            out[2 * i + 1] = 2.0f * (0.75f * v[i] + 0.25f * v[i + 1]) + 0.5f;
        }
        int last = e - 1;
        out[0] = 2.0f * v[0] + 0.5f;
        out[1] = 2.0f * (0.75f * v[0] + 0.25f * v[e > 1 ? 1 : 0]) + 0.5f;
        out[2 * last] = 2.0f * (0.25f * v[last > 0 ? last - 1 : 0] + 0.75f * v[last]) + 0.5f;
        out[2 * last + 1] = 2.0f * v[last] + 0.5f;
    }
}

/* v = p0 * (1 - fy) + p1 * fy over n positions. */
VECTOR_CLONES static void blend_rows(const float *restrict p0, const float *restrict p1, float fy,
                                     int n, float *restrict v) {
    const float f0 = 1.0f - fy;
    for (int c = 0; c < n; c++) v[c] = p0[c] * f0 + p1[c] * fy;
}

const float *plan_positions(const Plan *plan, int r, int rows, float *scratch) {
    float fy;
    int y0 = plan_row(r, rows, plan->rows, &fy), y1 = y0 + (fy > 0.0f);
    blend_rows((const float *)((const char *)plan->buf + y0 * plan->stride),
               (const float *)((const char *)plan->buf + y1 * plan->stride), fy, plan->cols,
               scratch);
    if (!plan->widen) return scratch;
    widen_row(scratch, plan->cols / plan->eyes, plan->eyes, scratch + plan->cols);
    return scratch + plan->cols;
}

int rowwarp_plan(const SrcPlane *src, const Plan *plan, char *dst, ptrdiff_t dstride, int rows,
                 int simd) {
    /* positions (3 cols floats), then a halved source row with room to gather past it */
    size_t row_bytes = src->halve ? ((size_t)src->w + 8) * (src->wide ? 2 : 1) : 0;
    float *scratch = malloc(sizeof(float) * 3 * (size_t)plan->cols + row_bytes);
    if (scratch == NULL) return -1;
    SrcPlane halved = {(const char *)(scratch + 3 * (size_t)plan->cols), 0, 1, src->w,
                       src->wide, HALVE_NONE, 1};
    int cols = plan->widen ? 2 * plan->cols : plan->cols, level = planes_simd_level(simd);
    for (int r = 0; r < rows; r++) {
        const float *m = plan_positions(plan, r, rows, scratch);
        int sr = r % src->h;
        if (src->halve) /* the row squeezed just before it is read (one call: both eyes) */
            halve_row(src, sr, (char *)halved.buf);
        rowwarp_row(src->halve ? &halved : src, src->halve ? 0 : sr, m, dst + r * dstride,
                    cols, level);
    }
    free(scratch);
    return 0;
}
