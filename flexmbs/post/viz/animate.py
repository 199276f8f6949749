"""The machine moving: animations (GIF, MP4) and ParaView time series (PVD + one VTU per output time).

Flexible bodies are drawn as their deformed surfaces ``x = r + A (s + scale · S q_f)`` coloured by von Mises stress
on one colour range for the whole run; ``scale`` magnifies the elastic deformation only, never the stress. What is
drawn how: docs/visualization.md ("flexmbs animate").
"""
from __future__ import annotations

import math
import os
import shutil
import tempfile
from xml.sax.saxutils import quoteattr

import numpy as np

from fem.errors import FlexmbsError

from flexmbs.engine.interrupts import deferred_interrupt

from .modes import MAX_DRAWN_FRACTION, surface_mesh
from .render import Overlay, camera_pixels, fit_parallel, new_plotter, screenshot, set_view, view_size, write_animation
from .scene import MachineScene, as_scene

__all__ = ["frame_indices", "frame_arrays", "plot_frame", "frame_picture", "frame_pixels", "animate", "write_pvd",
           "up_axis", "ground_corners",
           "overlay_picture"]

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


def _stress_range(scene: MachineScene) -> float:
    """Top of the colour scale, Pa: the largest von Mises stress of all flexible bodies over every sample of the
    run (the scale is the same whichever frames are drawn)."""
    from flexmbs.post.durability import peak_statistics

    peak = 0.0
    for body in scene.bodies:
        nodes, modal = body.stress_table() if body.flexible else (np.zeros(0), None)
        if nodes.size:
            peak = max(peak, float(peak_statistics(modal, scene.modal_coordinates(body.name))["max"].max()))
    return peak


def _stress_nodes(body) -> np.ndarray:
    return body.stress_table()[0] if body.flexible else np.zeros(0, dtype=np.int64)


def _bounds(scene: MachineScene, frames: np.ndarray, scale: float) -> list[float]:
    pts = np.vstack([scene.points(b.name, int(k), scale) for k in frames for b in scene.bodies if b.points.size])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = 0.05 * float(np.linalg.norm(hi - lo))
    return [lo[0] - pad, hi[0] + pad, lo[1] - pad, hi[1] + pad, lo[2] - pad, hi[2] + pad]


MAX_FPS = 1000.0  # frames per second: a GIF keeps frame times in 10 ms steps, a video player shows < 1000 fps
MIN_FPS = 0.01  # a frame per 100 s: slower is no animation (and overflows a GIF's frame duration)


def check_fps(fps) -> None:
    """One line unless ``fps`` is a number in [MIN_FPS, MAX_FPS] (issue 43: --fps 1e9 was accepted, 1e-9 overflowed
    the GIF's frame duration)."""
    if isinstance(fps, (str, bytes, bool)) or not isinstance(fps, (int, float)) or not MIN_FPS <= fps <= MAX_FPS:
        raise FlexmbsError(f"fps (--fps) must be a number of frames per second in [{MIN_FPS:g}, {MAX_FPS:g}], got "
                           f"{fps!r}")


def check_scale(scene: MachineScene, frames, scale: float) -> None:
    """One line (:class:`FlexmbsError`) when ``scale`` draws the run's largest elastic displacement (over the
    frames) beyond :data:`MAX_DRAWN_FRACTION` sizes of the machine (issue 43: ``--scale 1e12`` was accepted)."""
    flexible = [b for b in scene.bodies if b.flexible and b.points.size]
    if not flexible or not math.isfinite(scale):
        return
    peak, where = 0.0, ("", 0.0)
    for b in flexible:
        for k in frames:
            u = float(np.linalg.norm(scene.elastic_displacement(b.name, int(k)), axis=1).max())
            if u > peak:
                peak, where = u, (b.name, float(scene.time[int(k)]))
    pts = np.vstack([b.points for b in scene.bodies if b.points.size])
    size = float(np.linalg.norm(np.ptp(pts, axis=0)))
    drawn = abs(scale) * peak
    if size > 0.0 and drawn > MAX_DRAWN_FRACTION * size:
        raise FlexmbsError(f"scale {scale:g} (--scale) draws the largest elastic displacement ({peak:.3g} m, body "
                           f"{where[0]!r} at t = {where[1]:.4g} s) at {drawn:.3g} m, {drawn / size:.3g} x the size of "
                           f"the machine ({size:.3g} m): the picture would show nothing but the deformation; use a "
                           f"scale <= {MAX_DRAWN_FRACTION * size / peak:.3g} (1 draws it true to size)")


def _add_bodies(plotter, scene: MachineScene, k: int, scale: float, stress_max: float) -> dict:
    meshes = {}
    arrays = frame_arrays(scene, k, scale)
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
                             show_scalar_bar=False, **style)
            if stressed.size < 0.5 * _drawn_nodes(body):  # sparse output nodes: show them as balls
                spots = mesh.extract_points(stressed, adjacent_cells=False, include_cells=False)
                meshes[body.name + " output nodes"] = spots
                plotter.add_mesh(spots, scalars=STRESS, cmap="turbo", clim=clim, point_size=14,
                                 render_points_as_spheres=True, show_scalar_bar=False)
        elif body.flexible:
            plotter.add_mesh(mesh, color="steelblue", **style)
        else:
            plotter.add_mesh(mesh, color=colour_of(body), smooth_shading=True)
    return meshes


PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf",
           "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5")
# matplotlib's tab20 without its greys (grey is the ground's): one colour per rigid body, named in the legend


def colour_of(body, _seen: dict = {}) -> str:  # noqa: B006  (a body keeps its colour in every picture of a session)
    """Colour of a rigid body (flexible bodies are coloured by stress): a qualitative palette, ground dark grey."""
    if body.kind == "Ground":
        return "#555555"
    return PALETTE[_seen.setdefault(body.name, len(_seen)) % len(PALETTE)]


def legend_entries(scene: MachineScene) -> list[tuple[str, str]]:
    """``(name, colour)`` of the bodies drawn in one colour (rigid bodies and ground); flexible bodies show stress."""
    return [(b.name, colour_of(b)) for b in scene.bodies if b.points.size and not _stress_nodes(b).size
            and not b.flexible]


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


def up_axis(lo: np.ndarray, hi: np.ndarray) -> int:
    """Index of the vertical axis of a machine whose motion spans ``lo``..``hi`` (m): y when the motion is thinnest
    along z (machines that move in or along a plane normal to z: the README's pendulum, the excavator, the clamp
    unit, all with gravity along -y), z otherwise (the compactor, the platen on its bed, gravity along -z). The
    results file does not store the gravity vector, hence the rule."""
    extent = np.asarray(hi, float) - np.asarray(lo, float)
    return 1 if extent[2] <= min(extent[0], extent[1]) else 2


def ground_corners(bounds: list[float], up: int | None = None) -> np.ndarray:
    """Corners (4, 3) of a plane under the whole motion, normal to the vertical axis ``up`` (default
    :func:`up_axis`): as wide as the motion and at least 60 % of its largest extent deep, so that it reads as a
    floor."""
    lo, hi = np.array(bounds[0::2], dtype=float), np.array(bounds[1::2], dtype=float)
    up = up_axis(lo, hi) if up is None else up
    a, b = [c for c in range(3) if c != up]
    reach = 0.6 * float((hi - lo).max())
    for c in (a, b):
        if hi[c] - lo[c] < reach:
            middle = 0.5 * (lo[c] + hi[c])
            lo[c], hi[c] = middle - 0.5 * reach, middle + 0.5 * reach
    corners = np.zeros((4, 3))
    corners[:, up] = lo[up]
    corners[:, a] = [lo[a], hi[a], hi[a], lo[a]]
    corners[:, b] = [lo[b], lo[b], hi[b], hi[b]]
    return corners


def _add_ground(plotter, bounds: list[float], view: str) -> None:
    """The ground plane under the motion's ``bounds`` (a visual reference, not a body) and the camera fitted to
    both."""
    import pyvista

    up = _up(bounds)
    ground = ground_corners(bounds, up)
    plotter.add_mesh(pyvista.PolyData(ground, faces=np.array([4, 0, 1, 2, 3])), color="#c9bfa9", show_edges=False,
                     lighting=False)
    lo, hi = np.minimum(bounds[0::2], ground.min(axis=0)), np.maximum(bounds[1::2], ground.max(axis=0))
    _frame_camera(plotter, view, [lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]], up)


def _up(bounds: list[float]) -> int:
    return up_axis(np.array(bounds[0::2]), np.array(bounds[1::2]))


def _frame_camera(plotter, view: str, bounds: list[float], up: int) -> None:
    """Parallel projection (one scale bar holds for the whole picture), the vertical axis ``up`` up, the camera
    fitted to ``bounds`` (the whole run and the ground)."""
    lo, hi = np.array(bounds[0::2]), np.array(bounds[1::2])
    set_view(plotter, view, bounds)
    if view == "iso" and up == 1:  # planar machine in xy: from the front (+z), a little from above
        centre = 0.5 * (lo + hi)
        distance = 3.0 * float(np.linalg.norm(hi - lo))
        direction = np.array([0.35, 0.3, 1.0]) / np.linalg.norm([0.35, 0.3, 1.0])
        plotter.camera.position = tuple(centre + distance * direction)
        plotter.camera.focal_point = tuple(centre)
        plotter.camera.up = (0.0, 1.0, 0.0)
    plotter.enable_parallel_projection()
    plotter.reset_camera(bounds=bounds)
    fit_parallel(plotter, bounds)


def _caption(scene: MachineScene, k: int, scale: float) -> str:
    name = os.path.basename(scene.path)
    return f"{name}   t = {scene.time[k]:.4f} s   elastic deformation × {scale:g}"


class _Frames:
    """A plotter (3D view) and an overlay (colour bar, scale bar, triad, caption) set up once for a whole run."""

    def __init__(self, scene: MachineScene, frames: np.ndarray, scale: float, window_size, view: str):
        self.scene, self.scale = scene, scale
        self.stress_max = _stress_range(scene)
        legend = legend_entries(scene)
        legend = legend if any(name != "ground" for name, _ in legend) else []  # the ground alone needs no name
        self.plotter = new_plotter(view_size(window_size, legend=bool(legend)))
        self.meshes = _add_bodies(self.plotter, scene, int(frames[0]), scale, self.stress_max)
        _add_ground(self.plotter, _bounds(scene, frames, scale), view)
        colour = {"cmap": "turbo", "vmin": 0.0, "vmax": max(1e-6 * self.stress_max, 1e-9), "title": STRESS} \
            if any(_stress_nodes(b).size for b in scene.bodies if b.points.size) else None
        self.overlay = Overlay(window_size, colour, legend or None)
        self.overlay.set_camera(self.plotter)

    def draw(self, k: int) -> np.ndarray:
        _update(self.meshes, self.scene, k, self.scale)
        self.plotter.render()
        self.overlay.set_view(screenshot(self.plotter))
        self.overlay.set_caption(_caption(self.scene, k, self.scale))
        return self.overlay.render()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.overlay.close()
        self.plotter.close()


def frame_pixels(scene: MachineScene | str, frames=None, scale: float = 1.0, window_size=(800, 600),
                 view: str = "iso") -> tuple[np.ndarray, tuple[int, int]]:
    """Pixel positions (x right, y up, origin at the 3D view's lower left) of every drawn point of every body over
    ``frames`` (default: every output time) in the camera an animation uses, (n, 2), and the 3D view's size
    (width, height) in pixels. All positions inside ``[0, width] × [0, height]`` means the machine stays in the
    picture."""
    scene = as_scene(scene)
    frames = np.arange(scene.time.size) if frames is None else np.asarray(frames, dtype=int)
    with _Frames(scene, frames, scale, window_size, view) as drawing:
        points = np.vstack([scene.points(b.name, int(k), scale) for k in frames for b in scene.bodies
                            if b.points.size])
        return camera_pixels(drawing.plotter, points), tuple(drawing.plotter.renderer.GetSize())


def plot_frame(scene: MachineScene | str, k: int = -1, scale: float = 1.0, window_size=(1024, 768),
               view: str = "iso", off_screen: bool = True):
    """The machine at output sample ``k`` (default: the last), as a pyvista plotter (``.show()`` in a notebook;
    the colour range is the whole run's; the picture with colour bar, scale bar and triad: :func:`frame_picture`)."""
    scene = as_scene(scene)
    k = int(np.arange(scene.time.size)[k])
    plotter = new_plotter(window_size, off_screen=off_screen)
    _add_bodies(plotter, scene, k, scale, _stress_range(scene))
    _add_ground(plotter, _bounds(scene, np.array([k]), scale), view)
    plotter.add_text(_caption(scene, k, scale), font_size=10, color="black", position="upper_left", name="time")
    return plotter


def frame_picture(scene: MachineScene | str, k: int = -1, scale: float = 1.0, window_size=(1024, 768),
                  view: str = "iso", frames=None) -> np.ndarray:
    """The picture of output sample ``k`` as an animation draws it (camera framed on ``frames``, default the
    whole run), (height, width, 3) uint8."""
    scene = as_scene(scene)
    k = int(np.arange(scene.time.size)[k])
    frames = np.arange(scene.time.size) if frames is None else np.asarray(frames, dtype=int)
    with _Frames(scene, frames, scale, window_size, view) as drawing:
        return drawing.draw(k)


def overlay_picture(draw, bounds: list[float], window_size=(1200, 800), colour: dict | None = None,
                    caption: str = "", view: str = "iso", legend=None) -> np.ndarray:
    """A picture of what ``draw(plotter)`` adds to a 3D view (meshes without scalar bars), framed on ``bounds``
    (m) in parallel projection, with the overlay of the animations: colour bar ``colour`` (``cmap``, ``vmin``,
    ``vmax``, ``title``) in a strip under the view, scale bar, axes triad, ``caption`` (shrunk to the picture's
    width). Returns (height, width, 3) uint8."""
    plotter = new_plotter(view_size(window_size, legend=bool(legend)))
    overlay = Overlay(window_size, colour, legend)
    try:
        draw(plotter)
        _frame_camera(plotter, view, bounds, _up(bounds))
        overlay.set_camera(plotter)
        plotter.render()
        overlay.set_view(screenshot(plotter))
        overlay.set_caption(caption)
        overlay.fit_caption()
        return overlay.render()
    finally:
        overlay.close()
        plotter.close()


def animate(scene: MachineScene | str, path: str, scale: float = 1.0, fps: float = 20.0,
            max_frames: int | None = 200, window_size=(800, 600), view: str = "iso", progress=None) -> dict:
    """Render the motion to an animated GIF or an MP4.

    The camera is framed on the whole run (every frame's bodies inside the picture), in parallel projection with a
    scale bar, an axes triad, a ground plane under the motion and the von Mises colour bar in a strip under the 3D
    view.

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
    check_fps(fps)
    scene = as_scene(scene)
    frames = frame_indices(scene.time.size, max_frames)
    check_scale(scene, frames, scale)
    images = []
    with _Frames(scene, frames, scale, window_size, view) as drawing:
        for n, k in enumerate(frames):
            with deferred_interrupt() as ctrl_c:  # Ctrl-C in VTK's Python callbacks: noted, raised after the frame
                images.append(drawing.draw(int(k)))
            if ctrl_c.pending:
                raise KeyboardInterrupt
            if progress and ((n + 1) % 20 == 0 or n + 1 == frames.size):
                progress(f"rendered frame {n + 1}/{frames.size}")
    write_animation(images, path, fps)
    return {"frames": int(frames.size), "stress_max": drawing.stress_max, "path": path}


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
    check_scale(scene, frame_indices(scene.time.size, 200), scale)
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
    point_body = np.concatenate([np.full(kept[b.name].size, i, dtype=np.int64) for i, b in enumerate(bodies)])
    if not cells:  # only point clouds: one vertex cell per point
        cells, cell_body = [("vertex", np.arange(offsets[-1], dtype=np.int64).reshape(-1, 1))], [point_body]
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
