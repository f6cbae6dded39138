"""texas42: the game core, actions, records, observations and Gymnasium environments for
Texas 42 (and the six-player two-set game).

``Texas42Env`` (one table, turn-based) and ``Texas42VectorEnv`` (B tables, self-play) are the
environments; ``gymnasium.make("Texas42-v0")`` and ``gymnasium.make("Texas88-v0")`` build the
single-table one for each ruleset.
"""

import gymnasium

from .env import Texas42Env
from .vector_env import Texas42VectorEnv

__version__ = "0.1.0"

for _env_id, _ruleset in (("Texas42-v0", "standard"), ("Texas88-v0", "six-player")):
    if _env_id not in gymnasium.registry:
        gymnasium.register(_env_id, entry_point="texas42_env.env:Texas42Env",
                           kwargs={"ruleset": _ruleset})

__all__ = ["Texas42Env", "Texas42VectorEnv"]
