"""A small z-buffered ray caster of planar polygons: what a camera above the table photographs.

Every surface — the table, the board tops (with pit holes), the board edges, pit walls and floors,
every face of every piece — is a planar polygon in the table frame (mm).  Each is rasterised in
the *distorted* image (its projected outline is subdivided so straight edges bend with the lens),
and each pixel's depth and table-frame position come from the exact ray through that pixel, so
occlusion, parallax of piece heights and lens distortion are all exact.  Shading: a point lamp
(Lambert + a specular glare on glossy prints), ambient light, soft shadows cast by the pieces onto
the boards and the table.  The sensor then adds vignetting, blur, noise and JPEG compression
(:mod:`simulator.effects`).

The renderer works at ``supersample`` times the output resolution and averages down, which
anti-aliases edges like a real sensor does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.camera import CameraModel, Intrinsics
from calibration.model import Layout
from calibration.profile import BoardProfile

from . import art
from .effects import BAND_PIXELS, apply_sensor, light_color
from .scene import PieceTruth, SceneFile
from .shapes import Prism, piece_prisms, piece_to_table, solid_vertices, table_to_piece

LABEL_TABLE = -1
LABEL_NONE = -2
LABEL_BOARD = 10000  # + tile index
LABEL_HAND = 20000


@dataclass
class RenderResult:
    image: np.ndarray   # BGR uint8 as the camera delivers it (after JPEG if encoded)
    label: np.ndarray   # int32 per output pixel: piece id, LABEL_BOARD + tile index, LABEL_TABLE, LABEL_HAND
    jpeg: bytes | None  # the encoded file, if JPEG was requested


def _subdivide(poly: np.ndarray, max_seg: float) -> np.ndarray:
    """Closed 3-D polygon (K,3) with extra points so that no edge is longer than max_seg."""
    out = []
    k = len(poly)
    for i in range(k):
        a, b = poly[i], poly[(i + 1) % k]
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / max_seg)))
        t = np.arange(n)[:, None] / n
        out.append(a + (b - a) * t)
    return np.concatenate(out)


def _newell_normal(poly: np.ndarray) -> np.ndarray:
    n = np.zeros(3)
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        n += np.array([(a[1] - b[1]) * (a[2] + b[2]), (a[2] - b[2]) * (a[0] + b[0]), (a[0] - b[0]) * (a[1] + b[1])])
    return n / (np.linalg.norm(n) + 1e-12)


@lru_cache(maxsize=4)
def _normalized_grid(key: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Undistorted normalised coordinates of every pixel of an image: exact on a 4-px grid,
    bilinear in between (the distortion field is smooth; the error is far below 0.01 px)."""
    w, h, K, dist = key
    intr = Intrinsics((w, h), np.array(K).reshape(3, 3), np.array(dist))
    g, k = 4, 4
    # grid points at pixel positions g*i + o; cv2.resize (bilinear, float) then maps output
    # index j to pixel j - 1.5 + o, so with o = 1.5 - k the output is shifted by k pixels.
    o = 1.5 - k
    nx = (w + 2 * k) // g + 2
    ny = (h + 2 * k) // g + 2
    GX, GY = np.meshgrid(g * np.arange(nx) + o, g * np.arange(ny) + o)
    n = intr.normalized_from_px(np.column_stack([GX.ravel(), GY.ravel()])).reshape(ny, nx, 2).astype(np.float32)
    up = cv2.resize(n, (nx * g, ny * g), interpolation=cv2.INTER_LINEAR)
    up = up[k:k + h, k:k + w]
    return np.ascontiguousarray(up[..., 0]), np.ascontiguousarray(up[..., 1])


# the radiance, depth and labels of the last table rendered without pieces (one: a table is photographed
# empty, then with its pieces, before the next); see SceneRenderer._on_background
_BACKGROUND: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


class Raster:
    """Frame buffers and the face rasteriser for one camera at one (supersampled) resolution."""

    def __init__(self, camera: CameraModel):
        self.cam = camera
        w, h = camera.image_size
        self.w, self.h = w, h
        intr = camera.intrinsics
        self.XN, self.YN = _normalized_grid((w, h, tuple(intr.K.ravel()), tuple(intr.dist)))
        self.color = np.zeros((h, w, 3), np.float32)
        self.depth = np.full((h, w), np.inf, np.float32)
        self.label = np.full((h, w), LABEL_NONE, np.int32)
        self.R = camera.pose.R
        self.t = camera.pose.tvec
        # (drawing on a background rendered before: see SceneRenderer._on_background)
        self.bound: np.ndarray | None = None  # a pixel is drawn only where its depth is at most this
        self.only: np.ndarray | None = None   # ... and only where this (bool) is set

    def _visible(self, ok: np.ndarray, depth: np.ndarray, y0: int, x0: int) -> np.ndarray:
        """``ok`` (the box at (x0, y0) of the image) narrowed by :attr:`bound` and :attr:`only`."""
        box = (slice(y0, y0 + ok.shape[0]), slice(x0, x0 + ok.shape[1]))
        if self.bound is not None:
            ok &= depth <= self.bound[box]
        if self.only is not None:
            ok &= self.only[box]
        return ok

    def face(self, poly: np.ndarray, shade, label: int, holes: list[np.ndarray] = (), max_seg_mm: float = 3.0,
             cull: bool = True) -> None:
        """Rasterise a planar 3-D polygon (K,3) in the table frame.

        ``shade(pts_table (M,3), normal (3,)) -> (M,3) float32 linear RGB`` colours its pixels.
        """
        poly = np.asarray(poly, dtype=np.float64)
        n = _newell_normal(poly)
        cam_c = self.cam.pose.camera_center_mm
        facing = np.dot(n, cam_c - poly.mean(axis=0))
        if facing <= 0:
            if cull:  # a closed solid's face seen from behind is hidden by its other faces
                return
            n = -n  # two-sided surface: shade the side the camera sees
        pts = _subdivide(poly, max_seg_mm)
        px = self.cam.project(pts)
        if not np.all(np.isfinite(px)):
            return
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 2
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, self.w), min(y1, self.h)
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        shift = 4
        sc = 1 << shift
        cv2.fillPoly(mask, [np.round((px - [x0, y0]) * sc).astype(np.int32)], 1, lineType=cv2.LINE_8, shift=shift)
        for hole in holes:
            hp = self.cam.project(_subdivide(np.asarray(hole, dtype=np.float64), max_seg_mm))
            cv2.fillPoly(mask, [np.round((hp - [x0, y0]) * sc).astype(np.int32)], 0, lineType=cv2.LINE_8, shift=shift)
        n_c = self.R @ n
        c_c = float(np.dot(n, poly[0])) + float(np.dot(n_c, self.t))
        xn = self.XN[y0:y1, x0:x1]
        yn = self.YN[y0:y1, x0:x1]
        denom = np.float32(n_c[0]) * xn + np.float32(n_c[1]) * yn + np.float32(n_c[2])
        with np.errstate(divide="ignore", invalid="ignore"):
            depth = np.float32(c_c) / denom
        ok = (mask > 0) & (depth > 0) & (depth < self.depth[y0:y1, x0:x1])
        self._fill(y0, x0, self._visible(ok, depth, y0, x0), depth, shade, n, label)

    def _fill(self, y0: int, x0: int, ok: np.ndarray, depth: np.ndarray, shade, n: np.ndarray, label: int) -> None:
        """Shade the pixels of the box at (x0, y0) of the whole image where ``ok`` is set, whose rays meet
        the surface at camera ``depth`` (mm, per pixel of the box), and write them to the frame buffers.
        In bands of rows, so that the temporaries stay in the cache; boolean masks, not indices."""
        h, w = ok.shape
        rows = max(1, BAND_PIXELS // w)
        for r0 in range(0, h, rows):
            m = ok[r0:r0 + rows]
            if not m.any():
                continue
            band = (slice(y0 + r0, y0 + r0 + m.shape[0]), slice(x0, x0 + w))
            d = depth[r0:r0 + rows][m]
            pc = np.empty((d.size, 3))  # camera mm (float64, from the float32 rays)
            pc[:, 0] = self.XN[band][m] * d
            pc[:, 1] = self.YN[band][m] * d
            pc[:, 2] = d
            pc -= self.t
            pt = pc @ self.R  # table mm: R^T (pc - t) for row vectors
            self.color[band][m] = shade(pt, n)
            self.depth[band][m] = d
            self.label[band][m] = label

    def plane_fill(self, z: float, shade, label: int) -> None:
        """Fill every pixel whose ray meets the horizontal plane ``z`` before anything drawn so far
        (the table: unbounded, so no outline to project)."""
        n = np.array([0.0, 0.0, -1.0])  # facing up, towards the camera
        n_c = self.R @ n
        c_c = float(np.dot(n, [0.0, 0.0, z])) + float(np.dot(n_c, self.t))
        denom = np.float32(n_c[0]) * self.XN + np.float32(n_c[1]) * self.YN + np.float32(n_c[2])
        with np.errstate(divide="ignore", invalid="ignore"):
            depth = np.float32(c_c) / denom
        ok = (depth > 0) & (depth < self.depth)
        self._fill(0, 0, self._visible(ok, depth, 0, 0), depth, shade, n, label)


class ShadowMap:
    """Soft shadows cast by the pieces onto a horizontal plane, rasterised in table mm."""

    def __init__(self, bounds: tuple[float, float, float, float], z_plane: float, lamp: np.ndarray,
                 px_per_mm: float = 1.5):
        self.x0, self.y0, x1, y1 = bounds
        self.s = px_per_mm
        self.z = z_plane
        self.lamp = lamp
        self.w = int(np.ceil((x1 - self.x0) * self.s)) + 1
        self.h = int(np.ceil((y1 - self.y0) * self.s)) + 1
        self.map = np.zeros((self.h, self.w), np.float32)

    def add_solid(self, verts_table: np.ndarray, footprint: np.ndarray, strength: float = 1.0) -> None:
        L = self.lamp
        above = verts_table[:, 2] < self.z - 1e-6
        if not np.any(above):
            return
        v = verts_table[above]
        s = (self.z - L[2]) / (v[:, 2] - L[2])
        sh = L[:2] + (v[:, :2] - L[:2]) * s[:, None]
        sh = np.concatenate([sh, footprint])
        hull = cv2.convexHull(((sh - [self.x0, self.y0]) * self.s * 16).astype(np.int32).reshape(-1, 1, 2))
        cv2.fillConvexPoly(self.map, hull, float(strength), lineType=cv2.LINE_AA, shift=4)

    def add_contact(self, footprint: np.ndarray, strength: float = 0.5, grow_mm: float = 1.5) -> None:
        c = footprint.mean(axis=0)
        d = footprint - c
        r = np.linalg.norm(d, axis=1, keepdims=True) + 1e-9
        grown = c + d * (r + grow_mm) / r
        pts = ((grown - [self.x0, self.y0]) * self.s * 16).astype(np.int32).reshape(-1, 1, 2)
        tmp = np.zeros_like(self.map)
        cv2.fillPoly(tmp, [pts], float(strength), lineType=cv2.LINE_AA, shift=4)
        np.maximum(self.map, tmp, out=self.map)

    def finish(self, penumbra_mm: float) -> None:
        np.clip(self.map, 0, 1, out=self.map)
        sigma = max(penumbra_mm * self.s, 0.5)
        self.map = cv2.GaussianBlur(self.map, (0, 0), sigma)

    def sample(self, xy: np.ndarray) -> np.ndarray:
        return remap_points(self.map, (xy[:, 0] - self.x0) * self.s, (xy[:, 1] - self.y0) * self.s,
                            border=cv2.BORDER_CONSTANT)


def remap_points(src: np.ndarray, mx: np.ndarray, my: np.ndarray, interp=cv2.INTER_LINEAR,
                 border=cv2.BORDER_REFLECT, border_value=0) -> np.ndarray:
    """Sample ``src`` at M scattered points (cv2.remap wants maps under 32767 px a side)."""
    m = mx.size
    cols = 4096
    rows = max(1, -(-m // cols))
    pad = rows * cols - m
    fx = np.concatenate([mx.ravel().astype(np.float32), np.zeros(pad, np.float32)]).reshape(rows, cols)
    fy = np.concatenate([my.ravel().astype(np.float32), np.zeros(pad, np.float32)]).reshape(rows, cols)
    out = cv2.remap(src, fx, fy, interp, borderMode=border, borderValue=border_value)
    ch = 1 if out.ndim == 2 else out.shape[2]
    return out.reshape(rows * cols, ch)[:m] if ch > 1 else out.reshape(-1)[:m]


_x = np.arange(256, dtype=np.float64) / 255.0
_SRGB_LUT = np.where(_x <= 0.04045, _x / 12.92, ((_x + 0.055) / 1.055) ** 2.4).astype(np.float32)


def _srgb_to_linear(bgr_u8: np.ndarray) -> np.ndarray:
    return cv2.LUT(np.asarray(bgr_u8, dtype=np.uint8), _SRGB_LUT)


class TextureSampler:
    """Bilinear lookup of a texture (linear RGB float32) at texture pixel coordinates."""

    def __init__(self, image_bgr_u8: np.ndarray):
        self.tex = _srgb_to_linear(image_bgr_u8)

    def __call__(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        return remap_points(self.tex, u, v)


def _f32_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(a - b).astype(float32)`` to the bit, without the float64 temporary (the subtraction is
    still done in float64; only its rounded result is stored)."""
    return np.subtract(a, b, out=np.empty(np.broadcast_shapes(np.shape(a), np.shape(b)), np.float32),
                       casting="same_kind")


class Shading:
    """Lamp + ambient lighting of a surface point (linear RGB)."""

    def __init__(self, scene: SceneFile, camera_center: np.ndarray, ref_point: np.ndarray):
        L = scene.lighting
        self.lamp = np.asarray(L.lamp_mm, dtype=np.float64)
        self.ambient = L.ambient
        self.power = L.lamp_power
        self.glare = L.glare
        self.tint = light_color(L.color_temp_k)
        self.cam_c = camera_center
        self.d0 = float(np.linalg.norm(self.lamp - ref_point))

    def __call__(self, albedo: np.ndarray, pts: np.ndarray, normal: np.ndarray, shadow: np.ndarray | None = None,
                 spec: float = 0.0, shininess: float = 40.0) -> np.ndarray:
        n = normal.astype(np.float32)
        l = _f32_difference(self.lamp, pts)
        dist = np.sqrt(np.einsum("ij,ij->i", l, l))
        l /= dist[:, None]
        lam = np.clip(l @ n, 0, None)
        fall = (np.float32(self.d0) / dist) ** 2
        direct = np.float32(self.power * (1.0 - self.ambient)) * lam * fall
        if shadow is not None:
            direct *= 1.0 - 0.85 * np.clip(shadow, 0, 1)
        light = np.float32(self.ambient) + direct
        out = albedo * light[:, None]
        if spec > 0:
            v = _f32_difference(self.cam_c, pts)
            v /= np.sqrt(np.einsum("ij,ij->i", v, v))[:, None]
            hvec = l + v
            hvec /= np.sqrt(np.einsum("ij,ij->i", hvec, hvec))[:, None]
            sp = np.float32(spec) * np.clip(hvec @ n, 0, None) ** np.float32(shininess) * fall
            if shadow is not None:
                sp *= 1.0 - np.clip(shadow, 0, 1)
            out = out + sp[:, None]
        out *= self.tint
        return out if out.dtype == np.float32 else out.astype(np.float32)


def _outward_normal_faces(prism: Prism):
    """Yield (local face (K,3), is_top): the side quads and the top of a prism (unoriented)."""
    poly = prism.polygon
    k = len(poly)
    for i in range(k):
        a, b = poly[i], poly[(i + 1) % k]
        yield np.array([[a[0], a[1], prism.h0], [b[0], b[1], prism.h0], [b[0], b[1], prism.h1],
                        [a[0], a[1], prism.h1]]), False
    yield np.column_stack([poly, np.full(k, prism.h1)]), True


class SceneRenderer:
    """Renders a :class:`SceneFile` (optionally at a supersampled resolution)."""

    def __init__(self, scene: SceneFile, profile: BoardProfile | None = None, supersample: int = 2,
                 art_px_per_mm: float | None = None):
        self.scene = scene
        self.profile = profile or scene.load_profile()
        self.s = int(supersample)
        cam = scene.camera()
        self.out_camera = cam
        self.camera = CameraModel(cam.intrinsics.scaled(self.s), cam.pose)
        self.layout = Layout(self.profile, scene.placements)
        centre = np.array(list(self.layout.support.centroid.coords[0]) + [0.0])
        self.shading = Shading(scene, self.camera.pose.camera_center_mm, centre)
        mmpp = float(self.camera.mm_per_px_at(centre[None, :2])[0])
        self.art_ppm = art_px_per_mm or float(np.clip(1.5 / mmpp, 2.0, 8.0))
        self.rng = np.random.default_rng([scene.seed, scene.shot])

    # ------------------------------------------------------------------------------ the table
    def _visible_table_bounds(self, z: float) -> tuple[float, float, float, float]:
        w, h = self.camera.image_size
        border = np.array([[0, 0], [w / 2, 0], [w - 1, 0], [w - 1, h / 2], [w - 1, h - 1], [w / 2, h - 1],
                           [0, h - 1], [0, h / 2]], dtype=np.float64)
        xy = self.camera.backproject(border, height_mm=-z)
        x0, y0 = xy.min(axis=0) - 20
        x1, y1 = xy.max(axis=0) + 20
        return float(x0), float(y0), float(x1), float(y1)

    def render(self) -> RenderResult:
        sc = self.scene
        ras = Raster(self.camera)
        T = self.layout.table_depth_mm
        tb = self._visible_table_bounds(T)
        lamp = self.shading.lamp

        # --- shadows of the pieces on the board plane and on the table plane
        sh_board = ShadowMap(tb, 0.0, lamp)
        sh_table = ShadowMap(tb, T, lamp)
        solids = []
        for p in sc.pieces:
            spec = self.profile.piece(p.kind, p.color)
            prisms = piece_prisms(spec, p.upright)
            verts = piece_to_table(solid_vertices(prisms), p.center_mm, p.heading_deg, p.base_mm, p.tilt_deg,
                                   p.tilt_axis_deg)
            fp = np.asarray(p.footprint_mm)
            solids.append((p, spec, prisms))
            for sm in (sh_board, sh_table):
                sm.add_solid(verts, fp if abs(p.base_mm + sm.z) < 3 else fp[:0], 1.0)
                if abs(-p.base_mm - sm.z) < 2.5:  # resting on that plane: contact shadow
                    sm.add_contact(fp, 0.55)
        for hd in sc.hands:
            verts = _hand_vertices(hd)
            for sm in (sh_board, sh_table):
                sm.add_solid(verts, verts[:0, :2], 0.9)
        lamp_h = max(-lamp[2], 300.0)
        sh_board.finish(0.8 + 0.0015 * lamp_h)
        sh_table.finish(1.2 + 0.0015 * lamp_h)

        key = self._background_key()
        bg = _BACKGROUND.get(key)
        if bg is not None:
            color, label = self._on_background(bg, solids, sh_board, sh_table, tb)
        else:
            ras = Raster(self.camera)
            self._draw_pieces(ras, solids)
            self._draw_background(ras, sh_board, sh_table, tb)
            if not sc.pieces and not sc.hands:  # (the table alone: kept for the photos of it with pieces)
                _BACKGROUND.clear()
                _BACKGROUND[key] = (ras.color.copy(), ras.depth.copy(), ras.label.copy())
            color, label = ras.color, ras.label

        # --- the sensor
        radiance = color
        if self.s > 1:
            radiance = cv2.resize(radiance, self.out_camera.image_size, interpolation=cv2.INTER_AREA)
            lab = label[self.s // 2::self.s, self.s // 2::self.s][: self.out_camera.image_size[1],
                                                                  : self.out_camera.image_size[0]]
        else:
            lab = label
        image, jpeg = apply_sensor(radiance, sc.sensor, sc.lighting, self.out_camera, self.rng)
        return RenderResult(image=image, label=np.ascontiguousarray(lab), jpeg=jpeg)

    def _draw_pieces(self, ras: Raster, solids: list) -> None:
        """The pieces and the hands."""
        for p, spec, prisms in solids:
            self._render_piece(ras, p, spec, prisms)
        for hd in self.scene.hands:
            self._render_hand(ras, hd)

    def _draw_background(self, ras: Raster, sh_board: ShadowMap, sh_table: ShadowMap,
                         tb: tuple[float, float, float, float]) -> None:
        """The boards and the table (``tb``: its visible bounds, table mm), where nothing drawn
        before is nearer."""
        sc = self.scene
        for ti, pl in enumerate(sc.placements):
            tile = self.profile.tile(pl.tile)
            self._render_tile(ras, ti, tile, pl, sh_board, sh_table)
        T = self.layout.table_depth_mm
        tx0, ty0, tx1, ty1 = tb
        table_ppm = float(np.clip(self.art_ppm * 0.6, 1.0, 3.0))
        tw, th = int((tx1 - tx0) * table_ppm) + 2, int((ty1 - ty0) * table_ppm) + 2
        table_tex = TextureSampler(art.table_texture(tw, th, table_ppm, sc.table_style, sc.seed))
        table_spec = {"white": 0.12, "oak": 0.06, "walnut": 0.08}.get(sc.table_style, 0.0)

        def shade_table(pts, n):
            alb = table_tex((pts[:, 0] - tx0) * table_ppm - 0.5, (pts[:, 1] - ty0) * table_ppm - 0.5)
            return self.shading(alb, pts, n, sh_table.sample(pts[:, :2]), spec=table_spec, shininess=30)

        ras.plane_fill(T, shade_table, LABEL_TABLE)

    def _background_key(self) -> tuple:
        """What the boards' and the table's radiance (before the pieces' shadows) is made of: the
        scene but for its pieces, hands and shot, the profile and the resolution."""
        table = self.scene.model_dump_json(exclude={"pieces", "hands", "shot", "image"})
        return (table, self.profile.data.model_dump_json(), self.s, self.art_ppm)

    def _on_background(self, bg: tuple, solids: list, sh_board: ShadowMap, sh_table: ShadowMap,
                       tb: tuple[float, float, float, float]) -> tuple[np.ndarray, np.ndarray]:
        """The radiance and labels of the scene drawn on ``bg``, the same table rendered without
        pieces (colour, depth, labels): the pieces and hands are drawn where they are at least as
        near as the table's surfaces (they are drawn first, and a later surface must be nearer),
        and the table's surfaces are shaded again only where a shadow may fall
        (:meth:`_shadowed_px`).  Every pixel comes out as a whole render draws it, to the bit: a
        pixel's shade does not depend on which others are shaded with it."""
        b_color, b_depth, b_label = bg
        front = Raster(self.camera)
        front.bound = b_depth
        self._draw_pieces(front, solids)
        drawn = np.isfinite(front.depth)
        color, label = b_color.copy(), b_label.copy()
        again = self._shadowed_px(sh_board, sh_table) & ~drawn
        if again.any():
            back = Raster(self.camera)
            back.only = again
            self._draw_background(back, sh_board, sh_table, tb)
            color[again] = back.color[again]
        color[drawn] = front.color[drawn]
        label[drawn] = front.label[drawn]
        return color, label

    def _shadowed_px(self, sh_board: ShadowMap, sh_table: ShadowMap) -> np.ndarray:
        """The pixels (bool, at the render's resolution) whose board, pit floor or table point may
        sample a shadow map where it is not zero: more than those, never fewer."""
        w, h = self.camera.image_size
        need = np.zeros((h, w), np.uint8)
        pits = {float(pit.depth_mm) for pl in self.scene.placements for pit in self.profile.tile(pl.tile).pits}
        for sm, zs in ((sh_board, [0.0, *sorted(pits)]), (sh_table, [self.layout.table_depth_mm])):
            nz = (sm.map != 0).astype(np.uint8)
            n, _, stats, _ = cv2.connectedComponentsWithStats(nz, connectivity=8)
            for x, y, bw, bh, _ in stats[1:n]:
                # the cells a bilinear sample near the shadow's reads, with a cell to spare, in table mm
                u = np.linspace(x - 3, x + bw + 3, 24)
                v = np.linspace(y - 3, y + bh + 3, 24)
                ring = np.concatenate([np.column_stack([u, np.full_like(u, v[0])]),
                                       np.column_stack([np.full_like(v, u[-1]), v]),
                                       np.column_stack([u[::-1], np.full_like(u, v[-1])]),
                                       np.column_stack([np.full_like(v, u[0]), v[::-1]])])
                xy = ring / sm.s + [sm.x0, sm.y0]
                for z in zs:
                    px = self.camera.project(np.column_stack([xy, np.full(len(xy), z)]))
                    if not np.all(np.isfinite(px)):
                        return np.ones((h, w), bool)
                    cv2.fillPoly(need, [np.round(px).astype(np.int32)], 1)
        return cv2.dilate(need, np.ones((9, 9), np.uint8)).astype(bool)

    # ------------------------------------------------------------------------------ boards
    def _render_tile(self, ras: Raster, ti: int, tile, pl, sh_board: ShadowMap, sh_table: ShadowMap) -> None:
        game = self.profile.game
        ppm = self.art_ppm
        img = art.tile_art(game, tile, ppm, seed=0)
        tex = TextureSampler(img)
        outline = np.asarray(tile.outline_polygon().exterior.coords)[:-1]
        if _signed_area(outline) < 0:
            outline = outline[::-1]
        T = tile.thickness_mm
        gloss = self.scene.lighting.glare

        def shade_top(pts, n):
            loc = pl.to_tile(pts[:, :2])
            alb = tex(loc[:, 0] * ppm - 0.5, loc[:, 1] * ppm - 0.5)
            return self.shading(alb, pts, n, sh_board.sample(pts[:, :2]), spec=gloss, shininess=60)

        top = np.column_stack([pl.to_table(outline), np.zeros(len(outline))])
        holes = []
        for pit in tile.pits:
            a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
            ring = np.column_stack([pit.center[0] + pit.radius * np.cos(a), pit.center[1] + pit.radius * np.sin(a)])
            holes.append(np.column_stack([pl.to_table(ring), np.zeros(len(ring))]))
        ras.face(top, shade_top, LABEL_BOARD + ti, holes=holes, max_seg_mm=4.0, cull=False)

        # board edges: vertical faces from the surface down to the table, outward normals
        edge_albedo = np.array(_edge_color(game), dtype=np.float32)
        tab_out = pl.to_table(outline)
        k = len(tab_out)
        for i in range(k):
            a, b = tab_out[i], tab_out[(i + 1) % k]
            # outline is CCW in (x right, y down) => outward normal is (dy, -dx) rotated; build quad so Newell normal points out
            quad = np.array([[a[0], a[1], 0.0], [b[0], b[1], 0.0], [b[0], b[1], T], [a[0], a[1], T]])
            nrm = _newell_normal(quad)
            mid = quad.mean(axis=0)
            if np.dot(nrm[:2], mid[:2] - tab_out.mean(axis=0)) < 0:
                quad = quad[::-1]

            def shade_edge(pts, n, alb=edge_albedo):
                albs = np.broadcast_to(alb, (len(pts), 3))
                return self.shading(albs, pts, n, None)

            ras.face(quad, shade_edge, LABEL_BOARD + ti, max_seg_mm=10.0)

        # pits: walls (seen from inside) and floors
        wood = np.array(_edge_color("pitrush"), dtype=np.float32) * 0.55
        for pit in tile.pits:
            a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
            ring = np.column_stack([pit.center[0] + pit.radius * np.cos(a), pit.center[1] + pit.radius * np.sin(a)])
            ring_t = pl.to_table(ring)
            cam_xy = self.camera.pose.camera_center_mm[:2]
            d = pit.depth_mm
            floor = np.column_stack([ring_t, np.full(len(ring_t), d)])

            def shade_floor(pts, n, c=np.asarray(pl.to_table([pit.center])[0]), r=pit.radius):
                rr = np.linalg.norm(pts[:, :2] - c, axis=1) / r
                ao = 0.55 + 0.25 * (1 - rr ** 2)
                albs = wood[None, :] * ao[:, None]
                return self.shading(albs, pts, n, sh_board.sample(pts[:, :2]))

            ras.face(floor, shade_floor, LABEL_BOARD + ti, cull=False, max_seg_mm=2.0)
            for i in range(len(ring_t)):
                p0, p1 = ring_t[i], ring_t[(i + 1) % len(ring_t)]
                # only the far half of a pit's wall faces the camera
                if np.dot((p0 + p1) / 2 - ring_t.mean(axis=0), (p0 + p1) / 2 - cam_xy) < 0:
                    continue
                quad = np.array([[p0[0], p0[1], 0.0], [p1[0], p1[1], 0.0], [p1[0], p1[1], d], [p0[0], p0[1], d]])

                def shade_wall(pts, n):
                    frac = np.clip(pts[:, 2] / d, 0, 1)
                    albs = wood[None, :] * (0.9 - 0.45 * frac)[:, None]
                    return self.shading(albs, pts, n, None) * 0.8

                ras.face(quad, shade_wall, LABEL_BOARD + ti, cull=False, max_seg_mm=4.0)

    # ------------------------------------------------------------------------------ pieces
    def _render_piece(self, ras: Raster, p: PieceTruth, spec, prisms: list[Prism]) -> None:
        base_col = np.array(art.COLORS.get(p.color, (128, 128, 128)), dtype=np.uint8)[None, None, :]
        side_alb = _srgb_to_linear(base_col).reshape(3)
        kind = p.kind
        # (specular strength, Phong exponent): glossy plastic and varnish give tight highlights (a lamp
        # reflection covers part of a piece, not all of it); brushed metal and cast metal broader ones
        shiny = {"disc": (0.18, 220.0), "starship": (0.25, 120.0), "beam": (0.55, 50.0), "card": (0.12, 60.0),
                 "meteor": (0.02, 5.0)}.get(kind, (0.4, 45.0) if kind.startswith("figure:") else (0.2, 60.0))
        # top texture over the bounding box of the widest layer's polygon
        big = max(prisms, key=lambda q: _signed_area_abs(q.polygon)).polygon
        lx0, ly0 = big.min(axis=0)
        lx1, ly1 = big.max(axis=0)
        tex_ppm = max(self.art_ppm * 1.5, 6.0)
        size = (max(int((ly1 - ly0) * tex_ppm), 4), max(int((lx1 - lx0) * tex_ppm), 4))
        if kind == "card":
            top_img = art.card_art(p.color == "face_up", p.seed, tex_ppm, (lx1 - lx0, ly1 - ly0))
            top_img = cv2.resize(top_img, (size[1], size[0]), interpolation=cv2.INTER_AREA)
        else:
            top_img = art.piece_top_texture(kind, p.color, size, seed=p.seed)
        top_tex = TextureSampler(top_img)
        pose = (p.center_mm, p.heading_deg, p.base_mm, p.tilt_deg, p.tilt_axis_deg)
        for prism in prisms:
            axis_lo = piece_to_table(np.array([[0.0, 0.0, prism.h0]]), *pose)[0]
            axis_hi = piece_to_table(np.array([[0.0, 0.0, prism.h1]]), *pose)[0]
            for quad, is_top in _outward_normal_faces(prism):
                tq = piece_to_table(quad, *pose)
                # orient every face outward so back faces are culled
                out_dir = (axis_hi - axis_lo) if is_top else tq.mean(axis=0) - (axis_lo + axis_hi) / 2
                if np.dot(_newell_normal(tq), out_dir) < 0:
                    tq = tq[::-1]
                if is_top and prism.textured_top:
                    def shade(pts, n, pr=prism):
                        loc = table_to_piece(pts, *pose)
                        alb = top_tex((loc[:, 0] - lx0) * tex_ppm - 0.5, (loc[:, 1] - ly0) * tex_ppm - 0.5) * pr.shade
                        return self.shading(alb, pts, n, None, spec=shiny[0], shininess=shiny[1])
                else:
                    alb = side_alb * (prism.shade * (1.0 if is_top else 0.85))

                    def shade(pts, n, alb=alb):
                        return self.shading(np.broadcast_to(alb, (len(pts), 3)), pts, n, None,
                                            spec=shiny[0] * 0.5, shininess=shiny[1])
                ras.face(tq, shade, p.id, max_seg_mm=2.0)

    def _render_hand(self, ras: Raster, hd) -> None:
        verts = _hand_vertices(hd)
        skin = _srgb_to_linear(np.array([[[120, 150, 205]]], np.uint8)).reshape(3)
        top = verts[4:]

        def shade(pts, n):
            return self.shading(np.broadcast_to(skin, (len(pts), 3)), pts, n, None, spec=0.05, shininess=8)

        ras.face(top, shade, LABEL_HAND, cull=False, max_seg_mm=5.0)


def _hand_vertices(hd) -> np.ndarray:
    w = np.asarray(hd.wrist_mm, dtype=np.float64)
    f = np.asarray(hd.fingertip_mm, dtype=np.float64)
    d = f - w
    L = np.linalg.norm(d) + 1e-9
    u = d / L
    v = np.array([-u[1], u[0]]) * hd.width_mm / 2
    back = w - u * 300.0  # the arm continues out of view
    pts = np.array([back + v, f + v * 0.6, f - v * 0.6, back - v])
    z = -hd.height_mm
    return np.concatenate([np.column_stack([pts, np.zeros(4)]), np.column_stack([pts, np.full(4, z)])])


def _signed_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def _signed_area_abs(poly: np.ndarray) -> float:
    return abs(_signed_area(poly))


def _edge_color(game: str) -> tuple[float, float, float]:
    """Linear RGB (BGR order) albedo of board edges."""
    return {"pitrush": (0.18, 0.32, 0.48), "pitchfleet": (0.05, 0.05, 0.06), "galaktico": (0.04, 0.04, 0.05),
            "asfccg": (0.03, 0.03, 0.04)}.get(game, (0.1, 0.1, 0.1))


def render_scene(scene: SceneFile, profile: BoardProfile | None = None, supersample: int | None = None) -> RenderResult:
    """Render a scene; the supersampling defaults to 2 up to 2.5 MP and 1 above."""
    if supersample is None:
        w, h = scene.intrinsics.image_size
        supersample = 2 if w * h <= 2_600_000 else 1
    return SceneRenderer(scene, profile, supersample=supersample).render()
