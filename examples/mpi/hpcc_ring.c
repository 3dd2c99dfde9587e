/* examples/mpi/hpcc_ring.c — HPCC's naturally and randomly ordered ring
 * kernels as a plain MPI program: it compiles with a real mpicc as well as
 * with insee-mpicc (docs/mpi.md, "Your MPI program on insee").
 *
 *   insee-mpicc examples/mpi/hpcc_ring.c -o hpcc_ring
 *   insee-mpirun -n 4 examples/mpi/hpcc-ring.toml -- ./hpcc_ring [ROUNDS [RINGS [LAT_BYTES [BW_BYTES]]]]
 *   mpirun -n 4 ./hpcc_ring      (the same program, compiled with mpicc)
 *
 * The ranks stand in a ring: the natural one (0, 1, .., n-1), then RINGS
 * (default 3) random permutations drawn by rank 0 from a fixed seed and
 * broadcast. In each of ROUNDS (default 10) rounds every rank exchanges a
 * message with both neighbours with MPI_Sendrecv, first sending right and
 * receiving from the left, then the other way. A ring's time per round is
 * the largest over the ranks (MPI_Allreduce with MPI_MAX); its latency is
 * half a round with LAT_BYTES (default 8) bytes, its bandwidth the 2 x 2 x
 * BW_BYTES (default 4096) bytes a rank sends and receives per round over the
 * round. Rank 0 prints the natural ring and the mean over the random ones,
 * from MPI_Wtime (under insee, simulated time). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A small generator of our own, so that every platform draws the same
   rings (xorshift64*). */
static unsigned long long draw(unsigned long long *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

/* The largest time per round over the ranks for messages of `bytes` on the
   ring `order` (order[k] stands at place k). */
static double round_time(const int *order, int size, int rank, char *out, char *in, int bytes,
                         int rounds)
{
    int place = 0;
    while (order[place] != rank)
        place++;
    int right = order[(place + 1) % size], left = order[(place + size - 1) % size];
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int r = 0; r < rounds; r++) {
        MPI_Sendrecv(out, bytes, MPI_BYTE, right, 1, in, bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(out, bytes, MPI_BYTE, left, 2, in, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    double mine = (MPI_Wtime() - start) / rounds, longest;
    MPI_Allreduce(&mine, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return longest;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    int rings = argc > 2 ? atoi(argv[2]) : 3;
    int lat_bytes = argc > 3 ? atoi(argv[3]) : 8;
    int bw_bytes = argc > 4 ? atoi(argv[4]) : 4096;
    int most = (lat_bytes > bw_bytes ? lat_bytes : bw_bytes) + 1;
    int *order = malloc((size_t)size * sizeof *order);
    char *out = calloc(1, (size_t)most), *in = calloc(1, (size_t)most);
    if (size < 2 || rounds < 1 || rings < 0 || lat_bytes < 0 || bw_bytes < 1 || !order || !out ||
        !in) {
        if (rank == 0)
            fprintf(stderr, "hpcc_ring: needs 2 ranks, ROUNDS >= 1, RINGS >= 0, BW_BYTES >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned long long seed = 0x1ce5eedULL;
    double lat_sum = 0, bw_sum = 0;
    for (int ring = 0; ring <= rings; ring++) {
        for (int k = 0; k < size; k++)
            order[k] = k;
        if (ring > 0 && rank == 0)
            for (int k = size - 1; k > 0; k--) {
                int j = (int)(draw(&seed) % (unsigned long long)(k + 1)), t = order[k];
                order[k] = order[j];
                order[j] = t;
            }
        MPI_Bcast(order, size, MPI_INT, 0, MPI_COMM_WORLD);
        double lat = round_time(order, size, rank, out, in, lat_bytes, rounds) / 2;
        double bw = 4.0 * bw_bytes / round_time(order, size, rank, out, in, bw_bytes, rounds);
        if (ring == 0 && rank == 0)
            printf("natural ring of %d ranks: latency %.3f us (%d bytes), bandwidth %.3f MB/s "
                   "(%d bytes)\n", size, lat * 1e6, lat_bytes, bw * 1e-6, bw_bytes);
        if (ring > 0) {
            lat_sum += lat;
            bw_sum += bw;
        }
    }
    if (rings > 0 && rank == 0)
        printf("random rings (mean of %d): latency %.3f us (%d bytes), bandwidth %.3f MB/s "
               "(%d bytes)\n", rings, lat_sum / rings * 1e6, lat_bytes, bw_sum / rings * 1e-6,
               bw_bytes);
    free(order);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
