"""Compile the circuit kernels before a user waits for them (issue 42): the package build (``python -m
flexmbs_jit.build``) runs :func:`warm_up` beside the engine's warm-up.

The kernels' types do not depend on the circuit (its components are numbers in parameter arrays), so one small
circuit evaluated once compiles what every circuit uses: the rates and forces, the outputs, and the Jacobian by
differences that linearization and static equilibrium ask for (a case that linearizes compiled it at its first run
before: ``circuit_jacobian``, found in session 15).
"""
from __future__ import annotations

import numpy as np

__all__ = ["warm_up"]


def warm_up() -> dict:
    """Evaluate a tank, pump, relief valve, orifice, cylinder and two volumes once; returns the outputs."""
    from . import Circuit, Cylinder, FixedDisplacementPump, Orifice, ReliefValve, Tank, Volume

    circuit = Circuit("warm-up")
    circuit.add(Tank("T"))
    circuit.add(Volume("P", 1e-4, initial_pressure=50e5))
    circuit.add(Volume("A", 1e-4, initial_pressure=20e5))
    circuit.add(FixedDisplacementPump.from_flow("pump", 1e-4, relief_pressure=160e5), S="T", P="P")
    circuit.add(ReliefValve("relief", 120e5, 1e-9), P="P", T="T")
    circuit.add(Orifice("orifice", 1e-6), A="P", B="A")
    circuit.add(Cylinder("cylinder", 2e-3, 1.2e-3, 0.5), A="A", B="T")
    z = circuit.initial_state()
    y, ydot = np.array([0.2]), np.array([0.01])
    circuit.rates(0.0, z, y, ydot)
    circuit.jacobians(0.0, z, y, ydot)
    # the node pressures Python reads itself (a circuit with a user's component or signal, Circuit._evaluate_callbacks):
    # the kernels no longer call this entry, so nothing else compiles it before a user's first run
    from .kernel import node_pressures
    from .layout import compile_circuit

    compiled, _ = compile_circuit(circuit)
    node_pressures(z, compiled.fpar, compiled.ipar)
    return circuit.outputs(0.0, z, y, ydot)
