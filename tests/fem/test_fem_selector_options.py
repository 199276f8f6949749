"""Selector options: the tolerance of geometric selectors (``tol=``), against node positions built here."""
import numpy as np
import pytest

from fem.errors import SelectionError
from fem.selectors import select_nodes

R = 0.02  # bore radius, m


@pytest.fixture
def oval_bore():
    """96 nodes on a bore whose radius varies by ±3 % (a CAD export's faceted, slightly oval lug bore)."""
    angle = np.linspace(0.0, 2.0 * np.pi, 96, endpoint=False)
    radius = R * (1.0 + 0.03 * np.cos(2.0 * angle))
    points = np.c_[radius * np.cos(angle), radius * np.sin(angle), np.zeros(96)]
    return points, np.arange(1, 97)


def test_cylinder_tolerance_option_picks_the_whole_bore(oval_bore):
    """Default radial tolerance 1 % of r picks only the nodes within 0.2 mm of r; tol=0.0007 (> 3 % of r = 0.6 mm)
    picks all 96; tol=1e-12 only those exactly at r (where cos 2θ = 0)."""
    points, ids = oval_bore
    deviation = np.abs(np.linalg.norm(points[:, :2], axis=1) - R)
    default = select_nodes(f"cylinder:0,0,-1,0,0,1,{R}", points, ids, {})
    np.testing.assert_array_equal(default, np.flatnonzero(deviation <= 0.01 * R))
    assert default.size < 96
    assert select_nodes(f"cylinder:0,0,-1,0,0,1,{R},tol=0.0007", points, ids, {}).size == 96
    exact = select_nodes(f"cylinder:0,0,-1,0,0,1,{R},tol=1e-12", points, ids, {})
    np.testing.assert_array_equal(exact, np.flatnonzero(deviation <= 1e-12))


def test_box_and_sphere_take_the_option_too(oval_bore):
    points, ids = oval_bore
    assert select_nodes("sphere:0,0,0,0.019,tol=0.003", points, ids, {}).size == 96
    assert select_nodes("box:0.0205,-1,-1,1,1,1,tol=0.001", points, ids, {}).size >= 1


@pytest.mark.parametrize("selector,message", [
    (f"cylinder:0,0,-1,0,0,1,{R},tal=1", "unknown option"),
    (f"cylinder:0,0,-1,0,0,1,{R},tol=abc", "not a number"),
    (f"cylinder:0,0,-1,0,0,1,{R},tol=-1", ">= 0"),
    ("sphere:0,0,0,tol=0.1", "expected 4 numbers"),
])
def test_bad_options_are_one_line_errors(oval_bore, selector, message):
    points, ids = oval_bore
    with pytest.raises(SelectionError, match=message):
        select_nodes(selector, points, ids, {})


def test_group_names_ignore_case_when_unambiguous(oval_bore):
    """`group:bore-a` finds the set `BORE-A` (Abaqus sets and ANSYS components are case-insensitive); an exact
    name wins, and two names equal ignoring case are not guessed between."""
    points, ids = oval_bore
    sets = {"BORE-A": np.array([1, 2]), "Web": np.array([3]), "web": np.array([4])}
    np.testing.assert_array_equal(select_nodes("group:bore-a", points, ids, sets), [1, 2])
    np.testing.assert_array_equal(select_nodes("group:web", points, ids, sets), [4])
    with pytest.raises(SelectionError, match="no group 'WEB'"):
        select_nodes("group:WEB", points, ids, sets)
