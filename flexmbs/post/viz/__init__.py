"""Looking at flexible bodies and simulation results: mode shapes, animations, signal and stress histories.

The Python API behind ``flexmbs modes | animate | plot | stress`` (for scripts and notebooks; a tour:
docs/visualization.md, "Python API"). Rendering is off screen by default
(:func:`flexmbs.post.viz.render.configure_offscreen`); pass ``off_screen=False`` to the ``plot_*`` functions for an
interactive window.
"""
from .animate import animate, frame_arrays, frame_picture, frame_pixels, plot_frame, write_pvd
from .layout import legends_over_data, overlapping_texts, texts_outside
from .modes import plot_mode, plot_modes, save_modes_png, write_mode_gif, write_modes_vtu
from .plots import plot_signals, plot_stress, select_signals, write_signals_csv, write_stress_csv
from .render import configure_offscreen
from .scene import MachineScene, as_scene, load_scene, von_mises
from .stress import StressHistory, hotspot, principal_stresses, rainflow_summary, stress_history

__all__ = [
    "plot_mode", "plot_modes", "save_modes_png", "write_mode_gif", "write_modes_vtu",
    "load_scene", "as_scene", "MachineScene", "plot_frame", "frame_picture", "frame_pixels", "animate", "write_pvd",
    "frame_arrays", "overlapping_texts", "texts_outside", "legends_over_data",
    "select_signals", "plot_signals", "write_signals_csv",
    "stress_history", "hotspot", "principal_stresses", "rainflow_summary", "StressHistory", "von_mises",
    "plot_stress", "write_stress_csv", "configure_offscreen",
]
