"""``flexmbs cases`` and ``flexmbs run``: list and run the machine cases of :mod:`cases`.

Registered on the ``flexmbs`` group by :mod:`flexmbs.cli`. Errors are :class:`FlexmbsError` (one line on stderr);
``--json`` prints exactly one JSON object on stdout, progress goes to stderr.
"""
from __future__ import annotations

import json
import math
import warnings

import click
import numpy as np

__all__ = ["cases_command", "run_command"]


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    raise TypeError(f"cannot serialize {type(value).__name__}")


def _emit(payload: dict) -> None:
    click.echo(json.dumps(payload, default=_plain))


@click.command("cases")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def cases_command(as_json):
    """List the machine cases `flexmbs run` knows, with their parameters."""
    from cases import registry

    found = registry()
    if as_json:
        _emit({"cases": [{"name": name, "description": mod.DESCRIPTION, "defaults": dict(mod.DEFAULTS)}
                         for name, mod in found.items()]})
        return
    width = max((len(n) for n in found), default=4)
    for name, mod in found.items():
        click.echo(f"{name:<{width}}  {mod.DESCRIPTION}")


@click.command("run")
@click.argument("case")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE",
              help="Override a case parameter (repeatable); `flexmbs cases --json` lists them.")
@click.option("--t-end", type=float, default=None, help="End time, s (default: the case's).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Results file (*.results.h5), written incrementally.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def run_command(case, assignments, t_end, output, as_json, quiet):
    """Run a machine case and summarize it (`flexmbs cases` lists the cases)."""
    from cases import get_case, parse_assignments
    from fem.errors import FlexmbsError

    module = get_case(case)
    params = parse_assignments(assignments, module.DEFAULTS, module.NAME)
    if t_end is not None and not (t_end > 0.0 and math.isfinite(t_end)):
        raise FlexmbsError(f"--t-end must be a positive time in s, got {t_end}")
    with warnings.catch_warnings(record=True) as caught:  # solver fallbacks, added oil: into the summary
        warnings.simplefilter("always")
        summary = module.run(params, t_end, output, not quiet)
    notes = list(dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, UserWarning)))
    if notes:
        summary["warnings"] = list(summary.get("warnings", [])) + notes
    for line in dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught):
        click.echo(f"warning: {line}", err=True)
    if as_json:
        _emit(summary)
        return
    click.echo(f"case {summary.get('case', case)}: t_end = {summary.get('t_end', float('nan')):.6g} s, "
               f"{summary.get('steps', 0)} steps, {summary.get('wall_s', float('nan')):.2f} s wall, max constraint "
               f"violation {summary.get('max_constraint_violation', float('nan')):.2e}")
    for key, value in summary.get("outputs", {}).items():
        text = f"{value:.6g}" if isinstance(value, float) else json.dumps(value, default=_plain)
        click.echo(f"  {key}: {text}")
    if output:
        click.echo(f"results: {output}")
