"""ThreadVecEnv against Stable-Baselines3's DummyVecEnv, side by side on the same seeded toy envs: the spaces
DummyVecEnv batches (as observations and as actions: Dict and Tuple actions one per env), pinned and not;
observations, rewards, dones, infos (terminal_observation, TimeLimit.truncated), reset_infos and the actions
each env was handed equal in value and type; options, set_attr, metadata, info snapshots and exception types
as DummyVecEnv has them."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Sequence, Text, Tuple
from stable_baselines3.common.vec_env import DummyVecEnv

from wadgym.envs.vector.sb3 import ThreadVecEnv

from .test_vector_contract import GlobalRandom, Raises, ToyEnv, same

N = 3
STEPS = 7

SPACES = {
    "box-scalar": Box(-1.0, 1.0, shape=(), dtype=np.float64),
    "box-image": Box(0, 255, (4, 4, 3), np.uint8),
    "box-int": Box(-5, 5, (2,), np.int32),
    "discrete": Discrete(3),
    "discrete-start": Discrete(5, start=-2),
    "multidiscrete": MultiDiscrete([2, 3]),
    "multibinary": MultiBinary(4),
    "tuple": Tuple((Discrete(2), Box(0, 1, (2,)))),
    "tuple-of-n": Tuple((Discrete(2), Discrete(3), Discrete(4))),  # as many parts as envs
    "dict": Dict({"b": Box(0, 1, (2,)), "a": Discrete(3)}),
}


def factories(space, action_space=None, env=ToyEnv, n: int = N):
    return [lambda i=i: env(space, space if action_space is None else action_space, i) for i in range(n)]


def both(fns, pin=None):
    return DummyVecEnv(fns), ThreadVecEnv(fns, pin=pin)


def play_side_by_side(dummy, ours, steps: int = STEPS, seed: int = 5, options=None):
    """seed(), set_options(), reset(), then the same actions (one per env, sampled from the env's action
    space) for `steps` steps: every output and every env's actions the same."""
    for venv in (dummy, ours):
        venv.seed(seed)
        if options is not None:
            venv.set_options(options)
    same(dummy.reset(), ours.reset(), "reset")
    same(dummy.reset_infos, ours.reset_infos, "reset_infos")
    space = dummy.action_space
    space.seed(0)
    for k in range(steps):
        actions = [space.sample() for _ in range(dummy.num_envs)]
        same(dummy.step(actions), ours.step(actions), f"step {k}")
        same(dummy.reset_infos, ours.reset_infos, f"reset_infos after step {k}")
    same([env.unwrapped.actions for env in dummy.envs], [env.unwrapped.actions for env in ours.envs], "actions")


@pytest.mark.parametrize("pin", [False, True])
@pytest.mark.parametrize("name", list(SPACES))
def test_every_space_as_dummy_vec_env(name, pin):
    dummy, ours = both(factories(SPACES[name]), pin)
    try:
        play_side_by_side(dummy, ours)
        play_side_by_side(dummy, ours, steps=2, seed=8, options={"level": 2})
        same([env.unwrapped.options_seen for env in dummy.envs], [env.unwrapped.options_seen for env in ours.envs])
    finally:
        dummy.close()
        ours.close()


def test_dict_and_tuple_actions_reach_their_own_env():
    """One action per env, `actions[i]`: a Tuple action of as many parts as envs is not read as a batch."""
    for action_space in (Tuple((Discrete(2), Discrete(3), Discrete(4))),
                         Dict({"x": Discrete(2), "y": Box(0, 1, (2,))})):
        dummy, ours = both(factories(Discrete(2), action_space))
        try:
            play_side_by_side(dummy, ours, steps=3)
            assert ours.envs[0].actions[0] in action_space
        finally:
            dummy.close()
            ours.close()


class NoOptions(ToyEnv):
    """An env whose reset takes no `options`, as older envs (SB3's own test envs) have it."""

    def reset(self, seed=None):
        return super().reset(seed=seed)


def test_options_go_to_reset_only_when_set():
    dummy, ours = both(factories(Discrete(2), env=NoOptions))
    try:
        play_side_by_side(dummy, ours, steps=3)
    finally:
        dummy.close()
        ours.close()


@pytest.mark.parametrize("space", [Dict({"a": Dict({"b": Discrete(2)})}), Tuple((Tuple((Discrete(2),)),)), Text(4),
                                   Sequence(Discrete(2))], ids=["nested-dict", "nested-tuple", "text", "sequence"])
def test_spaces_dummy_vec_env_refuses_are_refused_alike(space):
    errors = []
    for make in (DummyVecEnv, ThreadVecEnv):
        with pytest.raises(Exception) as caught:  # noqa: PT011  (the point: the same type as DummyVecEnv's)
            make(factories(space, Discrete(2)))
        errors.append(caught.value)
    assert isinstance(errors[1], type(errors[0])), errors


class Logged(ToyEnv):
    """Keeps one list in every info and appends to it at each step, as envs that log into their info do."""

    def step(self, action):
        observation, reward, terminated, truncated, info = super().step(action)
        self.log = getattr(self, "log", [])
        self.log.append(self.t)
        return observation, reward, terminated, truncated, {**info, "log": self.log}


def test_infos_are_snapshots_and_set_attr_sets_the_outer_wrapper():
    fns = [lambda i=i: gym.Wrapper(Logged(Discrete(2), Discrete(2), i)) for i in range(N)]
    dummy, ours = both(fns)
    try:
        for venv in (dummy, ours):
            venv.seed(0)
            venv.reset()
        history = {id(venv): [venv.step(np.zeros(N, int))[3] for _ in range(4)] for venv in (dummy, ours)}
        same(history[id(dummy)], history[id(ours)])
        assert history[id(ours)][0][0]["log"] == [1]  # not what the list holds now
        for venv in (dummy, ours):
            venv.set_attr("length", 99, indices=[1])
        assert [env.unwrapped.length for env in ours.envs] == [env.unwrapped.length for env in dummy.envs] == [2, 3, 4]
        assert ours.get_attr("length") == dummy.get_attr("length") == [2, 99, 4]
        assert ours.env_method("get_wrapper_attr", "length") == dummy.env_method("get_wrapper_attr", "length")
    finally:
        dummy.close()
        ours.close()


class Fps(ToyEnv):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 50}


def test_metadata_is_the_env_s():
    dummy, ours = both(factories(Discrete(2), env=Fps))
    try:
        assert ours.metadata == dummy.metadata == Fps.metadata
    finally:
        dummy.close()
        ours.close()


def mistakes():
    plain = factories(Box(0, 1, (2,)), Discrete(2))
    return {
        "an env that raises": ([lambda i=i: Raises(Box(0, 1, (2,)), Discrete(2), i) for i in range(N)],
                               lambda v: v.step(np.zeros(N, int))),
        "env_method of a missing name": (plain, lambda v: v.env_method("no_such_method")),
        "too few actions": (plain, lambda v: v.step(np.zeros(N - 1, int))),
        "the same env twice": ([lambda: ONE_ENV] * 2, None),
    }


ONE_ENV = ToyEnv(Discrete(2), Discrete(2), 0)


@pytest.mark.parametrize("name", list(mistakes()))
def test_the_same_mistakes_raise_the_same_exception_types(name):
    fns, act = mistakes()[name]
    errors = []
    for make in (DummyVecEnv, ThreadVecEnv):
        venv = None
        try:
            venv = make(fns)
            venv.reset()
            act(venv)
        except Exception as error:  # noqa: BLE001  (the point: what each raises)
            errors.append(error)
        else:
            errors.append(None)
        finally:
            if venv is not None:
                venv.close()
    expected, ours = errors
    assert expected is not None, "DummyVecEnv accepted it"
    assert isinstance(ours, type(expected)), f"DummyVecEnv raises {expected!r}, ours {ours!r}"


def test_extra_actions_are_ignored_as_dummy_vec_env_ignores_them():
    dummy, ours = both(factories(Box(0, 1, (2,)), Discrete(2)))
    try:
        for venv in (dummy, ours):
            venv.seed(0)
            venv.reset()
        same(dummy.step(np.array([1, 0, 1, 1])), ours.step(np.array([1, 0, 1, 1])))
    finally:
        dummy.close()
        ours.close()


def test_envs_drawing_from_numpy_s_global_generator_get_a_warning():
    ours = ThreadVecEnv(factories(Box(0, 1, (2,)), Discrete(2), env=GlobalRandom), pin=False)
    try:
        ours.reset()
        with pytest.warns(UserWarning, match="numpy's global random generator"):
            for _ in range(3):
                ours.step(np.zeros(N, int))
    finally:
        ours.close()
