"""wadgym: ViZDoom environments whose maps, ACS scripts and actors are all built from Python.

`import wadgym` registers the Gymnasium environments (``gym.make("DoomItems-v1")``); so do
``gym.make("wadgym:DoomItems-v1")`` and ``gym.register_envs(wadgym)``.
"""

__version__ = "0.2.0"

import os as _os
import sys as _sys

# Registration needs gymnasium (a core dependency) and nothing else: no engine, no map is built. Done
# eagerly, because a deferred import hook can be bypassed (a find_spec probe, another meta-path finder).
# The one exception is the `wadgym-acc` command, a stand-in for acc that SLADE and Ultimate Doom Builder
# start once per compile: it needs no env, and importing gymnasium (and numpy) is most of its start-up.
if _os.path.basename(_sys.argv[0] if _sys.argv else "").partition(".")[0] != "wadgym-acc":
    from wadgym.envs import registration as _registration  # noqa: F401
