"""What the case ``classic-mechanisms`` declares to the registry: its name, one-line description and defaults."""
from __future__ import annotations

from cases._common import toml_defaults

NAME = "classic-mechanisms"
DESCRIPTION = ("Redundant constraints as machine builders model them: Bricard's 6R linkage (IFToMM A04), a door on two "
               "coaxial hinges, a parallelogram of three cranks in 3D (--set mechanism=bricard|door|parallelogram)")
DEFAULTS = toml_defaults(__file__, "classic_mechanisms.toml")
CHOICES = {"mechanism": ("bricard", "door", "parallelogram")}
PARAMETERS = DEFAULTS.specs
