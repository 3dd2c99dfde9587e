#!/usr/bin/python3
"""insee report and insee plot from the command line.

usage: test_report.py page|bad-input|plot|hostile|html|jobs INSEE WORKDIR
"""
import html.parser
import json
import os
import re
import shutil
import sys

from common import FIGURES, check, insee, real_run


class Page(html.parser.HTMLParser):
    """The figures of a page: caption title, and what its <svg> holds."""

    def __init__(self):
        super().__init__()
        self.figures, self.fig, self.stack, self.urls, self.absent = [], None, [], [], []
        self.in_b = self.in_absent = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href", "xlink:href"):
            if k in a:
                self.urls.append(a[k])
        if tag == "figure":
            self.fig = {"title": "", "svgs": 0, "drawn": 0}
        elif self.fig is not None and tag == "svg":
            self.fig["svgs"] += 1
        elif self.fig is not None and tag in ("path", "polyline", "polygon"):
            self.fig["drawn"] += 1
        elif tag == "b":
            self.in_b = True
        elif tag == "p" and a.get("class") == "absent":
            self.in_absent = True
            self.absent.append("")

    def handle_endtag(self, tag):
        if tag == "figure":
            self.figures.append(self.fig)
            self.fig = None
        elif tag == "b":
            self.in_b = False
        elif tag == "p":
            self.in_absent = False

    def handle_data(self, data):
        if self.fig is not None and self.in_b:
            self.fig["title"] += data
        if self.in_absent:
            self.absent[-1] += data


def parse(path):
    p = Page()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p.feed(text)
    return p, text


def test_page(binary, work):
    run = real_run(binary, work)
    out = os.path.join(work, "report.html")
    r = insee(binary, "report", run, "-o", out)
    check(r.returncode == 0, f"insee report exits 0 (got {r.returncode}: {r.stderr})")
    page, text = parse(out)
    with open(run) as f:
        doc = json.load(f)
    external = [u for u in page.urls if re.match(r"\s*(https?:)?//", u)]
    check(not external, f"no external src/href: {external}")
    check(not re.search(r"<(script|link|img|iframe)\b", text), "no script, link, img or iframe")
    titles = [f["title"] for f in page.figures]
    check(titles == FIGURES, f"figure titles in order: {titles}")
    for f in page.figures:
        check(f["svgs"] == 1 and f["drawn"] > 0, f"figure {f['title']!r} has one drawn <svg>: {f}")
    check(not page.absent, f"nothing left out of a run recording everything: {page.absent}")
    # The parameters: the config verbatim, and each differing parameter.
    check(html_text(doc["config"]) in text, "the config TOML verbatim in the page")
    for item in doc["params"].split(";"):
        key, value = item.split("=", 1)
        check(f"<td>{html_text(key)}</td><td>{html_text(value)}</td>" in text,
              f"parameter {item} in the differs table")
    s = doc["summary"]
    check(f"delivered {s['delivered']}" in text, "delivered count in the summary")
    check(f"{s['latency']['p999']:.2f}" in text, "latency p99.9 in the summary")
    # Utilisation of the busiest link, computed here from the JSON.
    loads = doc["maps"]["port_load"]
    busiest = max(sum(v) for p, v in zip(doc["network"]["ports"], loads["phits"])
                  if p["to"] is not None) / loads["cycles"]
    check(f"Busiest link: {busiest:.3f}." in text, f"busiest link {busiest:.3f} in the caption")
    check("one panel per z plane" not in text, "a 2D network has one panel")

    check(doc["plugin_figures"] == [] and "figures</h2>" not in text.replace("<h2>Figures</h2>", ""),
          "no plugin reported figures: no table of them")

    # Data the run did not record: the figure is left out, saying why.
    doc["maps"]["port_load"] = None
    doc["series"] = None
    # A plugin's own figures (a bridge's, say) get a table of their own.
    doc["plugin_figures"] = [{"section": "bridge", "name": "delivery_wait_max", "value": 199,
                              "unit": "cycles"}]
    partial = os.path.join(work, "partial.json")
    with open(partial, "w") as f:
        json.dump(doc, f)
    r = insee(binary, "report", partial, "-o", out)
    check(r.returncode == 0, f"report of a partial run exits 0: {r.stderr}")
    page, text = parse(out)
    titles = [f["title"] for f in page.figures]
    check(titles == [t for t in FIGURES if t not in ("Port load", "Latency over time",
                                                     "Load over time")], f"left out: {titles}")
    check(len(page.absent) == 3 and all("null" in a for a in page.absent),
          f"a line per figure left out, saying why: {page.absent}")
    check("maps.port_load is null" in text, "the port load line names its key")
    check('<td>bridge</td><td>delivery_wait_max</td><td class="n">199</td><td>cycles</td>' in text,
          "the plugin's figure in its table")
    # A file written before plugin_figures existed still makes a page.
    del doc["plugin_figures"]
    with open(partial, "w") as f:
        json.dump(doc, f)
    r = insee(binary, "report", partial, "-o", out)
    check(r.returncode == 0 and "delivery_wait_max" not in open(out).read(),
          f"a file without plugin_figures: {r.stderr}")

    # The latency histogram once showed one spike at 0: a straggler far out
    # stretched the linear axis until every bar was a pixel at its left end.
    # Past two decades the axis is logarithmic, and its range is the bins'.
    doc["histograms"]["latency"] = [{"lo": 16, "hi": 16, "count": 40},
                                    {"lo": 20, "hi": 20, "count": 90},
                                    {"lo": 49152, "hi": 49279, "count": 1}]
    with open(partial, "w") as f:
        json.dump(doc, f)
    r = insee(binary, "report", partial, "-o", out)
    check(r.returncode == 0, f"report with a straggler exits 0: {r.stderr}")
    text = open(out).read()
    check("latency in log scale" in text, "the histogram of a straggler is drawn in log scale")
    hist = text[text.index("<figure>", text.index("Load over time") if "Load over time" in text
                           else 0):text.index("Latency histogram</b>")]
    ticks = re.findall(r"<tspan[^>]*>\s*([\d.]+)\s*</tspan>", hist)
    check("100" in ticks and "1000" in ticks, f"decades on the latency axis: {ticks}")
    # No packet delivered in the window: a line saying so, not a failed page.
    doc["histograms"]["latency"] = []
    with open(partial, "w") as f:
        json.dump(doc, f)
    r = insee(binary, "report", partial, "-o", out)
    check(r.returncode == 0, f"report of an empty window exits 0: {r.stderr}")
    check("no packet was delivered in the measurement window" in open(out).read(),
          "the empty histogram is left out, saying why")

    # A topology without coordinates: the sorted bar chart, said in the caption.
    tree = real_run(binary, os.path.join(work, "ring"), dims="[16]")
    r = insee(binary, "report", tree, "-o", out)
    check(r.returncode == 0, f"report of a ring exits 0: {r.stderr}")
    page, text = parse(out)
    check("Port load" in [f["title"] for f in page.figures], "a port load figure for a ring")
    check("has no 2D or 3D layout" in text and "sorted from the busiest" in text,
          "the caption says the ring's port loads are sorted bars")
    # Real units and the direction series (NSIM's Figs. 8 and 9): latency
    # in ns, and a curve per dimension and direction in GB/s per link.
    units = real_run(binary, os.path.join(work, "units"),
                     extra=('network.link_bandwidth="4 GB/s"', "stats.direction_series=true"))
    r = insee(binary, "report", units, "-o", out)
    check(r.returncode == 0, f"report of a run in real units exits 0: {r.stderr}")
    page, text = parse(out)
    titles = [f["title"] for f in page.figures]
    check(titles[:3] == ["Latency over time", "Load over time",
                         "Link throughput per direction over time"], f"figures: {titles}")
    fig = text[text.index("Load over time</b>"):text.index("per direction over time</b>")]
    labels = svg_texts(fig)
    check(all(d in labels for d in ("+X", "−X", "+Y", "−Y")) and "GB/s per link" in labels,
          f"a curve per direction, in GB/s: {labels}")
    check("latency (ns)" in svg_texts(text[:text.index("Latency over time</b>")]),
          "the latency over time in ns")
    # 3D: one panel per z plane.
    cube = real_run(binary, os.path.join(work, "cube"), dims="[4,4,4]")
    r = insee(binary, "report", cube, "-o", out)
    check(r.returncode == 0 and "one panel per z plane" in open(out).read(),
          f"a 3D torus is drawn plane by plane: {r.stderr}")
    for z in range(4):
        check(f"z = {z}" in open(out).read(), f"panel z = {z} labelled")


def html_text(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace(
        '"', "&quot;").replace("'", "&#39;")


def refused(r, out, *words):
    check(r.returncode == 2, f"exit 2 (got {r.returncode}: {r.stderr})")
    for w in words:
        check(w in r.stderr, f"the message names {w!r}: {r.stderr}")
    if out:
        check(not os.path.exists(out) or open(out).read() == "old page",
              "the output is left as it was")
        d = os.path.dirname(out)
        check(not [n for n in os.listdir(d) if "insee-tmp" in n], "no temporary file left")


def test_bad_input(binary, work):
    run = real_run(binary, work)
    with open(run) as f:
        doc = json.load(f)
    out = os.path.join(work, "out.html")
    svg_out = os.path.join(work, "out.svg")

    def write(name, content):
        p = os.path.join(work, name)
        with open(p, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return p

    for name, content, words in [
        ("text.json", "not json at all\n", ["text.json", "not a JSON results file"]),
        ("array.json", [1, 2], ["array.json", "'format'"]),
        ("format.json", dict(doc, format="something-else"), ["format.json", "'format'"]),
        ("version.json", dict(doc, format_version=2), ["version.json", "'format_version'"]),
    ]:
        refused(insee(binary, "report", write(name, content), "-o", out), out, *words)

    # Nesting and size are checked before parsing: json-glib recursed once
    # per level and overflowed the stack at 100 000 nested arrays.
    deep = write("deep.json", "[" * 100000)
    refused(insee(binary, "report", deep, "-o", out), out, "deep.json", "deeper than 64 levels")
    deep = write("deep-object.json", '{"a":' * 100000)
    refused(insee(binary, "plot", deep, "-o", svg_out), svg_out, "deep-object.json", "64 levels")
    big = os.path.join(work, "big.json")
    with open(big, "w") as f:
        f.truncate((512 << 20) + 1)  # sparse: no disk space used
    refused(insee(binary, "report", big, "-o", out), out, "big.json", "limit of 512 MiB")
    refused(insee(binary, "plot", big, "-o", svg_out), svg_out, "big.json", "limit of 512 MiB")
    os.remove(big)

    missing = json.loads(json.dumps(doc))
    del missing["summary"]["latency"]["p99"]
    refused(insee(binary, "report", write("missing.json", missing), "-o", out), out,
            "missing.json", "'summary.latency.p99'", "missing")
    typed = json.loads(json.dumps(doc))
    typed["network"]["ports"][3]["to"] = "seven"
    refused(insee(binary, "report", write("typed.json", typed), "-o", out), out,
            "typed.json", "'network.ports[3].to'", "number")
    short = json.loads(json.dumps(doc))
    short["maps"]["port_load"]["phits"].pop()
    refused(insee(binary, "report", write("short.json", short), "-o", out), out,
            "short.json", "'maps.port_load.phits'")

    # A failed report leaves an existing page as it was.
    with open(out, "w") as f:
        f.write("old page")
    refused(insee(binary, "report", write("missing2.json", missing), "-o", out), out,
            "'summary.latency.p99'")
    os.remove(out)

    # Usage: no -o, two inputs, -o on another command.
    refused(insee(binary, "report", run), None, "-o FILE")
    refused(insee(binary, "report", run, run, "-o", out), out, "one input file")
    refused(insee(binary, "topology", "-o", out), out, "-o applies to")

    # gnuplot missing from PATH: what to install, and no output.
    env = dict(os.environ, PATH=os.path.join(work, "empty-path"))
    refused(insee(binary, "report", run, "-o", out, env=env), out,
            "install gnuplot (Debian: gnuplot-nox)")
    refused(insee(binary, "plot", run, "-o", svg_out, env=env), svg_out, "gnuplot-nox")

    # plot: a foreign CSV header names the file and the column it lacks.
    foreign = write("foreign.csv", "name,value\nx,1\n")
    refused(insee(binary, "plot", foreign, "-o", svg_out), svg_out, "foreign.csv", "'plugins'")
    header = ("plugins,params,seed,offered_load,accepted_load,lat_gen_mean\n")
    bad = write("badnum.csv", header + "torus/bubble,traffic.load=0.1,1,0.1,0.1,abc\n")
    refused(insee(binary, "plot", bad, "-o", svg_out), svg_out, "badnum.csv:2", "'lat_gen_mean'",
            "'abc'")
    ragged = write("ragged.csv", header + "torus/bubble,traffic.load=0.1,1,0.1\n")
    refused(insee(binary, "plot", ragged, "-o", svg_out), svg_out, "ragged.csv:2", "fields")
    quote = write("quote.csv", header + '"torus/bubble,traffic.load=0.1,1,0.1,0.1,3\n')
    refused(insee(binary, "plot", quote, "-o", svg_out), svg_out, "quote.csv:2", "never closed")
    # The output's name says its format: another one is refused, not guessed.
    refused(insee(binary, "plot", run, "-o", os.path.join(work, "x.pdf")), None, "x.pdf",
            "-o FILE.png")
    check(not os.path.exists(os.path.join(work, "x.pdf")), "no x.pdf written")
    refused(insee(binary, "plot", "--latency", "p42", run, "-o", svg_out), svg_out, "p42",
            "p50, p90, p99, p999 or max")
    refused(insee(binary, "plot", "--latency", "p50", bad, "-o", svg_out), svg_out,
            "badnum.csv:1", "'lat_gen_p50'", "run JSON files")
    refused(insee(binary, "report", "--log", run, "-o", out), out, "--log", "`insee plot` only")
    refused(insee(binary, "plot", os.path.join(work, "nothing.csv"), "-o", svg_out), svg_out,
            "nothing.csv")


class Svg(html.parser.HTMLParser):
    """The plot groups of a gnuplot SVG: (title, [paths' point lists])."""

    def __init__(self):
        super().__init__()
        self.groups, self.cur, self.in_title, self.texts = [], None, False, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "g" and re.match(r"gnuplot_plot_\d+[a-z]$", a.get("id", "")):
            self.cur = {"title": "", "paths": []}
            self.groups.append(self.cur)
        elif tag == "title" and self.cur is not None:
            self.in_title = True
        elif tag == "path" and self.cur is not None and "d" in a:
            # One polyline per "M x,y L x,y ..." run.
            for sub in a["d"].split("M")[1:]:
                pts = re.findall(r"([-\d.]+),([-\d.]+)", sub)
                self.cur["paths"].append([tuple(map(float, p)) for p in pts])

    def handle_endtag(self, tag):
        self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.cur["title"] += data
        self.texts.append(data)


def test_plot(binary, work):
    os.makedirs(work, exist_ok=True)
    header = ("plugins,params,seed,nodes,packet_phits,phases,converged,warmup,measured,"
              "offered_load,generated_load,accepted_load,accepted_ci95,generated,injected,"
              "delivered,dropped,avg_hops,lat_gen_mean,lat_gen_std,lat_gen_max,lat_gen_p99,"
              "lat_gen_ci95,lat_inj_mean,lat_inj_std,lat_inj_max,cycles,drained\n")
    rows = []
    # Two configurations x 3 loads, rows out of load order, two seeds at 0.3.
    for mode, load, seed, acc, lat in [
        ("random", 0.5, 1, 0.48, 60), ("random", 0.1, 1, 0.1, 25),
        ("", 0.3, 1, 0.3, 31), ("random", 0.3, 1, 0.3, 30), ("random", 0.3, 2, 0.29, 36),
        ("", 0.5, 1, 0.45, 80), ("", 0.1, 1, 0.1, 24),
    ]:
        params = ";".join(([f"router.mode={mode}"] if mode else []) +
                          ([f"simulation.seed={seed}"] if seed != 1 else []) +
                          [f"traffic.load={load}"])
        rows.append(f"torus/bubble/round-robin/consecutive/uniform,{params},{seed},64,16,"
                    f"fixed,,1000,4000,{load:.6f},{load},{acc},,1,1,1,0,4,{lat},1,1,1,,1,1,1,"
                    f"1,1\n")
    csv = os.path.join(work, "runs.csv")
    with open(csv, "w") as f:
        f.write(header + "".join(rows))
    out = os.path.join(work, "curves.svg")
    r = insee(binary, "plot", csv, "-o", out)
    check(r.returncode == 0, f"insee plot exits 0: {r.stderr}")
    svg = Svg()
    svg.feed(open(out).read())
    check("Latency (average) against offered load" in svg.texts and
          "Accepted against offered load" in svg.texts, "two panels with their titles")
    legends = [g["title"] for g in svg.groups if not g["title"].startswith("gnuplot_plot")]
    check(sorted(legends) == sorted(["router.mode=random", "router.mode default"] * 2),
          f"two legend entries in each panel, naming only what differs: {legends}")
    for g in svg.groups:
        if g["title"].startswith("gnuplot_plot"):
            continue
        # The line through the points: error bars and the key's sample have
        # 2 points a piece, the frame 5.
        lines = [p for p in g["paths"] if len(p) == 3]
        xs = [p[0] for p in lines[0]] if len(lines) == 1 else lines
        check(len(lines) == 1 and xs == sorted(xs) and len(set(xs)) == 3,
              f"{g['title']}: one line through 3 points by offered load: {xs}")
        if g["title"] == "router.mode=random":
            # Seeds 1 and 2 at load 0.3 (the middle point): the line passes
            # through their mean, half-way along an error bar from one to the other.
            x, y = lines[0][1]
            bars = [p for p in g["paths"] if len(p) == 2 and abs(p[0][0] - x) < 0.01
                    and abs(p[1][0] - x) < 0.01]
            check(len(bars) == 1 and abs(bars[0][0][1] - bars[0][1][1]) > 2 and
                  abs((bars[0][0][1] + bars[0][1][1]) / 2 - y) < 0.02,
                  f"{g['title']}: mean of two seeds between their error bar's ends: {bars}, {y}")

    # The caption names what every curve shares; no point is ringed, every
    # run having converged or had no batches.
    check("all curves: torus/bubble/round-robin/consecutive/uniform" in svg.texts,
          f"the caption names the shared plugins: {svg.texts[:12]}")
    check(not any(g["title"] == "not converged" for g in svg.groups), "no point marked")

    # A run that did not converge gets a ring, in both panels, at its point only.
    with open(csv, "w") as f:
        f.write(header + "".join(rows[:-1]) + rows[-1].replace(",fixed,,", ",batches,0,"))
    r = insee(binary, "plot", csv, "-o", out)
    check(r.returncode == 0, f"insee plot with an unconverged run exits 0: {r.stderr}")
    svg = Svg()
    svg.feed(open(out).read())
    rings = [g for g in svg.groups if g["title"] == "not converged"]
    check(len(rings) == 2, f"a 'not converged' entry in each panel: {[g['title'] for g in svg.groups]}")
    with open(out) as f:
        text = f.read()
    # gnuplot draws each ring as a red <use> of its circle symbol.
    rings = re.findall(r"<use xlink:href='#gpPt5'[^>]*rgb\(255, +0, +0\)", text)
    check(len(rings) == 2, f"one ringed point per panel: {rings}")

    # --latency p99 and --log: the statistic and the scale, said on the axis.
    r = insee(binary, "plot", "--latency", "p99", "--log", csv, "-o", out)
    check(r.returncode == 0, f"insee plot --latency p99 --log exits 0: {r.stderr}")
    svg = Svg()
    svg.feed(open(out).read())
    check("Latency (p99) against offered load" in svg.texts, f"the p99 panel: {svg.texts[:20]}")
    check("p99 latency from generation (cycles, log scale)" in svg.texts, "the log axis said")
    # The CSV's p99 column is 1 everywhere: the latency axis has decades
    # around it (0.1, 1, 10), as a log axis does, where the mean's linear
    # axis went up to 80.
    ticks = [t.strip() for t in svg.texts[:svg.texts.index(
        "p99 latency from generation (cycles, log scale)")] if t.strip()]
    check(ticks[3:6] == ["0.1", "1", "10"], f"log-scale ticks on the latency axis: {ticks}")

    # -o x.png: a real PNG.
    png = os.path.join(work, "curves.png")
    r = insee(binary, "plot", csv, "-o", png)
    check(r.returncode == 0, f"insee plot -o x.png exits 0: {r.stderr}")
    with open(png, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" in data[-16:], "a whole PNG file")

    # A run JSON beside the CSV: one more configuration, told by its parameters.
    run = real_run(binary, os.path.join(work, "json"))
    r = insee(binary, "plot", csv, run, "-o", out)
    check(r.returncode == 0, f"insee plot CSV + JSON exits 0: {r.stderr}")
    svg = Svg()
    svg.feed(open(out).read())
    legends = [g["title"] for g in svg.groups
               if not g["title"].startswith("gnuplot_plot") and g["title"] != "not converged"]
    check(len(legends) == 6 and len(set(legends)) == 3, f"three configurations: {legends}")
    check(not any("traffic.load" in l or "simulation.seed" in l for l in legends),
          f"loads and seeds are not configurations: {legends}")


def hostile_text(work, tag):
    """A string that runs `touch` in the work directory wherever gnuplot or a
    shell would evaluate it, that ends an inline data block, opens a tag and
    uses enhanced-text markup; and the markers it would leave."""
    m = [os.path.join(work, f"MARKER-{tag}-{i}") for i in range(5)]
    text = (f"x`touch {m[0]}` $(touch {m[1]}) system(\"touch {m[2]}\") @macro 'q' \"dq\"\n"
            f"EOD\nsystem(\"touch {m[3]}\")\n`touch {m[4]}` ^{{up}}_{{dn}} <b>&amp;")
    return text, m


def svg_texts(text):
    svg = Svg()
    svg.feed(text)
    return "".join(svg.texts)


def no_markers(markers, what):
    ran = [m for m in markers if os.path.exists(m)]
    check(not ran, f"{what}: no command from the input ran (markers left: {ran})")


def test_hostile(binary, work):
    """Strings from results files reach gnuplot as text it cannot evaluate,
    and reach the SVG literally (a newline shown as \\n)."""
    run = real_run(binary, work)
    with open(run) as f:
        doc = json.load(f)
    out = os.path.join(work, "out.svg")
    # insee report: series.phase strings become labels of the time series.
    h, markers = hostile_text(work, "report")
    doc["series"]["phase"] = [h if i < 2 else h + "-drain" for i in range(len(doc["series"]["phase"]))]
    path = os.path.join(work, "hostile.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    page = os.path.join(work, "page.html")
    r = insee(binary, "report", path, "-o", page)
    check(r.returncode == 0, f"insee report of hostile phases exits 0: {r.stderr}")
    no_markers(markers, "insee report")
    shown = h.replace("\n", "\\n")
    check(svg_texts(open(page).read()).count(shown) >= 2, "each phase label shown literally")

    # insee plot, JSON: the plugins and params strings make the legends.
    h, markers = hostile_text(work, "plot-json")
    doc["series"] = None
    doc["plugins"] = "torus/" + h.replace("/", "|")
    doc["params"] = "app.name=" + h.replace(";", ",") + ";traffic.load=0.3"
    with open(path, "w") as f:
        json.dump(doc, f)
    plain = real_run(binary, os.path.join(work, "plain"))
    r = insee(binary, "plot", path, plain, "-o", out)
    check(r.returncode == 0, f"insee plot of a hostile JSON exits 0: {r.stderr}")
    no_markers(markers, "insee plot, JSON")
    texts = svg_texts(open(out).read())
    check(h.replace("/", "|").replace("\n", "\\n") in texts, "the plugins legend shown literally")
    check("app.name=" + h.replace(";", ",").replace("\n", "\\n") in texts,
          "the params legend shown literally")

    # insee plot, CSV: the same through the plugins and params columns.
    h, markers = hostile_text(work, "plot-csv")
    def quoted(field):
        return '"' + field.replace('"', '""') + '"'
    head = "plugins,params,seed,offered_load,accepted_load,lat_gen_mean\n"
    rows = [f"torus/a,app.name=x;traffic.load=0.1,1,0.1,0.1,20\n",
            f"{quoted(h)},{quoted('app.name=' + h)},1,0.1,0.1,21\n"]
    csv = os.path.join(work, "hostile.csv")
    with open(csv, "w") as f:
        f.write(head + "".join(rows))
    r = insee(binary, "plot", csv, "-o", out)
    check(r.returncode == 0, f"insee plot of a hostile CSV exits 0: {r.stderr}")
    no_markers(markers, "insee plot, CSV")
    texts = svg_texts(open(out).read())
    check(h.replace("\n", "\\n") in texts, "the CSV legend shown literally")


TAG = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


def with_tag(value, key=None):
    """Every string of a results document with TAG appended, but 'format'."""
    if isinstance(value, dict):
        return {k: with_tag(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [with_tag(v, key) for v in value]
    if isinstance(value, str) and key != "format":
        return value + TAG
    return value


def test_html(binary, work):
    """No string of a results file can open a tag in the page."""
    run = real_run(binary, work)
    with open(run) as f:
        doc = json.load(f)
    doc["plugin_figures"] = [{"section": "bridge", "name": "wait", "value": 1, "unit": "cycles"}]
    doc = with_tag(doc)
    path = os.path.join(work, "tagged.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    out = os.path.join(work, "page.html")
    r = insee(binary, "report", path, "-o", out)
    check(r.returncode == 0, f"insee report of a tagged file exits 0: {r.stderr}")
    text = open(out).read()
    check(not re.search(r"<\s*(script|img)", text, re.I), "no tag from the file opens in the page")
    shown = html_text(TAG)
    for value in ("run.phases", "status", "insee.version", "insee.abi", "plugins"):
        v = doc
        for k in value.split("."):
            v = v[k]
        check(html_text(v) in text, f"{value} shown as text")
    check(text.count(shown) >= 12, f"every string shown as text ({text.count(shown)} times)")


class Schedule(html.parser.HTMLParser):
    """The job bars and utilisation polylines of a page."""

    def __init__(self):
        super().__init__()
        self.bars, self.lines = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "rect" and a.get("class") == "job":
            self.bars.append(a)
        elif tag == "polyline" and a.get("class") == "utilisation":
            self.lines.append(a)


def test_jobs(binary, work):
    """The schedule of the example's 12 jobs: a bar per run of each job's nodes
    with its start and end, and the busy-nodes steps."""
    example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                           "sched-swf-dragonfly.toml")
    run, out = os.path.join(work, "run.json"), os.path.join(work, "page.html")
    r = insee(binary, "run", example, "--json", run)
    check(r.returncode == 0, f"the example runs: {r.stderr}")
    r = insee(binary, "report", run, "-o", out)
    check(r.returncode == 0, f"insee report exits 0: {r.stderr}")
    with open(run) as f:
        doc = json.load(f)
    page = Schedule()
    with open(out, encoding="utf-8") as f:
        page.feed(f.read())
    jobs = {a["name"]: a["job"] for a in doc["applications"] if a.get("job")}
    check(len(jobs) == 12, f"the example has 12 jobs ({len(jobs)})")
    for name, job in jobs.items():
        bars = [b for b in page.bars if b["data-job"] == name]
        # the runs of consecutive node numbers the job holds
        nodes = sorted(job["nodes"])
        runs = [(n, n) for n in nodes[:1]]
        for n in nodes[1:]:
            runs[-1:] = [(runs[-1][0], n)] if n == runs[-1][1] + 1 else [runs[-1], (n, n)]
        drawn = sorted((int(b["data-first"]), int(b["data-last"])) for b in bars)
        check(drawn == runs, f"{name}: bars over nodes {drawn}, it held {runs}")
        for b in bars:
            check(float(b["data-start"]) == job["start"] and float(b["data-end"]) == job["end"],
                  f"{name}: bar from {b['data-start']} to {b['data-end']}, "
                  f"the job ran from {job['start']} to {job['end']}")
    check(len(page.bars) == sum(1 for b in page.bars if b["data-job"] in jobs),
          "every bar is a job's")
    steps = doc["scheduler"]["busy_nodes"]
    check(len(page.lines) == 1, f"one utilisation polyline ({len(page.lines)})")
    points = page.lines[0]["points"].split()
    # two points per step (before and after it) and one at the end
    check(len(points) == 2 * len(steps) + 1,
          f"{len(points)} points for {len(steps)} steps of busy nodes")
    top, height = 10, 250
    for i, step in enumerate(steps):
        y = float(points[2 * i + 1].split(",")[1])
        want = top + height * (1 - step["nodes"] / doc["scheduler"]["nodes"])
        check(abs(y - want) < 0.01, f"step {i}: {step['nodes']} busy nodes drawn at y {y}")


def main():
    what, binary, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"page": test_page, "bad-input": test_bad_input, "plot": test_plot,
     "hostile": test_hostile, "html": test_html, "jobs": test_jobs}[what](binary, work)
    print("ok")


if __name__ == "__main__":
    main()
