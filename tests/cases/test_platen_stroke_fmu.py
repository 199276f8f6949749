"""Issue 47: the platen stroke's PID through an FMU. The PID of the PID scenarios is a signal of its own
(cases.platen_stroke.controls.StrokePID); exported alone as a co-simulation FMU (pythonfmu, built here) it follows
the closed form of its law, and imported back as the stroke's controller (a block sampled by fm.Run) it closes the
stroke as the built-in PID does, to the sampling error of its communication step: the block sees the speed error one
step late and holds its command over the step (first order in the step)."""
from __future__ import annotations

import math
import os

import numpy as np
import pytest

fmpy = pytest.importorskip("fmpy", reason="the fmi extra: pip install 'flexmbs[fmi]'")
pytest.importorskip("pythonfmu", reason="the fmi extra: pip install 'flexmbs[fmi]'")

import flexmbs as fm  # noqa: E402
from cases.platen_stroke import parameters  # noqa: E402
from cases.platen_stroke.fmu import INPUTS, OUTPUT, export_pid_fmu, fmu_controller  # noqa: E402
from cases.platen_stroke.simulation import build_model, crossing_time  # noqa: E402


@pytest.fixture(scope="module")
def pid_fmu(tmp_path_factory):
    return export_pid_fmu(os.path.join(tmp_path_factory.mktemp("fmu"), "stroke_pid.fmu"))


def test_exported_pid_follows_the_closed_form_of_its_law(pid_fmu):
    """The FMU validates, and with a constant speed error ``e`` from t = 0, on, unsaturated, it gives
    ``u = K_P e + K_P/T_I e t + K_P T_D/T e exp(-t/T)`` (I' = K_P/T_I e, ξ' = (e - ξ)/T, ξ(0) = 0) to 1e-6 V
    (its own run at rtol 1e-8) at every 1 ms step over 50 ms; off, its command follows the tracked value."""
    from fmpy.fmi2 import FMU2Slave
    from fmpy.validation import validate_fmu

    assert validate_fmu(pid_fmu) == []
    md = fmpy.read_model_description(pid_fmu)
    refs = {v.name: v.valueReference for v in md.modelVariables}
    assert [v.name for v in md.modelVariables if v.causality == "input"] == list(INPUTS)
    kp, ti, td, tf = P["pid_gain"], P["pid_integral_time"], P["pid_derivative_time"], P["pid_filter_time"]
    e, h = 0.01, 1e-3
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=fmpy.extract(pid_fmu), modelIdentifier=md.coSimulation.modelIdentifier)
    fmu.instantiate()
    try:
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.setReal([refs["speed_error"], refs["feed_forward"], refs["pid_on"]], [e, 0.0, 1.0])
        fmu.exitInitializationMode()
        errors = []
        for k in range(1, 51):
            fmu.doStep((k - 1) * h, h)
            t = k * h
            exact = kp * e + kp / ti * e * t + kp * td / tf * e * math.exp(-t / tf)
            errors.append(abs(fmu.getReal([refs[OUTPUT]])[0] - exact))
        assert max(errors) < 1e-6, max(errors)
        # off: I' = (track - u)/T_t pulls the command to the tracked value (T_t = 10 ms: 20 time constants)
        fmu.setReal([refs["speed_error"], refs["feed_forward"], refs["pid_on"]], [0.0, -2.5, 0.0])
        for k in range(51, 251):
            fmu.doStep((k - 1) * h, h)
        assert fmu.getReal([refs[OUTPUT]])[0] == pytest.approx(-2.5, abs=1e-6)
        fmu.terminate()
    finally:
        fmu.freeInstance()


def _stroke(res, handles, p):
    """Time grid, travel (m) and stroke time (s from the start of the command) of a run."""
    travel = p["stroke"] + 1.0 - np.asarray(res[f"element/hydraulics/y/{handles['gap'].name}"])
    end = crossing_time(np.asarray(res.time), travel, p["stroke"] - 1e-4)
    return np.asarray(res.time), travel, None if end is None else end - p["start_time"]


P = parameters({"scenario": "close-pid"})
OPTIONS = dict(rtol=P["rtol"], atol=1e-5, max_step=0.02, output_interval=P["output_interval"])
T_END = 5.4  # s: the stroke ends at 5.21 s


@pytest.fixture(scope="module")
def built_in():
    model, handles, _ = build_model(P)
    res = fm.simulate(model, T_END, **OPTIONS)
    assert res.success, res.message
    return _stroke(res, handles, P)


@pytest.mark.parametrize("step, travel_bound, time_bound", [
    (2e-3, 6e-4, 8e-3),  # measured 0.345 mm, +5.0 ms
    pytest.param(1e-3, 3e-4, 4e-3, marks=pytest.mark.slow)])  # measured 0.175 mm, +2.5 ms: first order in the step
def test_platen_stroke_with_the_pid_as_an_fmu_equals_the_built_in_loop(pid_fmu, built_in, step, travel_bound,
                                                                         time_bound):
    """Scenario close-pid, the whole closing stroke (5.11 s) at the case's tolerances, with the exported PID imported
    back as the stroke's controller: the travel equals the built-in loop's within ``travel_bound`` and the stroke
    time within ``time_bound``. The differences are the sampling error of the block (one step of delay and the
    hold: the FMU's stroke is longer by about 2.5 communication steps) and halve with the step: 2 ms gives 0.345 mm
    (1e-4 of the 3.3 m stroke, at the final creep) and +5.0 ms, 1 ms 0.175 mm and +2.5 ms."""
    t0, s0, stroke0 = built_in
    assert stroke0 is not None and 5.0 < stroke0 < 5.2  # the built-in loop's stroke (5.11 s)

    block, command = fmu_controller(pid_fmu, step=step)
    model, handles, _ = build_model(P, controller=command)
    run = fm.Run(model, T_END, **OPTIONS)
    run.advance_to(T_END)
    looped = run.finish()
    assert looped.success, looped.message
    assert looped.statistics["engine"] == "compiled"  # the FMU's output is a slot of the compiled plan
    t1, s1, stroke1 = _stroke(looped, handles, P)
    difference = float(np.max(np.abs(np.interp(t0, t1, s1) - s0)))
    print(f"step {step} s: travel difference {difference} m, stroke times {stroke0} s, {stroke1} s")
    assert stroke1 is not None
    assert difference < travel_bound
    assert abs(stroke1 - stroke0) < time_bound
    assert 2.0 in set(np.asarray(looped["element/hydraulics/controller.phase"]))  # the FMU's PID ran
    assert np.max(np.abs(looped["element/hydraulics/controller.value"])) <= P["command_limit"]
