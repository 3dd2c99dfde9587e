/* sdk/mpi/coll.h — the collectives' schedules: for one call of one
 * collective algorithm, the messages one rank sends and receives, in the
 * order it posts them, grouped in rounds, and where each message's bytes lie
 * in the collective's work buffer.
 *
 * One source for every user of the algorithms: libinsee-mpi runs a schedule
 * (moving the data), libinsee-trace writes the messages of a collective it
 * intercepts in a real MPI program as FSIN trace events, and the tests check
 * both against closed forms. So a program compiled with insee-mpicc and the
 * same program traced under Open MPI give the same message set.
 *
 * Contract
 *  - Ranks are the communicator's (0 .. size-1); the caller maps them to
 *    world ranks or network nodes.
 *  - How to run a plan: the steps of a round are posted in order (a send is
 *    eager: its payload is copied from the work buffer when it is posted; a
 *    receive is posted), then the round completes once every receive of it
 *    has arrived, and the RECV_REDUCE steps combine what they received into
 *    the work buffer, in step order. A message may have several segments:
 *    consecutive steps of one kind and peer, `more` set on all but the last,
 *    are one message whose payload is the segments one after the other
 *    (a RECV_REDUCE message has one segment). Two messages of one pair of
 *    ranks in one collective are received in the order they were sent.
 *  - Work buffer: its layout per operation is given at insee_coll_op; the
 *    caller copies its arguments in before the first step and the results
 *    out after the last. plan.work_bytes is its size.
 *  - Memory: insee_coll_plan_make() fills a caller-owned plan (zero it
 *    first or reuse one); insee_coll_plan_clear() frees its steps. Pure: no
 *    I/O, no global state, safe from any thread.
 */
#ifndef INSEE_SDK_COLL_H
#define INSEE_SDK_COLL_H

#include <stdbool.h>
#include <stddef.h>

/* b = args.block bytes; n = size; vr = (rank - root + n) % n. */
typedef enum insee_coll_op {
    /* Dissemination: round k sends 0 bytes to rank + 2^k and receives from
       rank - 2^k; ceil(log2 n) rounds. Work: none. */
    INSEE_COLL_BARRIER,
    /* Binomial tree from root: receive from the parent, then send to the
       children, farthest first. Work: [b]. */
    INSEE_COLL_BCAST,
    /* Binomial tree towards root: receive-and-combine each child's partial
       result, nearest first (one round each), then send to the parent.
       Work: [b], the rank's own data in, the result at root out. */
    INSEE_COLL_REDUCE,
    /* REDUCE to rank 0, then BCAST from rank 0 (args.root ignored). Work: [b]. */
    INSEE_COLL_ALLREDUCE_TREE,
    /* Recursive doubling; for n not a power of two the first 2(n - p)
       ranks (p the largest power of two <= n) fold pairwise first (odd
       combines even's data) and the even ones get the result at the end.
       Work: [b]. */
    INSEE_COLL_ALLREDUCE_DOUBLING,
    /* Binomial tree towards root. Work: n blocks of b in virtual-rank
       order: block i is rank (i + root) % n's; the rank's own data at block
       vr in, every block at root out. */
    INSEE_COLL_GATHER,
    /* Binomial tree from root, the reverse of GATHER. Work: as GATHER;
       every block at root in, the rank's own at block vr out. */
    INSEE_COLL_SCATTER,
    /* Ring: in round k = 0 .. n-2 send block (rank - k) % n to rank + 1
       and receive block (rank - k - 1) % n from rank - 1. Work: n blocks in
       rank order, the rank's own at block `rank` in. */
    INSEE_COLL_ALLGATHER_RING,
    /* Pairwise exchange: in round k = 1 .. n-1 send block (rank + k) % n to
       rank + k and receive from rank - k. Work: n send blocks in rank
       order, then n receive blocks in rank order (the caller copies its own
       send block to its own receive block). */
    INSEE_COLL_ALLTOALL_PAIRWISE,
    /* Bruck: for k = 1, 2, 4 .. < n, send to rank + k the blocks whose index
       has bit k (one message of several segments) and receive the same
       blocks from rank - k in their place. Work: n blocks; in, block i =
       the send block for rank (rank + i) % n; out, the block from rank j
       is block (rank - j + n) % n. */
    INSEE_COLL_ALLTOALL_BRUCK,
    /* Pairwise exchange with per-rank lengths: round k sends
       send_bytes[rank + k] at send_offsets[rank + k] to rank + k and
       receives recv_bytes[rank - k] at recv_offsets[rank - k]. Work: the
       caller's layout, work_bytes = the end of the farthest block; the
       caller copies its own block. */
    INSEE_COLL_ALLTOALLV_PAIRWISE,
    /* Pairwise exchange: round k = 1 .. n-1 sends block (rank + k) % n to
       rank + k and receives-and-combines rank - k's block `rank`. Work: n
       blocks of the rank's data in rank order, then the result block at
       n*b (the caller copies its own block `rank` there first). */
    INSEE_COLL_REDUCE_SCATTER_PAIRWISE,
    /* Linear: every rank but root sends its b bytes (offset 0) to root;
       root receives recv_bytes[r] at recv_offsets[r] from each rank r in
       rank order (the lengths are needed at root only). Work: the caller's
       layout (root copies its own block). */
    INSEE_COLL_GATHERV_LINEAR,
    /* Linear, the reverse of GATHERV: root sends send_bytes[r] at
       send_offsets[r] to each rank r in rank order; every other rank
       receives b bytes at offset 0. */
    INSEE_COLL_SCATTERV_LINEAR,
    /* Ring as ALLGATHER_RING, block j being recv_bytes[j] at
       recv_offsets[j]. */
    INSEE_COLL_ALLGATHERV_RING,
    /* Linear chain (inclusive prefix): receive-and-combine rank - 1's
       prefix, then send this rank's to rank + 1. Work: [b], the rank's
       own data in, the combination of ranks 0 .. rank out. */
    INSEE_COLL_SCAN_LINEAR,
} insee_coll_op;

typedef enum insee_coll_kind {
    INSEE_COLL_SEND,
    INSEE_COLL_RECV,
    INSEE_COLL_RECV_REDUCE, /* receive, then combine into the work buffer */
} insee_coll_kind;

typedef struct insee_coll_step {
    insee_coll_kind kind;
    int peer;
    size_t offset, bytes; /* the segment in the work buffer */
    bool more;            /* the next step is this message's next segment */
    bool round_end;       /* the round ends after this step */
} insee_coll_step;

typedef struct insee_coll_args {
    insee_coll_op op;
    int size, rank, root; /* root for BCAST, REDUCE, GATHER, SCATTER */
    size_t block;         /* b: bytes per block (per rank) */
    /* The V operations only: size entries each, bytes in the work buffer
       (those an operation does not read may be NULL) */
    const size_t *send_bytes, *send_offsets, *recv_bytes, *recv_offsets;
} insee_coll_args;

typedef struct insee_coll_plan {
    insee_coll_step *steps;
    size_t n, cap;
    size_t work_bytes;
} insee_coll_plan;

/* This rank's schedule of `a`, replacing what `plan` held. NULL, or a
   sentence saying what is wrong (bad size, rank or root, no lengths for
   a V operation, out of memory); the plan is then empty. */
const char *insee_coll_plan_make(const insee_coll_args *a, insee_coll_plan *plan);
void insee_coll_plan_clear(insee_coll_plan *plan);

#endif
