/* examples/mpi/ring.c — a token around a ring of ranks (libinsee-mpi,
 * docs/mpi.md).
 *
 *   insee-mpirun -n N examples/mpi/ring.toml -- build/examples/mpi/ring [COMPUTE [BYTES]]
 *
 * Rank 0 computes COMPUTE client units (default 0) and sends a BYTES-long
 * token (default 8: a counter) to rank 1; every rank receives it from its
 * left neighbour, computes COMPUTE units, adds one and passes it right;
 * rank 0 prints when the token is back and what it counted. The run's
 * completion time has a closed form at zero contention (docs/mpi.md). */
#include <insee/mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(void)
{
    fprintf(stderr, "ring: %s\n", insee_mpi_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (insee_mpi_init(&argc, &argv) < 0)
        return die();
    uint64_t compute = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
    size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 8;
    if (bytes < 8)
        bytes = 8;
    char *token = calloc(1, bytes);
    if (!token)
        return 1;
    int rank = insee_mpi_rank(), size = insee_mpi_size();
    int64_t count = 0;
    if (rank != 0 && insee_mpi_recv(token, bytes, rank - 1, 0, NULL) < 0)
        return die();
    memcpy(&count, token, sizeof count);
    count++;
    memcpy(token, &count, sizeof count);
    if (insee_mpi_compute(compute) < 0 || insee_mpi_send(token, bytes, (rank + 1) % size, 0) < 0)
        return die();
    if (rank == 0) {
        if (insee_mpi_recv(token, bytes, size - 1, 0, NULL) < 0)
            return die();
        memcpy(&count, token, sizeof count);
        printf("token back at %llu client units after %lld ranks\n",
               (unsigned long long)insee_mpi_wtime(), (long long)count);
        fflush(stdout);
    }
    free(token);
    if (insee_mpi_finalize() < 0)
        return die();
    return 0;
}
