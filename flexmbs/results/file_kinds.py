"""What kind of file is this? Every output names its kind, and replaces an existing file only when that file is of
the same kind and is not an input of the same command (``--force`` / ``force=True`` overrides both).

The kind is read from inside the file (:func:`detect_kind`: the ``format`` attribute of flexmbs's HDF5 files, the
signatures of the other formats, text files by being text); a file inside a study folder belongs to the study. See
docs/safety.md ("Every writer").
"""
from __future__ import annotations

import contextlib
import os

from fem.errors import FlexmbsError

__all__ = ["detect_kind", "check_replace", "KINDS", "study_folder_of", "forced", "same_output", "is_study_manifest"]

_FORCED: set[str] = set()  # absolute paths a command's --force lets be replaced whatever they hold

# output kind -> the existing kinds it may replace (besides an empty file)
KINDS = {
    "results file": ("results file",),
    "flexible body": ("flexible body",),
    "linear model": ("linear model",),
    "linear model (npz)": ("npz archive",),
    "linear model (mat)": ("MATLAB file",),
    "mesh": ("mesh",),
    "png picture": ("png picture",),
    "gif animation": ("gif animation",),
    "mp4 video": ("mp4 video",),
    "ParaView file": ("ParaView file",),
    "csv table": ("text file",),
    "report": ("text file",),
    "study file": ("study file", "text file", "parquet table"),
}
_HDF5_FORMATS = {"flexmbs-results": "results file", "flexmbs.flexbody": "flexible body",
                 "flexmbs-linear-model": "linear model"}
_MESH_SUFFIXES = (".msh", ".vtk", ".inp", ".unv", ".bdf", ".med", ".nas")
# the first bytes of the binary formats -> kind (HDF5, MP4's ftyp box and text formats are told apart below)
_MAGIC = ((b"\x89PNG", "png picture"), ((b"GIF87a", b"GIF89a"), "gif animation"), (b"PAR1", "parquet table"),
          (b"PK", "npz archive"), (b"MATLAB", "MATLAB file"), (b"$MeshFormat", "mesh"))


def is_study_manifest(path: str) -> bool:
    """Whether ``path`` is the manifest of a flexmbs study: a JSON object whose ``format`` is ``flexmbs-study``
    (recognised by its content, not its name: ``flexmbs cases --json > study.json`` is no study)."""
    import json

    try:
        if os.path.getsize(path) > 64 * 2 ** 20:
            return False
        with open(path, encoding="utf-8") as handle:
            manifest = json.load(handle)
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("format") == "flexmbs-study"


def study_folder_of(path: str) -> str | None:
    """The study folder ``path`` belongs to, else None: its own folder, or the folder holding its ``runs/``
    folder, holds the manifest of a flexmbs study (``study.json`` with ``format = flexmbs-study``). The table,
    the report and the variants' results files and records are the study's; its workers write them."""
    folder = os.path.dirname(os.path.abspath(path))
    if is_study_manifest(os.path.join(folder, "study.json")):
        return folder
    parent = os.path.dirname(folder)
    if os.path.basename(folder) == "runs" and is_study_manifest(os.path.join(parent, "study.json")):
        return parent
    return None


def same_output(a, b) -> bool:
    """Whether the names ``a`` and ``b`` are one file (existing or not: symbolic links and ``..`` resolved)."""
    if os.path.exists(a) and os.path.exists(b):
        return _same_file(os.fspath(a), os.fspath(b))
    return os.path.realpath(os.fspath(a)) == os.path.realpath(os.fspath(b))


def _hdf5_kind(path: str) -> str:
    import h5py

    try:
        with h5py.File(path, "r", locking=False) as fh:
            fmt = fh.attrs.get("format")
    except (OSError, RuntimeError):
        return "damaged HDF5 file"
    fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
    return _HDF5_FORMATS.get(str(fmt), "HDF5 file (not flexmbs)")


def detect_kind(path: str) -> str | None:
    """The kind of the existing file ``path`` (None when it does not exist or is empty)."""
    try:
        if os.path.getsize(path) == 0:
            return None
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    if head.startswith(b"\x89HDF\r\n\x1a\n"):
        return _hdf5_kind(path)
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if head[4:8] == b"ftyp":
        return "mp4 video"
    if b"# vtk DataFile" in head[:64]:
        return "mesh"
    if b"<VTKFile" in head:
        return "ParaView file"
    if path.lower().endswith(_MESH_SUFFIXES):
        return "mesh"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        if b"\0" in head:
            return "binary file"
    return "text file"


@contextlib.contextmanager
def forced(path: str | None, enabled: bool = True):
    """Within this context ``path`` may be replaced whatever it holds (a command's ``--force`` reaching the
    writers a case calls)."""
    full = os.path.abspath(os.fspath(path)) if path and enabled else None
    if full is None or full in _FORCED:
        yield
        return
    _FORCED.add(full)
    try:
        yield
    finally:
        _FORCED.discard(full)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


# the first bytes of the reports flexmbs writes (reduce --report, validate -o, report): only these text files (and
# empty ones) a report replaces
_REPORT_HEADS = (b"# Reduction report", b"# flexmbs validation report", b"<!DOCTYPE html", b"<!doctype html")


def _is_report(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            head = handle.read(64).lstrip(b"\xef\xbb\xbf")
    except OSError:
        return False
    return head.startswith(_REPORT_HEADS)


def check_replace(path: str, kind: str, *, force: bool = False, inputs=(), option: str = "output",
                  force_hint: str = " (or add --force)") -> None:
    """Refuse, in one line, to let an output of ``kind`` replace an input of the same command, a file of another
    kind, or a file of a study folder (unless ``force``). Call it before any work. ``force_hint`` ends the line
    (what overrides the refusal; ``""`` where nothing does)."""
    full = os.path.abspath(os.fspath(path))
    if force or full in _FORCED:
        return
    for source in inputs:
        if source and os.path.exists(full) and _same_file(os.fspath(source), full):
            raise FlexmbsError(f"{option} {path!r} is also an input of this command; writing it would replace its "
                               f"own input: choose another name{force_hint}")
    study = study_folder_of(full)
    if study is not None and kind != "study file":
        raise FlexmbsError(f"{option} {path!r} lies in the study folder {study!r} and would change the study; "
                           f"write it elsewhere{force_hint}")
    existing = detect_kind(full) if os.path.isfile(full) else None
    if existing is None:
        return
    accepted = KINDS.get(kind, (kind,))
    if existing not in accepted:
        raise FlexmbsError(f"{option} {path!r} exists and is a {existing}, not a {kind}: it would be replaced; "
                           f"choose another name{force_hint}")
    if kind == "report" and existing == "text file" and not _is_report(full):
        # issue 43: `reduce --report notes.txt` replaced the user's notes (any text file passed as a report)
        raise FlexmbsError(f"{option} {path!r} exists and is a text file that flexmbs did not write as a report: it "
                           f"would be replaced; choose another name{force_hint}")
