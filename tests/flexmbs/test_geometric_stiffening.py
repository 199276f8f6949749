"""Geometric stiffening of floating-frame bodies (issue 28) against analytic references: the preloaded
pinned–pinned column (``ω² = ω₀² (1 − P/P_cr)``, Euler load) and the rotating cantilever (Southwell law)."""
import warnings

import numpy as np
import pytest

import flexmbs as fm
from cases.spin_up_beam.column import AXIAL, LENGTH, column_model, reduced_beam, section
from cases.spin_up_beam.column import column_body as make_column
from cases.spin_up_beam.validation import rotating_frequencies
from fem.beam import rectangular_section
from fem.materials import parse_material
from fem.model import frame_model, solid_model
from reduction import reduce

# --- pinned–pinned steel column, 2 m, 20 x 30 mm (cases/spin_up_beam/column.py) ----------------------------
L_COLUMN = LENGTH
SECTION = section()


@pytest.fixture(scope="module")
def column_body():
    return make_column()


def test_preloaded_column_frequency_follows_the_euler_reduction(column_body):
    """``ω² = ω₀² (1 − P/P_cr)`` within 1 % for P/P_cr = 0, 0.5, 0.9, with the analytic ``ω₀ = π² √(EI/ρA L⁴)``
    and ``P_cr = π² EI/L²`` (bending in the global x–y plane: the local x–z plane of the default frame
    orientation, ``I = I_y``)."""
    steel = parse_material("steel")
    ei = steel.youngs_modulus * SECTION.iy
    omega0 = np.pi**2 * np.sqrt(ei / (steel.density * SECTION.area * L_COLUMN**4))
    p_cr = np.pi**2 * ei / L_COLUMN**2
    for ratio in (0.0, 0.5, 0.9):
        lin = fm.linearize(column_model(column_body, ratio * p_cr))
        lam = lin.eigenvalues()
        assert lam.real.max() < 1e-6 * np.abs(lam).max()
        lowest = np.min(np.abs(lam.imag[lam.imag > 0]))
        assert lowest == pytest.approx(omega0 * np.sqrt(1.0 - ratio), rel=0.01), ratio


def test_column_with_more_modes_than_interface_dofs_follows_the_euler_reduction():
    """10 fixed-interface modes (16 elastic coordinates, 12 interface dofs): the interface-load stress is projected
    through the 12 constraint modes (``reduction.geometric``); ``ω² = ω₀² (1 − P/P_cr)`` within 1 % at 0.5 and
    0.9 P_cr as above."""
    from cases.spin_up_beam.column import euler_reference, lowest_frequency

    body = make_column(n_modes=10)
    assert body.n_modes == 16
    omega0, p_cr = euler_reference()
    for ratio in (0.5, 0.9):
        assert lowest_frequency(body, ratio * p_cr)[0] == pytest.approx(omega0 * np.sqrt(1.0 - ratio), rel=0.01)


def test_column_above_the_euler_load_is_unstable_and_below_it_is_not(column_body):
    """At 0.98 P_cr all eigenvalues stay on the imaginary axis (to round-off); at 1.02 P_cr one is real positive
    (divergence), the linearization's report of buckling."""
    p_cr = np.pi**2 * parse_material("steel").youngs_modulus * SECTION.iy / L_COLUMN**2
    below = fm.linearize(column_model(column_body, 0.98 * p_cr)).eigenvalues()
    above = fm.linearize(column_model(column_body, 1.02 * p_cr)).eigenvalues()
    assert below.real.max() < 1e-6 * np.abs(below).max()
    real_positive = above[(np.abs(above.imag) < 1e-9) & (above.real > 1e-3)]
    assert real_positive.size == 1


def test_without_geometric_stiffness_the_preload_changes_nothing():
    """The same column from a file without geometric stiffness: the frequency stays ω₀ (2 %) under 0.5 P_cr, the
    linear floating-frame result the issue reports."""
    x = np.linspace(0.0, L_COLUMN, 21)
    body = reduced_beam(np.column_stack([x, 0 * x, 0 * x]), SECTION, "steel", ("a", "b"), geometric=False)
    steel = parse_material("steel")
    ei = steel.youngs_modulus * SECTION.iy
    omega0 = np.pi**2 * np.sqrt(ei / (steel.density * SECTION.area * L_COLUMN**4))
    lam = fm.linearize(column_model(body, 0.5 * np.pi**2 * ei / L_COLUMN**2)).eigenvalues()
    assert np.min(np.abs(lam.imag[lam.imag > 0])) == pytest.approx(omega0, rel=0.02)


# --- rotating cantilever: the spin-up beam's data (Kane, Ryan & Banerjee 1987) -----------------------------
L_BEAM, EA, EI, RHO_A = 10.0, 2.8e7, 1.4e4, 1.2
SOUTHWELL_K = 1.193  # first mode of a uniform cantilever (Southwell coefficient, e.g. Hodges & Pierce 2011)


@pytest.fixture(scope="module")
def kane_body():
    side = np.sqrt(12.0 * EI / EA)  # square section with EA and EI of the benchmark
    x = np.linspace(0.0, L_BEAM, 21)
    material = f"E={EA / side**2},nu=0.3,rho={RHO_A / side**2}"
    return reduced_beam(np.column_stack([x, 0 * x, 0 * x]), rectangular_section(side, side), material,
                        ("root", "tip"))


@pytest.mark.parametrize("spin", [2.0, 4.0])
def test_rotating_cantilever_follows_the_southwell_law(kane_body, spin):
    """In plane ``ω² = ω₀² + (k − 1) Ω²``, out of plane ``ω₀² + k Ω²`` with k = 1.193 and the analytic
    ``ω₀ = 1.8751² √(EI/ρA L⁴)`` = 3.798 rad/s, within 2 % at Ω = 2 and 4 rad/s (Ω/ω₀ up to 1.05)."""
    omega0 = 1.875104**2 * np.sqrt(EI / (RHO_A * L_BEAM**4))
    in_plane, out_of_plane = rotating_frequencies(kane_body, spin)
    assert in_plane == pytest.approx(np.sqrt(omega0**2 + (SOUTHWELL_K - 1.0) * spin**2), rel=0.02)
    assert out_of_plane == pytest.approx(np.sqrt(omega0**2 + SOUTHWELL_K * spin**2), rel=0.02)


def spinning_run(body, spin=2.0, t_end=0.3):
    model = fm.Model("spinning cantilever")
    beam = model.add_flexible_body("beam", body, angular_velocity=(0.0, 0.0, spin))
    hub = model.add_joint("revolute", model.add_marker(model.ground, "hub"), model.add_marker(beam, "r", node="root"),
                          name="hub")
    hub.prescribe(velocity=spin)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fm.simulate(model, t_end)
    assert res.success
    return [str(w.message) for w in caught if "geometric stiffness" in str(w.message)]


def test_a_spinning_body_without_geometric_stiffness_gets_one_warning_naming_the_option(kane_body):
    """Ω = 2 rad/s is 0.08 of the beam's lowest free–free frequency (24.2 rad/s), above the 0.02 threshold: one
    warning that names ``geometric_stiffness=True``; the same body with the data gets none."""
    x = np.linspace(0.0, L_BEAM, 21)
    side = np.sqrt(12.0 * EI / EA)
    plain = reduced_beam(np.column_stack([x, 0 * x, 0 * x]), rectangular_section(side, side),
                         f"E={EA / side**2},nu=0.3,rho={RHO_A / side**2}", ("root", "tip"), geometric=False)
    lines = spinning_run(plain)
    assert len(lines) == 1 and "geometric_stiffness=True" in lines[0]
    assert spinning_run(kane_body) == []


# --- a solid (hexahedral) column with RBE2 ends: the reduced body against the full prestressed FE model -------
def test_preloaded_solid_column_matches_the_full_prestressed_fe_model():
    """Hexahedral bar 1 × 0.02 × 0.03 m (30 × 2 × 3 elements), RBE2 ends, 6 fixed-interface modes, on the column
    joints above: the first frequency under P = 0, 0.5 and 0.8 P_E (``P_E = π² E I_z/L²`` for scale) from the
    linearized multibody model equals the full FE model's ``(K + K_G(σ_P) − ω² M) φ = 0`` (static stress of the
    end load, same supports on the reference nodes): ``ω²`` within 0.5 % of ``ω₀²``."""
    import scipy.linalg
    from fem.geometric import projected_geometric_stiffness
    from fem.meshing import structured_bar_mesh

    length, width, height = 1.0, 0.02, 0.03
    fe = solid_model(structured_bar_mesh(length, width, height, 30, 2, 3), "steel")
    x = fe.positions[:, 0]
    fe.add_reference_node("a", np.flatnonzero(np.abs(x) < 1e-9), "rbe2", point=(0.0, 0.0, 0.0))
    fe.add_reference_node("b", np.flatnonzero(np.abs(x - length) < 1e-9), "rbe2", point=(length, 0.0, 0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = reduce(fe, ["a", "b"], 6, compare_modes=0, stress_field="none", geometric_stiffness=True)
    k, m, t = fe.stiffness.toarray(), fe.mass.toarray(), fe.transform
    ia = fe.independent_index(fe.node_dofs(fe.references["a"].node))
    ib = fe.independent_index(fe.node_dofs(fe.references["b"].node))
    free = np.setdiff1d(np.arange(fe.n_dofs), np.r_[ia[:5], ib[1:5]])  # a: x y z θx θy held; b: y z θx θy

    def full_fe(load):
        f = np.zeros(fe.n_dofs)
        f[ib[0]] = -load
        u = np.zeros(fe.n_dofs)
        u[free] = np.linalg.solve(k[np.ix_(free, free)], f[free])
        kg = projected_geometric_stiffness(fe, t.toarray(), t @ u)[0]
        return scipy.linalg.eigh((k + kg)[np.ix_(free, free)], m[np.ix_(free, free)], eigvals_only=True,
                                 subset_by_index=[0, 0])[0]

    p_e = np.pi**2 * parse_material("steel").youngs_modulus * height * width**3 / 12.0 / length**2
    omega0_sq = full_fe(0.0)
    for ratio in (0.0, 0.5, 0.8):
        lam = fm.linearize(column_model(body, ratio * p_e, length)).eigenvalues()
        lowest = np.min(np.abs(lam.imag[lam.imag > 0]))
        assert abs(lowest**2 - full_fe(ratio * p_e)) <= 0.005 * omega0_sq, ratio


def test_solid_column_buckles_at_the_euler_load(tmp_path):
    """Quadratic hexahedra (hex27, 100 × 2 × 3 over 1 m × 20 mm × 30 mm), RBE2 ends, 6 fixed-interface modes, on the
    pinned–pinned column joints: the buckling load read off the linearization, ``P_cr = P ω₀²/(ω₀² − ω²(P))`` at
    P = 0.5 and 0.9 P_E, is the Euler load ``P_E = π² E h w³/(12 L²)`` within 1 % (measured −0.64 %: shear and
    the three-dimensional section; the unloaded frequency is Euler–Bernoulli's within 0.1 %)."""
    from cases.spin_up_beam.column import SOLID_SIZE, lowest_frequency, solid_column_body

    body = solid_column_body(str(tmp_path))
    length, width, height = SOLID_SIZE
    steel = parse_material("steel")
    ei = steel.youngs_modulus * height * width**3 / 12.0
    p_e = np.pi**2 * ei / length**2
    omega0 = lowest_frequency(body, 0.0)[0]
    assert omega0 == pytest.approx(np.pi**2 * np.sqrt(ei / (steel.density * width * height * length**4)), rel=1e-3)
    for ratio in (0.5, 0.9):
        omega = lowest_frequency(body, ratio * p_e)[0]
        assert ratio * p_e * omega0**2 / (omega0**2 - omega**2) == pytest.approx(p_e, rel=0.01), ratio


# --- gravity and frame acceleration load cases: a hanging beam, and the same beam lifted at 1 g ------------------
def test_hanging_beam_is_stiffened_by_gravity_and_equally_by_an_accelerating_support(kane_body):
    """The Kane beam clamped at its top: (1) hanging in gravity g along +x: first bending frequency within 1 % of
    the full FE model with ``N = ρA g (L − x)`` (its own ``K + K_G``, clamped root); (2) no gravity, the support
    accelerated at g along −x (prescribed prismatic motion): the same frequency within 0.1 % (equivalence of
    gravity and frame acceleration; this goes through the frame-acceleration load cases). Unstressed: 3.798 rad/s."""
    import scipy.linalg
    from fem.geometric import geometric_stiffness

    g = 9.81
    side = np.sqrt(12.0 * EI / EA)
    x = np.linspace(0.0, L_BEAM, 21)
    fe = frame_model(np.column_stack([x, 0 * x, 0 * x]), np.column_stack([np.arange(20), np.arange(1, 21)]),
                     rectangular_section(side, side), f"E={EA / side**2},nu=0.3,rho={RHO_A / side**2}")
    k, m = fe.full_stiffness.toarray(), fe.full_mass.toarray()
    kg = geometric_stiffness(fe, RHO_A * g * (L_BEAM - 0.5 * (x[1:] + x[:-1]))).toarray()
    free = np.arange(6, k.shape[0])
    reference = np.sqrt(scipy.linalg.eigh((k + kg)[np.ix_(free, free)], m[np.ix_(free, free)], eigvals_only=True,
                                          subset_by_index=[0, 0])[0])
    coords = [f"body/beam/modal_coordinates/q{j + 1}" for j in range(kane_body.n_modes)]
    hanging = fm.Model("hanging beam", gravity=(g, 0.0, 0.0))
    beam = hanging.add_flexible_body("beam", kane_body)
    hanging.add_joint("fixed", hanging.add_marker(hanging.ground, "top"), hanging.add_marker(beam, "r", node="root"))
    lam = fm.linearize(hanging, coordinates=coords).eigenvalues()
    in_gravity = np.min(np.abs(lam.imag[lam.imag > 0]))
    lifted = fm.Model("lifted beam")
    beam = lifted.add_flexible_body("beam", kane_body)
    car = lifted.add_rigid_body("car", 1.0, [1.0, 1.0, 1.0])
    rail = lifted.add_joint("prismatic", lifted.add_marker(lifted.ground, "rail", orientation=AXIAL),
                            lifted.add_marker(car, "c", orientation=AXIAL), name="rail")
    rail.prescribe(position=lambda t: -0.5 * g * t * t)
    lifted.add_joint("fixed", lifted.add_marker(car, "top"), lifted.add_marker(beam, "r", node="root"))
    lam = fm.linearize(lifted, at=0.05, coordinates=coords).eigenvalues()
    accelerated = np.min(np.abs(lam.imag[lam.imag > 0]))
    assert in_gravity == pytest.approx(reference, rel=0.01)
    assert accelerated == pytest.approx(in_gravity, rel=1e-3)
    assert in_gravity > 1.04 * 1.875104**2 * np.sqrt(EI / (RHO_A * L_BEAM**4))  # the effect is there (+5 %)
