/* The warp plan of disparity rows (stereo_inference.warp says what it means
 * and holds the reference, vectorised for numpy and torch): one row at a time,
 * its z-buffer of w + 2 floats in the cache, so the same values come out as
 * from the array code, bit for bit, in a tenth of its time. Every operation
 * below is the array code's, in float32 and in its order, one rounding each
 * (the extension is built with -ffp-contract=off: no fused multiply-adds). */
#include "planes.h"

#include <math.h>

/* Target t (a whole number) of a row `w` wide covered at disparity z: the
 * largest z wins. Cells 0 and w + 1 are the pads that collect every target off
 * the row (t < 0 or t >= w). */
static inline void cover(float *zbuf, float t, int w, float z) {
    float c = t < -1.0f ? -1.0f : t; /* branch-free: max, min and max again */
    c = c > (float)w ? (float)w : c;
    float *cell = zbuf + (int)c + 1, old = *cell;
    *cell = z > old ? z : old;
}

/* A pixel beside a torn or folded segment (or at a row end) covers its
 * nearest target, rounded half to even as numpy rounds. */
static inline void cover_edge(float *zbuf, const float *d, int p, int w) {
    cover(zbuf, rintf((float)p - d[p]), w, d[p]);
}

/* Each unfolded segment [p, p + 1] not stretched past max_stretch covers the
 * targets inside it at its linearly interpolated disparity. */
static inline __attribute__((always_inline)) void cover_row(float *zbuf, const float *d, int w, float max_stretch) {
    const int extra = (int)max_stretch; /* further targets a stretched segment can hold */
    cover_edge(zbuf, d, 0, w);
    cover_edge(zbuf, d, w - 1, w);
    for (int p = 0; p + 1 < w; p++) {
        float f0 = (float)p - d[p], f1 = (float)(p + 1) - d[p + 1];
        float span = f1 - f0;
        if (span <= 1e-3f || span > max_stretch) { /* folded or torn: a depth edge */
            cover_edge(zbuf, d, p, w);
            cover_edge(zbuf, d, p + 1, w);
            continue;
        }
        float t = ceilf(f0), room = f1 - t;
        if (room < 0.0f) continue; /* no target inside */
        float slope = d[p + 1] - d[p];
        slope /= span;
        float z = t - f0;
        z *= slope;
        z += d[p];
        cover(zbuf, t, w, z);
        for (int k = 1; k <= extra && room >= (float)k; k++)
            cover(zbuf, t + (float)k, w, z + slope * (float)k);
    }
}

/* The source position of z-buffer cell i (column i - 1) that was covered. */
static inline float position(const float *zbuf, int i) { return zbuf[i] + (float)(i - 1); }

/* Each hole (a cell nothing covered) takes the source position of its
 * background-side neighbour, the nearest covered cell on that side: the one
 * of smaller disparity, or the only one. Mirror continues the texture away
 * from the hole's edge between two surfaces; a row nothing covers samples in
 * place. Then every position is clamped into the row: out[x] for cell x + 1. */
static inline __attribute__((always_inline)) void positions_row(const float *zbuf, int w, int mirror, float *out) {
    for (int i = 1; i <= w;) {
        if (!isinf(zbuf[i])) {
            out[i - 1] = position(zbuf, i);
            i++;
            continue;
        }
        int end = i;
        while (end < w && isinf(zbuf[end + 1])) end++;
        int left = i - 1, right = end + 1; /* a covered cell, or a pad */
        int has_left = left > 0, has_right = right <= w;
        int nb = has_right && (!has_left || zbuf[right] <= zbuf[left]) ? right : left;
        for (int h = i; h <= end; h++) {
            if (!has_left && !has_right) out[h - 1] = (float)(h - 1);
            else if (mirror && has_left && has_right)
                out[h - 1] = position(zbuf, nb) + (float)(nb - h);
            else out[h - 1] = position(zbuf, nb);
        }
        i = end + 1;
    }
    const float last = (float)(w - 1);
    for (int x = 0; x < w; x++) {
        float v = out[x] < 0.0f ? 0.0f : out[x];
        out[x] = v > last ? last : v;
    }
}

/* Cloned for AVX2 (everything above inlines into it): there ceilf and rintf
 * are one instruction each, which x86-64's baseline lacks. */
VECTOR_CLONES void warp_plan_row(const float *d, int w, float max_stretch, int mirror,
                                 float *zbuf, float *out) {
    for (int i = 0; i < w + 2; i++) zbuf[i] = -INFINITY;
    cover_row(zbuf, d, w, max_stretch);
    positions_row(zbuf, w, mirror, out);
}
