"""Pictures an engineer trusts (issue 45): no text over other text or cut off, legends off the data, quantities and
units on every axis, joint angles unwrapped, and the README's swinging bar inside the picture for the whole run.

Text boxes come from matplotlib after a full draw (flexmbs.post.viz.layout); the 3D views are checked by projecting
every drawn point through the camera the animation uses.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from flexmbs.post.viz.layout import legends_over_data, overlapping_texts, texts_outside
from flexmbs.post.viz.plots import Series, plot_signals, plot_stress, select_signals, unwrapped


def _assert_clean(fig):
    assert overlapping_texts(fig) == []
    assert texts_outside(fig) == []
    assert legends_over_data(fig) == []


def test_signal_plot_with_many_signals_keeps_text_apart_and_the_legend_off_the_curves(results_file):
    from flexmbs.results.results import load_results

    path, _ = results_file
    results = load_results(path)
    series = select_signals(results, ["body/arm/position", "body/link/position", "body/arm/modal_coordinates",
                                      "joint/pivot/rotation"])
    assert len(series) >= 8  # the 8-entry legend
    fig = plot_signals(results.time, series, window_size=(1000, 600), title=f"{path} viz-test")
    _assert_clean(fig)
    # four stacked axes, one with a long label (modal coordinates [m kg^0.5]), at the default size
    series += select_signals(results, ["body/link/velocity"])
    _assert_clean(plot_signals(results.time, series, window_size=(1000, 600)))
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert "position x, position y [mm]" not in labels  # three components: the quantity, not a list of names
    assert any(label.startswith("position") and label.endswith("[mm]") for label in labels)


def test_a_wrapped_joint_angle_is_unwrapped_to_the_true_angle_and_says_so():
    """A joint turning 1.5 turns is stored on the (-pi, pi] branch; the plotted angle is the true one (to round-off
    of numpy.unwrap) and the name says it was unwrapped; an angular speed is left as it is."""
    t = np.linspace(0.0, 1.0, 400)
    angle = 3.0 * np.pi * t ** 2  # rad, 1.5 turns, no step above pi
    stored = np.angle(np.exp(1j * angle))
    assert np.max(np.abs(np.diff(stored))) > np.pi  # the false jump the issue saw
    shown = unwrapped(Series("joint/pivot/rotation", "rad", stored))
    np.testing.assert_allclose(shown.values, angle, rtol=0.0, atol=1e-12)
    assert shown.name == "joint/pivot/rotation (unwrapped)"
    speed = Series("joint/pivot/angular_velocity", "rad/s", 6.0 * np.pi * t)
    assert unwrapped(speed) is speed
    fig = plot_signals(t, [Series("joint/pivot/rotation", "rad", stored)])
    assert fig.axes[0].get_ylabel() == "rotation [deg]"
    np.testing.assert_allclose(fig.axes[0].get_lines()[0].get_ydata(), np.degrees(angle), atol=1e-9)
    _assert_clean(fig)


def test_stress_plot_keeps_text_apart_and_the_legend_off_the_curves(results_file):
    from flexmbs.post.viz.scene import load_scene
    from flexmbs.post.viz.stress import hotspot, rainflow_summary, stress_history

    path, _ = results_file
    scene = load_scene(path)
    node, _, _ = hotspot(scene, "arm")
    history = stress_history(scene, "arm", node_index=node)
    fig = plot_stress(history, rainflow_summary(history.von_mises), window_size=(1000, 700))
    _assert_clean(fig)
    assert "body axes" in fig.axes[0].get_ylabel()  # the frame of the stress components


def test_study_plot_axes_carry_the_declared_units_and_the_legend_stands_beside():
    from flexmbs.post.viz.study import column_label, plot_study

    frame = pd.DataFrame({"valve_response_time": np.repeat([0.05, 0.09, 0.13], 4),
                          "friction_dynamic": np.tile([0.2, 0.3, 0.42, 0.5], 3)})
    frame["locking_time_s"] = 0.8 + frame["valve_response_time"] + 0.1 * frame["friction_dynamic"]
    frame["peak_bar_force_kN.horizontal"] = 70.0 + 30.0 * frame["friction_dynamic"]
    groups = [(f"friction_dynamic = {v:g}", rows.sort_values("valve_response_time"))
              for v, rows in frame.groupby("friction_dynamic")]
    fig = plot_study(groups, ["locking_time_s", "peak_bar_force_kN.horizontal"], "valve_response_time", False,
                     "clamp-locking: study-valve", "clamp-locking")
    _assert_clean(fig)
    # units: the parameter's from clamp_locking.toml (unit = "s"), the outputs' from their names
    assert fig.axes[-1].get_xlabel() == "valve_response_time [s]"
    assert [ax.get_ylabel() for ax in fig.axes] == ["locking_time_s [s]", "peak_bar_force_kN.horizontal [kN]"]
    assert column_label("fourbar-hydraulic", "torque_M0") == "torque_M0 [N m]"  # declared in Python


@pytest.mark.parametrize("view", ["iso", "xy", "xz", "yz"])
def test_animation_frame_text_never_overlaps(swing_file, view):
    """Caption, colour bar (title above, labels below), scale bar and axes triad, in every camera direction."""
    from flexmbs.post.viz.animate import _Frames
    from flexmbs.post.viz.scene import load_scene

    path, _ = swing_file
    scene = load_scene(path)
    drawing = _Frames(scene, np.arange(scene.time.size), 1.0, (800, 600), view)
    try:
        image = drawing.draw(scene.time.size // 2)
        assert image.shape == (600, 800, 3)
        assert overlapping_texts(drawing.overlay.fig) == []
        assert texts_outside(drawing.overlay.fig) == []
        texts = [t.get_text() for t in drawing.overlay.fig.texts]
        assert any(t.endswith(" mm") or t.endswith(" m") for t in texts)  # the scale bar's length
    finally:
        drawing.close()


def test_swinging_bar_stays_in_the_picture_for_the_whole_run(swing_file):
    """The README's pendulum (prescribed: a 1 m bar swinging from +x through -y to -x): every node of every output
    time projects inside the 3D view, and the motion fills it (the camera is not framed on a larger box). A camera
    framed on the start pose, as before issue 45, loses the bar: the check tells the two apart."""
    from flexmbs.post.viz.animate import _Frames, frame_pixels
    from flexmbs.post.viz.render import camera_pixels, view_size
    from flexmbs.post.viz.scene import load_scene

    path, angles = swing_file
    assert angles[-1] == pytest.approx(-np.pi)
    pixels, (width, height) = frame_pixels(path, window_size=(800, 600))
    assert (width, height) == view_size((800, 600))  # one flexible body: no legend column
    assert pixels[:, 0].min() >= 0.0 and pixels[:, 0].max() <= width
    assert pixels[:, 1].min() >= 0.0 and pixels[:, 1].max() <= height
    assert np.ptp(pixels[:, 0]) > 0.5 * width  # the swing (2 m wide) fills the picture's width
    scene = load_scene(path)
    start_only = _Frames(scene, np.array([0]), 1.0, (800, 600), "iso")
    try:
        points = np.vstack([scene.points("bar", k) for k in range(scene.time.size)])
        old = camera_pixels(start_only.plotter, points)
        assert tuple(start_only.plotter.renderer.GetSize()) == (width, height)
    finally:
        start_only.close()
    outside = (old[:, 0] < 0) | (old[:, 0] > width) | (old[:, 1] < 0) | (old[:, 1] > height)
    assert outside.mean() > 0.2


def test_scale_bar_measures_the_bar(swing_file):
    """Looking along z (parallel projection), the 1 m bar at the bottom of the swing spans 1 m / (metres per pixel)
    pixels, the scale the scale bar is drawn from (1 % for the elastic deflection and the pixel grid)."""
    from flexmbs.post.viz.animate import _Frames
    from flexmbs.post.viz.render import camera_axes, camera_pixels
    from flexmbs.post.viz.scene import load_scene

    path, angles = swing_file
    scene = load_scene(path)
    k = int(np.argmin(np.abs(angles + np.pi / 2)))
    drawing = _Frames(scene, np.arange(scene.time.size), 1.0, (800, 600), "xy")
    try:
        _, _, metres_per_pixel = camera_axes(drawing.plotter)
        points = scene.points("bar", k)
        ends = camera_pixels(drawing.plotter, points[[np.argmin(points[:, 1]), np.argmax(points[:, 1])]])
    finally:
        drawing.close()
    span = points[:, 1].max() - points[:, 1].min()
    assert span == pytest.approx(1.0, rel=0.01)
    assert abs(ends[1, 1] - ends[0, 1]) * metres_per_pixel == pytest.approx(span, rel=0.01)


def test_rigid_bodies_get_distinct_colours_named_in_a_legend_beside_the_view(results_file):
    """The test arm (flexible, stress colours) and its rigid link: the link has a palette colour, named in the
    legend column right of the 3D view, whose text stays inside the picture and off the other text."""
    from flexmbs.post.viz.animate import _Frames, legend_entries
    from flexmbs.post.viz.render import view_size
    from flexmbs.post.viz.scene import load_scene

    path, _ = results_file
    scene = load_scene(path)
    entries = legend_entries(scene)
    assert [name for name, _ in entries] == ["link", "ground"]
    assert len({colour for _, colour in entries}) == len(entries)
    drawing = _Frames(scene, np.arange(scene.time.size), 1.0, (800, 600), "iso")
    try:
        drawing.draw(0)
        assert tuple(drawing.plotter.renderer.GetSize()) == view_size((800, 600), legend=True)
        assert [t.get_text() for t in drawing.overlay.fig.legends[0].get_texts()] == ["link", "ground"]
        assert overlapping_texts(drawing.overlay.fig) == [] and texts_outside(drawing.overlay.fig) == []
    finally:
        drawing.close()


@pytest.mark.parametrize("size, modes", [((800, 500), [1, 2, 3, 4]), ((640, 480), None)])
def test_mode_shape_picture_text_never_overlaps(bar_file, size, modes):
    """The README's picture kind (flexmbs modes … --out modes.png): titles per cell, one colour bar with its title
    above its labels; also six modes in a small picture (titles shrink to their cells)."""
    import matplotlib.pyplot as plt

    from flexmbs.post.viz.modes import modes_figure

    fig = modes_figure(bar_file, modes, window_size=size)
    try:
        assert fig.canvas.get_width_height() == size
        assert overlapping_texts(fig) == [] and texts_outside(fig) == []
    finally:
        plt.close(fig)


def test_overlay_of_still_pictures_fits_a_long_caption(bar_file):
    """The fatigue map's overlay (flexmbs fatigue … PREFIX.png): a caption longer than the picture is shrunk to its
    width; the colour bar's title stays above its labels."""
    from flexmbs.post.viz.render import Overlay

    overlay = Overlay((600, 400), {"cmap": "turbo", "vmin": -18.7, "vmax": -12.8, "title": "log10 damage per pass"})
    try:
        overlay.set_view(np.full((400 - 96, 600, 3), 255, dtype=np.uint8))
        overlay.set_caption("bar_h: max damage 1.47e-13 per pass at node 3145 (magenta ball, 81, -46, -5 mm in the "
                            "body frame), life 6.81e+12 passes")
        overlay.fit_caption()
        overlay.set_scale(0.002)
        overlay.set_triad(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
        assert overlapping_texts(overlay.fig) == [] and texts_outside(overlay.fig) == []
        assert "z ⊙" in [t.get_text() for t in overlay.fig.texts]  # z out of the picture when looking down -z
    finally:
        overlay.close()
