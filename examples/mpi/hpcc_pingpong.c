/* examples/mpi/hpcc_pingpong.c — HPCC's ping-pong kernel as a plain MPI
 * program: it compiles with a real mpicc as well as with insee-mpicc
 * (docs/mpi.md, "Your MPI program on insee").
 *
 *   insee-mpicc examples/mpi/hpcc_pingpong.c -o hpcc_pingpong
 *   insee-mpirun -n 4 examples/mpi/hpcc-pingpong.toml -- ./hpcc_pingpong [ROUNDS [LAT_BYTES [BW_BYTES]]]
 *   mpirun -n 4 ./hpcc_pingpong      (the same program, compiled with mpicc)
 *
 * Every pair of ranks (i, j), i < j, one pair at a time, plays ROUNDS
 * (default 10) round trips of LAT_BYTES (default 8) bytes, then of BW_BYTES
 * (default 4096): i sends, j sends the message back. A pair's latency is
 * half its mean round trip of LAT_BYTES; its bandwidth is BW_BYTES over half
 * its mean round trip of BW_BYTES. Rank 0 prints the minimum, mean and
 * maximum over the pairs, from MPI_Wtime (under insee, simulated time). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Half the mean round trip between `me` and `peer` (the first of the pair
   is `first`) for messages of `bytes`, in seconds, as `first` measures it. */
static double half_trip(char *buf, int bytes, int rounds, int me, int first, int peer)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int r = 0; r < rounds; r++)
        if (me == first) {
            MPI_Send(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, first, 0, MPI_COMM_WORLD);
        }
    return (MPI_Wtime() - start) / rounds / 2;
}

static void summary(const char *what, const double *v, int n, double scale, const char *unit)
{
    double min = v[0], max = v[0], sum = 0;
    for (int i = 0; i < n; i++) {
        min = v[i] < min ? v[i] : min;
        max = v[i] > max ? v[i] : max;
        sum += v[i];
    }
    printf("%s: min %.3f mean %.3f max %.3f %s over %d pairs\n", what, min * scale,
           sum / n * scale, max * scale, unit, n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    int lat_bytes = argc > 2 ? atoi(argv[2]) : 8;
    int bw_bytes = argc > 3 ? atoi(argv[3]) : 4096;
    int pairs = size * (size - 1) / 2;
    char *buf = calloc(1, (size_t)(lat_bytes > bw_bytes ? lat_bytes : bw_bytes) + 1);
    /* Each pair's figures, set by its first rank and summed at rank 0. */
    double *mine = calloc((size_t)(2 * pairs + 1), sizeof *mine);
    double *all = calloc((size_t)(2 * pairs + 1), sizeof *all);
    if (size < 2 || rounds < 1 || lat_bytes < 0 || bw_bytes < 1 || !buf || !mine || !all) {
        if (rank == 0)
            fprintf(stderr, "hpcc_pingpong: needs 2 ranks, ROUNDS >= 1, BW_BYTES >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int pair = 0;
    for (int i = 0; i < size; i++)
        for (int j = i + 1; j < size; j++, pair++) {
            int in = rank == i || rank == j, peer = rank == i ? j : i;
            double lat = half_trip(buf, lat_bytes, in ? rounds : 0, rank, i, peer);
            double bw = half_trip(buf, bw_bytes, in ? rounds : 0, rank, i, peer);
            if (rank == i) {
                mine[pair] = lat;
                mine[pairs + pair] = bw_bytes / bw;
            }
        }
    MPI_Reduce(mine, all, 2 * pairs, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ping-pong of %d ranks, %d round trips per pair\n", size, rounds);
        char what[64];
        snprintf(what, sizeof what, "latency (%d bytes)", lat_bytes);
        summary(what, all, pairs, 1e6, "us");
        snprintf(what, sizeof what, "bandwidth (%d bytes)", bw_bytes);
        summary(what, all + pairs, pairs, 1e-6, "MB/s");
    }
    free(buf);
    free(mine);
    free(all);
    MPI_Finalize();
    return 0;
}
