"""``flexmbs stress``: modal superposition of stress, von Mises and principal stresses, hot spot, rainflow."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from helpers_viz import (ARM_MODES, MODAL_DIRECTION, PEAK_SAMPLE, PLANTED_OUTPUT, assert_picture, envelope,
                         run_cli)


def test_von_mises_and_principal_stresses_against_invariant_formulas(rng):
    from flexmbs.post.viz.scene import von_mises
    from flexmbs.post.viz.stress import principal_stresses

    s = rng.normal(size=(50, 6)) * 1e7
    principal = principal_stresses(s)
    # independent reference: von Mises from the principal stresses; principal stresses from numpy's eig
    s1, s2, s3 = principal.T
    np.testing.assert_allclose(von_mises(s), np.sqrt(0.5 * ((s1 - s2) ** 2 + (s2 - s3) ** 2 + (s3 - s1) ** 2)),
                               rtol=1e-10)
    xx, yy, zz, yz, xz, xy = s[0]
    eig = np.sort(np.linalg.eigvals(np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])).real)[::-1]
    np.testing.assert_allclose(principal[0], eig, rtol=1e-10, atol=1e-3)
    assert von_mises(np.array([0, 0, 0, 0, 0, 5e6])) == pytest.approx(np.sqrt(3) * 5e6, rel=1e-14)  # pure shear


def test_hotspot_finds_the_planted_node_and_time(results_file, planted):
    from flexmbs.post.viz.stress import hotspot

    path, _ = results_file
    body, peak_per_envelope = planted
    node, sample, value = hotspot(path, "arm")
    assert node == int(body.output_nodes[PLANTED_OUTPUT])
    assert sample == PEAK_SAMPLE
    t = np.linspace(0.0, 0.58, 30)
    assert value == pytest.approx(peak_per_envelope * abs(envelope(t)[PEAK_SAMPLE]), rel=1e-10)


def test_history_at_planted_node_is_the_uniaxial_superposition(results_file, planted, bar_file):
    from flexmbs.post.viz.scene import load_scene
    from flexmbs.post.viz.stress import attach_flexbody, stress_history

    path, info = results_file
    body, peak_per_envelope = planted
    scene = load_scene(path)
    attach_flexbody(scene, "arm", bar_file)  # mesh node ids come from the FlexBody file
    node_id = int(body.node_ids[body.output_nodes[PLANTED_OUTPUT]])
    history = stress_history(scene, "arm", node=node_id)
    sxx = peak_per_envelope * info["envelope"]  # σxx = A Σ_j |v_j| g(t), all other components zero
    np.testing.assert_allclose(history.components[:, 0], sxx, rtol=1e-12)
    np.testing.assert_allclose(history.components[:, 1:], 0.0, atol=1e-9 * abs(sxx).max())
    np.testing.assert_allclose(history.von_mises, np.abs(sxx), rtol=1e-12)
    np.testing.assert_allclose(history.principal[:, 0], np.maximum(sxx, 0.0), atol=1e-9 * abs(sxx).max())
    np.testing.assert_allclose(history.principal[:, 2], np.minimum(sxx, 0.0), atol=1e-9 * abs(sxx).max())
    assert history.node_id == node_id


def test_history_of_an_ordinary_node_is_modal_stress_times_modal_coordinates(results_file, bar_body):
    from flexmbs.post.viz.stress import stress_history

    path, info = results_file
    node = int(bar_body.output_nodes[3])
    history = stress_history(path, "arm", node_index=node)
    q = np.outer(info["envelope"], MODAL_DIRECTION)  # prescribed modal coordinates
    expected = np.einsum("cj,tj->tc", bar_body.modal_stress[3][:, ARM_MODES], q)  # from the reduction itself
    np.testing.assert_allclose(history.components, expected, rtol=1e-12, atol=1e-12 * abs(expected).max())


def test_rainflow_summary_reproduces_the_astm_e1049_example():
    from flexmbs.post.viz.stress import rainflow_summary

    # ASTM E1049-85 Fig. 6 / Table 4: ranges 3 (0.5), 4 (1.5), 6 (0.5), 8 (1.0), 9 (0.5)
    summary = rainflow_summary(np.array([-2.0, 1.0, -3.0, 5.0, -1.0, 3.0, -4.0, 4.0, -2.0]), n_bins=9)
    counts = {}
    for rng_, _, count in summary["cycles"]:
        counts[rng_] = counts.get(rng_, 0.0) + count
    assert counts == {3.0: 0.5, 4.0: 1.5, 6.0: 0.5, 8.0: 1.0, 9.0: 0.5}
    assert summary["total_cycles"] == 4.0 and summary["max_range"] == 9.0
    np.testing.assert_array_equal(summary["bin_counts"], [0, 0, 0.5, 1.5, 0, 0.5, 0, 1.0, 0.5])


def test_cli_hotspot_csv_and_png(results_file, planted, tmp_path):
    path, info = results_file
    body, peak_per_envelope = planted
    out = tmp_path / "hot.csv"
    result = run_cli("stress", path, "--body", "arm", "--hotspot", "--out", out, "--json")
    assert result.exit_code == 0, result.stderr
    import json

    payload = json.loads(result.stdout)
    assert payload["node_index"] == int(body.output_nodes[PLANTED_OUTPUT])
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    data = np.array(rows[1:], dtype=float)
    assert rows[0][7] == "von_mises [Pa]"
    np.testing.assert_allclose(data[:, 7], peak_per_envelope * np.abs(info["envelope"]), rtol=1e-12)
    png = tmp_path / "hot.png"
    result = run_cli("stress", path, "--body", "arm", "--hotspot", "--out", png, "--size", "700x500")
    assert result.exit_code == 0, result.stderr
    assert_picture(png, (700, 500))


def test_node_that_is_not_an_output_node_names_the_output_nodes(results_file, bar_body, bar_file, tmp_path):
    path, _ = results_file
    reference_id = int(bar_body.node_ids[bar_body.interface("end_a").node])  # a reference node: no stress output
    result = run_cli("stress", path, "--body", "arm", "--node", reference_id, "--flex", bar_file,
                     "--out", tmp_path / "x.csv")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    first_ids = ", ".join(str(int(i)) for i in bar_body.node_ids[bar_body.output_nodes[:3]])
    assert "not an output node" in result.stderr and first_ids in result.stderr


def test_node_id_from_the_results_alone(results_file, planted, tmp_path):
    # the results store the mesh node ids, so --node takes the id as printed, without --flex
    path, info = results_file
    body, peak_per_envelope = planted
    node_id = int(body.node_ids[body.output_nodes[PLANTED_OUTPUT]])
    out = tmp_path / "x.csv"
    result = run_cli("stress", path, "--body", "arm", "--node", node_id, "--out", out)
    assert result.exit_code == 0, result.stderr
    sxx = np.loadtxt(out, delimiter=",", skiprows=1)[:, 1]
    # σxx = A Σ_j |v_j| g(t) at the planted node, by construction of the fixture (CSV keeps 10 digits)
    np.testing.assert_allclose(sxx, peak_per_envelope * info["envelope"], rtol=1e-8, atol=1e-6)


def test_rigid_body_has_no_stress(results_file, tmp_path):
    path, _ = results_file
    result = run_cli("stress", path, "--body", "link", "--hotspot", "--out", tmp_path / "x.csv")
    assert result.exit_code == 2 and "flexible body" in result.stderr
