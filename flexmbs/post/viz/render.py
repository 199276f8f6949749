"""Off-screen rendering with PyVista/VTK and writing of image sequences (PNG, GIF, MP4).

Headless machines and CI have no X server: without ``DISPLAY`` we ask VTK for its EGL window (Mesa's surfaceless
EGL renders on the CPU; it also avoids VTK's "bad X server connection" warning); ``VTK_DEFAULT_OPENGL_WINDOW``
overrides the choice. See docs/visualization.md ("Off-screen rendering").
"""
from __future__ import annotations

import os
import sys

import numpy as np

from fem.errors import FlexmbsError

__all__ = ["configure_offscreen", "new_plotter", "screenshot", "write_animation", "parse_size", "set_view",
           "IMAGE_SUFFIXES", "Overlay", "camera_pixels", "camera_axes", "view_size", "STRIP_PX", "LEGEND_PX",
           "fit_parallel", "pyplot", "save_figure", "colour_strip"]

IMAGE_SUFFIXES = (".png", ".gif", ".mp4")


def configure_offscreen() -> None:
    """Make PyVista render off screen; choose VTK's EGL window when there is no display."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    import pyvista

    pyvista.OFF_SCREEN = True


def new_plotter(window_size: tuple[int, int] = (1024, 768), shape: tuple[int, int] = (1, 1),
                off_screen: bool = True):
    """A PyVista plotter (off screen by default) with a white background.

    Parameters
    ----------
    window_size : (width, height), pixels
    shape : (rows, columns) of sub-plots
    """
    if off_screen:
        configure_offscreen()
    import pyvista

    try:
        plotter = pyvista.Plotter(off_screen=off_screen, window_size=list(window_size), shape=shape,
                                  border=False)
    except Exception as exc:  # VTK raises plain RuntimeErrors when no OpenGL context can be made
        raise FlexmbsError(f"cannot open an off-screen OpenGL context ({exc}); install Mesa's EGL "
                           "(libegl1) or OSMesa, or run under Xvfb; .vtu/.pvd/.csv outputs need no rendering") from None
    plotter.set_background("white")
    return plotter


def screenshot(plotter) -> np.ndarray:
    """The rendered image as an (height, width, 3) uint8 array."""
    image = plotter.screenshot(None, return_img=True)
    if image is None or np.asarray(image).std() == 0.0:
        raise FlexmbsError("the off-screen render came back blank: the OpenGL context does not work here "
                           "(try VTK_DEFAULT_OPENGL_WINDOW=vtkOSOpenGLRenderWindow or Xvfb)")
    return np.asarray(image)[:, :, :3]


def write_animation(frames: list[np.ndarray], path: str, fps: float) -> str:
    """Write frames (each (h, w, 3) uint8) as an animated GIF (Pillow) or an MP4 (imageio-ffmpeg)."""
    suffix = os.path.splitext(path)[1].lower()
    if not frames:
        raise FlexmbsError("no frames to write")
    if suffix == ".gif":
        from PIL import Image

        images = [Image.fromarray(f).convert("P", palette=Image.Palette.ADAPTIVE, colors=255) for f in frames]
        images[0].save(path, save_all=True, append_images=images[1:], duration=int(round(1000.0 / fps)), loop=0,
                       optimize=False, disposal=1)
        return path
    if suffix == ".mp4":
        try:
            import imageio.v2 as imageio
            import imageio_ffmpeg  # noqa: F401  (imageio needs it for mp4; fail early with a clear message)
        except ImportError:
            raise FlexmbsError("writing .mp4 needs imageio and imageio-ffmpeg (pip install imageio imageio-ffmpeg);"
                               " or write a .gif") from None
        # H.264 wants even frame sizes
        h, w = (frames[0].shape[0] // 2) * 2, (frames[0].shape[1] // 2) * 2
        with imageio.get_writer(path, fps=fps, codec="libx264", quality=7, macro_block_size=1) as writer:
            for frame in frames:
                writer.append_data(np.ascontiguousarray(frame[:h, :w]))
        return path
    raise FlexmbsError(f"cannot write an animation to {path!r}: use .gif or .mp4")


def parse_size(text: str) -> tuple[int, int]:
    """``"800x600"`` → (800, 600) pixels, with a clear error otherwise."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise FlexmbsError(f"image size {text!r} must be WIDTHxHEIGHT in pixels, e.g. 1024x768") from None
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise FlexmbsError(f"image size {text!r} must be between 16 and 8192 pixels per side")
    return w, h


def set_view(plotter, view: str, bounds=None) -> None:
    """Camera: ``iso`` (isometric), ``xy`` (looking down -z), ``xz`` (along +y), ``yz`` (along -x)."""
    views = {"iso": plotter.view_isometric, "xy": plotter.view_xy, "xz": plotter.view_xz, "yz": plotter.view_yz}
    if view not in views:
        raise FlexmbsError(f"unknown view {view!r}; use iso, xy, xz or yz")
    views[view]()
    if bounds is not None:
        plotter.reset_camera(bounds=bounds)
        plotter.camera.zoom(1.05)


# ------------------------------------------------------------------------------------- overlay drawn by matplotlib
def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (no display needed; a backend chosen before is kept)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path, dpi: int = 100, **kwargs):
    """Save a matplotlib figure to ``path`` (a name or a binary file) and close it, also when saving fails; no
    ``bbox_inches="tight"``: the picture keeps the figure's pixel size."""
    try:
        fig.savefig(path, dpi=dpi, **kwargs)
    finally:
        pyplot().close(fig)
    return path


def colour_strip(fig, strip: float, colour: dict):
    """A horizontal colour bar in the middle of the strip (height ``strip``, fraction of the figure) at the bottom
    of ``fig``, its title above the bar and its labels below; ``colour``: ``cmap``, ``vmin``, ``vmax``, ``title``."""
    from matplotlib import cm, colors

    cax = fig.add_axes([0.30, 0.45 * strip, 0.40, 0.14 * strip])
    mappable = cm.ScalarMappable(norm=colors.Normalize(colour["vmin"], colour["vmax"]), cmap=colour["cmap"])
    bar = fig.colorbar(mappable, cax=cax, orientation="horizontal")
    bar.ax.tick_params(labelsize=8)
    bar.ax.set_title(colour["title"], fontsize=9, pad=3)
    return bar


STRIP_PX = 96  # height of the strip under the 3D view that holds the colour bar and the scale bar, pixels


LEGEND_PX = 170  # width of the column right of the 3D view that names the bodies, pixels


def view_size(window_size: tuple[int, int], with_strip: bool = True, legend: bool = False) -> tuple[int, int]:
    """Pixel size of the 3D view inside a picture of ``window_size`` (the strip under it holds the colour bar, the
    column right of it, if any, the bodies' legend)."""
    w, h = window_size
    return max(16, w - LEGEND_PX) if legend else w, max(16, h - STRIP_PX) if with_strip else h


def camera_pixels(plotter, points: np.ndarray) -> np.ndarray:
    """Display coordinates (pixels, origin bottom left) of world ``points`` (n, 3) in the plotter's current view."""
    renderer = plotter.renderer
    w, h = renderer.GetSize()
    matrix = renderer.GetActiveCamera().GetCompositeProjectionTransformMatrix(w / h, -1.0, 1.0)
    m = np.array([[matrix.GetElement(i, j) for j in range(4)] for i in range(4)])
    homogeneous = np.column_stack([np.asarray(points, dtype=float), np.ones(len(points))]) @ m.T
    ndc = homogeneous[:, :3] / homogeneous[:, 3:4]
    return np.column_stack([(ndc[:, 0] + 1.0) * 0.5 * w, (ndc[:, 1] + 1.0) * 0.5 * h])


def _nice_length(limit: float) -> float:
    """The largest 1, 2 or 5 × 10^n not above ``limit``."""
    if limit <= 0.0:
        return 0.0
    power = 10.0 ** np.floor(np.log10(limit))
    return max(f * power for f in (1.0, 2.0, 5.0) if f * power <= limit)


def _length_text(metres: float) -> str:
    return f"{metres:g} m" if metres >= 1.0 else f"{metres * 1e3:g} mm"


class Overlay:
    """A picture made of a 3D view (top) and a strip (bottom) drawn by matplotlib: colour bar with its title above
    the bar and its labels below it, a scale bar (parallel projection: one length for the whole picture), an axes
    triad projected from the camera, and a caption. All its text is matplotlib text, so
    :func:`flexmbs.post.viz.layout.overlapping_texts` checks it.

    Parameters
    ----------
    window_size : (width, height), pixels of the whole picture
    colour : dict or None
        ``cmap``, ``vmin``, ``vmax``, ``title`` of the colour bar (None: no colour bar).
    legend : list of (name, colour) or None
        Bodies named in a column right of the 3D view (:func:`view_size` with ``legend=True``).
    """

    def __init__(self, window_size: tuple[int, int], colour: dict | None = None,
                 legend: list[tuple[str, str]] | None = None):
        self.plt = plt = pyplot()
        w, h = window_size
        self.size = (w, h)
        dpi = 100
        self.fig = plt.figure(figsize=(w / dpi, h / dpi), dpi=dpi)
        self.fig.patch.set_facecolor("white")
        strip = STRIP_PX / h
        side = LEGEND_PX / w if legend else 0.0
        self.ax = self.fig.add_axes([0.0, strip, 1.0 - side, 1.0 - strip])
        self.ax.set_axis_off()
        if legend:
            from matplotlib.patches import Patch

            handles = [Patch(facecolor=c, edgecolor="none", label=name) for name, c in legend]
            self.fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0 - side, 1.0 - 30.0 / h),
                            fontsize=8, frameon=False, handlelength=1.2, borderaxespad=0.3)
        self.image = None
        self.caption = self.fig.text(0.01, 0.985, "", va="top", ha="left", fontsize=9)
        self.colourbar = colour_strip(self.fig, strip, colour) if colour else None
        self.triad = []
        self.scale_artists = []

    def set_view(self, image: np.ndarray) -> None:
        """The rendered 3D view, (height, width, 3) uint8."""
        if self.image is None:  # (imshow's limits: the image's pixels edge to edge)
            self.image = self.ax.imshow(image, interpolation="nearest")
        else:
            self.image.set_data(image)

    def set_caption(self, text: str) -> None:
        self.caption.set_text(text)

    def fit_caption(self, smallest: float = 6.0) -> None:
        """Shrink the caption's font until it fits the picture's width."""
        self.fig.canvas.draw()
        renderer = self.fig.canvas.get_renderer()
        size = self.caption.get_fontsize()
        while self.caption.get_window_extent(renderer).x1 > self.size[0] - 2 and size > smallest:
            size -= 0.5
            self.caption.set_fontsize(size)

    def set_scale(self, metres_per_pixel: float) -> None:
        """A scale bar in the strip's left part: a round length of at most 25 % of the picture width."""
        for artist in self.scale_artists:
            artist.remove()
        self.scale_artists = []
        w, h = self.size
        length = _nice_length(0.22 * w * metres_per_pixel)
        if length <= 0.0:
            return
        pixels = length / metres_per_pixel
        x0, y0 = 0.03, 0.42 * STRIP_PX / h
        line = self.fig.add_artist(self.plt.Line2D([x0, x0 + pixels / w], [y0, y0], color="black", linewidth=3,
                                                   transform=self.fig.transFigure))
        text = self.fig.text(x0 + 0.5 * pixels / w, y0 + 6.0 / h, _length_text(length), ha="center", va="bottom",
                             fontsize=8)
        self.scale_artists = [line, text]

    def set_triad(self, camera_right: np.ndarray, camera_up: np.ndarray) -> None:
        """Global x, y, z as arrows in the strip's right part, projected onto the picture plane; an axis that
        points (almost) out of or into the picture is written beside the triad as ``z ⊙`` / ``z ⊗``."""
        for artist in self.triad:
            artist.remove()
        self.triad = []
        w, h = self.size
        centre = np.array([w - 70.0, 0.5 * STRIP_PX])
        reach = 0.34 * STRIP_PX
        aside = []
        normal = np.cross(camera_right, camera_up)
        for k, name in enumerate("xyz"):
            axis = np.eye(3)[k]
            d = np.array([axis @ camera_right, axis @ camera_up])
            if np.linalg.norm(d) < 0.3:
                aside.append(f"{name} {'⊙' if axis @ normal > 0 else '⊗'}")
                continue
            tip = centre + reach * d
            self.triad.append(self.fig.add_artist(self.plt.Line2D(
                [centre[0] / w, tip[0] / w], [centre[1] / h, tip[1] / h], color=("tab:red", "tab:green", "tab:blue")[k],
                linewidth=2, transform=self.fig.transFigure)))
            label = centre + (reach + 9.0) * d / max(np.linalg.norm(d), 1e-9)
            self.triad.append(self.fig.text(label[0] / w, label[1] / h, name, ha="center", va="center",
                                            fontsize=8))
        if aside:
            self.triad.append(self.fig.text((centre[0] + reach + 14.0) / w, centre[1] / h, "\n".join(aside),
                                            ha="left", va="center", fontsize=8))

    def set_camera(self, plotter) -> None:
        """The axes triad and the scale bar of the plotter's current camera (parallel projection)."""
        right, up, metres_per_pixel = camera_axes(plotter)
        self.set_triad(right, up)
        self.set_scale(metres_per_pixel)

    def render(self) -> np.ndarray:
        """The composed picture, (height, width, 3) uint8."""
        self.fig.canvas.draw()
        return np.asarray(self.fig.canvas.buffer_rgba())[:, :, :3].copy()

    def close(self) -> None:
        self.plt.close(self.fig)


def camera_axes(plotter) -> tuple[np.ndarray, np.ndarray, float]:
    """Unit vectors of the picture's right and up directions in world axes, and metres per pixel of the view
    (parallel projection)."""
    camera = plotter.camera
    up = np.asarray(camera.GetViewUp(), dtype=float)
    direction = np.asarray(camera.GetDirectionOfProjection(), dtype=float)
    right = np.cross(direction, up)
    right /= np.linalg.norm(right)
    up = np.cross(right, direction)
    up /= np.linalg.norm(up)
    height = plotter.renderer.GetSize()[1]
    return right, up, 2.0 * camera.GetParallelScale() / height


def fit_parallel(plotter, bounds: list[float], margin: float = 0.04) -> None:
    """Centre the view on the projected bounding box and set the parallel scale so that all its corners are
    inside the picture with ``margin`` (fraction) to spare."""
    from itertools import product

    corners = np.array(list(product(bounds[0:2], bounds[2:4], bounds[4:6])), dtype=float)
    camera = plotter.camera
    right, up, _ = camera_axes(plotter)
    focal = np.asarray(camera.focal_point, dtype=float)
    u, v = (corners - focal) @ right, (corners - focal) @ up
    shift = 0.5 * (u.max() + u.min()) * right + 0.5 * (v.max() + v.min()) * up
    position = np.asarray(camera.position, dtype=float)
    camera.focal_point = tuple(focal + shift)
    camera.position = tuple(position + shift)
    w, h = plotter.renderer.GetSize()
    half_height = max(0.5 * (v.max() - v.min()), 0.5 * (u.max() - u.min()) * h / w)
    camera.parallel_scale = (1.0 + 2.0 * margin) * max(half_height, 1e-6)
