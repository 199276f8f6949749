"""A falling mass and its exact free fall: the model the safe-file tests write and read back."""
import numpy as np

import flexmbs as fm

G = 9.81


def falling_mass():
    model = fm.Model("free fall", gravity=(0.0, 0.0, -G))
    model.add_rigid_body("ball", mass=1.0, inertia=(1e-3, 1e-3, 1e-3))
    return model


def assert_free_fall(res):
    """Every kept sample is the exact free fall (independent reference: z = -g t² / 2)."""
    assert res.time.size >= 2
    np.testing.assert_allclose(res["body/ball/position"][:, 2], -0.5 * G * res.time**2, atol=1e-9)
