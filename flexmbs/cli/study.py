"""``flexmbs study`` and ``flexmbs study-plot``: parameter studies of a case on Dask, and their plots.

Exit status of ``study``: 0 when every variant finished, 1 when some failed (their one-line errors are in the
table), 2 for a usage error, 130 when interrupted.
"""
from __future__ import annotations

import json
import os

import click

from fem.errors import FlexmbsError

from flexmbs.results.safe_files import atomic_output, open_output

from .app import emit_json, json_option, log

__all__ = ["study_command", "study_plot_command"]


def _merge_plan(case, plan, vary, assignments, design, seed, t_end):
    """Plan file (if any) overridden by the command line: ``(variations, fixed, design, seed, t_end, plan path)``."""
    from flexmbs.catalog.registry import case_studies_dir, parse_assignments
    from flexmbs.studies.design import load_plan, parse_vary

    spec = load_plan(plan, case_studies_dir(case), case.NAME) if plan else {
        "vary": {}, "set": {}, "design": "grid", "seed": 0, "t_end": None, "path": None}
    varied = parse_vary(vary)
    variations = {**spec["vary"], **varied}
    fixed = {k: v for k, v in spec["set"].items() if k not in variations}
    given = parse_assignments(assignments, case.DEFAULTS, case.NAME)
    both = sorted(set(given) & set(varied))
    if both:  # issue 43: --set of a varied key was dropped without a word
        raise FlexmbsError(f"--set {both[0]} and --vary {both[0]} both give {both[0]}: a parameter is either fixed "
                           f"(--set) or varied (--vary); give it once")
    fixed.update({k: v for k, v in given.items() if k not in variations})
    return (variations, fixed, design or spec["design"], spec["seed"] if seed is None else seed,
            spec["t_end"] if t_end is None else t_end, spec["path"])


@click.command("study")
@click.argument("case")
@click.option("--vary", "vary", multiple=True, metavar="KEY=V1,V2,...",
              help="A varied parameter and its values (repeatable); for --design lhs:N a range KEY=LOW,HIGH.")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE", help="A parameter fixed for every run.")
@click.option("--plan", default=None, metavar="NAME|FILE.toml",
              help="A study plan of the case (its studies/NAME.toml) or a plan file; --vary/--set add to it.")
@click.option("--design", default=None, metavar="grid|zip|lhs:N",
              help="Every combination (grid, default), values side by side (zip), or N Latin-hypercube samples.")
@click.option("--seed", type=int, default=None, help="Seed of the Latin hypercube [default: 0].")
@click.option("--t-end", type=float, default=None, help="End time of every run, s (default: the case's).")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="Worker processes of the local Dask cluster [default: one per core].")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Use an existing Dask cluster, e.g. tcp://10.0.0.5:8786 (the workers must see STUDY_DIR).")
@click.option("-o", "--output", "out", type=click.Path(file_okay=False), default=None,
              help="Study folder [default: study-CASE].")
@click.option("--retries", type=click.IntRange(0), default=2, show_default=True,
              help="Dask retries of a task that crashed unexpectedly.")
@json_option
@click.option("--quiet", is_flag=True, help="No progress bar or messages.")
def study_command(case, vary, assignments, plan, design, seed, t_end, workers, scheduler, out, retries, as_json,
                  quiet):
    """Run a parameter study of CASE on Dask, one task per variant; re-running it resumes.

    \b
    Example:  flexmbs study fourbar-hydraulic --vary friction_scale=1,0.1,0.01 --vary torque_M0=200,250
    Writes STUDY_DIR/table.parquet and table.csv (one row per variant), study.json and runs/*.results.h5.
    """
    from flexmbs.catalog.registry import get_case
    from flexmbs.studies.study import study

    if workers and scheduler:
        raise FlexmbsError("give either --workers (local cluster) or --scheduler (existing cluster), not both")
    module = get_case(case)
    variations, fixed, design, seed, t_end, plan_path = _merge_plan(module, plan, vary, assignments, design, seed,
                                                                      t_end)
    result = study(module, variations, design=design, seed=seed, fixed=fixed, t_end=t_end,
                   out=out or f"study-{module.NAME}", workers=workers, scheduler=scheduler, retries=retries,
                   progress=not quiet, plan=plan_path)
    frame = result.table
    if as_json:
        rows = json.loads(frame.to_json(orient="records")) if not frame.empty else []
        emit_json({"study": result.path, "case": result.case, "variants": result.n_variants,
                   "finished": result.n_finished, "failed": result.n_failed, "skipped": result.n_skipped,
                   "pending": result.n_pending, "table": os.path.join(result.path, "table.parquet"),
                   "csv": os.path.join(result.path, "table.csv"), "manifest": os.path.join(result.path, "study.json"),
                   "report": result.report, "scheduler": result.scheduler, "dashboard": result.dashboard,
                   "rows": rows})
    else:
        columns = ["variant", *variations, "status", "wall_s", "error"]
        if not frame.empty:
            click.echo(frame[[c for c in columns if c in frame.columns]].to_string(index=False))
        click.echo(f"{result.n_finished} of {result.n_variants} variants finished ({result.n_skipped} earlier), "
                   f"{result.n_failed} failed; table: {os.path.join(result.path, 'table.parquet')} (.csv)")
    if result.n_failed:
        log(f"error: {result.n_failed} of {result.n_variants} variants failed (see the 'error' column)")
        click.get_current_context().exit(1)


def _column(frame, name: str) -> str:
    """The table column an OUTPUT names: exact, or the only column ending in ``.NAME``."""
    if name in frame.columns:
        return name
    matches = [c for c in frame.columns if c.endswith("." + name)]
    if len(matches) == 1:
        return matches[0]
    numeric = [c for c in frame.columns if frame[c].dtype.kind in "fiu"]
    hint = f"several match: {', '.join(matches)}" if matches else f"numeric columns: {', '.join(numeric)}"
    raise FlexmbsError(f"no column {name!r} in the study table; {hint}")


def _groups(frame, against: str, by: list, varied: list):
    """``[(label, rows sorted by against)]``; every other varied parameter must be constant within a group."""
    loose = [k for k in varied if k != against and k not in by and frame[k].nunique(dropna=False) > 1]
    if loose:
        raise FlexmbsError(f"{', '.join(loose)} also vary; add --by {loose[0]} (one line per value) or fix it")
    if not by:
        return [("", frame.sort_values(against))]
    groups = []
    for values, rows in frame.groupby(by, sort=True, dropna=False):
        values = values if isinstance(values, tuple) else (values,)
        label = ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}" for k, v in zip(by, values))
        groups.append((label, rows.sort_values(against)))
    return groups


@click.command("study-plot")
@click.argument("study_dir", type=click.Path(file_okay=False))
@click.argument("outputs", nargs=-1, required=True)
@click.option("--against", required=True, metavar="KEY", help="The varied parameter on the x axis.")
@click.option("--by", "by", multiple=True, metavar="KEY",
              help="One line per value of this parameter [default: the other varied parameters].")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False), help="FILE.png or FILE.csv.")
@click.option("--force", is_flag=True, help="Let --out replace a file of another kind or a file of the study.")
def study_plot_command(study_dir, outputs, against, by, out, force):
    """Plot OUTPUT... of a study against a varied parameter, one line per value of a second one."""
    from flexmbs.studies.study import load_manifest, load_table

    from .viz import _output

    suffix = _output(out, (".png", ".csv"), force=force)
    manifest, frame = load_manifest(study_dir), load_table(study_dir)
    varied = manifest.get("varied", [])
    if against not in varied:
        raise FlexmbsError(f"--against {against!r} is not a varied parameter; varied: {', '.join(varied)}")
    by = list(by) if by else ([] if manifest.get("design") == "lhs" else [k for k in varied if k != against])
    for key in by:
        if key not in varied or key == against:
            raise FlexmbsError(f"--by {key!r} must be another varied parameter; varied: {', '.join(varied)}")
    finished = frame[frame["status"] == "finished"]
    if len(finished) < len(frame):
        log(f"{len(frame) - len(finished)} failed variants left out")
    if finished.empty:
        raise FlexmbsError(f"no finished variant in {study_dir!r} to plot")
    columns = [_column(finished, name) for name in outputs]
    if suffix == ".csv":
        with atomic_output(out, "--out", force=True) as tmp, open_output(tmp, "w", newline="") as handle:
            finished.sort_values([*by, against])[[*by, against, *columns]].to_csv(handle, index=False)
        log(f"wrote {out}")
        return
    scatter = manifest.get("design") == "lhs" and not by
    groups = [("", finished)] if scatter else _groups(finished, against, by, varied)
    from flexmbs.post.viz.render import save_figure
    from flexmbs.post.viz.study import plot_study

    fig = plot_study(groups, columns, against, scatter,
                     f"{manifest['case']}: {os.path.basename(os.path.abspath(study_dir))}", manifest["case"])
    with atomic_output(out, "--out", force=True) as tmp, open_output(tmp, "wb") as handle:
        save_figure(fig, handle, dpi=110, format="png")
    log(f"wrote {out}")
