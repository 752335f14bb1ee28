"""A real local Ray cluster for the tests and the bench: a head node and worker nodes, each a
``ray start --block`` process in its own session on loopback (every port chosen free), so
one node can be killed with its whole process group and the cluster ends without touching
any other Ray on the machine."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gen09_core.testrun.gen09_guard import in_sessions

RAY = str(Path(sys.executable).with_name("ray"))
HOST = "127.0.0.1"


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports free on loopback right now."""
    socks, ports = [], []
    for _ in range(count):
        s = socket.socket()
        s.bind((HOST, 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def _start_up_priority() -> None:
    """A raylet aborts when its dashboard agent has not reported its ports within 15 s, which a
    CPU-starved machine (other work on two cores) makes it miss: as root, a node starts at a
    higher priority, and :meth:`Node.settle` lowers it again once the node is up."""
    if os.geteuid() == 0:
        os.nice(-10)


class NodeExited(RuntimeError):
    """A ``ray start`` process ended while the cluster waited for its node."""


class Node:
    """One ``ray start --block`` process (its own session: killing the group ends the node)."""

    def __init__(self, name: str, args: list[str], work: Path, env: dict):
        self.name, self.work = name, work
        self.log = open(work.parent / f"{name}.log", "wb")  # noqa: SIM115 - closed in kill()
        self.proc = subprocess.Popen([RAY, "start", "--block", *args], stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=env, start_new_session=True,
                                     preexec_fn=_start_up_priority)

    def settle(self) -> None:
        """Back to normal priority once the node is up (the jobs it runs inherit it)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.setpriority(os.PRIO_PGRP, self.proc.pid, 0)

    def kill(self) -> None:
        """SIGKILL every process of the node's session, as a machine that dies takes them all.
        Ray puts each of its worker processes in a process group of its own: killing the
        node's group alone left the workers alive, and one whose test process was then killed
        reported that process's exit -9 as its job's result (seen once in CI)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # the raylet first: no worker starts after
        while members := in_sessions({self.proc.pid}):
            for pid in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)
        self.proc.wait()
        self.log.close()

    def alive(self) -> bool:
        return self.proc.poll() is None


class LocalCluster:
    """A head node with no CPUs (the driver's tasks never run there) and ``workers`` worker
    nodes with ``cpus`` CPUs each. Each worker node gets its own gen09 work folder
    (``GEN09_RAY_WORK``), so the test can see what each node materialised."""

    def __init__(self, workers: int = 2, cpus: int = 1, memory_mb: int = 8192, root: Path | None = None):
        self.root = Path(root or tempfile.mkdtemp(prefix="gen09-ray-"))
        # Ray's socket paths are limited in length: a short temp dir of its own
        self.temp = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))
        self.nodes: list[Node] = []
        self.head: Node | None = None
        self.cpus, self.memory_mb = cpus, memory_mb
        try:
            self._start_head()
            for index in range(workers):  # one after the other: two raylets starting at once on a
                self.start_worker(f"worker{index}")  # loaded 2-core machine can miss Ray's deadline
        except BaseException:
            self.stop()
            raise

    def _start_head(self, attempts: int = 4) -> None:
        for attempt in range(1, attempts + 1):
            self.port = free_ports(1)[0]
            self.address = f"{HOST}:{self.port}"
            client, listen, grpc, metrics, runtime_env = free_ports(5)
            self.head = Node("head" if attempt == 1 else f"head-{attempt}", [
                "--head", "--port", str(self.port), "--num-cpus", "0", "--temp-dir", str(self.temp),
                "--include-dashboard", "false", "--ray-client-server-port", str(client),
                "--dashboard-agent-listen-port", str(listen), "--dashboard-agent-grpc-port", str(grpc),
                "--metrics-export-port", str(metrics), "--runtime-env-agent-port", str(runtime_env),
                "--disable-usage-stats"], self.root / "head", self._env("head"))
            try:
                self.wait_nodes(1)
                self.head.settle()
                return
            except NodeExited:
                if attempt == attempts:
                    raise
                self.head.kill()

    def start_worker(self, name: str, attempts: int = 4) -> Node:
        """Add a worker node and wait until the cluster counts it; a node whose start-up missed
        Ray's deadline (a loaded machine) is started again, up to ``attempts`` times."""
        expected = 1 + len(self.nodes) + 1
        for attempt in range(1, attempts + 1):
            node = self.add_worker(name if attempt == 1 else f"{name}-{attempt}")
            try:
                self.wait_nodes(expected)
                node.settle()
                return node
            except NodeExited:
                if attempt == attempts:
                    raise
                node.kill()
                self.nodes.remove(node)
        raise AssertionError("unreachable")

    def _env(self, name: str) -> dict:
        work = self.root / name
        work.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        # a loaded 2-core machine can take longer than Ray's default to register a raylet
        env.update(GEN09_RAY_WORK=str(work), RAY_USAGE_STATS_ENABLED="0", RAY_raylet_start_wait_time_s="90")
        return env

    def add_worker(self, name: str) -> Node:
        """Start one more worker node and return it."""
        # the agents' ports, chosen here: the listen port's default (52365) is fixed, so a second node
        # on this host could not bind it, and a raylet that has to wait for its agents to report ports
        # they chose themselves aborts when a loaded machine starts them late
        listen, grpc, metrics, runtime_env = free_ports(4)
        node = Node(name, ["--address", self.address, "--num-cpus", str(self.cpus),
                           "--dashboard-agent-listen-port", str(listen), "--dashboard-agent-grpc-port", str(grpc),
                           "--metrics-export-port", str(metrics), "--runtime-env-agent-port", str(runtime_env),
                           "--memory", str(self.memory_mb * 1024 * 1024), "--disable-usage-stats"],
                    self.root / name, self._env(name))
        self.nodes.append(node)
        return node

    def alive_nodes(self) -> int:
        """How many nodes the cluster counts as active (``ray status``, read from the GCS)."""
        done = subprocess.run([RAY, "status", "--address", self.address], capture_output=True, text=True)
        if done.returncode != 0 or "Active:" not in done.stdout:
            return 0
        active = done.stdout.split("Active:", 1)[1].split("Pending:", 1)[0]
        return sum(1 for line in active.splitlines() if line.strip().startswith("1 node_"))

    def wait_nodes(self, count: int) -> None:
        """Poll until ``count`` nodes are alive (fails at once when a node process ended)."""
        while self.alive_nodes() < count:
            for node in [self.head, *self.nodes]:
                if node is not None and not node.alive():
                    raise NodeExited(f"ray node {node.name} exited: "
                                     f"{(self.root / f'{node.name}.log').read_text()[-2000:]}")
            time.sleep(0.5)

    def stop(self) -> None:
        """Kill every node's process group (workers first), then remove the temp dir."""
        for node in [*self.nodes, self.head]:
            if node is not None:
                node.kill()
        import shutil

        shutil.rmtree(self.temp, ignore_errors=True)
