"""Verification and validation report (issue 16): one row per check, reference beside our value.

A case contributes its checks in ``cases/<case>/validation.py`` (found through the case registry by
:func:`case_checks`; this module never imports :mod:`cases`). That module defines ``CHECKS``, a list of
``(name, function, quick)``: ``function(quick: bool) -> list[row]`` runs the check and returns rows made with
:func:`row`; ``quick`` says whether the check belongs to ``flexmbs validate --quick``. A check that is not quick is
still called with ``quick=True`` and must then return its rows with status ``"not run (quick)"`` (the seed numbers
are listed, ours are not computed) — never numbers stored from an earlier run.

The tests of the cases call the same check functions and assert on the rows' status, so the report and the test
suite cannot diverge.

Row fields: ``case, check, quantity, kind`` (``analytic``, ``full FE``, ``seed``, ``conservation law``, ``trend``),
``origin`` (where the reference comes from, e.g. ``seed 003 Table 3-1 (L5402)``), ``reference``, ``value``,
``unit``, ``deviation`` (relative or absolute, see ``deviation_kind``), ``tolerance``, ``status`` (one of
:data:`STATUSES`) and ``note`` (the reason of a failure, of a calibration or why a value is not comparable).
"""
from __future__ import annotations

import html
import importlib
import json
import math
import time

import numpy as np

__all__ = ["STATUSES", "KINDS", "row", "trend_row", "skipped_rows", "case_checks", "run_checks", "summary",
           "to_markdown", "to_html", "to_json"]

STATUSES = ("pass", "fail", "calibrated", "not comparable", "not run (quick)")
KINDS = ("analytic", "full FE", "seed", "conservation law", "trend")


def _row(quantity, kind, origin, reference, value, unit, status, note, deviation=None, deviation_kind="",
         tolerance=None) -> dict:
    """A row's dict, its fields in the report's order."""
    return {"quantity": quantity, "kind": kind, "origin": origin, "reference": _number(reference),
            "value": _number(value), "unit": unit, "deviation": deviation, "deviation_kind": deviation_kind,
            "tolerance": tolerance, "status": status, "note": note}


def _number(value):
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return float(value)


def row(quantity: str, reference, value, *, kind: str, origin: str, unit: str = "", tolerance: float | None = None,
        relative: bool = True, calibrated: str | None = None, not_comparable: str | None = None,
        note: str = "") -> dict:
    """One check row; the status follows from the deviation and the tolerance.

    Parameters
    ----------
    quantity : str
        What is compared (with the point of a study, e.g. ``"horizontal bar acc. peak, 1/5 stiffness"``).
    reference, value : float or None
        Reference and our value in ``unit``. ``value = None`` means not computed (status ``not comparable`` or
        ``not run (quick)`` must then come from the arguments).
    kind : str
        One of :data:`KINDS`.
    origin : str
        Where the reference comes from (seed file + table/equation/line, formula, conservation law).
    tolerance : float, optional
        Bound on ``|deviation|`` (relative if ``relative``); required unless the row is calibrated or not comparable.
    calibrated : str, optional
        The parameter fitted to this very reference: the row is ``calibrated``, never ``pass``.
    not_comparable : str, optional
        Why our value cannot be compared with the reference (status ``not comparable``; the deviation is still
        shown when both numbers exist).
    note : str
        Cause of a deviation or other remark.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    deviation = None
    if value is not None and reference is not None and not isinstance(reference, str):
        ref, val = float(reference), float(value)
        if relative:
            deviation = (val - ref) / abs(ref) if ref != 0.0 else (0.0 if val == 0.0 else math.inf)
        else:
            deviation = val - ref
    if calibrated:
        status, note = "calibrated", f"{calibrated}. {note}".strip()
    elif not_comparable:
        status, note = "not comparable", f"{not_comparable}. {note}".strip()
    elif value is None:
        raise ValueError(f"{quantity}: no value and no reason why")
    else:
        if tolerance is None or deviation is None:
            raise ValueError(f"{quantity}: a compared row needs a numeric reference and a tolerance")
        status = "pass" if abs(deviation) <= tolerance else "fail"
    return _row(quantity, kind, origin, reference, value, unit, status, note, deviation,
                "relative" if relative else "absolute", tolerance)


def trend_row(quantity: str, reference: str, value: str, holds: bool, *, origin: str, note: str = "",
              calibrated: str | None = None) -> dict:
    """A qualitative check (a trend, an ordering): ``reference`` and ``value`` are texts, ``holds`` the verdict;
    ``calibrated`` names the parameter fitted to bring this trend out (then the row is never a pass)."""
    status = "calibrated" if calibrated else ("pass" if holds else "fail")
    if calibrated:
        note = f"{calibrated}. {note}".strip()
    return _row(quantity, "trend", origin, reference, value, "", status, note)


def skipped_rows(entries, *, origin: str, kind: str = "seed", reason: str = "not run (quick)") -> list:
    """Rows of a slow check in ``--quick``: the references ``[(quantity, reference, unit), ...]`` without values."""
    return [_row(q, kind, origin, ref, None, unit, "not run (quick)", reason) for q, ref, unit in entries]


def case_checks(module) -> list:
    """``CHECKS`` of a case module's ``validation`` submodule (``[]`` if the case has none)."""
    name = f"{module.__name__}.validation"
    try:
        found = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return []
    return list(getattr(found, "CHECKS", []))


def run_checks(cases: dict, quick: bool = False, progress=None) -> list:
    """Run the checks of ``{case name: case module}``; returns the rows with ``case``, ``check`` and
    ``seconds`` (CPU time of the check) added."""
    rows = []
    for case_name, module in cases.items():
        for check_name, function, is_quick in case_checks(module):
            if progress:
                progress(f"{case_name}: {check_name}")
            cpu0 = time.process_time()
            found = function(quick)
            seconds = time.process_time() - cpu0
            rows += [{"case": case_name, "check": check_name, **item, "seconds": seconds} for item in found]
    return rows


def summary(rows: list) -> dict:
    """Counts per status (a calibrated row is never a pass)."""
    counts = {status: 0 for status in STATUSES}
    for item in rows:
        counts[item["status"]] += 1
    return counts


def _fmt(value, unit: str = "") -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = f"{value:.4g}"
    return f"{text} {unit}".strip() if unit and unit != "1" else text


def _deviation(item) -> str:
    dev = item["deviation"]
    if dev is None:
        return "–"
    if item["deviation_kind"] == "relative":
        return "inf" if not math.isfinite(dev) else f"{100 * dev:+.2f} %"
    return f"{dev:+.3g} {item['unit']}".strip()


def _tolerance(item) -> str:
    tol = item["tolerance"]
    if tol is None:
        return "–"
    return f"±{100 * tol:.3g} %" if item["deviation_kind"] == "relative" else f"±{tol:.3g} {item['unit']}".strip()


COLUMNS = ("check", "quantity", "reference (origin)", "ours", "deviation", "tolerance", "status", "note")


def _cells(item) -> list:
    ref = f"{_fmt(item['reference'], item['unit'])} ({item['kind']}: {item['origin']})"
    return [item["check"], item["quantity"], ref, _fmt(item["value"], item["unit"]), _deviation(item),
            _tolerance(item), item["status"], item["note"]]


def _by_case(rows: list) -> list:
    """``[(case, its rows), ...]`` in the order the cases first appear."""
    return [(name, [item for item in rows if item["case"] == name]) for name in dict.fromkeys(r["case"] for r in rows)]


def _title(meta: dict) -> str:
    mode = "quick" if meta.get("quick") else "full"
    return f"flexmbs validation report ({mode}, {meta.get('cpu_s', 0):.0f} s CPU, {meta.get('wall_s', 0):.0f} s wall)"


def to_markdown(rows: list, meta: dict) -> str:
    """The report as Markdown: summary, then one table per case."""
    counts = summary(rows)
    lines = [f"# {_title(meta)}", "", f"Command: `{meta.get('command', 'flexmbs validate')}`. "
             "Status: pass (within tolerance of an independent reference), fail, calibrated (a parameter was fitted "
             "to this reference: not a validation), not comparable (reason given), not run (quick). The rows are "
             "defined in `cases/<case>/validation.py`; `tests/cases/test_validation.py` asserts on the same "
             "functions.", "",
             "| " + " | ".join(counts) + " |", "|" + "---|" * len(counts),
             "| " + " | ".join(str(v) for v in counts.values()) + " |", ""]
    for case_name, items in _by_case(rows):
        lines += [f"## {case_name}", "", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        for item in items:
            cells = [str(c).replace("|", "\\|").replace("\n", " ") for c in _cells(item)]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def to_html(rows: list, meta: dict) -> str:
    """The report as a self-contained HTML page."""
    colour = {"pass": "#d8f0d8", "fail": "#f6d0d0", "calibrated": "#f3e7c4", "not comparable": "#e4e4ee",
              "not run (quick)": "#eeeeee"}
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(_title(meta))}</title>"
             "<style>td,th{border:1px solid #999;padding:2px 5px;font:13px sans-serif}table{border-collapse:"
             "collapse}</style></head><body>", f"<h1>{html.escape(_title(meta))}</h1>",
             "<p>" + ", ".join(f"{k}: {v}" for k, v in summary(rows).items()) + "</p>"]
    for case_name, items in _by_case(rows):
        parts.append(f"<h2>{html.escape(case_name)}</h2><table><tr>"
                     + "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS) + "</tr>")
        for item in items:
            parts.append(f"<tr style='background:{colour[item['status']]}'>"
                         + "".join(f"<td>{html.escape(str(c))}</td>" for c in _cells(item)) + "</tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def to_json(rows: list, meta: dict) -> str:
    """The rows and the summary as one JSON object."""
    clean = [{k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in item.items()}
             for item in rows]
    return json.dumps({"meta": meta, "summary": summary(rows), "rows": clean})
