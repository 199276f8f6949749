"""``flexmbs modes``: the VTU holds the stored shape vectors, pictures have the requested size and content."""
from __future__ import annotations

import meshio
import numpy as np
from PIL import Image

from helpers_viz import assert_picture, run_cli


def test_vtu_mode_fields_equal_the_stored_shape_vectors(bar_body, bar_file, tmp_path):
    out = tmp_path / "modes.vtu"
    result = run_cli("modes", bar_file, "--out", out, "--json")
    assert result.exit_code == 0, result.stderr
    mesh = meshio.read(out)
    assert np.array_equal(mesh.points, bar_body.positions)  # geometry unchanged, nodes in file order
    for j in range(bar_body.n_modes):
        # meshio reads the XML back independently of the writer path; exact float64 round trip expected
        np.testing.assert_allclose(mesh.point_data[f"mode_{j + 1:02d}"], bar_body.translations[:, :, j],
                                   rtol=0.0, atol=1e-14 * np.abs(bar_body.translations).max())
    assert np.array_equal(mesh.point_data["node_id"], bar_body.node_ids)
    assert np.array_equal(mesh.cells_dict["triangle"], bar_body.surface)


def test_png_grid_has_requested_size_and_is_not_blank(bar_file, tmp_path):
    out = tmp_path / "modes.png"
    result = run_cli("modes", bar_file, "--mode", 1, "--mode", 3, "--out", out, "--size", "640x360")
    assert result.exit_code == 0, result.stderr
    assert_picture(out, (640, 360))


def test_gif_oscillates_one_mode_with_requested_size(bar_file, tmp_path):
    out = tmp_path / "mode2.gif"
    result = run_cli("modes", bar_file, "--mode", 2, "--out", out, "--size", "320x240")
    assert result.exit_code == 0, result.stderr
    with Image.open(out) as gif:
        assert gif.size == (320, 240)
        assert gif.n_frames == 24
        first = np.asarray(gif.convert("RGB"), dtype=float)
        gif.seek(6)  # a quarter period later: the deformed shape has moved
        quarter = np.asarray(gif.convert("RGB"), dtype=float)
    assert np.abs(first - quarter).mean() > 0.5


def test_title_pairs_reduced_and_full_free_free_frequencies(bar_body):
    import copy

    from flexmbs.post.viz.modes import mode_title

    body = copy.deepcopy(bar_body)
    assert "full FE" not in mode_title(body, 0)  # no full free-free run in the report: reduced frequency only
    body.report["full_free_free_hz"] = np.array([421.6, 431.0])
    body.report["mac"] = np.array([0.9991, 0.98])
    assert mode_title(body, 0) == f"mode 1: {body.frequencies_hz[0]:.1f} Hz (full FE 421.6 Hz, MAC 0.999)"
    assert mode_title(body, 2) == f"mode 3: {body.frequencies_hz[2]:.1f} Hz"


def test_unknown_mode_is_a_one_line_error(bar_body, bar_file, tmp_path):
    result = run_cli("modes", bar_file, "--mode", bar_body.n_modes + 1, "--out", tmp_path / "x.png")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and f"1..{bar_body.n_modes}" in result.stderr
