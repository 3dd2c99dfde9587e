/* MPI's C bindings over libinsee-mpi, end to end: plain MPI programs
 * compiled by insee-mpicc run under insee-mpirun (docs/mpi.md, "Your MPI
 * program on insee").
 *
 * Timing closed forms as in tests/mpi: a message sent at client time t
 * over h hops, p packets of L = 16 phits, is consumed at cycle a = floor(t
 * F / S) + h + L - 1 + (p - 1) L and handed over at client time (floor(a /
 * F) + 1) S. Under insee-mpicc a client unit is one nanosecond. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define L 16u

typedef struct result {
    int status; /* exit status, or 128 + signal */
    char *out, *err;
} result;

static result spawn(const char *const *argv, const char *const *env_add)
{
    char **env = g_get_environ();
    for (; env_add && *env_add; env_add += 2)
        env = g_environ_setenv(env, env_add[0], env_add[1], TRUE);
    result r = {0};
    GError *e = NULL;
    int wait;
    cr_assert(g_spawn_sync(NULL, (char **)argv, env, G_SPAWN_DEFAULT, NULL, NULL, &r.out, &r.err,
                           &wait, &e), "%s: %s", argv[0], e ? e->message : "");
    r.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : 128 + WTERMSIG(wait);
    g_strfreev(env);
    return r;
}

/* insee-mpirun -n N [--set SET] examples/mpi/CONFIG -- PROGRAM ARG, with
   the environment `env` (name, value, ..., NULL) added. */
static result mpirun_set(int n, const char *set, const char *config, const char *program,
                         const char *arg, const char *const *env)
{
    char *nn = g_strdup_printf("%d", n);
    char *conf = g_build_filename(INSEE_TEST_SOURCE_DIR, "examples", "mpi", config, NULL);
    const char *argv[] = {INSEE_TEST_MPIRUN, "--insee", INSEE_TEST_BIN, "-n", nn,
                          "--set", set ? set : "bridge.model=lockstep", conf, "--",
                          program, arg, NULL};
    result r = spawn(argv, env);
    g_free(nn);
    g_free(conf);
    return r;
}

static result mpirun(int n, const char *config, const char *program, const char *arg,
                     const char *const *env)
{
    return mpirun_set(n, NULL, config, program, arg, env);
}

static void result_free(result *r)
{
    g_free(r->out);
    g_free(r->err);
}

static void assert_ran(const result *r)
{
    cr_assert_eq(r->status, 0, "exit status %d:\n%s\n%s", r->status, r->err, r->out);
}

static void assert_has(const result *r, const char *text)
{
    cr_assert(strstr(r->out, text) || strstr(r->err, text), "no '%s' in:\n%s\n%s", text, r->out,
              r->err);
}

static uint64_t completion(const result *r)
{
    assert_ran(r);
    const char *p = strstr(r->out, "simulated completion time: ");
    cr_assert(p, "no completion time in:\n%s", r->out);
    return g_ascii_strtoull(p + strlen("simulated completion time: "), NULL, 10);
}

static uint64_t handed_over(uint64_t t, uint64_t hops, uint64_t packets, uint64_t S, uint64_t F)
{
    uint64_t arrival = t * F / S + hops + L - 1 + (packets - 1) * L;
    return (arrival / F + 1) * S;
}

static const char *const NO_COMPUTE[] = {"INSEE_MPI_COMPUTE_SCALE", "0", NULL};

static char *fixture(const char *name)
{
    return g_build_filename(INSEE_TEST_FIXTURES, name, NULL);
}

/* Every call of the subset, each result against its definition, with a
   power of two of ranks and two that are not (the recursive doubling of
   MPI_Allreduce folds them). */
Test(mpi_compat, every_call_gives_what_the_standard_defines)
{
    char *calls = fixture("calls");
    for (int n = 2; n <= 5; n++) {
        result r = mpirun(n, "ring.toml", calls, NULL, NO_COMPUTE);
        completion(&r);
        for (int rank = 0; rank < n; rank++) {
            char *line = g_strdup_printf("rank %d: ", rank);
            const char *p = strstr(r.out, line);
            cr_assert(p && strstr(p, "checks passed"), "%d ranks: no '%s... checks passed':\n%s",
                      n, line, r.out);
            g_free(line);
        }
        result_free(&r);
    }
    g_free(calls);
}

/* The alltoalls of INSEE_MPI_ALLTOALL=bruck move the same data. */
Test(mpi_compat, bruck_alltoall_gives_the_same_data)
{
    char *calls = fixture("calls");
    const char *env[] = {"INSEE_MPI_COMPUTE_SCALE", "0", "INSEE_MPI_ALLTOALL", "bruck", NULL};
    result r = mpirun(5, "ring.toml", calls, NULL, env);
    completion(&r);
    cr_assert(!strstr(r.err, "failed"), "%s", r.err);
    result_free(&r);
    g_free(calls);
}

/* The token ring's completion time is the closed form of tests/mpi's. */
Test(mpi_compat, ring_completion_has_its_closed_form)
{
    const uint64_t S = 1000, F = 10, NODES = 8;
    char *ring = fixture("ring");
    for (int n = 2; n <= 8; n += 3) {
        uint64_t t = 0;
        for (int r = 0; r < n; r++) {
            uint64_t d = (uint64_t)abs((r + 1) % n - r), hops = d < NODES - d ? d : NODES - d;
            t = handed_over(t, hops, 1, S, F);
        }
        result res = mpirun(n, "ring.toml", ring, NULL, NO_COMPUTE);
        cr_assert_eq(completion(&res), t, "ring of %d: %llu, closed form %llu\n%s", n,
                     (unsigned long long)completion(&res), (unsigned long long)t, res.out);
        char *back = g_strdup_printf("token back at %llu ns, counted %d\n", (unsigned long long)t,
                                     n - 1);
        assert_has(&res, back);
        g_free(back);
        result_free(&res);
    }
    g_free(ring);
}

/* HPCC's ping-pong between ranks 0 and 1 (one hop) of
   examples/mpi/hpcc-pingpong.toml (1000:20): its latency is half the round
   trip of an 8-byte message, its bandwidth 200 bytes (4 packets) over half
   their round trip. */
Test(mpi_compat, hpcc_pingpong_reports_the_closed_forms)
{
    const uint64_t S = 1000, F = 20;
    double lat_us = (double)handed_over(0, 1, 1, S, F) / 1e3;
    double bw_mbs = 200.0 / (double)handed_over(0, 1, 4, S, F) * 1e3;
    char *exe = g_build_filename(INSEE_TEST_EXAMPLES, "hpcc_pingpong", NULL);
    const char *argv[] = {INSEE_TEST_MPIRUN, "--insee", INSEE_TEST_BIN, "-n", "2",
                          INSEE_TEST_SOURCE_DIR "/examples/mpi/hpcc-pingpong.toml", "--", exe,
                          "5", "8", "200", NULL};
    result r = spawn(argv, NO_COMPUTE);
    assert_ran(&r);
    char *lat = g_strdup_printf("latency (8 bytes): min %.3f mean %.3f max %.3f us over 1 pairs",
                                lat_us, lat_us, lat_us);
    char *bw = g_strdup_printf("bandwidth (200 bytes): min %.3f mean %.3f max %.3f MB/s over 1 "
                               "pairs", bw_mbs, bw_mbs, bw_mbs);
    assert_has(&r, lat);
    assert_has(&r, bw);
    g_free(lat);
    g_free(bw);
    result_free(&r);
    g_free(exe);
}

/* HPCC's rings run through the simulation and report figures. */
Test(mpi_compat, hpcc_ring_runs)
{
    char *exe = g_build_filename(INSEE_TEST_EXAMPLES, "hpcc_ring", NULL);
    result r = mpirun(4, "hpcc-ring.toml", exe, "2", NO_COMPUTE);
    completion(&r);
    assert_has(&r, "natural ring of 4 ranks: latency ");
    assert_has(&r, "random rings (mean of 3): latency ");
    result_free(&r);
    g_free(exe);
}

/* The time between MPI calls is computation: CPU time by default, scaled;
   wall time on request; none with scale 0. Slices of 100 us (10 cycles)
   keep the 30 ms short to simulate. */
static double computed(const char *how, const char *const *env)
{
    char *exe = fixture("compute");
    result r = mpirun_set(2, "bridge.client_units=100000", "ring.toml", exe, how, env);
    assert_ran(&r);
    const char *p = strstr(r.out, "computed ");
    cr_assert(p, "%s", r.out);
    double ns = g_ascii_strtod(p + strlen("computed "), NULL);
    result_free(&r);
    g_free(exe);
    return ns;
}

Test(mpi_compat, computation_moves_the_clock)
{
    const double ms = 1e6; /* client units (ns) */
    double spin = computed("spin", NULL);
    cr_assert(spin >= 30 * ms && spin < 40 * ms, "30 ms of CPU counted as %.0f ns", spin);
    const char *twice[] = {"INSEE_MPI_COMPUTE_SCALE", "2", NULL};
    double doubled = computed("spin", twice);
    cr_assert(doubled >= 60 * ms && doubled < 80 * ms, "30 ms at scale 2: %.0f", doubled);
    cr_assert_eq(computed("spin", NO_COMPUTE), 0);
    cr_assert(computed("sleep", NULL) < 5 * ms, "a sleep is no CPU time");
    const char *wall[] = {"INSEE_MPI_COMPUTE_CLOCK", "wall", NULL};
    double slept = computed("sleep", wall);
    cr_assert(slept >= 30 * ms && slept < 1000 * ms, "30 ms asleep, wall clock: %.0f", slept);
}

Test(mpi_compat, bad_settings_are_named)
{
    const char *scale[] = {"INSEE_MPI_COMPUTE_SCALE", "-1", NULL};
    char *exe = fixture("ring");
    result r = mpirun(2, "ring.toml", exe, NULL, scale);
    cr_assert_neq(r.status, 0);
    assert_has(&r, "MPI_Init: INSEE_MPI_COMPUTE_SCALE is '-1', not a number >= 0");
    result_free(&r);
    const char *algo[] = {"INSEE_MPI_ALLTOALL", "ring", NULL};
    r = mpirun(2, "ring.toml", exe, NULL, algo);
    cr_assert_neq(r.status, 0);
    assert_has(&r, "MPI_Init: INSEE_MPI_ALLTOALL is 'ring', not 'pairwise' or 'bruck'");
    result_free(&r);
    g_free(exe);
}

Test(mpi_compat, bad_handles_give_error_classes_naming_the_call)
{
    char *exe = fixture("errors");
    result r = mpirun(2, "ring.toml", exe, "return", NO_COMPUTE);
    completion(&r);
    assert_has(&r, "MPI_ERR_TYPE MPI_Send: 999 is not a datatype handle");
    assert_has(&r, "MPI_ERR_OP MPI_Allreduce: 999 is not an operation handle");
    assert_has(&r, "MPI_ERR_OP MPI_Allreduce: MPI_BAND does not apply to MPI_DOUBLE");
    assert_has(&r, "MPI_ERR_COMM MPI_Comm_size: 12345 is not a communicator handle");
    assert_has(&r, "MPI_ERR_RANK MPI_Recv: source 2 is not a rank of a communicator of 2");
    assert_has(&r, "MPI_ERR_TAG MPI_Send: tag -5 is negative");
    assert_has(&r, "MPI_ERR_COUNT MPI_Send: count -1 is negative");
    assert_has(&r, "MPI_ERR_ROOT MPI_Bcast: root 2 is not a rank");
    assert_has(&r, "MPI_ERR_TRUNCATE MPI_Recv: rank 0: a message of 16 bytes from rank 1 (tag 7) "
                   "does not fit the receive buffer of 4 bytes");
    result_free(&r);

    /* Under the default MPI_ERRORS_ARE_FATAL the rank ends, and the run. */
    r = mpirun(2, "ring.toml", exe, "fatal", NO_COMPUTE);
    cr_assert_eq(r.status, 1, "%s\n%s", r.err, r.out);
    assert_has(&r, "MPI_Send: 999 is not a datatype handle");
    assert_has(&r, "(MPI_ERR_TYPE: invalid datatype)");
    cr_assert(!strstr(r.out, "still running"), "%s", r.out);
    result_free(&r);
    g_free(exe);
}

/* A call outside the subset is not declared: insee-mpicc stops. */
Test(mpi_compat, unsupported_call_does_not_compile)
{
    char *dir = g_dir_make_tmp("mpi-compat-XXXXXX", NULL);
    char *src = g_build_filename(INSEE_TEST_SOURCE_DIR, "tests", "mpi-compat", "fixtures",
                                 "unsupported.c", NULL);
    char *obj = g_build_filename(dir, "unsupported.o", NULL);
    const char *argv[] = {INSEE_TEST_MPICC, "-c", src, "-o", obj, NULL};
    result r = spawn(argv, NULL);
    cr_assert_neq(r.status, 0, "MPI_Win_create compiled:\n%s", r.err);
    cr_assert(strstr(r.err, "MPI_Win_create"), "the error does not name the call:\n%s", r.err);
    cr_assert(!g_file_test(obj, G_FILE_TEST_EXISTS));
    result_free(&r);

    /* -showme: the command, with insee's mpi.h first. */
    const char *show[] = {INSEE_TEST_MPICC, "-showme", "prog.c", "-o", "prog", NULL};
    r = spawn(show, NULL);
    assert_ran(&r);
    cr_assert(strstr(r.out, "/sdk/mpi/compat prog.c") || strstr(r.out, "/sdk/mpi/compat "),
              "%s", r.out);
    cr_assert(strstr(r.out, "-linsee-mpi-compat") && strstr(r.out, "-Wl,-rpath,"), "%s", r.out);
    result_free(&r);
    g_rmdir(dir);
    g_free(obj);
    g_free(src);
    g_free(dir);
}

/* The same fixture and examples under Open MPI, when it is installed. */
Test(mpi_compat, same_programs_under_open_mpi)
{
    char *mpirun_real = g_find_program_in_path("mpirun");
    if (!*INSEE_TEST_REAL_CALLS || !mpirun_real)
        cr_skip_test("Open MPI's mpicc or mpirun not found (Debian: libopenmpi-dev, openmpi-bin)");
    const char *const programs[][2] = {{INSEE_TEST_REAL_CALLS, "checks passed"},
                                       {INSEE_TEST_EXAMPLES "/real/hpcc_pingpong", "latency (8 bytes)"},
                                       {INSEE_TEST_EXAMPLES "/real/hpcc_ring", "random rings"}};
    for (size_t i = 0; i < G_N_ELEMENTS(programs); i++) {
        const char *argv[] = {mpirun_real, "--allow-run-as-root", "--oversubscribe", "-n", "4",
                              programs[i][0], NULL};
        result r = spawn(argv, NULL);
        assert_ran(&r);
        assert_has(&r, programs[i][1]);
        result_free(&r);
    }
    g_free(mpirun_real);
}
