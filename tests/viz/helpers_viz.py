"""Small checks shared by the visualization tests."""
from __future__ import annotations

import numpy as np
from click.testing import CliRunner

PLANTED_OUTPUT = 7  # position in output_nodes of the node with the planted stress (the 8th output node)
PEAK_SAMPLE = 17  # the modal amplitude envelope peaks at this output sample
N_SAMPLES = 30
ARM_MODES = [0, 2, 3]  # modes of the FlexBody kept in the simulation (tests the mode_indices slicing)
MODAL_DIRECTION = np.array([0.8, -0.5, 0.3])  # q(t) = envelope(t) * MODAL_DIRECTION, m kg^0.5
OMEGA_Z = 0.6  # rad/s, prescribed rotation of the arm frame about global z


def envelope(t: np.ndarray) -> np.ndarray:
    """Scalar history of the modal amplitude: a sine whose largest magnitude is at sample PEAK_SAMPLE."""
    t_peak = t[PEAK_SAMPLE]
    return 1e-4 * np.exp(-((t - t_peak) / 0.1) ** 2) * np.cos(40.0 * (t - t_peak))


def _rotation_z(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def write_results(body, path: str) -> dict:
    """A results file from the core's Recorder with prescribed motion: arm frame at the origin turning about z at
    OMEGA_Z, elastic coordinates envelope(t) · MODAL_DIRECTION; a rigid link translating along y."""
    import flexmbs as fm
    from flexmbs.engine.recorder import Recorder
    from flexmbs.engine.system import System

    model = fm.Model("viz-test")
    arm = model.add_flexible_body("arm", body, modes=ARM_MODES)
    link = model.add_rigid_body("link", 3.0, (0.01, 0.01, 0.01), position=(1.2, 0.0, 0.0))
    pivot = model.add_marker(model.ground, "pivot")
    a = model.add_marker(arm, "a", node="end_a")
    model.add_marker(arm, "b", node="end_b")
    model.add_marker(link, "c", position=(-0.2, 0.0, 0.0))
    model.add_marker(link, "d", position=(0.2, 0.0, 0.0))
    model.add_joint("revolute", pivot, a, name="pivot")
    system = System(model)
    recorder = Recorder(system, path, {"case": "viz-test"}, flush_every=7)
    q0, v0, z0 = system.initial_state()
    time = np.linspace(0.0, 0.58, N_SAMPLES)
    g = envelope(time)
    lam = np.zeros(system.n_c)
    for t, amp in zip(time, g):
        q = q0.copy()
        angle = OMEGA_Z * t
        q[arm.offset:arm.offset + 3] = 0.0
        q[arm.offset + 3:arm.offset + 7] = [np.cos(angle / 2), 0.0, 0.0, np.sin(angle / 2)]
        q[arm.offset + 7:arm.offset + 7 + len(ARM_MODES)] = amp * MODAL_DIRECTION
        q[link.offset + 1] = 0.1 * t
        recorder.record(t, q, v0, z0, lam, {"step_size": 1e-3, "newton_iterations": 2.0,
                                            "constraint_violation": 0.0})
    recorder.finish("finished", "prescribed motion", {"steps": N_SAMPLES})
    return {"time": time, "envelope": g, "rotation": [_rotation_z(OMEGA_Z * t) for t in time]}


def run_cli(*args):
    """Run ``flexmbs ARGS`` in-process; returns the click result (stdout in .stdout, stderr in .stderr)."""
    from flexmbs.cli.app import main

    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def read_png(path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def assert_picture(path, size, min_std=10.0, min_ink=0.01):
    """A PNG of ``size`` = (width, height) that is not blank: pixel standard deviation above ``min_std`` (0..255)
    and at least ``min_ink`` of the pixels differ from the background colour (the most common one)."""
    image = read_png(path)
    assert image.shape[:2] == (size[1], size[0])
    assert image.std() > min_std
    flat = image.reshape(-1, 3)
    colours, counts = np.unique(flat, axis=0, return_counts=True)
    background = colours[np.argmax(counts)]
    assert np.mean(np.any(flat != background, axis=1)) > min_ink


def write_swing(body, path: str, n_samples: int = 41) -> np.ndarray:
    """A results file of the README's pendulum motion, prescribed: the bar pivoted at end_a (the origin) released
    horizontally along +x swings about z through the bottom (-y) to the other side, angle
    ``-pi/2 (1 - cos(pi t / T))`` from 0 to -pi over T = 1 s. Returns the angles, rad."""
    from flexmbs.engine.recorder import Recorder
    from flexmbs.engine.system import System
    import flexmbs as fm

    model = fm.Model("swing")
    arm = model.add_flexible_body("bar", body, modes=ARM_MODES)
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"), model.add_marker(arm, "a", node="end_a"),
                    name="pivot")
    system = System(model)
    recorder = Recorder(system, path, {"case": "swing"}, flush_every=50)
    q0, v0, z0 = system.initial_state()
    time = np.linspace(0.0, 1.0, n_samples)
    angles = -0.5 * np.pi * (1.0 - np.cos(np.pi * time))
    for t, angle in zip(time, angles):
        q = q0.copy()
        q[arm.offset:arm.offset + 3] = 0.0
        q[arm.offset + 3:arm.offset + 7] = [np.cos(angle / 2), 0.0, 0.0, np.sin(angle / 2)]
        q[arm.offset + 7:arm.offset + 7 + len(ARM_MODES)] = 2e-4 * np.sin(12.0 * t) * MODAL_DIRECTION
        recorder.record(t, q, v0, z0, np.zeros(system.n_c), {"step_size": 1e-3, "newton_iterations": 2.0,
                                                             "constraint_violation": 0.0})
    recorder.finish("finished", "prescribed motion", {"steps": n_samples})
    return angles
