"""Slider-crank model: FE link → reduction → multibody model → outputs (seed 003 §2.1.3, Fig. 2-7).

Global frame at the crank bearing O, motion in the XY plane, slider on the X axis. Crank angle θ from X.
"""
from __future__ import annotations

import time

import numpy as np

from fem.errors import ModelError
from cases._common import run_summary, simulate_run
from flexmbs.catalog.parameters import override_defaults

__all__ = ["parameters", "link_flexbody", "build_model", "run_case", "slider_position", "slider_acceleration"]


def parameters(overrides: dict | None = None) -> dict:
    """The case's parameters with ``overrides`` checked (drive kind, link elements, crank shorter than the link)."""
    from .declaration import DEFAULTS, NAME

    p = override_defaults(NAME, DEFAULTS, overrides)
    if p["drive"] not in ("speed", "torque"):
        raise ModelError(f"{NAME}: drive must be 'speed' or 'torque', got {p['drive']!r}")
    if int(p["link_elements"]) < 2 or int(p["link_elements"]) % 2:
        raise ModelError(f"{NAME}: link_elements must be an even number >= 2 (a node at mid-span)")
    if not p["crank_length"] < p["link_length"]:
        raise ModelError(f"{NAME}: crank_length ({p['crank_length']:g} m) must be shorter than link_length "
                         f"({p['link_length']:g} m): the link could not reach the slider's guide")
    return p


def link_flexbody(p: dict):
    """The link as a reduced flexible body: frame FE model along x from A (x = 0) to B (x = L)."""
    from fem.beam import rectangular_section
    from fem.materials import parse_material
    from fem.model import frame_model
    from reduction.reduce import reduce as reduce_flexbody

    n = int(p["link_elements"])
    points = np.zeros((n + 1, 3))
    points[:, 0] = np.linspace(0.0, p["link_length"], n + 1)
    elements = np.column_stack([np.arange(n), np.arange(1, n + 1)])
    material = parse_material(f"E={p['link_youngs_modulus']},nu={p['link_poisson_ratio']},rho={p['link_density']}")
    fe = frame_model(points, elements, rectangular_section(p["link_width"], p["link_height"]), material)
    fe.add_interface_node("A", 0)
    fe.add_interface_node("B", n)
    return reduce_flexbody(fe, {"A": "123456", "B": "123456"}, int(p["link_normal_modes"]),
                                damping=float(p["link_damping_ratio"]), name="link", compare_modes=0)


def slider_position(theta, r, length):
    """Slider X position of the rigid mechanism, m: ``x = r cos θ + √(L² - r² sin² θ)``."""
    return r * np.cos(theta) + np.sqrt(length**2 - (r * np.sin(theta)) ** 2)


def slider_acceleration(theta, omega, r, length):
    """Slider acceleration (m/s²) of the rigid mechanism at constant crank speed ω (second time derivative)."""
    s, c = np.sin(theta), np.cos(theta)
    root = np.sqrt(length**2 - (r * s) ** 2)
    # x'(θ) = -r s - r² s c / root ; x''(θ) = -r c - r² (c² - s²)/root - r⁴ s² c² / root³
    return omega**2 * (-r * c - r**2 * (c * c - s * s) / root - r**4 * s * s * c * c / root**3)


def build_model(p: dict, flexbody=None, link_modes=None):
    """The multibody model (``link_modes``: indices of the link's elastic modes to keep, all by default)."""
    import flexmbs as fm
    from flexmbs.model.rotations import rotation_about

    r, length = float(p["crank_length"]), float(p["link_length"])
    theta = float(p["initial_crank_angle"])
    flexbody = flexbody if flexbody is not None else link_flexbody(p)
    model = fm.Model("slider-crank")
    model.parameters = dict(p)
    a = np.array([r * np.cos(theta), r * np.sin(theta), 0.0])
    xb = float(slider_position(theta, r, length))
    b = np.array([xb, 0.0, 0.0])
    phi = np.arctan2(b[1] - a[1], b[0] - a[0])
    crank = model.add_rigid_body("crank", mass=p["crank_mass"], inertia=(1e-6, p["crank_mass"] * r * r / 12,
                                                                         p["crank_mass"] * r * r / 12),
                                 position=0.5 * a, orientation=rotation_about("z", theta))
    link = model.add_flexible_body("link", flexbody, position=a, orientation=rotation_about("z", phi),
                                   modes=link_modes)
    slider = model.add_rigid_body("slider", mass=p["slider_mass"], inertia=(1e-4, 1e-4, 1e-4), position=b)
    along_x = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]  # marker z axis = global X
    bearing = model.add_joint("revolute", model.add_marker(model.ground, "O"),
                              model.add_marker(crank, "crank.O", position=(-r / 2, 0, 0)), name="bearing")
    model.add_joint("spherical", model.add_marker(crank, "crank.A", position=(r / 2, 0, 0)),
                    model.add_marker(link, "link.A", node="A"), name="crank_pin")
    model.add_joint("universal", model.add_marker(link, "link.B", node="B"),
                    model.add_marker(slider, "slider.B", orientation=rotation_about("x", -np.pi / 2)),
                    name="slider_pin")
    model.add_joint("prismatic", model.add_marker(model.ground, "guide", orientation=along_x),
                    model.add_marker(slider, "slider.guide", orientation=along_x), name="guide")
    mid_id = int(flexbody.node_ids[int(p["link_elements"]) // 2])
    model.add_marker(link, "link.mid", node=mid_id)
    if p["drive"] == "speed":
        bearing.prescribe(velocity=float(p["crank_speed"]), initial=theta)
        crank.initial_angular_velocity[:] = (0.0, 0.0, float(p["crank_speed"]))
        # its centre (0.5 a from the bearing) moves with it: the start given satisfies the joints (issue 43: every
        # run warned "body 'crank' velocity 0 -> 9.425 m/s")
        crank.initial_velocity[:] = np.cross((0.0, 0.0, float(p["crank_speed"])), 0.5 * a)
    else:
        model.add_force(fm.JointActuator(bearing, float(p["drive_torque"]), name="drive"))
    return model


def midpoint_deflection(res) -> np.ndarray:
    """Distance (m) of the link's mid-span node from the chord through its end nodes A and B, per sample."""
    a, b = res["marker/link.A/position"], res["marker/link.B/position"]
    m = res["marker/link.mid/position"]
    chord = b - a
    chord /= np.linalg.norm(chord, axis=1)[:, None]
    rel = m - a
    return np.linalg.norm(rel - np.einsum("ij,ij->i", rel, chord)[:, None] * chord, axis=1)


def run_case(overrides: dict, t_end, out, progress) -> dict:
    start = time.perf_counter()
    p = parameters(overrides)
    flexbody = link_flexbody(p)
    model = build_model(p, flexbody)
    t_end = float(p["t_end"] if t_end is None else t_end)
    res = simulate_run("slider-crank", model, t_end, p, out, progress, rtol=float(p["rtol"]), atol=float(p["atol"]))
    deflection = midpoint_deflection(res)
    slider_force = res["joint/slider_pin/force"]
    return run_summary("slider-crank", res, {
        "link_midpoint_deflection_max_m": float(deflection.max()),
        "slider_force_max_N": float(np.abs(slider_force[:, 0]).max()),
        "slider_force_x_min_N": float(slider_force[:, 0].min()),
        "slider_force_x_max_N": float(slider_force[:, 0].max()),
        "slider_stroke_m": float(np.ptp(res["body/slider/position"][:, 0])),
        "link_frequencies_hz": [float(f) for f in flexbody.frequencies_hz],
        "link_mass_kg": float(flexbody.invariants.mass),
        "results_file": out,
    }, time.perf_counter() - start)
