"""Machine cases: one subpackage per case, discovered automatically.

A case is a subpackage ``cases/<module_name>/`` whose ``__init__.py`` defines

* ``NAME`` — the name on the command line (``flexmbs run NAME``), e.g. ``"slider-crank"``;
* ``DESCRIPTION`` — one line for ``flexmbs cases``;
* ``DEFAULTS`` — dict of parameters in SI units (often loaded from a TOML file beside it);
* ``run(params: dict, t_end: float | None, out: str | None, progress: bool) -> dict`` — runs the case and returns a
  JSON-able dict with at least ``case, t_end, steps, wall_s, max_constraint_violation, outputs``.

Optional, for ``flexmbs linearize CASE`` (docs/linearization.md):

* ``linearization(params: dict) -> dict`` — ``params`` are the ``--set`` overrides (merge them with ``DEFAULTS``
  as ``run`` does); returns ``{"model": flexmbs.Model, "at": "static" | T (s) | "RUN.results.h5@T",
  "inputs": [names] or {alias: name}, "outputs": [names] or {alias: name}}`` and optionally ``"coordinates"``
  (names of the minimal coordinates) and ``"simulate_options"`` (keywords of ``flexmbs.simulate`` used when ``at``
  is a time). Input names: ``element/<element>/<signal>`` (e.g. ``element/hydraulics/valve.command``),
  ``force/<force>`` (a JointActuator's load), ``force/<force>/Fx``; output names are results-file signal names
  with their component (``joint/<joint>/rotation``, ``element/<element>/V2.pressure``, ``body/<b>/position/x``).

:func:`registry` maps names to modules; :func:`parse_assignments` turns ``--set key=value`` strings into typed values
and rejects keys a case does not know.
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import tomllib

from fem.errors import ModelError

__all__ = ["registry", "get_case", "parse_value", "parse_assignments"]

_REQUIRED = ("NAME", "DESCRIPTION", "DEFAULTS", "run")


def registry() -> dict:
    """``{case name: case module}`` of every subpackage of :mod:`cases` that defines the case interface."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.ispkg or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if all(hasattr(module, attr) for attr in _REQUIRED):
            found[module.NAME] = module
    return dict(sorted(found.items()))


def get_case(name: str):
    """The case module called ``name``; a clear error lists the known cases otherwise."""
    cases = registry()
    if name not in cases:
        raise ModelError(f"unknown case {name!r}; known cases: {', '.join(cases) or 'none'} (see `flexmbs cases`)")
    return cases[name]


def parse_value(text: str):
    """A ``--set`` value: int, float, bool (true/false/yes/no/on/off) or the string itself."""
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def load_toml_defaults(path: str) -> dict:
    """A case's parameters from its TOML file, flattened (sections only group the keys; each key is unique)."""
    with open(path, "rb") as handle:
        raw = tomllib.load(handle)
    flat = {}
    for section in raw.values():
        for key, value in section.items():
            if key in flat:
                raise KeyError(f"{os.path.basename(path)}: key {key!r} appears twice")
            flat[key] = value
    return flat


def parse_assignments(assignments, defaults: dict, case_name: str = "case") -> dict:
    """``["key=value", ...]`` → ``{key: value}`` typed like the defaults; unknown keys are a one-line error."""
    params = {}
    for item in assignments:
        if "=" not in item:
            raise ModelError(f"--set expects key=value, got {item!r}")
        key, text = (part.strip() for part in item.split("=", 1))
        if key not in defaults:
            raise ModelError(f"{case_name}: unknown parameter {key!r}; valid keys: {', '.join(sorted(defaults))}")
        value = parse_value(text)
        default = defaults[key]
        if isinstance(default, bool) and not isinstance(value, bool):
            raise ModelError(f"{case_name}: parameter {key!r} expects true or false, got {text!r}")
        if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(default, (int, float)) and not isinstance(default, bool) and isinstance(value, str):
            raise ModelError(f"{case_name}: parameter {key!r} expects a number, got {text!r}")
        params[key] = value
    return params
