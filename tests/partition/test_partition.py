#!/usr/bin/env python3
"""insee run split over mpirun's ranks (kernel/engine/partition.h).

usage: test_partition.py INSEE WORKDIR WITH_MPI

- mpirun -n 2 and -n 3 give the single process's report byte for byte (all
  but the lines that time the run), and the same CSV row and JSON file
  (less their timing fields), on a torus with every mergeable figure on and
  on a fat tree past saturation with messages of several packets and
  converging phases, with INSEE's bubble router past saturation (it
  draws, and reads its own router's queues), and with NSIM's model (output
  buffers, slow links, overheads, two-copy messages) under global
  congestion control, and with wormhole flow control (Dally's dateline on
  a torus, UGAL on a dragonfly);
- a run that cannot be split (a router that declares none of pure, steady
  and local, a packet trace) is refused by every
  rank, naming why, with no output file left;
- without Open MPI built in, mpirun with several ranks is refused saying so;
- [simulation] threads = 2 and 3 split the same runs into parts on threads
  and give the JSON of one thread (series, maps, queue histograms), less
  the echoed thread count (checked first, with or without mpirun).
Skipped (77) without mpirun, once the threads are checked.
"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TIMING = ("set-up time", "wall time", "simulator speed", "peak memory", "mpirun ranks")


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def untimed_report(text):
    """The report less the lines that time the run."""
    return "".join(l for l in text.splitlines(True) if not l.startswith(TIMING))


def json_without(path, keys):
    """The JSON document at path less its top-level `keys`, as text."""
    with open(path) as f:
        doc = json.load(f)
    for key in keys:
        doc.pop(key, None)
    return json.dumps(doc, sort_keys=True)


def untimed_json(path):
    return json_without(path, ("speed", "timing", "performance"))


RUNS = ("torus", "tree", "bubble", "nsim", "causal", "latency", "wormhole", "wormhole-ugal")
# The most cycles the parts run apart (1 unless given): latency's links
# let them meet every 5 cycles, and nsim's (its receivers' 40-cycle
# overhead bounds a window only past that); wormhole's credits every 4.
LOOKAHEAD = {"latency": 5, "nsim": 5, "wormhole": 4}


def untimed_csv(path):
    with open(path) as f:
        header, row = f.read().splitlines()[:2]
    cols = header.split(",")
    keep = [i for i, c in enumerate(cols)
            if not any(w in c for w in ("seconds", "per_second", "rss", "memory"))]
    return [(cols[i], row.split(",")[i]) for i in keep]


def run(cmd, cwd, env):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env)


def check_threads(binary, work, env):
    """Each run split over 2 and 3 threads gives one thread's JSON."""
    for name in RUNS:
        config = os.path.join(HERE, name + ".toml")
        docs = {}
        for t in (1, 2, 3):
            js = os.path.join(work, f"{name}-threads-{t}.json")
            r = run([binary, "run", config, "--set", f"simulation.threads={t}",
                     "--set", f'stats.json="{js}"'], work, env)
            check(r.returncode == 0, f"{name}: {t} thread(s) run: {r.returncode} {r.stderr[-2000:]}")
            if t > 1:
                check(re.search(rf"^threads, as parts +{t},", r.stdout, re.M),
                      f"{name}: {t} threads split the run into parts")
                apart = re.search(r"exchanges \(at most (\d+) cycles apart\)", r.stdout)
                check(apart and int(apart.group(1)) == LOOKAHEAD.get(name, 1),
                      f"{name}: the parts meet at most {LOOKAHEAD.get(name, 1)} cycles apart")
            docs[t] = json_without(js, ("config", "params", "performance"))
        for t in (2, 3):
            check(docs[t] == docs[1],
                  f"{name}: the JSON of {t} threads (series, maps, histograms) is one thread's")


def main():
    binary, work, with_mpi = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    check_threads(binary, work, dict(os.environ))
    mpirun = shutil.which("mpirun")
    if not mpirun:
        print("SKIP: no mpirun (Debian's openmpi-bin); the partitioned run is not tested")
        sys.exit(77)
    os.makedirs(work, exist_ok=True)
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    # Open MPI's own allocations outlive MPI_Finalize: not insee's leaks.
    env = {**os.environ, "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0",
           "OMPI_MCA_btl": "self,vader,tcp"}

    def mpi(n, cwd, *args):
        return run([mpirun, "-n", str(n), "--oversubscribe", *root, binary, *args], cwd, env)

    if with_mpi != "1":
        r = mpi(2, work, "run", os.path.join(HERE, "torus.toml"))
        check(r.returncode != 0 and "built without Open MPI" in r.stderr,
              f"without Open MPI, mpirun -n 2 insee run is refused: {r.returncode} {r.stderr}")
        return

    for name in RUNS:
        config = os.path.join(HERE, name + ".toml")
        outs = {}
        for n in (1, 2, 3):
            # the same relative names in a folder per run, so that the
            # reports' echoed parameters agree
            cwd = os.path.join(work, f"{name}-{n}")
            os.makedirs(cwd, exist_ok=True)
            csv, js = os.path.join(cwd, "out.csv"), os.path.join(cwd, "out.json")
            for f in (csv, js):
                if os.path.exists(f):
                    os.remove(f)
            sets = ["--set", 'stats.csv="out.csv"', "--set", 'stats.json="out.json"']
            # the single process on one thread (a wormhole network splits
            # over the cores by default from 64 routers)
            r = run([binary, "run", config, *sets], cwd, {**env, "INSEE_CORES": "1"}) \
                if n == 1 else mpi(n, cwd, "run", config, *sets)
            check(r.returncode == 0, f"{name}: {n} rank(s) run: {r.returncode} {r.stderr[-2000:]}")
            outs[n] = (untimed_report(r.stdout), untimed_csv(csv), untimed_json(js))
            if n > 1:
                check(r.stdout.count("# insee report") == 1, f"{name}: rank 0 alone reports")
        delivered = [l for l in outs[1][0].splitlines() if l.startswith("packets (whole run)")]
        check(delivered and "delivered 0," not in delivered[0],
              f"{name}: the run delivers packets: {delivered}")
        for n in (2, 3):
            if outs[n][0] != outs[1][0]:
                sys.stdout.writelines(difflib.unified_diff(outs[1][0].splitlines(True),
                                                           outs[n][0].splitlines(True)))
            check(outs[n][0] == outs[1][0], f"{name}: the report of {n} ranks is the single run's")
            check(outs[n][1] == outs[1][1], f"{name}: so is its CSV row")
            check(outs[n][2] == outs[1][2], f"{name}: and its JSON (series, maps, histograms)")

    # what a rank cannot split: refused by every rank, naming why, no file left
    refused = [
        ("torus", ['router.plugin="spinnaker"', 'topology.plugin="spinnaker"'], "none of"),
        ("torus", ['stats.trace="trace.gz"'], "[stats] trace"),
    ]
    for config, keys, why in refused:
        csv = os.path.join(work, "refused.csv")
        if os.path.exists(csv):
            os.remove(csv)
        sets = [arg for key in keys for arg in ("--set", key)]
        r = mpi(2, work, "run", os.path.join(HERE, config + ".toml"), *sets,
                "--set", f"stats.csv=\"{csv}\"")
        check(r.returncode != 0 and why in r.stderr and not os.path.exists(csv)
              and not os.path.exists(os.path.join(work, "trace.gz")),
              f"{keys} is refused: {r.returncode} {r.stderr[-600:]}")

main()
