/* examples/mpi/ping_pong.c — ping-pong between ranks 0 and 1 through the
 * simulated network (libinsee-mpi, docs/mpi.md).
 *
 *   insee-mpirun -n 2 examples/mpi/ping-pong.toml -- build/examples/mpi/ping_pong [ROUNDS [BYTES]]
 *
 * Rank 0 sends BYTES (default 64) to rank 1, which sends them back; rank 0
 * prints each round trip in simulated client units. Other ranks, if any,
 * only take part in the final barrier. */
#include <insee/mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int die(void)
{
    fprintf(stderr, "ping_pong: %s\n", insee_mpi_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (insee_mpi_init(&argc, &argv) < 0)
        return die();
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 64;
    char *buf = calloc(1, bytes ? bytes : 1);
    if (!buf || insee_mpi_size() < 2) {
        fprintf(stderr, "ping_pong: needs 2 ranks and memory\n");
        return 1;
    }
    int rank = insee_mpi_rank();
    for (int i = 0; i < rounds && rank < 2; i++) {
        uint64_t start = insee_mpi_wtime();
        if (rank == 0) {
            buf[0] = (char)i;
            if (insee_mpi_send(buf, bytes, 1, 0) < 0 || insee_mpi_recv(buf, bytes, 1, 0, NULL) < 0)
                return die();
            if (bytes && buf[0] != (char)i) {
                fprintf(stderr, "ping_pong: round %d came back as %d\n", i, buf[0]);
                return 1;
            }
            printf("round %d: %llu client units\n", i + 1,
                   (unsigned long long)(insee_mpi_wtime() - start));
        } else if (insee_mpi_recv(buf, bytes, 0, 0, NULL) < 0 ||
                   insee_mpi_send(buf, bytes, 0, 0) < 0) {
            return die();
        }
    }
    fflush(stdout);
    free(buf);
    if (insee_mpi_finalize() < 0)
        return die();
    return 0;
}
