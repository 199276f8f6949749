"""`flexmbs validate` (issue 16): the tests assert on the same row functions the report is made of."""
import json
import sys

import pytest
from click.testing import CliRunner

from flexmbs.catalog.validation import row, run_checks, summary, to_markdown, trend_row


def _by(rows, text):
    return [r for r in rows if text in r["quantity"]]


def test_a_calibrated_row_is_never_a_pass_and_a_failure_stays_a_failure():
    calibrated = row("mode 1", 44.2, 44.2, kind="seed", origin="Table 3-1", unit="Hz", tolerance=0.01,
                     calibrated="section fitted to modes 1-2")
    assert calibrated["status"] == "calibrated" and calibrated["deviation"] == 0.0
    assert row("x", 1.0, 1.2, kind="analytic", origin="f", tolerance=0.1)["status"] == "fail"
    assert row("x", 1.0, 1.05, kind="analytic", origin="f", tolerance=0.1)["status"] == "pass"
    assert trend_row("t", "a > b", "a > b", True, origin="o", calibrated="cushion")["status"] == "calibrated"
    with pytest.raises(ValueError):
        row("x", 1.0, None, kind="seed", origin="o", tolerance=0.1)  # a missing value needs a reason


def test_slider_crank_table_2_3_and_the_link_against_euler_bernoulli():
    from cases.slider_crank.validation import case_link_rows, seed_link_rows

    rows = seed_link_rows()
    # Table 2-3: 0.157/0.314 kg = rho A L/5 (half at the ends), positions 0.1 m apart (exact arithmetic)
    assert all(r["status"] == "pass" for r in _by(rows, "lumped mass") + _by(rows, "position x"))
    # three rigid-body modes of the free-free rebuild: zero within 0.5 Hz (round-off of a singular K)
    assert [r["status"] for r in rows if r["reference"] == 0.0 and "full" in r["quantity"]] == ["pass"] * 3
    link = case_link_rows()
    # reduced link vs the continuous Euler-Bernoulli beam: 1 % (10 elements, shear/rotary inertia neglected)
    assert _by(link, "reduced link")[0]["status"] == "pass"
    assert all(r["status"] == "pass" for r in _by(link, "link mass") + _by(link, "first moment"))


def test_slider_crank_rigid_limit_rows_pass():
    from cases.slider_crank.validation import rigid_limit_rows

    # stiff link vs the rigid mechanism (analytic): position within 10 µm, force peak within 2 %
    assert [r["status"] for r in rigid_limit_rows()] == ["pass", "pass"]


def test_fourbar_rows_equilibrium_area_part_and_eigenvalue_facts():
    from cases.fourbar_hydraulic.validation import eigenvalue_rows, equilibrium_rows

    eq = equilibrium_rows()
    # (A3/A2) p3 is independent of the invented masses: the seed's 2.82 MPa within its printed digits (0.5 %)
    assert _by(eq, "area-ratio")[0]["status"] == "pass"
    # the full p2 is reported as it comes out (the masses are ours) with its cause
    assert "masses" in _by(eq, "equilibrium p1 = p2")[0]["note"]
    rows = eigenvalue_rows()
    # Table 3: two null eigenvalues, lambda6 = -1/tau, overdamped/underdamped per scenario
    assert all(r["status"] == "pass" for r in rows), [r for r in rows if r["status"] != "pass"]


def test_clamp_locking_quick_lists_every_point_of_tables_3_3_and_3_4_without_numbers():
    from cases.clamp_locking.validation import table_3_3_rows, table_3_4_rows

    t33, t34 = table_3_3_rows(quick=True), table_3_4_rows(quick=True)
    assert len(t33) == 30 and len(t34) == 35  # 5 points x 3 bars x 2 columns; 5 x (3 kN + 3 % + locking time)
    assert {r["status"] for r in t33 + t34} == {"not run (quick)"}
    assert all(r["value"] is None for r in t33 + t34)  # never stored numbers


def test_cli_writes_the_report_and_json(tmp_path):
    from flexmbs.cli.app import main

    out = tmp_path / "report.md"
    result = CliRunner().invoke(main, ["validate", "--case", "fourbar-hydraulic", "--quick", "-o", str(out),
                                       "--json"])
    payload = json.loads(result.stdout.strip().splitlines()[-1])
    assert payload["summary"]["pass"] >= 10 and payload["summary"]["calibrated"] == 0
    # exit status 1 exactly when a row fails (the report and the JSON are out first); --no-strict exits 0
    assert result.exit_code == (1 if payload["summary"]["fail"] else 0), result.output
    lenient = CliRunner().invoke(main, ["validate", "--case", "fourbar-hydraulic", "--quick", "--json", "--no-strict"])
    assert lenient.exit_code == 0, lenient.output
    assert "fourbar-hydraulic" in out.read_text()
    listed = CliRunner().invoke(main, ["cases", "slider-crank"])
    assert listed.exit_code == 0 and "link_length" in listed.output


def test_platen_linear_model_rows_reproduce_the_printed_numbers():
    from cases.platen_stroke.validation import linear_rows

    rows = linear_rows()
    # eq. (4-7)..(4-14) and appendix D from the printed parameters, within the printed digits (0.2-1 %)
    assert len(rows) == 25 and all(r["status"] == "pass" for r in rows), [r for r in rows if r["status"] != "pass"]


def test_compactor_static_rows_match_the_moment_balance():
    from cases.compactor.validation import static_rows

    # estimate vs W_f = (m_unit + m_ch a/D) g within 1e-6 (two 1e-3 kg virtual links); no longitudinal load
    assert [r["status"] for r in static_rows()] == ["pass", "pass"]


@pytest.mark.slow
def test_excavator_rows_energy_and_digging_facts():
    from cases.excavator.validation import digging_rows, free_fall_rows

    # energy drift < 1e-3 of the potential-energy change (rtol 1e-4); boom fixed, windows, relief bound
    assert [r["status"] for r in free_fall_rows()] == ["pass"]
    assert all(r["status"] == "pass" for r in digging_rows() if r["kind"] == "trend")


@pytest.mark.slow
def test_clamp_locking_bar_rows_and_the_quick_report():
    from cases.clamp_locking.validation import bar_frequency_rows

    rows = bar_frequency_rows()
    assert {r["status"] for r in rows if "modes 1-2" in r["note"]} == {"calibrated"}
    # our reduction vs our full FE model: first 7 modes within 1 %
    assert all(r["status"] == "pass" for r in rows if r["kind"] == "full FE")


@pytest.mark.slow
def test_full_validation_report_runs_every_check():
    from flexmbs.cli.validate import _registry

    rows = run_checks(_registry()[0](), quick=False)
    counts = summary(rows)
    assert counts["not run (quick)"] == 0
    assert "Table 3-3" in to_markdown(rows, {"quick": False})


@pytest.mark.parametrize("name", ["excavator", "clamp-locking", "fourbar-hydraulic", "slider-crank", "platen-stroke",
                                  "compactor", "machine-creeping", "spin-up-beam", "nafems-free-vibration"])
def test_every_parameter_of_the_landed_cases_has_its_provenance(name):
    from cases import PROVENANCE, get_case
    from flexmbs.cli.validate import parameter_table

    table = parameter_table(get_case(name))
    assert {item["provenance"] for item in table} <= set(PROVENANCE)
    assert all(item["source"] for item in table)  # seed line/table, formula, reason or fitted target
    calibrated = [item for item in table if item["provenance"] == "calibrated"]
    assert all("seed" in item["source"] for item in calibrated)  # names the ONE seed result it was fitted to


def test_spin_up_beam_southwell_rows_pass():
    from cases.spin_up_beam.validation import southwell_rows, spin_up_rows

    # the rotating cantilever's first in- and out-of-plane frequencies: Southwell law within 2 %
    assert [r["status"] for r in southwell_rows()] == ["pass"] * 4
    assert {r["status"] for r in spin_up_rows(quick=True)} == {"not run (quick)"}


def test_validate_exits_1_on_a_failed_row_and_0_without(monkeypatch):
    import types

    from flexmbs.catalog.validation import row
    from flexmbs.cli import validate as validate_cli
    from flexmbs.cli.app import main

    def make_case(value):
        checks = types.ModuleType("fake_case.validation")
        checks.CHECKS = [("unit circle", lambda quick: [row("circumference / diameter", 3.14159265, value,
                                                            kind="analytic", origin="pi", tolerance=1e-6)], True)]
        module = types.ModuleType("fake_case")
        monkeypatch.setitem(sys.modules, "fake_case.validation", checks)
        return module

    for value, code in ((3.0, 1), (3.14159265, 0)):
        case = make_case(value)
        monkeypatch.setattr(validate_cli, "_registry", lambda case=case: (lambda: {"fake": case}, lambda n: case))
        result = CliRunner().invoke(main, ["validate"])
        assert result.exit_code == code, result.output
        assert ("FAIL fake" in result.output) == (code == 1)


def test_case_parameters_print_a_header_and_a_unit_for_every_number():
    from flexmbs.catalog.registry import case_registry
    from flexmbs.cli.app import main
    from flexmbs.cli.validate import parameter_table

    # every numeric parameter of every case declares its unit (SI), so `flexmbs cases CASE` can print it
    missing = [(name, r["key"]) for name, module in case_registry().items() for r in parameter_table(module)
               if not r["unit"] and isinstance(r["value"], (int, float)) and not isinstance(r["value"], bool)]
    assert missing == []
    listed = CliRunner().invoke(main, ["cases", "excavator"])
    lines = listed.output.splitlines()
    assert listed.exit_code == 0 and lines[0].split()[:4] == ["parameter", "value", "unit", "--set"]
    assert any(l.split()[:3] == ["pressure_atol", "1000", "Pa"] for l in lines)
    # physical switches are not described as integrator settings
    assert not any(l.split()[0] in ("scenario", "mesh_size") and "integrator" in l for l in lines[1:])
