/* sdk/mpi/coll.c — the collectives' schedules (contract in coll.h).
 *
 * Each operation appends this rank's steps to the plan; the binomial trees
 * work in virtual ranks (vr = rank - root mod n) and map back with real(). */
#include "coll.h"

#include <stdlib.h>

typedef struct build {
    const insee_coll_args *a;
    insee_coll_plan *plan;
    int n, r;
    size_t b;
    bool oom;
} build;

static int mod(int x, int n)
{
    return ((x % n) + n) % n;
}

static int real(const build *c, int vr)
{
    return mod(vr + c->a->root, c->n);
}

static void step(build *c, insee_coll_kind kind, int peer, size_t offset, size_t bytes, bool more)
{
    insee_coll_plan *p = c->plan;
    if (c->oom)
        return;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        insee_coll_step *s = realloc(p->steps, cap * sizeof *s);
        if (!s) {
            c->oom = true;
            return;
        }
        p->steps = s;
        p->cap = cap;
    }
    p->steps[p->n++] = (insee_coll_step){.kind = kind, .peer = peer, .offset = offset,
                                         .bytes = bytes, .more = more};
}

static void end_round(build *c)
{
    if (!c->oom && c->plan->n)
        c->plan->steps[c->plan->n - 1].round_end = true;
}

static void send(build *c, int peer, size_t offset, size_t bytes)
{
    step(c, INSEE_COLL_SEND, peer, offset, bytes, false);
}

static void recv(build *c, int peer, size_t offset, size_t bytes)
{
    step(c, INSEE_COLL_RECV, peer, offset, bytes, false);
}

static void recv_reduce(build *c, int peer, size_t offset, size_t bytes)
{
    step(c, INSEE_COLL_RECV_REDUCE, peer, offset, bytes, false);
}

/* One round: send to `to`, receive from `from`. */
static void exchange(build *c, int to, size_t send_at, size_t send_bytes, int from,
                     size_t recv_at, size_t recv_bytes)
{
    send(c, to, send_at, send_bytes);
    recv(c, from, recv_at, recv_bytes);
    end_round(c);
}

static void barrier(build *c)
{
    for (int k = 1; k < c->n; k <<= 1)
        exchange(c, mod(c->r + k, c->n), 0, 0, mod(c->r - k, c->n), 0, 0);
}

/* The lowest set bit of vr (the subtree a binomial parent hands it), or
   the first power of two >= n at the root. */
static int subtree_mask(const build *c, int vr)
{
    int mask = 1;
    while (mask < c->n && !(vr & mask))
        mask <<= 1;
    return mask;
}

static void bcast(build *c)
{
    int vr = mod(c->r - c->a->root, c->n), mask = subtree_mask(c, vr);
    if (vr) {
        recv(c, real(c, vr - mask), 0, c->b);
        end_round(c);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < c->n)
            send(c, real(c, vr + mask), 0, c->b);
    end_round(c);
}

static void reduce(build *c)
{
    int vr = mod(c->r - c->a->root, c->n);
    for (int mask = 1; mask < c->n; mask <<= 1) {
        if (vr & mask) {
            send(c, real(c, vr - mask), 0, c->b);
            end_round(c);
            return;
        }
        if (vr + mask < c->n) {
            recv_reduce(c, real(c, vr + mask), 0, c->b);
            end_round(c);
        }
    }
}

static void allreduce_tree(build *c)
{
    insee_coll_args at0 = *c->a;
    at0.root = 0;
    build sub = *c;
    sub.a = &at0;
    reduce(&sub);
    bcast(&sub);
    c->oom = sub.oom;
}

/* MPICH's recursive doubling: the first 2 rem ranks fold into the odd ones,
   p = n - rem ranks exchange in log2 p rounds, the even ones get the result. */
static void allreduce_doubling(build *c)
{
    int p = 1;
    while (p * 2 <= c->n)
        p *= 2;
    int rem = c->n - p, nr;
    if (c->r < 2 * rem) {
        if (c->r % 2 == 0) {
            send(c, c->r + 1, 0, c->b);
            end_round(c);
            recv(c, c->r + 1, 0, c->b);
            end_round(c);
            return;
        }
        recv_reduce(c, c->r - 1, 0, c->b);
        end_round(c);
        nr = c->r / 2;
    } else {
        nr = c->r - rem;
    }
    for (int mask = 1; mask < p; mask <<= 1) {
        int nd = nr ^ mask, peer = nd < rem ? 2 * nd + 1 : nd + rem;
        send(c, peer, 0, c->b);
        recv_reduce(c, peer, 0, c->b);
        end_round(c);
    }
    if (c->r < 2 * rem) {
        send(c, c->r - 1, 0, c->b);
        end_round(c);
    }
}

/* Blocks [vr, vr + min(mask, n - vr)) of the virtual order, in bytes. */
static size_t span(const build *c, int vr, int mask)
{
    int count = c->n - vr < mask ? c->n - vr : mask;
    return (size_t)count * c->b;
}

static void gather(build *c)
{
    int vr = mod(c->r - c->a->root, c->n);
    for (int mask = 1; mask < c->n; mask <<= 1) {
        if (vr & mask) {
            send(c, real(c, vr - mask), (size_t)vr * c->b, span(c, vr, mask));
            end_round(c);
            return;
        }
        if (vr + mask < c->n) {
            recv(c, real(c, vr + mask), (size_t)(vr + mask) * c->b, span(c, vr + mask, mask));
            end_round(c);
        }
    }
}

static void scatter(build *c)
{
    int vr = mod(c->r - c->a->root, c->n), mask = subtree_mask(c, vr);
    if (vr) {
        recv(c, real(c, vr - mask), (size_t)vr * c->b, span(c, vr, mask));
        end_round(c);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < c->n)
            send(c, real(c, vr + mask), (size_t)(vr + mask) * c->b, span(c, vr + mask, mask));
    end_round(c);
}

/* Block j of a ring: fixed-size, or the V lengths. */
static size_t ring_at(const build *c, int j)
{
    return c->a->op == INSEE_COLL_ALLGATHERV_RING ? c->a->recv_offsets[j] : (size_t)j * c->b;
}

static size_t ring_bytes(const build *c, int j)
{
    return c->a->op == INSEE_COLL_ALLGATHERV_RING ? c->a->recv_bytes[j] : c->b;
}

static void allgather_ring(build *c)
{
    for (int k = 0; k + 1 < c->n; k++) {
        int out = mod(c->r - k, c->n), in = mod(c->r - k - 1, c->n);
        exchange(c, mod(c->r + 1, c->n), ring_at(c, out), ring_bytes(c, out), mod(c->r - 1, c->n),
                 ring_at(c, in), ring_bytes(c, in));
    }
}

static void alltoall_pairwise(build *c)
{
    size_t recv_base = (size_t)c->n * c->b;
    for (int k = 1; k < c->n; k++) {
        int to = mod(c->r + k, c->n), from = mod(c->r - k, c->n);
        exchange(c, to, (size_t)to * c->b, c->b, from, recv_base + (size_t)from * c->b, c->b);
    }
}

static void alltoallv_pairwise(build *c)
{
    const insee_coll_args *a = c->a;
    for (int k = 1; k < c->n; k++) {
        int to = mod(c->r + k, c->n), from = mod(c->r - k, c->n);
        exchange(c, to, a->send_offsets[to], a->send_bytes[to], from, a->recv_offsets[from],
                 a->recv_bytes[from]);
    }
}

/* The blocks whose index has bit k, as segments of one message. */
static void bruck_blocks(build *c, insee_coll_kind kind, int peer, int k)
{
    int last = 0;
    for (int i = 1; i < c->n; i++)
        if (i & k)
            last = i;
    for (int i = 1; i < c->n; i++)
        if (i & k)
            step(c, kind, peer, (size_t)i * c->b, c->b, i != last);
}

static void alltoall_bruck(build *c)
{
    for (int k = 1; k < c->n; k <<= 1) {
        bruck_blocks(c, INSEE_COLL_SEND, mod(c->r + k, c->n), k);
        bruck_blocks(c, INSEE_COLL_RECV, mod(c->r - k, c->n), k);
        end_round(c);
    }
}

static void reduce_scatter_pairwise(build *c)
{
    size_t acc = (size_t)c->n * c->b;
    for (int k = 1; k < c->n; k++) {
        int to = mod(c->r + k, c->n);
        send(c, to, (size_t)to * c->b, c->b);
        recv_reduce(c, mod(c->r - k, c->n), acc, c->b);
        end_round(c);
    }
}

/* Root exchanges with every rank in rank order, receiving (gatherv) or
   sending (scatterv) its per-rank lengths; the others do the opposite once. */
static void linear(build *c, insee_coll_kind at_root)
{
    const insee_coll_args *a = c->a;
    bool gathers = at_root == INSEE_COLL_RECV;
    if (c->r != a->root) {
        step(c, gathers ? INSEE_COLL_SEND : INSEE_COLL_RECV, a->root, 0, c->b, false);
        end_round(c);
        return;
    }
    const size_t *at = gathers ? a->recv_offsets : a->send_offsets,
                 *bytes = gathers ? a->recv_bytes : a->send_bytes;
    for (int j = 0; j < c->n; j++)
        if (j != a->root)
            step(c, at_root, j, at[j], bytes[j], false);
    end_round(c);
}

static void scan_linear(build *c)
{
    if (c->r > 0) {
        recv_reduce(c, c->r - 1, 0, c->b);
        end_round(c);
    }
    if (c->r + 1 < c->n) {
        send(c, c->r + 1, 0, c->b);
        end_round(c);
    }
}

static void gatherv_linear(build *c)
{
    linear(c, INSEE_COLL_RECV);
}

static void scatterv_linear(build *c)
{
    linear(c, INSEE_COLL_SEND);
}

static size_t max_end(const size_t *offsets, const size_t *bytes, int n)
{
    size_t end = 0;
    for (int j = 0; offsets && j < n; j++)
        if (offsets[j] + bytes[j] > end)
            end = offsets[j] + bytes[j];
    return end;
}

/* The work buffer's size, once the arguments are known to be good. */
static size_t work_bytes(const insee_coll_args *a)
{
    size_t n = (size_t)a->size, b = a->block;
    switch (a->op) {
    case INSEE_COLL_BARRIER:
        return 0;
    case INSEE_COLL_BCAST:
    case INSEE_COLL_REDUCE:
    case INSEE_COLL_ALLREDUCE_TREE:
    case INSEE_COLL_ALLREDUCE_DOUBLING:
    case INSEE_COLL_SCAN_LINEAR:
        return b;
    case INSEE_COLL_GATHER:
    case INSEE_COLL_SCATTER:
    case INSEE_COLL_ALLGATHER_RING:
    case INSEE_COLL_ALLTOALL_BRUCK:
        return n * b;
    case INSEE_COLL_ALLTOALL_PAIRWISE:
        return 2 * n * b;
    case INSEE_COLL_REDUCE_SCATTER_PAIRWISE:
        return (n + 1) * b;
    case INSEE_COLL_ALLTOALLV_PAIRWISE: {
        size_t s = max_end(a->send_offsets, a->send_bytes, a->size),
               r = max_end(a->recv_offsets, a->recv_bytes, a->size);
        return s > r ? s : r;
    }
    case INSEE_COLL_GATHERV_LINEAR:
        return a->rank == a->root ? max_end(a->recv_offsets, a->recv_bytes, a->size) : b;
    case INSEE_COLL_SCATTERV_LINEAR:
        return a->rank == a->root ? max_end(a->send_offsets, a->send_bytes, a->size) : b;
    case INSEE_COLL_ALLGATHERV_RING:
        return max_end(a->recv_offsets, a->recv_bytes, a->size);
    }
    return 0;
}

/* Which lengths an operation reads at this rank: 1 send, 2 receive. */
static unsigned lengths_needed(const insee_coll_args *a)
{
    bool root = a->rank == a->root;
    switch (a->op) {
    case INSEE_COLL_ALLTOALLV_PAIRWISE:
        return 3;
    case INSEE_COLL_GATHERV_LINEAR:
        return root ? 2 : 0;
    case INSEE_COLL_SCATTERV_LINEAR:
        return root ? 1 : 0;
    case INSEE_COLL_ALLGATHERV_RING:
        return 2;
    default:
        return 0;
    }
}

static const char *check(const insee_coll_args *a)
{
    if ((int)a->op < (int)INSEE_COLL_BARRIER || (int)a->op > (int)INSEE_COLL_SCAN_LINEAR)
        return "unknown collective operation";
    if (a->size < 1)
        return "a communicator has at least one rank";
    if (a->rank < 0 || a->rank >= a->size)
        return "the rank is outside the communicator";
    if (a->root < 0 || a->root >= a->size)
        return "the root is outside the communicator";
    unsigned need = lengths_needed(a);
    if (((need & 1) && (!a->send_bytes || !a->send_offsets)) ||
        ((need & 2) && (!a->recv_bytes || !a->recv_offsets)))
        return "a V collective needs its per-rank lengths and offsets";
    return NULL;
}

void insee_coll_plan_clear(insee_coll_plan *plan)
{
    free(plan->steps);
    *plan = (insee_coll_plan){0};
}

const char *insee_coll_plan_make(const insee_coll_args *a, insee_coll_plan *plan)
{
    static void (*const ops[])(build *) = {
        [INSEE_COLL_BARRIER] = barrier,
        [INSEE_COLL_BCAST] = bcast,
        [INSEE_COLL_REDUCE] = reduce,
        [INSEE_COLL_ALLREDUCE_TREE] = allreduce_tree,
        [INSEE_COLL_ALLREDUCE_DOUBLING] = allreduce_doubling,
        [INSEE_COLL_GATHER] = gather,
        [INSEE_COLL_SCATTER] = scatter,
        [INSEE_COLL_ALLGATHER_RING] = allgather_ring,
        [INSEE_COLL_ALLTOALL_PAIRWISE] = alltoall_pairwise,
        [INSEE_COLL_ALLTOALL_BRUCK] = alltoall_bruck,
        [INSEE_COLL_ALLTOALLV_PAIRWISE] = alltoallv_pairwise,
        [INSEE_COLL_REDUCE_SCATTER_PAIRWISE] = reduce_scatter_pairwise,
        [INSEE_COLL_GATHERV_LINEAR] = gatherv_linear,
        [INSEE_COLL_SCATTERV_LINEAR] = scatterv_linear,
        [INSEE_COLL_ALLGATHERV_RING] = allgather_ring,
        [INSEE_COLL_SCAN_LINEAR] = scan_linear,
    };
    plan->n = 0;
    plan->work_bytes = 0;
    const char *bad = check(a);
    if (bad)
        return bad;
    build c = {.a = a, .plan = plan, .n = a->size, .r = a->rank, .b = a->block};
    ops[a->op](&c);
    if (c.oom) {
        insee_coll_plan_clear(plan);
        return "out of memory for a collective's schedule";
    }
    plan->work_bytes = work_bytes(a);
    return NULL;
}
