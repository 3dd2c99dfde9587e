/* test_kernels.c — the application kernels' schedules (plugins/traffic/
 * <kernel>/), read as the scripts their generators write (compiled here with
 * KERNEL_TEST, so no plugin entry is involved).
 *
 * For each kernel: the number of messages against its closed form in tasks
 * and iterations; every send matched by exactly one receive (the same
 * source, destination, tag and length); the kernel's own dependency order
 * (who receives from whom before sending); and a play on an ideal network
 * (below) that must finish every task, whose completion time is checked
 * against the kernel's closed form at zero contention.
 *
 * The ideal network: a send takes no time and its message arrives `delay`
 * cycles later; a receive completes when its matching message has arrived
 * (at once if it already has); a compute holds its task. Arrival times are
 * known when a message is sent, so the tasks are simply advanced in turn
 * until none can move. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "causal_rig.h"
#include "kernel_common.h"

enum { BYTES = 100, C = 7, D = 3 };

/* ---- arguments ------------------------------------------------------------ */

static kernel_args args(uint32_t n, uint32_t iterations, uint64_t compute, const insee_value *own)
{
    kernel_args a = {
        .name = "k",
        .all = n,
        .bytes = BYTES,
        .iterations = iterations,
        .compute = compute,
        .own = own,
    };
    insee_rng_init(&a.rng, 7, 0);
    return a;
}

static script *make(kernel_generator *gen, const kernel_args *a)
{
    insee_error err = {0};
    script *s = gen(a, &err);
    cr_assert_not_null(s, "%s", err.message);
    cr_assert_eq(script_tasks(s), a->all);
    return s;
}

/* The generator refuses, with a message containing `words`. */
static void refused(kernel_generator *gen, const kernel_args *a, const char *words)
{
    insee_error err = {0};
    script *s = gen(a, &err);
    cr_assert_null(s);
    cr_assert_neq(err.code, 0);
    cr_assert(strstr(err.message, words), "'%s' not in: %s", words, err.message);
}

static uint32_t iteration_of(const script_event *e) { return (uint32_t)(e->tag >> 32); }

/* ---- the ideal network ---------------------------------------------------- */

typedef struct arrival {
    uint32_t src;
    uint64_t tag, bytes, at;
    bool taken;
} arrival;

typedef struct mailbox {
    arrival *m;
    size_t len, cap;
} mailbox;

/* Play `s`; assert that every task reaches the end of its program and every
   message is received; return the cycle the last task ends. */
static uint64_t ideal_run(const script *s, uint64_t delay)
{
    uint32_t n = script_tasks(s);
    size_t *pc = calloc(n, sizeof *pc);
    uint64_t *clock = calloc(n, sizeof *clock);
    mailbox *box = calloc(n, sizeof *box);
    for (bool moved = true; moved;) {
        moved = false;
        for (uint32_t t = 0; t < n; t++)
            for (const script_event *ev = script_events(s, t); pc[t] < script_length(s, t);) {
                const script_event *e = &ev[pc[t]];
                if (e->op == SCRIPT_SEND) {
                    mailbox *b = &box[e->peer];
                    if (b->len == b->cap) {
                        b->cap = b->cap ? 2 * b->cap : 16;
                        b->m = realloc(b->m, b->cap * sizeof *b->m);
                    }
                    b->m[b->len++] = (arrival){t, e->tag, e->bytes, clock[t] + delay, false};
                } else if (e->op == SCRIPT_COMPUTE) {
                    clock[t] += e->cycles;
                } else {
                    arrival *best = NULL;
                    for (size_t i = 0; i < box[t].len; i++) {
                        arrival *x = &box[t].m[i];
                        if (!x->taken && x->src == e->peer && x->tag == e->tag &&
                            x->bytes == e->bytes && (!best || x->at < best->at))
                            best = x;
                    }
                    if (!best)
                        break;
                    best->taken = true;
                    if (best->at > clock[t])
                        clock[t] = best->at;
                }
                pc[t]++;
                moved = true;
            }
    }
    uint64_t end = 0;
    for (uint32_t t = 0; t < n; t++) {
        cr_assert_eq(pc[t], script_length(s, t), "deadlock: task %u stuck at event %zu of %zu", t,
                     pc[t], script_length(s, t));
        for (size_t i = 0; i < box[t].len; i++)
            cr_assert(box[t].m[i].taken, "task %u never received a message from task %u", t,
                      box[t].m[i].src);
        if (clock[t] > end)
            end = clock[t];
        free(box[t].m);
    }
    free(pc);
    free(clock);
    free(box);
    return end;
}

/* ---- sends against receives ----------------------------------------------- */

typedef struct msg {
    uint32_t src, dst;
    uint64_t tag, bytes;
} msg;

static int msg_cmp(const void *pa, const void *pb)
{
    const msg *a = pa, *b = pb;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    if (a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

/* The messages of `op` events (sends as written, receives as expected). */
static size_t collect(const script *s, uint8_t op, msg *out)
{
    size_t k = 0;
    for (uint32_t t = 0; t < script_tasks(s); t++)
        for (size_t i = 0; i < script_length(s, t); i++) {
            const script_event *e = &script_events(s, t)[i];
            if (e->op == op)
                out[k++] = op == SCRIPT_SEND ? (msg){t, e->peer, e->tag, e->bytes}
                                             : (msg){e->peer, t, e->tag, e->bytes};
        }
    qsort(out, k, sizeof *out, msg_cmp);
    return k;
}

/* The checks every kernel passes: its message count, sends and receives
   equal as multisets, every message of BYTES, and the ideal play finishing
   at `completion` (UINT64_MAX: no closed form, only no deadlock). Returns
   the script of `gen` for `a`. */
static script *checked(kernel_generator *gen, const kernel_args *a, uint64_t messages,
                       uint64_t completion)
{
    script *s = make(gen, a);
    cr_assert_eq(script_messages(s), messages, "messages: %llu, closed form %llu",
                 (unsigned long long)script_messages(s), (unsigned long long)messages);
    msg *sends = malloc((messages + 1) * sizeof *sends);
    msg *recvs = malloc((messages + 1) * sizeof *recvs);
    cr_assert_eq(collect(s, SCRIPT_SEND, sends), messages);
    size_t received = 0;
    for (uint32_t t = 0; t < script_tasks(s); t++)
        for (size_t i = 0; i < script_length(s, t); i++)
            received += script_events(s, t)[i].op == SCRIPT_RECV;
    cr_assert_eq(received, messages, "%zu receives for %llu sends", received,
                 (unsigned long long)messages);
    collect(s, SCRIPT_RECV, recvs);
    for (size_t i = 0; i < messages; i++) {
        cr_assert_eq(msg_cmp(&sends[i], &recvs[i]), 0, "send %u->%u tag %llx unmatched",
                     sends[i].src, sends[i].dst, (unsigned long long)sends[i].tag);
        cr_assert_neq(sends[i].src, sends[i].dst, "task %u sends to itself", sends[i].src);
        cr_assert_eq(sends[i].bytes, BYTES);
    }
    free(sends);
    free(recvs);
    uint64_t end = ideal_run(s, D);
    if (completion != UINT64_MAX)
        cr_assert_eq(end, completion, "completion %llu, closed form %llu",
                     (unsigned long long)end, (unsigned long long)completion);
    return s;
}

/* The peers of task t's `op` events in iteration `it`, in program order,
   into out; returns how many. */
static size_t peers(const script *s, uint32_t t, uint8_t op, uint32_t it, uint32_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < script_length(s, t); i++) {
        const script_event *e = &script_events(s, t)[i];
        if (e->op == op && iteration_of(e) == it)
            out[k++] = e->peer;
    }
    return k;
}

/* Task t's `op` peers in iteration `it` are exactly want[0..k), in order. */
static void assert_peers(const script *s, uint32_t t, uint8_t op, uint32_t it, const uint32_t *want,
                         size_t k)
{
    uint32_t got[8];
    cr_assert_eq(peers(s, t, op, it, got), k, "task %u: %s peers", t, op == SCRIPT_SEND ? "send" : "receive");
    cr_assert_arr_eq(got, want, k * sizeof *got, "task %u: %s peers", t,
                     op == SCRIPT_SEND ? "send" : "receive");
}

/* Within each iteration, task t receives everything before it sends anything. */
static void assert_receives_first(const script *s, uint32_t t)
{
    for (size_t i = 0; i < script_length(s, t); i++) {
        const script_event *e = &script_events(s, t)[i];
        if (e->op != SCRIPT_SEND)
            continue;
        for (size_t j = i + 1; j < script_length(s, t); j++) {
            const script_event *f = &script_events(s, t)[j];
            cr_assert(f->op != SCRIPT_RECV || iteration_of(f) != iteration_of(e),
                      "task %u receives from %u after sending in iteration %u", t, f->peer,
                      iteration_of(e));
        }
    }
}

/* Each iteration of task t starts with its compute. */
static void assert_compute_first(const script *s, uint32_t t, uint32_t iterations)
{
    uint32_t computes = 0;
    for (size_t i = 0; i < script_length(s, t); i++) {
        const script_event *e = &script_events(s, t)[i];
        if (e->op == SCRIPT_COMPUTE) {
            cr_assert_eq(e->cycles, C);
            computes++;
        } else {
            cr_assert_eq(iteration_of(e), computes - 1, "task %u: event %zu before its compute", t, i);
        }
    }
    cr_assert_eq(computes, iterations);
}

static uint32_t floor_log2(uint32_t n) { return n > 1 ? 1 + floor_log2(n / 2) : 0; }

/* ---- all-to-all ------------------------------------------------------------- */

/* The pairing: shift (r + k, r - k) or xor (r ^ k). */
static const insee_value shift_pairing[] = {{.type = INSEE_PARAM_ENUM, .i = 0}};
static const insee_value xor_pairing[] = {{.type = INSEE_PARAM_ENUM, .i = 1}};

Test(alltoall, pairwise_steps_count_and_time)
{
    kernel_args a = args(5, 2, C, shift_pairing);
    script *s = checked(alltoall_script, &a, 2 * 5 * 4, 2 * (C + 4 * D));
    assert_peers(s, 1, SCRIPT_SEND, 1, (uint32_t[]){2, 3, 4, 0}, 4);
    assert_peers(s, 1, SCRIPT_RECV, 1, (uint32_t[]){0, 4, 3, 2}, 4);
    for (uint32_t t = 0; t < 5; t++)
        assert_compute_first(s, t, 2);
    script_free(s);
}

Test(alltoall, tasks_subset_leaves_the_rest_idle)
{
    kernel_args a = args(10, 1, 0, shift_pairing);
    a.tasks = 4;
    script *s = checked(alltoall_script, &a, 4 * 3, 3 * D);
    for (uint32_t t = 4; t < 10; t++)
        cr_assert_eq(script_length(s, t), 0);
    script_free(s);
    kernel_args one = args(1, 1, 0, shift_pairing);
    refused(alltoall_script, &one, "at least 2 tasks");
}

/* MPICH's pairing for a power of two (NSIM §5.3): in step k task r sends
   to and receives from r XOR k, so both of a pair send at once and every
   step still takes one delay on the ideal network. */
Test(alltoall, xor_pairs_exchange_with_each_other)
{
    kernel_args a = args(8, 1, C, xor_pairing);
    script *s = checked(alltoall_script, &a, 8 * 7, C + 7 * D);
    const uint32_t partners[] = {2, 1, 0, 7, 6, 5, 4};
    assert_peers(s, 3, SCRIPT_SEND, 0, partners, 7);
    assert_peers(s, 3, SCRIPT_RECV, 0, partners, 7);
    script_free(s);
    kernel_args six = args(6, 1, 0, xor_pairing);
    refused(alltoall_script, &six, "power of two");
}

/* ---- binomial broadcast and reduce ------------------------------------------ */

/* The parent of rank rel (> 0) in the broadcast tree (less its highest set
   bit) and the reduce tree (less its lowest). */
static uint32_t broadcast_parent(uint32_t rel) { return rel - (1u << floor_log2(rel)); }
static uint32_t reduce_parent(uint32_t rel) { return rel & (rel - 1); }

/* A binomial tree for every size up to 33 and a few roots: n - 1 messages
   per iteration, each task but the root exchanging exactly one with its
   parent (`up`: the task's receive in the broadcast, its send in the
   reduce) after every receive of the iteration, and depth popcount(rel) <=
   floor(log2 n), so the run ends at I C + floor(log2 n) d. */
static void tree_case(kernel_generator *gen, uint8_t up, uint32_t (*parent)(uint32_t))
{
    for (uint32_t n = 1; n <= 33; n++)
        for (uint32_t root = 0; root < n; root += 3) {
            insee_value own[] = {value_int(root)};
            kernel_args a = args(n, 3, C, own);
            script *s = checked(gen, &a, 3ull * (n - 1), 3 * C + floor_log2(n) * D);
            for (uint32_t t = 0; t < n; t++) {
                uint32_t rel = (t + n - root) % n, p[32];
                size_t got = peers(s, t, up, 2, p);
                if (rel == 0) {
                    cr_assert_eq(got, 0, "the root has no parent");
                } else {
                    cr_assert_eq(got, 1);
                    cr_assert_eq(p[0], (parent(rel) + root) % n, "n %u: parent of %u", n, t);
                }
                assert_receives_first(s, t);
                assert_compute_first(s, t, 3);
            }
            script_free(s);
        }
}

Test(broadcast, tree_count_order_and_depth_for_every_size)
{
    tree_case(broadcast_script, SCRIPT_RECV, broadcast_parent);
}

Test(reduce, tree_count_order_and_depth_for_every_size)
{
    tree_case(reduce_script, SCRIPT_SEND, reduce_parent);
}

Test(broadcast, root_outside_the_tasks_is_refused)
{
    insee_value own[] = {value_int(8)};
    kernel_args a = args(8, 1, 0, own);
    refused(broadcast_script, &a, "root = 8 but only tasks 0..7 take part");
}

/* ---- recursive doubling and butterfly ------------------------------------- */

Test(allreduce, powers_of_two_exchange_by_doubling)
{
    kernel_args a = args(8, 3, C, NULL);
    script *s = checked(allreduce_script, &a, 3 * 8 * 3, 3 * (C + 3 * D));
    assert_peers(s, 5, SCRIPT_SEND, 2, (uint32_t[]){4, 7, 1}, 3);
    assert_peers(s, 5, SCRIPT_RECV, 2, (uint32_t[]){4, 7, 1}, 3);
    script_free(s);
}

Test(allreduce, other_counts_fold_in_and_out)
{
    for (uint32_t n = 1; n <= 40; n++) {
        kernel_args a = args(n, 2, C, NULL);
        uint32_t p = 1u << floor_log2(n), q = n - p;
        script *s = checked(allreduce_script, &a, 2ull * (p * floor_log2(p) + 2 * q), UINT64_MAX);
        /* The even tasks below 2q only talk to their odd neighbour. */
        for (uint32_t t = 0; t < 2 * q; t += 2) {
            uint32_t out[4];
            cr_assert_eq(peers(s, t, SCRIPT_SEND, 1, out), 1);
            cr_assert_eq(out[0], t + 1);
            cr_assert_eq(peers(s, t, SCRIPT_RECV, 1, out), 1);
            cr_assert_eq(out[0], t + 1);
        }
        script_free(s);
    }
}

Test(allreduce, one_fold_in_overlaps_the_exchange)
{
    /* n = 3: task 0 folds into task 1 at C (arriving at C + D) while task 2
       sends its part to task 1 at C (arriving at C + D too); task 1 then
       sends to task 2 and back to task 0, both arriving at C + 2 D. */
    kernel_args a = args(3, 1, C, NULL);
    script *s = checked(allreduce_script, &a, 4, C + 2 * D);
    script_free(s);
}

Test(butterfly, highest_bit_first)
{
    kernel_args a = args(16, 2, C, NULL);
    script *s = checked(butterfly_script, &a, 2 * 16 * 4, 2 * (C + 4 * D));
    assert_peers(s, 0, SCRIPT_SEND, 0, (uint32_t[]){8, 4, 2, 1}, 4);
    assert_peers(s, 13, SCRIPT_RECV, 1, (uint32_t[]){5, 9, 15, 12}, 4);
    script_free(s);
}

Test(butterfly, other_counts_are_refused_with_the_neighbouring_powers)
{
    kernel_args a = args(12, 1, 0, NULL);
    refused(butterfly_script, &a, "set tasks to 8 or 16");
}

/* ---- grids: stencil and wavefront ----------------------------------------- */

static void grid_of(uint32_t n, uint32_t dims, const int64_t *list, size_t len, uint32_t *g)
{
    insee_value own[] = {value_int(dims), value_int_list(list, len)};
    kernel_args a = args(n, 1, 0, own);
    insee_error err = {0};
    uint32_t tasks;
    script *s = kernel_grid_script(&a, g, &tasks, &err);
    cr_assert_not_null(s, "%s", err.message);
    script_free(s);
}

Test(grid, near_cubic_factorisation)
{
    uint32_t g[3];
    grid_of(64, 2, NULL, 0, g);
    cr_assert_arr_eq(g, ((uint32_t[]){8, 8}), 2 * sizeof *g);
    grid_of(12, 2, NULL, 0, g);
    cr_assert_arr_eq(g, ((uint32_t[]){3, 4}), 2 * sizeof *g);
    grid_of(7, 2, NULL, 0, g);
    cr_assert_arr_eq(g, ((uint32_t[]){1, 7}), 2 * sizeof *g);
    grid_of(64, 3, NULL, 0, g);
    cr_assert_arr_eq(g, ((uint32_t[]){4, 4, 4}), sizeof g);
    grid_of(12, 3, NULL, 0, g);
    cr_assert_arr_eq(g, ((uint32_t[]){2, 2, 3}), sizeof g);
    grid_of(36, 3, NULL, 0, g);
    cr_assert_arr_eq(g, ((uint32_t[]){3, 3, 4}), sizeof g);
    grid_of(64, 3, (int64_t[]){2, 8, 3}, 3, g);
    cr_assert_arr_eq(g, ((uint32_t[]){2, 8, 3}), sizeof g);
}

Test(grid, mismatches_are_refused)
{
    /* dims, grid and (the stencil's) periodic. */
    insee_value own[] = {value_int(2), value_int_list((int64_t[]){4, 4}, 2), value_bool(false)};
    kernel_args a = args(64, 1, 0, own);
    a.tasks = 12;
    refused(stencil_script, &a, "grid holds 16 tasks but tasks = 12");
    kernel_args small = args(8, 1, 0, own);
    refused(wavefront_script, &small, "grid holds 16 tasks but the experiment has 8");
    insee_value three[] = {value_int(3), value_int_list((int64_t[]){4, 4}, 2), value_bool(false)};
    kernel_args b = args(64, 1, 0, three);
    refused(stencil_script, &b, "grid has 2 sizes but dims = 3");
}

/* Coordinates of task t in grid g (x fastest). */
static void coords(const uint32_t *g, uint32_t dims, uint32_t t, uint32_t *x)
{
    for (uint32_t d = 0; d < dims; d++) {
        x[d] = t % g[d];
        t /= g[d];
    }
}

static uint32_t rank(const uint32_t *g, uint32_t dims, const uint32_t *x)
{
    uint32_t r = 0;
    for (uint32_t d = dims; d-- > 0;)
        r = r * g[d] + x[d];
    return r;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The stencil neighbours of t: one per direction of each dimension that has one. */
static size_t stencil_neighbours(const uint32_t *g, uint32_t dims, bool periodic, uint32_t t,
                                 uint32_t *out)
{
    size_t k = 0;
    uint32_t x[3];
    for (uint32_t d = 0; d < dims; d++)
        for (int dir = -1; dir <= 1; dir += 2) {
            coords(g, dims, t, x);
            int64_t y = (int64_t)x[d] + dir;
            if (periodic && g[d] > 1)
                y = (y + g[d]) % g[d];
            if (y < 0 || y >= g[d])
                continue;
            x[d] = (uint32_t)y;
            out[k++] = rank(g, dims, x);
        }
    qsort(out, k, sizeof *out, u32_cmp);
    return k;
}

static void stencil_case(uint32_t dims, const uint32_t *g, bool periodic)
{
    int64_t list[3];
    uint32_t n = 1;
    uint64_t per_iteration = 0;
    for (uint32_t d = 0; d < dims; d++) {
        list[d] = g[d];
        n *= g[d];
    }
    /* Faces: along d, n / g_d lines of g_d tasks, g_d - 1 links each (g_d with
       wrap-round, when g_d > 1), a message each way per link. */
    for (uint32_t d = 0; d < dims; d++)
        per_iteration += 2ull * (n / g[d]) * (periodic ? (g[d] > 1) * g[d] : g[d] - 1);
    insee_value own[] = {value_int(dims), value_int_list(list, dims), value_bool(periodic)};
    kernel_args a = args(n + 3, 4, C, own);
    script *s = checked(stencil_script, &a, 4 * per_iteration, 4 * (C + D));
    for (uint32_t t = 0; t < n; t++) {
        uint32_t want[6], got[6];
        size_t k = stencil_neighbours(g, dims, periodic, t, want);
        cr_assert_eq(peers(s, t, SCRIPT_SEND, 3, got), k);
        qsort(got, k, sizeof *got, u32_cmp);
        cr_assert_arr_eq(got, want, k * sizeof *got, "sends of task %u", t);
        cr_assert_eq(peers(s, t, SCRIPT_RECV, 3, got), k);
        qsort(got, k, sizeof *got, u32_cmp);
        cr_assert_arr_eq(got, want, k * sizeof *got, "receives of task %u", t);
        assert_compute_first(s, t, 4);
    }
    script_free(s);
}

Test(stencil, halo_exchange_2d_and_3d)
{
    stencil_case(2, (uint32_t[]){3, 4}, false);
    stencil_case(2, (uint32_t[]){3, 4}, true);
    stencil_case(2, (uint32_t[]){2, 5}, true); /* the same neighbour both ways */
    stencil_case(3, (uint32_t[]){2, 3, 4}, false);
    stencil_case(3, (uint32_t[]){1, 3, 3}, true); /* a flat grid: no self-messages */
}

static void wavefront_case(uint32_t dims, const uint32_t *g)
{
    int64_t list[3];
    uint32_t n = 1, diameter = 0;
    uint64_t per_iteration = 0;
    for (uint32_t d = 0; d < dims; d++) {
        list[d] = g[d];
        n *= g[d];
        diameter += g[d] - 1;
    }
    for (uint32_t d = 0; d < dims; d++)
        per_iteration += (uint64_t)(n / g[d]) * (g[d] - 1);
    insee_value own[] = {value_int(dims), value_int_list(list, dims)};
    kernel_args a = args(n, 5, C, own);
    /* Task x sends at D(x) (C + D) + i C in sweep i (D(x): its distance from
       the corner), so the far corner ends the last sweep at: */
    script *s = checked(wavefront_script, &a, 5 * per_iteration, (uint64_t)diameter * (C + D) + 5 * C);
    for (uint32_t t = 0; t < n; t++) {
        uint32_t x[3], up[3], down[3], got[3];
        size_t nu = 0, nd = 0;
        coords(g, dims, t, x);
        for (uint32_t d = 0; d < dims; d++) {
            uint32_t y[3];
            memcpy(y, x, sizeof y);
            if (x[d] > 0) {
                y[d] = x[d] - 1;
                up[nu++] = rank(g, dims, y);
            }
            if (x[d] + 1 < g[d]) {
                y[d] = x[d] + 1;
                down[nd++] = rank(g, dims, y);
            }
        }
        cr_assert_eq(peers(s, t, SCRIPT_RECV, 4, got), nu);
        cr_assert_arr_eq(got, up, nu * sizeof *got, "upstream of task %u", t);
        cr_assert_eq(peers(s, t, SCRIPT_SEND, 4, got), nd);
        cr_assert_arr_eq(got, down, nd * sizeof *got, "downstream of task %u", t);
        assert_receives_first(s, t);
    }
    script_free(s);
}

Test(wavefront, sweeps_2d_and_3d)
{
    wavefront_case(2, (uint32_t[]){4, 5});
    wavefront_case(3, (uint32_t[]){3, 3, 3});
    wavefront_case(3, (uint32_t[]){2, 1, 4});
}

/* ---- n-body, MapReduce, graph ----------------------------------------------- */

Test(nbody, ring_passes_every_block_round)
{
    kernel_args a = args(6, 2, C, NULL);
    /* n - 1 ring steps per iteration, each a compute and one message latency. */
    script *s = checked(nbody_script, &a, 2 * 6 * 5, 2 * 5 * (C + D));
    for (uint32_t t = 0; t < 6; t++) {
        uint32_t p[8];
        cr_assert_eq(peers(s, t, SCRIPT_SEND, 1, p), 5);
        for (int i = 0; i < 5; i++)
            cr_assert_eq(p[i], (t + 1) % 6);
        cr_assert_eq(peers(s, t, SCRIPT_RECV, 1, p), 5);
        for (int i = 0; i < 5; i++)
            cr_assert_eq(p[i], (t + 5) % 6);
    }
    script_free(s);
}

Test(mapreduce, scatter_shuffle_gather)
{
    kernel_args a = args(5, 2, C, NULL);
    /* Per iteration: scatter (one latency), map, n - 1 shuffle steps, reduce,
       gather (one latency); n - 1 + n (n - 1) + n - 1 messages. */
    script *s = checked(mapreduce_script, &a, 2 * 4 * 7, 2 * (2 * C + 6 * D));
    const script_event *root = script_events(s, 0);
    for (int i = 0; i < 4; i++)
        cr_assert(root[i].op == SCRIPT_SEND && root[i].peer == (uint32_t)i + 1, "scatter first");
    for (uint32_t t = 1; t < 5; t++) {
        const script_event *e = script_events(s, t);
        cr_assert(e[0].op == SCRIPT_RECV && e[0].peer == 0, "task %u maps after the scatter", t);
    }
    script_free(s);
}

Test(graph, random_out_neighbours)
{
    insee_value own[] = {value_int(3)};
    kernel_args a = args(20, 2, C, own);
    script *s = checked(graph_script, &a, 2 * 20 * 3, 2 * (C + D));
    for (uint32_t t = 0; t < 20; t++) {
        uint32_t p[3];
        cr_assert_eq(peers(s, t, SCRIPT_SEND, 1, p), 3);
        cr_assert(p[0] != p[1] && p[1] != p[2] && p[0] != p[2], "task %u: repeated neighbour", t);
        assert_compute_first(s, t, 2);
    }
    /* The same stream draws the same graph. */
    script *again = make(graph_script, &a);
    for (uint32_t t = 0; t < 20; t++) {
        uint32_t p[3], q[3];
        peers(s, t, SCRIPT_SEND, 0, p);
        cr_assert_eq(peers(again, t, SCRIPT_SEND, 0, q), 3);
        cr_assert_arr_eq(p, q, sizeof p);
    }
    script_free(s);
    script_free(again);
    insee_value too_many[] = {value_int(20)};
    kernel_args b = args(20, 1, 0, too_many);
    refused(graph_script, &b, "degree = 20 needs at least 21 tasks");
}

/* Of 5 tasks, task 0 draws 2 of the other 4: each of the 6 pairs is equally likely. */
Test(graph, neighbour_sets_are_uniform)
{
    enum { DRAWS = 6000 };
    uint32_t count[5][5] = {{0}};
    for (uint32_t seed = 0; seed < DRAWS; seed++) {
        insee_value own[] = {value_int(2)};
        kernel_args a = args(5, 1, 0, own);
        insee_rng_init(&a.rng, seed, 3);
        script *s = make(graph_script, &a);
        uint32_t p[2];
        cr_assert_eq(peers(s, 0, SCRIPT_SEND, 0, p), 2);
        count[p[0] < p[1] ? p[0] : p[1]][p[0] < p[1] ? p[1] : p[0]]++;
        script_free(s);
    }
    /* Each pair: binomial(DRAWS, 1/6); 5 standard deviations is about 144. */
    for (uint32_t i = 1; i < 5; i++)
        for (uint32_t j = i + 1; j < 5; j++)
            cr_assert(count[i][j] > DRAWS / 6 - 144 && count[i][j] < DRAWS / 6 + 144,
                      "pair %u,%u drawn %u times of %u", i, j, count[i][j], DRAWS);
}

/* ---- the shared parameters -------------------------------------------------- */

extern const insee_param_def *const alltoall_params_table, *const broadcast_params_table,
    *const reduce_params_table, *const allreduce_params_table, *const butterfly_params_table,
    *const stencil_params_table, *const wavefront_params_table, *const nbody_params_table,
    *const mapreduce_params_table, *const graph_params_table;

/* kernel_args_init() reads the shared entries by position. */
Test(params, every_table_starts_with_the_shared_entries)
{
    const insee_param_def *tables[] = {
        alltoall_params_table, broadcast_params_table, reduce_params_table,
        allreduce_params_table, butterfly_params_table, stencil_params_table,
        wavefront_params_table, nbody_params_table, mapreduce_params_table,
        graph_params_table,
    };
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        cr_assert_str_eq(tables[i][KERNEL_P_TASKS].name, "tasks");
        cr_assert_str_eq(tables[i][KERNEL_P_BYTES].name, "bytes");
        cr_assert_str_eq(tables[i][KERNEL_P_ITERATIONS].name, "iterations");
        cr_assert_str_eq(tables[i][KERNEL_P_COMPUTE].name, "compute");
    }
    cr_assert_str_eq(stencil_params_table[KERNEL_P_OWN + KERNEL_P_DIMS].name, "dims");
    cr_assert_str_eq(wavefront_params_table[KERNEL_P_OWN + KERNEL_P_GRID].name, "grid");
}

Test(params, tasks_beyond_the_experiment_are_refused)
{
    insee_kernel k = {.seed = 1, .shape = {.tasks = 16, .nodes = 16, .packet_phits = 16}};
    insee_host host = mock_host(&k);
    insee_value params[] = {value_int(17), value_int(64), value_int(1), value_int(0)};
    kernel_args a;
    insee_error err = {0};
    cr_assert_not(kernel_args_init(&a, "alltoall", &host, params, &err));
    cr_assert(strstr(err.message, "alltoall: tasks = 17 but the experiment has 16 tasks"), "%s",
              err.message);
    params[0] = value_int(0);
    cr_assert(kernel_args_init(&a, "alltoall", &host, params, &err));
    cr_assert_eq(kernel_tasks(&a), 16);
    cr_assert_eq(a.bytes, 64);
}

/* A program too large for memory is refused before it is built, from one
   iteration's events: an 8x8 halo exchange's 448 events (each task's sends
   and receives to its 2 to 4 neighbours) times 10^9 iterations of events
   of tens of bytes is terabytes; a few iterations fit. */
Test(params, a_program_larger_than_memory_is_refused_before_it_is_built)
{
    insee_value own[] = {value_int(2), value_int_list((int64_t[]){8, 8}, 2), value_bool(false)};
    kernel_args a = args(64, 1000000000u, 0, own);
    insee_error err = {0};
    cr_assert_not(kernel_program_fits(&a, stencil_script, &err));
    cr_assert(strstr(err.message, "1000000000 iterations of") &&
                  strstr(err.message, "use fewer iterations"), "%s", err.message);
    a.iterations = 3;
    cr_assert(kernel_program_fits(&a, stencil_script, &err));
}

/* ---- master-worker, through its plugin on the mock kernel loop -------------- */

enum { MW_MAX = 16 };

/* What the master did, checked as messages arrive: a worker never holds
   two items, the first round goes to workers 1, 2, ... in turn, and after
   it item k (items are numbered in the order the master sends them, and
   tagged so) goes to the worker whose result arrived (k - workers)-th: the
   first to answer is served first. Items are 100 bytes, results 200: 2 and
   4 packets of 64 bytes. */
typedef struct mw_watch {
    uint32_t workers;
    uint32_t holding[MW_MAX], got[MW_MAX];
    uint32_t answered[1024], results; /* workers, by the order their results arrived */
    uint32_t items, order[1024];      /* the worker of each item */
} mw_watch;

static void mw_delivered(void *user, uint32_t src, const insee_message *m, uint64_t now)
{
    (void)now;
    mw_watch *w = user;
    if (m->dst == 0) {
        cr_assert(m->bytes == 200 && m->packets == 4, "a result of %lu bytes",
                  (unsigned long)m->bytes);
        cr_assert_eq(w->holding[src], 1, "a result from worker %u, which holds no item", src);
        w->holding[src]--;
        w->answered[w->results++] = src;
        return;
    }
    cr_assert_eq(src, 0, "task %u sent to worker %u", src, m->dst);
    cr_assert(m->bytes == 100 && m->packets == 2, "an item of %lu bytes", (unsigned long)m->bytes);
    uint64_t k = m->tag;
    uint32_t want = k < w->workers ? (uint32_t)k + 1 : w->answered[k - w->workers];
    cr_assert_eq(m->dst, want, "item %llu went to worker %u, not %u", (unsigned long long)k,
                 m->dst, want);
    cr_assert_eq(w->holding[m->dst], 0, "worker %u given a second item", m->dst);
    w->holding[m->dst]++;
    w->got[m->dst]++;
    w->order[k] = m->dst;
    w->items++;
}

/* Master-worker over n tasks, `iterations` items per worker, `compute`
   cycles per item spread by `jitter`; messages take `delay` cycles plus up
   to `net_jitter` more. Returns the cycle of the last result. */
static uint64_t mw_run(uint32_t n, int iterations, int compute, double jitter, uint64_t delay,
                       uint64_t net_jitter, mw_watch *w)
{
    traffic_rig r;
    rig_tasks(&r, n, 16);
    insee_value params[] = {value_int(0),       value_int(100), value_int(iterations),
                            value_int(compute), value_int(200), value_double(jitter)};
    rig_create(&r, "master-worker", params);
    *w = (mw_watch){.workers = n - 1};
    causal_hooks hooks = {.delivered = mw_delivered, .user = w};
    causal_rig *c = causal_new(&r, delay, 0, &hooks);
    if (net_jitter)
        causal_jitter(c, net_jitter);
    cr_assert_not(r.vt->finished(r.self));
    uint64_t end = causal_run(c, 1000000);
    cr_assert(r.vt->finished(r.self));
    cr_assert_eq(causal_in_flight(c), 0);
    cr_assert_eq(w->items, (uint32_t)iterations * (n - 1));
    cr_assert_eq(w->results, w->items);
    for (uint32_t t = 1; t < n; t++)
        cr_assert_eq(w->holding[t], 0, "worker %u still holds an item", t);
    causal_free(c);
    rig_free(&r);
    return end;
}

Test(master_worker, equal_workers_take_turns_at_a_closed_form_pace)
{
    mw_watch w;
    /* Worker w gets its first item at w - 1 + delay, is woken the next cycle,
       computes, answers; the master is woken the cycle after the result
       arrives. So each worker's round takes 2 delay + compute + 2 cycles,
       and the k-th result of worker w arrives at w - 1 + k (2 delay +
       compute + 2) - 1. */
    uint64_t end = mw_run(5, 3, 10, 0, 5, 0, &w);
    cr_assert_eq(end, 4 - 1 + 3 * (2 * 5 + 10 + 2) - 1);
    for (uint32_t t = 1; t < 5; t++)
        cr_assert_eq(w.got[t], 3, "worker %u got %u items", t, w.got[t]);
}

Test(master_worker, uneven_network_and_compute_balance_dynamically)
{
    mw_watch w, again;
    mw_run(9, 10, 20, 0.5, 3, 40, &w);
    uint32_t least = UINT32_MAX, most = 0;
    for (uint32_t t = 1; t < 9; t++) {
        least = w.got[t] < least ? w.got[t] : least;
        most = w.got[t] > most ? w.got[t] : most;
    }
    cr_assert_lt(least, most, "with uneven answers the items are not shared out evenly");
    /* The same seed gives the same assignment. */
    mw_run(9, 10, 20, 0.5, 3, 40, &again);
    cr_assert_arr_eq(w.order, again.order, w.items * sizeof *w.order);
}

Test(master_worker, a_lost_item_is_named)
{
    traffic_rig r;
    rig_tasks(&r, 4, 16);
    insee_value params[] = {value_int(0), value_int(64), value_int(2),
                            value_int(5), value_int(64), value_double(0)};
    rig_create(&r, "master-worker", params);
    causal_rig *c = causal_new(&r, 4, 0, NULL);
    causal_lose_next(c); /* the first item, to task 1 */
    causal_run(c, 1000000);
    cr_assert_not(r.vt->finished(r.self));
    char buf[256];
    cr_assert(r.vt->describe_wait(r.self, buf, sizeof buf));
    cr_assert(strstr(buf, "task 0 (the master) has 5 of 6 results and waits for the result of "
                          "item 0 from task 1"),
              "%s", buf);
    causal_free(c);
    rig_free(&r);
}

Test(master_worker, one_task_is_refused)
{
    traffic_rig r;
    rig_tasks(&r, 1, 16);
    insee_value params[] = {value_int(0), value_int(64), value_int(2),
                            value_int(5), value_int(64), value_double(0)};
    insee_error err = {0};
    cr_assert_null(rig_try(&r, "master-worker", params, &err));
    cr_assert(strstr(err.message, "needs a master and at least one worker"), "%s", err.message);
    rig_free(&r);
}
