"""Checks the ``flexmbs`` commands make before any work: numbers that must be finite and in range, output paths,
the size of a mesh request, the video extra. Each failure is one :class:`FlexmbsError` line saying what to change.
"""
from __future__ import annotations

import json
import math

import click
import numpy as np

from fem.errors import FlexmbsError

from flexmbs.results.file_kinds import same_output
from flexmbs.results.safe_files import check_writable

__all__ = ["FINITE", "POSITIVE", "check_mesh_request", "estimate_elements", "check_damping", "check_video",
           "check_outputs", "MESH_SUFFIXES", "MAX_MESH_ELEMENTS", "echo_cache"]

MESH_SUFFIXES = (".msh", ".vtk", ".inp", ".unv", ".bdf", ".med")
MAX_MESH_ELEMENTS = 1_000_000  # a 1 M-element quadratic mesh is minutes of gmsh and GBs in modal/reduce
_TETS_PER_VOLUME = 6.0 * math.sqrt(2.0)  # regular tetrahedra of edge h fill h³/(6√2) each


class _Finite(click.ParamType):
    """A float option that rejects NaN and infinity (and, with ``positive``, values <= 0)."""

    def __init__(self, positive: bool = False):
        self.positive = positive
        self.name = "positive number" if positive else "number"

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if self.positive and number <= 0.0:
            self.fail(f"{value!r} must be positive", param, ctx)
        return number


FINITE = _Finite()
POSITIVE = _Finite(positive=True)


def _dimensions(shape: str, length: float) -> tuple[float, float]:
    """(volume m³, smallest dimension m) of the parts ``flexmbs mesh`` makes (defaults of fem.meshing)."""
    if shape == "bar":
        return length * 0.05 * 0.05, 0.05
    shank = length * 0.091 * 0.061
    eyes = 2.0 * math.pi * (0.085**2 - 0.04**2) * 0.061
    return shank + eyes, 0.061


def estimate_elements(shape: str, length: float, size: float, hexahedra: bool = False) -> float:
    """About how many elements ``flexmbs mesh`` would make: hexahedra by divisions, tetrahedra by volume / h³."""
    volume, smallest = _dimensions(shape, length)
    if hexahedra:
        return max(1, round(length / size)) * max(1, round(0.05 / size)) ** 2
    return _TETS_PER_VOLUME * volume / min(size, smallest) ** 3


def check_mesh_request(shape: str, out: str, size: float | None, length: float | None, hexahedra: bool,
                       force: bool, default_size: float) -> None:
    """Output name and folder, positive finite size and length, and an element count below the limit."""
    check_writable(out, "OUT", suffixes=MESH_SUFFIXES)
    for option, value in (("--size", size), ("--length", length)):
        if value is not None and not (math.isfinite(value) and value > 0.0):
            raise FlexmbsError(f"flexmbs mesh: {option} must be a positive length in m, got {value}")
    length = length if length is not None else (1.0 if shape == "bar" else 2.5)
    size = size if size is not None else default_size
    if size > 0.5 * length:
        raise FlexmbsError(f"flexmbs mesh: --size {size:g} m is larger than half the part ({length:g} m long); "
                           f"use at most {0.5 * length:g} m")
    count = estimate_elements(shape, length, size, hexahedra)
    if count > MAX_MESH_ELEMENTS and not force:
        raise FlexmbsError(f"flexmbs mesh: --size {size:g} m on a part {length:g} m long (--length) would give "
                           f"about {count:.2g} elements (limit {MAX_MESH_ELEMENTS:.0e}); use a larger --size, a "
                           "shorter --length, or add --force")


def check_damping(ratios) -> None:
    """Modal damping: a finite ratio in [0, 1) or bands ``(f_hz, ratio)`` with finite, non-negative values."""
    bands = ratios if isinstance(ratios, list) else [(0.0, ratios)]
    for band in bands:
        if len(band) != 2:
            raise FlexmbsError("--damping bands are F_HZ:RATIO pairs, e.g. 100:0.01,1000:0.05")
        f_hz, ratio = band
        if not (math.isfinite(f_hz) and f_hz >= 0.0):
            raise FlexmbsError(f"--damping: band frequency {f_hz} Hz must be finite and >= 0")
        if not (math.isfinite(ratio) and 0.0 <= ratio < 1.0):
            raise FlexmbsError(f"--damping: ratio {ratio} must be in [0, 1) (0.01 = 1 % of critical)")


def check_video(path: str) -> None:
    """An ``.mp4`` needs the video extra (imageio + imageio-ffmpeg): say so before rendering anything."""
    if not str(path).lower().endswith(".mp4"):
        return
    try:
        import imageio  # noqa: F401
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        raise FlexmbsError("writing .mp4 needs the video extra (pip install imageio imageio-ffmpeg); or use "
                           ".gif") from None


def check_outputs(*pairs) -> None:
    """``check_writable`` for each ``(path, option)`` pair whose path is given, and no two outputs of one command
    on the same file (the second would replace the first: ``reduce -o X --report X``); ``--force`` does not
    override this."""
    seen = []
    for path, option in pairs:
        if not path:
            continue
        check_writable(path, option)
        for other, other_option in seen:
            if same_output(path, other):
                raise FlexmbsError(f"{option} {path!r} is the same file as {other_option} {other!r}: one output "
                                   f"would replace the other; give {option} its own name")
        seen.append((path, option))


def echo_cache(as_json: bool, missing_path: bool = False) -> None:
    """``flexmbs info --cache``: where the cache of reduced bodies is, what it holds, whether it is usable."""
    if missing_path:
        raise FlexmbsError("flexmbs info: give a FILE (*.flex.h5 or *.results.h5) or --cache")
    from flexmbs.results.cache import cache_info

    info = cache_info()
    if as_json:
        click.echo(json.dumps(info))
        return
    state = "usable" if info["usable"] else "NOT usable (a file, or not writable): set FLEXMBS_CACHE to a folder"
    click.echo(f"cache: {info['folder']} ({info['origin']}; {state})")
    click.echo(f"  {len(info['entries'])} file(s), {info['total_bytes'] / 1e6:.1f} MB; delete files to rebuild them")
    for entry in info["entries"]:
        click.echo(f"  {entry['name']}  {entry['bytes'] / 1e6:.2f} MB")


def mesh_warnings(mesh) -> list[str]:
    """Warnings with the remedy for a mesh that will give wrong frequencies quietly (issue 30): first-order
    elements with fewer than 4 across the thinnest dimension (they lock in bending: far too stiff), and a mesh in
    disconnected pieces (the pieces are not tied; rigid-body modes beyond six)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    out = []
    cells, points = np.asarray(mesh.cells), np.asarray(mesh.points)
    if mesh.cell_type in ("tetra", "hexahedron") and cells.size:
        edge = float(np.median(np.linalg.norm(points[cells[:, 1]] - points[cells[:, 0]], axis=1)))
        thinnest = float(np.ptp(points, axis=0).min())
        if edge > 0.0 and thinnest / edge < 4.0:
            out.append(f"the mesh has first-order {mesh.cell_type} elements, about {thinnest / edge:.1g} across its "
                       f"thinnest dimension ({thinnest:.3g} m): they lock in bending and come out far too stiff; "
                       "mesh with second-order elements (flexmbs mesh --order 2) or at least 4 elements across")
    n_cells, per = cells.shape
    incidence = coo_matrix((np.ones(cells.size), (np.repeat(np.arange(n_cells), per), cells.ravel())),
                           shape=(n_cells, points.shape[0])).tocsr()
    used = np.unique(cells)
    count, labels = connected_components(incidence.T @ incidence, directed=False)
    pieces = np.unique(labels[used]).size
    if pieces > 1:
        out.append(f"the mesh is in {pieces} disconnected pieces: they are not tied to each other and move freely; "
                   "merge coincident nodes in the mesher (gmsh: Coherence / fragment the volumes) or join the pieces "
                   "with interfaces")
    return out
