"""Equilibrium pressures of the four-bar at phi2 = 60° with p3 fixed (seed 002 eq. (79)..(83), (91)).

With the valve closed every (p2, p3) giving the same cylinder force is an equilibrium; the paper fixes
``p3 = 3.5 MPa`` and solves the force balance for ``p1 = p2`` (eq. (82)). ``flexmbs.static_equilibrium`` finds the
force the cylinder carries: a stiff locking spring at its length ``s0`` (the locked cylinder of seed 001 eq. (26),
(27)) whose preload is updated to the tension found until it is undeflected (``|s - s0| < 1e-12 m``), so the tension
is the force at exactly phi2 = 60°. Then ``p2 = (F + p3 A3) / A2`` (eq. (7) with ``F_mu = 0`` at rest), checked
against the virtual-work balance of :func:`geometry.virtual_work_cylinder_force` (no multibody solver).
"""
from __future__ import annotations

import math

import flexmbs as fm

from . import geometry
from .model import build_mechanism, cylinder_areas


def equilibrium_pressures(params: dict, locking_stiffness: float = 1e6, max_iter: int = 10) -> dict[str, float]:
    """``p1 = p2`` and ``p3`` (Pa) holding the mechanism at ``phi2_deg``; also the cylinder force (N) and phi2 (rad).

    Parameters
    ----------
    params : dict
        Case parameters (``DEFAULTS`` with overrides).
    locking_stiffness : float, N/m
        Stiffness of the spring that locks the cylinder length during the static solution.
    """
    lengths = geometry.link_lengths(params["L3"])
    s0 = geometry.cylinder_length(math.radians(params["phi2_deg"]), lengths)
    preload = 0.0
    for _ in range(max_iter):
        model, handles = build_mechanism(params, with_torque=False)
        m = handles["markers"]
        model.add_force(fm.SpringDamper(m["Oc"], m["G2"], stiffness=locking_stiffness, free_length=s0,
                                        preload=preload, name="lock"))
        res = fm.static_equilibrium(model)
        tension = float(res["force/lock/force"][-1])
        if abs(float(res["force/lock/length"][-1]) - s0) < 1e-12:
            break
        preload = tension
    else:
        raise fm.SimulationError("four-bar equilibrium: the locking spring did not settle; check the geometry")
    force = -tension  # tension pulls the pins together; the cylinder force pushes them apart
    a2, a3 = cylinder_areas(params)
    p3 = params["p3_equilibrium"]
    p2 = (force + p3 * a3) / a2
    phi2 = float(res["joint/O1/rotation"][-1])
    return {"p1": p2, "p2": p2, "p3": p3, "cylinder_force": force, "phi2": phi2}
