"""Machine cases: one subpackage per case, discovered automatically.

A case is a subpackage ``cases/<module_name>/`` whose ``__init__.py`` defines

* ``NAME`` — the name on the command line (``flexmbs run NAME``), e.g. ``"slider-crank"``;
* ``DESCRIPTION`` — one line for ``flexmbs cases``;
* ``DEFAULTS`` — dict of parameters in SI units (often loaded from a TOML file beside it);
* ``run(params: dict, t_end: float | None, out: str | None, progress: bool) -> dict`` — runs the case and returns a
  JSON-able dict with at least ``case, t_end, steps, wall_s, max_constraint_violation, outputs``;
* optionally ``linearization(params: dict) -> dict``, the hook of ``flexmbs linearize CASE`` (model, operating
  point, inputs, outputs: docs/linearization.md, "The case hook").

:func:`registry` maps names to modules. The ``flexmbs`` command finds this collection through the entry point
``builtin = "cases"`` of the group ``flexmbs.cases`` (pyproject.toml; see :mod:`flexmbs.catalog.registry`), so a new
case subpackage here needs no registration of its own. ``parse_assignments`` and ``parse_value`` live in
:mod:`flexmbs.catalog.registry` and are re-exported here.

Parameters can be declared with metadata (:data:`SPEC_FIELDS`: unit, range, provenance, ...) in the case's TOML file
or a ``PARAMETERS`` dict, so that ``flexmbs run`` checks them before any work (docs/safety.md, "Declared case
parameters"; NaN and infinity are rejected for every numeric parameter, declared or not).
"""
from __future__ import annotations

import importlib
import pkgutil

from fem.errors import ModelError
from flexmbs.catalog.parameters import (  # noqa: F401  (moved to flexmbs; kept importable here)
    PROVENANCE, SPEC_FIELDS, Defaults, check_parameter, load_toml_defaults, parameter_specs, validate_parameters)
from flexmbs.catalog.registry import parse_assignments, parse_value  # noqa: F401  (moved to flexmbs; importable here)

__all__ = ["registry", "get_case", "parse_value", "parse_assignments", "load_toml_defaults", "Defaults",
           "SPEC_FIELDS", "parameter_specs", "validate_parameters"]

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
