"""Validation rows of the spin-up beam (``flexmbs validate``, issue 28): the rotating cantilever against the
Southwell law and the spin-up against the geometrically exact co-rotational beam (:mod:`.corotational`).
tests/flexmbs/test_geometric_stiffening.py and tests/flexmbs/test_spin_up_beam.py assert the same comparisons.
"""
from __future__ import annotations

import warnings

import numpy as np

from flexmbs.catalog.validation import row, skipped_rows

CASE = "spin-up-beam"
SOUTHWELL_K = 1.193  # first mode of a uniform cantilever
ORIGIN_SOUTHWELL = "Southwell law ω² = ω₀² + (k − 1)Ω² in plane, ω₀² + kΩ² out of plane, k = 1.193"
ORIGIN_COROTATIONAL = "geometrically exact co-rotational beam, 40 elements (cases/spin_up_beam/corotational.py)"


def rotating_frequencies(body, spin):
    """Lowest in-plane and out-of-plane bending frequencies (rad/s) about the steadily rotating state."""
    import flexmbs as fm

    model = fm.Model("rotating cantilever")
    beam = model.add_flexible_body("beam", body, angular_velocity=(0.0, 0.0, spin))
    hub = model.add_joint("revolute", model.add_marker(model.ground, "hub"), model.add_marker(beam, "r", node="root"),
                          name="hub")
    hub.prescribe(velocity=spin)
    coords = [f"body/beam/modal_coordinates/q{k + 1}" for k in range(body.n_modes)]
    eig = fm.linearize(model, at=0.02, coordinates=coords).eigen()
    tip = body.interface("tip").node
    found = {}
    for k in np.argsort(np.abs(eig.eigenvalues)):
        lam = eig.eigenvalues[k]
        if lam.imag > 0:
            shape = body.translations[tip] @ eig.modes[:body.n_modes, k]
            found.setdefault("in" if abs(shape[1]) > abs(shape[2]) else "out", abs(lam.imag))
    return found["in"], found["out"]


def southwell_rows(quick: bool = True) -> list:
    """First bending frequencies of the beam rotating at 2 and 4 rad/s (linearized) against the Southwell law."""
    from . import DEFAULTS, build_body

    p = dict(DEFAULTS)
    body = build_body(p)
    omega0 = 1.875104**2 * np.sqrt(p["bending_stiffness"] / (p["mass_per_length"] * p["length"] ** 4))
    rows = []
    for spin in (2.0, 4.0):
        in_plane, out_of_plane = rotating_frequencies(body, spin)
        rows.append(row(f"in-plane bending frequency at Ω = {spin:g} rad/s", np.sqrt(omega0**2 + (SOUTHWELL_K - 1)
                                                                                        * spin**2),
                        in_plane, kind="analytic", origin=ORIGIN_SOUTHWELL, unit="rad/s", tolerance=0.02))
        rows.append(row(f"out-of-plane bending frequency at Ω = {spin:g} rad/s",
                        np.sqrt(omega0**2 + SOUTHWELL_K * spin**2), out_of_plane, kind="analytic",
                        origin=ORIGIN_SOUTHWELL, unit="rad/s", tolerance=0.02))
    return rows


def spin_up_rows(quick: bool = True) -> list:
    """Peak tip deflection in the hub frame and its time at Ωs = 4, 6, 10 rad/s against the co-rotational beam."""
    import flexmbs as fm

    from . import DEFAULTS, build_body, build_model, tip_deflection
    from .corotational import spin_up_tip_deflection

    speeds = (4.0, 6.0, 10.0)
    if quick:
        return skipped_rows([(f"peak tip deflection, Ωs = {s:g} rad/s", None, "m") for s in speeds]
                            + [(f"time of the peak, Ωs = {s:g} rad/s", None, "s") for s in speeds],
                            origin=ORIGIN_COROTATIONAL, kind="analytic")
    p = dict(DEFAULTS)
    body = build_body(p)
    rows = []
    for speed in speeds:
        p["omega_s"] = speed
        ref = spin_up_tip_deflection(speed, ts=p["t_spin"], t_end=p["t_end"], n_elements=40)
        k_ref = int(np.argmax(np.abs(ref[:, 1])))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fm.simulate(build_model(p, body), p["t_end"], output_interval=0.005)
        d = tip_deflection(res, p)
        k = int(np.argmax(np.abs(d)))
        note = "" if res.success else res.message
        rows.append(row(f"peak tip deflection, Ωs = {speed:g} rad/s", ref[k_ref, 1], d[k], kind="analytic",
                        origin=ORIGIN_COROTATIONAL, unit="m", tolerance=0.03, note=note))
        rows.append(row(f"time of the peak, Ωs = {speed:g} rad/s", ref[k_ref, 0], res.time[k], kind="analytic",
                        origin=ORIGIN_COROTATIONAL, unit="s", tolerance=0.2, relative=False))
    return rows


CHECKS = [("rotating cantilever: Southwell law", southwell_rows, True),
          ("spin-up beam vs the co-rotational beam", spin_up_rows, False)]
