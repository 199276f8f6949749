"""Off-screen rendering with PyVista/VTK and writing of image sequences (PNG, GIF, MP4).

Headless machines and CI have no X server. VTK ≥ 9.4 wheels pick their OpenGL window at run time (X, EGL,
OSMesa); without ``DISPLAY`` we ask for the EGL window directly (Mesa's surfaceless EGL renders on the CPU), which
also avoids VTK's "bad X server connection" warning. The choice can be overridden with the environment variable
``VTK_DEFAULT_OPENGL_WINDOW`` (e.g. ``vtkOSOpenGLRenderWindow`` where libOSMesa is installed).
"""
from __future__ import annotations

import os
import sys

import numpy as np

from fem.errors import FlexmbsError

__all__ = ["configure_offscreen", "new_plotter", "screenshot", "write_animation", "parse_size", "set_view",
           "IMAGE_SUFFIXES"]

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
    if view == "iso":
        plotter.view_isometric()
    elif view == "xy":
        plotter.view_xy()
    elif view == "xz":
        plotter.view_xz()
    elif view == "yz":
        plotter.view_yz()
    else:
        raise FlexmbsError(f"unknown view {view!r}; use iso, xy, xz or yz")
    if bounds is not None:
        plotter.reset_camera(bounds=bounds)
        plotter.camera.zoom(1.05)
