"""Shared by the report tests: a real run's JSON results and how to call insee."""
import os
import subprocess
import sys

SKIP = 77  # ctest SKIP_RETURN_CODE

FIGURES = [
    "Latency over time",
    "Load over time",
    "Latency histogram",
    "Queue occupancy: transit queues",
    "Queue occupancy: injection queues",
    "Port load",
    "Distance histograms",
    "Accepted load per node",
]


def insee(binary, *args, env=None):
    return subprocess.run([binary, *args], capture_output=True, text=True, env=env)


def real_run(binary, workdir, dims="[8,8]", extra=()):
    """A short run of an 8x8 torus recording every figure (and the `extra`
    --set assignments); its JSON path."""
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, "run.json")
    sets = [f"topology.dims={dims}", "simulation.warmup=1000", "simulation.cycles=4000",
            "stats.distance_histograms=true", "stats.queue_histograms=true",
            "stats.port_map=true", "stats.node_map=true", *extra]
    args = ["run", "--json", path]
    for s in sets:
        args += ["--set", s]
    r = insee(binary, *args)
    if r.returncode != 0:
        print(f"insee {' '.join(args)} failed ({r.returncode}):\n{r.stderr}")
        sys.exit(1)
    return path


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
