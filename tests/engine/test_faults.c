/* Link failures ([faults], kernel/net/faults.h, docs/flow.md): a bridge cable
 * cuts exactly the pairs across it; table-driven routings (bfs, updown)
 * keep every pair of a connected surviving graph routable; a router that
 * routes by coordinates (dally) loses packets and flows at failed cables,
 * every one counted; the draw is reproducible and moves no other draw; and
 * bad [faults] input is refused naming the key, the file and the line. */
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <string.h>

#include "flow/flow.h"
#include "run_helpers.h"

/* The failed ports of the network `toml` builds, as a string of 0 and 1. */
static char *failed_ports(const char *toml)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    const insee_net *net = insee_experiment_network(exp);
    GString *s = g_string_new(NULL);
    for (uint32_t gp = 0; gp < net->ports_total; gp++)
        g_string_append_c(s, net->failed && net->failed[gp] ? '1' : '0');
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    return g_string_free(s, FALSE);
}

static double figure(const insee_report *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_figures; i++)
        if (strcmp(r->figures[i].section, "faults") == 0 && strcmp(r->figures[i].name, name) == 0)
            return r->figures[i].value;
    cr_assert_fail("no figure faults.%s", name);
    return 0;
}

/* A line of N routers (a 1-D mesh): router i's port 0 leads to router i + 1
   and port 1 back (mesh/README.md). Failing the cable between routers a - 1
   and a leaves a nodes on one side and b = N - a on the other: exactly the
   2ab ordered pairs across it are cut, whichever end the file names, and
   an all-to-all loses exactly those flows, walked (dally) or routed (bfs). */
Test(faults, a_bridge_cable_cuts_exactly_the_pairs_across_it)
{
    const uint32_t N = 9, a = 3, b = N - a;
    const char *ends[] = {"2 0", "3 1"};
    const char *routes[] = {"[router]\nplugin = \"dally\"\n", "[routing]\nplugin = \"bfs\"\n"};
    for (int e = 0; e < 2; e++) {
        char *body = g_strdup_printf("# the bridge, by one of its ends\n%s  # router, port\n",
                                     ends[e]);
        char *file = cable_file_new(body);
        for (int k = 0; k < 2; k++) {
            char *toml = g_strdup_printf("[simulation]\nengine = \"static\"\n"
                                         "[topology]\nplugin = \"mesh\"\ndims = [%u]\n%s"
                                         "[faults]\nfile = \"%s\"\n"
                                         "[traffic]\nplugin = \"all-to-all\"\n",
                                         N, routes[k], file);
            insee_flow_report r = run_static_toml(toml, NULL);
            cr_assert_eq(r.failed_cables, 1);
            cr_assert_eq(r.unroutable, 2 * a * b, "%s: %" G_GUINT64_FORMAT " unroutable",
                         routes[k], r.unroutable);
            cr_assert_eq(r.flows, N * (N - 1) - 2 * a * b);
            cr_assert_eq(r.connected_pairs, N * (N - 1) - 2 * a * b);
            /* The two directions of the cable are gone: 2 (N - 2) network
               links and 2N node links remain. */
            cr_assert_eq(r.links, 2 * (N - 2) + 2 * N);
            insee_flow_report_clear(&r);
            g_free(toml);
        }
        cable_file_remove(file);
        g_free(body);
    }
}

/* The packet engine on the same line: a dimension-order router sends every
   packet across the cut to the failed cable, where it is dropped and
   counted; nothing is lost silently and the network drains. */
Test(faults, packets_sent_to_a_failed_cable_are_dropped_and_counted)
{
    char *file = cable_file_new("2 0\n");
    char *toml = g_strdup_printf("[simulation]\nwarmup = 0\ncycles = 3000\n"
                                 "[topology]\nplugin = \"mesh\"\ndims = [9]\n"
                                 "[router]\nplugin = \"dally\"\n"
                                 "[faults]\nfile = \"%s\"\n"
                                 "[traffic]\nplugin = \"uniform\"\nload = 0.05\n", file);
    insee_report r = run_toml(toml);
    assert_all_delivered(&r);
    cr_assert_gt(r.total_dropped, 0);
    cr_assert_eq(figure(&r, "unroutable_packets"), (double)r.total_dropped,
                 "every drop is at the failed cable");
    cr_assert_eq(r.dropped, r.dropped_unroutable, "counted as unroutable");
    cr_assert_eq(figure(&r, "failed_cables"), 1);
    cr_assert_eq(figure(&r, "connected_pairs"), 9 * 8 - 2 * 3 * 6);
    insee_report_clear(&r);
    g_free(toml);
    cable_file_remove(file);
}

static const char torus_faults[] = "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                                   "[faults]\nlinks = 0.1\nseed = %u\n";

/* bfs computes on the surviving graph: it leaves unroutable exactly the
   pairs the failures cut, none when the graph stays connected; so does
   updown, walked in the static engine and as packets (all delivered).
   10 % of the 8x8 torus's 128 cables: 13. */
Test(faults, bfs_and_updown_route_every_pair_of_a_connected_surviving_graph)
{
    const uint64_t N = 64;
    int connected = 0;
    for (unsigned seed = 1; seed <= 6; seed++) {
        char *net = g_strdup_printf(torus_faults, seed);
        char *toml = g_strdup_printf("[simulation]\nengine = \"static\"\n%s"
                                     "[routing]\nplugin = \"bfs\"\n"
                                     "[traffic]\nplugin = \"all-to-all\"\n", net);
        insee_flow_report r = run_static_toml(toml, NULL);
        cr_assert_eq(r.failed_cables, 13);
        cr_assert_eq(r.unroutable, N * (N - 1) - r.connected_pairs, "seed %u", seed);
        g_free(toml);
        if (r.connected_pairs == N * (N - 1)) {
            connected++;
            toml = g_strdup_printf("[simulation]\nengine = \"static\"\n%s"
                                   "[router]\nplugin = \"updown\"\nselect = \"first\"\n"
                                   "[traffic]\nplugin = \"all-to-all\"\n", net);
            insee_flow_report w = run_static_toml(toml, NULL);
            cr_assert_eq(w.unroutable, 0, "seed %u", seed);
            cr_assert_eq(w.flows, N * (N - 1));
            insee_flow_report_clear(&w);
            g_free(toml);
            toml = g_strdup_printf("[simulation]\nwarmup = 0\ncycles = 2000\n%s"
                                   "[router]\nplugin = \"updown\"\n"
                                   "[traffic]\nplugin = \"uniform\"\nload = 0.05\n", net);
            insee_report p = run_toml(toml);
            assert_all_delivered(&p);
            cr_assert_eq(p.total_dropped, 0);
            cr_assert_gt(p.total_delivered, 0);
            cr_assert_eq(figure(&p, "unroutable_packets"), 0);
            insee_report_clear(&p);
            g_free(toml);
        }
        insee_flow_report_clear(&r);
        g_free(net);
    }
    cr_assert_gt(connected, 0, "some seed leaves the torus connected");
}

/* Router 0 of the 8x8 torus cut off (its four cables, ports 0 to 3): the
   2 x 63 pairs to and from its node are unroutable by bfs, the others
   routed; updown refuses the graph, naming the cut. */
Test(faults, an_isolated_router_cuts_its_pairs_and_updown_refuses_the_graph)
{
    const uint64_t N = 64;
    char *file = cable_file_new("0 0\n0 1\n0 2\n0 3\n");
    char *toml = g_strdup_printf("[simulation]\nengine = \"static\"\n"
                                 "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                                 "[faults]\nfile = \"%s\"\n"
                                 "[routing]\nplugin = \"bfs\"\n"
                                 "[traffic]\nplugin = \"all-to-all\"\n", file);
    insee_flow_report r = run_static_toml(toml, NULL);
    cr_assert_eq(r.failed_cables, 4);
    cr_assert_eq(r.connected_pairs, (N - 1) * (N - 2));
    cr_assert_eq(r.unroutable, 2 * (N - 1));
    cr_assert_eq(r.flows, (N - 1) * (N - 2));
    insee_flow_report_clear(&r);
    g_free(toml);
    toml = g_strdup_printf("[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                           "[faults]\nfile = \"%s\"\n[router]\nplugin = \"updown\"\n", file);
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "not connected"), "%s", msg);
    g_free(msg);
    g_free(toml);
    cable_file_remove(file);
}

/* dally routes by coordinates, blind to failures: flows through a failed
   cable are unroutable (every cut pair among them), packets there are
   dropped, and delivered + dropped = generated. */
Test(faults, dally_loses_what_crosses_a_failed_cable_and_counts_it)
{
    const uint64_t N = 64;
    char *net = g_strdup_printf(torus_faults, 3u);
    char *toml = g_strdup_printf("[simulation]\nengine = \"static\"\n%s"
                                 "[router]\nplugin = \"dally\"\nmode = \"trc\"\n"
                                 "[traffic]\nplugin = \"all-to-all\"\n", net);
    insee_flow_report r = run_static_toml(toml, NULL);
    cr_assert_gt(r.unroutable, 0);
    cr_assert_eq(r.flows + r.unroutable, N * (N - 1));
    cr_assert_geq(r.unroutable, N * (N - 1) - r.connected_pairs);
    insee_flow_report_clear(&r);
    g_free(toml);
    toml = g_strdup_printf("[simulation]\nwarmup = 0\ncycles = 3000\n%s"
                           "[router]\nplugin = \"dally\"\n"
                           "[traffic]\nplugin = \"uniform\"\nload = 0.1\n", net);
    insee_report p = run_toml(toml);
    assert_all_delivered(&p);
    cr_assert_gt(p.total_dropped, 0);
    cr_assert_eq(p.total_generated, p.total_delivered + p.total_dropped);
    cr_assert_eq(figure(&p, "unroutable_packets"), (double)p.total_dropped);
    cr_assert_eq(p.dropped, p.dropped_unroutable);
    insee_report_clear(&p);
    g_free(toml);
    g_free(net);
}

/* A message is delivered whole or not at all, whichever of its packets
   ends last. On a ring of 8 with one failed cable, every message goes to
   the opposite node, where both directions are minimal and each packet's
   salt picks one: each of its 8 packets is dropped with probability 1/2,
   so about one message in 256 arrives whole. Counting a message that lost
   packets whenever its last packet to end was delivered counted 33 of 50. */
Test(faults, a_message_that_lost_a_packet_is_not_delivered)
{
    char *file = cable_file_new("0 0\n");
    char *toml = g_strdup_printf("[simulation]\nwarmup = 0\ncycles = 4000\npacket_phits = 4\n"
                                 "[topology]\nplugin = \"torus\"\ndims = [8]\n"
                                 "[router]\nplugin = \"dally\"\n[faults]\nfile = \"%s\"\n"
                                 "[traffic]\nplugin = \"permutation\"\npattern = \"shift\"\n"
                                 "offset = 4\nload = 0.05\nmessage_bytes = 128\n",
                                 file);
    insee_report r = run_toml(toml);
    assert_all_delivered(&r);
    uint64_t sent = r.total_generated / 8; /* 16-byte packets, 8 a message */
    cr_assert_gt(r.total_dropped, r.total_generated / 4);
    cr_assert_gt(r.total_delivered, r.total_generated / 4);
    cr_assert_leq(r.apps[0].messages * 8, r.total_delivered);
    cr_assert_leq(r.apps[0].messages * 16, sent, "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                  " messages delivered whole", r.apps[0].messages, sent);
    insee_report_clear(&r);
    g_free(toml);
    cable_file_remove(file);
}

/* A causal workload whose packet is dropped at a failed cable never gets
   its message: the run ends at once with the reason, never hangs. */
Test(faults, a_causal_workload_that_loses_a_message_ends_saying_why)
{
    char *msg = run_toml_error("[simulation]\npacket_phits = 4\n"
                               "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                               "[router]\nplugin = \"dally\"\n"
                               "[faults]\nlinks = 0.25\n"
                               "[traffic]\nplugin = \"bursts\"\npackets = 4\nbursts = 2\n");
    cr_assert(strstr(msg, "stuck"), "%s", msg);
    cr_assert(strstr(msg, "dropped at failed cables"), "%s", msg);
    g_free(msg);
}

/* The same faults seed, the same failed cables and the same bytes; the
   default seed is [simulation] seed; failing cables moves no other draw
   (the same packets are generated with and without failures). */
Test(faults, the_draw_is_reproducible_and_moves_no_other_draw)
{
    static const char base[] = "[simulation]\nengine = \"static\"\nseed = %u\n"
                               "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                               "[faults]\nlinks = 20\n%s"
                               "[routing]\nplugin = \"bfs\"\n"
                               "[traffic]\nplugin = \"uniform\"\n";
    char *a = g_strdup_printf(base, 1u, "seed = 5\n"), *b = g_strdup_printf(base, 2u, "seed = 5\n");
    char *c = g_strdup_printf(base, 5u, ""), *d = g_strdup_printf(base, 6u, "");
    char *fa = failed_ports(a), *fb = failed_ports(b), *fc = failed_ports(c),
         *fd = failed_ports(d);
    cr_assert_str_eq(fa, fb, "[faults] seed alone decides");
    cr_assert_str_eq(fa, fc, "no [faults] seed: [simulation] seed's");
    cr_assert_str_neq(fc, fd);
    uint32_t failed = 0;
    for (const char *x = fa; *x; x++)
        failed += *x == '1';
    cr_assert_eq(failed, 2 * 20, "20 cables, both directions");
    char *ta, *ta2;
    insee_flow_report r1 = run_static_toml(a, &ta), r2 = run_static_toml(a, &ta2);
    cr_assert_str_eq(ta, ta2);
    cr_assert(strstr(ta, "20 failed cables"), "%s", ta);
    cr_assert_eq(r1.connected_pairs, r2.connected_pairs);
    insee_flow_report_clear(&r1);
    insee_flow_report_clear(&r2);
    g_free(ta);
    g_free(ta2);
    g_free(fa), g_free(fb), g_free(fc), g_free(fd);
    g_free(a), g_free(b), g_free(c), g_free(d);

    static const char packets[] = "[simulation]\nwarmup = 0\ncycles = 2000\n"
                                  "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                                  "[router]\nplugin = \"dally\"\n%s"
                                  "[traffic]\nplugin = \"uniform\"\nload = 0.05\n";
    char *with = g_strdup_printf(packets, "[faults]\nlinks = 0.1\n");
    char *without = g_strdup_printf(packets, "");
    insee_report p = run_toml(with), q = run_toml(without);
    cr_assert_eq(p.total_generated, q.total_generated);
    cr_assert_eq(p.sum_generated_ids, q.sum_generated_ids);
    insee_report_clear(&p);
    insee_report_clear(&q);
    g_free(with);
    g_free(without);
}

static void assert_refused(const char *faults, const char *const *words)
{
    char *toml = g_strdup_printf("[topology]\nplugin = \"mesh\"\ndims = [4]\n"
                                 "[router]\nplugin = \"dally\"\n[faults]\n%s\n", faults);
    char *msg = run_toml_error(toml);
    for (const char *const *w = words; *w; w++)
        cr_assert(strstr(msg, *w), "'%s' not in: %s", *w, msg);
    g_free(msg);
    g_free(toml);
}

Test(faults, bad_input_is_refused_naming_the_key_file_and_line)
{
    assert_refused("links = 1.5", (const char *const[]){"[faults] links = 1.5", "fraction", NULL});
    assert_refused("links = 4",
                   (const char *const[]){"[faults] links = 4", "4 cables", "has 3", NULL});
    assert_refused("links = -1", (const char *const[]){"faults.links", NULL});
    assert_refused("file = \"/nonexistent/cables.txt\"",
                   (const char *const[]){"[faults] file", "/nonexistent/cables.txt",
                                         "cannot be read", NULL});
    static const struct {
        const char *text;
        const char *const words[4];
    } files[] = {
        {"0 0\n# fine\n9 0\n", {"line 3", "router 9 does not exist", NULL}},
        {"1 7\n", {"line 1", "router 1 has no port 7", NULL}},
        {"3 0\n", {"line 1", "router 3 port 0 is not plugged", NULL}},
        {"0 x\n", {"line 1", "'0 x' is not a cable", NULL}},
        {"0 0 1\n", {"line 1", "ROUTER PORT", NULL}},
        {"0 0\n1 1\n", {"line 2", "listed twice", NULL}},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        char *file = cable_file_new(files[i].text);
        char *key = g_strdup_printf("file = \"%s\"", file);
        assert_refused(key, files[i].words);
        char *named = g_strdup_printf("[faults] file '%s'", file);
        assert_refused(key, (const char *const[]){named, NULL});
        g_free(named);
        g_free(key);
        cable_file_remove(file);
    }
}

/* Routers that cannot work around failures are refused before the run:
   a multicast router (its heads wait on forwarded(), which a dropped copy
   never gets), and a router that no longer recognises its topology is
   told why. */
Test(faults, routers_that_cannot_avoid_failures_are_refused_saying_so)
{
    char *msg = run_toml_error("[topology]\nplugin = \"spinnaker\"\n"
                               "[router]\nplugin = \"spinnaker\"\n[faults]\nlinks = 2\n");
    cr_assert(strstr(msg, "'spinnaker'"), "%s", msg);
    cr_assert(strstr(msg, "multicast"), "%s", msg);
    cr_assert(strstr(msg, "2 failed cables"), "%s", msg);
    g_free(msg);
    msg = run_toml_error("[topology]\nplugin = \"hyperx\"\n"
                         "[router]\nplugin = \"valiant\"\n[faults]\nlinks = 2\n");
    cr_assert(strstr(msg, "'valiant'"), "%s", msg);
    cr_assert(strstr(msg, "2 failed cables"), "%s", msg);
    g_free(msg);
}

/* `file` is relative to the experiment file, not the working directory. */
Test(faults, the_file_is_found_beside_the_experiment_file)
{
    char *cables = cable_file_new("2 0\n");
    char *dir = g_path_get_dirname(cables);
    char *exp_path = g_build_filename(dir, "exp.toml", NULL);
    cr_assert(g_file_set_contents(exp_path,
                                  "[topology]\nplugin = \"mesh\"\ndims = [9]\n"
                                  "[router]\nplugin = \"dally\"\n"
                                  "[faults]\nfile = \"cables.txt\"\n", -1, NULL));
    GError *err = NULL;
    insee_config *cfg = insee_config_load_file(exp_path, &err);
    cr_assert(cfg, "%s", err ? err->message : "?");
    insee_registry *reg = insee_registry_new();
    insee_registry_add_dir(reg, INSEE_TEST_PLUGIN_DIR);
    insee_registry_scan(reg);
    insee_experiment *exp = insee_experiment_new_topology(cfg, reg, &err);
    cr_assert(exp, "%s", err ? err->message : "?");
    const insee_net *net = insee_experiment_network(exp);
    cr_assert_eq(net->failed_cables, 1);
    cr_assert(net->failed[net->port_base[2]] && net->failed[net->port_base[3] + 1],
              "router 2 port 0 and its reverse, router 3 port 1");
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    g_unlink(exp_path);
    g_free(exp_path);
    g_free(dir);
    cable_file_remove(cables);
}
