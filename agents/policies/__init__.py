"""What plays and loads a trained run's policy: SavedPolicy (policy; an RLlib run's network loaded without Ray:
rllib), the ONNX export (export), the MLflow Model's code (mlflow_policy), and `wadgym rollout`'s episodes (rollout).

This room knows no backend and no run's life (tests/test_import_cycles.py checks it): it reads a run folder
through wadgym.agents.runfolder and plays through wadgym.agents.episodes and wadgym.agents.vec.
"""
