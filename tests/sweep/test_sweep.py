"""insee sweep through the command line: test_sweep.py TEST INSEE WORKDIR FIXTURES."""
import csv
import math
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TINY = os.path.join(HERE, "tiny.toml")
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776}  # Student's t, two-sided 95 %
FIGURES = ["offered_load", "accepted_load", "delivered", "avg_hops", "lat_gen_mean",
           "lat_gen_max", "lat_inj_mean", "cycles"]


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def sweep(binary, *args, **kw):
    return subprocess.run([binary, "sweep", *args], capture_output=True, text=True, **kw)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read(path):
    with open(path, "rb") as f:
        return f.read()


GRID = ["--vary", "arbiter.plugin=round-robin,random", "--vary", "traffic.load=0.1:0.5:0.1",
        "--seeds", "3"]


def test_grid(binary, work, fixtures):
    """2 configurations x 5 loads x 3 seeds: 30 runs, 10 summary rows whose
    means are the means of the runs' own figures and whose CIs are
    t(0.975, 2) s / sqrt(3)."""
    out = os.path.join(work, "grid.csv")
    r = sweep(binary, TINY, *GRID, "-j", "2", "-o", out)
    check(r.returncode == 0, f"sweep exit {r.returncode}: {r.stderr}")
    runs = rows(out)
    check(len(runs) == 30, f"30 runs, got {len(runs)}")
    keys = {(x["vary"], x["seed"]) for x in runs}
    check(len(keys) == 30, "every (point, seed) once")
    check({x["seed"] for x in runs} == {"1", "2", "3"}, "seeds 1..3")
    summary = rows(os.path.join(work, "grid-summary.csv"))
    check(len(summary) == 10, f"10 summary rows, got {len(summary)}")
    for s in summary:
        mine = [x for x in runs if x["vary"] == s["vary"]]
        check(len(mine) == 3 and s["runs"] == "3", f"{s['vary']}: 3 runs")
        for fig in FIGURES:
            v = [float(x[fig]) for x in mine]
            mean = sum(v) / 3
            std = math.sqrt(sum((a - mean) ** 2 for a in v) / 2)
            ci = T95[2] * std / math.sqrt(3)
            got = [float(s[f"{fig}_{k}"]) for k in ("mean", "std", "ci95")]
            for want, g, k in zip((mean, std, ci), got, ("mean", "std", "ci95")):
                check(abs(want - g) <= 1e-6 + 1e-9 * abs(want),
                      f"{s['vary']} {fig}_{k}: {g} != {want}")
        load = float(s["vary"].split("traffic.load=")[1])
        check(abs(float(s["offered_load_mean"]) - load) < 1e-9, "offered load is the point's")
    check("± " in r.stdout and r.stdout.count("traffic.load=") == 10,
          f"a table of the 10 points on screen:\n{r.stdout}")
    # The runs are the same as `insee run` of the point and seed.
    one = os.path.join(work, "one.csv")
    subprocess.run([binary, "run", TINY, "--set", "arbiter.plugin=random", "--set",
                    "traffic.load=0.3", "--set", "simulation.seed=2", "--set",
                    f"stats.csv={one}"], capture_output=True, check=True)
    direct = rows(one)[0]
    swept = next(x for x in runs if x["vary"] == "arbiter.plugin=random;traffic.load=0.3"
                 and x["seed"] == "2")
    check(all(swept[k] == v for k, v in direct.items()), "a swept run equals insee run")
    # The same sweep from a [sweep] table: the same runs (only the
    # fingerprint of the file differs), and `insee run` of that file
    # ignores the table.
    with open(TINY) as f:
        text = f.read()
    table = os.path.join(work, "table.toml")
    with open(table, "w") as f:
        f.write(text + '\n[sweep]\nvary = "arbiter.plugin=round-robin,random; '
                'traffic.load=0.1:0.5:0.1"\nseeds = 3\njobs = 2\noutput = "table.csv"\n')
    r = sweep(binary, table, cwd=work)
    check(r.returncode == 0, f"sweep of a [sweep] table: {r.returncode} {r.stderr}")
    strip = lambda path: [{k: v for k, v in x.items() if k != "sweep"} for x in rows(path)]
    check(strip(os.path.join(work, "table.csv")) == strip(out), "a [sweep] table sweeps the same")
    check(os.path.exists(os.path.join(work, "table-summary.csv")), "summary beside it")
    plain = subprocess.run([binary, "run", table], capture_output=True, text=True)
    check(plain.returncode == 0, f"insee run of a file with [sweep]: {plain.stderr}")
    # Done already: a rerun runs nothing and writes the same files.
    before = read(out)
    r = sweep(binary, TINY, *GRID, "-o", out)
    check(r.returncode == 0 and read(out) == before, "a rerun of a finished sweep changes nothing")
    check("30 of 30 runs done" in r.stderr, r.stderr)


def test_resume(binary, work, fixtures):
    """SIGKILL in the middle, rerun: the files equal an uninterrupted
    sweep's byte for byte (which ran with another -j and order)."""
    whole = os.path.join(work, "whole.csv")
    r = sweep(binary, TINY, *GRID, "-j", "1", "-o", whole)
    check(r.returncode == 0, r.stderr)
    cut = os.path.join(work, "cut.csv")
    p = subprocess.Popen([binary, "sweep", TINY, *GRID, "-j", "2", "-o", cut],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while p.poll() is None and (not os.path.exists(cut) or len(rows(cut)) < 8):
        time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.wait()
    kept = len(rows(cut))
    check(8 <= kept < 30, f"killed in the middle ({kept} runs kept)")
    r = sweep(binary, TINY, *GRID, "-j", "2", "-o", cut)
    check(r.returncode == 0, r.stderr)
    check(f"{30} of 30 runs done" in r.stderr, r.stderr)
    check(read(cut) == read(whole), "resumed results equal the uninterrupted ones")
    check(read(os.path.join(work, "cut-summary.csv")) == read(os.path.join(work, "whole-summary.csv")),
          "resumed summary equals the uninterrupted one")
    # Another configuration is refused, not mixed in.
    r = sweep(binary, TINY, *GRID, "--set", "router.vcs=3", "-o", cut)
    check(r.returncode == 2 and "another sweep" in r.stderr and read(cut) == read(whole),
          f"a changed configuration is refused: {r.returncode} {r.stderr}")


def test_crash(binary, work, fixtures):
    """A plugin that aborts at one point: its runs are reported failed with
    the reason, the others complete, the exit status is 1."""
    out = os.path.join(work, "crash.csv")
    args = [TINY, "--plugin-dir", fixtures, "--set", "arbiter.plugin=test-abort",
            "--vary", "arbiter.value=1,2,3", "--seeds", "2", "-j", "2", "-o", out]
    r = sweep(binary, *args)
    check(r.returncode == 1, f"exit 1 when a run failed, got {r.returncode}: {r.stderr}")
    failed = [l for l in r.stderr.splitlines() if l.startswith("insee: run failed:")]
    check(len(failed) == 2 and all("arbiter.value=2" in l and "signal 6" in l for l in failed),
          f"both runs at value 2 named, with the signal:\n{r.stderr}")
    got = rows(out)
    check(sorted((x["vary"], x["seed"]) for x in got) ==
          [(f"arbiter.value={v}", s) for v in (1, 3) for s in ("1", "2")],
          "the 4 other runs are in the results")
    summary = rows(os.path.join(work, "crash-summary.csv"))
    check([s["runs"] for s in summary] == ["2", "0", "2"], "the summary counts the runs")
    # A rerun tries the failed runs only, and fails again.
    r = sweep(binary, *args)
    check(r.returncode == 1 and r.stderr.count("insee: run failed:") == 2, r.stderr)
    check(len(rows(out)) == 4, "nothing repeated")


def test_saturation(binary, work, fixtures):
    """An 8x8 torus under uniform traffic cannot accept more than its
    bisection allows, 8 / k = 1 phit/node/cycle for k = 8, and the bubble
    router saturates well below it (about 0.65): at 0.9 it accepts less than
    90 % of the offer, at 0.1 and 0.2 all of it within 10 %. The loads past
    0.9 are not run."""
    out = os.path.join(work, "sat.csv")
    loads = "0.1,0.2,0.9,0.95,1.0"
    common = [TINY, "--set", "topology.dims=[8,8]", "--set", "simulation.cycles=2000",
              "--vary", f"traffic.load={loads}", "--stop-at-saturation"]
    r = sweep(binary, *common, "--saturation-tolerance", "0.1", "--seeds", "2", "-j", "2",
              "-o", out)
    check(r.returncode == 0, r.stderr)
    got = rows(out)
    ran = sorted({x["vary"] for x in got})
    check(ran == ["traffic.load=0.1", "traffic.load=0.2", "traffic.load=0.9"],
          f"runs up to the first saturated load only: {ran}")
    for x in got:
        offered, accepted = float(x["offered_load"]), float(x["accepted_load"])
        check((accepted < 0.9 * offered) == (offered > 0.5), f"saturated only at 0.9: {x['vary']}")
    check("4 skipped" in r.stderr, r.stderr)
    # A latency bound below every latency stops after the first load.
    out2 = os.path.join(work, "bound.csv")
    r = sweep(binary, *common, "--latency-bound", "1", "-o", out2)
    check(r.returncode == 0 and {x["vary"] for x in rows(out2)} == {"traffic.load=0.1"},
          "a latency bound stops raising the load")


def test_bad_input(binary, work, fixtures):
    out = os.path.join(work, "bad.csv")
    cases = [
        (["--vary", "traffic.load=0.5:0.1:0.1"], "FROM <= TO"),
        (["--vary", "traffic.load"], "KEY=V1,V2"),
        (["--vary", "traffic.load=1,,2"], "empty value"),
        (["--vary", "traffic.load=0.1,0.2,0.1"], "twice"),
        (["--vary", "simulation.seed=1,2"], "--seeds"),
        (["--vary", "topology.dims=[4,4"], "unclosed"),
        (["--vary", "router.plugin=dally", "--stop-at-saturation"], "load"),
        (["--vary", "traffic.load=0.1", "--latency-bound", "3"], "--stop-at-saturation"),
        (["--vary", "traffic.load=0.1", "--seeds", "-1"], "--seeds"),
        (["--vary", "traffic.load=0.1"], "-o"),
        (["--vary", "traffic.load=0.1", "--set", "sweep.seeds=0"], "seeds"),
        (["--vary", "traffic.load=0.1", "--set", "sweep.sede=2"], "seeds"),
    ]
    for extra, words in cases:
        o = [] if words == "-o" else ["-o", out]
        r = sweep(binary, TINY, *extra, *o)
        check(r.returncode == 2 and words in r.stderr and not os.path.exists(out),
              f"{extra}: exit 2 naming {words!r}: {r.returncode} {r.stderr}")
    with open(out, "w") as f:
        f.write("plugins,params\nx,y\n")
    r = sweep(binary, TINY, "--vary", "traffic.load=0.1", "-o", out)
    check(r.returncode == 2 and out in r.stderr, f"not a sweep's file: {r.stderr}")
    r = subprocess.run([binary, "run", TINY, "--seeds", "2"], capture_output=True, text=True)
    check(r.returncode == 2 and "sweep" in r.stderr, "sweep options on another command")
    # Unknown keys are each run's error, named with the reason.
    os.remove(out)
    r = sweep(binary, TINY, "--vary", "traffic.lod=0.1,0.2", "-o", out)
    check(r.returncode == 1 and r.stderr.count("run failed") == 2 and "lod" in r.stderr, r.stderr)


def test_report(binary, work, fixtures):
    """insee plot draws a sweep's results (a curve per configuration), and
    insee report makes a page of it: the curves and a table of the points
    whose cells are mean ± t s / sqrt(n) of the runs' own figures."""
    out = os.path.join(work, "r.csv")
    r = sweep(binary, TINY, "--vary", "arbiter.plugin=round-robin,random",
              "--vary", "traffic.load=0.1,0.3", "--seeds", "3", "-o", out)
    check(r.returncode == 0, r.stderr)
    svg = os.path.join(work, "curves.svg")
    p = subprocess.run([binary, "plot", out, "-o", svg], capture_output=True, text=True)
    check(p.returncode == 0 and os.path.getsize(svg) > 0, f"insee plot: {p.stderr}")
    with open(svg) as f:
        text = f.read()
    check("round-robin" in text and "random" in text, "a curve per configuration")
    page = os.path.join(work, "sweep.html")
    p = subprocess.run([binary, "report", out, "-o", page], capture_output=True, text=True)
    check(p.returncode == 0, f"insee report: {p.stderr}")
    with open(page) as f:
        html = f.read()
    check(html.count("<svg") == 1 and "12 runs · 4 points" in html, "curves and counts")
    runs = rows(out)
    for key in {x["vary"] for x in runs}:
        v = [float(x["lat_gen_mean"]) for x in runs if x["vary"] == key]
        mean = sum(v) / 3
        half = T95[2] * math.sqrt(sum((a - mean) ** 2 for a in v) / 2) / math.sqrt(3)
        cell = f"{mean:.4f} ± {half:.4f}"
        check(cell in html, f"{key}: latency cell {cell}")


def test_cluster(binary, work, fixtures):
    """--slurm writes a job array script of N shards and a merge; its tasks,
    run here in any order as Slurm would run them, and its merge give the
    results and summary of a -j 2 sweep byte for byte. Shards are disjoint
    and cover the grid; a merge missing a shard says so and a plain sweep
    then completes it."""
    grid = ["--vary", "arbiter.plugin=round-robin,random", "--vary", "traffic.load=0.1:0.3:0.1",
            "--seeds", "2"]
    ref = os.path.join(work, "ref.csv")
    check(sweep(binary, TINY, *grid, "-j", "2", "-o", ref).returncode == 0, "reference sweep")
    job = os.path.join(work, "job.sh")
    r = sweep(binary, TINY, *grid, "--slurm", job, "--array", "3", "-o", "all.csv", cwd=work)
    check(r.returncode == 0 and not os.path.exists(os.path.join(work, "all.csv")),
          f"--slurm writes the script and runs nothing: {r.stderr}")
    with open(job) as f:
        script = f.read()
    for line in ["#SBATCH --array=1-3", "#SBATCH --output=all-shard-%a.log",
                 '--shard "$SLURM_ARRAY_TASK_ID/3"', "sbatch --parsable",
                 "--dependency=afterany:", "-o 'all-shard-'\"$SLURM_ARRAY_TASK_ID\".csv"]:
        check(line in script, f"the script holds {line!r}:\n{script}")
    check(script.count("--merge 'all-shard-") == 3, "the merge names the 3 shards")
    for task in ("3", "1"):
        t = subprocess.run(["bash", job], env={**os.environ, "SLURM_ARRAY_TASK_ID": task},
                           capture_output=True, text=True)
        check(t.returncode == 0, f"task {task}: {t.stderr}")
    shards = [rows(os.path.join(work, f"all-shard-{i}.csv")) for i in (1, 3)]
    keys = [{(x["vary"], x["seed"]) for x in s} for s in shards]
    check(len(keys[0]) == len(keys[1]) == 4 and not keys[0] & keys[1], "disjoint shards of 4")
    m = subprocess.run(["bash", job, "merge"], capture_output=True, text=True)
    check(m.returncode == 1 and "4 missing from the shards" in m.stderr,
          f"a merge without shard 2 names what is missing: {m.returncode} {m.stderr}")
    t = subprocess.run(["bash", job], env={**os.environ, "SLURM_ARRAY_TASK_ID": "2"},
                       capture_output=True, text=True)
    check(t.returncode == 0, t.stderr)
    m = subprocess.run(["bash", job, "merge"], capture_output=True, text=True)
    check(m.returncode == 0, m.stderr)
    out = os.path.join(work, "all.csv")
    check(read(out) == read(ref), "shards + merge equal the -j 2 sweep")
    check(read(os.path.join(work, "all-summary.csv")) == read(os.path.join(work, "ref-summary.csv")),
          "and so does the summary")
    for extra, words in [(["--shard", "0/3"], "1 <= I <= N"), (["--shard", "4/3"], "1 <= I <= N"),
                         (["--shard", "1/3", "--stop-at-saturation"], "shards"),
                         (["--array", "2"], "--slurm"),
                         (["--shard", "1/2", "--merge", out], "one of")]:
        r = sweep(binary, TINY, *grid, *extra, "-o", os.path.join(work, "bad.csv"))
        check(r.returncode == 2 and words in r.stderr, f"{extra}: {r.returncode} {r.stderr}")


def held_runs(work):
    """The runs the three ranks' files of the mpi sweep hold, each counted
    once; a run held twice fails the test."""
    runs = [(row["vary"], row["seed"]) for i in (1, 2, 3)
            for row in rows(os.path.join(work, f"mpi-shard-{i}.csv"))]
    check(len(runs) == len(set(runs)), f"no run is in two ranks' files: {sorted(runs)}")
    return len(runs)


def test_mpi(binary, work, fixtures, with_mpi):
    """mpirun -n 3 --oversubscribe hands the runs out to 3 ranks and gives
    the results and summary of a -j 2 sweep byte for byte, the ranks talking
    through rank 0's socket (all on this machine) and, with
    INSEE_SWEEP_RANKS=mpi, through Open MPI; a rank that lost runs (its
    shard file cut short) and the merged results removed, the same command
    runs what is missing and gives them again. Without Open MPI in insee,
    the socket still serves, and INSEE_SWEEP_RANKS=mpi is refused saying
    so."""
    mpirun = shutil.which("mpirun")
    if not mpirun:
        print("SKIP: no mpirun (Debian's openmpi-bin); the Open MPI sweep is not tested")
        sys.exit(77)
    grid = ["--vary", "arbiter.plugin=round-robin,random", "--vary", "traffic.load=0.1:0.3:0.1",
            "--seeds", "2"]
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    # Open MPI's own allocations outlive MPI_Finalize: not insee's leaks.
    env = {**os.environ, "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0",
           "OMPI_MCA_btl": "self,vader,tcp"}
    via_mpi = {**env, "INSEE_SWEEP_RANKS": "mpi"}
    command = [mpirun, "-n", "3", "--oversubscribe", *root, os.path.abspath(binary), "sweep",
               TINY, *grid, "-o", "mpi.csv"]
    ref = os.path.join(work, "ref.csv")
    check(sweep(binary, TINY, *grid, "-j", "2", "-o", ref).returncode == 0, "reference sweep")
    out, summary = os.path.join(work, "mpi.csv"), os.path.join(work, "mpi-summary.csv")
    shard_files = [os.path.join(work, f"mpi-shard-{i}.csv") for i in (1, 2, 3)]
    for how, environment in (("socket", env), ("Open MPI", via_mpi)):
        for f in [out, summary, *shard_files]:
            if os.path.exists(f):
                os.remove(f)
        r = subprocess.run(command, capture_output=True, text=True, cwd=work, env=environment)
        if how == "Open MPI" and with_mpi != "1":
            check(r.returncode != 0 and "built without Open MPI" in r.stderr
                  and not os.path.exists(out),
                  f"without Open MPI, INSEE_SWEEP_RANKS=mpi is refused: {r.returncode} {r.stderr}")
            continue
        check(r.returncode == 0, f"mpirun -n 3 ({how}): {r.returncode} {r.stdout} {r.stderr}")
        check(held_runs(work) == 12, f"the ranks' files hold the 12 runs, each once ({how})")
        check(read(out) == read(ref), f"the ranks' results equal the -j 2 sweep ({how})")
        check(read(summary) == read(os.path.join(work, "ref-summary.csv")),
              f"and so does the summary ({how})")
        check(r.stdout.count("round-robin") == sweep(binary, TINY, *grid, "-o", ref)
              .stdout.count("round-robin"), f"rank 0 alone shows the summary ({how})")
    shard2 = os.path.join(work, "mpi-shard-2.csv")
    with open(shard2) as f:
        lines = f.readlines()
    with open(shard2, "w") as f:
        f.writelines(lines[:2])
    os.remove(out)
    r = subprocess.run(command, capture_output=True, text=True, cwd=work, env=env)
    check(r.returncode == 0 and read(out) == read(ref),
          f"the runs a rank lost are run again, the others kept: {r.stderr}")
    check(held_runs(work) == 12, "the runs it lost were run once more, by any rank")
    for f in shard_files:
        os.remove(f)
    r = subprocess.run(command, capture_output=True, text=True, cwd=work, env=env)
    check(r.returncode == 0 and read(out) == read(ref)
          and all(not os.path.exists(f) or not rows(f) for f in shard_files),
          f"the runs the merged results hold are not run again: {r.stderr}")
    r = subprocess.run(command[:-2] + ["--shard", "1/2", "-o", "bad.csv"], capture_output=True,
                       text=True, cwd=work, env=env)
    check(r.returncode != 0 and "under mpirun" in r.stderr, f"--shard under mpirun: {r.stderr}")


def main():
    what, binary, work, fixtures = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"grid": test_grid, "resume": test_resume, "crash": test_crash,
     "saturation": test_saturation, "bad-input": test_bad_input, "report": test_report,
     "cluster": test_cluster,
     "mpi": lambda *a: test_mpi(*a, with_mpi=sys.argv[5])}[what](binary, work, fixtures)


if __name__ == "__main__":
    main()
