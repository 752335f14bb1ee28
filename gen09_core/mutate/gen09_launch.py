"""The interpreter a bundle's ``tests/test.sh`` gets (``$GEN09_PYTHON``) when ``gen09 verify``
or ``gen09 ab`` runs it warm: ``python -I -S gen09_launch.py REAL_PYTHON ARGS...``.

A ``-m pytest`` run is handed to the warm service at ``$GEN09_WARM_VERIFY`` (a Unix socket)
with its arguments, folder and environment; when the service ran it, this process prints
the service's note and exits with its code. Anything else — the grader, a run the service
hands back, a service that cannot be reached — becomes the real interpreter with the same
arguments and environment (``exec``), exactly as without this file. Standard library only.
"""

import json
import os
import socket
import sys


def main():
    """Hand a pytest run to the warm service, else become the real interpreter."""
    real, args = sys.argv[1], sys.argv[2:]
    env = dict(os.environ)
    address = env.pop("GEN09_WARM_VERIFY", "")
    if address and args[:2] == ["-m", "pytest"]:
        request = {"python": real, "args": args, "cwd": os.getcwd(), "env": env}
        try:
            with socket.socket(socket.AF_UNIX) as peer:
                peer.connect(address)
                peer.sendall((json.dumps(request) + "\n").encode())
                answer = json.loads(peer.makefile("rb").readline() or b"{}")
        except (OSError, ValueError):
            answer = {}
        if answer.get("kind") == "ran":
            print(answer["note"], flush=True)
            sys.exit(answer["code"])
    os.execve(real, [real, *args], env)


if __name__ == "__main__":
    main()
