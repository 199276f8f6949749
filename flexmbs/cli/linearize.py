"""``flexmbs linearize``: linearize a machine case about an operating point; eigenvalues and transfer functions.

A case opts in with a hook ``linearization(params) -> {"model": ..., "at": ..., "inputs": [...], "outputs": [...]}``
in its package (docs/linearization.md).
"""
from __future__ import annotations

import math
import os

import click
import numpy as np

from fem.errors import FlexmbsError

from flexmbs.results.file_kinds import check_replace, forced
from flexmbs.results.safe_files import atomic_output, check_writable

from .app import emitted, json_option

__all__ = ["linearize_command", "parse_at", "linearize_case"]


def _pairs(values) -> list:
    return [[float(v.real), float(v.imag)] for v in np.asarray(values, dtype=complex)]


def parse_at(text):
    """``static`` | a time ``T`` (s) | ``RUN.results.h5@T`` → the ``at`` argument of :func:`flexmbs.linearize`."""
    if text is None:
        return None
    if text.strip().lower() == "static":
        return text
    if "@" in text:
        if not text.rpartition("@")[0].strip():  # issue 43: "results file '' does not exist"
            raise FlexmbsError(f"--at {text!r}: give the results file before '@' (--at RUN.results.h5@T)")
        return text
    try:
        value = float(text)
    except ValueError:
        raise FlexmbsError(f"--at expects static, a time in s or RUN.results.h5@T, got {text!r}") from None
    if not (value > 0.0 and math.isfinite(value)):
        raise FlexmbsError(f"--at time must be positive, got {text!r}")
    return value


# a time operating point may lie past the case's run (a state after it settled), but not beyond this many times its
# longest end time: --at 1e9 simulated for hours without a word (issue 43); a case without an end time: an hour
AT_BEYOND_RUN = 10.0
AT_WITHOUT_RUN = 3600.0


def check_time(at, params: dict) -> None:
    """Refuse a time operating point ``at`` (s) far beyond the case's run (``t_end`` or ``t_end_*`` parameters)."""
    if not isinstance(at, (int, float)) or isinstance(at, bool):
        return
    ends = {k: float(v) for k, v in params.items() if (k == "t_end" or k.startswith("t_end_"))
            and isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v))}
    if ends:
        key = max(ends, key=ends.get)
        limit, what = AT_BEYOND_RUN * ends[key], f"{AT_BEYOND_RUN:g} x the case's end time {key} = {ends[key]:g} s"
    else:
        limit, what = AT_WITHOUT_RUN, "an hour of machine time (the case has no end time)"
    if at > limit:
        hint = f" (or raise it with --set {key}=...)" if ends else ""
        raise FlexmbsError(f"--at {at:g} s lies beyond {what}: linearize would first simulate the machine up to "
                           f"t = {at:g} s; give a time <= {limit:g} s{hint}, --at static or --at RUN.results.h5@T")


_LINEAR_KINDS = {".h5": "linear model", ".hdf5": "linear model", ".npz": "linear model (npz)",
                 ".mat": "linear model (mat)"}


def _check_outputs(out, mode_vtk, at, force) -> None:
    """Before any work: output names writable, of the right kind, and none of them the results file read by
    ``--at RUN.results.h5@T`` (issue 30)."""
    inputs = [at.rpartition("@")[0]] if isinstance(at, str) and "@" in at else []
    if out:
        suffix = os.path.splitext(out)[1].lower()
        if suffix not in _LINEAR_KINDS:
            raise FlexmbsError(f"unknown linear-model file type {out!r}: use .h5, .mat or .npz")
        check_writable(out, "-o")
        check_replace(out, _LINEAR_KINDS[suffix], force=force, inputs=inputs, option="-o")
    if mode_vtk:
        index, path, stem = _mode_vtk(mode_vtk)
        if not index.isdigit() or not path:
            raise FlexmbsError(f"--mode-vtk expects K:FILE.pvd, got {mode_vtk!r}")
        check_writable(stem + ".results.h5", "--mode-vtk")
        check_replace(stem + ".results.h5", "results file", force=force, inputs=inputs, option="--mode-vtk")
        if path.endswith(".pvd"):
            check_replace(path, "ParaView file", force=force, inputs=inputs, option="--mode-vtk")


def _mode_vtk(text: str) -> tuple[str, str, str]:
    """``K:FILE.pvd`` -> (K, FILE.pvd, the stem of the series' FILE.results.h5)."""
    index, _, path = text.partition(":")
    return index, path, path[:-4] if path.endswith(".pvd") else path.removesuffix(".results.h5")


def _select(requested, defaults):
    """Requested names (aliases of the hook's dict allowed) or the hook's defaults → ``{short: full}``."""
    aliases = dict(defaults) if isinstance(defaults, dict) else {n: n for n in (defaults or [])}
    if not requested:
        return aliases
    return {name: aliases.get(name, name) for name in requested}


def linearize_case(case: str, assignments=(), at=None, inputs=(), outputs=(), coordinates=()):
    """Build the case's model through its ``linearization`` hook and linearize it; returns the LinearModel."""
    from flexmbs.catalog.parameters import validate_parameters
    from flexmbs.catalog.registry import get_case, parse_assignments
    from flexmbs.linear.linearize import linearize

    module = get_case(case)
    hook = getattr(module, "linearization", None)
    if not callable(hook):
        raise FlexmbsError(f"case {module.NAME!r} has no linearization hook (define linearization(params) in its "
                           "package, see docs/linearization.md)")
    params = parse_assignments(assignments, module.DEFAULTS, module.NAME)
    validate_parameters(module, params)  # the check `run` makes, before any work (issue 30)
    check_time(at, {**module.DEFAULTS, **params})
    spec = hook(params)
    if "model" not in spec:
        raise FlexmbsError(f"case {module.NAME!r}: linearization(params) must return a dict with a 'model'")
    return linearize(spec["model"], at=at if at is not None else spec.get("at", "static"),
                     inputs=_select(inputs, spec.get("inputs")),
                     outputs=_select(outputs, spec.get("outputs")),
                     coordinates=list(coordinates) or spec.get("coordinates"),
                     simulate_options=spec.get("simulate_options"))


def summary(lin, top: int = 3) -> dict:
    """The JSON payload: eigenvalues (with f, ζ, τ, participants) and per input-output pair poles/zeros/DC gain."""
    rows = lin.eigen().rows(top)  # participants as [label, share] lists already
    transfer = []
    for i, u in enumerate(lin.input_names):
        for o, y in enumerate(lin.output_names):
            tf = lin.zpk(i, o)
            transfer.append({"input": u, "output": y, "input_unit": lin.input_units[i], "output_unit":
                             lin.output_units[o], "poles": _pairs(tf["poles"]), "zeros": _pairs(tf["zeros"]),
                             "dc_gain": tf["dc_gain"] if math.isfinite(tf["dc_gain"]) else "inf",
                             "integrators": tf["integrators"]})
    op = lin.operating_point
    return {"method": lin.method, "operating_point": {"kind": op.kind, "t": op.t, "note": op.note},
            "n_states": lin.n_states, "states": list(lin.state_names), "state_units": list(lin.state_units),
            "inputs": list(lin.input_names), "outputs": list(lin.output_names),
            "output_values": lin.output_values, "eigenvalues": rows, "transfer_functions": transfer,
            "wall_s": lin.info.get("wall_s")}


def _print_table(payload: dict) -> None:
    op = payload["operating_point"]
    click.echo(f"linearized about {op['kind']} point (t = {op['t']:.6g} s; {op['note']}): "
               f"{payload['n_states']} states")
    click.echo(f"{'#':>3} {'Re [1/s]':>13} {'Im [rad/s]':>13} {'f [Hz]':>10} {'zeta':>8} {'tau [s]':>10}  "
               "dominant participants")
    for k, row in enumerate(payload["eigenvalues"], start=1):
        zeta = "-" if row["zeta"] is None else f"{row['zeta']:.4f}"
        tau = "-" if row["tau_s"] is None else f"{row['tau_s']:.4g}"
        parts = ", ".join(f"{lbl} {100 * s:.0f}%" for lbl, s in row["participants"])
        click.echo(f"{k:>3} {row['re']:>13.6g} {row['im']:>13.6g} {row['f_hz']:>10.4g} {zeta:>8} {tau:>10}  {parts}")
    for tf in payload["transfer_functions"]:
        click.echo(f"{tf['input']} [{tf['input_unit']}] -> {tf['output']} [{tf['output_unit']}]: "
                   f"DC gain {tf['dc_gain'] if isinstance(tf['dc_gain'], str) else format(tf['dc_gain'], '.6g')}")
        for key in ("poles", "zeros"):
            text = ", ".join(f"{re:.5g}{im:+.5g}j" if im else f"{re:.5g}" for re, im in tf[key]) or "none"
            click.echo(f"  {key}: {text}")


@click.command("linearize")
@click.argument("case")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE", help="Override a case parameter.")
@click.option("--at", "at", default=None, metavar="static|T|RUN.results.h5@T",
              help="Operating point: static equilibrium, the state at time T (s) of a run, or a results file at T.")
@click.option("--input", "inputs", multiple=True, metavar="NAME", help="Input signal (repeatable).")
@click.option("--output", "outputs", multiple=True, metavar="NAME", help="Output signal (repeatable).")
@click.option("--coordinate", "coordinates", multiple=True, metavar="NAME",
              help="Minimal coordinate (repeatable; default: chosen by pivoted QR).")
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Write A, B, C, D with names and units (.h5, .mat or .npz).")
@click.option("--mode-vtk", "mode_vtk", default=None, metavar="K:FILE.pvd",
              help="Write eigenmode K (table numbering) as a ParaView series (and FILE.results.h5).")
@json_option
@click.option("--force", is_flag=True, help="Let -o/--mode-vtk replace a file of another kind or an input.")
def linearize_command(case, assignments, at, inputs, outputs, coordinates, out, mode_vtk, as_json, force):
    """Linearize a machine case (seed 002 minimal coordinates): eigenvalues, damping, transfer functions."""
    at = parse_at(at)
    _check_outputs(out, mode_vtk, at, force)
    lin = linearize_case(case, assignments, at, inputs, outputs, coordinates)
    payload = summary(lin)
    if out:
        with atomic_output(out, "-o", force=True) as tmp:  # kinds and inputs checked before the work
            lin.save(tmp)
        payload["file"] = out
    if mode_vtk:
        index, path, stem = _mode_vtk(mode_vtk)
        if not 1 <= int(index) <= lin.n_states:
            raise FlexmbsError(f"--mode-vtk expects K:FILE.pvd with K in 1..{lin.n_states}, got {mode_vtk!r}")
        with forced(stem + ".results.h5", force):
            payload["mode_vtk"] = lin.write_mode_series(int(index) - 1, path)
    if emitted(payload, as_json):
        return
    _print_table(payload)
    if out:
        click.echo(f"linear model: {out}")
    if mode_vtk:
        click.echo(f"mode {index}: {payload['mode_vtk'].get('pvd', '')} ({payload['mode_vtk']['results']})")
