"""Geometry of the clamp locking mechanism: tie-bar corners, crank lugs, bar pins, cylinder (seed 003 §3.1).

Coordinates: global ``X`` horizontal (operator side +X), ``Y`` vertical up, ``Z`` along the tie bars; the moving
platen is the ground. The four clamp pistons turn about the tie-bar axes at the corners of the
``tie_bar_spacing_x × tie_bar_spacing_y`` rectangle (2150 × 1700 mm):

* piston 1 bottom right, piston 2 top right, piston 3 top left, piston 4 bottom left;
* the horizontal bar joins pistons 4 and 1 (it drives pistons 1 and 2), the vertical bar on the operator side
  joins pistons 1 and 2, the vertical bar on the non-operator side joins pistons 4 and 3;
* the locking cylinder acts between the platen and a lug of piston 4.

The Husky crank drawing is not public; we invent the lugs so that every piston turns by the same angle ρ
(45°) between the unlocked and the locked position, every bar is ``bar_length`` (2.5 m) long and the lugs stay
away from the dead centres. For two pistons a spacing vector ``d`` apart, with lugs of radius ``r`` at the angles
``α_near``, ``α_far`` (unlocked), the bar vector is ``d + r δ`` with ``δ = e(α_far) - e(α_near)``. Turning both
lugs by ρ turns ``δ`` by ρ; the bar length is the same at both ends of the motion when ``δ`` makes the angle
``-ρ/2`` with ``d``. The bar length then fixes ``r |δ| = -d cos(ρ/2) + sqrt(L² - d² sin²(ρ/2))``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from fem.errors import ModelError

PISTONS = ("piston1", "piston2", "piston3", "piston4")
# bar name -> (near piston, far piston); the bar frame x axis points from the near to the far pin
BARS = {"bar_h": ("piston4", "piston1"), "bar_vop": ("piston1", "piston2"), "bar_vnop": ("piston4", "piston3")}
BAR_LABELS = {"bar_h": "horizontal", "bar_vop": "vertical_op", "bar_vnop": "vertical_nonop"}


def unit(angle: float) -> np.ndarray:
    """Unit vector (2,) at ``angle`` (rad) from +X."""
    return np.array([math.cos(angle), math.sin(angle)])


def tie_bar_axes(params: dict) -> dict[str, np.ndarray]:
    """Tie-bar axis of each piston in the platen plane, (2,) m."""
    a, b = 0.5 * params["tie_bar_spacing_x"], 0.5 * params["tie_bar_spacing_y"]
    return {"piston1": np.array([a, -b]), "piston2": np.array([a, b]), "piston3": np.array([-a, b]),
            "piston4": np.array([-a, -b])}


def cylinder_areas(push_force: float, pull_force: float, pressure: float) -> dict[str, float]:
    """Bore and annulus areas (m²) and diameters (m) from the rated push and pull forces at ``pressure``.

    ``A_A = F_push / p``, ``A_B = F_pull / p``, ``d_bore = sqrt(4 A_A / π)``, ``d_rod = sqrt(4 (A_A - A_B) / π)``
    (seed 003 §3.1: 221 kN and 106 kN at 180 bar).
    """
    area_a = push_force / pressure
    area_b = pull_force / pressure
    if not 0.0 < area_b < area_a:
        raise ModelError("clamp-locking: the pull force must be positive and smaller than the push force")
    return {"piston_area": area_a, "rod_side_area": area_b, "bore_diameter": math.sqrt(4.0 * area_a / math.pi),
            "rod_diameter": math.sqrt(4.0 * (area_a - area_b) / math.pi)}


def bar_lug_angles(spacing: np.ndarray, length: float, radius: float, rotation: float) -> tuple[float, float]:
    """Unlocked lug angles ``(α_near, α_far)`` (rad) of a bar between two pistons ``spacing`` (2,) m apart.

    See the module docstring: ``δ`` at ``-ρ/2`` from ``d``, ``r|δ|`` from the bar length.
    """
    d = float(np.linalg.norm(spacing))
    theta_d = math.atan2(spacing[1], spacing[0])
    half = 0.5 * rotation
    reach = -d * math.cos(half) + math.sqrt(length**2 - (d * math.sin(half)) ** 2)  # r |δ|
    chord = reach / radius  # |δ| = 2 sin(Δα/2)
    if not 0.0 < chord < 2.0:
        raise ModelError(f"clamp-locking: a {length} m bar cannot join pistons {d:.3f} m apart with "
                         f"{radius} m lugs; choose a longer crank_radius or a bar length nearer the spacing")
    spread = 2.0 * math.asin(0.5 * chord)
    mean = theta_d - half - 0.5 * math.pi
    return mean - 0.5 * spread, mean + 0.5 * spread


def cylinder_layout(params: dict, pivot: np.ndarray) -> dict:
    """Cylinder lug radius, platen pivot and lengths so that the rotation ρ takes exactly the stroke.

    The cylinder is tangent to the lug circle of piston 4 at mid stroke (best lever arm); its platen pivot lies
    ``retracted_length + stroke/2`` behind the mid-stroke pin along the tangent. The lug radius ``r_c`` is solved
    from ``|C(α_end) - B| - |C(α_start) - B| = stroke``.
    """
    rho = math.radians(params["rotation_deg"])
    mid = math.radians(params["cylinder_crank_mid_deg"])
    mid_length = params["cylinder_retracted_length"] + 0.5 * params["stroke"]
    tangent = math.copysign(1.0, rho) * unit(mid + 0.5 * math.pi)  # direction of the lug pin's motion

    def points(radius):
        base = pivot + radius * unit(mid) - mid_length * tangent
        start = pivot + radius * unit(mid - 0.5 * rho)
        end = pivot + radius * unit(mid + 0.5 * rho)
        return base, start, end

    def excess(radius):
        base, start, end = points(radius)
        return np.linalg.norm(end - base) - np.linalg.norm(start - base) - params["stroke"]

    radius = brentq(excess, 0.05, 5.0, xtol=1e-13)
    base, start, end = points(radius)
    return {"crank_radius": radius, "crank_start_angle": mid - 0.5 * rho, "base": base, "pin_start": start,
            "pin_end": end, "retracted_length": float(np.linalg.norm(start - base))}


def lug_radius(params: dict, bar: str) -> float:
    """Lug (crank) radius of ``bar``'s bearings on the pistons, m."""
    return params["crank_radius_horizontal"] if bar == "bar_h" else params["crank_radius_vertical"]


def layout(params: dict) -> dict:
    """The whole unlocked configuration.

    Returns
    -------
    dict
        ``axes`` (piston -> (2,) m), ``lugs`` (bar -> (α_near, α_far) rad), ``pins`` (bar -> ((3,), (3,)) m, near
        and far bearing centres), ``bar_planes`` (bar -> z, m), ``cylinder`` (see :func:`cylinder_layout`, plus
        ``plane``), ``rotation`` (rad).
    """
    axes = tie_bar_axes(params)
    rho = math.radians(params["rotation_deg"])
    lugs, pins, planes = {}, {}, {}
    for bar, (near, far) in BARS.items():
        r = lug_radius(params, bar)
        spacing = axes[far] - axes[near]
        try:
            a_near, a_far = bar_lug_angles(spacing, params["bar_length"], r, rho)
        except ModelError as exc:  # issue 43: name the parameters that set the spacing
            raise ModelError(f"{exc} (pistons {near} and {far}: tie_bar_spacing_x = {params['tie_bar_spacing_x']:g} m, "
                             f"tie_bar_spacing_y = {params['tie_bar_spacing_y']:g} m, bar_length = "
                             f"{params['bar_length']:g} m)") from None
        z = params["bar_plane_horizontal"] if bar == "bar_h" else params["bar_plane_vertical"]
        lugs[bar] = (a_near, a_far)
        planes[bar] = z
        pins[bar] = (np.append(axes[near] + r * unit(a_near), z), np.append(axes[far] + r * unit(a_far), z))
    cyl = cylinder_layout(params, axes["piston4"])
    cyl["plane"] = params["cylinder_plane"]
    return {"axes": axes, "lugs": lugs, "pins": pins, "bar_planes": planes, "cylinder": cyl, "rotation": rho}


def lever_arm(axis: np.ndarray, pin: np.ndarray, other: np.ndarray) -> float:
    """Perpendicular distance (m) from a piston ``axis`` (2,) to the line of action through ``pin`` and ``other``.

    A force of magnitude ``F`` along that line exerts the torque ``F * lever_arm`` about the piston axis.
    """
    e = (np.asarray(other) - np.asarray(pin)) / np.linalg.norm(np.asarray(other) - np.asarray(pin))
    r = np.asarray(pin) - np.asarray(axis)
    return abs(float(r[0] * e[1] - r[1] * e[0]))


def start_lever_arms(params: dict, locked: bool = False) -> dict[str, float]:
    """Lever arms (m) of the bars and of the cylinder about the pistons at an end of the stroke.

    Unlocked configuration (``locked=False``) or locked one (every piston turned by ρ). Keys ``"<bar>@<piston>"``
    (e.g. ``"bar_h@piston4"``) and ``"cylinder@piston4"``. They set the static force ratios, e.g.
    ``F_h <= F_c a_c / a_h4`` from the torque balance of piston 4, and the velocity ratios: a piston driven through a
    bar turns ``a_near / a_far`` times as fast as the one driving it, piston 4 at ``ẋ / a_c``.
    """
    lay = layout(params)
    turn = lay["rotation"] if locked else 0.0
    arms = {}
    for bar, (near, far) in BARS.items():
        r = lug_radius(params, bar)
        pin_near, pin_far = (lay["axes"][p] + r * unit(angle + turn) for p, angle in zip((near, far), lay["lugs"][bar]))
        arms[f"{bar}@{near}"] = lever_arm(lay["axes"][near], pin_near, pin_far)
        arms[f"{bar}@{far}"] = lever_arm(lay["axes"][far], pin_far, pin_near)
    cyl = lay["cylinder"]
    arms["cylinder@piston4"] = lever_arm(lay["axes"]["piston4"], cyl["pin_end" if locked else "pin_start"],
                                         cyl["base"])
    return arms


def piston_rates(params: dict, locked: bool = False) -> dict[str, float]:
    """Rotation of each piston per metre of cylinder stroke (rad/m) at an end of the stroke, from the lever arms."""
    arms = start_lever_arms(params, locked)
    w4 = 1.0 / arms["cylinder@piston4"]
    w1 = w4 * arms["bar_h@piston4"] / arms["bar_h@piston1"]
    return {"piston1": w1, "piston2": w1 * arms["bar_vop@piston1"] / arms["bar_vop@piston2"],
            "piston3": w4 * arms["bar_vnop@piston4"] / arms["bar_vnop@piston3"], "piston4": w4}


def mean_cylinder_lever_arm(params: dict, samples: int = 2001) -> float:
    """Mean lever arm (m) of the cylinder about piston 4 over the rotation, ``(1/|ρ|) ∫ a_c(θ) dθ`` (trapezoid).

    By virtual work (``F dx = F a_c dθ``) it equals ``stroke / |ρ|`` for any crank layout that turns the piston by
    ρ over the stroke: seed 003 L5283 (390 mm) and L284 (45°) give 497 mm.
    """
    lay = layout(params)
    cyl = lay["cylinder"]
    thetas = np.linspace(0.0, lay["rotation"], samples)
    arms = [lever_arm(lay["axes"]["piston4"], lay["axes"]["piston4"]
                      + cyl["crank_radius"] * unit(cyl["crank_start_angle"] + th), cyl["base"]) for th in thetas]
    return float(np.trapezoid(arms, np.abs(thetas)) / abs(lay["rotation"]))


def bar_frame(pin_near: np.ndarray, pin_far: np.ndarray) -> np.ndarray:
    """Bar body axes (3, 3): x from the near to the far pin, z along the tie bars (global Z), y = z × x."""
    ex = (pin_far - pin_near) / np.linalg.norm(pin_far - pin_near)
    ez = np.array([0.0, 0.0, 1.0])
    return np.column_stack([ex, np.cross(ez, ex), ez])


def ring_inertia(mass: float, outer: float, inner: float, length: float) -> np.ndarray:
    """Principal inertia (3,) kg m² of a thick ring (axis z; ``inner = 0``: a solid cylinder) about its centre."""
    axial = 0.5 * mass * (outer**2 + inner**2)
    transverse = mass / 12.0 * (3.0 * (outer**2 + inner**2) + length**2)
    return np.array([transverse, transverse, axial])


def bar_mass_properties(params: dict, resolution: float = 1.0e-3) -> dict:
    """Mass (kg), centre of mass (3,) m and inertia about it (3, 3) kg m² of the rigid connecting bar.

    The bar of :func:`fem.meshing.connecting_bar_mesh` is an extrusion (thickness = shank height) of the planform
    rectangle ∪ two eye discs minus two bores; its planform moments are integrated on a ``resolution`` grid.
    """
    length, width, height = params["bar_length"], params["bar_width"], params["bar_height"]
    r_eye, r_bore = 0.5 * params["eye_diameter"], 0.5 * params["bore_diameter"]
    xs = np.arange(-r_eye, length + r_eye, resolution) + 0.5 * resolution
    ys = np.arange(-r_eye, r_eye, resolution) + 0.5 * resolution
    x, y = np.meshgrid(xs, ys, indexing="ij")
    near, far = ((x - xc) ** 2 + y**2 for xc in (0.0, length))  # squared distances from the eye centres
    inside = ((x >= 0.0) & (x <= length) & (np.abs(y) <= 0.5 * width)) | (near <= r_eye**2) | (far <= r_eye**2)
    inside &= (near > r_bore**2) & (far > r_bore**2)
    da = resolution**2
    rho_h = params["density"] * height
    mass = rho_h * da * inside.sum()
    xc = float((x[inside]).sum() * da * rho_h / mass)
    jxx = rho_h * da * float((y[inside] ** 2).sum()) + mass * height**2 / 12.0
    jyy = rho_h * da * float(((x[inside] - xc) ** 2).sum()) + mass * height**2 / 12.0
    jzz = rho_h * da * float(((x[inside] - xc) ** 2 + y[inside] ** 2).sum())
    return {"mass": mass, "centre_of_mass": np.array([xc, 0.0, 0.0]), "inertia": np.diag([jxx, jyy, jzz])}
