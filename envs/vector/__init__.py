"""Vector envs: N wadgym games stepped by threads of one process (`threads`: ThreadVectorEnv, a Gymnasium
VectorEnv) and the same games as a Stable-Baselines3 VecEnv (`sb3`: ThreadVecEnv, which needs the training
extras). Users import them from wadgym.envs.
"""

from .threads import EnvThreads, ThreadVectorEnv, VectorEnvError, batch_infos, make_envs, make_vector_env

__all__ = ["EnvThreads", "ThreadVectorEnv", "VectorEnvError", "batch_infos", "make_envs", "make_vector_env"]
