"""What the case ``slider-crank`` declares to the registry: its name, one-line description and default parameters
(re-exported by the package; the case's own modules import them from here, not from the package)."""
from __future__ import annotations

from cases._common import toml_defaults

NAME = "slider-crank"
DESCRIPTION = ("Slider crank with a flexible link reduced from a beam FE model (seed 003 §2.1.3); prescribed crank "
               "speed or driving torque")
DEFAULTS = toml_defaults(__file__, "slider_crank.toml")
