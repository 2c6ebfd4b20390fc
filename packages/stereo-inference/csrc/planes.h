/* The engine's C loops over image planes (the extension stereo_inference._planes):
 * row resampling for the CPU warp (rowwarp.c) and the anaglyph mix
 * (anaglyph_mix.c); planes_module.c is their Python face. Strides in bytes. */
#ifndef STEREO_SPOT_PLANES_H
#define STEREO_SPOT_PLANES_H

#include <stddef.h>
#include <stdint.h>

/* Whether this CPU runs the AVX2 + FMA loops. */
int planes_have_avx2(void);

/* A source plane: h rows of w samples, uint16 when wide, else uint8. */
typedef struct {
    const char *buf;
    ptrdiff_t stride;
    int h, w, wide;
} SrcPlane;

/* dst[r, x] = src[r % h] read at map[r, x] (rows x cols). */
void rowwarp_plane(const SrcPlane *src, const float *map, ptrdiff_t mstride, char *dst,
                   ptrdiff_t dstride, int rows, int cols, int simd);

/* The same with the map made row by row from a warp plan (prows x pcols): its
 * rows stretched to dst's (linearly, half-pixel centres), and when widen, each
 * of its `eyes` blocks stretched 2x along x with positions doubled (a plan
 * made at half width). Returns -1 when out of memory. */
int rowwarp_plan(const SrcPlane *src, const float *plan, ptrdiff_t pstride, int prows,
                 int pcols, int eyes, int widen, char *dst, ptrdiff_t dstride, int rows,
                 int simd);

/* Where the mix reads and writes: eyes side by side, the output's three planes. */
typedef struct {
    const uint8_t *luma, *u, *v; /* (h, 2w), (h/2, w), (h/2, w): left eye, then right */
    ptrdiff_t luma_stride, u_stride, v_stride;
    uint8_t *out_y, *out_u, *out_v; /* (h, w), (h/2, w/2), (h/2, w/2) */
    ptrdiff_t y_stride, u_out_stride, v_out_stride;
    int h, w;
} MixPlanes;

/* The anaglyph of two warped eyes: each output (luma's chroma-size part, U, V)
 * = left[k] . (U, V, luma, 1) + right[k] . (U, V, luma, 1) at chroma size (the
 * eye's luma averaged 2x2); the luma output = a * left luma + b * right luma +
 * its chroma-size part upsampled (bilinear). Returns -1 when out of memory. */
int anaglyph_mix(const MixPlanes *p, const float left[12], const float right[12], float a,
                 float b);

#endif
