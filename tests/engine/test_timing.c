/* [network]: cables and router pipelines against the zero-load closed form,
 * real units in the report, INSEE's model untouched without them, and bad
 * input refused with the key to change. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "net/timing.h"
#include "run_helpers.h"

/* A uniform run on `topology` with dimension-order routing, packets of
   `phits`, with `network` as the [network] table's body (NULL: no table). */
static char *timed(const char *topology, double load, int cycles, int phits,
                   const char *network)
{
    return g_strdup_printf("[simulation]\nseed = 5\nwarmup = 2000\ncycles = %d\n"
                           "packet_phits = %d\n[topology]\n%s\n[router]\nplugin = \"dally\"\n"
                           "[traffic]\nplugin = \"uniform\"\nload = %.6f\n%s%s",
                           cycles, phits, topology, load, network ? "[network]\n" : "",
                           network ? network : "");
}

/* A ring of k: the mean distance over all pairs, the same node included. */
static double ring_mean(int k)
{
    return k % 2 == 0 ? k / 4.0 : (k * (double)k - 1) / (4.0 * k);
}

/* Zero load: every hop costs its cycle, its cable and the next router's
   pipeline, so a packet over h hops is consumed h (1 + C + R) + L - 1
   cycles after it left its injection queue, and waited R cycles there
   first (it reached the front of the queue when it was generated). */
Test(timing, zero_load_latency_adds_cables_and_pipelines)
{
    static const struct {
        const char *topology;
        int k[2];
        gboolean wrap;
    } nets[] = {{"plugin = \"torus\"\ndims = [8, 8]", {8, 8}, TRUE},
                {"plugin = \"mesh\"\ndims = [6, 5]", {6, 5}, FALSE}};
    const int L = 16, C = 3, R = 2;
    for (size_t i = 0; i < G_N_ELEMENTS(nets); i++) {
        char *toml = timed(nets[i].topology, 0.001, 4000000, L,
                           "cable_cycles = 3\nrouter_cycles = 2\n");
        insee_report r = run_toml(toml);
        double D = nets[i].wrap ? torus_avg_distance(nets[i].k, 2)
                                : mesh_avg_distance(nets[i].k, 2);
        double closed = D * (1 + C + R) + L - 1;
        cr_assert_gt(r.delivered, 5000);
        cr_assert(fabs(insee_stat_mean(&r.latency_inj) - closed) / closed < 0.01,
                  "%s: latency %.4f, closed form D (1 + C + R) + L - 1 = %.4f", nets[i].topology,
                  insee_stat_mean(&r.latency_inj), closed);
        double hops = (double)r.hops / (double)r.delivered;
        cr_assert(fabs(insee_stat_mean(&r.latency_inj) - (hops * (1 + C + R) + L - 1)) / closed <
                      0.003,
                  "latency %.4f vs measured hops %.4f", insee_stat_mean(&r.latency_inj), hops);
        double wait = insee_stat_mean(&r.latency_gen) - insee_stat_mean(&r.latency_inj);
        cr_assert(wait >= R && wait < R + 0.5, "waited %.4f cycles at the source, R = %d", wait,
                  R);
        assert_all_delivered(&r);
        insee_report_clear(&r);
        g_free(toml);
    }
}

/* Each dimension's cables their own latency: the mean over distinct pairs
   of sum_d h_d (1 + C_d) + L - 1 on a 2-D torus. */
Test(timing, cables_per_dimension)
{
    const int k[2] = {8, 4}, L = 8, C[2] = {1, 6};
    char *toml = timed("plugin = \"torus\"\ndims = [8, 4]", 0.001, 4000000, L,
                       "cable_cycles = 40\ndim_cable_cycles = [1, 6]\n");
    insee_report r = run_toml(toml);
    double n = k[0] * k[1], closed = L - 1;
    for (int d = 0; d < 2; d++)
        closed += ring_mean(k[d]) * n / (n - 1) * (1 + C[d]);
    cr_assert_gt(r.delivered, 10000);
    cr_assert(fabs(insee_stat_mean(&r.latency_inj) - closed) / closed < 0.01,
              "latency %.4f, closed form %.4f", insee_stat_mean(&r.latency_inj), closed);
    /* The report's range: every dimension overrides cable_cycles = 40. */
    cr_assert_eq(r.units.shortest_cable_cycles, 1u);
    cr_assert_eq(r.units.longest_cable_cycles, 6u);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}

/* A link slower than the router: a phit every k cycles. On a ring of
   such links, at zero load, the head takes k cycles a hop and the tail
   (L - 1) k more: h k + (L - 1) k, per packet. */
/* A zero-load run whose every packet over h hops is consumed h per_hop +
   rest cycles after it left: the mean latency from injection against the
   measured hops, and nothing lost. */
static void assert_per_packet(const char *toml, double per_hop, double rest, const char *form)
{
    insee_report r = run_toml(toml);
    cr_assert_gt(r.delivered, 1000);
    double hops = (double)r.hops / (double)r.delivered;
    double closed = hops * per_hop + rest;
    cr_assert(fabs(insee_stat_mean(&r.latency_inj) - closed) / closed < 0.003,
              "latency %.4f, closed form %s = %.4f", insee_stat_mean(&r.latency_inj), form, closed);
    assert_all_delivered(&r);
    insee_report_clear(&r);
}

Test(timing, slow_links_take_k_cycles_a_phit)
{
    const int L = 4, k = 3;
    char *toml = timed("plugin = \"torus\"\ndims = [8]", 0.002, 600000, L,
                       "dim_phit_cycles = [3]\n");
    assert_per_packet(toml, k, (L - 1) * k, "h k + (L - 1) k");
    g_free(toml);
}

/* A node's link has its latency each way: a new packet reaches its
   router's pipeline N cycles after it is queued, and its tail reaches the
   node N cycles after it left the router, so h (1 + C + R) + L - 1 + N
   from injection and R + N more before it. BookSim2's input-queued router
   at its defaults is the case C = 0, R = 5, N = 1 (6 h + 22 for L = 16). */
Test(timing, node_links_add_their_latency_each_way)
{
    const int L = 16, R = 5, N = 1;
    char *toml = timed("plugin = \"torus\"\ndims = [8, 8]", 0.002, 400000, L,
                       "router_cycles = 5\nnode_cable_cycles = 1\n");
    assert_per_packet(toml, 1 + R, L - 1 + N, "h (1 + R) + L - 1 + N");
    insee_report r = run_toml(toml);
    double wait = insee_stat_mean(&r.latency_gen) - insee_stat_mean(&r.latency_inj);
    cr_assert(wait >= R + N && wait < R + N + 0.5, "waited %.4f cycles, R + N = %d", wait, R + N);
    cr_assert_eq(r.units.node_cable_cycles, (uint32_t)N);
    insee_report_clear(&r);
    g_free(toml);
}

/* NSIM's network interface slower than its switches (§3.1, case 2): the
   node's link feeds the packet a phit every k cycles, the switches forward
   each phit as it comes, so the tail reaches the destination L k - 1 cycles
   after the head left: h + L k - 1 at zero load. At saturation a node can
   send and receive no more than 1/k phits a cycle. */
Test(timing, a_slow_node_link_paces_the_whole_path)
{
    const int L = 8, k = 3;
    char *toml = timed("plugin = \"torus\"\ndims = [8, 8]", 0.001, 600000, L,
                       "node_phit_cycles = 3\n");
    assert_per_packet(toml, 1, L * k - 1, "h + L k - 1");
    g_free(toml);

    toml = timed("plugin = \"torus\"\ndims = [8, 8]", 1.0, 6000, 16,
                 "link_bandwidth = \"4 GB/s\"\nnode_bandwidth = \"2 GB/s\"\n");
    insee_report r = run_toml(toml);
    cr_assert_eq(r.units.node_phit_cycles, 2);
    cr_assert(r.accepted_load <= 0.5 + 1e-9 && r.accepted_load > 0.4,
              "accepted %.4f phits/node/cycle through node links of half the rate",
              r.accepted_load);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}

/* The node's slow link feeds a message's packets one after the other: a
   2-packet message's second packet starts crossing L k cycles after the
   first, and waits that long at its source (the first waits nothing), so
   the mean wait is L k / 2 = 24 with L = 16, k = 3. Were it free to leave
   once the first had crossed the fast router link, it would wait L. */
Test(timing, a_slow_node_link_sends_one_packet_after_the_other)
{
    char *toml = g_strdup("[simulation]\npacket_phits = 16\nphit_bytes = 4\n"
                          "[topology]\nplugin = \"torus\"\ndims = [2]\n"
                          "[router]\nplugin = \"dally\"\n"
                          "[traffic]\nplugin = \"alltoall\"\nbytes = 128\n"
                          "[network]\nnode_phit_cycles = 3\n");
    insee_report r = run_toml(toml);
    cr_assert(r.completed);
    cr_assert_eq(r.total_generated, 4u);
    cr_assert_float_eq(insee_stat_mean(&r.latency_gen) - insee_stat_mean(&r.latency_inj), 24.0,
                       1e-9, "waited %.3f cycles at the source on average",
                       insee_stat_mean(&r.latency_gen) - insee_stat_mean(&r.latency_inj));
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}

/* A packet's header is not payload: a message of B bytes takes
   ceil(B / (packet bytes - header)) packets. Two tasks exchange 100 bytes in
   packets of 64: 2 packets each, 3 once 16 of the 64 are header. */
Test(timing, headers_take_room_from_the_payload)
{
    static const struct {
        const char *network;
        uint64_t packets;
    } cases[] = {{NULL, 2 * 2}, {"header_bytes = 16\n", 2 * 3}, {"header_bytes = 28\n", 2 * 3},
                 {"header_bytes = 32\n", 2 * 4}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *toml = g_strdup_printf("[simulation]\npacket_phits = 16\nphit_bytes = 4\n"
                                     "[topology]\nplugin = \"torus\"\ndims = [2]\n"
                                     "[router]\nplugin = \"dally\"\n"
                                     "[traffic]\nplugin = \"alltoall\"\nbytes = 100\n%s%s",
                                     cases[i].network ? "[network]\n" : "",
                                     cases[i].network ? cases[i].network : "");
        insee_report r = run_toml(toml);
        cr_assert(r.completed);
        cr_assert_eq(r.total_generated, cases[i].packets, "case %zu: %" G_GUINT64_FORMAT
                     " packets", i, r.total_generated);
        insee_report_clear(&r);
        g_free(toml);
    }
}

/* mtu_bytes: a message's last packet carries only its header and the
   bytes left. Two tasks exchange 100 bytes in packets of up to 64 with 16
   of header: 48 + 48 + 4 bytes of payload, so packets of 16, 16 and 5
   phits of 4 bytes, 74 phits in all. One hop apart with nothing else
   moving, each is consumed 1 + C + R + l - 1 cycles after it left. */
Test(timing, a_message_ends_with_a_short_packet)
{
    const int C = 3, R = 2;
    char *toml = g_strdup("[simulation]\nphit_bytes = 4\n"
                          "[topology]\nplugin = \"torus\"\ndims = [2]\n"
                          "[router]\nplugin = \"dally\"\n"
                          "[traffic]\nplugin = \"alltoall\"\nbytes = 100\n"
                          "[network]\nmtu_bytes = 64\nheader_bytes = 16\n"
                          "cable_cycles = 3\nrouter_cycles = 2\n");
    insee_report r = run_toml(toml);
    cr_assert(r.completed);
    cr_assert_eq(r.packet_phits, 16u);
    cr_assert_eq(r.total_generated, 2u * 3u);
    cr_assert_eq(r.delivered_phits, 2u * (16u + 16u + 5u));
    double closed = ((C + R + 16) * 2 + (C + R + 5)) / 3.0;
    cr_assert_float_eq(insee_stat_mean(&r.latency_inj), closed, 1e-9,
                       "latency %.4f, closed form %.4f", insee_stat_mean(&r.latency_inj), closed);
    cr_assert_float_eq(r.accepted_load, 2.0 * 37 / (2.0 * (double)r.measure_cycles), 1e-12);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}

/* Buffers in bytes count phits: with packets of whole length they hold
   vc_buffer_bytes / mtu_bytes packets, so a saturated run is the very run
   of queue_packets = that many. */
Test(timing, byte_buffers_of_whole_packets_are_packet_queues)
{
    const char *head = "[simulation]\nseed = 3\nwarmup = 1000\ncycles = 5000\nphit_bytes = 4\n"
                       "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                       "[traffic]\nplugin = \"uniform\"\nload = 1.0\n";
    char *packets = g_strdup_printf("%s[router]\nplugin = \"dally\"\nqueue_packets = 3\n"
                                    "[network]\nmtu_bytes = 64\n", head);
    char *bytes = g_strdup_printf("%s[router]\nplugin = \"dally\"\n"
                                  "[network]\nmtu_bytes = 64\nvc_buffer_bytes = 192\n", head);
    insee_report a = run_toml(packets), b = run_toml(bytes);
    cr_assert_gt(a.delivered, 10000u);
    cr_assert_eq(a.delivered, b.delivered);
    cr_assert_eq(a.delivered_phits, b.delivered_phits);
    cr_assert_eq(a.hops, b.hops);
    cr_assert_float_eq(insee_stat_mean(&a.latency_gen), insee_stat_mean(&b.latency_gen), 0.0);
    cr_assert_float_eq(a.occupancy, b.occupancy, 0.0);
    insee_report_clear(&a);
    insee_report_clear(&b);
    g_free(packets);
    g_free(bytes);
}

/* Short packets take only their phits of a buffer in bytes. Task 0 sends
   N messages of 20 bytes (packets of 5 phits) at will to task 2, two hops
   along a ring of 8 (one way only), through routers of R = 12 cycles. A queue slot stays taken
   from the grant until the tail has left the next router's queue, at least
   1 + R + 5 = 18 cycles: with one packet a queue, the path carries a packet
   per 18 cycles or fewer; a buffer of one 16-phit packet holds three short
   ones, and carries three times as many. */
Test(timing, byte_buffers_hold_several_short_packets)
{
    enum { N = 300, PER_PACKET = 1 + 12 + 5 };
    char *path = sends_file_new(N, (const uint32_t[]){2}, 1, 20);
    uint64_t completion[2];
    for (int bytes = 0; bytes < 2; bytes++) {
        char *toml = g_strdup_printf(
            "[simulation]\nphit_bytes = 4\n[topology]\nplugin = \"torus\"\ndims = [8]\n"
            "[router]\nplugin = \"dally\"\n%s[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n"
            "mode = \"at-will\"\n[network]\nmtu_bytes = 64\nrouter_cycles = 12\n%s",
            bytes ? "" : "queue_packets = 1\n", path, bytes ? "vc_buffer_bytes = 64\n" : "");
        insee_report r = run_toml(toml);
        cr_assert(r.completed);
        cr_assert_eq(r.delivered_phits, (uint64_t)N * 5);
        assert_all_delivered(&r);
        completion[bytes] = r.completion;
        insee_report_clear(&r);
        g_free(toml);
    }
    cr_assert_geq(completion[0], (uint64_t)N * PER_PACKET,
                  "one packet a queue: %" G_GUINT64_FORMAT " cycles", completion[0]);
    cr_assert_leq(completion[1], (uint64_t)N * PER_PACKET / 3 + 100,
                  "three short packets a queue: %" G_GUINT64_FORMAT " cycles", completion[1]);
    cable_file_remove(path);
}

/* NSIM's node: a two-copy transfer copies each message through the MPI
   buffer at memory_bandwidth at both ends, so an exchange of B bytes ends
   2 ceil(B c) cycles later than with zero-copy (c: cycles a byte, 0.5 at
   2 GB/s with 1 ns cycles). A DMA slower than the link paces the node's
   link as node_bandwidth does. */
Test(timing, two_copy_costs_a_copy_at_each_end)
{
    uint64_t done[2];
    for (int two = 0; two < 2; two++) {
        char *toml = g_strdup_printf("[simulation]\nphit_bytes = 4\n"
                                     "[topology]\nplugin = \"torus\"\ndims = [2]\n"
                                     "[router]\nplugin = \"dally\"\n"
                                     "[traffic]\nplugin = \"alltoall\"\nbytes = 1001\n"
                                     "[network]\nlink_bandwidth = \"4 GB/s\"\ncopy = \"%s\"\n"
                                     "memory_bandwidth = \"2 GB/s\"\n",
                                     two ? "two" : "zero");
        insee_report r = run_toml(toml);
        cr_assert(r.completed);
        cr_assert_float_eq(r.units.copy_cycles_per_byte, two ? 0.5 : 0.0, 1e-12);
        done[two] = r.completion;
        insee_report_clear(&r);
        g_free(toml);
    }
    cr_assert_eq(done[1] - done[0], 2u * 501u, "zero-copy %" G_GUINT64_FORMAT
                 ", two-copy %" G_GUINT64_FORMAT, done[0], done[1]);
    char *toml = timed("plugin = \"torus\"\ndims = [4]", 0.1, 1000, 16,
                       "link_bandwidth = \"4 GB/s\"\ndma_bandwidth = \"1 GB/s\"\n");
    insee_report r = run_toml(toml);
    cr_assert_eq(r.units.node_phit_cycles, 4u);
    insee_report_clear(&r);
    g_free(toml);
}

/* Several network interfaces a node (Tofu's four): each its own slow link,
   a node's messages taking them in turn. Node 0 of a 4 x 4 torus sends N
   one-packet messages at will to its four neighbours in turn, over node
   links of a phit every 4 cycles: one interface sends them one after
   another, L k = 64 cycles each; four send four at once, each out by a
   router link of its own. */
Test(timing, network_interfaces_send_side_by_side)
{
    enum { N = 40, L = 16, K = 4 };
    char *path = sends_file_new(N, (const uint32_t[]){1, 4, 3, 12}, 4, L * 4);
    uint64_t done[2];
    for (int four = 0; four < 2; four++) {
        char *toml = g_strdup_printf(
            "[simulation]\npacket_phits = %d\n[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
            "[router]\nplugin = \"dally\"\n[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n"
            "mode = \"at-will\"\n[network]\nnode_phit_cycles = %d\nnics = %d\n",
            L, path, K, four ? 4 : 1);
        insee_report r = run_toml(toml);
        cr_assert(r.completed);
        assert_all_delivered(&r);
        cr_assert_eq(r.units.nics, four ? 4u : 1u);
        done[four] = r.completion;
        insee_report_clear(&r);
        g_free(toml);
    }
    cr_assert(done[0] >= (uint64_t)N * L * K, "one interface: %" G_GUINT64_FORMAT, done[0]);
    cr_assert(done[1] <= (uint64_t)N * L * K / 4 + 2 * L * K,
              "four interfaces: %" G_GUINT64_FORMAT " cycles, one: %" G_GUINT64_FORMAT,
              done[1], done[0]);
    cable_file_remove(path);
    char *msg = run_toml_error("[topology]\nplugin = \"torus\"\ndims = [4]\n[router]\n"
                               "plugin = \"dally\"\ninjectors = 2\n[traffic]\n"
                               "plugin = \"uniform\"\n[network]\nnics = 4\n");
    cr_assert(strstr(msg, "nics = 4") && strstr(msg, "injectors = 2"), "%s", msg);
    g_free(msg);
}

/* [router] injectors without [network] nics: a node's injection queues
   share its one interface, whose link carries their packets one after
   another, in the order they were queued: the 40 packets above take
   L k = 64 cycles each however many queues they wait in. A packet in one
   queue may wait for the link behind many in the others, its head due
   further ahead than the engine's wheel reaches: before, the link was
   indexed by queue, past its array (a run that never ended), and such a
   head, timed at its cycle modulo the wheel, moved before its turn and
   stalled the run (a deadlock found on a torus at 0.3). */
Test(timing, injection_queues_share_the_nodes_one_interface)
{
    enum { N = 40, L = 16, K = 4 };
    char *path = sends_file_new(N, (const uint32_t[]){1, 4, 3, 12}, 4, L * 4);
    char *toml = g_strdup_printf(
        "[simulation]\npacket_phits = %d\n[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
        "[router]\nplugin = \"dally\"\ninjectors = 4\n[traffic]\nplugin = \"trace\"\n"
        "file = \"%s\"\nmode = \"at-will\"\n[network]\nnode_phit_cycles = %d\n",
        L, path, K);
    insee_report r = run_toml(toml);
    cr_assert(r.completed);
    assert_all_delivered(&r);
    cr_assert(r.completion >= (uint64_t)N * L * K && r.completion <= (uint64_t)(N + 2) * L * K,
              "%" G_GUINT64_FORMAT " cycles", r.completion);
    insee_report_clear(&r);
    g_free(toml);
    cable_file_remove(path);
    toml = g_strdup("[simulation]\nwarmup = 0\ncycles = 2000\n[topology]\nplugin = \"torus\"\n"
                    "dims = [4, 4]\n[router]\nplugin = \"dally\"\ninjectors = 2\n"
                    "[network]\nnode_phit_cycles = 2\n[traffic]\nplugin = \"uniform\"\n"
                    "load = 0.3\n");
    r = run_toml(toml);
    assert_all_delivered(&r);
    cr_assert_eq(r.total_delivered, r.total_generated);
    insee_report_clear(&r);
    g_free(toml);
}

/* A lone flow on its one minimal path is paced by its links, so output
   buffers and a faster crossbar change none of its timing: 40 packets from
   node 0 to node (3, 1) of an 8 x 8 torus, 4 hops in dimension order,
   arrive exactly as without them. At the links' rate the crossbar changes
   nothing else; 4 times faster, the packets leave their injection queue
   sooner, into the first output buffer, and the source sends sooner (its
   packets then wait longer, none arrives later). */
Test(timing, output_buffers_leave_a_lone_flow_alone)
{
    char *path = sends_file_new(40, (const uint32_t[]){11}, 1, 64);
    static const char *const outputs[] = {"", "output_buffer_bytes = 256\n",
                                          "output_buffer_bytes = 256\ncrossbar_speedup = 4\n"};
    insee_report base = {0};
    for (size_t i = 0; i < G_N_ELEMENTS(outputs); i++) {
        char *toml = g_strdup_printf(
            "[simulation]\npacket_phits = 16\n[topology]\nplugin = \"torus\"\n"
            "dims = [8, 8]\n[router]\nplugin = \"dally\"\n[traffic]\nplugin = \"trace\"\n"
            "file = \"%s\"\nmode = \"at-will\"\n[network]\ncable_cycles = 2\n%s",
            path, outputs[i]);
        insee_report r = run_toml(toml);
        cr_assert(r.completed);
        assert_all_delivered(&r);
        cr_assert_eq(r.total_delivered, 40u);
        if (i == 0) {
            base = r;
        } else {
            cr_assert_eq(r.completion, base.completion, "%s: %" G_GUINT64_FORMAT " cycles, "
                         "%" G_GUINT64_FORMAT " without", outputs[i], r.completion,
                         base.completion);
            cr_assert_eq(r.hops, base.hops);
            cr_assert(
                i == 1 ? insee_stat_mean(&r.latency_inj) == insee_stat_mean(&base.latency_inj) &&
                             insee_stat_mean(&r.latency_gen) == insee_stat_mean(&base.latency_gen)
                       : insee_stat_mean(&r.latency_inj) > insee_stat_mean(&base.latency_inj) + 16,
                "%s: %.3f cycles from injection, %.3f without", outputs[i],
                insee_stat_mean(&r.latency_inj), insee_stat_mean(&base.latency_inj));
            cr_assert_eq(r.units.output_buffer_bytes, 256u);
            insee_report_clear(&r);
        }
        g_free(toml);
    }
    insee_report_clear(&base);
    cable_file_remove(path);
}

/* Past saturation an input buffer no longer waits for its packet's link:
   with output buffers of 4 packets, at the links' rate or twice it, the
   8 x 8 torus accepts over 5 % more. Nothing is lost, and the same seed
   gives the same run. */
Test(timing, output_buffers_and_speedup_raise_saturation)
{
    static const char *const outputs[] = {"", "output_buffer_bytes = 256\n",
                                          "output_buffer_bytes = 256\ncrossbar_speedup = 2\n"};
    double accepted[3];
    for (size_t i = 0; i < G_N_ELEMENTS(outputs); i++) {
        char *toml = timed("plugin = \"torus\"\ndims = [8, 8]", 1.0, 8000, 16, outputs[i]);
        insee_report r = run_toml(toml), again = run_toml(toml);
        assert_all_delivered(&r);
        cr_assert_eq(r.total_delivered, again.total_delivered);
        cr_assert_float_eq(insee_stat_mean(&r.latency_gen), insee_stat_mean(&again.latency_gen),
                           0.0);
        accepted[i] = r.accepted_load;
        insee_report_clear(&r);
        insee_report_clear(&again);
        g_free(toml);
    }
    cr_assert_gt(accepted[1], accepted[0] * 1.05, "%.4f with output buffers, %.4f without",
                 accepted[1], accepted[0]);
    cr_assert_gt(accepted[2], accepted[0] * 1.05, "%.4f with speedup 2, %.4f without buffers",
                 accepted[2], accepted[0]);
}

/* A run of node 0 of a 4 x 4 torus sending at will the trace `text`, with
   one-packet messages of L phits over node links of a phit every K cycles
   and four interfaces: its completion; with `error`, a run that must fail,
   its message in *error (g_free it). */
static uint64_t nic_run(const char *text, char **error)
{
    enum { L = 16, K = 4 };
    char *path = cable_file_new(text);
    char *toml = g_strdup_printf(
        "[simulation]\npacket_phits = %d\n[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
        "[router]\nplugin = \"dally\"\n[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n"
        "mode = \"at-will\"\n[network]\nnode_phit_cycles = %d\nnics = 4\n",
        L, path, K);
    uint64_t done = 0;
    if (error) {
        *error = run_toml_error(toml);
    } else {
        insee_report r = run_toml(toml);
        cr_assert(r.completed);
        assert_all_delivered(&r);
        done = r.completion;
        insee_report_clear(&r);
    }
    g_free(toml);
    cable_file_remove(path);
    return done;
}

/* NSIM's per-message choice of interface (LMGEN_Isend's SrcNIC): four
   one-packet messages to four neighbours, each L K = 64 cycles on a node
   link. Left to the node's turn they leave side by side, one interface
   each; all naming interface 1 they leave one after another over its one
   link, each 64 cycles after the one before, while naming four
   interfaces is the turn again. An interface the node lacks fails the run
   naming the plugin, the task, the interface and nics. */
Test(timing, a_message_names_its_interface)
{
    enum { LK = 16 * 4 };
    const char *turn = "s 0 1 0 64\ns 0 4 1 64\ns 0 3 2 64\ns 0 12 3 64\n";
    const char *one = "s 0 1 0 64 nic=1\ns 0 4 1 64 nic=1\ns 0 3 2 64 nic=1\ns 0 12 3 64 nic=1\n";
    const char *own = "s 0 1 0 64 nic=4\ns 0 4 1 64 nic=3\ns 0 3 2 64 nic=2\ns 0 12 3 64 nic=1\n";
    uint64_t side = nic_run(turn, NULL), queued = nic_run(one, NULL);
    cr_assert(side > LK && side < LK + 16, "in turn: %" G_GUINT64_FORMAT " cycles", side);
    cr_assert(queued > 4 * LK && queued < 4 * LK + 16, "one interface: %" G_GUINT64_FORMAT
              " cycles", queued);
    /* The i-th message is queued at cycle i: in turn it starts crossing
       then, on one interface at 64 i, once the one before has crossed. */
    cr_assert_eq(queued - side, 3u * LK - 3u, "one interface: %" G_GUINT64_FORMAT
                 ", in turn: %" G_GUINT64_FORMAT, queued, side);
    cr_assert_eq(nic_run(own, NULL), side);
    char *msg = NULL;
    nic_run("s 0 1 0 64\ns 0 4 1 64 nic=9\n", &msg);
    cr_assert(strstr(msg, "traffic plugin 'trace'") && strstr(msg, "task 0") &&
                  strstr(msg, "interface 9") && strstr(msg, "nics = 4"),
              "%s", msg);
    g_free(msg);
}

/* NSIM's per-message zero-copy switch (LMGEN_Isend's last argument): a
   message's copy=two costs the copies at both ends, 2 ceil(B c) cycles,
   against the same trace with copy=zero, whatever the run's copy; without
   a copy= the run's copy decides. A two-copy message without
   memory_bandwidth fails naming the key. */
Test(timing, a_message_chooses_its_copy)
{
    enum { B = 1001 };
    static const char *const runs[] = {"zero", "two"};
    static const char *const sends[] = {"", " copy=zero", " copy=two"};
    uint64_t done[2][3];
    for (int r = 0; r < 2; r++)
        for (int m = 0; m < 3; m++) {
            char *text = g_strdup_printf("s 0 1 7 %d%s\nr 0 1 7 %d\n", B, sends[m], B);
            char *path = cable_file_new(text);
            char *toml = g_strdup_printf(
                "[simulation]\nphit_bytes = 4\n[topology]\nplugin = \"torus\"\ndims = [2]\n"
                "[router]\nplugin = \"dally\"\n[traffic]\nplugin = \"trace\"\n"
                "file = \"%s\"\n[network]\nlink_bandwidth = \"4 GB/s\"\ncopy = \"%s\"\n"
                "memory_bandwidth = \"2 GB/s\"\n",
                path, runs[r]);
            insee_report rep = run_toml(toml);
            cr_assert(rep.completed);
            done[r][m] = rep.completion;
            insee_report_clear(&rep);
            g_free(toml);
            cable_file_remove(path);
            g_free(text);
        }
    for (int r = 0; r < 2; r++) {
        cr_assert_eq(done[r][2] - done[r][1], 2u * 501u, "copy = \"%s\": zero-copy %"
                     G_GUINT64_FORMAT ", two-copy %" G_GUINT64_FORMAT, runs[r], done[r][1],
                     done[r][2]);
        cr_assert_eq(done[r][0], done[r][r + 1], "copy = \"%s\" decides a message without copy=",
                     runs[r]);
    }
    char *msg = NULL;
    nic_run("s 0 1 0 64 copy=two\n", &msg);
    cr_assert(strstr(msg, "traffic plugin 'trace'") && strstr(msg, "two-copy") &&
                  strstr(msg, "memory_bandwidth"),
              "%s", msg);
    g_free(msg);
}

/* An empty [network] is INSEE's model: the same figures as no table, at
   low load and past saturation. */
Test(timing, an_empty_table_changes_nothing)
{
    static const double loads[] = {0.1, 1.0};
    for (size_t i = 0; i < G_N_ELEMENTS(loads); i++) {
        char *plain = timed("plugin = \"torus\"\ndims = [8, 8]", loads[i], 4000, 16, NULL);
        char *empty = timed("plugin = \"torus\"\ndims = [8, 8]", loads[i], 4000, 16, "");
        insee_report a = run_toml(plain), b = run_toml(empty);
        cr_assert_eq(a.total_delivered, b.total_delivered);
        cr_assert_eq(a.cycles, b.cycles);
        cr_assert_eq(insee_stat_mean(&a.latency_gen), insee_stat_mean(&b.latency_gen));
        cr_assert_eq(a.latency_inj.max, b.latency_inj.max);
        cr_assert_eq(a.hops, b.hops);
        cr_assert(!a.units.given && b.units.given);
        insee_report_clear(&a);
        insee_report_clear(&b);
        g_free(plain);
        g_free(empty);
    }
}

/* Long cables and pipelines under load: nothing lost, nothing duplicated,
   everything delivered, and a pipeline longer than deadlock_cycles is
   movement, not a deadlock. */
Test(timing, long_latencies_deliver_everything)
{
    char *toml = g_strdup("[simulation]\nseed = 5\nwarmup = 1000\ncycles = 3000\n"
                          "packet_phits = 4\ndeadlock_cycles = 50\n"
                          "[topology]\nplugin = \"torus\"\ndims = [6, 6]\n"
                          "[router]\nplugin = \"dally\"\n"
                          "[traffic]\nplugin = \"uniform\"\nload = 0.6\n"
                          "[network]\ncable_cycles = 30\nrouter_cycles = 120\n");
    insee_report r = run_toml(toml);
    cr_assert_gt(r.delivered, 1000);
    assert_all_delivered(&r);
    /* A hop costs at least 1 + 30 + 120 cycles. */
    cr_assert_geq(insee_stat_mean(&r.latency_inj), 151.0 * (double)r.hops / (double)r.delivered);
    insee_report_clear(&r);
    g_free(toml);
}

/* A link bandwidth and a phit size give the cycle; latencies in ns become
   cycles; the report gives times in ns and bandwidths in GB/s. */
Test(timing, real_units_in_the_report)
{
    char *toml = g_strdup("[simulation]\nseed = 5\nwarmup = 1000\ncycles = 20000\n"
                                 "packet_phits = 16\nphit_bytes = 8\n"
                                 "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                                 "[router]\nplugin = \"dally\"\n"
                                 "[traffic]\nplugin = \"uniform\"\nload = 0.05\n"
                                 "[network]\nlink_bandwidth = \"32 Gb/s\"\ncable_ns = 10\n"
                                 "router_ns = 20.6\n");
    insee_config *cfg;
    insee_registry *reg;
    char *text;
    insee_experiment *exp = run_experiment(toml, &text, &cfg, &reg);
    const insee_report *r = insee_experiment_report(exp);
    /* 8 bytes at 4 GB/s: 2 ns; 10 ns: 5 cycles; 20.6 ns: 10.3, rounded to 10. */
    cr_assert(r->units.given);
    cr_assert_float_eq(r->units.cycle_ns, 2.0, 1e-12);
    cr_assert_float_eq(r->units.link_gbytes_s, 4.0, 1e-12);
    cr_assert_eq(r->units.cable_cycles, 5);
    cr_assert_eq(r->units.router_cycles, 10);
    cr_assert(strstr(text, "cycle 2 ns, links 4 GB/s, packets of 128 bytes"), "%s", text);
    char *ns = g_strdup_printf("from generation %.1f ns", insee_stat_mean(&r->latency_gen) * 2.0);
    cr_assert(strstr(text, ns), "no '%s' in\n%s", ns, text);
    char *gb = g_strdup_printf("accepted %.4f GB/s per node", r->accepted_load * 4.0);
    cr_assert(strstr(text, gb), "no '%s' in\n%s", gb, text);
    g_free(gb);
    g_free(ns);
    free(text);
    free_experiment(exp, cfg, reg);
    g_free(toml);
}

Test(timing, bandwidths_need_their_units)
{
    static const struct {
        const char *text;
        double gbytes_s;
    } good[] = {{"4 GB/s", 4},     {"32 Gb/s", 4},        {"100 Gbps", 12.5},
                {"400MB/s", 0.4},  {"1 GiB/s", 1.073741824}, {"2.5 TB/s", 2500}};
    for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
        double v = 0;
        GError *err = NULL;
        cr_assert(insee_timing_parse_bandwidth(good[i].text, "k", &v, &err), "%s", good[i].text);
        cr_assert_float_eq(v, good[i].gbytes_s, 1e-12, "%s: %g", good[i].text, v);
    }
    static const char *const bad[] = {"4", "GB/s", "-1 GB/s", "0 Gb/s", "4 gb/s", "nan GB/s",
                                      "4 GB/s extra", ""};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        double v = 0;
        GError *err = NULL;
        cr_assert(!insee_timing_parse_bandwidth(bad[i], "link_bandwidth", &v, &err), "'%s'",
                  bad[i]);
        cr_assert(strstr(err->message, "link_bandwidth"), "%s", err->message);
        g_error_free(err);
    }
}

Test(timing, bad_combinations_name_the_keys)
{
    static const struct {
        const char *network, *expect;
    } cases[] = {
        {"link_bandwidth = \"4 furlongs\"\n", "link_bandwidth = \"4 furlongs\""},
        {"cable_ns = 10\n", "cable_ns = 10 needs the cycle's length"},
        {"router_ns = 5\n", "router_ns = 5 needs the cycle's length"},
        {"cycle_ns = 1\ncable_ns = 10\ncable_cycles = 10\n", "cable_cycles and cable_ns"},
        {"link_bandwidth = \"4 GB/s\"\ncycle_ns = 2\n", "give one of them"},
        {"dim_cable_ns = [10]\n", "dim_cable_ns needs the cycle's length"},
        {"cable_cycles = 70000\n", "cable_cycles"},
        {"cycle_ns = 0.001\ncable_ns = 1000\n", "more than the 65536 allowed"},
        {"link_bandwidth = \"4 GB/s\"\nnode_bandwidth = \"3 GB/s\"\n", "divided by that number"},
        {"node_bandwidth = \"3 GB/s\"\n", "node_bandwidth = \"3 GB/s\" needs link_bandwidth"},
        {"cycle_ns = 1\nnode_bandwidth = \"2 GB/s\"\nnode_phit_cycles = 2\n", "keep one"},
        {"dim_phit_cycles = [0]\n", "dim_phit_cycles"},
        {"send_overhead_ns = 200\n", "send_overhead_ns = 200 needs the cycle's length"},
        {"header_bytes = 64\n", "header_bytes = 64 leaves no payload in packets of 64 bytes"},
        {"mtu_bytes = 66\n", "mtu_bytes = 66 is not a whole number of phits"},
        {"vc_buffer_bytes = 32\n", "vc_buffer_bytes = 32 is smaller than a packet of 64 bytes"},
        {"mtu_bytes = 128\nvc_buffer_bytes = 64\n", "lower mtu_bytes"},
        {"mtu_bytes = 64\nheader_bytes = 64\n", "header_bytes = 64 leaves no payload"},
        {"copy = \"two\"\n", "copy = \"two\" needs memory_bandwidth"},
        {"copy = \"two\"\nmemory_bandwidth = \"16 GB/s\"\n", "needs the cycle's length"},
        {"link_bandwidth = \"4 GB/s\"\ndma_bandwidth = \"3 GB/s\"\n",
         "dma_bandwidth = \"3 GB/s\" is"},
        {"crossbar_speedup = 2\n", "crossbar_speedup = 2 needs output buffers"},
        {"output_buffer_bytes = 32\n", "output_buffer_bytes = 32 is smaller than a packet of 64"},
        {"output_buffer_bytes = 66\n", "output_buffer_bytes = 66 is not a whole number of phits"},
        {"flow_control = \"wormhole\"\noutput_buffer_bytes = 256\n",
         "the wormhole router is input-queued"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *toml = timed("plugin = \"torus\"\ndims = [4, 4]", 0.1, 100, 16, cases[i].network);
        char *msg = run_toml_error(toml);
        cr_assert((strstr(msg, "[network]") || strstr(msg, "network.")) &&
                      strstr(msg, cases[i].expect),
                  "case %zu: '%s' does not name '%s'", i, msg, cases[i].expect);
        g_free(msg);
        g_free(toml);
    }
    /* A key a size replaces, given another value (its default is what the
       echo writes back, so it passes). */
    char *toml = timed("plugin = \"torus\"\ndims = [4, 4]", 0.1, 100, 32, "mtu_bytes = 256\n");
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "packet_phits = 32") && strstr(msg, "remove packet_phits"), "%s", msg);
    g_free(msg);
    g_free(toml);
    toml = g_strdup_printf("[topology]\nplugin = \"torus\"\ndims = [4]\n[router]\n"
                           "plugin = \"dally\"\nqueue_packets = 3\n[traffic]\n"
                           "plugin = \"uniform\"\n[network]\nvc_buffer_bytes = 512\n");
    msg = run_toml_error(toml);
    cr_assert(strstr(msg, "queue_packets = 3") && strstr(msg, "vc_buffer_bytes"), "%s", msg);
    g_free(msg);
    g_free(toml);
    char *flow = g_strdup("[simulation]\nengine = \"static\"\n[topology]\nplugin = \"torus\"\n"
                          "dims = [4, 4]\n[router]\nplugin = \"dally\"\n[traffic]\n"
                          "plugin = \"uniform\"\n[network]\ncable_cycles = 2\n");
    msg = run_toml_error(flow);
    cr_assert(strstr(msg, "[network]") && strstr(msg, "engine = \"static\""), "%s", msg);
    g_free(msg);
    g_free(flow);
    /* Keys a multicast router or [stats] trace cannot run with. */
    static const char multicast[] = "[topology]\nplugin = \"spinnaker\"\ndims = [4, 4]\n"
                                    "[router]\nplugin = \"spinnaker\"\n[traffic]\n"
                                    "plugin = \"uniform\"\n[network]\n";
    static const char traced[] = "[topology]\nplugin = \"torus\"\ndims = [4]\n[router]\n"
                                 "plugin = \"dally\"\n[traffic]\nplugin = \"uniform\"\n"
                                 "[stats]\ntrace = \"/tmp/insee-never-written.trace\"\n"
                                 "[network]\n";
    static const struct {
        const char *base, *line, *key, *why;
    } refused[] = {
        {multicast, "node_phit_cycles = 2\n", "node_phit_cycles", "multicast"},
        {multicast, "mtu_bytes = 64\n", "mtu_bytes", "multicast"},
        {multicast, "output_buffer_bytes = 256\n", "output_buffer_bytes", "multicast"},
        {traced, "mtu_bytes = 64\n", "mtu_bytes", "[stats] trace"},
        {traced, "output_buffer_bytes = 256\n", "output_buffer_bytes", "[stats] trace"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
        char *toml = g_strconcat(refused[i].base, refused[i].line, NULL);
        msg = run_toml_error(toml);
        cr_assert(strstr(msg, refused[i].why) && strstr(msg, refused[i].key), "%s", msg);
        g_free(msg);
        g_free(toml);
    }
    cr_assert(!g_file_test("/tmp/insee-never-written.trace", G_FILE_TEST_EXISTS));
}
