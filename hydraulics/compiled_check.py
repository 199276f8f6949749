"""Check a compiled circuit against the component methods at one point: the test of a case's own signal kernel
(docs/element-protocol.md "How to write one": a kernel equals its element's Python methods at random points).
``Circuit.rates`` and friends go through the kernel themselves; the reference here is the methods' evaluation
(``Circuit._evaluate_components``)."""
from __future__ import annotations

import numpy as np

from fem.scalar_laws import interp

from .compiled_kernel import circuit_eval

__all__ = ["evaluate_kernel", "check_point"]


def evaluate_kernel(compiled, t, z, y, ydot) -> tuple:
    """``(rates, forces, integrands, outputs)`` of the compiled circuit at ``(t, z, y, ẏ)``, its signals evaluated
    as the engine does (constants, tables, Python functions of time)."""
    sig = np.array([d if k == "constant" else (interp(t, *d)[0] if k == "table" else d(t))
                    for k, d in compiled.signals])
    rates, forces = np.zeros(z.size), np.zeros(y.size)
    aux, out = np.zeros(compiled.n_aux), np.zeros(len(compiled.output_names))
    circuit_eval(t, z, y, ydot, sig, compiled.fpar, compiled.ipar, rates, forces, aux, out, True)
    return rates, forces, aux, out


def check_point(circuit, compiled, t, z, y, ydot, out_abs: float = 1e-300) -> dict:
    """Raise AssertionError unless the kernel's outputs (each within ``max(1e-9 |ref|, out_abs)``), rates
    (``1e-9 |ref|``) and forces (``1e-9 |ref| + 1e-9``) equal the circuit's methods at the point; returns the
    methods' outputs."""
    rates, forces, _, out = evaluate_kernel(compiled, t, z, y, ydot)
    ev = circuit._evaluate_components(t, z, y, ydot)
    ref = {f"{comp.name}.{key}": float(value) for comp in circuit.components
           for key, (value, _) in comp.outputs(ev).items()}
    assert list(ref) == compiled.output_names, (list(ref), compiled.output_names)
    for name, value in zip(compiled.output_names, out):
        assert abs(value - ref[name]) <= max(1e-9 * abs(ref[name]), out_abs), (name, value, ref[name])
    np.testing.assert_allclose(rates, ev.rates, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(forces, ev.forces, rtol=1e-9, atol=1e-9)
    return ref
