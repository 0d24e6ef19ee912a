"""Configuration objects built with a wrong field name raise ``ConfigKeyError`` with a suggestion, never a
raw ``TypeError`` (issue 29, point 4); frame suggestions name frames of the kind asked for first."""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wbcpy import InverseDynamicsScene
from wbcpy.collision import Box, Capsule, CollisionAvoidance, Obstacle, Sphere
from wbcpy.contacts import PointContact, SurfaceContact
from wbcpy.errors import ConfigError, ConfigKeyError
from wbcpy.sweep.perturbation import PushSpec, RandomSpec
from wbcpy.tasks import TaskConfig, WrenchReference

# a valid construction of each class (its required arguments), and a misspelt field with its suggestion
CASES: list[tuple[type, dict[str, Any], str, str]] = [
    (TaskConfig, {"name": "ee", "type": "cart", "tip": "hand"}, "tipp", "tip"),
    (SurfaceContact, {"frame": "f", "half_size": (0.1, 0.05), "mu": 0.3}, "muu", "mu"),
    (PointContact, {"frame": "f", "mu": 0.3}, "fz_mx", "fz_max"),
    (CollisionAvoidance, {}, "pairz", "pairs"),
    (Sphere, {"radius": 0.1}, "radiuss", "radius"),
    (RandomSpec, {"n": 2, "seed": 0}, "sed", "seed"),
]


@pytest.mark.parametrize(("cls", "valid", "typo", "suggestion"), CASES)
def test_a_misspelt_field_raises_config_key_error_with_the_field(
    cls: type, valid: dict[str, Any], typo: str, suggestion: str
) -> None:
    with pytest.raises(ConfigKeyError) as info:
        cls(**valid, **{typo: 1})
    err = info.value
    assert err.field == typo and suggestion in err.suggestions
    assert f"did you mean {suggestion!r}" in str(err) or repr(suggestion) in str(err)
    assert isinstance(err, KeyError) and not type(err) is TypeError  # noqa: E714


def test_missing_and_surplus_arguments_are_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"TaskConfig.*type"):
        TaskConfig(name="ee")  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match="SurfaceContact"):
        SurfaceContact("f", (0.1, 0.05), 0.3, 0.0, 1.0, True, 0.0, "surplus")  # type: ignore[call-arg]


def test_a_type_error_raised_inside_a_valid_call_is_not_relabelled() -> None:
    # all fields valid by name and count: what the constructor itself raises is left as it is
    with pytest.raises(ConfigError, match="radius"):
        Sphere(radius="big")  # type: ignore[arg-type]


field_names = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=12)


@given(key=field_names, case=st.sampled_from(CASES))
def test_any_unknown_keyword_is_rejected_and_known_ones_still_work(key: str, case: tuple[Any, ...]) -> None:
    cls, valid, _, _ = case
    # (TaskConfig's keys: the common fields and every registered task type's own fields)
    known = set(TaskConfig.field_names()) if cls is TaskConfig else {f.name for f in dataclasses.fields(cls)}
    if key in known:
        return
    with pytest.raises(ConfigKeyError) as info:
        cls(**valid, **{key: 0})
    assert info.value.field == key
    assert cls(**valid) == cls(**valid)  # the same call without the key builds the object


@pytest.mark.parametrize(
    "make",
    [
        lambda: Box(half_extents=(0.1, 0.1, 0.1), sides=3),
        lambda: Capsule(radius=0.1, lenght=0.2),
        lambda: Obstacle(name="o", shape=Sphere(0.1), placment=None),
        lambda: WrenchReference(wrench=[0.0] * 6, frames="x"),
        lambda: PushSpec(magnitud=1.0),
    ],
)
def test_other_configuration_classes(make: Callable[[], object]) -> None:
    with pytest.raises(ConfigKeyError):
        make()


def test_contact_on_an_unknown_frame_suggests_link_frames_first(example_robot: Any) -> None:
    talos = example_robot("talos")
    scene = InverseDynamicsScene(talos)
    with pytest.raises(ConfigKeyError) as info:
        scene.set_contacts([SurfaceContact("left_foot", (0.1, 0.05), 0.3)])
    first = info.value.suggestions[0]
    assert first == "left_sole_link", info.value.suggestions
    assert first in talos.link_names and not any("joint" in s for s in info.value.suggestions[:1])
