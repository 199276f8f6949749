"""Mode shapes of a reduced flexible body: pictures (PNG grid, oscillating GIF) and a ParaView file (VTU).

The mode shapes are the mass-normalized columns ``translations[:, :, j]`` of the Craig–Bampton basis: their
amplitude has no physical meaning, so pictures scale the largest displacement to a fraction of the body size. The
file carries the full free–free FE *frequencies* and their MAC in its reduction report, not the full mode shapes:
titles show both frequencies side by side (:func:`mode_title`).
"""
from __future__ import annotations

import numpy as np

from fem.errors import FlexmbsError
from reduction.flexbody import FlexBody

from .render import fit_parallel, new_plotter, screenshot, set_view, write_animation
from .scene import node_chain

__all__ = ["load_body", "mode_indices", "mode_title", "auto_scale", "check_mode_scale", "surface_mesh", "plot_mode", "plot_modes",
           "modes_figure", "save_modes_png", "write_mode_gif", "write_modes_vtu"]

DEFAULT_AMPLITUDE = 0.1  # largest drawn displacement as a fraction of the body's bounding-box diagonal
RELATIVE = "relative displacement"  # |u| / max |u| of the mode
SHOWN = "displacement / largest displacement of the mode"  # the colour bar's title
_COLOUR = {"cmap": "viridis", "vmin": 0.0, "vmax": 1.0, "title": SHOWN}  # the pictures' colour bar


def load_body(body: FlexBody | str) -> FlexBody:
    """A FlexBody from a FlexBody or the path of a ``*.flex.h5`` file."""
    if isinstance(body, FlexBody):
        return body
    from reduction.io import read_flexbody

    return read_flexbody(str(body))


def mode_indices(body: FlexBody, modes) -> np.ndarray:
    """0-based indices of 1-based mode numbers (mode 1 is the first elastic mode), checked against the body."""
    numbers = np.atleast_1d(np.asarray(list(modes) if modes is not None else [], dtype=int))
    if body.n_modes == 0:
        raise FlexmbsError(f"flexible body {body.name!r} has no elastic modes")
    bad = [int(k) for k in numbers if not 1 <= k <= body.n_modes]
    if bad:
        raise FlexmbsError(f"mode {bad[0]} does not exist: body {body.name!r} has elastic modes 1..{body.n_modes}")
    return numbers - 1


def mode_title(body: FlexBody, index: int) -> str:
    """``"mode 3: 1124.1 Hz (full FE 1114.7 Hz, MAC 0.998)"``: reduced frequency with its full free–free partner,
    the full mode paired with it by shape (``pair_reduced``, ``pair_mac`` of the report: the pairing of the reduce
    table), so the frequency and the MAC are of the same full mode. Files written before the shape pairing: the
    full mode nearest in frequency, whose MAC ``mac`` holds."""
    frequency = float(body.frequencies_hz[index])
    title = f"mode {index + 1}: {frequency:.1f} Hz"
    report = body.report
    full = np.asarray(report.get("full_free_free_hz", []), dtype=float).ravel()
    if not full.size:
        return title
    if "pair_reduced" in report:
        partner = np.asarray(report["pair_reduced"], dtype=int).ravel()
        mac = np.asarray(report.get("pair_mac", []), dtype=float).ravel()
        hits = np.flatnonzero(partner[:full.size] == index)
        if not hits.size:
            return title + " (no full-FE mode of this shape among the compared ones)"
        k = int(hits[0])
        extra = f", MAC {mac[k]:.3f}" if k < mac.size else ""
        return title + f" (full FE {full[k]:.1f} Hz{extra})"
    mac = np.asarray(report.get("mac", []), dtype=float).ravel()
    if index >= min(mac.size, full.size):  # not among the compared modes
        return title
    k = int(np.argmin(np.abs(full - frequency)))
    return title + f" (full FE {full[k]:.1f} Hz, MAC {mac[index]:.3f})"


def _size(points: np.ndarray) -> float:
    """Bounding-box diagonal of a point cloud, m."""
    return float(np.linalg.norm(points.max(axis=0) - points.min(axis=0))) if points.size else 1.0


def auto_scale(body: FlexBody, index: int, amplitude: float = DEFAULT_AMPLITUDE) -> float:
    """Scale factor that draws the largest nodal displacement of mode ``index`` at ``amplitude`` × body size."""
    peak = float(np.linalg.norm(body.translations[:, :, index], axis=1).max())
    return amplitude * _size(body.positions) / peak if peak > 0.0 else 1.0


MAX_DRAWN_FRACTION = 10.0  # a drawn deformation above this many body sizes shows nothing but the deformation


def check_mode_scale(body: FlexBody, indices, scale: float | None) -> None:
    """One line (:class:`FlexmbsError`) when ``scale`` draws a mode's largest displacement beyond
    :data:`MAX_DRAWN_FRACTION` body sizes (``--scale 1e12`` drew a picture of nothing; issue 43)."""
    if scale is None:
        return
    if float(scale) == 0.0:  # issue 43: a picture of the undeformed body
        raise FlexmbsError("scale 0 (--scale) draws no displacement: the picture would show the undeformed body; give "
                           f"a non-zero scale (or leave it out: {100 * DEFAULT_AMPLITUDE:.0f} % of the size)")
    size = _size(body.positions)
    for index in indices:
        peak = float(np.linalg.norm(body.translations[:, :, int(index)], axis=1).max())
        drawn = abs(float(scale)) * peak
        if size > 0.0 and drawn > MAX_DRAWN_FRACTION * size:
            limit = MAX_DRAWN_FRACTION * size / peak
            raise FlexmbsError(f"scale {scale:g} (--scale) draws the largest displacement of mode {int(index) + 1} at "
                               f"{drawn:.3g} m, {drawn / size:.3g} x the body's size {size:.3g} m: the picture would "
                               f"show nothing but the deformation; use a scale <= {limit:.3g} (or leave it out: "
                               f"{100 * DEFAULT_AMPLITUDE:.0f} % of the size)")


def surface_mesh(points: np.ndarray, triangles: np.ndarray, lines: np.ndarray | None = None):
    """A ``pyvista.PolyData`` of the surface triangles (and line segments) over ``points`` (all nodes kept, so
    indices stay valid); a point cloud if there are neither."""
    import pyvista

    triangles = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    lines = np.zeros((0, 2), dtype=np.int64) if lines is None else np.asarray(lines, dtype=np.int64).reshape(-1, 2)
    kwargs = {}
    if triangles.size:
        kwargs["faces"] = np.hstack([np.full((triangles.shape[0], 1), 3, dtype=np.int64), triangles]).ravel()
    if lines.size:
        kwargs["lines"] = np.hstack([np.full((lines.shape[0], 1), 2, dtype=np.int64), lines]).ravel()
    return pyvista.PolyData(np.asarray(points, dtype=float), **kwargs)


def _draw_mode(plotter, body: FlexBody, index: int, scale: float | None, title: bool = True,
               colour_bar: bool = True) -> dict:
    """Add the deformed surface (coloured by displacement magnitude) and the undeformed outline to a plotter."""
    shape = body.translations[:, :, index]
    check_mode_scale(body, [index], scale)
    factor = auto_scale(body, index) if scale is None else float(scale)
    displacement = factor * shape
    lines = None if body.surface.size else node_chain(body.positions)  # frame-element bodies
    undeformed = surface_mesh(body.positions, body.surface, lines)
    deformed = surface_mesh(body.positions + displacement, body.surface, lines)
    # mass-normalized shapes have no physical amplitude: colour by |u| relative to the mode's largest |u|
    magnitude = np.linalg.norm(displacement, axis=1)
    deformed.point_data[RELATIVE] = magnitude / (float(magnitude.max()) or 1.0)
    coloured = {"scalars": RELATIVE, "cmap": "viridis", "clim": [0.0, 1.0], "show_scalar_bar": colour_bar,
                "scalar_bar_args": {"title": RELATIVE, "vertical": False, "position_x": 0.55, "position_y": 0.04,
                                    "width": 0.4, "height": 0.07, "color": "black", "fmt": "%.1f", "n_labels": 2,
                                    "title_font_size": 12, "label_font_size": 11}}
    if body.surface.size:
        outline = undeformed.extract_feature_edges(feature_angle=30.0, boundary_edges=True, non_manifold_edges=False,
                                                   manifold_edges=False)
        plotter.add_mesh(outline, color="black", line_width=1.0, opacity=0.6)
        plotter.add_mesh(deformed, smooth_shading=False, show_edges=False, **coloured)
    else:
        plotter.add_mesh(undeformed, color="black", point_size=4, render_points_as_spheres=True, opacity=0.4)
        plotter.add_mesh(deformed, point_size=10, render_points_as_spheres=True, line_width=6,
                         render_lines_as_tubes=True, **coloured)
    if title:
        plotter.add_text(f"{body.name} {mode_title(body, index)}\nscale {factor:.3g}", font_size=10,
                         color="black", position="upper_left")
    bounds = _bounds(np.vstack([body.positions + factor * shape, body.positions - factor * shape]))
    return {"scale": factor, "bounds": bounds, "mesh": deformed}


def _bounds(points: np.ndarray) -> list[float]:
    lo, hi = points.min(axis=0), points.max(axis=0)
    return [lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]]


def plot_mode(body: FlexBody | str, mode: int = 1, scale: float | None = None, window_size=(1024, 768),
              view: str = "iso", off_screen: bool = True):
    """One mode shape, ready to show or save: ``plot_mode(body, 2).show()`` in a notebook.

    Parameters
    ----------
    body : FlexBody or path of a ``*.flex.h5`` file
    mode : int
        Mode number, 1-based (1 = first elastic mode).
    scale : float, optional
        Factor on the mass-normalized shape; by default the largest displacement is drawn at 10 % of the body size.
    window_size : (width, height), pixels
    view : ``"iso"``, ``"xy"``, ``"xz"`` or ``"yz"``

    Returns
    -------
    pyvista.Plotter
    """
    return plot_modes(body, [mode], scale=scale, window_size=window_size, view=view, off_screen=off_screen)


def plot_modes(body: FlexBody | str, modes=None, scale: float | None = None, window_size=(1024, 768),
               view: str = "iso", off_screen: bool = True):
    """Several mode shapes in a grid of sub-plots (default: the first six elastic modes).

    Returns
    -------
    pyvista.Plotter
    """
    body, indices, rows, cols = _grid(body, modes)
    plotter = new_plotter(window_size, shape=(rows, cols), off_screen=off_screen)
    for n, index in enumerate(indices):
        plotter.subplot(n // cols, n % cols)
        info = _draw_mode(plotter, body, int(index), scale)
        set_view(plotter, view, info["bounds"])
    return plotter


def _grid(body: FlexBody | str, modes) -> tuple:
    """``(body, 0-based mode indices, rows, columns)`` of a grid of mode pictures (default: the first six modes)."""
    body = load_body(body)
    numbers = list(modes) if modes else list(range(1, min(6, body.n_modes) + 1))
    indices = mode_indices(body, numbers)
    cols = int(np.ceil(np.sqrt(indices.size)))
    return body, indices, int(np.ceil(indices.size / cols)), cols


def _draw_flat(plotter, body: FlexBody, index: int, scale: float | None, view: str) -> dict:
    """One mode without the plotter's own title and colour bar (the overlay draws them), in parallel projection
    fitted to the deformed and undeformed body."""
    info = _draw_mode(plotter, body, index, scale, title=False, colour_bar=False)
    set_view(plotter, view, info["bounds"])
    plotter.enable_parallel_projection()
    fit_parallel(plotter, info["bounds"])
    return info


def modes_figure(body: FlexBody | str, modes=None, scale: float | None = None, window_size=(1024, 768),
                 view: str = "iso"):
    """The mode shapes as a matplotlib figure of ``window_size`` pixels: each mode rendered off screen in its own
    cell under its title (frequency, full FE partner, MAC, drawing scale), one colour bar in a strip at the bottom
    (title above the bar, labels below). All text is matplotlib text (checked by
    :func:`flexmbs.post.viz.layout.overlapping_texts` in the tests)."""
    from .render import STRIP_PX, colour_strip, pyplot

    body, indices, rows, cols = _grid(body, modes)
    w, h = window_size
    strip, title_px = min(STRIP_PX, h // 4), 34
    cell_w, cell_h = w // cols, max(16, (h - strip) // rows - title_px)
    dpi = 100
    fig = pyplot().figure(figsize=(w / dpi, h / dpi), dpi=dpi)
    for n, index in enumerate(indices):
        plotter = new_plotter((cell_w, cell_h))
        try:
            info = _draw_flat(plotter, body, int(index), scale, view)
            image = screenshot(plotter)
        finally:
            plotter.close()
        r, c = divmod(n, cols)
        top = 1.0 - r * (cell_h + title_px) / h
        ax = fig.add_axes([c * cell_w / w, top - (cell_h + title_px) / h, cell_w / w, cell_h / h])
        ax.imshow(image, interpolation="nearest")
        ax.set_axis_off()
        ax.set_title(f"{body.name} {mode_title(body, int(index))}\nscale {info['scale']:.3g}", fontsize=9, pad=2)
    cax = colour_strip(fig, strip / h, _COLOUR).ax
    _fit_titles(fig, [a for a in fig.axes if a is not cax])
    return fig


def _fit_titles(fig, axes) -> None:
    """Shrink a title wider than its cell until it fits."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        room = ax.get_window_extent(renderer).width
        size = ax.title.get_fontsize()
        while ax.title.get_window_extent(renderer).width > room and size > 5:
            size -= 0.5
            ax.title.set_fontsize(size)


def save_modes_png(body: FlexBody | str, path: str, modes=None, scale: float | None = None,
                   window_size=(1024, 768), view: str = "iso") -> str:
    """Render :func:`modes_figure` to a PNG of exactly ``window_size`` pixels."""
    from .render import save_figure

    return save_figure(modes_figure(body, modes, scale=scale, window_size=window_size, view=view), path,
                       format="png")


def write_mode_gif(body: FlexBody | str, path: str, mode: int = 1, scale: float | None = None,
                   window_size=(640, 480), view: str = "iso", n_frames: int = 24, fps: float = 12.0,
                   progress=None) -> str:
    """One mode oscillating, ``u(t) = scale · sin(2π i / n_frames) · φ``, as an animated GIF (or MP4)."""
    from .render import Overlay, view_size

    body = load_body(body)
    index = int(mode_indices(body, [mode])[0])
    frames = []
    plotter = new_plotter(view_size(window_size))
    overlay = Overlay(window_size, _COLOUR)
    try:
        info = _draw_flat(plotter, body, index, scale, view)
        overlay.set_camera(plotter)
        overlay.set_caption(f"{body.name} {mode_title(body, index)}, scale {info['scale']:.3g}")
        overlay.fit_caption()
        mesh, shape = info["mesh"], info["scale"] * body.translations[:, :, index]
        peak = float(np.linalg.norm(shape, axis=1).max()) or 1.0
        for i in range(n_frames):
            displacement = float(np.sin(2.0 * np.pi * i / n_frames)) * shape
            mesh.points = body.positions + displacement
            mesh.point_data[RELATIVE] = np.linalg.norm(displacement, axis=1) / peak
            plotter.render()
            overlay.set_view(screenshot(plotter))
            frames.append(overlay.render())
            if progress and (i + 1) % 8 == 0:
                progress(f"frame {i + 1}/{n_frames}")
    finally:
        overlay.close()
        plotter.close()
    return write_animation(frames, path, fps)


def write_modes_vtu(body: FlexBody | str, path: str) -> str:
    """The body's nodes and surface with every mode shape as a point field, for ParaView's *Warp By Vector*.

    Point data: ``mode_01`` … (n_nodes, 3) translational shape rows, m per unit modal coordinate (mass-normalized);
    ``node_id`` (mesh ids). Field data: ``frequency_hz`` (reduced) and, when the file has them,
    ``full_free_free_hz`` and ``mac``. Cells: the surface triangles (vertex cells when the body has none).
    """
    import meshio

    body = load_body(body)
    width = max(2, len(str(body.n_modes)))
    point_data = {f"mode_{j + 1:0{width}d}": np.ascontiguousarray(body.translations[:, :, j], dtype=float)
                  for j in range(body.n_modes)}
    point_data["node_id"] = np.asarray(body.node_ids, dtype=np.int64)
    if body.surface.size:
        cells = [("triangle", np.asarray(body.surface, dtype=np.int64))]
    else:
        cells = [("vertex", np.arange(body.positions.shape[0], dtype=np.int64).reshape(-1, 1))]
    field_data = {"frequency_hz": np.asarray(body.frequencies_hz, dtype=float)}
    for key in ("full_free_free_hz", "mac"):
        if np.size(body.report.get(key, [])):
            field_data[key] = np.asarray(body.report[key], dtype=float).ravel()
    meshio.write(path, meshio.Mesh(np.asarray(body.positions, dtype=float), cells, point_data=point_data,
                                   field_data=field_data), file_format="vtu")
    return path
