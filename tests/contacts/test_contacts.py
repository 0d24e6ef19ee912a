"""SurfaceContact, PointContact, contact dicts, as_contacts and WrenchReference: fields and validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import load_robot
from wbcpy.contacts.contacts import (
    PointContact,
    SurfaceContact,
    as_contacts,
    contact_from_dict,
)
from wbcpy.errors import ConfigError, ConfigKeyError, InvalidValueError
from wbcpy.tasks import WrenchReference

NAN = float("nan")


@pytest.fixture(scope="module")
def arm():
    return load_robot("lwr4")


def test_defaults_and_round_trip() -> None:
    sole = SurfaceContact("left_sole_link", half_size=(0.1, 0.065), mu=0.3)
    fields = (sole.fz_min, sole.fz_max, sole.active, sole.size, sole.type)
    assert fields == (0.0, math.inf, True, 6, "surface")
    hand = PointContact("right_hand", mu=0.5, fz_max=200)
    assert (hand.size, hand.type, hand.fz_max, hand.normal_index) == (3, "point", 200.0, 2)
    for c in (sole, hand):
        again = contact_from_dict(c.to_dict())
        assert again == c and again is not c
        assert type(c.copy()) is type(c) and c.copy() == c
    assert sole.cone().shape == (16, 6) and hand.cone().shape == (4, 3)
    corners = [[0.1, 0.065], [0.1, -0.065], [-0.1, 0.065], [-0.1, -0.065]]
    np.testing.assert_allclose(sole.corners()[:, :2], corners)


def test_cone_of_the_contact_uses_its_own_fields() -> None:
    sole = SurfaceContact("s", half_size=(0.1, 0.05), mu=0.5)
    w = np.array([0, 0, 100.0, 0, -0.1 * 100.0, 0])  # CoP on the toe edge
    assert np.isclose((sole.cone() @ w).max(), 0.0, atol=1e-12)
    sole.half_size = (0.09, 0.05)  # edited: the cone follows
    sole.validate()
    assert (sole.cone() @ w).max() > 0


BAD_FIELDS = [
    ({"mu": 0.0}, "mu"),
    ({"mu": -0.2}, "mu"),
    ({"mu": NAN}, "mu"),
    ({"mu": math.inf}, "mu"),
    ({"mu": "0.3"}, "mu"),
    ({"half_size": (0.0, 0.1)}, "half_size"),
    ({"half_size": (0.1, -1e-3)}, "half_size"),
    ({"half_size": (0.1, NAN)}, "half_size"),
    ({"half_size": (0.1, 0.1, 0.1)}, "half_size"),
    ({"half_size": 0.1}, "half_size"),
    ({"fz_min": -1.0}, "fz_min"),
    ({"fz_min": NAN}, "fz_min"),
    ({"fz_min": math.inf}, "fz_min"),
    ({"fz_max": NAN}, "fz_max"),
    ({"fz_min": 50.0, "fz_max": 10.0}, "fz_min"),
    ({"active": "yes"}, "active"),
    ({"frame": ""}, "frame"),
    ({"frame": 3}, "frame"),
]


@pytest.mark.parametrize(("change", "field"), BAD_FIELDS)
def test_bad_surface_fields_raise_config_error_naming_the_field(change: dict, field: str) -> None:
    kwargs = {"frame": "sole", "half_size": (0.1, 0.065), "mu": 0.3, **change}
    with pytest.raises(ConfigError) as info:
        SurfaceContact(**kwargs)
    assert info.value.field == field
    with pytest.raises(ConfigError) as info:
        contact_from_dict({"type": "surface", **kwargs}, prefix="contacts[2].")
    assert info.value.field == f"contacts[2].{field}"


@pytest.mark.parametrize(("change", "field"), [c for c in BAD_FIELDS if c[1] != "half_size"])
def test_bad_point_fields_raise_config_error_naming_the_field(change: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        PointContact(**{"frame": "hand", "mu": 0.3, **change})
    assert info.value.field == field


@pytest.mark.parametrize(
    ("data", "field", "key_error"),
    [
        ({"frame": "f", "mu": 0.3}, "type", False),
        ({"type": "line", "frame": "f", "mu": 0.3}, "type", True),
        ({"type": "point", "frame": "f", "mu": 0.3, "half_size": [0.1, 0.1]}, "half_size", True),
        ({"type": "point", "frame": "f"}, "mu", False),
        ({"type": "surface", "frame": "f", "mu": 0.3}, "half_size", False),
    ],
)
def test_bad_contact_dicts(data: dict, field: str, key_error: bool) -> None:
    with pytest.raises(ConfigError) as info:
        contact_from_dict(data, prefix="contacts[0].")
    assert info.value.field == f"contacts[0].{field}"
    assert isinstance(info.value, KeyError) == key_error
    with pytest.raises(ConfigError):
        contact_from_dict([("type", "point")])  # not a mapping


def test_as_contacts_checks_frames_and_duplicates_and_copies(arm) -> None:
    frames = arm.frame_names
    given_contacts = [
        PointContact(frames[-1], mu=0.5),
        {"type": "surface", "frame": frames[-2], "half_size": [0.05, 0.05], "mu": 1.0},
    ]
    out = as_contacts(arm, given_contacts)
    assert [c.frame for c in out] == [frames[-1], frames[-2]]
    assert out[0] is not given_contacts[0] and out[0] == given_contacts[0]
    out[0].mu = 9.0
    assert given_contacts[0].mu == 0.5
    assert as_contacts(arm, []) == []

    with pytest.raises(ConfigKeyError) as info:
        as_contacts(arm, [PointContact(frames[-1], mu=0.5), PointContact("lwr_eee", mu=0.5)])
    assert info.value.field == "contacts[1].frame" and isinstance(info.value, KeyError)
    assert "lwr_ee" in str(info.value)  # close matches are listed
    with pytest.raises(ConfigError) as info:
        as_contacts(arm, [PointContact(frames[-1], mu=0.5), {"type": "point", "frame": frames[-1], "mu": 1}])
    assert info.value.field == "contacts[1].frame" and "contacts[0]" in str(info.value)
    with pytest.raises(ConfigError):
        as_contacts(arm, {"type": "point"})
    with pytest.raises(ConfigError):
        as_contacts(arm, [3])


def test_as_contacts_revalidates_edited_objects_and_changes_nothing(arm) -> None:
    c = PointContact(arm.frame_names[-1], mu=0.5)
    c.mu = -1.0  # edited after construction
    with pytest.raises(ConfigError) as info:
        as_contacts(arm, [c])
    assert info.value.field == "contacts[0].mu"
    assert c.mu == -1.0  # the caller's object is untouched


@settings(max_examples=50, deadline=None)
@given(
    X=st.floats(1e-4, 2.0),
    Y=st.floats(1e-4, 2.0),
    mu=st.floats(1e-3, 5.0),
    lo=st.floats(0.0, 1e3),
    span=st.one_of(st.just(math.inf), st.floats(0.0, 1e3)),
)
def test_valid_fields_round_trip(X: float, Y: float, mu: float, lo: float, span: float) -> None:
    c = SurfaceContact("f", half_size=[X, Y], mu=mu, fz_min=lo, fz_max=lo + span)
    assert c.half_size == (X, Y) and isinstance(c.half_size, tuple)
    assert contact_from_dict(c.to_dict()) == c


def test_wrench_reference_validation() -> None:
    ref = WrenchReference([0, 0, 400, 0, 0, 0])
    checked = ref.validated(6, "lf_force")
    assert checked.wrench.dtype == np.float64 and checked.time is None
    assert checked.wrench is not ref.wrench
    assert WrenchReference(np.ones(3), time=2).validated(3).time == 2.0
    for bad, n in (([0, 0, 1], 6), ([0, 0, NAN], 3), ([[0, 0, 1]], 3), ("abc", 3)):
        with pytest.raises(InvalidValueError) as info:
            WrenchReference(bad).validated(n, "lf_force")
        assert info.value.argument == "lf_force.reference.wrench"
    for bad_time in (NAN, math.inf, True, "now"):
        with pytest.raises(InvalidValueError) as info:
            WrenchReference([0, 0, 1], time=bad_time).validated(3, "t")
        assert info.value.argument == "t.reference.time"
