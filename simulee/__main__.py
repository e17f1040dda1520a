"""The `simulee` command (and `python -m simulee`): run by the server when one runs
(simulee.server), else here (simulee.cli)."""

import sys

from simulee.server.client import forwarded


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    code = forwarded(argv)
    if code is not None:
        return code
    try:
        from simulee.cli import main as here
    except KeyboardInterrupt:  # ^C while Simulee loads: as cli.main ends on one
        print("simulee: interrupted", file=sys.stderr)
        return 130
    return here(argv)


if __name__ == "__main__":
    raise SystemExit(main())
