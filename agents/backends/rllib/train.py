"""Train PPO with Ray RLlib into a wadgym run folder (`wadgym train --backend rllib`).

The Algorithm (with its learner, unless GPUs hold remote learners) runs in one Ray actor; env runners
are actors of their own, one CPU each. All of them share one placement group with the SPREAD strategy,
so env runners go to different nodes where the cluster has several; its first bundle (the Algorithm) is
pinned to this machine's node, because that is where the run folder is. The driver (this process)
asks for one training iteration at a time, records episodes, TensorBoard scalars and checkpoints,
and decides when to stop: at the step budget, on Ctrl-C (checkpoint, exit 130) or when an env
runner fails (status failed, the runner's traceback in meta.json).
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

from wadgym.agents.config import RLlibConfig, TrainConfig
from wadgym.agents.runs.lifecycle import SessionOptions, TrainResult

# SB3 PPO hyperparameter -> RLlib PPO setting; what RLlib cannot do is refused (UNSUPPORTED).
RENAMED = {"batch_size": "minibatch_size", "n_epochs": "num_epochs", "clip_range": "clip_param",
           "ent_coef": "entropy_coeff", "vf_coef": "vf_loss_coeff", "max_grad_norm": "grad_clip",
           "gamma": "gamma", "gae_lambda": "lambda_"}
SB3_DEFAULTS = {"n_steps": 2048, "batch_size": 64, "n_epochs": 10, "learning_rate": 3e-4, "clip_range": 0.2,
                "ent_coef": 0.0, "vf_coef": 0.5, "max_grad_norm": 0.5, "gamma": 0.99, "gae_lambda": 0.95}
WADGYM_KEYS = {"n_envs", "n_timesteps", "policy", "policy_kwargs", "frame_stack", "env_kwargs", "torch_threads",
               "learning_rate", "n_steps", "clip_range_vf", "normalize", "normalize_advantage", "target_kl",
               "use_sde", "sde_sample_freq", "stats_window_size"}
UNSUPPORTED = {
    "normalize": "VecNormalize statistics",
    "target_kl": "stopping an update's epochs early at a KL target",
    "use_sde": "state-dependent exploration",
    "normalize_advantage": "turning advantage normalisation off (RLlib always standardises them)",
}
DEFAULT_ENV_RUNNERS = 2
RAY_TOKEN = Path.home() / ".ray" / "auth_token"  # where `ray start --head` keeps its authentication token
PLACEMENT_TIMEOUT_S = 60


def settings(options: RLlibConfig, hp: dict[str, Any]) -> dict[str, Any]:
    """The `rllib` section of config.yml from the backend's options (TrainConfig.rllib); sets hp["n_envs"]
    to runners x envs. Bad values are ValueErrors (naming `wadgym train`'s option), raised before anything
    starts."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:  # the CLI turns this into "pip install 'wadgym[rllib]'"
        raise ModuleNotFoundError("No module named 'ray'", name="ray")
    if options.address:
        check_address(options.address)
    runners = options.num_env_runners if options.num_env_runners is not None else DEFAULT_ENV_RUNNERS
    if runners < 1:
        raise ValueError(f"--num-env-runners must be >= 1, got {runners}")
    per_runner = (options.envs_per_runner if options.envs_per_runner is not None
                  else max(1, math.ceil(hp["n_envs"] / runners)))
    if per_runner < 1:
        raise ValueError(f"--envs-per-runner must be >= 1, got {per_runner}")
    if options.num_gpus is not None and options.num_gpus < 0:
        raise ValueError(f"--num-gpus must be >= 0, got {options.num_gpus}")
    hp["n_envs"] = runners * per_runner
    ppo_settings(hp)  # refuse what RLlib cannot do now, not after the cluster started
    if int(hp.get("frame_stack") or 0) > 1 and hp["env_kwargs"].get("color"):
        raise ValueError("--backend rllib stacks one-channel frames only (RLlib's frame-stacking connectors): "
                         "use color=False, or frame_stack 1 with color=True")
    return {"num_env_runners": runners, "envs_per_runner": per_runner,
            "num_gpus": "auto" if options.num_gpus is None else options.num_gpus}


def ppo_settings(hp: dict[str, Any]) -> dict[str, Any]:
    """PPOConfig.training(...) arguments for resolved SB3-style hyperparameters, SB3's defaults where
    the YAML says nothing, so both backends train the same PPO: no KL penalty, no value clipping
    unless clip_range_vf, gradient clipping by global norm, a linear learning-rate decay for lin_*."""
    from wadgym.agents.config import ZOO_KEYS

    refused = sorted(key for key in UNSUPPORTED if hp.get(key) not in (None, False, 0)
                     and not (key == "normalize_advantage" and hp[key] is True))
    if refused:
        raise ValueError("--backend rllib cannot do " + "; ".join(f"{key} ({UNSUPPORTED[key]})" for key in refused))
    unknown = sorted(set(hp) - set(RENAMED) - WADGYM_KEYS - set(ZOO_KEYS))
    if unknown:
        raise ValueError(f"--backend rllib does not know the PPO hyperparameter(s) {', '.join(unknown)}; "
                         f"it maps {', '.join(sorted({*RENAMED, 'learning_rate', 'n_steps', 'clip_range_vf'}))}")
    values = {**SB3_DEFAULTS, **{k: v for k, v in hp.items() if v is not None}}
    for key in ("clip_range", "clip_range_vf"):
        if isinstance(values.get(key), str):
            raise ValueError(f"--backend rllib takes {key} as a number, not the schedule {values[key]!r}")
    training = {RENAMED[key]: values[key] for key in RENAMED}
    learning_rate = values["learning_rate"]
    if isinstance(learning_rate, str):
        from wadgym.agents.config import schedule

        start = schedule(learning_rate).start
        learning_rate = [[0, start], [hp["n_timesteps"], 0.0]]  # RLlib interpolates by env steps sampled
    training.update(lr=learning_rate, use_kl_loss=False, grad_clip_by="global_norm",
                    vf_clip_param=float(hp["clip_range_vf"]) if hp.get("clip_range_vf") else float("inf"),
                    train_batch_size_per_learner=int(values["n_steps"]) * int(hp["n_envs"]))
    return training


def algorithm_config(config: dict[str, Any], num_gpus: int, failure_log: str | None = None):
    """The PPOConfig of a run's configuration, with `num_gpus` GPU learners (0: one learner on a CPU);
    env runners report env failures to the envs.FailureLog actor named `failure_log`."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.connectors.env_to_module.frame_stacking import FrameStackingEnvToModule
    from ray.rllib.connectors.learner.frame_stacking import FrameStackingLearner
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from wadgym.agents.backends.rllib.envs import RLLIB_ENV, EpisodeRecorder
    from wadgym.agents.backends.rllib.module import SB3PolicyModule
    from wadgym.agents.restart import RestartPolicy, rllib_fault_tolerance

    hp, rllib = config["hyperparams"], config["rllib"]
    frames = int(hp.get("frame_stack") or 0)
    training = ppo_settings(hp)
    if num_gpus > 1:  # each learner takes its share of the batch
        training["train_batch_size_per_learner"] = max(1, training["train_batch_size_per_learner"] // num_gpus)
    ppo = (
        PPOConfig()
        .environment(RLLIB_ENV, env_config={"env_id": config["env"], "env_kwargs": hp["env_kwargs"],
                                             "seed": config["seed"], "failure_log": failure_log})
        .env_runners(num_env_runners=rllib["num_env_runners"], num_envs_per_env_runner=rllib["envs_per_runner"],
                     num_cpus_per_env_runner=1, gym_env_vectorize_mode="vector_entry_point",
                     env_to_module_connector=(lambda env, spaces, device: FrameStackingEnvToModule(num_frames=frames))
                     if frames > 1 else None)
        .learners(num_learners=num_gpus, num_gpus_per_learner=1 if num_gpus else 0,
                  learner_connector=(lambda obs_space, act_space: FrameStackingLearner(num_frames=frames))
                  if frames > 1 else None)
        .training(num_epochs=training.pop("num_epochs"), **training)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=SB3PolicyModule, model_config={
            "policy": hp.get("policy", "CnnPolicy"), "policy_kwargs": hp.get("policy_kwargs")}))
        .callbacks(EpisodeRecorder)
        .fault_tolerance(**rllib_fault_tolerance(RestartPolicy.from_config(config.get("restart"))))
        .resources(num_cpus_for_main_process=torch_threads(hp))
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .debugging(seed=config["seed"], log_level="ERROR")
    )
    return ppo


def torch_threads(hp: dict[str, Any]) -> int:
    threads = hp.get("torch_threads", "auto")
    return 1 if threads in (None, "auto") else int(threads)


class AlgorithmActor:
    """The Algorithm, inside a Ray actor (ray.remote(AlgorithmActor) at use): one training iteration per call,
    results trimmed to what the run records; saving and restoring checkpoints at run-folder paths."""

    def __init__(self, ppo_config, threads: int, restore_from: str | None):
        import torch

        torch.set_num_threads(threads)
        self.algo = ppo_config.build_algo()
        if restore_from:
            self.algo.restore_from_path(restore_from)

    def train(self) -> dict[str, Any]:
        from wadgym.agents.backends.rllib.envs import pop_episodes

        result = self.algo.train()
        batches = self.algo.env_runner_group.foreach_env_runner(pop_episodes, local_env_runner=False)
        runners = result.get("env_runners", {})
        learner = result.get("learners", {}).get("default_policy", {})
        scalars = {f"rollout/{key}": runners[key] for key in ("episode_return_mean", "episode_len_mean")
                   if key in runners}
        scalars.update({f"train/{key}": value for key, value in learner.items()
                        if isinstance(value, (int, float)) and not isinstance(value, bool)})
        return {"timesteps": int(result.get("num_env_steps_sampled_lifetime", 0)),
                "restarts": self.restart_counts(),
                "episodes": [episode for batch in batches for episode in batch],
                "scalars": {key: float(value) for key, value in scalars.items()}}

    def restart_counts(self) -> dict[str, int]:
        """What RLlib's fault tolerance restarted so far (agents.restart.RLlibRestarts)."""
        from ray.rllib.env.env_runner import NUM_ENV_STEP_FAILURES_LIFETIME
        from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS

        group = self.algo.env_runner_group
        failures = self.algo.metrics.peek((ENV_RUNNER_RESULTS, NUM_ENV_STEP_FAILURES_LIFETIME), default=0)
        lost = group.num_remote_workers() - group.num_healthy_remote_workers()  # being restarted now
        return {"env runners": int(group.num_remote_worker_restarts()) + lost, "envs": int(failures)}

    def timesteps(self) -> int:
        from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

        return int(self.algo.metrics.peek((ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME), default=0))

    def save(self, path: str) -> str:
        self.algo.save_to_path(path)
        return path

    def learner_device(self) -> str:
        from wadgym.agents.system import device_description

        learner = getattr(self.algo.learner_group, "_learner", None)  # None: remote learners
        device = str(learner._device) if learner is not None else "cuda"
        return device_description(device) if learner is not None else "cuda (remote GPU learners)"

    def stop(self) -> None:
        self.algo.stop()


def check_address(address: str, timeout: float = 5.0) -> None:
    """A ValueError unless something listens at HOST:PORT (ray.init would retry for minutes)."""
    import socket

    host, _, port = address.replace("ray://", "").rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--address {address!r}: expected HOST:PORT, e.g. 10.0.0.1:6379 "
                         "(what `ray start --head` prints)")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"--address {address}: no Ray cluster answers there ({exc}); start one with "
                         f"`ray start --head --port={port}` on that machine") from None


def connect(address: str | None, cpus_needed: int) -> bool:
    """ray.init: join the cluster at `address`, else start a Ray instance here with enough logical CPUs
    for the run (a 2-core machine may run more env runners than cores). Returns whether Ray started here."""
    import logging

    import ray

    logging.getLogger("ray.rllib").setLevel(logging.ERROR)  # RLlib's notices to developers, not users
    if address:
        check_address(address)
        try:
            ray.init(address=address, log_to_driver=False, logging_level="ERROR")
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ValueError(f"--address {address}: could not join a Ray cluster there ({exc}); start one with "
                             f"`ray start --head`, pass the address it prints, and have the head's "
                             f"{RAY_TOKEN} here (or RAY_AUTH_TOKEN set)") from None
        return False
    ray.init(address="local", num_cpus=max(cpus_needed, os.cpu_count() or 1), include_dashboard=False,
             log_to_driver=False, logging_level="ERROR")
    return True


def cluster_nodes() -> list[dict[str, Any]]:
    """Every live node of the cluster: id, address, whether it is the head, its resources."""
    import ray

    nodes = []
    for node in ray.nodes():
        if not node.get("Alive"):
            continue
        resources = node.get("Resources", {})
        nodes.append({"node_id": node["NodeID"], "address": node.get("NodeManagerAddress"),
                      "head": "node:__internal_head__" in resources,
                      "resources": {k: v for k, v in resources.items() if not k.startswith("node:")}})
    return nodes


def gpus_for(requested: Any, device: str) -> int:
    """GPU learners: the number asked for, else 1 when the cluster has a GPU and the device allows it."""
    import ray

    available = int(ray.cluster_resources().get("GPU", 0))
    if requested == "auto":
        if device == "cpu":
            return 0
        if device.startswith("cuda") and not available:
            raise ValueError(f"--device {device}: the Ray cluster has no GPU")
        return 1 if available else 0
    if int(requested) > available:
        raise ValueError(f"--num-gpus {requested}: the Ray cluster has {available} GPU(s)")
    return int(requested)


def placement(ppo_config, timeout: float = PLACEMENT_TIMEOUT_S):
    """A SPREAD placement group with RLlib's own bundles for this config (Algorithm, env runners,
    learners), its first bundle on this node; a ValueError when the cluster cannot hold it."""
    import ray
    from ray.rllib.algorithms.ppo import PPO
    from ray.util.placement_group import placement_group, remove_placement_group

    bundles = [dict(b) for b in PPO.default_resource_request(ppo_config).bundles]
    bundles = [{k: v for k, v in b.items() if v} or {"CPU": 0.01} for b in bundles]
    here = ray.get_runtime_context().get_node_id()
    group = placement_group(bundles, strategy="SPREAD",
                            bundle_label_selector=[{"ray.io/node-id": here}] + [{} for _ in bundles[1:]])
    try:
        ray.get(group.ready(), timeout=timeout)
    except ray.exceptions.GetTimeoutError:
        remove_placement_group(group)
        total = {key: sum(b.get(key, 0) for b in bundles) for key in ("CPU", "GPU")}
        raise ValueError(
            f"the Ray cluster cannot hold this run within {timeout:.0f} s: it needs {total['CPU']:g} CPUs "
            f"({bundles[0].get('CPU', 0):g} on this node for the trainer, 1 per env runner) and "
            f"{total['GPU']:g} GPUs; it has {ray.cluster_resources()}. Use fewer --num-env-runners, or add nodes"
        ) from None
    return group, bundles


def placement_by_node(group) -> dict[str, Any]:
    """Which node holds each bundle of the placement group (bundle 0: the trainer)."""
    from ray.util.placement_group import placement_group_table

    return {str(index): node for index, node in placement_group_table(group).get("bundles_to_node_id", {}).items()}


def train(run_dir: Path, config: dict[str, Any], resume: bool = False, save_freq: int = 25_000,
          progress: bool = True, address: str | None = None, tracker=None) -> TrainResult:
    """Train (or resume) the RLlib run in `run_dir` (its resolved configuration `config`) on the Ray
    cluster at `address` (None: a Ray instance of this process): the same files and result as the SB3
    backend (agents.backends.sb3.train); each iteration's scalars also go to `tracker` (an
    agents.runs.tracking.runs.Tracker) when given. Nothing stays running: the trainer, env runners, engines and
    a Ray instance started here end with it."""
    from wadgym.agents.backends import BACKENDS
    from wadgym.agents.runs.lifecycle import train_session

    options = SessionOptions(save_freq, progress, address=address, tracker=tracker)
    return train_session(Path(run_dir), config, BACKENDS["rllib"], options, resume)


class RLlibTrainer:
    """The RLlib backend (agents.backends; a lifecycle.Trainer). A session: entering connects to Ray (or
    starts it) and places the run's bundles; `start` builds the Algorithm's actor (a failure there, such as
    an env that cannot be made, is the session's) and records the cluster in meta.json; `learn` is the
    TrainingLoop; leaving stops the actor, frees the placement group and stops a Ray instance started here."""

    @classmethod
    def resolve(cls, config: TrainConfig, hyperparams: dict[str, Any]) -> dict[str, Any]:
        """config.yml's `rllib` (settings: n_envs becomes runners x envs) and vec_env; the env made once."""
        from wadgym.agents.vec import make_env

        rllib = settings(config.rllib, hyperparams)
        make_env(config.env, hyperparams["env_kwargs"]).close()  # bad env kwargs: a ValueError here, not in a runner
        return {"rllib": rllib, "vec_env": config.vec_env or "thread"}

    @classmethod
    def evaluate(cls, run_dir: Path, episodes: int, seed: int, video: bool) -> dict[str, Any]:
        """As an SB3 run's (lifecycle.evaluate_run): the network is loaded without Ray."""
        from wadgym.agents.runs.lifecycle import evaluate_run

        return evaluate_run(run_dir, episodes, seed, video)["eval"]

    def __init__(self, run_dir: Path, config: dict[str, Any], saved: Path | None, options: SessionOptions):
        self.run_dir = Path(run_dir).resolve()  # the trainer actor writes checkpoints there
        self.config, self.saved, self.options = config, saved, options
        self.hp, self.rllib = config["hyperparams"], config["rllib"]
        self.device = "cpu"  # until start: where the learner trains
        self.actor = self.group = self.loop = None
        self.connected = self.started_here = False
        self._steps = 0

    def __enter__(self) -> RLlibTrainer:
        use_auth_token(self.options.address)
        import ray

        self.started_here = connect(self.options.address, self.rllib["num_env_runners"] + torch_threads(self.hp))
        self.connected = True
        try:
            self.num_gpus = gpus_for(self.rllib["num_gpus"], self.config["device"])
            self.failures, failures_name = start_failure_log()
            self.ppo_config = algorithm_config(self.config, self.num_gpus, failures_name)
            self.group, self.bundles = placement(self.ppo_config)
        except BaseException:
            self.__exit__()
            raise
        hp, rllib, config = self.hp, self.rllib, self.config
        print(f"{'resuming' if self.saved is not None else 'training'} PPO (RLlib {ray.__version__}) on "
              f"{config['env']}: {hp['n_timesteps']} steps, {rllib['num_env_runners']} env runners x "
              f"{rllib['envs_per_runner']} envs, {self.num_gpus or 'no'} GPU learner(s), {len(cluster_nodes())} "
              f"node(s), seed {config['seed']}; run folder {self.run_dir}", flush=True)
        return self

    def __exit__(self, *exc_info) -> None:
        if self.connected:
            shut_down(self.actor, self.group, self.started_here)

    @property
    def steps(self) -> int:
        return self.loop.timesteps if self.loop is not None else self._steps

    @property
    def stopped(self) -> bool:
        return self.loop is not None and self.loop.stop_signal is not None

    def start(self, meta: dict[str, Any], session: dict[str, Any]) -> dict[str, str] | None:
        import ray

        from wadgym.agents import runfolder

        self._steps = int(meta.get("timesteps") or 0)
        try:
            self.actor = remote_trainer(self.group, self.bundles[0], self.ppo_config, torch_threads(self.hp),
                                        self.saved)
            device = ray.get(self.actor.learner_device.remote())
        except ray.exceptions.RayError as error:  # an env that cannot be made, a module that cannot be built
            return failure_of(error, reports_of(self.failures))
        record_cluster(meta, session, device, self.group, self.options.address)
        runfolder.write_json(self.run_dir / "meta.json", meta)
        self.device = meta["device"]
        self.loop = TrainingLoop(self.run_dir, self.actor, self.failures, self.hp["n_timesteps"],
                                 self.options.save_freq, self.options.progress, self.options.tracker,
                                 restarts=self.config.get("restart"))
        return None

    def learn(self) -> dict[str, str] | None:
        return self.loop.run()

    def save(self, final: bool) -> None:
        self.loop.save(self.run_dir / "model" if final else None)


def use_auth_token(address: str | None) -> None:
    """`ray start --head` turns on token authentication when ~/.ray/auth_token exists, but a client only
    sends the token with RAY_AUTH_MODE=token (Ray 2.60), which Ray reads when it is first imported."""
    import sys

    if (address and "ray" not in sys.modules and "RAY_AUTH_MODE" not in os.environ
            and (os.environ.get("RAY_AUTH_TOKEN") or RAY_TOKEN.is_file())):
        os.environ["RAY_AUTH_MODE"] = "token"


def remote_trainer(group, bundle: dict[str, float], ppo_config, threads: int, restore_from: Path | None):
    """The AlgorithmActor in the placement group's first bundle; its env runners and learners (child
    actors) are placed in the group's other bundles."""
    import ray
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    strategy = PlacementGroupSchedulingStrategy(group, placement_group_bundle_index=0,
                                                placement_group_capture_child_tasks=True)
    actor = ray.remote(AlgorithmActor).options(num_cpus=bundle.get("CPU", 0), num_gpus=bundle.get("GPU", 0),
                                        scheduling_strategy=strategy, max_restarts=0)
    trainer = actor.remote(ppo_config, threads, str(restore_from) if restore_from else None)
    ray.get(trainer.timesteps.remote())  # construction errors surface here
    return trainer


def record_cluster(meta: dict[str, Any], session: dict[str, Any], device: str, group, address: str | None) -> None:
    """backend, Ray's version, the cluster's nodes and where the run's bundles went, into meta.json."""
    import ray

    cluster = {"address": address or "local (started by this run)", "nodes": cluster_nodes(),
               "bundles_to_node_id": placement_by_node(group)}
    session.update(device=device, cluster=cluster)
    session["versions"]["ray"] = ray.__version__
    meta.setdefault("backend", "rllib")
    meta["device"] = meta.get("device") if meta.get("sessions") else device
    meta["versions"].setdefault("ray", ray.__version__)
    meta.setdefault("cluster", cluster)


def shut_down(trainer, group, started_here: bool) -> None:
    """Stop the trainer (its env runners, learners and their engines go with it), free the placement
    group, and stop a Ray instance this run started."""
    import contextlib

    import ray

    if trainer is not None:
        with contextlib.suppress(Exception):
            ray.get(trainer.stop.remote(), timeout=30)
        with contextlib.suppress(Exception):
            ray.kill(trainer)
    if group is not None:
        from ray.util.placement_group import remove_placement_group

        with contextlib.suppress(Exception):
            remove_placement_group(group)
    ray.shutdown()


class TrainingLoop:
    """Iterations until the step budget, a signal or a failure; the episodes (a Monitor file, as SB3
    training writes), TensorBoard and checkpoints as it goes."""

    def __init__(self, run_dir: Path, trainer, failures, total: int, save_freq: int, progress: bool,
                 tracker=None, restarts: dict[str, Any] | None = None):
        import ray

        from wadgym.agents import runfolder
        from wadgym.agents.restart import RestartPolicy, RLlibRestarts

        self.restarts = RLlibRestarts(run_dir, RestartPolicy.from_config(restarts))  # config.yml's `restart`
        self.restarts.counts = ray.get(trainer.restart_counts.remote())

        self.run_dir, self.trainer, self.failures, self.total = run_dir, trainer, failures, total
        self.save_freq = max(int(save_freq), 1)
        self.episodes_start = time.time()  # rows as SB3's VecMonitor writes them
        self.episodes = runfolder.monitor_writer(run_dir, "", EPISODE_KEYS, self.episodes_start)
        self.timesteps = self.last_checkpoint = ray.get(trainer.timesteps.remote())
        self.progress = progress
        self.stop_signal: int | None = None
        self.tracker = tracker  # an agents.runs.tracking.runs.Tracker: the scalars go to MLflow as well

    def run(self) -> dict[str, str] | None:
        """None when training ended (done or stopped by a signal), else the failure."""
        import ray
        from torch.utils.tensorboard import SummaryWriter
        from tqdm import tqdm

        from wadgym.agents.restart import RestartLimitReached

        previous = {s: signal.signal(s, self._ask_to_stop) for s in (signal.SIGINT, signal.SIGTERM)}
        writer = SummaryWriter(str(self.run_dir / "tb" / "RLlib_PPO"))
        bar = tqdm(total=self.total, initial=self.timesteps, unit="step", disable=not self.progress)
        try:
            while self.timesteps < self.total and self.stop_signal is None:
                iteration_start, steps_before = time.perf_counter(), self.timesteps
                result = ray.get(self.trainer.train.remote())
                self.timesteps = result["timesteps"]
                self._record(result, writer, (self.timesteps - steps_before) / (time.perf_counter() - iteration_start))
                bar.update(self.timesteps - steps_before)
                if reports := reports_of(self.failures):  # an env's own error (RLlib made its envs again)
                    return failure_of(RuntimeError("an env failed"), reports)
                if self.timesteps - self.last_checkpoint >= self.save_freq:
                    self.save(None)
        except KeyboardInterrupt:  # a second Ctrl-C: stop at once, still save
            self.stop_signal = self.stop_signal or signal.SIGINT
        except ray.exceptions.RayError as error:
            return failure_of(error, reports_of(self.failures))
        except RestartLimitReached as error:
            return {"error": f"RestartLimitReached: {error}", "traceback": f"RestartLimitReached: {error}"}
        finally:
            bar.close()
            writer.close()
            self.episodes.close()
            for s, handler in previous.items():
                signal.signal(s, handler)
        return None

    def _ask_to_stop(self, signum, frame):
        if self.stop_signal is not None:
            raise KeyboardInterrupt
        self.stop_signal = signum
        print(f"\n{signal.Signals(signum).name}: stopping after this iteration, saving a checkpoint ...", flush=True)

    def _record(self, result: dict[str, Any], writer, steps_per_second: float) -> None:
        """An iteration's episodes into the Monitor file, what RLlib restarted into the run's record of
        restarts (raises RestartLimitReached past the limit), then the scalars to TensorBoard and MLflow:
        RLlib's, steps per second, the mean score and, as the SB3 path logs it (agents.backends.callbacks), this
        session's restarts as engine/restarts, the restart that went past the limit included."""
        import numpy as np

        from wadgym.agents.restart import SCALAR

        seconds = round(time.time() - self.episodes_start, 6)
        for episode in result["episodes"]:
            self.episodes.write_row({"r": episode["return"], "l": episode["length"], "t": seconds,
                                     **{key: episode.get(key) for key in EPISODE_KEYS}})
        scalars = dict(result["scalars"], **{"time/steps_per_second": steps_per_second})
        scores = [e["score"] for e in result["episodes"] if e.get("score") is not None]
        if scores:
            scalars["rollout/ep_score_mean"] = float(np.mean(scores))
        try:
            self.restarts.update(result["restarts"], self.timesteps)
        finally:
            scalars[SCALAR] = self.restarts.log.count
            for key, value in scalars.items():
                writer.add_scalar(key, value, self.timesteps)
            if self.tracker is not None:
                self.tracker.log_metrics(scalars, self.timesteps)

    def save(self, final: Path | None) -> Path:
        """A checkpoint (checkpoints/model_<steps>_steps/, older ones removed), after the Monitor files'
        lengths beside it (model_<steps>_steps.monitor.json, which --resume rewinds them to); with `final`,
        also the final model there. Written under a temporary name, then renamed."""
        import ray

        from wadgym.agents import runfolder

        checkpoint, _ = runfolder.checkpoint_paths(self.run_dir, self.timesteps)
        checkpoint = checkpoint.with_suffix("")
        # The steps no Monitor row holds yet (episodes still running in the env runners, which a resume
        # starts again): the trainer's count less the global step of the last recorded episode. RLlib's
        # count (num_env_steps_sampled_lifetime) can trail its env runners by an iteration, when their
        # metrics come late (a busy machine): then this is less than the running steps, at least 0.
        recorded = runfolder.read_episodes(self.run_dir)
        running = self.timesteps - (recorded[-1]["timesteps"] if recorded else 0)
        runfolder.write_monitor_marker(self.run_dir, checkpoint, [max(running, 0)])
        targets = [checkpoint] + ([final] if final is not None else [])
        for target in targets:
            temporary = target.with_name(f".{target.name}.tmp")
            shutil.rmtree(temporary, ignore_errors=True)
            ray.get(self.trainer.save.remote(str(temporary)))
            shutil.rmtree(target, ignore_errors=True)
            os.replace(temporary, target)
        for old in checkpoint.parent.glob("model_*_steps"):
            if old != checkpoint:
                shutil.rmtree(old, ignore_errors=True)
                runfolder.monitor_marker(old).unlink(missing_ok=True)
        self.last_checkpoint = self.timesteps
        return checkpoint


EPISODE_KEYS = ("score", "env_runner", "node")  # what a Monitor row holds beside r, l and t


def failure_of(error: Exception, reports: list[str]) -> dict[str, str]:
    """{"error": its last line, "traceback": ...} of a failed iteration: the first env runner's report
    (envs.FailureLog) when an env failed, else what Ray carried back."""
    text = (reports[0] if reports else str(error)).strip()
    return {"error": text.splitlines()[-1], "traceback": text}


def reports_of(failures) -> list[str]:
    """What env runners told the FailureLog `failures`; none when it cannot answer (the cluster is gone)."""
    import ray

    try:
        return ray.get(failures.get.remote(), timeout=30)
    except ray.exceptions.RayError:
        return []


def start_failure_log():
    """A named envs.FailureLog actor (no resources) for this run's env runners to report to, and its name."""
    import uuid

    import ray

    from wadgym.agents.backends.rllib.envs import FailureLog

    name = f"wadgym-failures-{uuid.uuid4().hex[:12]}"
    return ray.remote(FailureLog).options(name=name, num_cpus=0).remote(), name
