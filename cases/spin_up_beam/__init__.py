"""Case ``spin-up-beam``: the spin-up beam of Kane, Ryan & Banerjee (1987) and Simo & Vu-Quoc (1986), a flexible
beam clamped to a hub that is spun up smoothly — the classic check of geometric (stress) stiffening (issue 28).

The beam is reduced from ``fem.frame_model`` (Craig–Bampton, root and tip interfaces) with or without its modal
geometric stiffness (``--set geometric_stiffness=false`` shows the linear floating frame). The reference is the
co-rotational beam of :mod:`cases.spin_up_beam.corotational`. Model and results: docs/cases/spin-up-beam.md.
"""
from __future__ import annotations

import numpy as np

from cases._common import case_parameters, run_summary, simulate_run, toml_defaults

NAME = "spin-up-beam"
DESCRIPTION = ("Spin-up beam (Kane, Ryan & Banerjee 1987): a 10 m beam on a hub spun up to Ωs in 15 s; geometric "
               "stiffening on or off (--set omega_s=10 --set geometric_stiffness=false)")
DEFAULTS = toml_defaults(__file__, "spin_up_beam.toml")
PARAMETERS = DEFAULTS.specs


parameters = case_parameters(NAME, DEFAULTS)


def hub_angle(t: float, omega_s: float, t_spin: float) -> float:
    """Hub angle (rad): ``Ωs/Ts (t²/2 + (Ts/2π)² (cos(2πt/Ts) − 1))`` up to Ts, ``Ωs (t − Ts/2)`` after."""
    if t < t_spin:
        return omega_s / t_spin * (t * t / 2.0 + (t_spin / (2.0 * np.pi)) ** 2 * (np.cos(2.0 * np.pi * t / t_spin)
                                                                                    - 1.0))
    return omega_s * (t - t_spin / 2.0)


def build_body(p: dict):
    """The reduced beam: square section with the benchmark's EA, EI and ρA, root and tip interfaces."""
    from fem.beam import rectangular_section

    from .column import reduced_beam

    side = np.sqrt(12.0 * p["bending_stiffness"] / p["axial_stiffness"])
    x = np.linspace(0.0, p["length"], int(p["n_elements"]) + 1)
    material = f"E={p['axial_stiffness'] / side**2},nu=0.3,rho={p['mass_per_length'] / side**2}"
    return reduced_beam(np.column_stack([x, 0 * x, 0 * x]), rectangular_section(side, side), material, ("root", "tip"),
                        int(p["fixed_interface_modes"]), bool(p["geometric_stiffness"]), name="beam")


def build_model(p: dict, body=None):
    """Hub (revolute about z, prescribed angle) and the beam; marker ``tip`` at the tip interface."""
    import flexmbs as fm

    model = fm.Model(NAME)
    beam = model.add_flexible_body("beam", body if body is not None else build_body(p))
    hub = model.add_joint("revolute", model.add_marker(model.ground, "hub"),
                          model.add_marker(beam, "root", node="root"), name="hub")
    omega_s, t_spin = float(p["omega_s"]), float(p["t_spin"])
    hub.prescribe(position=lambda t: hub_angle(t, omega_s, t_spin))
    model.add_marker(beam, "tip", node="tip")
    return model


def tip_deflection(res, p: dict) -> np.ndarray:
    """Tip deflection (m) in the hub frame at the samples of ``res``."""
    angle = np.array([hub_angle(t, float(p["omega_s"]), float(p["t_spin"])) for t in res.time])
    tip = res["marker/tip/position"]
    return -np.sin(angle) * tip[:, 0] + np.cos(angle) * tip[:, 1]


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Spin the beam up; outputs: peak tip deflection in the hub frame and its time, amplitude after Ts."""
    p = parameters(params)
    t_end = float(t_end if t_end is not None else p["t_end"])
    res = simulate_run(NAME, build_model(p), t_end, p, out, progress, rtol=p["rtol"], atol=p["atol"],
                       output_interval=0.005)
    d = tip_deflection(res, p)
    k = int(np.argmax(np.abs(d)))
    after = d[res.time > p["t_spin"]]
    return run_summary(NAME, res, {"peak_tip_deflection_m": float(d[k]), "peak_time_s": float(res.time[k]),
                                   "amplitude_after_spin_up_m": float(np.abs(after).max()) if after.size else None,
                                   "geometric_stiffness": bool(p["geometric_stiffness"])})


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize spin-up-beam``: the beam at rest on its hub before the spin-up (t = 0, hub angle
    and rate zero) about its static equilibrium, a cantilever whose eigenvalues are ``±i ω_k`` of its bending and
    axial modes (Euler-Bernoulli cantilever: ``ω₁ = 1.8751² √(EI / (ρA L⁴))``); output the tip's deflection."""
    p = parameters(params)
    return {"model": build_model(p), "at": "static", "inputs": {},
            "outputs": {"tip_y": "marker/tip/position/y"}}
