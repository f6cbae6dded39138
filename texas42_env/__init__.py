"""texas42: the game core, actions, records, observations and Gymnasium environments for
Texas 42 (and the six-player two-set game).

``Texas42Env`` (one table, turn-based) and ``Texas42VectorEnv`` (B tables, self-play) are the
environments; ``gymnasium.make("Texas42-v0")`` and ``gymnasium.make("Texas88-v0")`` build the
single-table one for each ruleset.
"""

__version__ = "0.1.0"


def __getattr__(name):  # the environments import Gymnasium: only when asked for
    if name == "Texas42Env":
        from .env import Texas42Env
        return Texas42Env
    if name == "Texas42VectorEnv":
        from .vector_env import Texas42VectorEnv
        return Texas42VectorEnv
    raise AttributeError(f"module 'texas42_env' has no attribute {name!r}")


def _register() -> None:
    try:
        import gymnasium
    except ImportError:  # the core works without it
        return
    for env_id, ruleset in (("Texas42-v0", "standard"), ("Texas88-v0", "six-player")):
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="texas42_env.env:Texas42Env",
                               kwargs={"ruleset": ruleset})


_register()
