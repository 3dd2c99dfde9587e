#!/usr/bin/python3
"""The JSON results of `insee run --json`: valid against docs/results.schema.json,
byte-identical for the same seed apart from the "performance" object, and
consistent with the run's own summary. Run by ctest (tests/results/)."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    sys.exit("FAIL: python3-jsonschema is missing (Debian: apt install python3-jsonschema); "
             "this test validates the results against their schema and cannot be skipped")

INSEE, SCHEMA, SOURCE = sys.argv[1], sys.argv[2], sys.argv[3]
EVERY_STATISTIC = ["--set", "stats.distance_histograms=true", "--set", "stats.queue_histograms=true",
                   "--set", "stats.port_map=true", "--set", "stats.node_map=true",
                   "--set", "stats.pair_map=true", "--set", "stats.interval=700",
                   "--set", "stats.direction_series=true"]
# (name, config file or None for the embedded default, extra arguments)
RUNS = [
    ("default", None, []),
    ("every-statistic", None, EVERY_STATISTIC),
    ("fixed-window", os.path.join(SOURCE, "examples/torus-8x8-uniform.toml"), EVERY_STATISTIC),
    ("causal-trace", os.path.join(SOURCE, "examples/trace-ring.toml"), EVERY_STATISTIC),
    ("two-applications", os.path.join(SOURCE, "examples/two-applications.toml"), []),
    ("indirect", os.path.join(SOURCE, "examples/fat-tree-4ary3-updown.toml"), EVERY_STATISTIC),
    # split into two parts of the network on threads: the parts' figures
    # merged, and the split's own members in "performance"
    ("threads-as-parts", os.path.join(SOURCE, "examples/torus-8x8-uniform.toml"),
     ["--set", "simulation.threads=2", "--set", "stats.node_map=true", "--set",
      "stats.interval=700"]),
    ("real-units", os.path.join(SOURCE, "examples/tofu-nsim-units.toml"),
     ["--set", "simulation.warmup=5000", "--set", "simulation.cycles=20000",
      "--set", "stats.direction_series=true"]),
]

EXTRA = {name: extra for name, _, extra in RUNS}
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def run(config, extra, out):
    cmd = [INSEE, "run"] + ([config] if config else []) + extra + ["--json", out]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=SOURCE)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {done.returncode}: {done.stderr}")
    with open(out, encoding="utf-8") as f:
        return f.read()


def without_performance(text):
    i = text.find('"performance"')
    check(i > 0, "the document has a performance object")
    return text[:i]


def consistent(name, d):
    s, h, m, run_ = d["summary"], d["histograms"], d["maps"], d["run"]
    L = d["network"]["packet_phits"]
    if h["latency"] is not None:
        check(sum(b["count"] for b in h["latency"]) == s["delivered"],
              f"{name}: latency histogram total = delivered")
        check(all(b["lo"] <= b["hi"] for b in h["latency"]), f"{name}: bins ordered")
    if h["distance_consumption"] is not None and s["delivered"]:
        dc = h["distance_consumption"]
        check(sum(dc) == s["delivered"], f"{name}: distance histogram total = delivered")
        mean = sum(i * c for i, c in enumerate(dc)) / sum(dc)
        check(abs(mean - s["avg_hops"]) < 1e-9, f"{name}: distance histogram mean = avg hops")
        check(sum(h["distance_injection"]) == s["injected"],
              f"{name}: injection distances total = injected")
    if m["port_load"] is not None:
        check(sum(sum(p) for p in m["port_load"]["phits"]) == s["packet_hops"] * L,
              f"{name}: port map total = packet-hops x L")
        check(len(m["port_load"]["phits"]) == len(d["network"]["ports"]), f"{name}: a row per port")
    if m["node_accepted"] is not None:
        check(sum(m["node_accepted"]) == s["delivered"] * L, f"{name}: node map total")
    if m["pairs"] is not None:
        check(sum(map(sum, m["pairs"]["consumption"])) == s["delivered"], f"{name}: pair map total")
    if d["series"] is not None:
        check(d["series"]["cycle"][-1] == run_["cycles"], f"{name}: the series reaches the end")
        check(all(len(d["series"][k]) == len(d["series"]["cycle"]) for k in d["series"]
                  if isinstance(d["series"][k], list)), f"{name}: series columns of one length")
    if run_["phases"] == "converge":
        b = d["batches"]
        check(b is not None and b["count"] == len(b["figures"]["accepted_load"]["values"]),
              f"{name}: one value per batch")
        lo, hi = b["figures"]["accepted_load"]["ci95"]
        check(lo <= b["figures"]["accepted_load"]["mean"] <= hi, f"{name}: mean inside its CI")
    else:
        check(d["batches"] is None, f"{name}: batches only with phases = converge")
    check(("timing" in d) == (name == "real-units"),
          f"{name}: a timing object exactly when [network] is given")
    if "timing" in d:
        t = d["timing"]
        check(t["cycle_ns"] * t["link_gbytes_s"] == d["network"]["phit_bytes"],
              f"{name}: a phit per cycle at the link's bandwidth")
        check(abs(t["latency_mean_ns"] - s["latency"]["mean"] * t["cycle_ns"]) < 1e-9,
              f"{name}: latency in ns = cycles x cycle_ns")
        check(abs(t["simulated_us"] * 1e3 - run_["cycles"] * t["cycle_ns"]) < 1e-6,
              f"{name}: simulated time = cycles x cycle_ns")
    check(("direction_series" in d) == ("stats.direction_series=true" in EXTRA[name]),
          f"{name}: a direction series exactly when asked for")
    for c in d.get("direction_series", []):
        check(len(c["utilisation"]) == len(d["series"]["cycle"]), f"{name}: a direction's series")
        if "timing" in d:
            check(all(abs(g - u * d["timing"]["link_gbytes_s"]) < 1e-9
                      for u, g in zip(c["utilisation"], c["gbytes_s"]) if u is not None),
                  f"{name}: GB/s per link = utilisation x the link's bandwidth")
    coords = d["network"]["router_coords"]
    if coords is not None:
        check(len(coords) == d["network"]["routers"] and all(len(c) == d["network"]["dims"]
                                                            for c in coords),
              f"{name}: a coordinate per router and dimension")


def main():
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    with tempfile.TemporaryDirectory() as tmp:
        for name, config, extra in RUNS:
            # One path for both: the echoed configuration names it.
            a = run(config, extra, os.path.join(tmp, f"{name}.json"))
            b = run(config, extra, os.path.join(tmp, f"{name}.json"))
            check(without_performance(a) == without_performance(b),
                  f"{name}: same seed, same document (performance apart)")
            doc = json.loads(a)
            for e in validator.iter_errors(doc):
                failures.append(f"{name}: schema: {'/'.join(map(str, e.path))}: {e.message}")
            consistent(name, doc)
            parts = doc["performance"].get("parts", 1)
            check(parts == (2 if name == "threads-as-parts" else 1),
                  f"{name}: split into {parts} part(s)")
        left = sorted(os.listdir(tmp))
        check(all(f.endswith(".json") and not f.startswith(".") for f in left),
              f"no temporary left behind: {left}")
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        sys.exit(1)
    print(f"{len(RUNS)} configurations: valid, reproducible and consistent")


main()
