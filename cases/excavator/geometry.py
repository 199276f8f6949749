"""Planar geometry of the CAT 330D L front (seed 001 Fig. 4): pins in body frames, closing the loops, poses.

Global frame at the boom foot pin A (as in seed 001 Fig. 4), ``x`` forward, ``y`` up, motion in the ``xy`` plane.
Every body frame sits at one of its pins, the centre of mass given separately (docs/cases/excavator.md, "Geometry
and masses"): base at A (x global in the initial pose), boom at A (x: A -> D), stick at D (D -> G), bucket at G
(the stick axis when ``bucket_angle = 0``), rocker at I (I -> K), bucket_link at K (K -> J), ``<cyl>_tube`` and
``<cyl>_rod`` at their pins (x along the cylinder axis, tube pin -> rod pin).

Pins: A base-boom, B base-boom cylinder, C boom cylinder-boom, D boom-stick, E boom-stick cylinder,
F stick cylinder-stick, G stick-bucket, H stick-bucket cylinder, I stick-rocker, K rocker-bucket link-bucket
cylinder rod, J bucket link-bucket, L bucket tip; Q, R front and rear ends of the track contact.

The lengths are scaled from published CAT 330D L data (6.5 m reach boom, 3.2 m stick, boom foot pin about 2 m
above the ground, cylinder bores and strokes) and a side-view drawing; the pin offsets are our estimates
(docs/cases/excavator.md lists them and draws the configuration).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["PINS", "CENTRES_OF_MASS", "CYLINDERS", "rotation", "pose", "circle_intersection", "body_inertia"]

# pin coordinates in the body frames, m
PINS = {
    "base": {"A": (0.0, 0.0), "B": (0.40, -0.95)},
    "boom": {"A": (0.0, 0.0), "C": (2.55, -0.30), "E": (3.10, 0.85), "D": (6.50, 0.0)},
    "stick": {"D": (0.0, 0.0), "F": (-0.75, 0.50), "H": (0.45, 0.50), "I": (2.60, 0.25), "G": (3.20, 0.0)},
    "bucket": {"G": (0.0, 0.0), "J": (0.0, 0.50), "L": (1.45, -0.45)},
}
LINK_LENGTHS = {"rocker": 0.65, "bucket_link": 0.80}  # |IK|, |KJ|, m

# centres of mass in the body frames, m (our estimates; cylinders: fractions of the pin-to-pin length)
CENTRES_OF_MASS = {
    "base": (-2.00, -1.00),
    "boom": (2.90, 0.35),
    "stick": (1.30, 0.15),
    "bucket": (0.60, -0.05),
}
# (tube pin body, tube pin, rod pin body, rod pin) of each cylinder
CYLINDERS = {
    "boom_cylinder": ("base", "B", "boom", "C"),
    "stick_cylinder": ("boom", "E", "stick", "F"),
    "bucket_cylinder": ("stick", "H", "rocker", "K"),
}
# slenderness used for the inertia estimates: J = m (l^2 + h^2) / 12 about the centre of mass
BODY_SIZE = {"base": (5.0, 3.0), "boom": (6.8, 0.9), "stick": (3.9, 0.6), "bucket": (1.6, 1.2),
             "rocker": (0.7, 0.2), "bucket_link": (0.7, 0.2)}


def rotation(angle: float) -> np.ndarray:
    """2x2 rotation matrix of ``angle`` (rad), seed 001 eq. (5)."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def circle_intersection(c1, r1: float, c2, r2: float, side: float) -> np.ndarray:
    """Intersection of two circles (centres ``c1``, ``c2``, radii m); ``side`` = +1 left of c1->c2, -1 right."""
    c1, c2 = np.asarray(c1, float), np.asarray(c2, float)
    d = float(np.linalg.norm(c2 - c1))
    a = (r1**2 - r2**2 + d**2) / (2.0 * d)
    h2 = r1**2 - a**2
    if h2 < 0.0:
        from fem.errors import ModelError

        raise ModelError(f"excavator geometry: the bucket linkage cannot close (circles {d:.3f} m apart, radii "
                         f"{r1:.3f}, {r2:.3f} m); change the pose or the link lengths")
    u = (c2 - c1) / d
    n = np.array([-u[1], u[0]])
    return c1 + a * u + side * math.sqrt(h2) * n


def body_inertia(name: str, mass: float) -> float:
    """Planar moment of inertia about the centre of mass, kg m^2 (box of ``BODY_SIZE``)."""
    length, height = BODY_SIZE[name]
    return mass * (length**2 + height**2) / 12.0


def pose(boom_angle: float, stick_angle: float, bucket_angle: float, base_origin=(0.0, 0.0),
         base_angle: float = 0.0) -> dict:
    """Global pin positions and body frames for the given angles (rad).

    Parameters
    ----------
    boom_angle : float, rad
        Direction A->D relative to the base x axis.
    stick_angle : float, rad
        Direction D->G relative to A->D.
    bucket_angle : float, rad
        Bucket frame relative to the stick frame.
    base_origin : (2,) m, base_angle : rad
        Pose of the base frame (pin A).

    Returns
    -------
    dict with ``points`` (name -> (2,) global, m), ``frames`` (body -> (origin (2,), angle rad)) and
    ``lengths`` (cylinder name -> pin-to-pin length, m).
    """
    frames = {"base": (np.asarray(base_origin, float), base_angle)}
    th1 = base_angle + boom_angle
    frames["boom"] = (frames["base"][0] + rotation(base_angle) @ PINS["base"]["A"], th1)

    def glob(body, pin):
        origin, angle = frames[body]
        return origin + rotation(angle) @ np.asarray(PINS[body][pin], float)

    th2 = th1 + stick_angle
    frames["stick"] = (glob("boom", "D"), th2)
    frames["bucket"] = (glob("stick", "G"), th2 + bucket_angle)
    pts = {p: glob(b, p) for b in ("base", "boom", "stick", "bucket") for p in PINS[b]}
    # bucket linkage (four-bar I-K-J-G): K on the outer side of the stick
    k = circle_intersection(pts["I"], LINK_LENGTHS["rocker"], pts["J"], LINK_LENGTHS["bucket_link"], side=+1.0)
    pts["K"] = k
    frames["rocker"] = (pts["I"], math.atan2(*(k - pts["I"])[::-1]))
    frames["bucket_link"] = (k, math.atan2(*(pts["J"] - k)[::-1]))
    lengths = {}
    for name, (_, tube_pin, _, rod_pin) in CYLINDERS.items():
        d = pts[rod_pin] - pts[tube_pin]
        lengths[name] = float(np.linalg.norm(d))
        axis = math.atan2(d[1], d[0])
        frames[name + "_tube"] = (pts[tube_pin], axis)
        frames[name + "_rod"] = (pts[rod_pin], axis)
    return {"points": pts, "frames": frames, "lengths": lengths}
