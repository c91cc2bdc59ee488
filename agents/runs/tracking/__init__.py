"""Experiment tracking with MLflow (`wadgym train --track`, `wadgym eval --track`, `wadgym runs --tracking-uri`,
`wadgym track-sync`; wired in wadgym.cli). Needs the `track` extra: pip install 'wadgym[track]'.

A tracked run is still a run folder; MLflow holds a copy of what makes it reproducible, in one MLflow run:
params (the resolved config.yml flattened, the command line, package versions, git commit), tags (run
folder, host, status, lineage), the code (code.diff: the `git diff` of the checkout against its commit,
untracked files included, empty when clean; a task family given as a file), metrics against env steps
(what SB3's or RLlib's logger records at each rollout or iteration, live; every episode's score, return and
length and the final evaluation at the end), and artifacts (model, VecNormalize statistics, learning curve,
videos, config.yml, meta.json, metrics.json, levels.json: the WAD digests of the levels trained on), and
the policy as an MLflow Model (the pyfunc flavour of agents/policies/mlflow_policy.py over the ONNX export, else
SB3's model; --register puts it in the Model Registry). The run folder gains tracking.json: the store, the
MLflow run id and whether the folder is fully uploaded.

One module per job, each importing only those above it in this list:

- store: which store (--tracking-uri, $MLFLOW_TRACKING_URI, else <runs>/mlflow.db), whether it answers, its
  client and experiments; tracking.json; writing to a run in MLflow's batches; the runs a store holds.
- content: what a run records besides live metrics (params, code.diff, levels.json, evaluation numbers) and
  the MLflow run of a run folder, found or created with its tags.
- models: the policy as an MLflow Model (log_policy_model).
- sync: uploading a run folder, what the store lacks of it (`wadgym track-sync`, every tracked run's end).
- runs: a tracked run's life: begin and its Tracker (metrics as they come, SB3's through a callback), then
  an evaluation nested in it (log_evaluation) and its policy in the Model Registry (register_model).
- lineage: --init-from (resolve_init_from, parent_model) and --reproduce (reproduce).
"""
