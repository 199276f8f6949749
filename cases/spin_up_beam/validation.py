"""Validation rows of the spin-up beam (``flexmbs validate``, issue 28): the rotating cantilever against the
Southwell law and the spin-up against the geometrically exact co-rotational beam (:mod:`.corotational`).
tests/flexmbs/test_geometric_stiffening.py and tests/flexmbs/test_spin_up_beam.py assert the same comparisons.
"""
from __future__ import annotations

import warnings

import numpy as np

from flexmbs.catalog.validation import row, skipped_rows, trend_row

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
        for plane, k, found in zip(("in-plane", "out-of-plane"), (SOUTHWELL_K - 1, SOUTHWELL_K),
                                   rotating_frequencies(body, spin)):
            rows.append(row(f"{plane} bending frequency at Ω = {spin:g} rad/s", np.sqrt(omega0**2 + k * spin**2),
                            found, kind="analytic", origin=ORIGIN_SOUTHWELL, unit="rad/s", tolerance=0.02))
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


ORIGIN_EULER = "Euler column ω² = ω₀² (1 − P/P_cr), P_cr = π² EI/L², ω₀ = π² √(EI/ρA L⁴) (pinned–pinned)"


def euler_column_rows(quick: bool = True) -> list:
    """The preloaded pinned–pinned frame column (:mod:`.column`): lowest frequency at P/P_cr = 0, 0.5, 0.9 and
    the loss of stability between 0.98 and 1.02 P_cr, from the linearization."""
    import flexmbs as fm

    from .column import column_body, column_model, euler_reference, lowest_frequency

    body = column_body()
    omega0, p_cr = euler_reference()
    rows = [row(f"lowest frequency at P = {ratio:g} P_cr", omega0 * np.sqrt(1.0 - ratio),
                lowest_frequency(body, ratio * p_cr)[0], kind="analytic", origin=ORIGIN_EULER, unit="rad/s",
                tolerance=0.01) for ratio in (0.0, 0.5, 0.9)]
    below = fm.linearize(column_model(body, 0.98 * p_cr)).eigenvalues()
    above = fm.linearize(column_model(body, 1.02 * p_cr)).eigenvalues()
    stable = bool(below.real.max() < 1e-6 * np.abs(below).max())
    diverging = int(np.sum((np.abs(above.imag) < 1e-9) & (above.real > 1e-3)))
    rows.append(trend_row("stability at 0.98 / 1.02 P_cr", "stable / one real positive eigenvalue (divergence)",
                          f"{'stable' if stable else 'unstable'} / {diverging} real positive eigenvalue(s)",
                          stable and diverging == 1, origin=ORIGIN_EULER))
    return rows


def solid_column_rows(quick: bool = True) -> list:
    """A quadratic-hexahedral column (solid geometric stiffness): buckling load from the linearization against
    Euler (slow: meshing and reduction of 21 000 dofs)."""
    from .column import SOLID_EULER_LOAD, lowest_frequency, solid_column_body

    quantity = "buckling load of the hex27 column, P ω₀²/(ω₀² − ω²) at P = 0.5 P_E"
    if quick:
        return skipped_rows([(quantity, SOLID_EULER_LOAD, "N")], origin=ORIGIN_EULER, kind="analytic")
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        body = solid_column_body(folder)
    omega0 = lowest_frequency(body, 0.0)[0]
    omega = lowest_frequency(body, 0.5 * SOLID_EULER_LOAD)[0]
    return [row(quantity, SOLID_EULER_LOAD, 0.5 * SOLID_EULER_LOAD * omega0**2 / (omega0**2 - omega**2),
                kind="analytic", origin=ORIGIN_EULER, unit="N", tolerance=0.01,
                note="1 m × 20 mm × 30 mm, 100 × 2 × 3 hex27, RBE2 ends, 6 fixed-interface modes")]


CHECKS = [("rotating cantilever: Southwell law", southwell_rows, True),
          ("preloaded column: Euler", euler_column_rows, True),
          ("solid column: Euler load", solid_column_rows, False),
          ("spin-up beam vs the co-rotational beam", spin_up_rows, False)]
