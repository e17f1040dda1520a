"""`python -m simulee.server.device FD EXECUTABLE`: the device a program simulee-nvcc built
starts on its first CUDA call (runtime/cudart.cpp), FD its end of the program's socket pair.
Sent to the server when one runs, so the device starts warm; else run in this process
(simulee.exec.standalone)."""

import os
import sys

from simulee.server.client import forwarded


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    program = os.getppid()  # the program that started this device
    if len(argv) >= 2 and argv[0].isdigit():
        code = forwarded(argv, entry="device", fds=(int(argv[0]),), program=program)
        if code is not None:
            return code
    from simulee.exec.standalone import main as here

    return here(argv, program=program)


if __name__ == "__main__":
    sys.exit(main())
