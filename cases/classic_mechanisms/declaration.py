"""What the case ``classic-mechanisms`` declares to the registry: its name, one-line description and defaults."""
from __future__ import annotations

NAME = "classic-mechanisms"
DESCRIPTION = ("Redundant constraints as machine builders model them: Bricard's 6R linkage (IFToMM A04), a door on two "
               "coaxial hinges, a parallelogram of three cranks in 3D (--set mechanism=bricard|door|parallelogram)")
DEFAULTS = {
    "mechanism": "bricard",
    "t_end": 1.0,  # s
    "initial_angle": 30.0,  # deg, door and parallelogram (Bricard starts at the benchmark's cube configuration)
    "rtol": 1e-7,
    "atol": 1e-9,
}
CHOICES = {"mechanism": ("bricard", "door", "parallelogram")}
PARAMETERS = {
    "t_end": {"unit": "s", "gt": 0.0, "max": 100.0, "provenance": "assumed", "source": "run control"},
    "initial_angle": {"unit": "deg", "min": -170.0, "max": 170.0, "provenance": "assumed",
                      "source": "starting angle of the pendulum-like mechanisms"},
    "rtol": {"unit": "1", "gt": 0.0, "lt": 1.0, "provenance": "assumed", "source": "integrator setting"},
    "atol": {"unit": "1", "gt": 0.0, "provenance": "assumed", "source": "integrator setting"},
}
