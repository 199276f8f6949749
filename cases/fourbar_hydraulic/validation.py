"""Validation rows of the hydraulic four-bar (``flexmbs validate``): seed 002 §4.4-4.5 (eq. (91), Table 3).

The seed gives the geometry's angles, the equilibrium pressures and the friction scenarios, not the link masses or
areas (our values, docs/cases/fourbar-hydraulic.md): the equilibrium p2 depends on the masses, the area-ratio part
of it does not.
"""
from __future__ import annotations

import numpy as np

from flexmbs.catalog.validation import row, trend_row

ORIGIN_91 = "seed 002 eq. (91) (L470-480)"
ORIGIN_T3 = "seed 002 Table 3 and text (L535-560)"
EXPECTED = {"nominal": "overdamped", "friction/10": "underdamped", "friction/100": "underdamped"}


def equilibrium_rows(quick: bool = True) -> list:
    """Equilibrium pressures at phi2 = 60 deg against eq. (91)."""
    from . import parameters
    from .equilibrium import equilibrium_pressures
    from .model import PAPER_P2_MPA, cylinder_areas

    p = parameters({})
    eq = equilibrium_pressures(p)
    a2, a3 = cylinder_areas(p)  # bore side A2 (V2 chamber), rod side A3, m^2
    area_part = a3 / a2 * p["p3_equilibrium"] / 1e6
    cause = (f"p2 = (A3/A2) p3 + F/A2: the area-ratio part is {area_part:.3f} MPa; our invented link masses need "
             f"F = {eq['cylinder_force']:.0f} N, {eq['cylinder_force'] / a2 / 1e6:+.3f} MPa (the seed's masses are "
             "not given)")
    return [row("equilibrium p1 = p2", PAPER_P2_MPA, eq["p2"] / 1e6, kind="seed", origin=ORIGIN_91, unit="MPa",
                tolerance=0.02, note=cause),
            row("area-ratio part (A3/A2) p3 of p2", PAPER_P2_MPA, area_part, kind="seed", origin=ORIGIN_91,
                unit="MPa", tolerance=0.005, note="independent of the link masses; 0.5 % covers the printed digits"),
            row("p1 - p2 at equilibrium (valve closed, V1 and V2 joined by the throttle)", 0.0,
                (eq["p1"] - eq["p2"]) / 1e6, kind="analytic", origin="no flow at rest: equal pressures", unit="MPa",
                relative=False, tolerance=1e-9)]


def eigenvalue_rows(quick: bool = True) -> list:
    """Table 3: two null eigenvalues, lambda6 = -1/tau, overdamped at nominal friction, oscillating below."""
    from . import parameters
    from .linear import scenario_eigenvalues

    p = parameters({})
    rows = []
    for label, found in scenario_eigenvalues().items():
        lam = np.asarray(found["eigenvalues"])
        scale = np.abs(lam).max()
        n_zero = int(np.sum(np.abs(lam) < 1e-9 * scale))
        rows.append(row(f"null eigenvalues, {label}", 2, n_zero, kind="seed", origin=ORIGIN_T3, unit="",
                        relative=False, tolerance=0, note="p2 follows from p1, p3; p3 and phi2 are linked"))
        nearest = lam[np.argmin(np.abs(lam + 1.0 / p["valve_time_constant"]))]
        rows.append(row(f"lambda6 = -1/tau, {label}", -1.0 / p["valve_time_constant"], float(nearest.real),
                        kind="analytic", origin="seed 002 eq. (93): decoupled valve lag", unit="1/s",
                        tolerance=1e-9, note="tau = valve_time_constant (assumed, Table 2 not in the seed)"))
        rows.append(trend_row(f"response, {label}", EXPECTED[label], found["response"],
                              found["response"] == EXPECTED[label], origin=ORIGIN_T3,
                              note="seed's eigenvalue values depend on its unprinted Table 2; only the kind compares"))
    return rows


CHECKS = [("equilibrium (eq. 91)", equilibrium_rows, True), ("eigenvalues (Table 3)", eigenvalue_rows, True)]
