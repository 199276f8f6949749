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

Parameters can be declared with metadata, in one place (the case's TOML file or a ``PARAMETERS`` dict), so that
``flexmbs run`` checks them before any work. In TOML a plain ``key = value  # comment`` stays valid; a declared
parameter is an inline table with a ``value`` and any of :data:`SPEC_FIELDS`::

    supply_pressure = {value = 28.0e6, unit = "Pa", gt = 0, max = 1e8, provenance = "seed",
                       source = "seed 001 §3", description = "rated pressure of the constant-pressure pumps"}

``min``/``max`` are inclusive bounds, ``gt``/``lt`` exclusive ones, ``integer = true`` rejects fractional values;
NaN and infinity are rejected for every numeric parameter, declared or not, and an integer default only takes
integers.
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import math
import tomllib

from fem.errors import ModelError

__all__ = ["registry", "get_case", "parse_value", "parse_assignments", "load_toml_defaults", "Defaults",
           "SPEC_FIELDS", "parameter_specs", "validate_parameters"]

# metadata of a declared parameter (shared with the provenance view of issue 16)
SPEC_FIELDS = ("unit", "min", "max", "gt", "lt", "integer", "provenance", "source", "description")
PROVENANCE = ("seed", "derived", "assumed", "calibrated")


class Defaults(dict):
    """A case's parameter values (a plain dict) that also carries their declared metadata in ``specs``."""

    def __init__(self, values=(), specs=None):
        super().__init__(values)
        self.specs = dict(specs or {})

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


def load_toml_defaults(path: str) -> Defaults:
    """A case's parameters from its TOML file, flattened (sections only group the keys; each key is unique).

    A key written as an inline table with a ``value`` is a declared parameter: the value goes to the result, the
    metadata (:data:`SPEC_FIELDS`) to ``result.specs``.
    """
    with open(path, "rb") as handle:
        raw = tomllib.load(handle)
    flat, specs = {}, {}
    for section in raw.values():
        for key, value in section.items():
            if key in flat:
                raise KeyError(f"{os.path.basename(path)}: key {key!r} appears twice")
            if isinstance(value, dict) and "value" in value:
                specs[key] = _spec(os.path.basename(path), key, {k: v for k, v in value.items() if k != "value"})
                value = value["value"]
            flat[key] = value
    return Defaults(flat, specs)


def _spec(where: str, key: str, spec: dict) -> dict:
    unknown = set(spec) - set(SPEC_FIELDS)
    if unknown:
        raise KeyError(f"{where}: parameter {key!r} has unknown metadata {sorted(unknown)}; allowed: {SPEC_FIELDS}")
    if "provenance" in spec and spec["provenance"] not in PROVENANCE:
        raise KeyError(f"{where}: parameter {key!r}: provenance must be one of {PROVENANCE}")
    return dict(spec)


def parameter_specs(specs: dict, where: str = "PARAMETERS") -> dict:
    """Check and return a ``{key: metadata}`` dict for cases that declare parameters in Python."""
    return {key: _spec(where, key, spec) for key, spec in specs.items()}


def _range_text(spec: dict) -> str:
    parts = [f"> {spec['gt']:g}" if "gt" in spec else None, f">= {spec['min']:g}" if "min" in spec else None,
             f"< {spec['lt']:g}" if "lt" in spec else None, f"<= {spec['max']:g}" if "max" in spec else None]
    return " and ".join(p for p in parts if p)


def check_parameter(case_name: str, key: str, value, default, spec: dict | None) -> None:
    """One-line :class:`ModelError` naming ``key`` when ``value`` is not finite, not an integer where one is
    expected, or outside the declared range."""
    spec = spec or {}
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    unit = f" {spec['unit']}" if spec.get("unit") not in (None, "", "1") else ""
    about = f" ({spec['description']})" if spec.get("description") else ""
    if not math.isfinite(value):
        raise ModelError(f"{case_name}: parameter {key!r} = {value} is not a finite number; give a value in"
                         f"{unit or ' SI units'}{about}")
    wants_int = spec.get("integer") or (isinstance(default, int) and not isinstance(default, bool))
    if wants_int and not float(value).is_integer():
        raise ModelError(f"{case_name}: parameter {key!r} is a count and takes whole numbers, got {value}{about}")
    bad = (("gt" in spec and not value > spec["gt"]) or ("min" in spec and not value >= spec["min"])
           or ("lt" in spec and not value < spec["lt"]) or ("max" in spec and not value <= spec["max"]))
    if bad:
        raise ModelError(f"{case_name}: parameter {key!r} = {value:g}{unit} is outside its range "
                         f"{_range_text(spec)}{unit}{about}; set a value within it")


def validate_parameters(module, params: dict) -> dict:
    """Check the overrides ``params`` of a case module (and its declared defaults) before any work: finite
    numbers, integers for counts, declared ranges. Returns the merged parameters."""
    defaults = module.DEFAULTS
    specs = dict(getattr(defaults, "specs", {}) or {})
    specs.update(getattr(module, "PARAMETERS", {}) or {})
    merged = dict(defaults)
    merged.update(params)
    name = getattr(module, "NAME", "case")
    for key, value in merged.items():
        check_parameter(name, key, value, defaults.get(key), specs.get(key))
    return merged


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
        if isinstance(default, int) and not isinstance(default, bool) and isinstance(value, float):
            if not (math.isfinite(value) and value.is_integer()):
                raise ModelError(f"{case_name}: parameter {key!r} is a count and takes whole numbers, got {text!r}")
            value = int(value)
        if isinstance(default, (int, float)) and not isinstance(default, bool) and isinstance(value, str):
            raise ModelError(f"{case_name}: parameter {key!r} expects a number, got {text!r}")
        params[key] = value
    return params
