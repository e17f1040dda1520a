"""Where Simulee keeps what outlives a command: the cache folder (compiled IR, kept proofs,
builds, the server's socket and log). A string, not a Path: the server's client reads it
on every command, and importing pathlib is a good part of a command's start.

May import: the standard library and platformdirs.
"""

import os


def cache_folder() -> str:
    """$SIMULEE_CACHE, else the user's cache directory for simulee."""
    if os.environ.get("SIMULEE_CACHE"):
        return os.environ["SIMULEE_CACHE"]
    import platformdirs

    return platformdirs.user_cache_dir("simulee")
