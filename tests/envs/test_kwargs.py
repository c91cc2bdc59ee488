"""KEY=VALUE arguments: one reading for `build --set`, `rollout -k`, `train --env-kwargs` and `--hp`."""

from __future__ import annotations

import math

import pytest

from wadgym.envs.kwargs import parse_assignments, parse_value


@pytest.mark.parametrize("text, value", [
    ("true", True), ("False", False), ("yes", True), ("off", False), ("True", True),
    ("5", 5), ("-3", -3), ("1_000", 1000), ("2.5", 2.5), ("1e-4", 1e-4), (".5", 0.5),
    ("null", None), ("None", None), ("~", None), ("", None),
    ("(30, 40)", (30, 40)), ("(30,)", (30,)), ("()", ()), ("[30, 40]", [30, 40]),
    ("[POSITION_X, POSITION_Y]", ["POSITION_X", "POSITION_Y"]), ("((1, 2), [true])", ((1, 2), [True])),
    ("{norm_obs: false, 'norm_reward': true}", {"norm_obs": False, "norm_reward": True}),
    ("'007'", "007"), ('"a, b"', "a, b"), ("'true'", "true"),
    ("lin_5e-4", "lin_5e-4"), ("arena", "arena"), ("a,b", "a,b"),
    ("dict(net_arch=[64], features_dim=8)", "dict(net_arch=[64], features_dim=8)"),  # policy_kwargs stay text
])
def test_values(text, value):
    parsed = parse_value(text)
    assert parsed == value and type(parsed) is type(value)


def test_infinity_and_not_a_number():
    assert parse_value("inf") == math.inf and math.isnan(parse_value("nan"))


def test_assignments_keep_their_order_and_the_last_one_wins():
    assert parse_assignments(["n_items=5", "color=true", "resolution=(30, 40)", "n_items=6"], "-k") == {
        "n_items": 6, "color": True, "resolution": (30, 40)}
    assert parse_assignments(["policy_kwargs=dict(a=1)"], "--hp") == {"policy_kwargs": "dict(a=1)"}


@pytest.mark.parametrize("item, message", [
    ("n_items", "-k 'n_items': expected KEY=VALUE, e.g. n_items=5"),
    ("=5", "expected KEY=VALUE"),
    ("two words=5", "expected KEY=VALUE"),
    ("resolution=(30, 40", "-k resolution=(30, 40: '(' is not closed by ')'"),
    ("resolution=(30, [40)", "unbalanced brackets or quotes"),
    ("normalize={norm_obs}", "expected key: value inside {...}"),
])
def test_bad_assignments_say_what_is_expected(item, message):
    with pytest.raises(ValueError) as info:
        parse_assignments([item], "-k")
    assert message in str(info.value)


def test_field_types_and_zoo_separators():
    import dataclasses

    @dataclasses.dataclass
    class P:
        floor: str = "FLOOR0_1"
        door: bool = False
        size: tuple[int, ...] = (1, 2)

    assert parse_assignments(["floor=123", "door=1", "size=[3.0, 4]"], "--set", fields=P) == {
        "floor": "123", "door": True, "size": (3, 4)}
    assert parse_assignments(["n_epochs:4", "policy_kwargs:dict(a=1)", "x=a:b"], "-params", separators=":=") == {
        "n_epochs": 4, "policy_kwargs": "dict(a=1)", "x": "a:b"}
    with pytest.raises(ValueError, match="expected KEY:VALUE, e.g. n_items:5 or n_items=5"):
        parse_assignments(["n_epochs"], "-params", separators=":=")
