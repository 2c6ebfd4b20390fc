/* The engine's C loops over image planes (the extension stereo_inference._planes):
 * the warp's plan (warp_plan.c), row resampling for the CPU warp (rowwarp.c)
 * from rows halved first for the half layouts (halve.c) and the anaglyph mix
 * (anaglyph_mix.c); planes_module.c is their Python face. Strides in bytes. */
#ifndef STEREO_SPOT_PLANES_H
#define STEREO_SPOT_PLANES_H

#include <stddef.h>
#include <stdint.h>

/* A function the compiler vectorises twice, for AVX2 and for any x86-64 (or
 * the one way elsewhere), the CPU choosing at load time. */
#if defined(__x86_64__) && defined(__GNUC__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* The vector loops a call may use (its `simd` argument), each level
 * including the ones below: none, AVX2 + FMA, and AVX-512 (F and BW) for
 * the 8-bit row warp. */
enum { SIMD_NONE = 0, SIMD_AVX2 = 1, SIMD_AVX512 = 2 };

/* The best level this CPU runs; the level to use when `asked` at most. */
int planes_simd(void);
int planes_simd_level(int asked);

/* The warp plan of one row of w disparities d (stereo_inference.warp.plan_warp,
 * to the bit): the source x position each of the w right-view pixels samples,
 * into out. Holes take their background neighbour's position, continued away
 * from it when mirror. zbuf: scratch of w + 2 floats. */
void warp_plan_row(const float *d, int w, float max_stretch, int mirror, float *zbuf,
                   float *out);

/* How a source plane is read: as it is, or pair-averaged 2:1 along x or
 * along y (the half layouts' eyes, from full-size frames). */
enum { HALVE_NONE = 0, HALVE_X = 1, HALVE_Y = 2 };

/* A source plane as the warp reads it: h rows of w samples, uint16 when
 * wide, else uint8. When halved, buf holds twice as many samples along that
 * axis (stride is still one stored row's). padded: at least 4 bytes can be
 * read past its last row. */
typedef struct {
    const char *buf;
    ptrdiff_t stride;
    int h, w, wide, halve, padded;
} SrcPlane;

/* Row sr of a halved plane (src->halve) into row (w samples): the means of
 * its sample pairs rounded as OpenCV's 2:1 linear resize rounds them, halves
 * up for uint8, ties to even for uint16. */
void halve_row(const SrcPlane *src, int sr, char *row);

/* Row d (n samples) from source row sr read at positions m, with the vector
 * loops of `level` (planes_simd_level) at most. */
void rowwarp_row(const SrcPlane *src, int sr, const float *m, char *d, int n, int level);

/* dst[r, x] = src[r % h] read at map[r, x] (rows x cols). */
void rowwarp_plane(const SrcPlane *src, const float *map, ptrdiff_t mstride, char *dst,
                   ptrdiff_t dstride, int rows, int cols, int simd);

/* A warp plan: rows x cols source positions, `eyes` blocks side by side; when
 * widen, made at half width (each block is stretched 2x along x, positions
 * doubled). */
typedef struct {
    const float *buf;
    ptrdiff_t stride;
    int rows, cols, eyes, widen;
} Plan;

/* The positions of row r of a plane `rows` high: the plan's rows stretched
 * (linearly, half-pixel centres), widened when asked; cols (2 cols when
 * widened) floats inside scratch, which holds 3 cols. */
const float *plan_positions(const Plan *plan, int r, int rows, float *scratch);

/* rowwarp_plane with the map made row by row from plan (plan_positions),
 * each source row halved first when src->halve. Returns -1 when out of
 * memory. */
int rowwarp_plan(const SrcPlane *src, const Plan *plan, char *dst, ptrdiff_t dstride, int rows,
                 int simd);

/* The anaglyph mix's coefficients: output (luma's chroma-size part, U, V) =
 * left[k] . (U, V, luma, 1) + right[k] . (U, V, luma, 1) over the eyes' planes
 * at chroma size (the eye's luma averaged 2x2); the luma output = a * left
 * luma + b * right luma + its chroma-size part upsampled (bilinear). */
typedef struct {
    float left[12], right[12], a, b;
} MixCoefficients;

/* Where the anaglyph comes from and goes: the source's planes (y h x w, u and
 * v h/2 x w/2, warped here by `plan`, made at chroma width for both eyes) and
 * the output's (out_y h x w, out_u and out_v h/2 x w/2). */
typedef struct {
    SrcPlane y, u, v;
    Plan plan;
    uint8_t *out_y, *out_u, *out_v;
    ptrdiff_t y_stride, u_stride, v_stride;
} AnaglyphPlanes;

/* Both eyes warped and mixed into the anaglyph row by row, every
 * intermediate in row buffers. Returns -1 when out of memory. */
int anaglyph_warp_mix(const AnaglyphPlanes *p, const MixCoefficients *c, int simd);

#endif
