"""``flexmbs validate``: run the verification and seed comparisons of the cases and write the report.

The rows come from ``cases/<case>/validation.py`` (:mod:`flexmbs.catalog.validation`); the cases are found through
the case registry, as ``flexmbs run`` finds them.
"""
from __future__ import annotations

import json
import os
import time

import click

from fem.errors import FlexmbsError

from flexmbs.results.file_kinds import check_replace
from flexmbs.results.safe_files import atomic_output, check_writable, open_output

__all__ = ["validate_command", "parameter_table", "echo_parameters"]


def _registry():
    """``(case_registry, get_case)`` of :mod:`flexmbs.catalog.registry` (the entry-point group ``flexmbs.cases``)."""
    from flexmbs.catalog.registry import case_registry, get_case

    return case_registry, get_case


def parameter_table(module) -> list:
    """``[{key, value, unit, provenance, source, description, settable}]`` of a case's parameters (declared
    metadata from its TOML inline tables and ``PARAMETERS``; ``settable``: ``flexmbs run --set`` accepts the key)."""
    specs = {key: dict(spec) for key, spec in (getattr(module.DEFAULTS, "specs", {}) or {}).items()}
    for key, spec in (getattr(module, "PARAMETERS", {}) or {}).items():
        specs[key] = {**specs.get(key, {}), **spec}
    rows = []
    for key, value in module.DEFAULTS.items():
        spec = specs.get(key, {})
        rows.append({"key": key, "value": value, "unit": spec.get("unit", ""),
                     "provenance": spec.get("provenance", "undeclared"), "source": spec.get("source", ""),
                     "description": spec.get("description", ""),
                     "settable": isinstance(value, (bool, int, float, str))})
    return rows


def echo_parameters(case: str, as_json: bool) -> None:
    """``flexmbs cases CASE``: one line per parameter (key, value, unit, --set or fixed, provenance, source)."""
    table = parameter_table(_registry()[1](case))
    if as_json:
        click.echo(json.dumps({"case": case, "parameters": table}, default=str))
        return
    click.echo(f"{'parameter':<30} {'value':>14} {'unit':<14} {'--set':<6} {'provenance':<10} source")
    for item in table:
        value = f"{item['value']:.6g}" if isinstance(item["value"], float) else str(item["value"])
        settable = "--set" if item["settable"] else "fixed"
        numeric = isinstance(item["value"], (int, float)) and not isinstance(item["value"], bool)
        unit = item["unit"] or ("?" if numeric else "-")  # "?": a number whose case declares no unit
        click.echo(f"{item['key']:<30} {value:>14} {unit:<14} {settable:<6} {item['provenance']:<10} "
                   f"{item['source'] or item['description']}")


@click.command("validate")
@click.option("--case", "case_names", multiple=True, metavar="NAME", help="Only this case (repeatable).")
@click.option("--quick", is_flag=True, help="Fast checks only; slow studies are listed as 'not run (quick)'.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the report: .md (Markdown) or .html.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as one JSON object on stdout.")
@click.option("--strict/--no-strict", default=True, show_default=True,
              help="Exit with status 1 when a row fails (after the report is written); --no-strict exits 0.")
def validate_command(case_names, quick, output, as_json, strict):
    """Verification and seed comparisons: reference, our value, deviation, tolerance, status per check.

    Exit status: 0 when no row fails, 1 when a row fails (``--no-strict``: 0), 2 for a usage error.
    """
    from flexmbs.catalog import validation

    if output is not None:
        check_writable(output, "-o", suffixes=(".md", ".html"))
        check_replace(output, "report", option="-o", force_hint="")  # before the checks run (issue 30)
    registry, get_case = _registry()
    cases = {name: get_case(name) for name in case_names} if case_names else registry()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    rows = validation.run_checks(cases, quick=quick, progress=lambda text: click.echo(f"validate {text}", err=True))
    if not rows:
        raise FlexmbsError("no validation checks found for the selected cases")
    command = "flexmbs validate" + "".join(f" --case {n}" for n in case_names) + (" --quick" if quick else "")
    meta = {"quick": quick, "wall_s": time.perf_counter() - wall0, "cpu_s": time.process_time() - cpu0,
            "command": command}
    if output is not None:
        text = validation.to_html(rows, meta) if output.endswith(".html") else validation.to_markdown(rows, meta)
        with atomic_output(output, "-o", kind="report", force_hint="") as tmp:
            with open_output(tmp, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
    failed = [item for item in rows if item["status"] == "fail"]
    if as_json:
        click.echo(validation.to_json(rows, meta))
        _exit_on_failures(failed, strict)
        return
    counts = validation.summary(rows)
    for item in rows:
        if item["status"] == "fail":
            click.echo(f"FAIL {item['case']}: {item['quantity']}: ours {item['value']} vs {item['reference']} "
                       f"({item['origin']})")
    click.echo(", ".join(f"{k}: {v}" for k, v in counts.items())
               + f" ({meta['cpu_s']:.0f} s CPU, {meta['wall_s']:.0f} s wall)")
    if output is not None:
        click.echo(f"report: {os.path.abspath(output)}")
    _exit_on_failures(failed, strict)


def _exit_on_failures(failed: list, strict: bool) -> None:
    """Exit status 1 when rows failed and ``strict`` (CI can gate on ``flexmbs validate``); the report, the JSON
    and the FAIL lines are out by then."""
    if failed and strict:
        click.echo(f"error: {len(failed)} validation row(s) failed (exit status 1; --no-strict exits 0)", err=True)
        raise SystemExit(1)
