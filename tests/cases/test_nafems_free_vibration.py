"""NAFEMS free-vibration benchmarks as `flexmbs validate` rows (cases/nafems_free_vibration, issue 29): the tests
assert on the same row functions as the report. References: NAFEMS R0015 targets (see the case's benchmarks.py);
physics of the deviations as stated per test."""
import numpy as np
import pytest

from cases.nafems_free_vibration.validation import benchmark_rows


def _dev(rows):
    return np.array([r["deviation"] for r in rows])


def test_fv32_rows_pass():
    """FV32, cantilevered tapered membrane, 16 × 8 × 1 hexahedra of 27 nodes: all six modes within 1 % (measured
    ≤ 0.007 %)."""
    rows = benchmark_rows("fv32")
    assert len(rows) == 6 and all(r["status"] == "pass" for r in rows), rows


def test_fv52_solid_supports():
    """FV52 with the 3D hard simple support (u_z and tangential u on the side faces, the support of the thick-plate
    target), 20 × 20 × 2: the four bending modes within 1 % (measured +0.2 … +0.6 %). With NAFEMS's line support of
    the bottom edges, a subset of those constraints, the bending modes lie below the target (Rayleigh: fewer
    constraints, lower frequencies; measured −3.3 … −5.3 %, so these rows fail the 1 % tolerance) and the three
    in-plane modes (NAFEMS modes 8-10) are within 1 % (measured ≤ 0.05 %)."""
    hard = benchmark_rows("fv52-hard")
    assert [r["status"] for r in hard] == ["pass"] * 4
    line = benchmark_rows("fv52")
    assert np.all(_dev(line[:4]) < 0.0) and [r["status"] for r in line[4:]] == ["pass"] * 3
    assert all("line support" in r["note"] for r in line[:4])


def test_fv22_solid_clamp_is_stiffer_than_the_plate_clamp():
    """FV22, clamped thick rhombic plate, 20 × 20 × 2: the solid clamped on its side faces is stiffer than the
    thick plate's clamp (all five modes above the targets) and within 2.5 % (measured +0.7 … +2.4 %)."""
    dev = _dev(benchmark_rows("fv22"))
    assert dev.size == 5 and np.all(dev > 0.0) and np.all(dev < 0.025), dev


@pytest.mark.slow
def test_fv12_rows():
    """FV12, free thin plate, 40 × 40 × 1 (59 049 dofs, ~40 s): NAFEMS modes 4-6 and 9 within 1 % (measured
    −0.10 … −0.75 %); the pair 7-8 lies 1.07 % below NAFEMS's 4.233 Hz (a fail at 1 %) and 0.06 % below Leissa's
    Kirchhoff value 4.190 Hz, which the row's note states."""
    rows = benchmark_rows("fv12", quick=False)
    assert [r["status"] for r in rows] == ["pass", "pass", "pass", "fail", "fail", "pass"], rows
    for r in rows[3:5]:
        assert r["value"] == pytest.approx(4.190, rel=1e-3) and "Leissa" in r["note"]
