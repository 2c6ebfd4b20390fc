"""Generated video scenes with exact depth, for ``bench/depth_quality.py``.

A tiny numpy ray caster: a pinhole camera over a textured ground plane, a
textured back wall, and textured boxes and spheres standing on the ground.
Every surface carries a solid (3-D value-noise) texture and Lambert shading,
so optical flow has something to track and nothing is hand-painted onto the
image. Each frame comes with its exact camera-space depth (metres along the
optical axis), so an estimator's ordering of pixels can be checked exactly.

Scenes (each ``seconds`` long, default 2 s at 24 fps):
- ``static``: a fixed camera;
- ``static-2``: another fixed camera on another layout (raised, turned a
  little), one that was not looked at while the weight-free cues were tuned;
- ``truck-pan``: the camera slides sideways and pans slowly to follow;
- ``dolly``: the camera moves forward;
- ``object``: a fixed camera, one box moving across in front of the rest;
- ``cut``: a truck shot that cuts to a different static layout half-way;
- ``pan``: a pure rotation (no parallax: motion carries no depth).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

GROUND_Y = -1.5  # the camera is 1.5 m above the ground
WALL_Z = 24.0


@dataclass
class Box:
    lo: np.ndarray
    hi: np.ndarray
    color: tuple[float, float, float]
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))


@dataclass
class Sphere:
    center: np.ndarray
    radius: float
    color: tuple[float, float, float]


@dataclass
class Layout:
    boxes: list[Box]
    spheres: list[Sphere]
    seed: int
    side_x: float = -4.5  # a side wall (a building front) along the z axis


def _noise3(p: np.ndarray, seed: int, scale: float) -> np.ndarray:
    """Trilinear value noise in 0..1 at points p (...,3), features ``scale`` metres apart."""
    rng = np.random.default_rng(seed)
    table = rng.random(4096).astype(np.float32)
    q = p / scale
    i = np.floor(q).astype(np.int64)
    f = q - i
    f = f * f * (3 - 2 * f)
    out = np.zeros(p.shape[:-1], np.float32)
    for dx in (0, 1):
        for dy in (0, 1):
            for dz in (0, 1):
                h = ((i[..., 0] + dx) * 73856093 ^ (i[..., 1] + dy) * 19349663
                     ^ (i[..., 2] + dz) * 83492791) & 4095
                w = ((f[..., 0] if dx else 1 - f[..., 0]) * (f[..., 1] if dy else 1 - f[..., 1])
                     * (f[..., 2] if dz else 1 - f[..., 2]))
                out += w * table[h]
    return out


def _texture(p: np.ndarray, seed: int) -> np.ndarray:
    return 0.5 * _noise3(p, seed, 0.35) + 0.3 * _noise3(p, seed + 1, 0.09) + 0.2 * _noise3(
        p, seed + 2, 1.3)


def make_layout(seed: int) -> Layout:
    rng = np.random.default_rng(seed)
    boxes, spheres = [], []
    for k in range(5):
        x, z = rng.uniform(-3.5, 3.5), rng.uniform(3.0, 14)
        w, d = rng.uniform(0.6, 1.6), rng.uniform(0.5, 1.5)
        h = rng.uniform(4.0, 7.0) if k < 2 else rng.uniform(0.8, 2.8)  # two tall pillars
        boxes.append(Box(np.array([x - w / 2, GROUND_Y, z - d / 2]),
                         np.array([x + w / 2, GROUND_Y + h, z + d / 2]),
                         tuple(rng.uniform(0.3, 1.0, 3))))
    for _ in range(2):
        r = rng.uniform(0.4, 0.9)
        spheres.append(Sphere(np.array([rng.uniform(-3, 3), GROUND_Y + r, rng.uniform(3, 12)]),
                              r, tuple(rng.uniform(0.3, 1.0, 3))))
    return Layout(boxes, spheres, seed, -4.5 if seed % 2 else 4.5)


def render(layout: Layout, eye: np.ndarray, yaw: float, t: float,
           size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(rgb uint8 (h,w,3), depth float32 (h,w) in metres along the optical axis)."""
    w, h = size
    f = 0.9 * w
    u, v = np.meshgrid(np.arange(w) + 0.5 - w / 2, np.arange(h) + 0.5 - h / 2)
    cam = np.stack([u / f, -v / f, np.ones_like(u)], -1).astype(np.float32)  # z = 1
    c, s = np.cos(yaw), np.sin(yaw)
    rot = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], np.float32)
    d = cam @ rot.T  # world directions; the hit parameter t_hit is the camera depth
    best = np.full((h, w), np.inf, np.float32)
    normal = np.zeros((h, w, 3), np.float32)
    albedo = np.zeros((h, w, 3), np.float32)
    seed = np.zeros((h, w), np.int64)

    def take(t_hit, n, col, sd):
        mask = (t_hit > 1e-3) & (t_hit < best)
        best[mask] = t_hit[mask]
        normal[mask] = n[mask] if n.ndim == 3 else n
        albedo[mask] = col
        seed[mask] = sd

    with np.errstate(divide="ignore", invalid="ignore"):
        take((GROUND_Y - eye[1]) / d[..., 1], np.array([0, 1, 0], np.float32),
             (0.55, 0.5, 0.4), 1)
        take((WALL_Z - eye[2]) / d[..., 2], np.array([0, 0, -1], np.float32),
             (0.5, 0.6, 0.75), 2)
        side = (layout.side_x - eye[0]) / d[..., 0]
        take(np.where(np.abs(d[..., 0]) > 1e-6, side, np.inf),
             np.array([-np.sign(layout.side_x), 0, 0], np.float32), (0.7, 0.6, 0.55), 3)
        for k, box in enumerate(layout.boxes):
            lo, hi = box.lo + box.velocity * t - eye, box.hi + box.velocity * t - eye
            t1, t2 = lo / d, hi / d
            tmin, tmax = np.minimum(t1, t2), np.maximum(t1, t2)
            enter, leave = tmin.max(-1), tmax.min(-1)
            axis = tmin.argmax(-1)
            n = np.zeros((h, w, 3), np.float32)
            np.put_along_axis(n, axis[..., None], -np.sign(
                np.take_along_axis(d, axis[..., None], -1)), -1)
            take(np.where(enter <= leave, enter, np.inf), n, box.color, 10 + k)
        for k, sph in enumerate(layout.spheres):
            oc = eye - sph.center
            a = (d * d).sum(-1)
            b = (oc * d).sum(-1)
            disc = b * b - a * ((oc * oc).sum() - sph.radius ** 2)
            t_hit = np.where(disc >= 0, (-b - np.sqrt(np.maximum(disc, 0))) / a, np.inf)
            n = (eye + d * t_hit[..., None] - sph.center) / sph.radius
            take(t_hit, np.nan_to_num(n), sph.color, 30 + k)
    point = eye + d * best[..., None]
    tex = np.zeros((h, w), np.float32)
    for sd in np.unique(seed):
        m = seed == sd
        tex[m] = _texture(point[m], layout.seed * 100 + int(sd))
    light = np.array([0.4, 0.8, -0.45], np.float32)
    light /= np.linalg.norm(light)
    shade = 0.45 + 0.55 * np.clip((normal * light).sum(-1), 0, 1)
    rgb = albedo * (0.35 + 0.9 * tex)[..., None] * shade[..., None]
    return (np.clip(rgb, 0, 1) * 255).astype(np.uint8), best


SCENES = ("static", "static-2", "truck-pan", "dolly", "object", "cut", "pan",
          "closeup", "closeup-2")


def closeup_layout(seed: int) -> Layout:
    """Someone close to a still camera in front of a room's wall: a torso (a box
    cut by the bottom of the frame) and a head (a sphere), a side table further
    back, the wall a few metres behind; little or no floor in sight."""
    rng = np.random.default_rng(seed)
    wall_z = rng.uniform(4.0, 6.0)
    x, z = rng.uniform(-0.5, 0.5), rng.uniform(1.5, 2.2)
    width = rng.uniform(0.6, 0.9)
    top = rng.uniform(-0.45, -0.2)
    boxes = [
        Box(np.array([-12.0, GROUND_Y, wall_z]), np.array([12.0, 8.0, wall_z + 0.2]),
            tuple(rng.uniform(0.4, 0.9, 3))),
        Box(np.array([x - width / 2, GROUND_Y, z - 0.15]), np.array([x + width / 2, top, z + 0.15]),
            tuple(rng.uniform(0.3, 1.0, 3))),
    ]
    side = -1 if x > 0 else 1
    tx, tz = side * rng.uniform(1.2, 1.8), rng.uniform(2.8, wall_z - 0.6)
    boxes.append(Box(np.array([tx - 0.35, GROUND_Y, tz - 0.35]),
                     np.array([tx + 0.35, GROUND_Y + rng.uniform(0.9, 1.4), tz + 0.35]),
                     tuple(rng.uniform(0.3, 1.0, 3))))
    head = Sphere(np.array([x, top + 0.3, z]), 0.22, tuple(rng.uniform(0.5, 1.0, 3)))
    return Layout(boxes, [head], seed, side_x=side * 30.0)


def scene_frames(name: str, *, seconds: float = 2.0, fps: int = 24,
                 size: tuple[int, int] = (320, 180)):
    """Yield (rgb, depth) for every frame of scene ``name``."""
    n = max(2, round(seconds * fps))
    base = make_layout(7)
    mover = Box(np.array([-3.6, GROUND_Y, 3.0]), np.array([-2.6, GROUND_Y + 1.6, 3.8]),
                (0.9, 0.35, 0.3), velocity=np.array([2.8, 0.0, 0.0]))
    other = make_layout(12)
    unseen = make_layout(101)
    for i in range(n):
        t = i / fps
        eye, yaw, layout = np.array([0.0, 0.0, 0.0]), 0.0, base
        if name == "truck-pan":
            eye, yaw = np.array([-1.2 + 1.2 * t, 0.0, 0.0]), -0.03 * t
        elif name == "dolly":
            eye = np.array([0.0, 0.0, -1.0 + 1.5 * t])
        elif name == "object":
            layout = Layout(base.boxes + [mover], base.spheres, base.seed, base.side_x)
        elif name == "static-2":
            layout, eye, yaw = unseen, np.array([0.6, 0.4, -0.8]), -0.08
        elif name == "pan":
            yaw = -0.12 + 0.12 * t
        elif name == "cut":
            if i < n // 2:
                eye = np.array([-1.2 + 1.5 * t, 0.0, 0.0])
            else:
                layout, eye, yaw = other, np.array([0.5, 0.0, 0.5]), 0.1
        elif name in ("closeup", "closeup-2"):
            layout = closeup_layout(3 if name == "closeup" else 58)
        elif name != "static":
            raise ValueError(f"unknown scene {name!r}; choose one of {', '.join(SCENES)}")
        yield render(layout, eye.astype(np.float32), yaw, t, size)
