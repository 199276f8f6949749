"""The case registry: machine cases found through the entry-point group ``flexmbs.cases``.

A *case* is a module (or any object) with

* ``NAME`` — the name on the command line (``flexmbs run NAME``);
* ``DESCRIPTION`` — one line for ``flexmbs cases``;
* ``DEFAULTS`` — dict of parameters in SI units;
* ``run(params: dict, t_end: float | None, out: str | None, progress: bool) -> dict`` — runs the case and returns a
  JSON-able dict with at least ``case, t_end, steps, wall_s, max_constraint_violation, outputs``;

and optionally ``study_report(table, manifest) -> str`` (a Markdown report of a finished study, see
:mod:`flexmbs.studies.study`) and a folder ``studies/`` of study plans (``*.toml``) beside the module.

Any installed package joins the registry by declaring an entry point in the group ``flexmbs.cases`` (pyproject.toml)::

    [project.entry-points."flexmbs.cases"]
    my-press = "my_machines.press"          # one case module

An entry point may also name a *collection*: a module without ``NAME`` whose ``registry()`` returns
``{name: case module}`` — the built-in cases register that way (``builtin = "cases"``), so a new case subpackage of
:mod:`cases` needs no new entry point.

Fallback: when the installed metadata does not (yet) carry the built-in entry point — e.g. an editable install made
before it was added — the built-in collection is imported by its name ``cases`` if, and only if, such a package sits
beside this ``flexmbs`` package (same folder). ``flexmbs`` never imports ``cases`` otherwise.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import math
import importlib.util
import os
import warnings

from fem.errors import ModelError

__all__ = ["ENTRY_POINT_GROUP", "case_registry", "get_case", "case_studies_dir", "parse_value", "parse_assignments",
           "typed_parameters"]

ENTRY_POINT_GROUP = "flexmbs.cases"
BUILTIN_COLLECTION = "cases"
_REQUIRED = ("NAME", "DESCRIPTION", "DEFAULTS", "run")
_CACHE: dict = {}


def is_case(obj) -> bool:
    """True if ``obj`` offers the case interface (``NAME, DESCRIPTION, DEFAULTS, run``)."""
    return all(hasattr(obj, attr) for attr in _REQUIRED) and callable(obj.run)


def _entry_points() -> list:
    unique = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        unique.setdefault((ep.name, ep.value), ep)  # the same distribution found twice on sys.path: its first
    return list(unique.values())


def _builtin_fallback():
    """The built-in ``cases`` package if it sits beside this ``flexmbs`` package, else None."""
    spec = importlib.util.find_spec(BUILTIN_COLLECTION)
    if spec is None or not spec.submodule_search_locations:
        return None
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for location in spec.submodule_search_locations:
        if os.path.dirname(os.path.abspath(location)) == here:
            return importlib.import_module(BUILTIN_COLLECTION)
    return None


def _add(found: dict, case, origin: str) -> None:
    name = str(case.NAME)
    if name in found and found[name] is not case:
        other = getattr(found[name], "__name__", repr(found[name]))
        warnings.warn(f"case {name!r} from {origin} ignored: {other} already provides it")
        return
    found[name] = case


def _add_source(found: dict, source, origin: str) -> None:
    if is_case(source):
        _add(found, source, origin)
    elif callable(getattr(source, "registry", None)):
        try:
            members = source.registry()
        except Exception as exc:  # noqa: BLE001 (one broken case module of a collection)
            warnings.warn(f"{origin} failed to list its cases: {type(exc).__name__}: {exc}")
            return
        for case in members.values():
            if is_case(case):
                _add(found, case, origin)
    else:
        warnings.warn(f"{origin} is neither a case (NAME, DESCRIPTION, DEFAULTS, run) nor a collection (registry())")


def case_registry(refresh: bool = False) -> dict:
    """``{case name: case module}`` of every case the entry points (and the built-in fallback) provide.

    A broken entry point is a warning, not an error, so one bad package does not hide the others.
    """
    if _CACHE and not refresh:
        return dict(_CACHE)
    found, sources = {}, []
    for ep in _entry_points():
        try:
            source = ep.load()
        except Exception as exc:  # noqa: BLE001 (a user's package may fail in any way)
            warnings.warn(f"case entry point {ep.name} = {ep.value} failed to load: {type(exc).__name__}: {exc}")
            continue
        sources.append(source)
        _add_source(found, source, f"entry point {ep.name} = {ep.value}")
    if not any(getattr(s, "__name__", None) == BUILTIN_COLLECTION for s in sources):
        builtin = _builtin_fallback()
        if builtin is not None:
            _add_source(found, builtin, f"built-in package {BUILTIN_COLLECTION!r}")
    _CACHE.clear()
    _CACHE.update(sorted(found.items()))
    return dict(_CACHE)


def get_case(name: str):
    """The case called ``name``; a clear error lists the known cases otherwise."""
    cases = case_registry()
    if name not in cases:
        raise ModelError(f"unknown case {name!r}; known cases: {', '.join(cases) or 'none'} (see `flexmbs cases`)")
    return cases[name]


def case_studies_dir(case) -> str | None:
    """The folder ``studies/`` of study plans beside the case module, if it has one."""
    path = getattr(case, "__file__", None)
    if not path:
        return None
    folder = os.path.join(os.path.dirname(os.path.abspath(path)), "studies")
    return folder if os.path.isdir(folder) else None


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


def parse_assignments(assignments, defaults: dict, case_name: str = "case") -> dict:
    """``["key=value", ...]`` → ``{key: value}`` typed like the defaults; unknown keys are a one-line error."""
    params = {}
    for item in assignments:
        if "=" not in item:
            raise ModelError(f"--set expects key=value, got {item!r}")
        key, text = (part.strip() for part in item.split("=", 1))
        if not key:  # issue 43: "unknown parameter ''"
            raise ModelError(f"--set {item!r}: the parameter name before '=' is missing (--set key=value)")
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
        if key in params and params[key] != value:  # the last one won silently (issue 43)
            raise ModelError(f"--set {key} is given twice ({params[key]!r} and {value!r}); give it once")
        params[key] = value
    return params


def typed_parameters(params: dict, defaults: dict, case_name: str = "case") -> dict:
    """Python values (or ``--set`` strings) → values typed exactly as ``flexmbs run --set key=value`` types them.

    Numbers go through their ``repr`` (exact for floats), so a study variant and the same ``flexmbs run`` see
    identical parameters.
    """
    texts = []
    for key, value in params.items():
        if hasattr(value, "item") and not isinstance(value, (str, bytes)):
            value = value.item()  # numpy scalar
        texts.append(f"{key}={value if isinstance(value, str) else repr(value)}")
    return parse_assignments(texts, defaults, case_name)
