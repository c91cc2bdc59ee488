"""Training configuration: what a training run is asked to do (TrainConfig, RLlibConfig: typed values, what
`wadgym train`'s options become in wadgym.cli.train and what wadgym.agents.train takes), and the
hyperparameters in rl-baselines3-zoo's format: per-env-id entries in YAML.

A resolved configuration is plain data (the YAML values, overrides applied) and is what a run
folder stores; `ppo_kwargs` turns it into the objects PPO's constructor takes.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wadgym.agents.algos import ALGOS
from wadgym.agents.backends import DEFAULT_OPTION as DEFAULT_BACKEND
from wadgym.agents.backends import OPTIONS as BACKEND_OPTIONS  # TrainConfig.backend's values
from wadgym.agents.backends import Backend, backend_of
from wadgym.envs.registration import DEFAULT_ENV  # the env `wadgym train` trains by default


@dataclasses.dataclass(frozen=True)
class RLlibConfig:
    """The RLlib backend's size and place (TrainConfig(backend="rllib", rllib=RLlibConfig(...))); None
    takes the default.

    num_env_runners: env runner processes, one CPU each (default 2).
    envs_per_runner: envs each env runner steps (default n_envs / num_env_runners, at least 1); the
        run's n_envs becomes num_env_runners x envs_per_runner.
    num_gpus: GPU learners, one GPU each; 0 trains one learner on a CPU (default: 1 when the cluster has
        a GPU and the device is not cpu, else 0).
    address: HOST:PORT of a running Ray cluster to join (`ray start --head` prints it); None starts a
        Ray instance of this process on this machine.
    """

    num_env_runners: int | None = None
    envs_per_runner: int | None = None
    num_gpus: int | None = None
    address: str | None = None


@dataclasses.dataclass(frozen=True)
class RestartPolicy:
    """Whether dead engines are restarted, and how many restarts within `window_s` seconds a run allows
    (one more stops it, as any failure does). `wadgym train --restart-limit N[/SECONDS]`, `--no-restart`."""

    enabled: bool = True
    limit: int = 5
    window_s: float = 600.0

    @classmethod
    def parse(cls, text: str) -> RestartPolicy:
        """"N" (N restarts within 600 s) or "N/SECONDS"; a ValueError names what is valid."""
        match = re.fullmatch(r"\s*(\d+)\s*(?:/\s*(\d+(?:\.\d*)?)\s*)?", str(text))
        if match is None or (match.group(2) is not None and float(match.group(2)) <= 0):
            raise ValueError(f"--restart-limit {text!r} is not valid; give N or N/SECONDS, N a whole number "
                             f">= 0 and SECONDS > 0, e.g. 5/600 (5 engine restarts within 10 minutes)")
        return cls(True, int(match.group(1)), float(match.group(2)) if match.group(2) else cls.window_s)

    @classmethod
    def from_config(cls, value: dict[str, Any] | None) -> RestartPolicy:
        """From config.yml's `restart` entry; a run from before it has restarts on with the defaults."""
        if not value:
            return cls()
        return cls(bool(value.get("enabled", True)), int(value.get("limit", cls.limit)),
                   float(value.get("window_s", cls.window_s)))

    def as_config(self) -> dict[str, Any]:
        return {"enabled": self.enabled, "limit": self.limit, "window_s": self.window_s}

    def describe(self) -> str:
        return f"{self.limit} within {self.window_s:g} s" if self.enabled else "off"


def check_pretrain_options(pretrain: Any, epochs: Any, algo: str | None, resume: Any, init_from: Any) -> None:
    """TrainConfig's pretraining fields (agents.datasets.pretrain), checked alone: a ValueError names what is wrong."""
    if pretrain is not None and (not isinstance(pretrain, str) or not pretrain):
        raise ValueError(f"TrainConfig: pretrain={pretrain!r} is not a Minari dataset id (namespace/name-vN)")
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise ValueError(f"TrainConfig: pretrain_epochs={epochs!r} is not valid; give a whole number >= 1")
    if algo is not None and ALGOS[algo].clones and pretrain is None:
        raise ValueError(f"--algo {algo} clones the actions of a dataset: give --pretrain DATASET")
    if pretrain is not None and resume is not None:
        raise ValueError("--pretrain is for a new run; --resume continues a run from its own weights")
    if pretrain is not None and init_from is not None:
        raise ValueError("--pretrain and --init-from both set the starting weights: choose one")


def restart_settings(no_restart: bool = False, limit: str | None = None) -> dict[str, Any]:
    """config.yml's `restart` entry from `wadgym train`'s --no-restart and --restart-limit."""
    if no_restart and limit is not None:
        raise ValueError("--no-restart and --restart-limit contradict each other; give one of them")
    if no_restart:
        return RestartPolicy(enabled=False).as_config()
    return (RestartPolicy.parse(limit) if limit is not None else RestartPolicy()).as_config()


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """One training run, as `wadgym train`'s options describe it (each field is the option of that name).

    env: a registered env id, or a task file (my_task.py) defining one DoomEnv subclass.
    timesteps, n_envs: total env steps and parallel envs; None takes n_timesteps and n_envs from the
        hyperparameters.
    seed: seeds the envs, the network and the sampling. device: "auto" (CUDA when available), "cpu",
        "cuda" or "cuda:N".
    conf_file: a YAML file of hyperparameters per env id, as rl-zoo's (None: the shipped ppo.yml).
    hyperparams: overrides of the file's entry, as YAML values, e.g. {"n_epochs": 4, "learning_rate":
        "lin_1e-4"}. env_kwargs: gym.make keyword arguments, over the entry's env_kwargs.
    vec_env: how the envs are stepped: "thread" (default: threads of this process), "subproc" or "dummy".
    run_dir: the run folder (None: runs/<env>_<time>). resume: a run folder to continue from its latest
        checkpoint with its own configuration (then env, hyperparameters and the like are not read).
    save_freq: a checkpoint every this many env steps. eval_episodes, eval_seed: the final evaluation
        (trained, random and the family's scripted reference, each on seeds eval_seed, eval_seed + 1, ...
        of the test and of the training levels); 0 episodes skips it. eval_video: with the evaluation, one
        more episode of the trained policy recorded to the run folder's eval.mp4 (`--no-video`: False).
    progress: show a progress bar.
    backend: "sb3" (Stable-Baselines3 on this machine) or "rllib" (Ray RLlib, sized by `rllib`); a multi-agent
        env trains by self-play with SB3 (agents.backends).
    track: log the run to MLflow as well (agents.runs.tracking; needs pip install 'wadgym[track]'): params, code
        diff, metrics as it trains, model. Resuming a tracked run tracks it again, into the same MLflow run.
    tracking_uri: the MLflow store: http://HOST:5000 of a server, or sqlite:///PATH (None: $MLFLOW_TRACKING_URI,
        else runs/mlflow.db beside the run folders); also where init_from looks up an MLflow run id. Without
        track it tracks nothing.
    init_from: start a new SB3 run from the weights of another run (a run folder or an MLflow run id) and
        record it as the parent (config.yml's init_from; the MLflow run's lineage tags).
    restart: whether an env whose engine dies is made again with a new engine and training goes on
        (True), or the run stops (False: `--no-restart`); None: on, or for a resumed run what its
        config.yml says. See docs/reliability.md.
    restart_limit, restart_window_s: at most restart_limit engine restarts within restart_window_s
        seconds (`--restart-limit N/SECONDS`); one more stops the run with its checkpoint. None: 5
        within 600 s, or for a resumed run its stored limit. Giving either turns restarts on, so it
        contradicts restart=False.
    algo: a name of wadgym.agents.algos.ALGOS: "ppo" (SB3's PPO), "recurrent_ppo" (sb3-contrib's RecurrentPPO,
        an LSTM policy; sb3 backend only) or "bc" (behaviour cloning of `pretrain` alone, no PPO steps); None
        takes the entry's `algo`, else ppo.
    pretrain: a Minari dataset id (`wadgym record`) of the same env id and spaces: the policy network is first
        trained on its (observation, action) pairs for pretrain_epochs epochs, then PPO continues from it
        (wadgym.agents.datasets.pretrain). A new run only.
    explore: an exploration bonus added to the rewards PPO learns from (ppo and recurrent_ppo, sb3 backend):
        "KIND[:COEF]" joined by "+" with kinds counts, e3b, rnd (e.g. "e3b+rnd:0.1"), or a mapping of kind ->
        coefficient; None takes the entry's `explore`, else none (agents.exploration.explore, docs/exploration.md).
    """

    env: str = DEFAULT_ENV
    timesteps: int | float | None = None
    n_envs: int | None = None
    seed: int = 0
    device: str = "auto"
    conf_file: str | os.PathLike | None = None
    hyperparams: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    env_kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    vec_env: str | None = None
    run_dir: str | os.PathLike | None = None
    resume: str | os.PathLike | None = None
    save_freq: int = 25_000
    eval_episodes: int = 20
    eval_seed: int = 0
    eval_video: bool = True
    progress: bool = True
    backend: str = DEFAULT_BACKEND
    rllib: RLlibConfig = dataclasses.field(default_factory=RLlibConfig)
    track: bool = False
    tracking_uri: str | None = None
    init_from: str | os.PathLike | None = None
    restart: bool | None = None
    restart_limit: int | None = None
    restart_window_s: float | None = None
    algo: str | None = None
    pretrain: str | None = None
    pretrain_epochs: int = 10
    explore: str | Mapping[str, Any] | None = None

    def __post_init__(self):
        if isinstance(self.env, os.PathLike):
            object.__setattr__(self, "env", os.fspath(self.env))
        if not isinstance(self.env, str) or not self.env:
            raise ValueError(f"TrainConfig: env={self.env!r} is not an env id or a task file")
        if self.backend not in BACKEND_OPTIONS:
            raise ValueError(f"TrainConfig: backend={self.backend!r} is not valid; "
                             f"choose {' or '.join(BACKEND_OPTIONS)}")
        for name in ("hyperparams", "env_kwargs"):
            if not isinstance(getattr(self, name), Mapping):
                raise ValueError(f"TrainConfig: {name} must be a dict, not {type(getattr(self, name)).__name__}")
        if self.algo is not None:
            if self.algo not in ALGOS:
                raise ValueError(f"TrainConfig: algo={self.algo!r} is not valid; choose one of {', '.join(ALGOS)}")
        if not isinstance(self.rllib, RLlibConfig):
            raise ValueError(f"TrainConfig: rllib must be an RLlibConfig, not {type(self.rllib).__name__}")
        if self.init_from is not None and self.resume is not None:
            raise ValueError("TrainConfig: init_from is for a new run; resume continues a run from its own weights")
        self._check_restart()
        check_pretrain_options(self.pretrain, self.pretrain_epochs, self.algo, self.resume, self.init_from)

    def _check_restart(self) -> None:
        if not (self.restart is None or isinstance(self.restart, bool)):
            raise ValueError(f"TrainConfig: restart={self.restart!r} is not valid; give True, False or None")
        limit, window = self.restart_limit, self.restart_window_s
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise ValueError(f"TrainConfig: restart_limit={limit!r} is not valid; give a whole number >= 0 "
                             f"(engine restarts allowed within restart_window_s) or None")
        if window is not None and (isinstance(window, bool) or not isinstance(window, (int, float))
                                   or not window > 0 or window == float("inf")):
            raise ValueError(f"TrainConfig: restart_window_s={window!r} is not valid; give seconds > 0 or None")
        if self.restart is False and (limit is not None or window is not None):
            raise ValueError("TrainConfig: restart=False (no restarts) contradicts restart_limit/restart_window_s; "
                             "give one of them")

    def restart_overridden(self) -> bool:
        """Whether the restart settings were given (a resumed run keeps its stored ones otherwise)."""
        return (self.restart, self.restart_limit, self.restart_window_s) != (None, None, None)

    def restart_settings(self, stored: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """config.yml's `restart` entry ({"enabled", "limit", "window_s"}): `stored` (a resumed run's entry;
        None: the defaults, restarts on, 5 within 600 s) with this configuration's restart fields over it."""
        policy = RestartPolicy.from_config(dict(stored) if stored else None)
        if self.restart is False:
            policy = dataclasses.replace(policy, enabled=False)
        elif self.restart_overridden():
            policy = RestartPolicy(
                enabled=True, limit=self.restart_limit if self.restart_limit is not None else policy.limit,
                window_s=float(self.restart_window_s) if self.restart_window_s is not None else policy.window_s)
        return policy.as_config()

    def overrides(self) -> dict[str, Any]:
        """The hyperparameter overrides: `hyperparams`, then timesteps, n_envs and algo when given."""
        overrides = dict(self.hyperparams)
        if self.algo is not None:
            overrides["algo"] = self.algo
        if self.explore is not None:
            overrides["explore"] = self.explore
        if self.timesteps is not None:
            overrides["n_timesteps"] = self.timesteps  # checked with the other hyperparameters
        if self.n_envs is not None:
            overrides["n_envs"] = self.n_envs
        return overrides

    def hyperparams_file(self) -> str:
        """The hyperparameter file, as config.yml records it."""
        return str(self.conf_file) if self.conf_file else "wadgym/agents/hyperparams/ppo.yml"


DEFAULT_HYPERPARAMS = Path(__file__).parent / "hyperparams" / "ppo.yml"

# Keys the zoo (and wadgym) read themselves; every other key goes to PPO(...).
ZOO_KEYS = {
    "n_envs": "number of parallel environments (stepped as `wadgym train --vec-env` says)",
    "n_timesteps": "total environment steps to train",
    "policy": "SB3 policy name, e.g. CnnPolicy",
    "frame_stack": "number of frames stacked (VecFrameStack); 0 or 1 for none",
    "normalize": "VecNormalize: true, false, or a dict string such as \"{'norm_obs': False, 'norm_reward': True}\"",
    "env_kwargs": "keyword arguments for gym.make (part of the resolved config)",
    "torch_threads": "torch.set_num_threads on CPU ('auto' keeps torch's default)",
    "algo": "; ".join(f"{name}: {algo.summary}" for name, algo in ALGOS.items())
            + " (agents.algos; `wadgym train --algo`, default ppo)",
    "curriculum": "stages [{until: STEPS, env_kwargs: {...}}, ...]: the training envs' kwargs before each "
                  "threshold (agents.backends.curriculum)",
    "explore": "exploration bonus added to the rewards PPO learns from: KIND[:COEF] joined by + (counts, e3b, rnd; "
               "e.g. e3b+rnd:0.1), or a mapping of kind -> coefficient or settings "
               "(agents.exploration.explore); `wadgym train --explore`",
    "demos": "the learning benchmark's demonstrations ({policy, episodes, levels, epochs}: bench/learn.py --budget "
             "demos records them and trains with --pretrain); `wadgym train` reads no dataset from it",
}

# PPO arguments a config may not set: wadgym supplies them from the command line or the run.
RESERVED_PPO_ARGS = {"self", "env", "policy", "device", "seed", "tensorboard_log", "verbose", "_init_setup_model"}


def run_backend(settings: Mapping[str, Any]) -> Backend:
    """The backend that trained a run, from its configuration (config.yml): the backends table's entry
    (agents.backends.backend_of), for the rooms that read run folders and may not import the backends: what a
    run is (`.multi_agent`, `.name`) is asked of the table, never of config.yml's keys."""
    return backend_of(settings)


def valid_keys() -> dict[str, str]:
    """Every key a hyperparameter entry may hold, with a short description."""
    from stable_baselines3 import PPO

    keys = dict(ZOO_KEYS)
    for name in inspect.signature(PPO.__init__).parameters:
        if name not in RESERVED_PPO_ARGS:
            keys[name] = "PPO argument"
    return keys


def load_hyperparams(env_id: str, path: str | Path | None = None) -> dict[str, Any]:
    """The entry for `env_id` in the YAML file (the default one when `path` is None)."""
    path = Path(path) if path is not None else DEFAULT_HYPERPARAMS
    if not path.is_file():
        raise ValueError(f"hyperparameter file {str(path)!r} does not exist")
    table = read_yaml(path) or {}
    if not isinstance(table, dict):
        raise ValueError(f"{path}: expected a mapping of env id -> hyperparameters")
    if env_id not in table and str(env_id).endswith(".py"):
        entry = task_file_hyperparams(env_id, table)
        check_keys(entry, where=f"{env_id} [HYPERPARAMS]")
        return entry
    if env_id not in table:
        raise ValueError(
            f"{path}: no hyperparameters for env {env_id!r}; env ids in this file: {', '.join(sorted(table))}"
        )
    entry = dict(table[env_id] or {})
    check_keys(entry, where=f"{path} [{env_id}]")
    return entry


def read_yaml(path: str | Path) -> Any:
    """A YAML file's contents; unparsable YAML is a ValueError naming the file, line and problem."""
    import yaml

    try:
        with open(path) as f:
            return yaml.safe_load(f)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" line {where.line + 1}" if where is not None else ""
        raise ValueError(f"{path}:{line} is not valid YAML: {getattr(exc, 'problem', None) or exc}") from None


def task_file_hyperparams(path: str, table: dict[str, Any]) -> dict[str, Any]:
    """A task file's own HYPERPARAMS dict, else the default env's entry without its env_kwargs."""
    from wadgym.envs.scenarios import load_scenario

    own = getattr(load_scenario(str(path)), "HYPERPARAMS", None)
    if own is not None:
        if not isinstance(own, dict):
            raise ValueError(f"{path}: HYPERPARAMS must be a dict of hyperparameters, not {type(own).__name__}")
        return dict(own)
    return {k: v for k, v in (table.get(DEFAULT_ENV) or {}).items() if k != "env_kwargs"}


def check_keys(entry: dict[str, Any], where: str) -> None:
    unknown = sorted(set(entry) - set(valid_keys()))
    if unknown:
        raise ValueError(
            f"{where}: unknown hyperparameter(s) {', '.join(unknown)}; valid keys: {', '.join(sorted(valid_keys()))}"
        )


def resolve_hyperparams(config: TrainConfig) -> dict[str, Any]:
    """The hyperparameters `config` gives: the entry for its env in its conf_file (else the shipped
    ppo.yml) with its overrides and env kwargs; all checked (a ValueError names what is wrong)."""
    return resolve(config.env, config.conf_file, config.overrides(), dict(config.env_kwargs))


def resolve(
    env_id: str,
    hyperparams_path: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """YAML entry for `env_id` with command-line overrides applied; env kwargs merged over the YAML's."""
    hp = load_hyperparams(env_id, hyperparams_path)
    overrides = dict(overrides or {})
    check_keys(overrides, where="--hp")
    merged_env_kwargs = {**(hp.get("env_kwargs") or {}), **(overrides.pop("env_kwargs", None) or {}),
                         **(env_kwargs or {})}
    hp.update(overrides)
    hp["env_kwargs"] = merged_env_kwargs
    hp.setdefault("policy", "CnnPolicy")
    hp.setdefault("n_envs", 1)
    hp.setdefault("frame_stack", 0)
    hp.setdefault("normalize", False)
    if "n_timesteps" not in hp:
        raise ValueError(f"hyperparameters for {env_id!r} need n_timesteps (or pass --timesteps)")
    check_hyperparams(hp)
    return hp


POLICIES = ("CnnPolicy", "MlpPolicy", "MultiInputPolicy")
VECNORMALIZE_KEYS = ("training", "norm_obs", "norm_reward", "clip_obs", "clip_reward", "gamma", "epsilon",
                     "norm_obs_keys")
# key -> (low, high, whole): inclusive ranges of the numeric hyperparameters (None: unbounded).
RANGES: dict[str, tuple[float | None, float | None, bool]] = {
    "n_envs": (1, 4096, True),
    "n_timesteps": (1, None, True),
    "n_steps": (1, None, True),
    "batch_size": (2, None, True),       # PPO normalises advantages over a batch: one sample is refused
    "n_epochs": (1, None, True),
    "frame_stack": (0, 64, True),
    "gamma": (0.0, 1.0, False),
    "gae_lambda": (0.0, 1.0, False),
    "ent_coef": (0.0, None, False),
    "vf_coef": (0.0, None, False),
    "max_grad_norm": (0.0, None, False),
    "sde_sample_freq": (-1, None, True),
    "stats_window_size": (1, None, True),
}
SCHEDULES = ("learning_rate", "clip_range", "clip_range_vf")
FLAGS = ("normalize_advantage", "use_sde")


def check_hyperparams(hp: dict[str, Any]) -> None:
    """Check every hyperparameter PPO or wadgym reads, before any env, engine or run folder exists; a
    ValueError names the key and what is valid. Numbers given as text ("1e5") become numbers in `hp`."""
    from wadgym.envs.checks import check_number

    for key, (lo, hi, whole) in RANGES.items():
        if key in hp:
            value = hp[key]
            if whole and isinstance(value, str):
                value = _number(key, value)
            if whole and isinstance(value, float) and value.is_integer():
                value = int(value)  # 5e4 from YAML
            hp[key] = check_number(key, value, lo, hi, whole=whole)
    if hp.get("n_steps", 2) * hp["n_envs"] < 2:
        raise ValueError(f"n_steps={hp.get('n_steps')} x n_envs={hp['n_envs']} must be at least 2 samples per rollout")
    for key in SCHEDULES:
        if key in hp and not (key == "clip_range_vf" and hp[key] is None):
            schedule(hp[key], key)
    if hp.get("target_kl") is not None:
        check_number("target_kl", hp["target_kl"], 0.0)
    for key in FLAGS:
        if key in hp and not isinstance(hp[key], bool):
            raise ValueError(f"{key}={hp[key]!r} is not valid; choose true or false")
    if hp["policy"] not in POLICIES:
        raise ValueError(f"policy={hp['policy']!r} is not valid; choose one of {', '.join(POLICIES)}")
    if "algo" in hp:
        from wadgym.agents.algos import check_algo

        check_algo(hp["algo"])
    if "curriculum" in hp:
        check_curriculum(hp["curriculum"])
    if "explore" in hp:
        from wadgym.agents.exploration.explore import parse_explore

        explore = parse_explore(hp["explore"])
        if explore is None:
            del hp["explore"]
        else:
            hp["explore"] = explore
    torch_threads = hp.get("torch_threads", "auto")
    if torch_threads != "auto":
        check_number("torch_threads", torch_threads, 1, 1024, whole=True)
    normalize_kwargs(hp)
    if "policy_kwargs" in hp:
        parse_policy_kwargs(hp["policy_kwargs"])


def _number(key: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{key}={text!r} is not a number") from None


# Env kwargs a curriculum stage may not set: the level split is the id's, whatever the stage.
LEVEL_KWARGS = ("num_levels", "start_level")


def check_curriculum(stages: Any) -> list[dict[str, Any]]:
    """The stages of a `curriculum` value (wadgym.agents.backends.curriculum), checked: a list of {until: whole
    number > 0, env_kwargs: dict} with `until` rising; a ValueError names what is wrong."""
    if stages is None:
        return []
    where = "curriculum"
    if not isinstance(stages, list):
        raise ValueError(f"{where}: expected a list of stages such as "
                         f"[{{until: 200000, env_kwargs: {{rows: 2}}}}], not {type(stages).__name__}")
    last = 0
    for k, stage in enumerate(stages):
        if not isinstance(stage, dict) or set(stage) != {"until", "env_kwargs"}:
            raise ValueError(f"{where}[{k}]: a stage is {{until: STEPS, env_kwargs: {{...}}}}, not {stage!r}")
        until, kwargs = stage["until"], stage["env_kwargs"]
        if isinstance(until, float) and until.is_integer():
            until = stage["until"] = int(until)
        if isinstance(until, bool) or not isinstance(until, int) or until <= last:
            raise ValueError(f"{where}[{k}]: until={until!r} must be a whole number of steps above the previous "
                             f"stage's ({last})")
        if not isinstance(kwargs, dict):
            raise ValueError(f"{where}[{k}]: env_kwargs must be a mapping, not {kwargs!r}")
        fixed = sorted(set(kwargs) & set(LEVEL_KWARGS))
        if fixed:
            raise ValueError(f"{where}[{k}]: a stage may not set {', '.join(fixed)}: the level split stays the "
                             "entry's own")
        last = until
    return stages


def schedule(value: Any, key: str = "schedule") -> Any:
    """zoo schedules: 'lin_2.5e-4' -> SB3's LinearSchedule from 2.5e-4 down to 0 over the whole run;
    positive numbers pass through."""
    from stable_baselines3.common.utils import LinearSchedule

    from wadgym.envs.checks import check_number

    if isinstance(value, str):
        start = value[len("lin_"):] if value.startswith("lin_") else None
        try:
            return LinearSchedule(check_number(key, float(start), 0.0), 0.0, 1.0)
        except (TypeError, ValueError):
            raise ValueError(f"{key}={value!r} is not valid: a positive number or 'lin_<start>' "
                             "(e.g. lin_2.5e-4)") from None
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or value != value
            or value == float("inf")):
        raise ValueError(f"{key}={value!r} is not valid: a positive number or 'lin_<start>' (e.g. lin_2.5e-4)")
    return float(value)


def parse_policy_kwargs(text: Any) -> dict[str, Any]:
    """zoo-style policy_kwargs: a Python dict expression (read, never eval'd: see literal), where torch.nn's
    classes (nn.ReLU) and the registered feature extractors (SmallCNN, NatureCNN, ImpalaCNN) are the names in
    scope."""
    if text is None:
        return {}
    if isinstance(text, dict):
        kwargs = dict(text)
    else:
        import torch.nn as nn

        from wadgym.agents.features import EXTRACTORS

        scope = {**EXTRACTORS, **{f"nn.{name}": getattr(nn, name) for name in dir(nn) if name[:1].isupper()}}
        try:
            kwargs = literal(str(text), scope)
        except ValueError as exc:
            raise ValueError(f"policy_kwargs {text!r} is not a valid dict expression ({exc}); names in scope: "
                             f"{', '.join(sorted(EXTRACTORS))}, nn.<torch.nn class>") from None
        if not isinstance(kwargs, dict):
            raise ValueError(f"policy_kwargs {text!r} is not a dict")
    extractor = kwargs.get("features_extractor_class")
    if isinstance(extractor, str):
        from wadgym.agents.features import get_extractor

        kwargs["features_extractor_class"] = get_extractor(extractor)
    return kwargs


def ppo_kwargs(hp: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments PPO(...) gets from a resolved config (schedules and policy_kwargs built)."""
    kwargs = {k: v for k, v in hp.items() if k not in ZOO_KEYS}
    for key in ("learning_rate", "clip_range", "clip_range_vf"):
        if kwargs.get(key) is not None:
            kwargs[key] = schedule(kwargs[key])
    if "policy_kwargs" in kwargs:
        kwargs["policy_kwargs"] = parse_policy_kwargs(kwargs["policy_kwargs"])
    return kwargs


def normalize_kwargs(hp: dict[str, Any]) -> dict[str, Any] | None:
    """VecNormalize kwargs for the zoo's `normalize` key, or None when off."""
    value = hp.get("normalize", False)
    if isinstance(value, str):  # zoo habit: a dict string
        try:
            value = literal(value, {})
        except ValueError as exc:
            raise ValueError(f"normalize={value!r} is not valid ({exc}); expected true, false or a dict such as "
                             f"\"{{'norm_obs': False, 'norm_reward': True}}\"") from None
    if value is True:
        return {}
    if value is False or value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"normalize={value!r} is not valid; expected true, false or a dict")
    unknown = sorted(set(value) - set(VECNORMALIZE_KEYS))
    if unknown:
        raise ValueError(f"normalize: unknown VecNormalize argument(s) {', '.join(map(str, unknown))}; "
                         f"valid: {', '.join(VECNORMALIZE_KEYS)}")
    return dict(value)


def literal(text: str, names: dict[str, Any]) -> Any:
    """The value of a Python literal expression: numbers, strings, True/False/None, lists, tuples, dicts,
    dict(key=value, ...) and the `names` given (dotted ones too, e.g. "nn.ReLU"). Nothing is executed:
    any other name, call or operator is a ValueError saying what it is."""
    import ast

    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"not a Python expression: {exc.msg}") from None

    def value(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [value(item) for item in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            return {value(k): value(v) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return -node.operand.value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
            return {k.arg: value(k.value) for k in node.keywords if k.arg is not None}
        if isinstance(node, (ast.Name, ast.Attribute)):
            dotted = ast.unparse(node)
            if dotted in names:
                return names[dotted]
            raise ValueError(f"unknown name {dotted!r}")
        raise ValueError(f"{ast.unparse(node)!r} is not allowed (only literals, dict(...) and known names)")

    return value(tree)
