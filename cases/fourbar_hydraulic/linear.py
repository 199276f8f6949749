"""Linear analysis of the four-bar (seed 002 §4.4-4.5): minimal Jacobian, friction scenarios, linear vs nonlinear.

* :func:`scenario_eigenvalues`: the 6x6 minimal Jacobian (state ``(phi2, omega2, p1, p2, p3, U)``, eq. (93)) about
  the static equilibrium at phi2 = 60° for the friction scenarios of Table 3 (nominal, /10, /100).
* :func:`linear_vs_nonlinear`: the nonlinear model under the torque pulse of eq. (92); from ``t2`` the linear model
  is started with the deviations of eq. (94) (``U~(t2) = 0``) and both are compared over a window.
* :func:`write_figure`: phi2(t) of both for the three scenarios (docs/img/fourbar-linear-vs-nonlinear.png).
"""
from __future__ import annotations

import math

import numpy as np

import flexmbs as fm

from cases._common import pyplot, save_figure

from .assembly import build_model
from .declaration import parameters

SCENARIOS = {"nominal": 1.0, "friction/10": 0.1, "friction/100": 0.01}


def equilibrium_point(model) -> fm.OperatingPoint:
    """The equilibrium of eq. (90), (91) itself: the assembled placement at phi2 = 60° with the equilibrium pressures
    and the valve neutral (``kind="static"``: :func:`flexmbs.linearize` checks that it is at rest). The general
    static solver would also find it, but with the trapped volumes the equilibria form a family (p3 is free) and its
    minimum-norm Newton steps drift along it by ~1e-6 rad."""
    from flexmbs.engine.initial import assemble_positions
    from flexmbs.engine.system import System

    system = System(model)
    q0, v0, z0 = system.initial_state()
    return fm.OperatingPoint(0.0, assemble_positions(system, q0), np.zeros_like(v0), z0, kind="static",
                             note="equilibrium of seed 002 eq. (90), (91)")


def linear_model(params: dict | None = None, torque: bool = True) -> fm.LinearModel:
    """The linearized four-bar about its static equilibrium, minimal coordinate phi2 (seed 002 eq. (87))."""
    model, _, _, _ = build_model(params, with_torque=torque)
    inputs = {"valve_command": "element/hydraulics/valve.command"}
    if torque:
        inputs["torque"] = "force/M2"
    return fm.linearize(model, at=equilibrium_point(model), coordinates=["joint/O1/rotation"], inputs=inputs,
                        outputs={"phi2": "joint/O1/rotation", "p1": "element/hydraulics/V1.pressure",
                                 "p2": "element/hydraulics/V2.pressure", "p3": "element/hydraulics/V3.pressure"})


def classify(eigenvalues: np.ndarray) -> str:
    """``"overdamped"`` if all non-zero eigenvalues are real, else ``"underdamped"``."""
    lam = np.asarray(eigenvalues)
    nonzero = lam[np.abs(lam) > 1e-9 * np.abs(lam).max()]
    return "underdamped" if np.any(np.abs(nonzero.imag) > 1e-9 * np.abs(nonzero).max()) else "overdamped"


def scenario_eigenvalues(params: dict | None = None) -> dict:
    """Eigenvalues (complex), frequency (Hz) and damping of the three friction scenarios (seed 002 Table 3)."""
    out = {}
    for label, scale in SCENARIOS.items():
        p = dict(params or {}, friction_scale=scale)
        analysis = linear_model(p, torque=False).eigen()
        out[label] = {"friction_scale": scale, "eigenvalues": analysis.eigenvalues,
                      "frequency_hz": analysis.frequency_hz, "damping_ratio": analysis.damping_ratio,
                      "response": classify(analysis.eigenvalues)}
    return out


def linear_vs_nonlinear(params: dict | None = None, window: float = 2.0, samples: int = 401) -> dict:
    """Nonlinear run with the torque pulse to ``t2 + window``; linear model from ``t2`` (eq. (94)).

    Returns times (s), phi2 nonlinear and linear (rad), the equilibrium angle, the excursion (largest
    ``|phi2 - phi2_0|`` of the nonlinear run in the window) and the largest difference relative to it.
    """
    p = parameters(params)
    model, _, _, _ = build_model(p)
    res = fm.simulate(model, p["torque_t2"] + window, max_step=min(0.01, window / 50), rtol=1e-6, atol=1e-8)
    if not res.success:
        raise fm.SimulationError(f"four-bar nonlinear run: {res.message}")
    return compare_after_release(res, linear_model(p), p, window, samples)


def compare_after_release(res, lin: fm.LinearModel, p: dict, window: float, samples: int = 401) -> dict:
    """The linear model started at ``t2`` from the state of the nonlinear run ``res`` (in memory), seed 002
    eq. (94): ``phi~(t2) = phi2(t2) - phi2_0``, ``omega~(t2) = phi2'(t2)``, ``p~(t2) = p(t2) - p0``, ``U~(t2) = 0``."""
    t2 = p["torque_t2"]
    phi0 = float(lin.output_values[0])
    op = lin.operating_point
    z = np.array([np.interp(t2, res.time, col) for col in res.states["z"].T])
    omega = float(np.interp(t2, res.time, res["body/link2/angular_velocity"][:, 2]))
    phi_t2 = float(np.interp(t2, res.time, res["joint/O1/rotation"]))
    x0 = np.zeros(lin.n_states)
    x0[0], x0[1] = phi_t2 - phi0, omega
    x0[2:5] = z[:3] - op.z[:3]
    times = np.linspace(t2, t2 + window, samples)
    phi_lin = phi0 + lin.simulate(times, x0) @ lin.C[0]
    phi_nl = np.interp(times, res.time, res["joint/O1/rotation"])
    excursion = float(np.max(np.abs(phi_nl - phi0)))
    diff = float(np.max(np.abs(phi_lin - phi_nl)))
    return {"time": times, "phi2_nonlinear": phi_nl, "phi2_linear": phi_lin, "phi2_equilibrium": phi0,
            "excursion_rad": excursion, "max_difference_rad": diff, "relative_difference": diff / excursion,
            "friction_scale": p["friction_scale"], "spool_at_t2": float(z[3])}


def write_figure(path: str, params: dict | None = None) -> dict:
    """phi2(t) after t2, nonlinear vs linear, for the three scenarios; returns the comparisons."""
    fig, axes = pyplot().subplots(1, 3, figsize=(13, 3.8), sharey=False)
    results = {}
    for ax, (label, scale) in zip(axes, SCENARIOS.items()):
        cmp = linear_vs_nonlinear(dict(params or {}, friction_scale=scale))
        results[label] = cmp
        t = cmp["time"]
        ax.plot(t, np.degrees(cmp["phi2_nonlinear"]), label="nonlinear (flexmbs.simulate)")
        ax.plot(t, np.degrees(cmp["phi2_linear"]), "--", label="linear, minimal coordinates")
        ax.axhline(math.degrees(cmp["phi2_equilibrium"]), color="0.6", lw=0.8)
        ax.set_title(f"{label}: max diff {100 * cmp['relative_difference']:.1f} % of excursion")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("phi2 [deg]")
    axes[0].legend(loc="upper right", fontsize=8)
    fig.suptitle("Four-bar (seed 002 §4.5): return to equilibrium after the torque pulse, from t2 = 1.5 s")
    save_figure(fig, path)
    return results
