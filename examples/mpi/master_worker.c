/* examples/mpi/master_worker.c — a master hands out work items on demand
 * (libinsee-mpi, docs/mpi.md).
 *
 *   insee-mpirun -n N examples/mpi/master-worker.toml -- build/examples/mpi/master_worker [ITEMS [COST [BYTES]]]
 *
 * Rank 0 holds ITEMS items (default 200); every other rank asks for one
 * (tag 1), computes it for COST client units (default 200) and asks again
 * with its result. The master serves requests in the order they arrive
 * (INSEE_MPI_ANY_SOURCE), so a worker whose messages are slowed by the
 * network gets fewer items. Items and answers are BYTES long (default
 * 64: one packet). At the end the master prints how many items each worker did, and
 * an allreduce checks the total. */
#include <insee/mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_ASK = 1, TAG_WORK = 2 };

static int die(void)
{
    fprintf(stderr, "master_worker: %s\n", insee_mpi_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (insee_mpi_init(&argc, &argv) < 0)
        return die();
    long items = argc > 1 ? atol(argv[1]) : 200;
    uint64_t cost = argc > 2 ? strtoull(argv[2], NULL, 10) : 200;
    size_t bytes = argc > 3 ? (size_t)atol(argv[3]) : 64;
    if (bytes < sizeof(int64_t))
        bytes = sizeof(int64_t);
    int rank = insee_mpi_rank(), size = insee_mpi_size();
    char *buf = calloc(1, bytes);
    if (!buf || size < 2) {
        fprintf(stderr, "master_worker: needs 2 ranks and memory\n");
        return 1;
    }
    int64_t mine = 0, next = 0;
    if (rank == 0) {
        /* Every ask gets an item (its number) or -1: stop. */
        for (int stopped = 0; stopped < size - 1;) {
            insee_mpi_status st;
            if (insee_mpi_recv(buf, bytes, INSEE_MPI_ANY_SOURCE, TAG_ASK, &st) < 0)
                return die();
            int64_t give = next < items ? next++ : -1;
            if (give < 0)
                stopped++;
            memcpy(buf, &give, sizeof give);
            if (insee_mpi_send(buf, bytes, st.source, TAG_WORK) < 0)
                return die();
        }
    } else {
        for (;;) {
            int64_t item;
            if (insee_mpi_send(buf, bytes, 0, TAG_ASK) < 0 ||
                insee_mpi_recv(buf, bytes, 0, TAG_WORK, NULL) < 0)
                return die();
            memcpy(&item, buf, sizeof item);
            if (item < 0)
                break;
            mine++;
            if (insee_mpi_compute(cost) < 0)
                return die();
        }
    }
    int64_t total = 0;
    if (insee_mpi_allreduce(&mine, &total, 1, INSEE_MPI_INT64) < 0)
        return die();
    /* The per-worker counts reach the master through a reduce of a vector. */
    int64_t *each = calloc((size_t)size, sizeof *each), *sum = calloc((size_t)size, sizeof *sum);
    if (!each || !sum)
        return 1;
    each[rank] = mine;
    if (insee_mpi_reduce(each, sum, (size_t)size, INSEE_MPI_INT64, 0) < 0)
        return die();
    if (rank == 0) {
        for (int r = 1; r < size; r++)
            printf("worker %d: %lld items\n", r, (long long)sum[r]);
        printf("total %lld of %ld items, done at %llu client units\n", (long long)total, items,
               (unsigned long long)insee_mpi_wtime());
        fflush(stdout);
    }
    free(each);
    free(sum);
    free(buf);
    if (insee_mpi_finalize() < 0)
        return die();
    return total == items ? 0 : 1;
}
