"""ThreadVectorEnv against Gymnasium's SyncVectorEnv, side by side on the same seeded toy envs: every space
type Gymnasium batches (as observations and as actions), the three autoreset modes, pinned and not; every
output (observations, rewards, terminations, truncations, infos, final_obs/final_info, the actions each env
was handed) equal in value and type, and the same exception types for the same mistakes."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.spaces import (
    Box,
    Dict,
    Discrete,
    Graph,
    GraphInstance,
    MultiBinary,
    MultiDiscrete,
    OneOf,
    Sequence,
    Space,
    Text,
    Tuple,
)
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from wadgym.envs.vector import ThreadVectorEnv, VectorEnvError

N = 3
STEPS = 7
MODES = list(AutoresetMode)


class Word(Space):
    """A custom space (no shape, no dtype): short strings. Gymnasium batches it as a tuple of spaces."""

    def sample(self, mask=None, probability=None):
        return "w" + str(int(self.np_random.integers(100)))

    def contains(self, x):
        return isinstance(x, str)

    def __eq__(self, other):
        return isinstance(other, Word)


SPACES = {
    "box-scalar": Box(-1.0, 1.0, shape=(), dtype=np.float64),
    "box-image": Box(0, 255, (4, 4, 3), np.uint8),
    "box-int": Box(-5, 5, (2,), np.int32),
    "discrete": Discrete(3),
    "discrete-start": Discrete(5, start=-2),
    "multidiscrete": MultiDiscrete([2, 3]),
    "multidiscrete-2d": MultiDiscrete([[2, 3], [4, 5]]),
    "multibinary": MultiBinary(4),
    "multibinary-2d": MultiBinary([2, 2]),
    "tuple": Tuple((Discrete(2), Box(0, 1, (2,)))),
    "dict": Dict({"b": Box(0, 1, (2,)), "a": Discrete(3)}),
    "dict-nested": Dict({"a": Dict({"x": Discrete(2)}), "b": Tuple((MultiBinary(2), Box(0, 1, ())))}),
    "text": Text(6),
    "graph": Graph(Box(0, 1, (2,)), Discrete(3)),
    "graph-no-edges": Graph(Box(0, 1, (2,)), None),
    "sequence": Sequence(Discrete(4)),
    "sequence-stacked": Sequence(Box(0, 1, (2,)), stack=True),
    "sequence-of-dicts": Sequence(Dict({"a": Box(0, 1, (2,))}), stack=False),
    "sequence-of-graphs": Sequence(Graph(Box(0, 1, (2,)), Discrete(2)), stack=False),
    "oneof": OneOf((Discrete(2), Box(0, 1, (2,)))),
    "tuple-with-text": Tuple((Text(3), Box(0, 1, (2,)))),
    "dict-with-sequence": Dict({"s": Sequence(Discrete(2)), "b": Discrete(2)}),
    "custom": Word(),
    "tuple-with-custom": Tuple((Word(), Discrete(2))),
}


class ToyEnv(gym.Env):
    """Observations drawn from its own copy of `space`, rewards from its own generator; env i's episodes last
    2 + i steps and end by termination (even i) or truncation (odd i); infos whose keys change from step to
    step. `actions` keeps every action it was handed, as it was handed."""

    def __init__(self, space: Space, action_space: Space, index: int):
        self.observation_space, self.action_space = copy.deepcopy(space), copy.deepcopy(action_space)
        self.index, self.length, self.actions, self.t = index, 2 + index, [], 0
        self.options_seen = []

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.observation_space.seed(int(self.np_random.integers(2**31)))
        self.t = 0
        self.options_seen.append(options)
        info = {"start": self.index} if self.index != 1 else {"start": self.index, "only_1": "x"}
        return self.observation_space.sample(), info

    def step(self, action):
        self.actions.append(action)
        self.t += 1
        ended = self.t >= self.length
        terminated, truncated = ended and self.index % 2 == 0, ended and self.index % 2 == 1
        info = {"t": self.t, "tag": f"env{self.index}", "trace": np.full(2, self.t, np.int16)}
        if self.t % 2:
            info["odd"] = {"half": self.t / 2}
        return self.observation_space.sample(), float(self.np_random.random()), terminated, truncated, info


def factories(space: Space, action_space: Space | None = None, env=ToyEnv, n: int = N):
    return [lambda i=i: env(space, space if action_space is None else action_space, i) for i in range(n)]


def same(a, b, path="") -> None:
    """a and b equal and of the same types all the way down (dict key order too; arrays by dtype, shape and
    exact values, NaN equal to NaN)."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__} ({a!r} vs {b!r})"
    if isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for key in a:
            same(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, (tuple, list)):  # GraphInstance (a named tuple) too
        assert len(a) == len(b), f"{path}: {len(a)} != {len(b)} items"
        for k, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{k}]")
    elif isinstance(a, np.ndarray):
        assert (a.dtype, a.shape) == (b.dtype, b.shape), f"{path}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        if a.dtype == object:
            for k, (x, y) in enumerate(zip(a.ravel(), b.ravel())):
                same(x, y, f"{path}[{k}]")
        else:
            np.testing.assert_array_equal(a, b, err_msg=path)
    else:
        assert a == b or (a != a and b != b), f"{path}: {a!r} != {b!r}"


def both(fns, **kwargs):
    return SyncVectorEnv(fns, **{k: v for k, v in kwargs.items() if k != "pin"}), ThreadVectorEnv(fns, **kwargs)


def play_side_by_side(sync, ours, steps: int = STEPS, seed=5):
    """Reset both with `seed`, then step both with the same sampled actions (resetting the ended envs by
    `reset_mask` in DISABLED mode); every output and every env's actions the same."""
    same(sync.reset(seed=seed), ours.reset(seed=seed), "reset")
    sync.action_space.seed(0)
    ended = np.zeros(sync.num_envs, bool)
    for k in range(steps):
        if sync.autoreset_mode is AutoresetMode.DISABLED and ended.any():
            same(sync.reset(options={"reset_mask": ended}), ours.reset(options={"reset_mask": ended.copy()}),
                 f"reset_mask before step {k}")
        actions = sync.action_space.sample()
        expected = sync.step(actions)
        same(expected, ours.step(actions), f"step {k}")
        ended = expected[2] | expected[3]
    same([env.actions for env in sync.envs], [env.actions for env in ours.envs], "actions handed to the envs")


@pytest.mark.parametrize("pin", [False, True])
@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize("name", list(SPACES))
def test_every_space_and_autoreset_mode_as_sync_vector_env(name, mode, pin):
    sync, ours = both(factories(SPACES[name]), autoreset_mode=mode, pin=pin)
    try:
        same(sync.observation_space, ours.observation_space)
        same(sync.action_space, ours.action_space)
        play_side_by_side(sync, ours)
    finally:
        sync.close()
        ours.close()


@pytest.mark.parametrize("name", ["box-image", "dict-nested", "graph", "custom"])
def test_copy_false_gives_the_same_observations(name):
    sync, ours = both(factories(SPACES[name]), copy=False)
    try:
        play_side_by_side(sync, ours, steps=3)
    finally:
        sync.close()
        ours.close()


def test_same_step_final_obs_is_the_env_s_own_object():
    """A scalar observation stays the env's scalar (not a 0-d array); a Dict one the env's dict."""
    for space in (Discrete(4), Dict({"a": Discrete(2)})):
        sync, ours = both(factories(space, Discrete(2), n=2), autoreset_mode=AutoresetMode.SAME_STEP)
        try:
            for venv in (sync, ours):
                venv.reset(seed=1)
                venv.step([0, 0])
                infos = venv.step([0, 0])[4]
                assert type(infos["final_obs"][0]) is type(venv.envs[0].observation_space.sample())
            play_side_by_side(sync, ours)
        finally:
            sync.close()
            ours.close()


@pytest.mark.parametrize("observation_mode", ["different", "pair"])
def test_observation_mode(observation_mode):
    spaces = [Box(0, i + 1, (2,), np.float32) for i in range(N)]
    fns = [lambda i=i: ToyEnv(spaces[i], Discrete(2), i) for i in range(N)]
    mode = (Box(0, 3, (N, 2), np.float32), Box(0, 3, (2,), np.float32)) if observation_mode == "pair" else "different"
    sync, ours = both(fns, observation_mode=mode)
    try:
        assert ours.observation_mode == mode
        same(sync.observation_space, ours.observation_space)
        same(sync.single_observation_space, ours.single_observation_space)
        play_side_by_side(sync, ours)
    finally:
        sync.close()
        ours.close()


class Raises(ToyEnv):
    def step(self, action):
        if self.index == 1:
            raise KeyError("no such thing")
        return super().step(action)


class WrongObservation(ToyEnv):
    """Observations of a type (float) that the space's dtype (uint8) cannot take as np.stack casts."""

    def reset(self, *, seed=None, options=None):
        observation, info = super().reset(seed=seed, options=options)
        return observation.astype(np.float64), info


def mistakes():
    """(name, make the vector env's arguments, what to do with it) for mistakes SyncVectorEnv refuses."""
    box, discrete = Box(0, 1, (2,)), Discrete(2)
    other_spaces = [lambda: ToyEnv(box, discrete, 0), lambda: ToyEnv(Box(0, 2, (2,)), discrete, 1)]
    other_actions = [lambda: ToyEnv(box, discrete, 0), lambda: ToyEnv(box, Discrete(3), 1)]
    plain = factories(box, discrete)
    return {
        "different observation spaces": (other_spaces, {}, None),
        "different action spaces": (other_actions, {}, None),
        "different shapes, mode different": (
            [lambda: ToyEnv(box, discrete, 0), lambda: ToyEnv(Box(0, 1, (3,)), discrete, 1)],
            {"observation_mode": "different"}, None),
        "observation_mode unknown": (plain, {"observation_mode": "invalid"}, None),
        "observation_mode not spaces": (plain, {"observation_mode": (1, 2)}, None),
        "too few actions": (plain, {}, lambda v: v.step([0] * (N - 1))),
        "too many actions": (plain, {}, lambda v: v.step(np.zeros(N + 1, int))),
        "a scalar action": (plain, {}, lambda v: v.step(0)),
        "seeds of the wrong length": (plain, {}, lambda v: v.reset(seed=[1, 2])),
        "reset_mask a list": (plain, {}, lambda v: v.reset(options={"reset_mask": [True] * N})),
        "reset_mask of ints": (plain, {}, lambda v: v.reset(options={"reset_mask": np.ones(N, int)})),
        "reset_mask of the wrong shape": (plain, {}, lambda v: v.reset(options={"reset_mask": np.ones(N + 1, bool)})),
        "reset_mask selecting nothing": (plain, {}, lambda v: v.reset(options={"reset_mask": np.zeros(N, bool)})),
        "a step after the end, autoreset disabled": (plain, {"autoreset_mode": AutoresetMode.DISABLED},
                                                     lambda v: [v.step(np.zeros(N, int)) for _ in range(3)]),
        "an env that raises": ([lambda i=i: Raises(box, discrete, i) for i in range(N)], {},
                               lambda v: v.step(np.zeros(N, int))),
        "call of a missing attribute": (plain, {}, lambda v: v.call("no_such_method")),
        "set_attr with the wrong number of values": (plain, {}, lambda v: v.set_attr("length", [1, 2])),
        "an observation of the wrong dtype": ([lambda i=i: WrongObservation(Box(0, 255, (2,), np.uint8), discrete, i)
                                               for i in range(N)], {}, None),
    }


@pytest.mark.parametrize("name", list(mistakes()))
def test_the_same_mistakes_raise_the_same_exception_types(name):
    fns, kwargs, act = mistakes()[name]
    errors = []
    for make in (SyncVectorEnv, ThreadVectorEnv):
        venv = None
        try:
            venv = make(fns, **kwargs)
            venv.reset(seed=0)
            act(venv)
        except Exception as error:  # noqa: BLE001  (the point: what each raises)
            errors.append(error)
        else:
            errors.append(None)
        finally:
            if venv is not None:
                venv.close()
    expected, ours = errors
    assert expected is not None, "SyncVectorEnv accepted it"
    assert isinstance(ours, type(expected)), f"SyncVectorEnv raises {expected!r}, ours {ours!r}"


def test_an_env_s_error_names_the_env_and_is_of_the_env_s_type():
    venv = ThreadVectorEnv([lambda i=i: Raises(Box(0, 1, (2,)), Discrete(2), i) for i in range(N)])
    try:
        venv.reset(seed=0)
        with pytest.raises(KeyError) as caught:
            venv.step(np.zeros(N, int))
        error = caught.value
        assert isinstance(error, VectorEnvError) and isinstance(error, RuntimeError)
        assert str(error) == "env 1 of 3 failed in step: KeyError: 'no such thing'"
        assert error.index == 1 and isinstance(error.cause, KeyError) and error.__cause__ is error.cause
    finally:
        venv.close()


class GlobalRandom(ToyEnv):
    """Rewards from numpy's global random generator, as many older envs draw them."""

    def step(self, action):
        observation, _, terminated, truncated, info = super().step(action)
        return observation, float(np.random.rand()), terminated, truncated, info


@pytest.mark.parametrize(("env", "warns"), [(GlobalRandom, True), (ToyEnv, False)])
def test_envs_drawing_from_numpy_s_global_generator_get_a_warning(env, warns, recwarn):
    venv = ThreadVectorEnv(factories(Box(0, 1, (2,)), Discrete(2), env=env), pin=False)
    try:
        venv.reset(seed=0)
        for _ in range(3):
            venv.step(np.zeros(N, int))
    finally:
        venv.close()
    messages = [str(w.message) for w in recwarn if "global random generator" in str(w.message)]
    assert len(messages) == (1 if warns else 0)


def test_actions_reach_each_env_as_sync_vector_env_hands_them():
    """Discrete actions as the batch array's numpy integers, Dict and Tuple actions unbatched per env."""
    for action_space in (Discrete(3), Tuple((Discrete(2), Discrete(3), Discrete(4))),
                         Dict({"x": Discrete(2), "y": Box(0, 1, (2,))})):
        sync, ours = both(factories(Discrete(2), action_space))
        try:
            play_side_by_side(sync, ours, steps=4)
        finally:
            sync.close()
            ours.close()
    venv = ThreadVectorEnv(factories(Discrete(2), Discrete(3)))
    try:
        venv.reset(seed=0)
        venv.step(np.array([2, 1, 0]))
        assert [type(env.actions[0]) for env in venv.envs] == [np.int64] * N
    finally:
        venv.close()


def test_graph_sequence_observations_are_not_lost():
    """Sequence(Graph) and Sequence(Dict) observations, unstacked: each env's own items, none empty."""
    for name in ("sequence-of-graphs", "sequence-of-dicts"):
        venv = ThreadVectorEnv([lambda i=i, s=SPACES[name]: NonEmpty(s, Discrete(2), i) for i in range(N)])
        try:
            observations, _ = venv.reset(seed=3)
            assert len(observations) == N and all(len(o) > 0 for o in observations)
            for observation, env in zip(observations, venv.envs):
                same(observation, env.last)
        finally:
            venv.close()


class NonEmpty(ToyEnv):
    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self.last = self.observation_space.sample()
        while not len(self.last):
            self.last = self.observation_space.sample()
        return self.last, {}


def test_graph_instances_batch_as_sync_does():
    space = Graph(Box(0, 1, (2,)), Discrete(3))
    sync, ours = both(factories(space, Discrete(2)))
    try:
        observations, _ = ours.reset(seed=0)
        assert isinstance(observations, tuple) and all(isinstance(o, GraphInstance) for o in observations)
        same(sync.reset(seed=0), (observations, _))
    finally:
        sync.close()
        ours.close()
