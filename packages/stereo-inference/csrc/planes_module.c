/* stereo_inference._planes: the Python face of the engine's C plane loops.
 *
 * Arguments are numpy arrays (any object with the buffer protocol) checked
 * for kind and shape here, so the loops in warp_plan.c, rowwarp.c, halve.c
 * and anaglyph_mix.c see only valid planes; those loops run without the GIL. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "planes.h"

#define MAX_VIEWS 8

typedef struct {
    Py_buffer views[MAX_VIEWS];
    int count;
} Views;

static void release(Views *v) {
    for (int i = 0; i < v->count; i++) PyBuffer_Release(&v->views[i]);
    v->count = 0;
}

#define FAILED (-2) /* the reason is set already */

/* The views released; None after a loop's 0, else its error (-1: out of memory). */
static PyObject *done(Views *v, int rc) {
    release(v);
    if (rc == 0) Py_RETURN_NONE;
    if (rc == -1) PyErr_NoMemory();
    return NULL;
}

static char kind(const Py_buffer *view) {
    const char *f = view->format;
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    return (f[0] != '\0' && f[1] == '\0') ? f[0] : '?';
}

/* A 2-D plane of kind `want` ('B' uint8, 'H' uint16, 'f' float32, 0 any of B/H),
 * contiguous along x; NULL with the reason set otherwise. */
static Py_buffer *view(Views *v, PyObject *obj, const char *name, char want, int writable) {
    Py_buffer *view = &v->views[v->count];
    int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return NULL;
    v->count++;
    if (view->ndim != 2 || view->strides[1] != view->itemsize || view->shape[0] > INT_MAX
        || view->shape[1] > INT_MAX / 2) {
        PyErr_Format(PyExc_ValueError, "%s must be 2-D and contiguous along x", name);
        return NULL;
    }
    char k = kind(view);
    int ok = want ? (k == want) : ((k == 'B' && view->itemsize == 1)
                                   || (k == 'H' && view->itemsize == 2));
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s must be %s", name,
                     want == 'f' ? "float32" : (want == 'B' ? "uint8" : "uint8 or uint16"));
        return NULL;
    }
    return view;
}

static int shaped(const Py_buffer *view, Py_ssize_t rows, Py_ssize_t cols, const char *name) {
    if (view->shape[0] == rows && view->shape[1] == cols) return 0;
    PyErr_Format(PyExc_ValueError, "%s must be %zd x %zd, not %zd x %zd", name, rows, cols,
                 view->shape[0], view->shape[1]);
    return -1;
}

/* src and dst of one kind, dst a whole number of the rows src is read as
 * (halved: half its rows or samples, which must be even): the source plane. */
static int source(const Py_buffer *src, const Py_buffer *dst, int halve, SrcPlane *out) {
    if (kind(src) != kind(dst)) {
        PyErr_SetString(PyExc_TypeError, "src and dst must both be uint8 or both uint16");
        return -1;
    }
    Py_ssize_t h = src->shape[0], w = src->shape[1];
    if ((halve == HALVE_X && w % 2) || (halve == HALVE_Y && h % 2)) {
        PyErr_SetString(PyExc_ValueError, "a halved src must have an even size along that axis");
        return -1;
    }
    h /= halve == HALVE_Y ? 2 : 1;
    w /= halve == HALVE_X ? 2 : 1;
    if (h < 1 || w < 2 || dst->shape[0] % h != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "dst must be a whole number of src's rows, src at least 2 samples wide");
        return -1;
    }
    *out = (SrcPlane){src->buf, src->strides[0], (int)h, (int)w, kind(src) == 'H', halve, 0};
    return 0;
}

static PyObject *remap_x(PyObject *self, PyObject *args) {
    PyObject *src_obj, *map_obj, *dst_obj;
    int simd = SIMD_AVX512;
    if (!PyArg_ParseTuple(args, "OOO|i", &src_obj, &map_obj, &dst_obj, &simd)) return NULL;
    Views v = {.count = 0};
    Py_buffer *src, *map, *dst;
    SrcPlane plane;
    if (!(src = view(&v, src_obj, "src", 0, 0)) || !(map = view(&v, map_obj, "map_x", 'f', 0))
        || !(dst = view(&v, dst_obj, "dst", 0, 1)) || source(src, dst, HALVE_NONE, &plane) < 0
        || shaped(map, dst->shape[0], dst->shape[1], "map_x") < 0)
        goto fail;
    Py_BEGIN_ALLOW_THREADS
    rowwarp_plane(&plane, map->buf, map->strides[0], dst->buf, dst->strides[0],
                  (int)dst->shape[0], (int)dst->shape[1], simd);
    Py_END_ALLOW_THREADS
    return done(&v, 0);
fail:
    return done(&v, FAILED);
}

static PyObject *remap_plan(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"src", "plan", "dst", "eyes", "widen", "simd", "halve", NULL};
    PyObject *src_obj, *plan_obj, *dst_obj;
    int eyes = 1, widen = 0, simd = SIMD_AVX512, halve = HALVE_NONE;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|ipii", keywords, &src_obj, &plan_obj,
                                     &dst_obj, &eyes, &widen, &simd, &halve))
        return NULL;
    if (halve < HALVE_NONE || halve > HALVE_Y) {
        PyErr_SetString(PyExc_ValueError, "halve must be 0 (none), 1 (along x) or 2 (along y)");
        return NULL;
    }
    Views v = {.count = 0};
    Py_buffer *src, *plan, *dst;
    SrcPlane plane;
    if (!(src = view(&v, src_obj, "src", 0, 0)) || !(plan = view(&v, plan_obj, "plan", 'f', 0))
        || !(dst = view(&v, dst_obj, "dst", 0, 1)) || source(src, dst, halve, &plane) < 0)
        goto fail;
    Py_ssize_t pcols = plan->shape[1];
    if (eyes < 1 || pcols % eyes != 0 || plan->shape[0] < 1) {
        PyErr_SetString(PyExc_ValueError, "plan must have rows and split into `eyes` blocks");
        goto fail;
    }
    if (shaped(dst, dst->shape[0], widen ? 2 * pcols : pcols, "dst") < 0) goto fail;
    Plan p = {plan->buf, plan->strides[0], (int)plan->shape[0], (int)pcols, eyes, widen};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = rowwarp_plan(&plane, &p, dst->buf, dst->strides[0], (int)dst->shape[0], simd);
    Py_END_ALLOW_THREADS
    return done(&v, rc);
fail:
    return done(&v, FAILED);
}

static PyObject *plan_warp(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"disparity", "out", "max_stretch", "mirror", NULL};
    PyObject *d_obj, *out_obj;
    float max_stretch;
    int mirror = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOf|p", keywords, &d_obj, &out_obj,
                                     &max_stretch, &mirror))
        return NULL;
    Views v = {.count = 0};
    Py_buffer *d, *out;
    if (!(d = view(&v, d_obj, "disparity", 'f', 0)) || !(out = view(&v, out_obj, "out", 'f', 1))
        || shaped(out, d->shape[0], d->shape[1], "out") < 0)
        goto fail;
    if (!(max_stretch >= 0.0f && max_stretch < 64.0f)) {
        PyErr_SetString(PyExc_ValueError, "max_stretch must be in [0, 64)");
        goto fail;
    }
    int rows = (int)d->shape[0], w = (int)d->shape[1], rc = 0;
    float *zbuf = w > 0 ? malloc(sizeof(float) * ((size_t)w + 2)) : NULL;
    if (w > 0 && zbuf == NULL) rc = -1;
    else if (w > 0) {
        Py_BEGIN_ALLOW_THREADS
        for (int r = 0; r < rows; r++) {
            const char *row = (const char *)d->buf + r * d->strides[0];
            char *dst = (char *)out->buf + r * out->strides[0];
            warp_plan_row((const float *)row, w, max_stretch, mirror, zbuf, (float *)dst);
        }
        Py_END_ALLOW_THREADS
    }
    free(zbuf);
    return done(&v, rc);
fail:
    return done(&v, FAILED);
}

/* Twelve float32 coefficients (a 3x4 matrix), C-contiguous, copied out. */
static int matrix(PyObject *obj, const char *name, float out[12]) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    int ok = kind(&view) == 'f' && view.len == 12 * (Py_ssize_t)sizeof(float);
    if (ok) memcpy(out, view.buf, sizeof(float) * 12);
    else PyErr_Format(PyExc_TypeError, "%s must be 3x4 float32", name);
    PyBuffer_Release(&view);
    return ok ? 0 : -1;
}

static PyObject *anaglyph(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"y", "u", "v", "plan", "out_y", "out_u", "out_v", "left",
                               "right", "a", "b", "simd", NULL};
    PyObject *objs[7], *lobj, *robj;
    MixCoefficients c;
    int simd = SIMD_AVX512;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOOOOff|i", keywords, &objs[0], &objs[1],
                                     &objs[2], &objs[3], &objs[4], &objs[5], &objs[6], &lobj,
                                     &robj, &c.a, &c.b, &simd))
        return NULL;
    if (matrix(lobj, "left", c.left) < 0 || matrix(robj, "right", c.right) < 0) return NULL;
    static const char *names[7] = {"y", "u", "v", "plan", "out_y", "out_u", "out_v"};
    Views v = {.count = 0};
    Py_buffer *p[7];
    for (int i = 0; i < 7; i++)
        if (!(p[i] = view(&v, objs[i], names[i], i == 3 ? 'f' : 'B', i >= 4))) goto fail;
    Py_ssize_t h = p[0]->shape[0], w = p[0]->shape[1];
    if (h % 2 || w % 2 || h < 2 || w < 4) {
        PyErr_SetString(PyExc_ValueError, "y must be an even size, at least 4 wide");
        goto fail;
    }
    Py_ssize_t sizes[7][2] = {{h, w}, {h / 2, w / 2}, {h / 2, w / 2}, {p[3]->shape[0], w},
                              {h, w}, {h / 2, w / 2}, {h / 2, w / 2}};
    for (int i = 0; i < 7; i++)
        if (shaped(p[i], sizes[i][0], sizes[i][1], names[i]) < 0) goto fail;
    if (p[3]->shape[0] < 1) {
        PyErr_SetString(PyExc_ValueError, "plan must have rows");
        goto fail;
    }
    AnaglyphPlanes planes = {
        {p[0]->buf, p[0]->strides[0], (int)h, (int)w, 0},
        {p[1]->buf, p[1]->strides[0], (int)h / 2, (int)w / 2, 0},
        {p[2]->buf, p[2]->strides[0], (int)h / 2, (int)w / 2, 0},
        {p[3]->buf, p[3]->strides[0], (int)p[3]->shape[0], (int)w, 2, 0},
        p[4]->buf, p[5]->buf, p[6]->buf, p[4]->strides[0], p[5]->strides[0], p[6]->strides[0]};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = anaglyph_warp_mix(&planes, &c, simd);
    Py_END_ALLOW_THREADS
    return done(&v, rc);
fail:
    return done(&v, FAILED);
}

static PyObject *simd(PyObject *self, PyObject *noargs) {
    static const char *names[] = {"scalar", "avx2", "avx512"};
    return PyUnicode_FromString(names[planes_simd()]);
}

static PyMethodDef methods[] = {
    {"plan_warp", (PyCFunction)(void (*)(void))plan_warp, METH_VARARGS | METH_KEYWORDS,
     "plan_warp(disparity, out, max_stretch, mirror=False): the warp plan of each row of "
     "disparity (rows x w float32) into out (the same): stereo_inference.warp.plan_warp's "
     "values, to the bit; mirror is its fill='mirror'."},
    {"remap_x", remap_x, METH_VARARGS,
     "remap_x(src, map_x, dst, simd=2): dst[r, x] = src[r % h] read at map_x[r, x], "
     "linearly, the ends replicated (OpenCV's bilinear remap along rows, to the bit). simd: the "
     "vector loops it may use, 0 none, 1 AVX2, 2 AVX-512 (where the CPU has them)."},
    {"remap_plan", (PyCFunction)(void (*)(void))remap_plan, METH_VARARGS | METH_KEYWORDS,
     "remap_plan(src, plan, dst, eyes=1, widen=False, simd=2, halve=0): remap_x with the map "
     "made row by row from a warp plan: its rows stretched to dst's (linearly, half-pixel "
     "centres) and, when widen, each of its eyes blocks stretched 2x along x, positions "
     "doubled (a plan made at half width). halve 1 or 2: src is read pair-averaged along x "
     "or y (OpenCV's 2:1 resize, to the bit), row by row."},
    {"anaglyph", (PyCFunction)(void (*)(void))anaglyph, METH_VARARGS | METH_KEYWORDS,
     "anaglyph(y, u, v, plan, out_y, out_u, out_v, left, right, a, b, simd=2): the "
     "anaglyph of a frame's planes (y h x w, u and v h/2 x w/2), both eyes warped by plan "
     "(rows x w: the two eyes' plans at chroma width, side by side) and mixed into the "
     "output planes; left and right are 3x4 float32 matrices over (U, V, luma at chroma "
     "size, 1), a and b the luma weights."},
    {"simd", simd, METH_NOARGS, "The best vector loops this CPU runs: scalar, avx2 or avx512."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_planes",
                                    "The engine's C loops over image planes.", -1, methods};

PyMODINIT_FUNC PyInit__planes(void) { return PyModule_Create(&module); }
