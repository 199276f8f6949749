"""The ``flexmbs`` command.

Every user mistake ends as one line on stderr (``error: ...``) and exit status 2; ``--json`` prints exactly one
JSON object on stdout; progress and warnings go to stderr.
"""
from __future__ import annotations

import json
import os
import sys
import time
import warnings

import click

from fem.errors import FlexmbsError

from flexmbs.results.safe_files import _lock_name, atomic_output, free_bytes, json_default

__all__ = ["main"]


class _Group(click.Group):
    """A click group that turns every error into one clean line (exit 2); ``--debug`` shows tracebacks."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as exc:  # usage errors: one line instead of usage + hint + error
            click.echo(f"error: {_one_line(exc.format_message())} (see `flexmbs --help`)", err=True)
            sys.exit(2)
        except click.Abort:
            click.echo("error: aborted", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx):
        def one_line_warning(message, category, filename, lineno, file=None, line=None):
            print(f"warning: {message}", file=sys.stderr)

        warnings.showwarning = one_line_warning
        debug = ctx.params.get("debug") or os.environ.get("FLEXMBS_DEBUG")
        try:
            from .front_door import check_shadowing

            check_shadowing()
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt as exc:  # a study's interrupt says what it kept (StudyInterrupted)
            click.echo(f"error: interrupted{': ' + _one_line(str(exc)) if str(exc) else ''}", err=True)
            ctx.exit(130)
        except Exception as exc:  # noqa: BLE001  the front door: nothing escapes as a traceback
            if debug:
                raise
            from .front_door import describe_unexpected  # a FlexmbsError is its own one line

            click.echo(f"error: {_one_line(str(exc)) if isinstance(exc, FlexmbsError) else describe_unexpected(exc)}",
                       err=True)
            ctx.exit(2)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="flexmbs")
@click.option("--debug", is_flag=True, help="Show the full traceback of an error (also FLEXMBS_DEBUG=1).")
def main(debug):
    """flexmbs: flexible multibody dynamics of hydraulically driven machines.

    Reduce FE meshes (Craig–Bampton), run machine cases, look at the results.
    """


def emit_json(payload: dict) -> None:
    """Print one JSON object on stdout (numpy values converted)."""
    click.echo(json.dumps(payload, default=json_default))


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")


def log(message: str) -> None:
    click.echo(message, err=True)


def emitted(payload: dict, as_json: bool) -> bool:
    """With ``--json``: print ``payload`` as one JSON object on stdout and return True."""
    if as_json:
        emit_json(payload)
    return as_json


def emit_or_log(payload: dict, as_json: bool, line: str) -> None:
    """With ``--json`` the payload as one JSON object on stdout, otherwise ``line`` on stderr."""
    if not emitted(payload, as_json):
        log(line)


# ---------------------------------------------------------------------------------------------------- mesh
@main.command("mesh")
@click.argument("shape", type=click.Choice(["bar", "connecting-bar", "nafems-fv32"]))
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--size", type=float, default=None, help="Element size, m.")
@click.option("--order", type=click.IntRange(1, 2), default=2, show_default=True, help="Element order.")
@click.option("--hex", "hexahedra", is_flag=True, help="Structured hexahedra (bar only).")
@click.option("--length", type=float, default=None, help="Length, m (bar default 1.0, connecting bar 2.5).")
@click.option("--force", is_flag=True, help="Mesh even above the element-count limit (1e6); let OUT replace a file "
              "of another kind.")
def mesh_command(shape, out, size, order, hexahedra, length, force):
    """Generate a gmsh mesh of a simple part: a 1 m × 50 mm × 50 mm bar, a 2.5 m connecting bar with two
    bearing bores (groups bore_a, bore_b), or NAFEMS FV32's tapered membrane (16 × 8 quadratic hexahedra; groups
    root, bottom: `modal … --fix group:root:dofs=12 --fix group:bottom:dofs=3`)."""
    from .checks import check_mesh_request
    from .interrupt import exit_on_interrupt

    if shape == "nafems-fv32":
        if any(v is not None for v in (size, length)) or hexahedra or order != 2:
            raise FlexmbsError("flexmbs mesh nafems-fv32 takes no --size, --length, --hex or --order: its mesh is "
                               "the documented 16 x 8 quadratic hexahedra (docs/user-fe-models.md)")
        from fem.meshing import tapered_membrane_mesh

        def make(tmp):
            tapered_membrane_mesh(tmp, 16, 8)
    else:
        if hexahedra and shape != "bar":
            raise FlexmbsError("--hex is only available for the bar; the connecting bar is meshed with tetrahedra")
        check_mesh_request(shape, out, size, length, hexahedra, force, 0.0125 if shape == "bar" else 0.02)
        from fem.meshing import bar_mesh, connecting_bar_mesh  # gmsh: only once the request is sound
        kwargs = {k: v for k, v in (("size", size), ("length", length)) if v is not None}

        def make(tmp):
            if shape == "bar":
                bar_mesh(tmp, order=order, hexahedra=hexahedra, **kwargs)
            else:
                connecting_bar_mesh(tmp, order=order, **kwargs)
    with atomic_output(out, "OUT", kind="mesh", force=force, verify=lambda tmp: _verify_mesh(tmp, out)) as tmp, \
            exit_on_interrupt(f"gmsh was meshing; nothing was written to {out!r}", [tmp, _lock_name(os.path.abspath(out))]):
        make(tmp)
    log(f"wrote {out}")


def _verify_mesh(path: str, out: str) -> None:
    """gmsh does not report a full disk: read the written mesh back, as ``modal`` and ``reduce`` will (element
    order and orientation checked), before it replaces anything (issues 30, 43). An unreadable file on a disk
    with room is no full disk: one line saying which format to write instead."""
    from fem.errors import MeshError
    from fem.mesh import load_mesh

    try:
        load_mesh(path)
    except MeshError as exc:
        if free_bytes(path) < 2 ** 20:
            raise OSError(28, f"No space left on device? the mesh written is incomplete ({exc})", path) from None
        reason = str(exc).replace(f"cannot read mesh {path!r}: ", "meshio: ").replace(repr(path), "it")
        raise FlexmbsError(f"the mesh gmsh wrote to {out!r} cannot be read back by flexmbs ({reason}); nothing "
                           "was written: choose another format (.msh or .vtk)") from None


# ---------------------------------------------------------------------------------------------------- modal
@main.command("modal")
@click.argument("mesh", type=click.Path(dir_okay=False))
@click.option("--material", default=None,
              help="steel, cast-iron, aluminium, or E=..,nu=..,rho=.. (SI); default: the mesh file's materials "
                   "(Abaqus *Material/*Solid Section, Nastran MAT1, ANSYS MPDATA).")
@click.option("--fix", "fixes", multiple=True, metavar="SEL[:dofs=123]",
              help="Clamp the nodes a selector picks, or only the listed dofs (dofs=3: u_z = 0) (repeatable).")
@click.option("--modes", type=click.IntRange(1, 10000), default=12, show_default=True,
              help="Number of modes (free–free: including the six rigid-body modes).")
@json_option
def modal_command(mesh, material, fixes, modes, as_json):
    """Modal analysis of a mesh: mass properties and the lowest natural frequencies."""
    from fem.analysis import modal_analysis
    from fem.linalg import backend_name
    from fem.materials import check_solid, choose_material, parse_material
    from fem.mesh import load_mesh
    from fem.model import solid_model

    if material is not None:
        check_solid(parse_material(material))  # before any work
    start = time.perf_counter()
    fe_mesh = load_mesh(mesh)
    model = solid_model(fe_mesh, choose_material(fe_mesh.materials, mesh, material, log))
    fixed = [_support(model, sel) for sel in fixes]
    from .checks import mesh_warnings  # nothing-lost (issue 30): once the selections are resolved

    for text in mesh_warnings(fe_mesh):
        log(f"warning: {text}")
    log(f"mesh: {fe_mesh.n_nodes} nodes, {fe_mesh.n_elements} {fe_mesh.cell_type} elements; assembled")
    log(f"solving {modes} modes of {model.n_dofs} dofs ({backend_name()})")
    result = modal_analysis(model, modes, fixed)
    props = model.rigid_body_properties()
    payload = {
        "mesh": mesh,
        "dofs": model.n_dofs,
        "nodes": fe_mesh.n_nodes,
        "elements": fe_mesh.n_elements,
        "element_type": fe_mesh.cell_type,
        "mass": props["mass"],
        "center_of_mass": props["center_of_mass"],
        "inertia": props["inertia"],
        "fixed": list(fixes),
        "frequencies_hz": result.frequencies_hz,
        "seconds": time.perf_counter() - start,
    }
    if emitted(payload, as_json):
        return
    com = ", ".join(f"{c:.4g}" for c in props["center_of_mass"])
    click.echo(f"{mesh}: {payload['nodes']} nodes, {payload['elements']} {fe_mesh.cell_type}, {payload['dofs']} dofs")
    click.echo(f"mass {props['mass']:.6g} kg, centre of mass ({com}) m")
    click.echo(f"{'mode':>5}  {'frequency [Hz]':>15}")
    for k, f in enumerate(result.frequencies_hz, start=1):
        click.echo(f"{k:>5}  {f:>15.6g}")
    click.echo(f"({payload['seconds']:.1f} s)")


def _support(model, text: str):
    """``SEL[:dofs=123]`` -> node indices (all dofs) or (node indices, dofs) for fem.analysis.modal_analysis."""
    head, _, tail = text.rpartition(":")
    if head and tail.strip().lower().startswith("dofs="):
        return model.select(head), tail.strip()[5:]
    return model.select(text)
