"""Isotropic linear elastic materials and a small named library.

Library values (SI), typical handbook values for design calculations:

=============  ===========  =====  ============
name           E, Pa        ν      ρ, kg/m³
=============  ===========  =====  ============
``steel``      210e9        0.30   7850
``cast-iron``  169e9        0.275  7100   (nodular cast iron EN-GJS-400, as used for platens)
``aluminium``  70e9         0.33   2700
=============  ===========  =====  ============
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from fem.errors import MaterialError

__all__ = ["Material", "LIBRARY", "parse_material", "lame_parameters"]


@dataclass(frozen=True)
class Material:
    """Isotropic linear elastic material.

    Attributes
    ----------
    youngs_modulus : float, Pa
    poisson_ratio : float
    density : float, kg/m³
    name : str
    """

    youngs_modulus: float
    poisson_ratio: float
    density: float
    name: str = "custom"

    def __post_init__(self):
        if not self.youngs_modulus > 0:
            raise MaterialError(f"material {self.name!r}: Young's modulus must be > 0 Pa, got {self.youngs_modulus}")
        if not (math.isfinite(self.youngs_modulus) and math.isfinite(self.density)):
            raise MaterialError(f"material {self.name!r}: E and density must be finite numbers")
        if not -1.0 < self.poisson_ratio < 0.5:
            raise MaterialError(f"material {self.name!r}: Poisson ratio must be in (-1, 0.5), got {self.poisson_ratio}")
        if not self.density > 0:
            raise MaterialError(f"material {self.name!r}: density must be > 0 kg/m³, got {self.density}")


    @property
    def shear_modulus(self) -> float:
        """G = E / (2 (1 + ν)), Pa."""
        return self.youngs_modulus / (2.0 * (1.0 + self.poisson_ratio))


E_RANGE = (1e6, 1.2e12)  # Pa: soft elastomers .. diamond
RHO_RANGE = (10.0, 25000.0)  # kg/m³: foams .. osmium
NU_MAX = 0.49  # above it displacement elements lock in volume and the eigen solver stagnates (issue 43)

LIBRARY = {
    "steel": Material(210e9, 0.30, 7850.0, "steel"),
    "cast-iron": Material(169e9, 0.275, 7100.0, "cast-iron"),
    "aluminium": Material(70e9, 0.33, 2700.0, "aluminium"),
}


def lame_parameters(youngs_modulus: float, poisson_ratio: float) -> tuple[float, float]:
    """Lamé parameters (λ, μ) in Pa from E and ν."""
    lam = youngs_modulus * poisson_ratio / ((1.0 + poisson_ratio) * (1.0 - 2.0 * poisson_ratio))
    mu = youngs_modulus / (2.0 * (1.0 + poisson_ratio))
    return lam, mu


def parse_material(text: str | Material) -> Material:
    """A material from a library name (``steel``) or values (``E=210e9,nu=0.3,rho=7850``)."""
    if isinstance(text, Material):
        return text
    if not isinstance(text, str):  # issue 43: 42 raised an AttributeError
        raise MaterialError(f"material must be a name ({', '.join(LIBRARY)}) or E=..,nu=..,rho=.. in SI, got "
                            f"{text!r} ({type(text).__name__})")
    key = text.strip().lower()
    if key in LIBRARY:
        return LIBRARY[key]
    if "=" not in key:
        raise MaterialError(f"unknown material {text!r}; use one of {', '.join(LIBRARY)} or E=..,nu=..,rho=..")
    values = {}
    for part in key.split(","):
        name, _, val = part.partition("=")
        if name.strip() in values:  # issue 43: E=210e9,...,E=70e9 took the last E without a word
            raise MaterialError(f"material {text!r} gives {name.strip().upper() if name.strip() == 'e' else name.strip()} "
                                "twice; give each of E, nu and rho once")
        try:
            values[name.strip()] = float(val)
        except ValueError:
            raise MaterialError(f"material value {part!r} is not a number; write e.g. E=210e9,nu=0.3,rho=7850")
    missing = {"e", "nu", "rho"} - set(values)
    extra = set(values) - {"e", "nu", "rho"}
    if missing or extra:
        raise MaterialError(f"material {text!r} needs exactly E, nu and rho (missing: {sorted(missing)}, "
                            f"unknown: {sorted(extra)})")
    return Material(values["e"], values["nu"], values["rho"], "custom")


def check_solid(material: Material) -> Material:
    """Values typed by a user must be those of a solid (a unit slip, E in GPa or MPa, is the usual cause); the
    CLI checks ``--material`` with it (programs may model massless or very soft parts on purpose)."""
    if not E_RANGE[0] <= material.youngs_modulus <= E_RANGE[1]:
        raise MaterialError(f"material {material.name!r}: Young's modulus E = {material.youngs_modulus:g} Pa is "
                            f"outside the range of structural solids ({E_RANGE[0]:g} .. {E_RANGE[1]:g} Pa); E is in Pa "
                            "(steel 210e9)")
    if not RHO_RANGE[0] <= material.density <= RHO_RANGE[1]:
        raise MaterialError(f"material {material.name!r}: density {material.density:g} kg/m³ is outside the range "
                            f"of solids ({RHO_RANGE[0]:g} .. {RHO_RANGE[1]:g} kg/m³; steel 7850)")
    if material.poisson_ratio > NU_MAX:
        raise MaterialError(f"material {material.name!r}: Poisson ratio nu = {material.poisson_ratio:g} is nearly "
                            f"incompressible: the displacement elements lock (far too stiff) and the bulk modulus "
                            f"{lame_parameters(material.youngs_modulus, material.poisson_ratio)[0]:.3g} Pa swamps "
                            f"the shear stiffness, so the modes cannot be solved accurately; use nu <= {NU_MAX:g} "
                            "(rubber-like parts: 0.49; metals about 0.3)")
    return material


def choose_material(file_materials: dict, source: str, material: str | Material | None, say=None):
    """The ``material`` argument of :func:`fem.model.solid_model` for a command line: ``--material`` when given
    (a note says that it replaces the file's materials), else the file's materials (``Mesh.materials``), each
    checked with :func:`check_solid`; neither is a :class:`MaterialError` (there is no default material).

    Parameters
    ----------
    file_materials : dict[str, Material]
        The mesh file's materials by element set.
    source : str
        The mesh file, for messages.
    material : str, Material or None
        The ``--material`` option.
    say : callable(str), optional
        Where the note goes (stderr on the command line).
    """
    if material is not None:
        chosen = check_solid(parse_material(material))
        if file_materials and say is not None:
            names = ", ".join(sorted({m.name for m in file_materials.values()}))
            say(f"note: --material {chosen.name if isinstance(material, Material) else material} replaces the "
                f"material(s) of {source} ({names})")
        return material
    if not file_materials:
        raise MaterialError(f"{source} defines no material; give --material (steel, cast-iron, aluminium or "
                            "E=..,nu=..,rho=.. in SI)")
    for set_name, mat in file_materials.items():
        try:
            check_solid(mat)
        except MaterialError as exc:
            raise MaterialError(f"{source}, element set {set_name!r}: {exc}; the file's numbers are read as SI "
                                "(a mm-t-s model has E in MPa and rho in t/mm³): convert the file or give "
                                "--material") from None
    if say is not None:
        say("material from the file: " + "; ".join(
            f"{k}: {m.name} (E={m.youngs_modulus:g} Pa, nu={m.poisson_ratio:g}, rho={m.density:g} kg/m³)"
            for k, m in file_materials.items()))
    return file_materials
