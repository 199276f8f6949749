"""The FlexBody file (``*.flex.h5``): write, read, validate.

HDF5 via h5py, self-describing: the root carries ``format = "flexmbs.flexbody"`` and ``format_version``; every
dataset carries a ``unit`` attribute (SI). Written atomically (built in memory, written to a temporary file, then
renamed). The layout is documented in docs/file-formats.md.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from typing import TYPE_CHECKING

import numpy as np

from fem.errors import FileFormatError, FlexmbsError
from reduction.flexbody import FlexBody, Interface, Invariants, SlidingPath
from reduction.stressfield import filters, read_stress_field, write_stress_field

# h5py is imported where a file is opened: the package build's engine warm-up runs without it (issue 42: a smaller
# build environment)
if TYPE_CHECKING:
    import h5py

__all__ = ["FORMAT", "FORMAT_VERSION", "write_flexbody", "read_flexbody", "file_sha256"]

FORMAT = "flexmbs.flexbody"
FORMAT_VERSION = 1

_INVARIANTS = {  # dataset name -> (Invariants field, unit)
    "I1_mass": ("mass", "kg"),
    "I2_first_moment": ("first_moment", "kg m"),
    "I3_first_moment_modes": ("first_moment_modes", "kg"),
    "I4_rotation_modes": ("rotation_modes", "kg m"),
    "I5_rotation_modes_q": ("rotation_modes_q", "kg"),
    "I6_modal_mass": ("modal_mass", "1"),
    "I7_inertia": ("inertia", "kg m^2"),
    "I8_inertia_q": ("inertia_q", "kg m"),
    "I9_inertia_qq": ("inertia_qq", "kg"),
}
_NODE_DATA = {  # dataset -> (FlexBody field, unit)
    "nodes/ids": ("node_ids", "1"),
    "nodes/positions": ("positions", "m"),
    "nodes/masses": ("nodal_masses", "kg"),
    "nodes/has_rotation": ("has_rotation", "1"),
    "modes/translations": ("translations", "m"),
    "modes/rotations": ("rotations", "rad"),
    "modes/frequencies": ("frequencies_hz", "Hz"),
    "modes/damping_ratios": ("damping_ratios", "1"),
    "output/nodes": ("output_nodes", "1"),
    "output/modal_stress": ("modal_stress", "Pa"),
    "surface/triangles": ("surface", "1"),
}


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _dataset(group, name, data, unit):
    data = np.asarray(data)
    ds = group.create_dataset(name, data=data, **filters(data))
    ds.attrs["unit"] = unit
    return ds


def _existing_kind(path: str) -> str | None:
    """None when ``path`` is missing, empty or a flexible-body file; else what it is (for the refusal)."""
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return None
    with open(path, "rb") as handle:
        head = handle.read(8)
    if head != b"\x89HDF\r\n\x1a\n":
        return "not an HDF5 file"
    import h5py

    try:
        with h5py.File(path, "r", locking=False) as f:
            fmt = f.attrs.get("format")
    except (OSError, RuntimeError):
        return "a damaged HDF5 file"
    fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
    return None if fmt == FORMAT else f"an HDF5 file of format {fmt!r}" if fmt else "an HDF5 file of another program"


def write_flexbody(body: FlexBody, path: str, source: dict | None = None, *, force: bool = False) -> str:
    """Write ``body`` to ``path`` atomically; ``source`` adds provenance (mesh path, hash, material, settings).

    An existing file at ``path`` is replaced only when it is a flexible-body file (or empty), unless ``force``:
    a results file, a mesh or any other file is refused before any work (docs/safety.md)."""
    from importlib.metadata import PackageNotFoundError, version

    if not isinstance(body, FlexBody):
        raise FlexmbsError(f"write_flexbody: body must be a flexible body (reduction.reduce or read_flexbody), got "
                           f"{type(body).__name__}")
    path = os.fspath(path)
    if os.path.isdir(path):
        raise FlexmbsError(f"write_flexbody: {path!r} is a folder; give a file name (NAME.flex.h5)")
    kind = None if force else _existing_kind(path)
    if kind is not None:
        raise FlexmbsError(f"write_flexbody: {path!r} exists and is {kind}, not a flexible body: it would be "
                           "replaced; choose another name (or pass force=True)")
    if not force and not path.lower().endswith((".h5", ".hdf5")):  # issue 43: an HDF5 body under .txt was written
        raise FlexmbsError(f"write_flexbody: {path!r} must end in .h5 (a flexible body is an HDF5 file: "
                           "NAME.flex.h5)")

    try:  # the distribution's metadata: reduction sits below flexmbs and does not import it
        __version__ = version("flexmbs")
    except PackageNotFoundError:  # a source tree that was never installed
        __version__ = "0+unknown"

    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".tmp", dir=directory)
    os.close(fd)
    # built in memory, written by Python: a full disk is an OSError here, never a failure inside the HDF5 library
    # (which crashed the process on a full disk, docs/safety.md)
    buffer = io.BytesIO()
    import h5py

    try:
        with h5py.File(buffer, "w") as f:
            f.attrs.update({"format": FORMAT, "format_version": FORMAT_VERSION, "name": body.name,
                            "software": f"flexmbs {__version__}", "n_modes": body.n_modes,
                            # fem.canonical convention of the mode shapes (0: raw solver output, no convention)
                            "canonical_modes_version": int(body.report.get("canonical_modes_version", 0))})
            for key, (attr, unit) in _NODE_DATA.items():
                _dataset(f, key, getattr(body, attr), unit)
            inv = f.create_group("invariants")
            for key, (attr, unit) in _INVARIANTS.items():
                _dataset(inv, key, getattr(body.invariants, attr), unit)
            itf = f.create_group("interfaces")
            for k, item in enumerate(body.interfaces):
                g = itf.create_group(f"{k:03d}")
                g.attrs.update({"name": item.name, "node": item.node, "spider": item.spider,
                                "retained_dofs": item.retained_dofs})
                _dataset(g, "connected_node_ids", item.connected_node_ids, "1")
            _write_paths(f, body)
            src = f.create_group("source")
            src.attrs.update({k: (json.dumps(v) if not isinstance(v, (str, int, float)) else v)
                              for k, v in (source or {}).items()})
            rep = f.create_group("report")
            for key, value in body.report.items():
                if isinstance(value, np.ndarray):
                    _dataset(rep, key, value, "Hz" if key.endswith("_hz") else "1")
                else:
                    rep.attrs[key] = value
            write_stress_field(f, body.stress_field)
            _write_geometric(f, body)
        with open(tmp, "wb") as handle:
            handle.write(buffer.getbuffer())
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _default_mode())  # mkstemp makes 0600; a body file is shared like every other output
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path


def _default_mode() -> int:
    """``0o666`` less the user's umask: the mode ``open()`` gives a new file (0644 with the usual umask 022)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def read_flexbody(path: str) -> FlexBody:
    """Read and validate a FlexBody file.

    Raises
    ------
    FileFormatError
        Missing file, not HDF5 or truncated, another format or version, missing datasets, inconsistent shapes.
    """
    if not os.path.exists(path):
        raise FileFormatError(f"flexible-body file {path!r} does not exist")
    import h5py

    try:
        with h5py.File(path, "r") as f:
            return _read(f, path)
    except FileFormatError:
        raise
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise FileFormatError(f"{path!r} is not a readable flexible-body file ({str(exc).splitlines()[0]}); "
                              "re-run flexmbs reduce") from None


def _read(f: h5py.File, path: str) -> FlexBody:
    if f.attrs.get("format") != FORMAT:
        raise FileFormatError(f"{path!r} is not a flexmbs flexible-body file (format {f.attrs.get('format')!r})")
    version = int(f.attrs.get("format_version", -1))
    if version != FORMAT_VERSION:
        raise FileFormatError(f"{path!r} has flexible-body format version {version}; this flexmbs reads version "
                              f"{FORMAT_VERSION}: re-run flexmbs reduce")
    missing = [k for k in list(_NODE_DATA) + [f"invariants/{k}" for k in _INVARIANTS] if k not in f]
    if missing:
        raise FileFormatError(f"{path!r} lacks dataset(s) {', '.join(missing[:4])}: the file is damaged or "
                              "incomplete; re-run flexmbs reduce")
    fields = {attr: f[key][()] for key, (attr, _) in _NODE_DATA.items()}
    inv = Invariants(**{attr: f["invariants"][key][()] for key, (attr, _) in _INVARIANTS.items()})
    inv.mass = float(inv.mass)
    interfaces = []
    for key in sorted(f["interfaces"]):
        g = f["interfaces"][key]
        interfaces.append(Interface(str(g.attrs["name"]), int(g.attrs["node"]), str(g.attrs["spider"]),
                                    g["connected_node_ids"][()], str(g.attrs["retained_dofs"])))
    report = {k: v[()] for k, v in f["report"].items()}
    report.update({k: (v.item() if isinstance(v, np.generic) else v) for k, v in f["report"].attrs.items()})
    report["canonical_modes_version"] = int(f.attrs.get("canonical_modes_version", 0))
    body = FlexBody(name=str(f.attrs["name"]), invariants=inv, interfaces=interfaces, report=report,
                    paths=_read_paths(f), **fields)
    body.has_rotation = body.has_rotation.astype(bool)
    _validate(body, path)
    body.stress_field = read_stress_field(f, body.positions.shape[0], body.n_modes, path)
    body.geometric_stiffness = _read_geometric(f, body.n_modes, path)
    return body


def _validate(body: FlexBody, path: str) -> None:
    n, m = body.positions.shape[0], body.n_modes
    checks = [
        (body.translations.shape == (n, 3, m), "mode translations"),
        (body.rotations.shape == (n, 3, m), "mode rotations"),
        (body.node_ids.shape == (n,), "node ids"),
        (body.damping_ratios.shape == (m,), "damping ratios"),
        (body.invariants.inertia_qq.shape == (m, m, 3, 3), "invariant I9"),
        (body.modal_stress.shape == (body.output_nodes.size, 6, m), "modal stress"),
        (all(0 <= i.node < n for i in body.interfaces), "interface nodes"),
        (all(p.nodes.size == 0 or (p.nodes.min() >= 0 and p.nodes.max() < n) for p in body.paths.values()),
         "path nodes"),
    ]
    bad = [name for ok, name in checks if not ok]
    if bad:
        raise FileFormatError(f"{path!r} has inconsistent {', '.join(bad)}: the file is damaged; re-run flexmbs "
                              "reduce")


def _write_paths(f: h5py.File, body: FlexBody) -> None:
    """Optional group ``/paths/<name>/nodes`` (node indices, attribute ``retained_dofs``): sliding paths."""
    if not body.paths:
        return
    group = f.create_group("paths")
    for name, path in body.paths.items():
        g = group.create_group(name)
        g.attrs["retained_dofs"] = path.retained_dofs
        _dataset(g, "nodes", np.asarray(path.nodes, dtype=np.int64), "1")


def _read_paths(f: h5py.File) -> dict:
    if "paths" not in f:
        return {}
    return {name: SlidingPath(name, g["nodes"][()].astype(np.int64), str(g.attrs.get("retained_dofs", "")))
            for name, g in f["paths"].items()}


def _write_geometric(f: h5py.File, body: FlexBody) -> None:
    """Optional group ``/geometric_stiffness`` (issue 28): ``inertia`` (12, m, m) per unit inertia parameter (names
    in the attribute ``cases``) and ``deformation`` (m, m, m) per unit modal coordinate."""
    gs = getattr(body, "geometric_stiffness", None)
    if gs is None:
        return
    group = f.create_group("geometric_stiffness")
    group.attrs["cases"] = ",".join(gs.cases)
    _dataset(group, "inertia", gs.inertia, "1/s^2 per unit inertia parameter")
    _dataset(group, "deformation", gs.deformation, "1/s^2 per unit modal coordinate")


def _read_geometric(f: h5py.File, m: int, path: str):
    if "geometric_stiffness" not in f:
        return None
    from reduction.geometric import GeometricStiffness

    g = f["geometric_stiffness"]
    inertia, deformation = g["inertia"][()], g["deformation"][()]
    cases = tuple(str(g.attrs.get("cases", "")).split(","))
    if inertia.shape != (len(cases), m, m) or deformation.shape != (m, m, m):
        raise FileFormatError(f"{path!r} has inconsistent geometric stiffness shapes {inertia.shape}, "
                              f"{deformation.shape} for {m} modes: the file is damaged; re-run flexmbs reduce")
    return GeometricStiffness(inertia, deformation, cases)
