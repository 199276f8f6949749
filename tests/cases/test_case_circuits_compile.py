"""The circuits of the cases that used to keep the Python path compile without callbacks (issue 26): the
clamp-locking circuit (pipes with fluid inertia, end cushions) and the excavator's load-sensing sections (variable
pump, pressure compensator, shuttle valve, datasheet command). At random points their outputs obey the mass balance
(sources and tank deliver what the volumes' compression and the chambers take up: 1e-9 of the largest flow).
"""
from __future__ import annotations

import numpy as np
import pytest

from hydraulics.layout import compile_circuit
import hydraulics as hy


class _Stroke:
    """A stand-in distance measurement (the kernel only needs its place in ``y``)."""

    unit = "m"
    name = "stroke"


def clamp_locking_circuit():
    from cases.clamp_locking import parameters
    from cases.clamp_locking.circuit import build_circuit

    p = parameters()
    return build_circuit(p, _Stroke(), 1.0), 1.0, p["stroke"]


def excavator_circuit():
    from cases.excavator import parameters
    from cases.excavator.circuits import build_circuit

    p = parameters({"scenario": "digging-load-sensing"})
    return build_circuit(p, "stick", _Stroke(), 2.0, (80e5, 40e5), load_sensing=True), 2.0, p["stick_stroke"]


def random_state(circuit, rng):
    z = circuit.initial_state()
    for k, name in enumerate(circuit.state_names):
        if name.endswith("pressure"):  # near tank (laminar, cavitating) and working pressures
            z[k] = rng.choice([rng.uniform(-2e5, 3e5), rng.uniform(0.0, 300e5)])
        elif name.endswith(".flow"):  # pipe flows: laminar, blended and turbulent
            z[k] = rng.choice([rng.uniform(-1e-4, 1e-4), rng.uniform(-5e-3, 5e-3)])
        else:  # spools, openings, displacement fractions: inside and beyond [0, 1]
            z[k] = rng.uniform(-1.2, 1.2)
    return z


@pytest.mark.parametrize("build", [clamp_locking_circuit, excavator_circuit])
def test_case_circuit_compiles_and_keeps_its_mass_balance(build):
    circuit, retracted, stroke = build()
    compiled, why = compile_circuit(circuit)
    assert why == "", why
    rng = np.random.default_rng(3)
    for _ in range(200):
        t = rng.uniform(0.0, 12.0)
        z = random_state(circuit, rng)
        y = np.array([retracted + rng.uniform(-0.02, stroke + 0.02)])
        ydot = rng.normal(size=1) * 0.3
        out = circuit.outputs(t, z, y, ydot)
        delivered = sum(out[f"{n.name}.flow"] for n in circuit.components if isinstance(n, (hy.Tank,
                                                                                        hy.PressureSource)))
        stored = sum(out[f"{v.name}.compression_power"] / out[f"{v.name}.pressure"]
                     - out[f"{v.name}.cavitation_flow"] for v in circuit.volumes)
        chambers = sum((c.piston_area - c.rod_side_area * (not c.single_acting)) * ydot[0]
                       for c in circuit.components if isinstance(c, hy.Cylinder))
        scale = max(abs(out[k]) for k in out if k.endswith(".flow"))
        assert delivered == pytest.approx(stored + chambers, abs=1e-9 * scale)
