/* test_graph.c — the graph topology (any network read from a file) against
 * closed forms and breadth-first search over link(): the Petersen graph (10
 * routers, 15 links, diameter 2, average distance 5/3), rings of N (diameter
 * floor(N/2)), tori and a hypercube from edge lists, a tree whose top
 * switches host no node, a directed ring of arcs, the port numbering of
 * links, arcs and parallel links, the edge list and the insee format of one
 * graph giving identical link tables; in every network distance() equals the
 * BFS, every minimal hop is one hop closer and all of them are listed. Then
 * every file error, with the file, the line and what to do.
 */
#define _POSIX_C_SOURCE 200809L /* truncate */
#include "graph_rig.h"
#include "../plugins/topo_check.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXAMPLES INSEE_TEST_SOURCE_DIR "/examples/graphs/"
#define GRAPHS INSEE_TEST_SOURCE_DIR "/tests/topo-graph/graphs/"

typedef struct net {
    graph_rig rig;
    void *self;
    insee_topology_info info;
} net;

static void opened(net *n, void *self, const insee_error *err)
{
    cr_assert_not_null(self, "create: %s", err->message);
    n->self = self;
    n->rig.vt->info(self, &n->info);
}

static net open_text(const char *text, int format)
{
    net n;
    insee_error err;
    rig_open(&n.rig);
    opened(&n, rig_text(&n.rig, text, strlen(text), format, &err), &err);
    return n;
}

static net open_path(const char *path, int format)
{
    net n;
    insee_error err;
    rig_open(&n.rig);
    opened(&n, rig_file(&n.rig, path, format, &err), &err);
    return n;
}

static void net_close(net *n)
{
    n->rig.vt->destroy(n->self);
    rig_close(&n->rig);
}

/* ---- text builders ------------------------------------------------------ */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = 2 * (t->len + (size_t)n + 1);
        t->s = realloc(t->s, t->cap);
        cr_assert_not_null(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* A bidirectional ring of n routers in either format. */
static char *ring(uint32_t n, int format)
{
    text t = {0};
    if (format == FORMAT_INSEE)
        put(&t, "routers %u\n", n);
    for (uint32_t r = 0; r < n; r++)
        put(&t, "%s%u %u\n", format == FORMAT_INSEE ? "link " : "", r, (r + 1) % n);
    return t.s;
}

/* ---- the checks every network passes -------------------------------------- */

typedef struct measure {
    uint32_t links;   /* plugged outputs */
    uint32_t diameter;/* largest BFS distance between routers hosting nodes */
    double average;   /* mean BFS distance over ordered pairs of distinct hosting routers */
} measure;

/* Routing at router r toward `node`, under every salt: topo_check_hops
   (every listed hop one closer, all closer ports listed, none twice, no
   dimension, max = 1 and max = 0), no direction or flag, and the salt only
   rotates the list that salt 0 gives. */
static void check_hops(const topo_table *links, const uint32_t *bfs, uint32_t r, uint32_t node)
{
    uint32_t ports = links->vt->ports(links->self, r);
    insee_hop base[ports + 1], out[ports + 1];
    uint32_t w = topo_check_hops(links, bfs, r, node, 0, base, ports + 1);
    for (uint32_t i = 0; i < w; i++) {
        cr_assert_eq(base[i].dir, 0);
        cr_assert_eq(base[i].flags, 0);
    }
    for (uint32_t salt = 1; salt < 8; salt++) {
        cr_assert_eq(topo_check_hops(links, bfs, r, node, salt, out, ports + 1), w);
        for (uint32_t i = 0; i < w; i++)
            cr_assert(memcmp(&out[i], &base[(i + salt % w) % w], sizeof out[i]) == 0,
                      "router %u to node %u salt %u: hop %u is not salt 0's rotated", r, node,
                      salt, i);
    }
}

/* Everything topology.h promises, against BFS; returns what was measured. */
static measure check_net(const net *n)
{
    const insee_topology_vtable *vt = n->rig.vt;
    uint32_t routers = n->info.routers;
    measure m = {0};
    cr_assert_gt(routers, 0);
    cr_assert_eq(n->info.dims, 0);
    topo_table links;
    topo_read(&links, vt, n->self);
    m.links = topo_check_links(&links);
    uint32_t *bfs = topo_bfs_all(&links);
    double sum = (double)topo_check_distances(&links, bfs, &m.diameter);
    cr_assert_eq(n->info.diameter, m.diameter);
    /* Routing toward one node of each hosting router: every node of it is
       the same question. */
    bool *hosts = calloc(routers, sizeof *hosts);
    uint32_t hosting = 0;
    for (uint32_t x = 0; x < n->info.nodes; x++) {
        uint32_t t = vt->node_router(n->self, x);
        if (hosts[t])
            continue;
        hosts[t] = true;
        hosting++;
        for (uint32_t r = 0; r < routers; r++)
            check_hops(&links, bfs, r, x);
    }
    cr_assert_eq((n->info.flags & INSEE_TOPO_INDIRECT) != 0, hosting < routers);
    if (hosting > 1)
        m.average = sum / ((double)hosting * (hosting - 1));
    free(hosts);
    free(bfs);
    topo_table_free(&links);
    return m;
}

/* Same routers, nodes, ports and link table. */
static void same_tables(const net *a, const net *b)
{
    cr_assert_eq(a->info.routers, b->info.routers);
    cr_assert_eq(a->info.nodes, b->info.nodes);
    cr_assert_eq(a->info.max_ports, b->info.max_ports);
    cr_assert_eq(a->info.flags, b->info.flags);
    cr_assert_eq(a->info.diameter, b->info.diameter);
    for (uint32_t x = 0; x < a->info.nodes; x++)
        cr_assert_eq(a->rig.vt->node_router(a->self, x), b->rig.vt->node_router(b->self, x));
    topo_table ta, tb;
    topo_read(&ta, a->rig.vt, a->self);
    topo_read(&tb, b->rig.vt, b->self);
    char why[160];
    cr_assert(topo_same_links(&ta, &tb, why, sizeof why), "%s", why);
    topo_table_free(&ta);
    topo_table_free(&tb);
}

/* ---- networks --------------------------------------------------------------- */

Test(graph, petersen)
{
    net n = open_path(EXAMPLES "petersen.net", FORMAT_INSEE);
    cr_assert_eq(n.info.routers, 10);
    cr_assert_eq(n.info.nodes, 10);
    cr_assert_eq(n.info.max_ports, 3);
    cr_assert_eq(n.info.flags, 0);
    cr_assert_eq(n.info.diameter, 2);
    for (uint32_t r = 0; r < 10; r++) {
        cr_assert_eq(n.rig.vt->ports(n.self, r), 3);
        cr_assert_eq(n.rig.vt->node_router(n.self, r), r);
    }
    measure m = check_net(&n);
    cr_assert_eq(m.links, 2 * 15, "15 bidirectional links");
    cr_assert_eq(m.diameter, 2);
    /* each router: 3 neighbours at 1 hop, the other 6 at 2 */
    cr_assert_float_eq(m.average, 5.0 / 3.0, 1e-12);
    net_close(&n);
}

Test(graph, petersen_edges_equals_insee)
{
    net a = open_path(EXAMPLES "petersen.net", FORMAT_INSEE);
    net b = open_path(EXAMPLES "petersen.edges", FORMAT_EDGES);
    same_tables(&a, &b);
    check_net(&b);
    net_close(&a);
    net_close(&b);
}

Test(graph, rings)
{
    static const uint32_t sizes[] = {2, 3, 4, 5, 8, 11, 64};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t N = sizes[i];
        char *insee = ring(N, FORMAT_INSEE), *edges = ring(N, FORMAT_EDGES);
        net a = open_text(insee, FORMAT_INSEE), b = open_text(edges, FORMAT_EDGES);
        same_tables(&a, &b);
        measure m = check_net(&a);
        cr_assert_eq(a.info.routers, N);
        cr_assert_eq(a.info.diameter, N / 2, "ring of %u", N);
        cr_assert_eq(m.links, 2 * N);
        for (uint32_t r = 0; r < N; r++)
            for (uint32_t t = 0; t < N; t++) {
                uint32_t d = r > t ? r - t : t - r;
                cr_assert_eq(a.rig.vt->distance(a.self, r, t), d < N - d ? d : N - d);
            }
        /* average over distinct pairs: sum of min(d, N-d) for d = 1..N-1 */
        double sum = 0;
        for (uint32_t d = 1; d < N; d++)
            sum += d < N - d ? d : N - d;
        cr_assert_float_eq(m.average, sum / (N - 1), 1e-12);
        net_close(&a);
        net_close(&b);
        free(insee);
        free(edges);
    }
}

Test(graph, ring_example_spreads_two_nodes_per_router)
{
    net n = open_path(EXAMPLES "ring-8.net", FORMAT_INSEE);
    cr_assert_eq(n.info.routers, 8);
    cr_assert_eq(n.info.nodes, 16);
    cr_assert_eq(n.info.diameter, 4);
    for (uint32_t x = 0; x < 16; x++)
        cr_assert_eq(n.rig.vt->node_router(n.self, x), x / 2);
    check_net(&n);
    net_close(&n);
}

Test(graph, tree_top_switches_host_no_node)
{
    net n = open_path(EXAMPLES "tree-2x4.net", FORMAT_INSEE);
    cr_assert_eq(n.info.routers, 6);
    cr_assert_eq(n.info.nodes, 8);
    cr_assert_eq(n.info.flags, (uint32_t)INSEE_TOPO_INDIRECT);
    cr_assert_eq(n.info.max_ports, 4);
    /* leaf to leaf through a top switch: 2 hops, both tops listed */
    cr_assert_eq(n.info.diameter, 2);
    for (uint32_t x = 0; x < 8; x++)
        cr_assert_eq(n.rig.vt->node_router(n.self, x), 2 + x / 2);
    insee_hop out[4];
    cr_assert_eq(n.rig.vt->minimal_hops(n.self, 2, 7, 0, out, 4), 2);
    cr_assert_eq(n.rig.vt->minimal_hops(n.self, 2, 1, 0, out, 4), 0, "node 1 is on router 2");
    measure m = check_net(&n);
    cr_assert_eq(m.links, 2 * 8);
    net_close(&n);
}

Test(graph, edge_lists_of_tori_and_hypercube)
{
    static const struct {
        const char *file;
        uint32_t routers, links, diameter;
    } cases[] = {
        {"ring-7.edges", 7, 7, 3},
        {"torus-5x3.edges", 15, 30, 3},
        {"torus-16x16.edges", 256, 512, 16},
        {"hypercube-6.edges", 64, 192, 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, GRAPHS "%s", cases[i].file);
        net n = open_path(path, FORMAT_EDGES);
        cr_assert_eq(n.info.routers, cases[i].routers, "%s", cases[i].file);
        cr_assert_eq(n.info.nodes, cases[i].routers);
        measure m = check_net(&n);
        cr_assert_eq(m.links, 2 * cases[i].links, "%s", cases[i].file);
        cr_assert_eq(m.diameter, cases[i].diameter, "%s", cases[i].file);
        net_close(&n);
    }
}

Test(graph, directed_ring_of_arcs)
{
    net n = open_path(GRAPHS "ring-5-arcs.net", FORMAT_INSEE);
    cr_assert_eq(n.info.flags, (uint32_t)INSEE_TOPO_DIRECTED);
    cr_assert_eq(n.info.max_ports, 1);
    cr_assert_eq(n.info.diameter, 4);
    for (uint32_t r = 0; r < 5; r++) {
        insee_port_peer q;
        cr_assert(n.rig.vt->link(n.self, r, 0, &q));
        cr_assert_eq(q.router, (r + 1) % 5);
        cr_assert_eq(q.port, 0);
        for (uint32_t t = 0; t < 5; t++)
            cr_assert_eq(n.rig.vt->distance(n.self, r, t), (t + 5 - r) % 5);
    }
    check_net(&n);
    net_close(&n);
}

/* The numbering graph.h and the README state: a link takes one index past
   every port used so far at each end, an arc the next free output at its
   tail and the next free input at its head. */
Test(graph, port_numbering_of_links_arcs_and_parallel_links)
{
    net n = open_path(GRAPHS "mixed.net", FORMAT_INSEE);
    static const struct {
        uint32_t r, p;
        bool plugged;
        uint32_t to, in;
    } wiring[] = {
        {0, 0, true, 1, 0}, {0, 1, true, 1, 1}, {0, 2, false, 0, 0}, {0, 3, true, 2, 1},
        {1, 0, true, 0, 0}, {1, 1, true, 0, 1}, {1, 2, true, 2, 0},
        {2, 0, true, 3, 0}, {2, 1, true, 0, 3},
        {3, 0, true, 0, 2},
    };
    static const uint32_t ports[] = {4, 3, 2, 1};
    for (uint32_t r = 0; r < 4; r++)
        cr_assert_eq(n.rig.vt->ports(n.self, r), ports[r], "router %u", r);
    for (size_t i = 0; i < sizeof wiring / sizeof wiring[0]; i++) {
        insee_port_peer q;
        bool plugged = n.rig.vt->link(n.self, wiring[i].r, wiring[i].p, &q);
        cr_assert_eq(plugged, wiring[i].plugged, "router %u port %u", wiring[i].r, wiring[i].p);
        if (plugged) {
            cr_assert_eq(q.router, wiring[i].to, "router %u port %u", wiring[i].r, wiring[i].p);
            cr_assert_eq(q.port, wiring[i].in, "router %u port %u", wiring[i].r, wiring[i].p);
        }
    }
    cr_assert_eq(n.info.nodes, 12);
    cr_assert_eq(n.info.flags, (uint32_t)INSEE_TOPO_DIRECTED);
    for (uint32_t x = 0; x < 12; x++)
        cr_assert_eq(n.rig.vt->node_router(n.self, x), x / 3);
    /* both parallel links from 0 to 1 are minimal; the salt picks the first */
    insee_hop out[4];
    cr_assert_eq(n.rig.vt->minimal_hops(n.self, 0, 3, 0, out, 4), 2);
    cr_assert_eq(out[0].port, 0);
    cr_assert_eq(out[1].port, 1);
    cr_assert_eq(n.rig.vt->minimal_hops(n.self, 0, 3, 1, out, 4), 2);
    cr_assert_eq(out[0].port, 1);
    cr_assert_eq(out[1].port, 0);
    check_net(&n);
    net_close(&n);
}

Test(graph, comments_blank_lines_tabs_and_crlf)
{
    const char *text = "# a triangle\r\n\r\n  routers\t3   # three\r\n"
                       "link 0 1\r\n\tlink 1 2#no space before the comment\r\nlink 2 0 \r\n"
                       "# é ü: anything goes in a comment\n";
    net n = open_text(text, FORMAT_INSEE);
    cr_assert_eq(n.info.routers, 3);
    cr_assert_eq(n.info.diameter, 1);
    check_net(&n);
    net_close(&n);
}

Test(graph, one_router_needs_no_link)
{
    net n = open_text("routers 1\nnodes 4\n", FORMAT_INSEE);
    cr_assert_eq(n.info.routers, 1);
    cr_assert_eq(n.info.nodes, 4);
    cr_assert_eq(n.info.max_ports, 0);
    insee_hop out[1];
    cr_assert_eq(n.rig.vt->minimal_hops(n.self, 0, 3, 0, out, 1), 0);
    cr_assert_eq(n.rig.vt->distance(n.self, 0, 3), 0);
    net_close(&n);
}

Test(graph, most_ports_a_router_may_have)
{
    text t = {0};
    put(&t, "routers 2\n");
    for (uint32_t i = 0; i < INSEE_MAX_PORTS; i++)
        put(&t, "link 0 1\n");
    net n = open_text(t.s, FORMAT_INSEE);
    cr_assert_eq(n.info.max_ports, 65533);
    insee_hop *out = malloc(sizeof *out * 65533);
    cr_assert_eq(n.rig.vt->minimal_hops(n.self, 0, 1, 7, out, 65533), 65533);
    cr_assert_eq(out[0].port, 7, "salt 7: the 8th parallel link first");
    free(out);
    net_close(&n);
    free(t.s);
}

Test(graph, instances_do_not_interfere)
{
    net a = open_path(EXAMPLES "petersen.net", FORMAT_INSEE);
    net b = open_path(GRAPHS "ring-7.edges", FORMAT_EDGES);
    net c = open_path(EXAMPLES "petersen.net", FORMAT_INSEE);
    same_tables(&a, &c);
    cr_assert_eq(b.info.routers, 7);
    check_net(&b);
    net_close(&b);
    check_net(&a);
    net_close(&a);
    net_close(&c);
}

/* ---- errors ------------------------------------------------------------------ */

/* create() on `text` must fail with `code`, the message must start with
   "graph: FILE:LINE: " (no line part for line 0) and contain every needle. */
static void expect_error(const char *text, int format, int code, uint32_t line,
                         const char *needle, const char *needle2)
{
    graph_rig g;
    rig_open(&g);
    insee_error err;
    void *self = rig_text(&g, text, strlen(text), format, &err);
    cr_assert_null(self, "accepted: %s", text);
    cr_assert_eq(err.code, code, "code %d: %s", err.code, err.message);
    char prefix[128];
    if (line)
        snprintf(prefix, sizeof prefix, "graph: %s:%u: ", g.path, line);
    else
        snprintf(prefix, sizeof prefix, "graph: %s: ", g.path);
    cr_assert(strncmp(err.message, prefix, strlen(prefix)) == 0, "'%s' does not start with '%s'",
              err.message, prefix);
    cr_assert_not_null(strstr(err.message, needle), "'%s' lacks '%s'", err.message, needle);
    if (needle2)
        cr_assert_not_null(strstr(err.message, needle2), "'%s' lacks '%s'", err.message,
                           needle2);
    rig_close(&g);
}

#define INSEE FORMAT_INSEE
#define EDGES FORMAT_EDGES
#define IO INSEE_ERR_IO

Test(graph_errors, missing_file_and_directory)
{
    graph_rig g;
    rig_open(&g);
    insee_error err;
    cr_assert_null(rig_file(&g, "/nonexistent/net.txt", INSEE, &err));
    cr_assert_eq(err.code, INSEE_ERR_IO);
    cr_assert_str_eq(err.message,
                     "graph: /nonexistent/net.txt: cannot open: No such file or directory; "
                     "check topology.file (a relative path in an experiment file is read from "
                     "that file's directory)");
    cr_assert_null(rig_file(&g, "/tmp", EDGES, &err));
    cr_assert_eq(err.code, INSEE_ERR_IO);
    cr_assert_not_null(strstr(err.message, "graph: /tmp: cannot open: it is a directory"), "%s",
                       err.message);
    /* A device would be read until memory runs out. */
    cr_assert_null(rig_file(&g, "/dev/zero", INSEE, &err));
    cr_assert_not_null(strstr(err.message, "graph: /dev/zero: cannot open: it is a device"), "%s",
                       err.message);
    cr_assert_null(rig_file(&g, "", INSEE, &err));
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, "topology.file is empty"));
}

/* A file past 256 MiB is refused from its size, before a byte is read (a
   sparse file: nothing is written but its length). One byte less is read. */
Test(graph_errors, file_too_large)
{
    graph_rig g;
    rig_open(&g);
    insee_error err;
    cr_assert_null(rig_text(&g, "", 0, INSEE, &err)); /* makes g.path: empty, refused */
    cr_assert_eq(truncate(g.path, (256 << 20) + 1), 0);
    cr_assert_null(rig_file(&g, g.path, INSEE, &err));
    cr_assert_eq(err.code, INSEE_ERR_IO);
    cr_assert_not_null(strstr(err.message, "is 256 MiB, larger than the 256 MiB a network file "
                                           "may hold"), "%s", err.message);
    cr_assert_eq(truncate(g.path, 256 << 20), 0);
    cr_assert_null(rig_file(&g, g.path, INSEE, &err));
    cr_assert_null(strstr(err.message, "MiB"), "read, then refused as text: %s", err.message);
    rig_close(&g);
}

Test(graph_errors, unknown_keyword)
{
    expect_error("routers 3\nlink 0 1\nlinx 1 2\n", INSEE, IO, 3,
                 "unknown keyword 'linx'; did you mean 'link'?", "keywords: routers");
    expect_error("router 3\n", INSEE, IO, 1, "did you mean 'routers'?", NULL);
    expect_error("switches 3\n", INSEE, IO, 1, "unknown keyword 'switches'; (keywords", NULL);
    /* an edge list read in the insee format, and the other way round */
    expect_error("# edges\n0 1\n", INSEE, IO, 2, "set format = \"edges\"", NULL);
    expect_error("routers 2\nlink 0 1\n", EDGES, IO, 1, "set format = \"insee\"", NULL);
}

Test(graph_errors, wrong_number_of_fields)
{
    expect_error("routers 3\nlink 0 1 2\n", INSEE, IO, 2, "'link' takes 2 values, found 3",
                 "link <router> <router>");
    expect_error("routers\n", INSEE, IO, 1, "'routers' takes 1 value, found 0", NULL);
    expect_error("routers 2\nnodes 2\nnode 1\n", INSEE, IO, 3, "'node' takes 2 values, found 1",
                 "node <node> <router>");
    expect_error("0 1\n1 2 3\n", EDGES, IO, 2, "'u v' (two router ids), found 3 fields", NULL);
    expect_error("0 1\n\n2\n", EDGES, IO, 3, "found 1 field;", NULL);
}

Test(graph_errors, not_an_integer)
{
    expect_error("routers 3\nlink 0 x\n", INSEE, IO, 2, "'x' is not a router id", NULL);
    expect_error("routers 3\nlink -1 2\n", INSEE, IO, 2, "'-1' is not a router id", NULL);
    expect_error("routers 1.5\n", INSEE, IO, 1, "'1.5' is not a router count", NULL);
    expect_error("routers 2\nnodes 2\nnode a 1\n", INSEE, IO, 3, "'a' is not a node id", NULL);
    expect_error("0 1\n1 2a\n", EDGES, IO, 2, "'2a' is not a router id", NULL);
}

Test(graph_errors, out_of_range)
{
    expect_error("routers 0\n", INSEE, IO, 1, "routers 0 is out of range: give 1 to 65535", NULL);
    expect_error("routers 65536\n", INSEE, IO, 1, "out of range", NULL);
    expect_error("routers 2\nnodes 99999999999\n", INSEE, IO, 2,
                 "nodes 99999999999 is out of range", NULL);
    expect_error("routers 2\nnodes 2\nnode 0 0\nnode 1 2\n", INSEE, IO, 4,
                 "router 2 is out of range: 'routers 2' at line 1 declares routers 0..1", NULL);
    expect_error("routers 2\nnodes 2\nnode 2 0\n", INSEE, IO, 3,
                 "node 2 does not exist: 'nodes 2' at line 2 declares nodes 0..1", NULL);
    expect_error("routers 2\nnode 5 0\n", INSEE, IO, 2,
                 "without a 'nodes' line there is one node per router, 0..1", NULL);
    expect_error("0 1\n1 65535\n", EDGES, IO, 2, "router id 65535 is too large", NULL);
}

Test(graph_errors, dangling_link_and_arc)
{
    expect_error("# a ring\nrouters 3\nlink 0 1\nlink 1 2\nlink 2 3\n", INSEE, IO, 5,
                 "dangling link: router 3 does not exist ('routers 3' at line 2 declares "
                 "routers 0..2)",
                 NULL);
    expect_error("routers 3\narc 7 0\n", INSEE, IO, 2, "dangling arc: router 7", NULL);
}

Test(graph_errors, self_loop)
{
    expect_error("routers 3\nlink 0 1\nlink 1 2\nlink 2 2\n", INSEE, IO, 4,
                 "'link 2 2' joins router 2 to itself (a self-loop)", NULL);
    expect_error("routers 2\narc 1 1\n", INSEE, IO, 2, "'arc 1 1' joins router 1", NULL);
    expect_error("0 1\n1 1\n", EDGES, IO, 2, "'1 1' joins router 1 to itself", NULL);
}

Test(graph_errors, node_attachment)
{
    expect_error("routers 2\nnodes 3\nnode 0 0\nnode 1 1\nnode 0 1\nlink 0 1\n", INSEE, IO, 5,
                 "node 0 is attached twice, to router 0 at line 3 and to router 1 here", NULL);
    expect_error("routers 2\nnodes 3\nnode 0 0\nnode 2 1\nlink 0 1\n", INSEE, IO, 2,
                 "node 1 is attached to no router", "add 'node 1 <router>'");
    expect_error("routers 2\nlink 0 1\nnode 1 1\n", INSEE, IO, 3, "node 0 is attached to no router",
                 NULL);
    expect_error("routers 2\nnodes 5\nlink 0 1\n", INSEE, IO, 2,
                 "nodes 5 is not a multiple of routers 2", NULL);
}

Test(graph_errors, order_and_repeats)
{
    expect_error("link 0 1\nrouters 2\n", INSEE, IO, 1, "'link' before 'routers'", NULL);
    expect_error("routers 2\nlink 0 1\nrouters 3\n", INSEE, IO, 3,
                 "'routers' again (first at line 1)", NULL);
    expect_error("routers 2\nnode 0 0\nnodes 2\n", INSEE, IO, 3,
                 "'nodes' must come before the first 'node' line (line 2)", NULL);
    expect_error("# nothing\n\n", INSEE, IO, 0, "no 'routers <count>' line", NULL);
    expect_error("", EDGES, IO, 0, "no edges", NULL);
}

Test(graph_errors, isolated_router)
{
    expect_error("routers 4\nlink 0 1\nlink 1 3\n", INSEE, IO, 1,
                 "router 2 has no link: every router declared here needs one", NULL);
    expect_error("0 1\n1 3\n3 0\n", EDGES, IO, 2,
                 "router 2 is on no line, yet an edge list numbers its routers 0..3", NULL);
}

Test(graph_errors, disconnected)
{
    expect_error("routers 5\nlink 0 1\nlink 2 3\nlink 1 4\nlink 3 2\n", INSEE, IO, 3,
                 "router 2 (first linked on this line) cannot be reached from router 0", NULL);
    expect_error("0 1\n1 2\n3 4\n", EDGES, IO, 3, "router 3", "cannot be reached");
    /* arcs only lead away from router 2: 0 and 1 reach it, it reaches neither */
    expect_error("routers 3\nlink 0 1\narc 1 2\n", INSEE, IO, 3,
                 "router 0 cannot be reached from router 2", "add the missing arc");
}

Test(graph_errors, too_many_ports)
{
    text t = {0};
    put(&t, "routers 2\n");
    for (uint32_t i = 0; i < 65534; i++)
        put(&t, "link 0 1\n");
    /* The kernel's limit: port numbers stop below its pseudo-ports. */
    expect_error(t.s, INSEE, IO, 65535, "router 0 gets more than 65533 ports with this link",
                 NULL);
    free(t.s);
}

Test(graph_errors, distance_table_too_large)
{
    char *edges = ring(8193, FORMAT_EDGES);
    expect_error(edges, EDGES, INSEE_ERR_PARAM, 0,
                 "8193 routers, 8193 of them hosting nodes, need 8193 x 8193 hop distances",
                 "e.g. 8192 routers that all host nodes");
    free(edges);
}

Test(graph_errors, not_text)
{
    static const char bytes[] = "routers 2\nlink 0\0 1\n";
    graph_rig g;
    rig_open(&g);
    insee_error err;
    cr_assert_null(rig_text(&g, bytes, sizeof bytes - 1, INSEE, &err));
    cr_assert_not_null(strstr(err.message, ":2: byte 0x00 at column 7 is not text"), "%s",
                       err.message);
    rig_close(&g);
    expect_error("routers 2\nlink 0 \xc3\xa9\n", INSEE, IO, 2, "byte 0xC3 at column 8", NULL);
}

Test(graph_errors, utf8_bom_is_named)
{
    graph_rig g;
    rig_open(&g);
    insee_error err;
    static const char text[] = "\xef\xbb\xbfrouters 2\nlink 0 1\n";
    cr_assert_null(rig_text(&g, text, sizeof text - 1, INSEE, &err));
    cr_assert_not_null(strstr(err.message, ":1: the file starts with a UTF-8 byte-order mark"),
                       "%s", err.message);
    rig_close(&g);
}
