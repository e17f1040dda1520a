"""Errors the user can act on: each is reported as one line and exit status 2."""


class SimuleeError(Exception):
    """Bad input: a missing or unreadable file, a compile error, an unknown kernel, a
    malformed option. The message is one line meant for the user."""


class CompileError(SimuleeError):
    """The compiler rejected a source file. `diagnostics` holds its full output; the
    message is its first error line (file:line:col: error: ...)."""

    def __init__(self, message: str, diagnostics: str):
        super().__init__(message)
        self.diagnostics = diagnostics
