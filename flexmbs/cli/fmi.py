"""``flexmbs fmu``: a machine case as a co-simulation FMU 2.0 (:mod:`flexmbs.fmi.export`, docs/fmi.md)."""
from __future__ import annotations

import click

from .app import emitted, json_option, log
from .checks import POSITIVE

__all__ = ["fmu_command"]


@click.command("fmu")
@click.argument("case")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE",
              help="Override a case parameter (repeatable); the numeric ones stay FMU parameters.")
@click.option("--input", "inputs", multiple=True, metavar="NAME",
              help="An FMU input: a joint actuator or time-function signal of the case (repeatable).")
@click.option("--output", "outputs", multiple=True, metavar="NAME", required=True,
              help="An FMU output: a results signal such as joint/O1/rotation (repeatable).")
@click.option("-o", "--out", "out", required=True, type=click.Path(dir_okay=False), help="The .fmu file to write.")
@click.option("--rtol", type=POSITIVE, default=None, help="Relative tolerance of the run (default 1e-4).")
@click.option("--atol", type=POSITIVE, default=None, help="Absolute tolerance of the run (default 1e-6).")
@click.option("--max-step", type=POSITIVE, default=None, help="Largest step, s (default: t_end / 20).")
@click.option("--force", is_flag=True, help="Replace an existing file.")
@json_option
def fmu_command(case, assignments, inputs, outputs, out, rtol, atol, max_step, force, as_json):
    """Export CASE as a co-simulation FMU 2.0 (needs Python with flexmbs on the machine that runs it)."""
    from flexmbs.catalog.registry import get_case, parse_assignments
    from flexmbs.fmi.export import export_fmu

    module = get_case(case)
    settings = parse_assignments(assignments, module.DEFAULTS, getattr(module, "NAME", case))
    log(f"building {out} from {case} ...")
    path = export_fmu(case, out, inputs=inputs, outputs=outputs, settings=settings,
                      options={"rtol": rtol, "atol": atol, "max_step": max_step}, force=force)
    if not emitted({"fmu": path, "case": case, "inputs": list(inputs), "outputs": list(outputs)}, as_json):
        click.echo(path)
