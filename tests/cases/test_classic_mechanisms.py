"""Redundant constraints (issue 27) on the classic mechanisms, each against an independent reference; the rows are
those of `flexmbs validate` (cases/classic_mechanisms/validation.py: tolerances stated there)."""
import json

import numpy as np
import pytest

import flexmbs as fm
from cases.classic_mechanisms import door, validation
from flexmbs.engine.redundancy import RedundantConstraintWarning


@pytest.mark.parametrize("name, check, quick", validation.CHECKS, ids=[c[0] for c in validation.CHECKS])
def test_classic_mechanism_rows_pass(name, check, quick):
    rows = check(True)
    assert rows and all(r["status"] == "pass" for r in rows), [(r["quantity"], r["value"], r["tolerance"])
                                                                for r in rows if r["status"] != "pass"]


def test_the_door_reports_its_redundant_hinge_in_the_run_output_and_the_results_file(tmp_path):
    out = tmp_path / "door.results.h5"
    with pytest.warns(RedundantConstraintWarning, match=r"joint 'hinge2' equation\(s\) 0, 1, 2, 3, 4 dropped "
                                                        r"\(dependent on 'hinge1'\)"):
        fm.simulate(door.build_door(10.0), 0.1, output=str(out))
    back = fm.load_results(str(out))
    assert back.attributes["redundant_joints"] == "hinge1,hinge2"
    assert "hinge2" in back.attributes["redundant_constraints"]


def test_inconsistent_hinges_fail_with_one_line_naming_both_joints():
    """The second hinge 1 cm off the first one's axis: its dropped equations cannot hold."""
    model = door.build_door(0.0)
    ground_marker = next(m for m in model.markers if m.name == "frame2")
    ground_marker.local_position = ground_marker.local_position + np.array([0.01, 0.0, 0.0])
    with pytest.raises(fm.ModelError, match=r"inconsistent constraints, joint 'hinge2'.*disagrees with 'hinge1' "
                                            r"by -?0\.01") as info:
        fm.simulate(model, 0.1)
    assert "\n" not in str(info.value)


def test_flexmbs_linearize_on_the_two_hinge_door_gives_the_one_hinge_eigenvalues(tmp_path):
    """`flexmbs linearize` from the command line: the pendulum pair −c/(2 I_O) ± i √(m g d / I_O − (c/2I_O)²)."""
    from click.testing import CliRunner

    from flexmbs.cli import main

    result = CliRunner().invoke(main, ["linearize", "classic-mechanisms", "--set", "mechanism=door", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    lam = np.array([complex(v["re"], v["im"]) for v in payload["eigenvalues"]])
    inertia, moment = door.door_pendulum()
    decay = 2.0 / (2.0 * inertia)
    expected = np.array([-decay - 1j * np.sqrt(moment / inertia - decay**2), -decay + 1j * np.sqrt(moment / inertia
                                                                                                  - decay**2)])
    assert np.sort_complex(lam) == pytest.approx(np.sort_complex(expected), rel=1e-6)


def test_rows_that_became_dependent_are_re_chosen_with_the_same_constraint_force():
    """Where the kept rows become dependent, another independent set of the same size takes over and the
    multipliers carry over with the same generalized constraint force Φ_qᵀ λ (to 1e-9 of its size)."""
    from flexmbs.engine.initial import assemble_positions, initial_accelerations
    from flexmbs.engine.redundancy import reselect_rows
    from flexmbs.engine.system import System

    with pytest.warns(RedundantConstraintWarning):
        system = System(door.build_door(20.0))
        q0, v0, z0 = system.initial_state()
        q = assemble_positions(system, q0)
    _, lam, _ = initial_accelerations(system, q, v0, z0)
    before = system.all_constraints(system.context(q, v0, 0.0))[1].T @ system.context(q, v0, 0.0, lam).full_lam
    # pretend the run had kept the second hinge's rows instead of the first's (same count, 6 + 5 rows)
    hinge1, hinge2 = system.joints
    keep = list(range(len(system.bodies))) + list(range(hinge2.offset, hinge2.offset + 5))
    system.row_keep = np.array(keep)
    lam_other = np.linalg.lstsq(system.constraints(system.context(q, v0, 0.0))[1].T, before, rcond=None)[0]
    note, carried = reselect_rows(system, q, v0, 0.0, lam_other)
    assert "re-chosen" in note and "'hinge1'" in note and "'hinge2'" in note
    assert list(system.row_keep) == list(range(len(system.bodies))) + list(range(hinge1.offset, hinge1.offset + 5))
    after = system.constraints(system.context(q, v0, 0.0))[1].T @ carried
    assert after == pytest.approx(before, abs=1e-9 * np.abs(before).max())


def test_a_change_in_the_number_of_independent_equations_is_one_line_naming_the_joints():
    """Bricard's rows checked at a configuration off its mobility manifold (a rod turned by hand): there the six
    loop equations are independent, one more than the engine keeps: a singular position, not a cryptic failure."""
    from flexmbs.engine.initial import assemble_positions
    from flexmbs.engine.redundancy import reselect_rows
    from flexmbs.engine.system import System
    from cases.classic_mechanisms import bricard

    with pytest.warns(RedundantConstraintWarning):
        system = System(bricard.build_model())
        q0, v0, _ = system.initial_state()
        q = assemble_positions(system, q0)
    q = q.copy()
    rod3 = system.bodies[2].offset + 3
    q[rod3:rod3 + 4] += [0.0, 0.05, 0.03, 0.0]  # rod 3 turned by hand: the joint axes leave their special geometry
    q[rod3:rod3 + 4] /= np.linalg.norm(q[rod3:rod3 + 4])
    with pytest.raises(fm.SimulationError, match=r"singular position at t = 0 s: the independent constraint "
                                                 r"equations change from \d+ to \d+ \(joints .*'J5'") as info:
        reselect_rows(system, q, v0, 0.0, np.zeros(system.n_c))
    assert "\n" not in str(info.value)


def test_the_compiled_step_re_chooses_dependent_rows_with_the_same_constraint_force():
    """The compiled run's last resort after a Newton failure (CompiledRun._rows_rechosen, as _Run._newton_failed):
    kept rows that became dependent are replaced by an independent set of the same size in the compiled plan, with
    the same generalized constraint force Φ_qᵀ λ (1e-9 of its size)."""
    import flexmbs.engine.stepping as solver

    runs = []
    start = solver.start_run

    def keep_run(*args, **kwargs):
        run, engine = start(*args, **kwargs)
        runs.append(run)
        return run, engine

    solver.start_run = keep_run
    try:
        with pytest.warns(RedundantConstraintWarning):
            fm.simulate(door.build_door(20.0), 1e-3)
    finally:
        solver.start_run = start
    run = runs[0]
    system = run.system
    assert type(run).__name__ == "CompiledRun"
    s = run.state
    hinge1, hinge2 = system.joints
    ctx = system.context(s.q, s.v, s.t, s.lam)
    before = system.all_constraints(ctx)[1].T @ ctx.full_lam
    other = np.array(list(range(len(system.bodies))) + list(range(hinge2.offset, hinge2.offset + 5)))
    # as if the run had kept the second hinge's rows (the row selection prefers the first hinge's: a set of the
    # same size, so the re-check replaces the kept rows, as where rows become dependent)
    system.row_keep = other
    run.plan.mi[11][:] = other
    lam_other = np.linalg.lstsq(system.constraints(system.context(s.q, s.v, s.t))[1].T, before, rcond=None)[0]
    run.cur[7][:] = lam_other
    run.state.lam = lam_other.copy()
    assert run._rows_rechosen("Newton failed")
    expected = list(range(len(system.bodies))) + list(range(hinge1.offset, hinge1.offset + 5))
    assert list(system.row_keep) == expected and list(run.plan.mi[11]) == expected
    after = system.constraints(system.context(s.q, s.v, s.t))[1].T @ run.cur[7]
    assert after == pytest.approx(before, abs=1e-9 * np.abs(before).max())
    assert "re-chosen" in system.fallback_notes[-1]
