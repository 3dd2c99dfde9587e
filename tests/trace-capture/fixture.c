/* MPI programs with known messages, for tests/trace-capture: one per mode,
 * `fixture MODE` under mpirun with libinsee-trace preloaded. The test
 * writes the messages each must give from their definitions. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

/* A token once around the ring, received from any source with any tag. */
static void ring(void)
{
    long long token[1] = {42};
    if (rank == 0)
        MPI_Send(token, 1, MPI_LONG_LONG, 1 % size, 7, MPI_COMM_WORLD);
    MPI_Recv(token, 1, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (rank != 0)
        MPI_Send(token, 1, MPI_LONG_LONG, (rank + 1) % size, 7, MPI_COMM_WORLD);
}

/* Ranks 0 and 1: 1, 100 and 10000 bytes there and back, tag i; rank 0
   with non-blocking calls, rank 1 with blocking ones. */
static void ping_pong(void)
{
    static char buf[2][10000];
    const int lengths[] = {1, 100, 10000};
    for (int i = 0; i < 3; i++) {
        if (rank == 0) {
            MPI_Request r[2];
            MPI_Irecv(buf[1], lengths[i], MPI_BYTE, 1, i, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(buf[0], lengths[i], MPI_BYTE, 1, i, MPI_COMM_WORLD, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf[1], lengths[i], MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf[1], lengths[i], MPI_BYTE, 0, i, MPI_COMM_WORLD);
        }
    }
}

/* 100 doubles from rank 1, then a barrier, then a scan of two ints. */
static void bcast(void)
{
    double x[100] = {0};
    int v[2] = {1, 2}, s[2];
    MPI_Bcast(x, 100, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Scan(v, s, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

/* 3 ints to every rank. */
static void alltoall(void)
{
    int *out = calloc((size_t)size * 3, sizeof *out), *in = calloc((size_t)size * 3, sizeof *in);
    MPI_Alltoall(out, 3, MPI_INT, in, 3, MPI_INT, MPI_COMM_WORLD);
    free(out), free(in);
}

/* Halves of even and odd ranks, in reverse order: sub-rank 0 sends 4
   bytes with tag 5 to sub-rank 1, then an allreduce of one int on the
   half, then world rank 0 sends rank 1 4 bytes with tag 5 too. */
static void split(void)
{
    MPI_Comm half;
    int sub, v = rank, sum;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Comm_rank(half, &sub);
    if (sub == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 5, half);
    else if (sub == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 5, half, MPI_STATUS_IGNORE);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, half);
    MPI_Comm_free(&half);
    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Ranks 0 and 1 through every kind of request: persistent ones twice
   (rank 0 16 bytes tag 3, rank 1 16 bytes back tag 4), a send to
   MPI_PROC_NULL, MPI_Sendrecv_replace (8 bytes tag 6 both ways), a matched
   probe (24 bytes tag 9) and a non-blocking one (32 bytes tag 10) from 0
   to 1, and rank 0's receive from any source (40 bytes tag 11). */
static void requests(void)
{
    char buf[2][64] = {{0}};
    MPI_Request r[2];
    MPI_Message m;
    int flag = 0, done = 0, outcount, indices[2], index;
    if (rank == 0) {
        MPI_Recv_init(buf[1], 16, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &r[0]);
        MPI_Send_init(buf[0], 16, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &r[1]);
        for (int i = 0; i < 2; i++) {
            MPI_Startall(2, r);
            for (done = 0; done < 2; done += outcount)
                MPI_Waitsome(2, r, &outcount, indices, MPI_STATUSES_IGNORE);
        }
        MPI_Request_free(&r[0]);
        MPI_Request_free(&r[1]);
        MPI_Send(buf[0], 8, MPI_BYTE, MPI_PROC_NULL, 5, MPI_COMM_WORLD);
        MPI_Sendrecv_replace(buf[0], 8, MPI_BYTE, 1, 6, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf[0], 24, MPI_BYTE, 1, 9, MPI_COMM_WORLD);
        MPI_Send(buf[0], 32, MPI_BYTE, 1, 10, MPI_COMM_WORLD);
        MPI_Irecv(buf[1], 64, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]);
        while (!flag)
            MPI_Testany(1, r, &index, &flag, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        for (int i = 0; i < 2; i++) {
            MPI_Recv(buf[1], 16, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf[1], 16, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
        }
        MPI_Sendrecv_replace(buf[0], 8, MPI_BYTE, 0, 6, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Mprobe(0, 9, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
        MPI_Mrecv(buf[1], 64, MPI_BYTE, &m, MPI_STATUS_IGNORE);
        while (!flag)
            MPI_Improbe(0, 10, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE);
        MPI_Imrecv(buf[1], 64, MPI_BYTE, &m, &r[0]);
        for (flag = 0; !flag;)
            MPI_Testall(1, r, &flag, MPI_STATUSES_IGNORE);
        MPI_Send(buf[0], 40, MPI_BYTE, 0, 11, MPI_COMM_WORLD);
    }
}

/* Calls the capture cannot write: an exclusive scan twice, a non-blocking
   barrier. */
static void unsupported(void)
{
    int v = 1, s;
    MPI_Request r;
    MPI_Exscan(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* 30 ms of wall time between two barriers. */
static void compute(void)
{
    struct timespec t0, t;
    MPI_Barrier(MPI_COMM_WORLD);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 30000000L);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 1 ends after a barrier, without MPI_Finalize. */
static void die(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        exit(1);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } modes[] = {{"ring", ring},         {"ping-pong", ping_pong},
                 {"bcast", bcast},       {"alltoall", alltoall},
                 {"split", split},       {"unsupported", unsupported},
                 {"compute", compute},   {"die", die},
                 {"requests", requests}};
    size_t m = 0, n = sizeof modes / sizeof *modes;
    while (m < n && (argc < 2 || strcmp(argv[1], modes[m].name)))
        m++;
    if (m == n) {
        fprintf(stderr, "usage: fixture ring|ping-pong|bcast|alltoall|split|unsupported|"
                        "compute|die|requests\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    modes[m].run();
    MPI_Finalize();
    return 0;
}
