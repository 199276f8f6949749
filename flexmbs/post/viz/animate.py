"""The machine moving: animations (GIF, MP4) and ParaView time series (PVD + one VTU per output time).

Flexible bodies are drawn as their deformed surfaces ``x = r + A (s + scale · S q_f)`` coloured by von Mises stress
(the body's stress field covers every surface node; bodies reduced before it have stress at output nodes only and
the rest of their surface grey), with one colour range for the whole run (the peak over all nodes and samples), rigid
bodies from their geometry or a shape derived from their markers (see :mod:`flexmbs.post.viz.scene`). ``scale``
magnifies the elastic deformation only, never the stress.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from xml.sax.saxutils import quoteattr

import numpy as np

from fem.errors import FlexmbsError

from flexmbs.engine.interrupts import deferred_interrupt

from .modes import surface_mesh
from .render import new_plotter, screenshot, set_view, write_animation
from .scene import MachineScene, as_scene

__all__ = ["frame_indices", "frame_arrays", "plot_frame", "animate", "write_pvd"]

STRESS = "von Mises [MPa]"
UNKNOWN_STRESS = "lightsteelblue"  # flexible-body surface where no output node gives the stress


def frame_indices(n_samples: int, max_frames: int | None) -> np.ndarray:
    """Sample indices of the frames: all, or ``max_frames`` spread evenly (first and last included)."""
    if max_frames is None or n_samples <= max_frames:
        return np.arange(n_samples)
    if max_frames < 2:
        raise FlexmbsError("an animation needs at least 2 frames")
    return np.unique(np.round(np.linspace(0, n_samples - 1, max_frames)).astype(int))


def frame_arrays(scene: MachineScene, k: int, scale: float = 1.0) -> dict[str, dict]:
    """Per body at sample ``k``: global ``points`` (n, 3) m, elastic ``displacement`` (n, 3) m in global axes
    (unscaled), ``von_mises`` (n,) Pa (NaN where unknown)."""
    out = {}
    for body in scene.bodies:
        _, a = scene.pose(body.name, k)
        out[body.name] = {"points": scene.points(body.name, k, scale),
                          "displacement": scene.elastic_displacement(body.name, k) @ a.T,
                          "von_mises": scene.nodal_von_mises(body.name, k)}
    return out


def _stress_range(scene: MachineScene, frames: np.ndarray | None = None) -> float:
    """Top of the colour scale, Pa: the largest von Mises stress of all flexible bodies over ``frames`` (default:
    every sample of the run, so the scale is the same whichever frames are drawn)."""
    from flexmbs.post.durability import peak_statistics

    peak = 0.0
    for body in scene.bodies:
        nodes, modal = body.stress_table() if body.flexible else (np.zeros(0), None)
        if nodes.size:
            q = scene.modal_coordinates(body.name)
            q = q if frames is None else q[np.asarray(frames, dtype=int)]
            peak = max(peak, float(peak_statistics(modal, q, "von_mises")["max"].max()))
    return peak


def _stress_nodes(body) -> np.ndarray:
    return body.stress_table()[0] if body.flexible else np.zeros(0, dtype=np.int64)


def _bounds(scene: MachineScene, frames: np.ndarray, scale: float) -> list[float]:
    pts = np.vstack([scene.points(b.name, int(k), scale) for k in frames for b in scene.bodies if b.points.size])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = 0.05 * float(np.linalg.norm(hi - lo))
    return [lo[0] - pad, hi[0] + pad, lo[1] - pad, hi[1] + pad, lo[2] - pad, hi[2] + pad]


def _add_bodies(plotter, scene: MachineScene, k: int, scale: float, stress_max: float) -> dict:
    meshes = {}
    arrays = frame_arrays(scene, k, scale)
    bar = {"title": STRESS, "vertical": False, "position_x": 0.3, "position_y": 0.03, "width": 0.4,
           "color": "black", "fmt": "%.3g"}
    for body in scene.bodies:
        if not body.points.size:
            continue
        mesh = surface_mesh(arrays[body.name]["points"], body.triangles, body.lines)
        meshes[body.name] = mesh
        # frame-element bodies (no surface): thick lines between nodes, balls at the nodes
        style = {} if body.triangles.size else {"line_width": 6, "render_lines_as_tubes": True, "point_size": 10,
                                                 "render_points_as_spheres": True}
        stressed = _stress_nodes(body)
        if stressed.size:
            mesh.point_data[STRESS] = 1e-6 * arrays[body.name]["von_mises"]
            clim = [0.0, max(1e-6 * stress_max, 1e-9)]
            plotter.add_mesh(mesh, scalars=STRESS, cmap="turbo", clim=clim, nan_color=UNKNOWN_STRESS,
                             scalar_bar_args=bar, **style)
            if stressed.size < 0.5 * _drawn_nodes(body):  # sparse output nodes: show them as balls
                spots = mesh.extract_points(stressed, adjacent_cells=False, include_cells=False)
                meshes[body.name + " output nodes"] = spots
                plotter.add_mesh(spots, scalars=STRESS, cmap="turbo", clim=clim, point_size=14,
                                 render_points_as_spheres=True, show_scalar_bar=False)
        elif body.flexible:
            plotter.add_mesh(mesh, color="steelblue", **style)
        else:
            plotter.add_mesh(mesh, color="dimgray" if body.kind == "Ground" else "silver", smooth_shading=True)
    return meshes


def _drawn_nodes(body) -> int:
    """Number of nodes the body's surface (or line segments) uses."""
    cells = body.triangles if body.triangles.size else body.lines
    return int(np.unique(cells).size) if cells.size else body.points.shape[0]


def _update(meshes: dict, scene: MachineScene, k: int, scale: float) -> None:
    arrays = frame_arrays(scene, k, scale)
    for name, mesh in meshes.items():
        if name.endswith(" output nodes"):
            body = scene.body(name[:-len(" output nodes")])
            mesh.points = arrays[body.name]["points"][_stress_nodes(body)]
            mesh.point_data[STRESS] = 1e-6 * arrays[body.name]["von_mises"][_stress_nodes(body)]
            continue
        mesh.points = arrays[name]["points"]
        if STRESS in mesh.point_data:
            mesh.point_data[STRESS] = 1e-6 * arrays[name]["von_mises"]


def plot_frame(scene: MachineScene | str, k: int = -1, scale: float = 1.0, window_size=(1024, 768),
               view: str = "iso", off_screen: bool = True):
    """The machine at output sample ``k`` (default: the last), as a pyvista plotter (``.show()`` in a notebook)."""
    scene = as_scene(scene)
    k = int(np.arange(scene.time.size)[k])
    plotter = new_plotter(window_size, off_screen=off_screen)
    _add_bodies(plotter, scene, k, scale, _stress_range(scene, np.array([k])))
    plotter.add_text(f"t = {scene.time[k]:.4f} s   deformation × {scale:g}", font_size=10, color="black",
                     position="upper_left", name="time")
    set_view(plotter, view, _bounds(scene, np.array([k]), scale))
    return plotter


def animate(scene: MachineScene | str, path: str, scale: float = 1.0, fps: float = 20.0,
            max_frames: int | None = 200, window_size=(800, 600), view: str = "iso", progress=None) -> dict:
    """Render the motion to an animated GIF or an MP4.

    Parameters
    ----------
    scene : MachineScene or path of a ``*.results.h5`` file
    path : str
        ``.gif`` or ``.mp4``.
    scale : float
        Factor on the elastic deformation.
    fps : float
        Frames per second of the animation (the frames are output samples, not real time).
    max_frames : int or None
        At most this many frames, spread evenly over the output times.

    Returns
    -------
    dict with ``frames`` (count), ``stress_max`` (Pa, colour-scale top), ``path``.
    """
    scene = as_scene(scene)
    frames = frame_indices(scene.time.size, max_frames)
    stress_max = _stress_range(scene)
    plotter = new_plotter(window_size)
    images = []
    try:
        meshes = _add_bodies(plotter, scene, int(frames[0]), scale, stress_max)
        set_view(plotter, view, _bounds(scene, frames, scale))
        for n, k in enumerate(frames):
            _update(meshes, scene, int(k), scale)
            plotter.add_text(f"t = {scene.time[k]:.4f} s   deformation × {scale:g}", font_size=10, color="black",
                             position="upper_left", name="time")
            with deferred_interrupt() as ctrl_c:  # Ctrl-C in VTK's Python callbacks: noted, raised after the frame
                plotter.render()
                images.append(screenshot(plotter))
            if ctrl_c.pending:
                raise KeyboardInterrupt
            if progress and ((n + 1) % 20 == 0 or n + 1 == frames.size):
                progress(f"rendered frame {n + 1}/{frames.size}")
    finally:
        plotter.close()
    write_animation(images, path, fps)
    return {"frames": int(frames.size), "stress_max": stress_max, "path": path}


def _written_points(body) -> np.ndarray:
    """Points of a body written to the VTUs: a flexible body with a stress field keeps the nodes it draws or has
    stress at (interior mesh nodes would only carry NaN stress), every other body all its points."""
    if not (body.flexible and body.stress_nodes.size):
        return np.arange(body.points.shape[0])
    cells = body.triangles if body.triangles.size else body.lines
    return np.union1d(np.unique(cells), body.stress_nodes).astype(np.int64)


def _renumber(cells: np.ndarray, kept: np.ndarray, n_points: int) -> np.ndarray:
    local = np.full(n_points, -1, dtype=np.int64)
    local[kept] = np.arange(kept.size)
    return local[cells]


def write_pvd(scene: MachineScene | str, path: str, scale: float = 1.0, every: int = 1, progress=None) -> dict:
    """A ParaView time series: ``path`` (``.pvd``) and one ``.vtu`` per output time in ``<stem>_vtu/``.

    Each VTU holds all bodies (surface triangles, line segments of frame-element bodies; deformed positions with
    ``scale``; of a flexible body with a stress field only the surface and stress nodes) with point data
    ``von_mises`` (Pa, NaN where unknown), ``displacement`` (elastic, global axes, m, unscaled), ``body`` (index
    into the body list written as a comment in the PVD) and cell data ``body``.

    Returns
    -------
    dict with ``files`` (list of VTU paths), ``points`` (points per VTU), ``bodies`` (names).
    """
    scene = as_scene(scene)
    if every < 1:
        raise FlexmbsError("--every must be a positive integer")
    bodies = [b for b in scene.bodies if b.points.size]
    kept = {b.name: _written_points(b) for b in bodies}
    stem = os.path.splitext(os.path.basename(path))[0]
    final = os.path.join(os.path.dirname(os.path.abspath(path)), f"{stem}_vtu")
    # the series goes to a temporary folder, swapped in with the .pvd at the end (issue 30: nothing lost)
    folder = tempfile.mkdtemp(prefix=f".{stem}_vtu.", dir=os.path.dirname(final))
    os.chmod(folder, 0o755)
    try:
        return _write_series(scene, path, stem, folder, final, bodies, kept, scale, every, progress)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _write_series(scene, path, stem, folder, final, bodies, kept, scale, every, progress) -> dict:
    """The body of :func:`write_pvd`: VTU files into ``folder``, then ``folder`` → ``final`` and the .pvd."""
    import meshio

    from flexmbs.results.safe_files import atomic_output, open_output

    offsets = np.cumsum([0] + [kept[b.name].size for b in bodies])
    cells, cell_body = [], []
    for kind, attr in (("triangle", "triangles"), ("line", "lines")):
        blocks = [(_renumber(getattr(b, attr), kept[b.name], b.points.shape[0]) + off, i)
                  for i, (b, off) in enumerate(zip(bodies, offsets[:-1]))
                  if getattr(b, attr).size]
        if blocks:
            cells.append((kind, np.vstack([c for c, _ in blocks])))
            cell_body.append(np.concatenate([np.full(c.shape[0], i, dtype=np.int64) for c, i in blocks]))
    if not cells:  # only point clouds: one vertex cell per point
        cells = [("vertex", np.arange(offsets[-1], dtype=np.int64).reshape(-1, 1))]
        cell_body = [np.concatenate([np.full(kept[b.name].size, i, dtype=np.int64) for i, b in enumerate(bodies)])]
    point_body = np.concatenate([np.full(kept[b.name].size, i, dtype=np.int64) for i, b in enumerate(bodies)])
    files, entries = [], []
    samples = np.arange(0, scene.time.size, every)
    for n, k in enumerate(samples):
        arrays = frame_arrays(scene, int(k), scale)
        points = np.vstack([arrays[b.name]["points"][kept[b.name]] for b in bodies])
        data = {"von_mises": np.concatenate([arrays[b.name]["von_mises"][kept[b.name]] for b in bodies]),
                "displacement": np.vstack([arrays[b.name]["displacement"][kept[b.name]] for b in bodies]),
                "body": point_body}
        name = f"{stem}_{n:05d}.vtu"
        meshio.write(os.path.join(folder, name), meshio.Mesh(points, cells, point_data=data,
                                                             cell_data={"body": cell_body}), file_format="vtu")
        files.append(os.path.join(final, name))
        where = quoteattr(f"{stem}_vtu/{name}")
        entries.append(f'    <DataSet timestep="{float(scene.time[k])!r}" part="0" file={where}/>')
        if progress and ((n + 1) % 50 == 0 or n + 1 == samples.size):
            progress(f"wrote {n + 1}/{samples.size} time steps")
    legend = ", ".join(f"{i} = {b.name}" for i, b in enumerate(bodies)).replace("--", "- -")
    old = f"{final}.{os.getpid()}.old"
    with atomic_output(path, "--out", force=True) as tmp:
        with open_output(tmp, "w") as fh:
            fh.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n'
                     f"  <!-- flexmbs animation of {os.path.basename(scene.path)}; body index: {legend}; "
                     f"deformation scale {scale:g} -->\n  <Collection>\n" + "\n".join(entries) +
                     "\n  </Collection>\n</VTKFile>\n")
    if os.path.isdir(final):  # renames only (no space needed): the new series replaces the old one
        os.replace(final, old)
    os.replace(folder, final)
    shutil.rmtree(old, ignore_errors=True)
    return {"files": files, "points": int(offsets[-1]), "bodies": [b.name for b in bodies], "path": path}
