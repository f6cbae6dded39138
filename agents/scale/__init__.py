"""Scale-out: the local and Ray backends (agents.scale.backend)."""
