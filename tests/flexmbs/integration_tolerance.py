"""Two integrations of the same equations agree to the integration error they ran with, not to round-off (issue 43).

Two runs whose step sequences differ (another engine, a user's Python element instead of its compiled twin, another
CPU's rounding: AVX-512 and FMA change the last bits, an accepted step becomes a rejected one, and from there the
steps differ) differ by their integration errors, and these include the interpolation between samples. The error a
run at ``rtol`` really has is measured against the same model integrated at ``rtol / 1000`` (its own error is then
negligible); two runs agree when they differ by at most :data:`FACTOR` times that error, plus ``rtol`` of the
signal's largest value. Each run carries about one such error, so two runs whose steps differ everywhere differ by
about twice it; a wrong model (another force law, a sign) differs by orders of magnitude more than the error of
an rtol-1e-8 run.
"""
from __future__ import annotations

import numpy as np

FACTOR = 4.0  # two runs' errors of similar size, with a margin for step sequences that differ
TIGHTER = 1.0e-3  # the reference runs at rtol x TIGHTER


def samples(res, times, key) -> np.ndarray:
    """``res[key]`` at ``times`` (linear interpolation between its samples), one column per component."""
    y = np.asarray(res[key], dtype=float).reshape(len(res.time), -1)
    return np.stack([np.interp(times, res.time, y[:, i]) for i in range(y.shape[1])], 1)


def integration_error(run, reference, key) -> float:
    """Largest difference of ``run[key]`` from the tighter ``reference`` over the samples of ``run``."""
    x = np.asarray(run[key], dtype=float).reshape(len(run.time), -1)
    return float(np.max(np.abs(samples(reference, run.time, key) - x)))


def assert_agree(a, b, reference, keys, rtol: float, factor: float = FACTOR) -> None:
    """``b`` equals ``a`` within ``factor`` x the integration error of ``a`` (measured against ``reference``, the
    same model at ``rtol`` x :data:`TIGHTER`) plus ``rtol`` of each signal's largest value."""
    for key in keys:
        x = np.asarray(a[key], dtype=float).reshape(len(a.time), -1)
        difference = float(np.max(np.abs(samples(b, a.time, key) - x)))
        error = integration_error(a, reference, key)
        bound = factor * error + rtol * float(np.max(np.abs(x)))
        assert difference <= bound, (f"{key}: the runs differ by {difference:.3g}, above {factor:g} x the "
                                     f"integration error {error:.3g} of the first run + rtol {rtol:g} of its peak")


def as_callbacks(model, forces: bool = True, elements: bool = True):
    """``model`` with its force elements and state elements turned into a user's Python elements: each force
    element becomes an instance of a subclass of its class (no kernel of its own, so the engine calls its
    ``generalized_forces`` back) and each state element is wrapped in :class:`PythonElement`. The twin of a
    built-in model whose laws run in their Python methods (the reference of the kernel tests) on the same engine
    (flexmbs.engine.callbacks): the runs agree within their integration errors (:func:`assert_agree`)."""
    if forces:
        for force in model.forces:
            cls = type(force)
            force.__class__ = type(f"User{cls.__name__}", (cls,), {"__module__": __name__})
    if elements:
        model.elements[:] = [PythonElement(e) for e in model.elements]
    return model


class PythonElement:
    """A state element that forwards to ``inner`` without its compiled kernel (``compiled_element``): a user's
    Python element, evaluated by callbacks."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.measurements = inner.measurements
        self.state_names = inner.state_names
        self.state_units = getattr(inner, "state_units", [""] * len(inner.state_names))
        for optional in ("output_units", "integral_units"):
            if hasattr(inner, optional):
                setattr(self, optional, getattr(inner, optional))

    def __getattr__(self, name):
        if name in ("compiled_element", "inner"):
            raise AttributeError(name)
        return getattr(self.inner, name)
