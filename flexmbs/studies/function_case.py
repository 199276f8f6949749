"""A model written in a script or a notebook, studied like a case (``fm.study(function, vary=...)``; docs/studies.md,
"Studies of a model written in Python").

:class:`FunctionCase` wraps a Python callable into what the study machinery expects of a case module (``NAME``,
``DEFAULTS``, ``run(params, t_end, out, progress) -> summary``), so a study of a script's model has the same folder,
resume, table and Dask scheduler as a study of a registered case. The callable travels to the Dask workers by
value (cloudpickle). It takes the parameters as keywords (their defaults are the study's defaults, ``out``: the
variant's results file) and returns a :class:`flexmbs.Results` (the table's outputs from ``outputs(results)``), a
:class:`flexmbs.Model` (simulated to ``t_end`` into the variant's results file) or a dict of scalar outputs (or a
case summary with an ``"outputs"`` key).
"""
from __future__ import annotations

import inspect
import time

from fem.errors import ModelError

__all__ = ["FunctionCase", "as_case"]


class FunctionCase:
    """A callable as a case: ``NAME``, ``DEFAULTS``, ``DESCRIPTION``, ``run``.

    Parameters
    ----------
    function : callable
        ``function(**params)`` (plus ``out=`` if it takes it) → Results, Model or dict (module docstring).
    name : str, optional
        Study name (manifest, variant ids); default the function's name with ``_`` → ``-``.
    defaults : dict, optional
        Parameter defaults (SI) overriding or completing the function's keyword defaults.
    t_end : float, s, optional
        End time when ``function`` returns a Model (and the ``t_end`` recorded otherwise).
    outputs : callable, optional
        ``outputs(results) -> {name: scalar}``: the table's columns when ``function`` returns Results or a Model.
    simulate_options : dict, optional
        Keywords of :func:`flexmbs.simulate` when ``function`` returns a Model.
    """

    def __init__(self, function, name: str | None = None, defaults: dict | None = None, t_end: float | None = None,
                 outputs=None, simulate_options: dict | None = None):
        if not callable(function):
            raise ModelError(f"study: expected a case name or a callable, got {type(function).__name__}")
        self.function, self.outputs, self.t_end = function, outputs, t_end
        self.simulate_options = dict(simulate_options or {})
        signature = inspect.signature(function)
        self._takes_out = "out" in signature.parameters
        own = {key: par.default for key, par in signature.parameters.items()
               if key != "out" and par.default is not inspect.Parameter.empty
               and par.kind in (par.POSITIONAL_OR_KEYWORD, par.KEYWORD_ONLY)}
        self.DEFAULTS = {**own, **(defaults or {})}
        self._any_keyword = any(par.kind is par.VAR_KEYWORD for par in signature.parameters.values())
        base = getattr(function, "__name__", "model")
        self.NAME = name or ("model" if base == "<lambda>" else base.replace("_", "-"))
        self.DESCRIPTION = (inspect.getdoc(function) or "").split("\n")[0]
        self.__name__ = f"{getattr(function, '__module__', '')}.{base}"
        unknown = [key for key in (defaults or {}) if key not in own and not self._any_keyword]
        if unknown:
            raise ModelError(f"study: {self.NAME}() takes no parameter {unknown[0]!r}; its parameters: "
                             f"{', '.join(own) or 'none'}")

    def run(self, params: dict | None = None, t_end: float | None = None, out: str | None = None,
            progress: bool = False) -> dict:
        """Call the function with ``DEFAULTS`` and ``params``; returns the case summary of the study table."""
        from fem.errors import SimulationError
        from flexmbs.engine.solver import simulate
        from flexmbs.model.model import Model
        from flexmbs.results.results import Results

        wall0 = time.perf_counter()
        kwargs = {**self.DEFAULTS, **(params or {})}
        if self._takes_out:
            kwargs["out"] = out
        t_end = t_end if t_end is not None else self.t_end
        value = self.function(**kwargs)
        if isinstance(value, Model):
            if t_end is None:
                raise ModelError(f"study: {self.NAME}() returns a Model; give t_end= (s) to simulate it")
            value = simulate(value, t_end, output=out, **self.simulate_options)
        if isinstance(value, Results):
            if not value.success:
                raise SimulationError(f"{self.NAME}: {value.message}")
            stats = value.statistics
            outputs = dict(self.outputs(value)) if self.outputs is not None else {}
            return {"case": self.NAME, "t_end": float(value.time[-1]), "steps": int(stats.get("steps", 0)),
                    "wall_s": time.perf_counter() - wall0,
                    "max_constraint_violation": float(stats.get("max_constraint_violation", 0.0)),
                    "outputs": outputs, "warnings": list(getattr(value, "warnings", []) or [])}
        if isinstance(value, dict):
            if "outputs" in value:
                return {"case": self.NAME, "wall_s": time.perf_counter() - wall0, **value}
            return {"case": self.NAME, "t_end": t_end, "wall_s": time.perf_counter() - wall0, "outputs": value}
        raise ModelError(f"study: {self.NAME}() returned {type(value).__name__}; return Results, a Model or a dict "
                         "of scalar outputs")


def as_case(case, **options):
    """A case module as it is, a callable as a :class:`FunctionCase` (``options`` are its keywords)."""
    if isinstance(case, FunctionCase) or (not callable(case) and hasattr(case, "DEFAULTS")):
        if options:
            raise ModelError(f"study: {', '.join(options)} apply to a callable, not to a case")
        return case
    if hasattr(case, "run") and hasattr(case, "DEFAULTS") and hasattr(case, "NAME"):
        return case  # a module object is not callable; this guards custom case objects with __call__
    return FunctionCase(case, **options)
