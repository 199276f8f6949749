"""Designs of a parameter study: which variants to run, and their identities.

* ``grid`` — every combination (first key slowest), ``zip`` — the i-th value of every key together,
  ``lhs:N`` — N Latin-hypercube samples (:class:`scipy.stats.qmc.LatinHypercube`, reproducible with ``seed``) of the
  ranges ``KEY=LOW,HIGH``.
* A variant is identified by a hash of the case, its typed parameters and the end time, so re-running a study finds
  the variants that are already done whatever order or design produced them.
* Study plans: TOML files ``studies/<plan>.toml`` beside a case (``[vary]``, ``[set]``, ``design``, ``seed``,
  ``t_end``, ``description``).
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import tomllib

from fem.errors import ModelError

__all__ = ["parse_design", "parse_vary", "design_variants", "variant_id", "load_plan"]

DESIGNS = ("grid", "zip", "lhs")


def parse_design(text: str) -> tuple[str, int | None]:
    """``"grid"``, ``"zip"`` or ``"lhs:N"`` → ``(kind, samples)``."""
    kind, _, count = str(text).partition(":")
    kind = kind.strip().lower()
    if kind not in DESIGNS:
        raise ModelError(f"--design must be grid, zip or lhs:N, got {text!r}")
    if kind != "lhs":
        if count:
            raise ModelError(f"--design {kind} takes no sample count, got {text!r}")
        return kind, None
    try:
        samples = int(count)
    except ValueError:
        samples = 0
    if samples < 1:
        raise ModelError(f"--design lhs needs a positive sample count, e.g. lhs:16; got {text!r}")
    return kind, samples


def parse_vary(items) -> dict:
    """``["key=v1,v2,...", ...]`` → ``{key: ["v1", "v2", ...]}`` (strings, typed later against the case)."""
    variations = {}
    for item in items:
        key, sep, values = (part.strip() for part in item.partition("="))
        if not sep or not key or not values:
            raise ModelError(f"--vary expects KEY=V1,V2,..., got {item!r}")
        if key in variations:
            raise ModelError(f"--vary: parameter {key!r} given twice")
        if any(not v.strip() for v in values.split(",")):  # issue 43: "1,,2" dropped the empty value silently
            raise ModelError(f"--vary {key}: an empty value in {item!r}; separate the values by single commas")
        variations[key] = [v.strip() for v in values.split(",")]
        twice = sorted({v for v in variations[key] if variations[key].count(v) > 1})
        if twice:  # issue 43: a repeated value ran the same variant twice (and one record replaced the other)
            raise ModelError(f"--vary {key}: value {twice[0]} is given twice in {item!r}; list each value once")
    return variations


def design_variants(variations: dict, design: str = "grid", samples: int | None = None, seed: int = 0) -> list:
    """The variants (list of ``{key: value}``) of a design.

    Parameters
    ----------
    variations : dict
        ``{key: [values]}``; for ``lhs`` each entry is ``[low, high]`` (numbers).
    design : str
        ``grid``, ``zip`` or ``lhs`` (``samples`` variants).
    samples, seed : int
        Latin-hypercube sample count and random seed.
    """
    keys = list(variations)
    values = [list(variations[k]) for k in keys]
    if any(len(v) == 0 for v in values):
        raise ModelError("--vary: every parameter needs at least one value")
    if design == "grid":
        return [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    if design == "zip":
        lengths = {len(v) for v in values}
        if len(lengths) > 1:
            raise ModelError(f"--design zip needs the same number of values for every key, got "
                             f"{', '.join(f'{k}: {len(v)}' for k, v in zip(keys, values))}")
        return [dict(zip(keys, combo)) for combo in zip(*values)]
    if design == "lhs":
        return _latin_hypercube(keys, values, samples, seed)
    raise ModelError(f"unknown design {design!r}; use grid, zip or lhs")


def _latin_hypercube(keys, values, samples, seed) -> list:
    from scipy.stats import qmc

    bounds = []
    for key, pair in zip(keys, values):
        try:
            low, high = (float(v) for v in pair)
        except (TypeError, ValueError):
            raise ModelError(f"--design lhs needs a range KEY=LOW,HIGH of numbers, got {key}="
                             f"{','.join(map(str, pair))}") from None
        bounds.append((low, high))
    if not samples or samples < 1:
        raise ModelError("--design lhs needs a sample count, e.g. lhs:16")
    unit = qmc.LatinHypercube(d=len(keys), seed=seed).random(samples)
    return [{key: low + u * (high - low) for key, (low, high), u in zip(keys, bounds, row)} for row in unit]


def variant_id(case: str, params: dict, t_end: float | None) -> str:
    """12 hex digits of the SHA-256 of case, typed parameters (sorted) and end time."""
    text = json.dumps({"case": case, "params": params, "t_end": t_end}, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def load_plan(plan: str, studies_dir: str | None, case_name: str) -> dict:
    """A study plan: a TOML path, or the name of a plan in the case's ``studies/`` folder.

    Returns ``{"description", "design", "seed", "t_end", "set": {...}, "vary": {...}, "path"}``.
    """
    path = plan if plan.endswith(".toml") else (os.path.join(studies_dir, f"{plan}.toml") if studies_dir else None)
    if path is None or not os.path.isfile(path):
        known = sorted(f[:-5] for f in os.listdir(studies_dir) if f.endswith(".toml")) if studies_dir else []
        raise ModelError(f"no study plan {plan!r} for case {case_name!r}; plans of the case: "
                         f"{', '.join(known) or 'none'} (or give a path to a .toml file)")
    try:
        with open(path, "rb") as handle:
            raw = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ModelError(f"study plan {path}: {exc}") from None
    unknown = set(raw) - {"case", "description", "design", "seed", "t_end", "set", "vary"}
    if unknown:
        raise ModelError(f"study plan {path}: unknown keys {', '.join(sorted(unknown))}")
    if raw.get("case", case_name) != case_name:
        raise ModelError(f"study plan {path} is for case {raw['case']!r}, not {case_name!r}")
    vary = {k: (list(v) if isinstance(v, list) else [v]) for k, v in raw.get("vary", {}).items()}
    return {"description": raw.get("description", ""), "design": raw.get("design", "grid"),
            "seed": int(raw.get("seed", 0)), "t_end": raw.get("t_end"), "set": dict(raw.get("set", {})),
            "vary": vary, "path": os.path.abspath(path)}
