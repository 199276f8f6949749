"""``flexmbs cases`` and ``flexmbs run``: list and run the machine cases of the registry (:mod:`flexmbs.catalog.registry`).

Registered on the ``flexmbs`` group by :mod:`flexmbs.cli.app`. Errors are :class:`FlexmbsError` (one line on stderr);
``--json`` prints exactly one JSON object on stdout, progress goes to stderr.
"""
from __future__ import annotations

import json
import math
import os
import warnings

import click

from flexmbs.results.safe_files import json_default

__all__ = ["cases_command", "run_command"]




def _emit(payload: dict) -> None:
    click.echo(json.dumps(payload, default=json_default))


@click.command("cases")
@click.argument("case", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def cases_command(case, as_json):
    """List the machine cases `flexmbs run` knows; with CASE, its parameters with unit and provenance."""
    if case is not None:
        from .validate import echo_parameters

        return echo_parameters(case, as_json)
    from flexmbs.catalog.registry import case_registry, case_studies_dir

    found = case_registry()
    if as_json:
        def plans(mod):
            folder = case_studies_dir(mod)
            return sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".toml")) if folder else []

        _emit({"cases": [{"name": name, "description": mod.DESCRIPTION, "defaults": dict(mod.DEFAULTS),
                          "module": getattr(mod, "__name__", None), "study_plans": plans(mod)}
                         for name, mod in found.items()]})
        return
    width = max((len(n) for n in found), default=4)
    for name, mod in found.items():
        click.echo(f"{name:<{width}}  {mod.DESCRIPTION}")


def _run_safely(module, params: dict, t_end, output, progress: bool, force: bool = False) -> dict:
    """Check the output before any work, hold its lock for the whole run, stream results to disk (a scratch file
    without ``-o``) and check the parameters against the case's declared ranges."""
    from flexmbs.catalog.parameters import validate_parameters
    from flexmbs.results.results import scratch_results
    from flexmbs.results.file_kinds import check_replace, forced
    from flexmbs.results.safe_files import check_writable, output_lock

    if output is not None:
        check_writable(output, "-o", suffixes=(".h5",))
        check_replace(output, "results file", force=force, option="-o")
    validate_parameters(module, params)
    with output_lock(output), forced(output, force), scratch_results(), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = module.run(params, t_end, output, progress)
    found = [str(w.message) for w in caught]
    for text in dict.fromkeys(found):
        click.echo(f"warning: {text}", err=True)
    if found and isinstance(summary, dict):
        summary.setdefault("warnings", list(dict.fromkeys(found)))
    return summary


@click.command("run")
@click.argument("case")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE",
              help="Override a case parameter (repeatable); `flexmbs cases --json` lists them.")
@click.option("--t-end", type=float, default=None, help="End time, s (default: the case's).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Results file (*.results.h5), written incrementally.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--force", is_flag=True, help="Let -o replace a file of another kind (a flexible body, a mesh, ...).")
def run_command(case, assignments, t_end, output, as_json, quiet, force):
    """Run a machine case and summarize it (`flexmbs cases` lists the cases)."""
    from fem.errors import FlexmbsError

    from flexmbs.catalog.registry import get_case, parse_assignments

    module = get_case(case)
    params = parse_assignments(assignments, module.DEFAULTS, module.NAME)
    if t_end is not None and not (t_end > 0.0 and math.isfinite(t_end)):
        raise FlexmbsError(f"--t-end must be a positive time in s, got {t_end}")
    summary = _run_safely(module, params, t_end, output, not quiet, force)
    if as_json:
        _emit(summary)
        return
    click.echo(f"case {summary.get('case', case)}: t_end = {summary.get('t_end', float('nan')):.6g} s, "
               f"{summary.get('steps', 0)} steps, {summary.get('wall_s', float('nan')):.2f} s wall, max constraint "
               f"violation {summary.get('max_constraint_violation', float('nan')):.2e}")
    for key, value in summary.get("outputs", {}).items():
        text = f"{value:.6g}" if isinstance(value, float) else json.dumps(value, default=json_default)
        click.echo(f"  {key}: {text}")
    if output:
        click.echo(f"results: {output}")
