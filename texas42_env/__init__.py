"""texas42: the game core, actions, records and (later) environments for Texas 42."""
__version__ = "0.1.0"
