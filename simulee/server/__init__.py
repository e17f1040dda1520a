"""The warm server: one process per user that keeps Simulee's modules imported, so that a
command does not pay for starting Python's libraries, the compiler's bindings and the
prover again.

- client: what every `simulee` command runs first, importing nothing but the standard
  library (and simulee.folders for where the socket is): when a server listens on the
  socket in the cache folder, the command line is sent to it with the command's own
  standard input, output and error (their file descriptors), its folder and its
  environment, and the server's exit status is the command's; else it runs here.
- daemon: the server. It forks a process per command, which takes the client's
  descriptors, folder and environment and runs the command line (simulee.cli.main) as
  the client would, so that it prints exactly what it prints without the server.
  `simulee server start|stop|status` manage it. When it is idle, the server loads what
  the last commands loaded (their programs, as they loaded them, and their native code),
  so the processes it forks next find them loaded (frontend.compiler.LOADED).

- device: what a program simulee-nvcc built starts on its first CUDA call, its device:
  sent to the server as a command is, else run here (simulee.exec.standalone).

May import: simulee.folders (where the socket is), simulee.frontend (the daemon: programs kept
loaded), interpreter (native code kept loaded), simulee.exec (a built program's device),
simulee.cli (the daemon runs the command line).
"""
