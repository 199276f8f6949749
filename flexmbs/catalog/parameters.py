"""Declared parameters of machine cases: values with unit, range, provenance and description, checked before
any work (used by ``flexmbs run``, ``flexmbs study``, ``flexmbs linearize`` and by the cases' TOML files).

Lives in :mod:`flexmbs` so that the command line and users' own case packages use it without importing the
built-in :mod:`cases` (which re-exports it). The TOML form is described in :mod:`cases`.
"""
from __future__ import annotations

import math
import os
import tomllib
import types
import warnings

from fem.errors import ModelError

__all__ = ["SPEC_FIELDS", "PROVENANCE", "Defaults", "load_toml_defaults", "parameter_specs", "check_parameter",
           "validate_parameters"]

# metadata of a declared parameter (shared with the provenance view of issue 16)
SPEC_FIELDS = ("unit", "min", "max", "gt", "lt", "integer", "provenance", "source", "description")
PROVENANCE = ("seed", "derived", "assumed", "calibrated")


class Defaults(dict):
    """A case's parameter values (a plain dict) that also carries their declared metadata in ``specs``."""

    def __init__(self, values=(), specs=None):
        super().__init__(values)
        self.specs = dict(specs or {})


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
    about = f" ({spec['description']})" if spec.get("description") else ""
    if value is None and isinstance(default, (int, float)) and not isinstance(default, bool):  # issue 43
        raise ModelError(f"{case_name}: parameter {key!r} takes a number, got None")
    if (isinstance(value, (str, bytes)) and isinstance(default, (int, float)) and not isinstance(default, bool)):
        raise ModelError(f"{case_name}: parameter {key!r} takes a number, got {value!r}{about}")  # issue 43
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    unit = f" {spec['unit']}" if spec.get("unit") not in (None, "", "1") else ""
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
    specs = {**(getattr(defaults, "specs", {}) or {}), **(getattr(module, "PARAMETERS", {}) or {})}
    merged = {**defaults, **params}
    name = getattr(module, "NAME", "case")
    unknown = sorted(set(params) - set(defaults))
    # issue 43: an unknown key passed to Python's validate_parameters was accepted (a case package's parameters are
    # its DEFAULTS; a study's function case may take more keywords)
    if unknown and defaults and isinstance(module, types.ModuleType):
        raise ModelError(f"{name}: unknown parameter {unknown[0]!r}; valid keys: {', '.join(sorted(defaults))}")
    for key, value in merged.items():
        check_parameter(name, key, value, defaults.get(key), specs.get(key))
    for key, value in params.items():
        note = unit_slip(name, key, value, defaults.get(key), specs.get(key))
        if note:
            from flexmbs.results.plausibility import PlausibilityWarning

            warnings.warn(note, PlausibilityWarning, stacklevel=2)
    return merged


# (unit, factor, what was probably typed): a value this factor away from its default (within a factor 1.5) is
# a unit slip more often than a design (issue 43: tonnes typed as kg, bar or MPa as Pa, mm as m)
_SLIPS = (("kg", 1e-3, "tonnes typed as kg"), ("kg", 1e3, "grams typed as kg"), ("Pa", 1e-5, "bar typed as Pa"),
          ("Pa", 1e-6, "MPa typed as Pa"), ("m", 1e3, "millimetres typed as metres"),
          ("m^3", 1e3, "litres typed as m^3"), ("deg", math.pi / 180.0, "radians typed as degrees"))


def unit_slip(case_name: str, key: str, value, default, spec: dict | None) -> str:
    """A heuristic note (issue 43) when an overridden value looks like a unit slip: a factor of :data:`_SLIPS`
    from its default, or an angle in rad above a full turn (degrees typed as radians); ``""`` otherwise."""
    unit = (spec or {}).get("unit")
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or isinstance(default, bool)
            or not isinstance(default, (int, float)) or not unit or not math.isfinite(value)):
        return ""
    if unit == "rad" and abs(value) > 2.0 * math.pi >= abs(default):
        return (f"{case_name}: {key} = {value:g} rad is more than a full turn (its default is {default:g} rad): "
                f"degrees typed as radians? {key} is in rad ({math.radians(value):.4g} rad = {value:g}°)")
    if default == 0 or value == 0 or (value > 0) != (default > 0):
        return ""
    ratio = value / default
    for slip_unit, factor, what in _SLIPS:
        if unit == slip_unit and factor / 1.5 <= ratio <= factor * 1.5:
            return (f"{case_name}: {key} = {value:g} {unit} is {ratio:.3g} x its default {default:g} {unit}: {what}? "
                    f"{key} is in {unit}")
    return ""


def _convert(value, default):
    """``value`` as the type of ``default`` (booleans from true/false/1/0/yes/no/on/off)."""
    if isinstance(default, bool):
        if isinstance(value, str):
            text = value.lower()
            if text in ("true", "1", "yes", "on", "false", "0", "no", "off"):
                return text in ("true", "1", "yes", "on")
            raise ValueError(value)
        return bool(value)
    if isinstance(default, str):
        return str(value)
    if isinstance(default, (int, float)):
        return type(default)(value)
    return value


def override_defaults(case_name: str, defaults: dict, params: dict | None, choices: dict | None = None) -> dict:
    """A case's ``DEFAULTS`` updated with ``params``, each value converted to its default's type; unknown keys,
    unconvertible values and values outside ``choices`` (``{key: allowed values}``) are a one-line ModelError."""
    merged = dict(defaults)
    for key, value in (params or {}).items():
        if key not in defaults:
            raise ModelError(f"{case_name}: unknown parameter {key!r}; known: {', '.join(sorted(defaults))}")
        try:
            merged[key] = _convert(value, defaults[key])
        except (TypeError, ValueError):
            raise ModelError(f"{case_name}: parameter {key!r} expects a {type(defaults[key]).__name__}, "
                             f"got {value!r}") from None
    for key, allowed in (choices or {}).items():
        if merged[key] not in allowed:
            raise ModelError(f"{case_name}: unknown {key} {merged[key]!r}; it must be one of "
                             f"{', '.join(map(str, allowed))}")
    return merged
