"""``flexmbs plot``: CSV columns equal the stored signals; names resolve with components; helpful errors."""
from __future__ import annotations

import csv

import h5py
import numpy as np

from helpers_viz import assert_picture, run_cli


def _read_csv(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], np.array(rows[1:], dtype=float)


def test_csv_matches_the_stored_signals(results_file, tmp_path):
    path, _ = results_file
    out = tmp_path / "signals.csv"
    result = run_cli("plot", path, "signals/marker/b/position", "body/arm/modal_coordinates/q2",
                     "body/link/position/y", "--out", out)
    assert result.exit_code == 0, result.stderr
    header, data = _read_csv(out)
    with h5py.File(path, "r") as f:  # the file as the core wrote it, read without flexmbs
        time = f["time"][()]
        marker = f["signals/marker/b/position"][()]
        modal = f["signals/body/arm/modal_coordinates"][()]
        link = f["signals/body/link/position"][()]
    assert header == ["time [s]", "marker/b/position/x [m]", "marker/b/position/y [m]", "marker/b/position/z [m]",
                      "body/arm/modal_coordinates/q2 [m kg^0.5]", "body/link/position/y [m]"]
    np.testing.assert_array_equal(data[:, 0], time)  # repr() round trip is exact for float64
    np.testing.assert_array_equal(data[:, 1:4], marker)
    np.testing.assert_array_equal(data[:, 4], modal[:, 1])
    np.testing.assert_array_equal(data[:, 5], link[:, 1])


def test_png_has_requested_size(results_file, tmp_path):
    path, _ = results_file
    out = tmp_path / "signals.png"
    result = run_cli("plot", path, "marker/b/position", "joint/pivot/rotation", "--out", out, "--size", "800x500")
    assert result.exit_code == 0, result.stderr
    assert_picture(out, (800, 500))


def test_unknown_signal_lists_close_matches(results_file, tmp_path):
    path, _ = results_file
    result = run_cli("plot", path, "marker/b/positon", "--out", tmp_path / "x.csv")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "marker/b/position" in result.stderr


def test_unknown_component_lists_the_components(results_file, tmp_path):
    path, _ = results_file
    result = run_cli("plot", path, "marker/b/position/w", "--out", tmp_path / "x.csv")
    assert result.exit_code == 2 and "x, y, z" in result.stderr


def test_plot_units_are_engineering_units():
    from flexmbs.post.viz.plots import display_unit

    assert display_unit("Pa") == ("bar", 1e-5)
    assert display_unit("N") == ("kN", 1e-3)
    assert display_unit("m") == ("mm", 1e3)
