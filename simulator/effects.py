"""What the camera does to the light: white-balance cast, vignetting, blur, noise, gamma, JPEG."""

from __future__ import annotations

import math

import cv2
import numpy as np


def _kelvin_rgb(t: float) -> np.ndarray:
    """Approximate sRGB colour (0..1, RGB order) of a black body at t kelvin (Tanner Helland fit)."""
    t = t / 100.0
    r = 1.0 if t <= 66 else min(1.0, max(0.0, 1.292936186 * (t - 60) ** -0.1332047592))
    g = (min(1.0, max(0.0, 0.390081579 * math.log(t) - 0.631841444)) if t <= 66
         else min(1.0, max(0.0, 1.129890861 * (t - 60) ** -0.0755148492)))
    b = 1.0 if t >= 66 else (0.0 if t <= 19 else min(1.0, max(0.0, 0.543206789 * math.log(t - 10) - 1.196254089)))
    return np.array([r, g, b])


def light_color(temp_k: float, white_balance_k: float = 5200.0) -> np.ndarray:
    """BGR multipliers of light at ``temp_k`` seen by a camera white-balanced for ``white_balance_k``
    (the cast a fixed white balance leaves), green normalised to 1."""
    c = _kelvin_rgb(temp_k) / _kelvin_rgb(white_balance_k)
    c = c / c[1]
    # soften: cameras' auto white balance removes most of the cast
    c = 1.0 + 0.45 * (c - 1.0)
    return np.array([c[2], c[1], c[0]], dtype=np.float32)


def _linear_to_srgb(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


BAND_PIXELS = 1 << 15  # pixels processed at once by the renderer's fill and the sensor (bands of rows)


def apply_sensor(radiance: np.ndarray, sensor, lighting, camera, rng: np.random.Generator):
    """Linear BGR radiance (H,W,3 float32) -> (BGR uint8 image, JPEG bytes or None)."""
    h, w = radiance.shape[:2]
    x = radiance * np.float32(sensor.exposure)
    cx, cy = camera.intrinsics.principal_point
    f = camera.intrinsics.fx
    # a row and a column broadcast against each other: the same float32 arithmetic, element for
    # element, as on full (h, w) grids, without building them
    yy = np.arange(h, dtype=np.float32)[:, None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    gx, gy = lighting.gradient
    if gx or gy:
        x *= (1.0 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5))[..., None]
    if sensor.vignetting > 0:
        r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (f * f)
        rmax2 = ((w / 2) ** 2 + (h / 2) ** 2) / (f * f)
        # natural cos^4 fall-off, scaled so that the corners lose `vignetting`
        cos4 = 1.0 / (1.0 + r2) ** 2
        cos4_corner = 1.0 / (1.0 + rmax2) ** 2
        k = sensor.vignetting / max(1e-6, 1.0 - cos4_corner)
        x *= (1.0 - k * (1.0 - cos4))[..., None]
    if sensor.blur_px > 0:
        x = cv2.GaussianBlur(x, (0, 0), sensor.blur_px)
    noisy = sensor.noise > 0 or sensor.shot_noise > 0
    z = rng.standard_normal(x.shape).astype(np.float32) if noisy else None  # drawn at once: the same stream
    img = np.empty(x.shape, np.uint8)
    rows = max(1, BAND_PIXELS // max(1, w))
    for r in range(0, h, rows):  # in bands of rows, so that the temporaries stay in the cache
        band = slice(r, r + rows)
        v = _linear_to_srgb(x[band]) * 255.0
        if noisy:
            sigma = np.sqrt(sensor.noise ** 2 + sensor.shot_noise * np.maximum(v, 0))
            v = v + z[band] * sigma.astype(np.float32)
        img[band] = np.clip(np.round(v), 0, 255)
    jpeg = None
    if sensor.jpeg_quality < 100:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(sensor.jpeg_quality)])
        jpeg = buf.tobytes()
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img, jpeg
