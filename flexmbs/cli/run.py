"""``flexmbs cases`` and ``flexmbs run``: list and run the machine cases of the registry
(:mod:`flexmbs.catalog.registry`)."""
from __future__ import annotations

import json
import math
import os
import warnings

import click

from fem.errors import FlexmbsError, SimulationError

from flexmbs.results.file_kinds import check_replace, forced
from flexmbs.results.safe_files import check_writable, json_default, output_lock

from .app import emit_json, emitted, json_option

__all__ = ["cases_command", "run_command"]


@click.command("cases")
@click.argument("case", required=False)
@json_option
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

        emit_json({"cases": [{"name": name, "description": mod.DESCRIPTION, "defaults": dict(mod.DEFAULTS),
                          "module": getattr(mod, "__name__", None), "study_plans": plans(mod)}
                         for name, mod in found.items()]})
        return
    width = max((len(n) for n in found), default=4)
    for name, mod in found.items():
        click.echo(f"{name:<{width}}  {mod.DESCRIPTION}")


# a run may be longer than the case's own, but not beyond this many times its longest end time (--t-end 1e12 on
# the slider crank stalled after a minute with a step-size message that named no input; issue 43); a case without
# an end time parameter: a day
T_END_BEYOND_RUN = 1.0e4
T_END_WITHOUT_RUN = 86400.0


def check_end_time(t_end, params: dict) -> None:
    """Refuse ``--t-end`` (s) far beyond the case's own end time (``t_end`` or ``t_end_*`` parameters)."""
    if t_end is None:
        return
    ends = {k: float(v) for k, v in params.items() if (k == "t_end" or k.startswith("t_end_"))
            and isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v)) and v > 0}
    limit = T_END_BEYOND_RUN * max(ends.values()) if ends else T_END_WITHOUT_RUN
    if t_end > limit:
        what = (f"{T_END_BEYOND_RUN:g} x the case's end time {max(ends, key=ends.get)} = {max(ends.values()):g} s"
                if ends else "a day of machine time")
        raise FlexmbsError(f"--t-end {t_end:g} s lies beyond {what}: give a time <= {limit:g} s (the end time of "
                           f"the run in s)")


# the solver's failures a changed parameter can cause (the step collapsed, Newton did not converge, no progress)
_SOLVER_FAILURES = ("Newton iteration failed", "no progress", "step size", "minimum step", "time step collapsed")


def changed_inputs_hint(module, params: dict, message: str, top: int = 2) -> str:
    """For a run that failed in the solver (``message``): the user's ``--set`` values farthest from the case's
    defaults, named with their units and what to change (issue 43: "Newton failed ... slider_pin row 3" named the
    model's joint, not the input that drove it there). Empty when no value was changed or the failure is of
    another kind."""
    if not any(marker in message for marker in _SOLVER_FAILURES) or not params:
        return ""
    specs = {**(getattr(module.DEFAULTS, "specs", {}) or {}), **(getattr(module, "PARAMETERS", {}) or {})}
    far = []
    for key, value in params.items():
        default = module.DEFAULTS.get(key)
        numeric = not isinstance(value, bool) and isinstance(value, (int, float)) and isinstance(default, (int, float))
        if numeric and value == default:
            continue
        if not numeric:
            distance = 0.0
        elif default != 0 and value != 0 and (value > 0) == (default > 0):
            distance = abs(math.log10(abs(value / default)))
        else:
            distance = 1.0
        far.append((distance, key, value, default, numeric))
    if not far:
        return ""
    far.sort(key=lambda item: -item[0])

    def unit(key):
        spec = specs.get(key) or {}
        text = spec.get("unit") if isinstance(spec, dict) else getattr(spec, "unit", None)
        return f" {text}" if text and text not in ("1", "-") else ""

    named = ", ".join(f"{key} = {value:g}{unit(key)} (default {default:g})" if numeric
                      else f"{key} = {value!r} (default {default!r})" for _, key, value, default, numeric in far[:top])
    several = len(far[:top]) > 1
    return (f"; this run sets {named}: the solver could not follow the motion {'these values give' if several else 'it gives'}"
            f"; set {'them nearer their defaults' if several else 'it nearer its default'}")


def _run_safely(module, params: dict, t_end, output, progress: bool, force: bool = False, outputs=None) -> dict:
    """Check the output before any work, hold its lock for the whole run, stream results to disk (a scratch file
    without ``-o``) and check the parameters against the case's declared ranges. ``outputs``: the signal-name
    patterns the case's runs record (``--outputs``; None: all)."""
    from flexmbs.catalog.parameters import validate_parameters
    from flexmbs.results.outputs import NotRecordedError, requested_outputs
    from flexmbs.results.results import scratch_results

    if output is not None:
        check_writable(output, "-o", suffixes=(".h5",))
        check_replace(output, "results file", force=force, option="-o")
    validate_parameters(module, params)
    with output_lock(output), forced(output, force), scratch_results(), requested_outputs(outputs), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            summary = module.run(params, t_end, output, progress)
        except SimulationError as exc:
            raise SimulationError(str(exc) + changed_inputs_hint(module, params, str(exc))) from None
        except NotRecordedError as exc:  # the case's summary reads a signal --outputs left out: after the run
            kept = (f"the run's results are kept in {output}" if output is not None
                    else "run with -o RUN.results.h5 to keep the results of such a run")
            raise NotRecordedError(f"{exc} (the case's summary reads it; {kept})") from None
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
@json_option
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--force", is_flag=True, help="Let -o replace a file of another kind (a flexible body, a mesh, ...).")
@click.option("--outputs", "outputs", multiple=True, metavar="PATTERN",
              help="Record only the signals matching PATTERN (fnmatch, e.g. 'element/hydraulics/*' or "
                   "'joint/pivot/force'; repeatable or comma-separated); time, states and solver statistics are "
                   "always recorded. Include the signals the case's summary reads. Default: every signal.")
def run_command(case, assignments, t_end, output, as_json, quiet, force, outputs):
    """Run a machine case and summarize it (`flexmbs cases` lists the cases)."""
    from flexmbs.catalog.registry import get_case, parse_assignments

    module = get_case(case)
    params = parse_assignments(assignments, module.DEFAULTS, module.NAME)
    if t_end is not None and not (t_end > 0.0 and math.isfinite(t_end)):
        raise FlexmbsError(f"--t-end must be a positive time in s, got {t_end}")
    check_end_time(t_end, {**module.DEFAULTS, **params})
    summary = _run_safely(module, params, t_end, output, not quiet, force, list(outputs) or None)
    if emitted(summary, as_json):
        return
    click.echo(f"case {summary.get('case', case)}: t_end = {summary.get('t_end', float('nan')):.6g} s, "
               f"{summary.get('steps', 0)} steps, {summary.get('wall_s', float('nan')):.2f} s wall, max constraint "
               f"violation {summary.get('max_constraint_violation', float('nan')):.2e}")
    for key, value in summary.get("outputs", {}).items():
        text = f"{value:.6g}" if isinstance(value, float) else json.dumps(value, default=json_default)
        click.echo(f"  {key}: {text}")
    if output:
        click.echo(f"results: {output}")
