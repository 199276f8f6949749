"""``flexmbs stress --hotspot --top`` and ``flexmbs fatigue`` on a results file whose body has a surface stress field
(written by the core's Recorder with prescribed motion), against brute-force and ``rainflow``-package references."""
from __future__ import annotations

import csv
import json

import meshio
import numpy as np
import pytest
import rainflow

from fem.mesh import load_mesh
from fem.meshing import bar_mesh
from fem.model import solid_model
from helpers_viz import ARM_MODES, assert_picture, run_cli, write_results


@pytest.fixture(scope="module")
def field_run(tmp_path_factory):
    """The viz bar reduced with its default surface stress field, moved by the prescribed history."""
    from reduction.reduce import reduce

    folder = tmp_path_factory.mktemp("durab_cli")
    mesh = load_mesh(bar_mesh(str(folder / "bar.msh"), size=0.05, order=1))
    model = solid_model(mesh, "steel")
    model.add_reference_node("end_a", model.select("box:-0.001,-1,-1,0.001,1,1"), "rbe2")
    model.add_reference_node("end_b", model.select("box:0.999,-1,-1,1.001,1,1"), "rbe2")
    body = reduce(model, ["end_a", "end_b"], 4, name="bar", compare_modes=0)
    path = str(folder / "arm.results.h5")
    info = write_results(body, path)
    q = np.array([[0.8, -0.5, 0.3]]) * info["envelope"][:, None]  # helpers_viz: q(t) = envelope(t) · direction
    sigma = np.einsum("pcj,tj->ptc", body.stress_field.modal_stress[:, :, ARM_MODES].astype(float), q)
    return body, path, info, sigma


def _von_mises(s):
    xx, yy, zz, yz, xz, xy = np.moveaxis(s, -1, 0)
    return np.sqrt(0.5 * ((xx - yy) ** 2 + (yy - zz) ** 2 + (zz - xx) ** 2) + 3 * (yz**2 + xz**2 + xy**2))


def test_hotspot_table_is_the_brute_force_ranking(field_run, tmp_path):
    body, path, info, sigma = field_run
    result = run_cli("stress", path, "--body", "arm", "--hotspot", "--top", "4", "--out", tmp_path / "h.csv",
                     "--json")
    assert result.exit_code == 0, result.stderr
    top = json.loads(result.stdout)["hotspot"]["top"]
    vm = _von_mises(sigma)  # (n, n_t): independent einsum over every surface node and sample
    order = np.argsort(-vm.max(axis=1))[:4]
    ids = body.node_ids[body.stress_field.nodes[order]]
    assert [t["node_id"] for t in top] == [int(i) for i in ids]
    np.testing.assert_allclose([t["von_mises_max_pa"] for t in top], vm.max(axis=1)[order], rtol=1e-9)
    assert top[0]["time_of_max_s"] == pytest.approx(info["time"][np.argmax(vm[order[0]])])


def test_fatigue_writes_table_vtu_and_picture_matching_rainflow_and_basquin(field_run, tmp_path):
    body, path, _, sigma = field_run
    prefix = str(tmp_path / "arm_fatigue")
    result = run_cli("fatigue", path, "--body", "arm", "--sn", "k=5,sd=50MPa,nd=1e6,rm=400MPa", "--out", prefix,
                     "--json")
    assert result.exit_code == 0, result.stderr
    with open(prefix + ".csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == body.stress_field.nodes.size
    first = rows[0]
    k = int(np.flatnonzero(body.node_ids[body.stress_field.nodes] == int(first["node_id"]))[0])
    # independent reference for that node: signed von Mises with numpy's eigenvalues, the rainflow package,
    # Goodman and Basquin by hand
    s = sigma[k]
    tensor = np.zeros((s.shape[0], 3, 3))
    for c, (i, j) in enumerate([(0, 0), (1, 1), (2, 2), (1, 2), (0, 2), (0, 1)]):
        tensor[:, i, j] = tensor[:, j, i] = s[:, c]
    eig = np.linalg.eigvalsh(tensor)
    signed = np.where(eig[:, 2] + eig[:, 0] >= 0, 1.0, -1.0) * _von_mises(s)
    damage = 0.0
    for rng_, mean, count, _, _ in rainflow.extract_cycles(signed):
        amplitude = 0.5 * rng_ / (1 - mean / 400e6) if mean > 0 else 0.5 * rng_
        damage += count / (1e6 * (amplitude / 50e6) ** -5)
    assert float(first["damage [1]"]) == pytest.approx(damage, rel=1e-6)  # CSV keeps 9 digits
    assert float(first["life [repeats]"]) == pytest.approx(1.0 / damage, rel=1e-6)
    vtu = meshio.read(prefix + ".vtu")
    assert np.isfinite(vtu.point_data["damage"]).all() and vtu.point_data["damage"].max() == pytest.approx(
        float(first["damage [1]"]), rel=1e-6)
    assert_picture(prefix + ".png", (1200, 800))


def test_fatigue_errors_are_one_line(field_run, tmp_path):
    _, path, _, _ = field_run
    rigid = run_cli("fatigue", path, "--body", "link", "--out", tmp_path / "x")
    assert rigid.exit_code == 2 and "flexible body" in rigid.stderr and rigid.stderr.count("\n") == 1
    bad = run_cli("fatigue", path, "--body", "arm", "--sn", "k=5", "--out", tmp_path / "x")
    assert bad.exit_code == 2 and "positive k, sd, nd and rm" in bad.stderr
