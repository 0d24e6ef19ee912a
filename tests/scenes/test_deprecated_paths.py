"""Deprecated paths of wbcpy.scenes: names whose one home is elsewhere still resolve there, and warn."""

from __future__ import annotations

import importlib

import pytest

import wbcpy
from wbcpy import contacts, limits, tasks

MOVED = {
    "AccelerationScene": wbcpy.AccelerationScene,
    "InverseDynamicsScene": wbcpy.InverseDynamicsScene,
    "AccelerationSceneTSID": wbcpy.AccelerationSceneTSID,
    "VelocityScene": wbcpy.VelocityScene,
    "PointContact": contacts.PointContact,
    "SurfaceContact": contacts.SurfaceContact,
    "WrenchReference": tasks.WrenchReference,
    "JointLimitBounds": limits.JointLimitBounds,
}


@pytest.mark.parametrize("name", sorted(MOVED))
def test_a_deprecated_path_gives_the_object_and_names_its_home(name: str) -> None:
    scenes = importlib.import_module("wbcpy.scenes")
    with pytest.warns(DeprecationWarning, match=rf"wbcpy\.scenes\.{name} is deprecated: use wbcpy\."):
        obj = getattr(scenes, name)
    assert obj is MOVED[name]
    assert name not in scenes.__all__


def test_from_import_of_a_deprecated_path_warns() -> None:
    with pytest.warns(DeprecationWarning, match="use wbcpy.contacts.SurfaceContact"):
        from wbcpy.scenes import SurfaceContact
    assert SurfaceContact is contacts.SurfaceContact


def test_an_unknown_name_is_an_attribute_error() -> None:
    scenes = importlib.import_module("wbcpy.scenes")
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchScene'"):
        scenes.NoSuchScene  # noqa: B018
