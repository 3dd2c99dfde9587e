/* kernel_common.c — parameters, task grids and helpers shared by the
 * application kernels (kernel_common.h). */
#include "kernel_common.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

bool kernel_args_init(kernel_args *a, const char *name, const insee_host *host,
                      const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    *a = (kernel_args){
        .name = name,
        .all = shape.tasks,
        .tasks = (uint32_t)params[KERNEL_P_TASKS].i,
        .bytes = (uint64_t)params[KERNEL_P_BYTES].i,
        .iterations = (uint32_t)params[KERNEL_P_ITERATIONS].i,
        .compute = (uint64_t)params[KERNEL_P_COMPUTE].i,
        .own = params + KERNEL_P_OWN,
    };
    host->rng_seed(host->kernel, 0, &a->rng);
    if (a->tasks > a->all) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: tasks = %u but the experiment has %u tasks; lower tasks, or use 0 "
                        "for all of them",
                        name, a->tasks, a->all);
        return false;
    }
    return true;
}

uint32_t kernel_tasks(const kernel_args *a) { return a->tasks ? a->tasks : a->all; }

script *kernel_script(const kernel_args *a, uint32_t min, insee_error *err)
{
    uint32_t n = kernel_tasks(a);
    if (n < min) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: needs at least %u tasks, has %u; raise tasks or the number of tasks "
                        "of the experiment",
                        a->name, min, n);
        return NULL;
    }
    return script_new(a->all);
}

static script *play(const kernel_args *a, uint32_t min, uint32_t root, kernel_program *program,
                    insee_error *err)
{
    script *s = kernel_script(a, min, err);
    if (!s)
        return NULL;
    uint32_t n = kernel_tasks(a);
    for (uint32_t it = 0; it < a->iterations; it++)
        for (uint32_t rel = 0; rel < n; rel++)
            program(s, a, it, rel, root, n);
    return s;
}

script *kernel_program_script(const kernel_args *a, uint32_t min, kernel_program *program,
                              insee_error *err)
{
    return play(a, min, 0, program, err);
}

script *kernel_rooted_script(const kernel_args *a, kernel_program *program, insee_error *err)
{
    int64_t root = a->own[KERNEL_P_ROOT].i;
    if (root >= kernel_tasks(a)) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: root = %lld but only tasks 0..%u take part; choose a root among them",
                        a->name, (long long)root, kernel_tasks(a) - 1);
        return NULL;
    }
    return play(a, 1, (uint32_t)root, program, err);
}

void kernel_compute(script *s, const kernel_args *a, uint32_t task)
{
    if (a->compute)
        script_compute(s, task, a->compute);
}

void kernel_pairwise_exchange(script *s, const kernel_args *a, uint32_t r, uint32_t n,
                              uint32_t iteration)
{
    for (uint32_t k = 1; k < n; k++) {
        script_send(s, r, (r + k) % n, kernel_tag(iteration, k), a->bytes);
        script_recv(s, r, (r + n - k) % n, kernel_tag(iteration, k), a->bytes);
    }
}

uint32_t kernel_floor_log2(uint32_t n)
{
    uint32_t l = 0;
    while (n >>= 1)
        l++;
    return l;
}

/* The largest divisor f of n with f^k <= n. */
static uint32_t root_divisor(uint32_t n, uint32_t k)
{
    uint32_t best = 1;
    for (uint32_t f = 2; f <= n; f++) {
        uint64_t p = 1;
        for (uint32_t j = 0; j < k && p <= n; j++)
            p *= f;
        if (p > n)
            break;
        if (n % f == 0)
            best = f;
    }
    return best;
}

static uint32_t grid_sizes(const kernel_args *a, uint32_t dims, const insee_value *grid, uint32_t *g,
                           insee_error *err)
{
    if (grid->list_len == 0) {
        uint32_t rest = kernel_tasks(a);
        for (uint32_t d = 0; d < dims; d++) {
            g[d] = root_divisor(rest, dims - d);
            rest /= g[d];
        }
        return kernel_tasks(a);
    }
    if (grid->list_len != dims) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: grid has %zu sizes but dims = %u; give %u sizes, or [] to factor the "
                        "tasks",
                        a->name, grid->list_len, dims, dims);
        return 0;
    }
    uint64_t n = 1;
    for (uint32_t d = 0; d < dims; d++) {
        g[d] = (uint32_t)grid->list[d];
        n *= g[d];
    }
    if (a->tasks && n != a->tasks) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: grid holds %llu tasks but tasks = %u; make them agree, or set tasks "
                        "= 0",
                        a->name, (unsigned long long)n, a->tasks);
        return 0;
    }
    if (n > a->all) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: grid holds %llu tasks but the experiment has %u; use a smaller grid",
                        a->name, (unsigned long long)n, a->all);
        return 0;
    }
    return (uint32_t)n;
}

script *kernel_grid_script(const kernel_args *a, uint32_t *g, uint32_t *n, insee_error *err)
{
    *n = grid_sizes(a, (uint32_t)a->own[KERNEL_P_DIMS].i, &a->own[KERNEL_P_GRID], g, err);
    return *n ? kernel_script(a, 1, err) : NULL;
}

uint32_t kernel_grid_step(const uint32_t *g, uint32_t r, uint32_t d, int dir, bool periodic)
{
    uint32_t stride = 1;
    for (uint32_t j = 0; j < d; j++)
        stride *= g[j];
    uint32_t x = r / stride % g[d];
    uint32_t to = x;
    if (dir > 0)
        to = x + 1 < g[d] ? x + 1 : periodic ? 0 : x;
    else
        to = x > 0 ? x - 1 : periodic ? g[d] - 1 : x;
    return to == x ? KERNEL_NONE : r - x * stride + to * stride;
}

/* The instance of a kernel plugin: the runner's glue expects it first. */
typedef struct kernel_instance {
    script_runner *runner;
} kernel_instance;

bool kernel_program_fits(const kernel_args *a, kernel_generator *generate, insee_error *err)
{
    if (a->iterations <= 1)
        return true;
    kernel_args one = *a; /* a copy: its draws leave a's stream as it was */
    one.iterations = 1;
    script *s = generate(&one, err);
    if (!s)
        return false;
    uint64_t events = 0;
    for (uint32_t t = 0; t < script_tasks(s); t++)
        events += script_length(s, t);
    script_free(s);
    double need = (double)events * a->iterations * sizeof(script_event);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    if (need <= have / 2)
        return true;
    insee_error_set(err, INSEE_ERR_PARAM,
                    "%s: %u iterations of %llu events each need %.1f GB for the program, more "
                    "than half of this machine's %.1f GB; use fewer iterations",
                    a->name, a->iterations, (unsigned long long)events, need / 1e9, have / 1e9);
    return false;
}

void *kernel_create(const char *name, kernel_generator *generate, const insee_host *host,
                    const insee_value *params, insee_error *err)
{
    kernel_args a;
    if (!kernel_args_init(&a, name, host, params, err) || !kernel_program_fits(&a, generate, err))
        return NULL;
    script *s = generate(&a, err);
    script_runner *r = s ? script_runner_new(s, host, true, name, 1.0, err) : NULL;
    if (!r)
        return NULL;
    kernel_instance *k = malloc(sizeof *k);
    if (!k) {
        script_runner_free(r);
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", name);
        return NULL;
    }
    k->runner = r;
    return k;
}
