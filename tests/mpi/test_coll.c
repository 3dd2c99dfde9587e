/* The collectives' schedules (sdk/mpi/coll.h) run by a small symbolic
 * machine: every rank's plan is played with real bytes over FIFO channels,
 * by coll.h's rules, and the results are checked against each collective's
 * definition (who ends up with which bytes), with message counts against
 * the algorithms' closed forms, nothing left in a channel, no deadlock. */
#include "coll.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <stdint.h>
#include <string.h>

enum { MAX_N = 13 };

typedef struct pmsg {
    size_t len;
    uint8_t data[];
} pmsg;

typedef struct machine {
    int n;
    insee_coll_plan plan[MAX_N];
    uint8_t *work[MAX_N];
    GQueue chan[MAX_N][MAX_N]; /* [from][to] */
    size_t messages, bytes;
} machine;

/* The byte k of rank r's block j: what every test sends. */
static uint8_t datum(int r, int j, size_t k)
{
    return (uint8_t)(r * 31 + j * 7 + (int)k * 3 + 1);
}

static size_t round_end(const insee_coll_plan *p, size_t at)
{
    while (!p->steps[at].round_end)
        at++;
    return at + 1;
}

static void post_sends(machine *m, int r, size_t from, size_t to)
{
    const insee_coll_step *s = m->plan[r].steps;
    for (size_t i = from; i < to; i++) {
        if (s[i].kind != INSEE_COLL_SEND)
            continue;
        size_t len = 0, j = i;
        for (; s[j].more; j++)
            len += s[j].bytes;
        len += s[j].bytes;
        pmsg *msg = g_malloc(sizeof *msg + len);
        msg->len = 0;
        for (; i <= j; i++) {
            memcpy(msg->data + msg->len, m->work[r] + s[i].offset, s[i].bytes);
            msg->len += s[i].bytes;
        }
        i = j;
        g_queue_push_tail(&m->chan[r][s[j].peer], msg);
        m->messages++;
        m->bytes += len;
    }
}

/* Whether every receive of the round has a message waiting. */
static bool receives_ready(machine *m, int r, size_t from, size_t to)
{
    unsigned need[MAX_N] = {0};
    const insee_coll_step *s = m->plan[r].steps;
    for (size_t i = from; i < to; i++)
        if (s[i].kind != INSEE_COLL_SEND && !s[i].more)
            need[s[i].peer]++;
    for (int p = 0; p < m->n; p++)
        if (g_queue_get_length(&m->chan[p][r]) < need[p])
            return false;
    return true;
}

static void take_receives(machine *m, int r, size_t from, size_t to)
{
    const insee_coll_step *s = m->plan[r].steps;
    for (size_t i = from; i < to; i++) {
        if (s[i].kind == INSEE_COLL_SEND)
            continue;
        pmsg *msg = g_queue_pop_head(&m->chan[s[i].peer][r]);
        size_t at = 0;
        for (;; i++) {
            cr_assert_leq(at + s[i].bytes, msg->len, "rank %d: a segment beyond the message", r);
            for (size_t k = 0; k < s[i].bytes; k++)
                m->work[r][s[i].offset + k] = s[i].kind == INSEE_COLL_RECV_REDUCE
                    ? (uint8_t)(m->work[r][s[i].offset + k] + msg->data[at + k])
                    : msg->data[at + k];
            at += s[i].bytes;
            if (!s[i].more)
                break;
        }
        cr_assert_eq(at, msg->len, "rank %d: a message of %zu bytes into %zu", r, msg->len, at);
        g_free(msg);
    }
}

/* Plans for every rank, work buffers filled by `fill`, then played. */
typedef void filler(machine *m, int rank, const insee_coll_args *a);

/* The arguments every rank gives alike, and a V operation's own lengths. */
static void play_v(machine *m, insee_coll_args a, filler *fill, void (*own)(insee_coll_args *a))
{
    *m = (machine){.n = a.size};
    for (int r = 0; r < a.size; r++) {
        a.rank = r;
        if (own)
            own(&a);
        const char *bad = insee_coll_plan_make(&a, &m->plan[r]);
        cr_assert_null(bad, "%s", bad);
        m->work[r] = g_malloc0(m->plan[r].work_bytes + 1);
        fill(m, r, &a);
    }
    size_t cursor[MAX_N] = {0};
    bool posted[MAX_N] = {0};
    for (bool progress = true; progress;) {
        progress = false;
        for (int r = 0; r < m->n; r++) {
            if (cursor[r] == m->plan[r].n)
                continue;
            size_t end = round_end(&m->plan[r], cursor[r]);
            if (!posted[r]) {
                post_sends(m, r, cursor[r], end);
                posted[r] = progress = true;
            }
            if (receives_ready(m, r, cursor[r], end)) {
                take_receives(m, r, cursor[r], end);
                cursor[r] = end;
                posted[r] = false;
                progress = true;
            }
        }
    }
    for (int r = 0; r < m->n; r++) {
        cr_assert_eq(cursor[r], m->plan[r].n, "rank %d of %d waits for ever", r, m->n);
        for (int p = 0; p < m->n; p++)
            cr_assert(g_queue_is_empty(&m->chan[p][r]), "a message from %d to %d never taken", p,
                      r);
    }
}

static void play(machine *m, insee_coll_args a, filler *fill)
{
    play_v(m, a, fill, NULL);
}

static void done(machine *m)
{
    for (int r = 0; r < m->n; r++) {
        insee_coll_plan_clear(&m->plan[r]);
        g_free(m->work[r]);
    }
}

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

static size_t sum_over_ranks(int n, int j, size_t k)
{
    unsigned s = 0;
    for (int r = 0; r < n; r++)
        s += datum(r, j, k);
    return (uint8_t)s;
}

/* Fillers: the rank's own data where the operation's layout wants it. */
static void fill_nothing(machine *m, int r, const insee_coll_args *a)
{
    (void)m, (void)r, (void)a;
}

static void fill_one(machine *m, int r, const insee_coll_args *a)
{
    for (size_t k = 0; k < a->block; k++)
        m->work[r][k] = datum(r, 0, k);
}

static void fill_virtual_block(machine *m, int r, const insee_coll_args *a)
{
    int vr = (r - a->root + a->size) % a->size;
    for (size_t k = 0; k < a->block; k++)
        m->work[r][(size_t)vr * a->block + k] = datum(r, 0, k);
}

static void fill_root_blocks(machine *m, int r, const insee_coll_args *a)
{
    for (int i = 0; r == a->root && i < a->size; i++)
        for (size_t k = 0; k < a->block; k++)
            m->work[r][(size_t)i * a->block + k] = datum(r, (i + a->root) % a->size, k);
}

static void fill_own_block(machine *m, int r, const insee_coll_args *a)
{
    for (size_t k = 0; k < a->block; k++)
        m->work[r][(size_t)r * a->block + k] = datum(r, 0, k);
}

static void fill_send_blocks(machine *m, int r, const insee_coll_args *a)
{
    for (int j = 0; j < a->size; j++)
        for (size_t k = 0; k < a->block; k++)
            m->work[r][(size_t)j * a->block + k] = datum(r, j, k);
}

static void fill_bruck(machine *m, int r, const insee_coll_args *a)
{
    for (int i = 0; i < a->size; i++)
        for (size_t k = 0; k < a->block; k++)
            m->work[r][(size_t)i * a->block + k] = datum(r, (r + i) % a->size, k);
}

static void fill_reduce_scatter(machine *m, int r, const insee_coll_args *a)
{
    fill_send_blocks(m, r, a);
    memcpy(m->work[r] + (size_t)a->size * a->block, m->work[r] + (size_t)r * a->block, a->block);
}

static const size_t block = 3;

static insee_coll_args args(insee_coll_op op, int n, int root)
{
    return (insee_coll_args){.op = op, .size = n, .root = root, .block = block};
}

/* Every size up to MAX_N, each with roots 0, n/2 and n-1. */
#define FOR_SIZES_AND_ROOTS(n, root)                                                          \
    for (int n = 1; n <= MAX_N; n++)                                                          \
        for (int root_i = 0, root = 0; root_i < 3; root = ++root_i == 1 ? n / 2 : n - 1)

Test(coll, barrier_is_ceil_log2_rounds_of_one_message_per_rank)
{
    for (int n = 1; n <= MAX_N; n++) {
        machine m;
        play(&m, args(INSEE_COLL_BARRIER, n, 0), fill_nothing);
        cr_expect_eq(m.messages, (size_t)(n * ceil_log2(n)), "n=%d", n);
        cr_expect_eq(m.bytes, 0);
        done(&m);
    }
}

Test(coll, bcast_gives_everyone_roots_bytes_in_n_minus_1_messages)
{
    FOR_SIZES_AND_ROOTS(n, root) {
        machine m;
        play(&m, args(INSEE_COLL_BCAST, n, root), fill_one);
        cr_expect_eq(m.messages, (size_t)(n - 1));
        for (int r = 0; r < n; r++)
            for (size_t k = 0; k < block; k++)
                cr_expect_eq(m.work[r][k], datum(root, 0, k), "n=%d root=%d rank %d", n, root, r);
        done(&m);
    }
}

Test(coll, reduce_sums_every_ranks_bytes_at_root)
{
    FOR_SIZES_AND_ROOTS(n, root) {
        machine m;
        play(&m, args(INSEE_COLL_REDUCE, n, root), fill_one);
        cr_expect_eq(m.messages, (size_t)(n - 1));
        for (size_t k = 0; k < block; k++)
            cr_expect_eq(m.work[root][k], sum_over_ranks(n, 0, k), "n=%d root=%d", n, root);
        done(&m);
    }
}

Test(coll, both_allreduces_give_every_rank_the_sum)
{
    for (int n = 1; n <= MAX_N; n++) {
        int p = 1 << (ceil_log2(n + 1) - 1), rem = n - p;
        struct {
            insee_coll_op op;
            size_t messages;
        } algos[] = {{INSEE_COLL_ALLREDUCE_TREE, 2 * (size_t)(n - 1)},
                     {INSEE_COLL_ALLREDUCE_DOUBLING,
                      (size_t)p * (size_t)ceil_log2(p) + 2 * (size_t)rem}};
        for (size_t i = 0; i < 2; i++) {
            machine m;
            play(&m, args(algos[i].op, n, 0), fill_one);
            cr_expect_eq(m.messages, algos[i].messages, "algorithm %zu, n=%d", i, n);
            for (int r = 0; r < n; r++)
                for (size_t k = 0; k < block; k++)
                    cr_expect_eq(m.work[r][k], sum_over_ranks(n, 0, k), "n=%d rank %d", n, r);
            done(&m);
        }
    }
}

Test(coll, gather_brings_every_block_to_root_in_virtual_order)
{
    FOR_SIZES_AND_ROOTS(n, root) {
        machine m;
        play(&m, args(INSEE_COLL_GATHER, n, root), fill_virtual_block);
        cr_expect_eq(m.messages, (size_t)(n - 1));
        for (int i = 0; i < n; i++)
            for (size_t k = 0; k < block; k++)
                cr_expect_eq(m.work[root][(size_t)i * block + k], datum((i + root) % n, 0, k),
                             "n=%d root=%d block %d", n, root, i);
        done(&m);
    }
}

Test(coll, scatter_hands_each_rank_its_block)
{
    FOR_SIZES_AND_ROOTS(n, root) {
        machine m;
        play(&m, args(INSEE_COLL_SCATTER, n, root), fill_root_blocks);
        cr_expect_eq(m.messages, (size_t)(n - 1));
        for (int r = 0; r < n; r++) {
            int vr = (r - root + n) % n;
            for (size_t k = 0; k < block; k++)
                cr_expect_eq(m.work[r][(size_t)vr * block + k], datum(root, r, k),
                             "n=%d root=%d rank %d", n, root, r);
        }
        done(&m);
    }
}

Test(coll, allgather_ring_gives_everyone_every_block)
{
    for (int n = 1; n <= MAX_N; n++) {
        machine m;
        play(&m, args(INSEE_COLL_ALLGATHER_RING, n, 0), fill_own_block);
        cr_expect_eq(m.messages, (size_t)(n * (n - 1)));
        for (int r = 0; r < n; r++)
            for (int j = 0; j < n; j++)
                for (size_t k = 0; k < block; k++)
                    cr_expect_eq(m.work[r][(size_t)j * block + k], datum(j, 0, k));
        done(&m);
    }
}

Test(coll, alltoall_pairwise_and_bruck_transpose_the_blocks)
{
    for (int n = 1; n <= MAX_N; n++) {
        machine m;
        play(&m, args(INSEE_COLL_ALLTOALL_PAIRWISE, n, 0), fill_send_blocks);
        cr_expect_eq(m.messages, (size_t)(n * (n - 1)));
        cr_expect_eq(m.bytes, (size_t)(n * (n - 1)) * block);
        for (int r = 0; r < n; r++)
            for (int j = 0; j < n; j++)
                for (size_t k = 0; j != r && k < block; k++)
                    cr_expect_eq(m.work[r][(size_t)(n + j) * block + k], datum(j, r, k));
        done(&m);

        play(&m, args(INSEE_COLL_ALLTOALL_BRUCK, n, 0), fill_bruck);
        cr_expect_eq(m.messages, (size_t)(n * ceil_log2(n)), "n=%d", n);
        for (int r = 0; r < n; r++)
            for (int j = 0; j < n; j++)
                for (size_t k = 0; k < block; k++)
                    cr_expect_eq(m.work[r][(size_t)((r - j + n) % n) * block + k], datum(j, r, k),
                                 "n=%d rank %d from %d", n, r, j);
        done(&m);
    }
}

Test(coll, reduce_scatter_leaves_each_rank_the_sum_of_its_block)
{
    for (int n = 1; n <= MAX_N; n++) {
        machine m;
        play(&m, args(INSEE_COLL_REDUCE_SCATTER_PAIRWISE, n, 0), fill_reduce_scatter);
        cr_expect_eq(m.messages, (size_t)(n * (n - 1)));
        for (int r = 0; r < n; r++)
            for (size_t k = 0; k < block; k++)
                cr_expect_eq(m.work[r][(size_t)n * block + k], sum_over_ranks(n, r, k));
        done(&m);
    }
}

Test(coll, scan_leaves_each_rank_the_sum_up_to_it)
{
    for (int n = 1; n <= MAX_N; n++) {
        machine m;
        play(&m, args(INSEE_COLL_SCAN_LINEAR, n, 0), fill_one);
        cr_expect_eq(m.messages, (size_t)(n - 1));
        for (int r = 0; r < n; r++)
            for (size_t k = 0; k < block; k++)
                cr_expect_eq(m.work[r][k], sum_over_ranks(r + 1, 0, k), "n=%d rank %d", n, r);
        done(&m);
    }
}

/* The V operations: rank s sends rank d vlen(s, d) bytes (0 to 3); each
   rank packs its send blocks, then its receive blocks, in rank order. */
static size_t vlen(int s, int d)
{
    return (size_t)((s + 2 * d) % 4);
}

typedef struct vlayout {
    size_t send_bytes[MAX_N], send_at[MAX_N], recv_bytes[MAX_N], recv_at[MAX_N];
} vlayout;

static vlayout layouts[MAX_N];

/* Rank r's layout when it receives from_len(j, r) bytes from rank j. */
static void make_layouts(int n, size_t (*from_len)(int j, int r))
{
    for (int r = 0; r < n; r++) {
        vlayout *l = &layouts[r];
        size_t at = 0;
        for (int j = 0; j < n; j++) {
            l->send_bytes[j] = vlen(r, j);
            l->send_at[j] = at;
            at += l->send_bytes[j];
        }
        for (int j = 0; j < n; j++) {
            l->recv_bytes[j] = from_len(j, r);
            l->recv_at[j] = at;
            at += l->recv_bytes[j];
        }
    }
}

static size_t to_me(int j, int r)
{
    return vlen(j, r);
}

/* allgatherv: rank j contributes vlen(j, 0) bytes to everyone. */
static size_t contribution(int j, int r)
{
    (void)r;
    return vlen(j, 0);
}

static void own_layout(insee_coll_args *a)
{
    vlayout *l = &layouts[a->rank];
    a->send_bytes = l->send_bytes;
    a->send_offsets = l->send_at;
    a->recv_bytes = l->recv_bytes;
    a->recv_offsets = l->recv_at;
}

/* gatherv/scatterv: a rank's own block, at 0: vlen(rank, 0) bytes to
   root, vlen(root, rank) from it. */
static void own_block_length(insee_coll_args *a)
{
    own_layout(a);
    a->block = a->op == INSEE_COLL_GATHERV_LINEAR ? vlen(a->rank, 0) : vlen(a->root, a->rank);
}

static void fill_v_send(machine *m, int r, const insee_coll_args *a)
{
    for (int j = 0; j < a->size; j++)
        for (size_t k = 0; k < layouts[r].send_bytes[j]; k++)
            m->work[r][layouts[r].send_at[j] + k] = datum(r, j, k);
}

static void fill_v_root_send(machine *m, int r, const insee_coll_args *a)
{
    if (r == a->root)
        fill_v_send(m, r, a);
}

static void fill_v_own(machine *m, int r, const insee_coll_args *a)
{
    size_t at = a->op == INSEE_COLL_GATHERV_LINEAR && r != a->root ? 0 : layouts[r].recv_at[r];
    for (size_t k = 0; k < vlen(r, 0); k++)
        m->work[r][at + k] = datum(r, 0, k);
}

static void expect_received(machine *m, int r, int j, int src_block)
{
    for (size_t k = 0; k < layouts[r].recv_bytes[j]; k++)
        cr_expect_eq(m->work[r][layouts[r].recv_at[j] + k], datum(j, src_block, k),
                     "n=%d rank %d from %d", m->n, r, j);
}

Test(coll, alltoallv_moves_each_pairs_own_length)
{
    for (int n = 1; n <= MAX_N; n++) {
        machine m;
        make_layouts(n, to_me);
        play_v(&m, args(INSEE_COLL_ALLTOALLV_PAIRWISE, n, 0), fill_v_send, own_layout);
        cr_expect_eq(m.messages, (size_t)(n * (n - 1)));
        for (int r = 0; r < n; r++)
            for (int j = 0; j < n; j++)
                if (j != r)
                    expect_received(&m, r, j, r);
        done(&m);
    }
}

Test(coll, gatherv_and_scatterv_move_each_ranks_own_length)
{
    FOR_SIZES_AND_ROOTS(n, root) {
        machine m;
        make_layouts(n, contribution);
        play_v(&m, args(INSEE_COLL_GATHERV_LINEAR, n, root), fill_v_own, own_block_length);
        cr_expect_eq(m.messages, (size_t)(n - 1));
        for (int j = 0; j < n; j++)
            if (j != root)
                expect_received(&m, root, j, 0);
        done(&m);

        make_layouts(n, to_me);
        play_v(&m, args(INSEE_COLL_SCATTERV_LINEAR, n, root), fill_v_root_send,
               own_block_length);
        cr_expect_eq(m.messages, (size_t)(n - 1));
        for (int r = 0; r < n; r++)
            for (size_t k = 0; r != root && k < vlen(root, r); k++)
                cr_expect_eq(m.work[r][k], datum(root, r, k), "n=%d root=%d rank %d", n, root, r);
        done(&m);
    }
}

Test(coll, allgatherv_ring_gives_everyone_every_contribution)
{
    for (int n = 1; n <= MAX_N; n++) {
        machine m;
        make_layouts(n, contribution);
        play_v(&m, args(INSEE_COLL_ALLGATHERV_RING, n, 0), fill_v_own, own_layout);
        cr_expect_eq(m.messages, (size_t)(n * (n - 1)));
        for (int r = 0; r < n; r++)
            for (int j = 0; j < n; j++)
                expect_received(&m, r, j, 0);
        done(&m);
    }
}

Test(coll, bad_arguments_are_refused_with_a_reason)
{
    insee_coll_plan p = {0};
    insee_coll_args a = args(INSEE_COLL_BCAST, 4, 4);
    cr_expect_str_eq(insee_coll_plan_make(&a, &p), "the root is outside the communicator");
    a = args(INSEE_COLL_BCAST, 0, 0);
    cr_expect_str_eq(insee_coll_plan_make(&a, &p), "a communicator has at least one rank");
    a = args(INSEE_COLL_ALLTOALLV_PAIRWISE, 4, 0);
    cr_expect_str_eq(insee_coll_plan_make(&a, &p),
                     "a V collective needs its per-rank lengths and offsets");
    a = args(INSEE_COLL_GATHERV_LINEAR, 4, 0);
    a.rank = 1;
    cr_expect_null(insee_coll_plan_make(&a, &p), "lengths are read at root only");
    cr_expect_eq(p.n, 1);
    insee_coll_plan_clear(&p);
}
