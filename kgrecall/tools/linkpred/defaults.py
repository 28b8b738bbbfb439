"""Names the command line needs before any model (or torch) is loaded."""

__all__ = ["DEFAULT_MODEL"]

#: The model the service uses when none is named (see README: why ULTRA and rules).
DEFAULT_MODEL = "ultra+rules"
