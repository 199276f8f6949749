"""``flexmbs animate``: PVD series (one VTU per output time, deformed positions) and rendered animations."""
from __future__ import annotations

import re

import meshio
import numpy as np
from PIL import Image

from helpers_viz import ARM_MODES, MODAL_DIRECTION, N_SAMPLES, assert_picture, run_cli


def test_pvd_has_one_vtu_per_output_time_with_deformed_bodies(results_file, bar_body, tmp_path):
    path, info = results_file
    out = tmp_path / "anim.pvd"
    scale = 50.0
    result = run_cli("animate", path, "--out", out, "--scale", scale)
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    files = re.findall(r'file="([^"]+)"', text)
    times = [float(t) for t in re.findall(r'timestep="([^"]+)"', text)]
    assert len(files) == N_SAMPLES == len(set(files))
    np.testing.assert_allclose(times, info["time"], rtol=0, atol=0)
    n_arm = bar_body.positions.shape[0]
    counts = set()
    for k in (0, 17, N_SAMPLES - 1):
        mesh = meshio.read(tmp_path / files[k])
        counts.add(mesh.points.shape[0])
        arm = mesh.points[:n_arm]  # body 0 is the arm: its nodes first, in FlexBody order
        u = bar_body.translations[:, :, ARM_MODES] @ (info["envelope"][k] * MODAL_DIRECTION)
        expected = (bar_body.positions + scale * u) @ info["rotation"][k].T  # x = A (s + scale S q), r = 0
        np.testing.assert_allclose(arm, expected, atol=1e-12)
        assert np.all(mesh.point_data["body"][:n_arm] == 0)
        stressed = np.isfinite(mesh.point_data["von_mises"][:n_arm])
        assert np.array_equal(np.flatnonzero(stressed), np.sort(bar_body.output_nodes))
    from flexmbs.post.viz.scene import load_scene

    drawn = {b.name: b.points.shape[0] for b in load_scene(path).bodies}
    assert set(drawn) == {"arm", "link", "ground"} and drawn["arm"] == n_arm
    assert counts == {sum(drawn.values())}  # every file: arm nodes + link shape + ground anchor


def test_gif_has_one_frame_per_output_time_up_to_max_frames(results_file, tmp_path):
    path, _ = results_file
    out = tmp_path / "anim.gif"
    result = run_cli("animate", path, "--out", out, "--scale", 100, "--size", "400x300", "--max-frames", 12)
    assert result.exit_code == 0, result.stderr
    with Image.open(out) as gif:
        assert gif.size == (400, 300) and gif.n_frames == 12
        gif.seek(11)
        last = np.asarray(gif.convert("RGB"))
    assert last.std() > 10.0


def test_plot_frame_api_renders_a_picture(results_file, tmp_path):
    from flexmbs.post.viz import plot_frame

    path, _ = results_file
    plotter = plot_frame(path, 17, scale=100.0, window_size=(500, 400))
    out = tmp_path / "frame.png"
    plotter.screenshot(str(out))
    plotter.close()
    assert_picture(out, (500, 400))


def test_wrong_suffix_is_a_one_line_error(results_file, tmp_path):
    path, _ = results_file
    result = run_cli("animate", path, "--out", tmp_path / "x.avi")
    assert result.exit_code == 2 and ".gif, .mp4, .pvd" in result.stderr


def test_mp4_has_the_requested_frames(results_file, tmp_path):
    import imageio.v2 as imageio  # the `video` extra, part of the `test` extra

    path, _ = results_file
    out = tmp_path / "anim.mp4"
    result = run_cli("animate", path, "--out", out, "--size", "320x240", "--max-frames", 5, "--fps", 5)
    assert result.exit_code == 0, result.stderr
    with imageio.get_reader(out) as reader:
        frames = [frame for frame in reader]
    assert len(frames) == 5 and frames[0].shape[:2] == (240, 320)


def test_frame_element_bodies_are_drawn_as_node_chains():
    from flexmbs.post.viz.scene import node_chain

    along = np.column_stack([np.linspace(0.0, 0.5, 11), np.zeros(11), np.zeros(11)])
    np.testing.assert_array_equal(node_chain(along), np.column_stack([np.arange(10), np.arange(1, 11)]))
    scattered = along[[0, 10, 1, 9, 2]]  # jumps back and forth: not a chain, drawn as points
    assert node_chain(scattered).size == 0
