"""The four-bar with its circuit at the equilibrium pressures, one model (used by the run, the linearization and
the linear model of :mod:`cases.fourbar_hydraulic.linear`)."""
from __future__ import annotations

from .declaration import parameters
from .equilibrium import equilibrium_pressures
from .model import build_circuit, build_mechanism


def build_model(params: dict | None = None, with_torque: bool = True):
    """The four-bar with its circuit at the equilibrium pressures; returns ``(model, handles, equilibrium, p)``."""
    p = parameters(params)
    eq = equilibrium_pressures(p)
    model, handles = build_mechanism(p, with_torque=with_torque)
    model.add_element(build_circuit(p, handles["cylinder_length"], (eq["p1"], eq["p2"], eq["p3"])))
    return model, handles, eq, p
