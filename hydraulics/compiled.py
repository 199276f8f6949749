"""A circuit as flat arrays and one compiled kernel: the circuit's part of the compiled step (issue 26).

:func:`compile_circuit` turns a finalised :class:`~hydraulics.circuit.Circuit` into parameter arrays (``fpar``
floats, ``ipar`` integers: node table, signal records and one record per component) and the address of
:func:`circuit_kernel`, a numba ``cfunc`` with the C signature of the compiled element protocol
(docs/element-protocol.md, "compiled elements")::

    void kernel(long mode, double t, double *z, double *y, double *ydot, double *sig, double *fpar, long *ipar,
                double *rates, double *forces, double *aux)

The multibody engine calls it through that address from its own compiled step, without returning to Python;
hydraulics does not import flexmbs (the package layering), the address is the whole interface.

The kernel is the one implementation of the built-in components' laws (the kinds of
:func:`hydraulics.compiled_build.kernel_kind`), values only; the engine differences them for its Jacobian. ``aux`` holds the integrands of
``Circuit.integrands`` (per volume: the cavitation fill flow and ``|guard flow|``). Signals that are plain
functions of time (constants, tables, Python functions ``f(t)``) are evaluated by the engine once per time and
handed in ``sig``; the signals that read other signals, measurements, pressures or own states (Sum, PID,
LookupTable, sensors, ...) are evaluated in the kernel, and a signal class may bring its own numba kernel
(``compiled_signal``, :mod:`hydraulics.compiled_signals`: a case's controller). A user's component or signal is a
Python callback of the circuit (:mod:`hydraulics.circuit`): :func:`compile_circuit` names them, and the engine calls
such a circuit back as a Python element. Hydraulic motors are compiled; the engine measures their shaft angle (a joint
coordinate) in its own compiled step.

The code: :mod:`hydraulics.compiled_laws` (smooth laws), :mod:`hydraulics.compiled_signals` (signals),
:mod:`hydraulics.compiled_kernel` (components, the kernel), :mod:`hydraulics.compiled_build` (the arrays).
"""
from __future__ import annotations

from .compiled_build import CompiledCircuit, compile_circuit, kernel_kind
from .compiled_kernel import circuit_eval, circuit_gaps, circuit_kernel

__all__ = ["compile_circuit", "circuit_kernel", "circuit_eval", "circuit_gaps", "kernel_kind", "CompiledCircuit"]
