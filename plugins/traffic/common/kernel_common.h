/* kernel_common.h — what the application kernels share (INSEE §3.2.4,
 * INRFlow §3.3.3): the parameters every kernel has, the arguments a
 * generator receives, helpers for tags and task grids, and the plugin glue.
 *
 * A kernel is a generator: from its arguments it writes every task's
 * program (sends, receives, computes) into a script (script.h), which the
 * shared runner then plays causally through the traffic entries. A kernel
 * folder holds one source: its parameter table, its generator and
 * KERNEL_PLUGIN(), which makes it a traffic plugin. Compiled with
 * KERNEL_TEST defined, KERNEL_PLUGIN() leaves out the plugin entry, so one
 * test program links every generator and reads their scripts directly.
 *
 * Conventions of every generated script:
 *  - the script has one program per task of the experiment; the kernel
 *    runs on tasks 0..n-1 (`tasks`, 0: all) and the others stay idle;
 *  - every task computes `compute` cycles in each iteration (none when 0),
 *    before its communication unless the kernel's README says otherwise
 *    (wavefront: once its inputs are in; n-body: at every ring step;
 *    MapReduce: to map and to reduce);
 *  - a message's tag is kernel_tag(iteration, step), so a receive can only
 *    match the message of its own iteration and step. */
#ifndef INSEE_TRAFFIC_KERNEL_COMMON_H
#define INSEE_TRAFFIC_KERNEL_COMMON_H

#include "script.h"

/* The parameter entries every kernel's table starts with, in this order. */
#define KERNEL_PARAM_TASKS                                                                   \
    {"tasks", INSEE_PARAM_INT, "0", 0, 16777216, NULL, "tasks",                              \
     "tasks taking part (tasks 0..tasks-1); 0: every task of the experiment"}
#define KERNEL_PARAM_BYTES                                                                   \
    {"bytes", INSEE_PARAM_INT, "64", 1, 1e12, NULL, "bytes",                                 \
     "length of each message; cut into packets by [simulation] phit_bytes"}
#define KERNEL_PARAM_ITERATIONS                                                              \
    {"iterations", INSEE_PARAM_INT, "1", 1, 1e9, NULL, NULL,                                 \
     "times the kernel's communication is repeated"}
#define KERNEL_PARAM_COMPUTE                                                                 \
    {"compute", INSEE_PARAM_INT, "0", 0, 1e12, NULL, "cycles",                               \
     "computation before each iteration's communication"}
#define KERNEL_PARAMS KERNEL_PARAM_TASKS, KERNEL_PARAM_BYTES, KERNEL_PARAM_ITERATIONS, KERNEL_PARAM_COMPUTE

/* Indices of the shared entries; a kernel's own parameters follow. */
enum { KERNEL_P_TASKS, KERNEL_P_BYTES, KERNEL_P_ITERATIONS, KERNEL_P_COMPUTE, KERNEL_P_OWN };

typedef struct kernel_args {
    const char *name;       /* the plugin's name, first word of every message */
    uint32_t all;           /* tasks of the experiment: the script's size */
    uint32_t tasks;         /* the `tasks` parameter (0: all) */
    uint64_t bytes;
    uint32_t iterations;
    uint64_t compute;
    const insee_value *own; /* the kernel's own parameters, in its table's order */
    insee_rng rng;          /* a stream for kernels that draw (graph) */
} kernel_args;

/* Read the shared parameters (params[KERNEL_P_*]) and the experiment's
   task count; false with err filled when `tasks` exceeds it. */
bool kernel_args_init(kernel_args *a, const char *name, const insee_host *host,
                      const insee_value *params, insee_error *err);

/* The tasks taking part: `tasks`, or all of the experiment. */
uint32_t kernel_tasks(const kernel_args *a);
/* A script of a->all tasks; NULL with err filled when fewer than `min`
   tasks take part. */
script *kernel_script(const kernel_args *a, uint32_t min, insee_error *err);
/* What one task does in one iteration, its compute included: the task is
   (rel + root) mod n, rel its rank relative to the root (0 for kernels
   without one, so rel is the task). */
typedef void kernel_program(script *s, const kernel_args *a, uint32_t iteration, uint32_t rel,
                            uint32_t root, uint32_t n);
/* The script of a kernel whose tasks 0..n-1 (n = kernel_tasks(a), at least
   `min`) each play `program` in every iteration; NULL with err filled. */
script *kernel_program_script(const kernel_args *a, uint32_t min, kernel_program *program,
                              insee_error *err);

/* Kernels rooted at one task (broadcast, reduce) start their own
   parameters with `root`, documented as DOC. */
#define KERNEL_ROOT_PARAM(DOC) {"root", INSEE_PARAM_INT, "0", 0, 16777215, NULL, "task", DOC}
enum { KERNEL_P_ROOT };
/* kernel_program_script() for such a kernel: the root must take part. */
script *kernel_rooted_script(const kernel_args *a, kernel_program *program, insee_error *err);

static inline uint64_t kernel_tag(uint32_t iteration, uint32_t step)
{
    return (uint64_t)iteration << 32 | step;
}

/* The iteration's computation, when there is one. */
void kernel_compute(script *s, const kernel_args *a, uint32_t task);

/* Pairwise exchange among tasks 0..n-1 (all-to-all, MapReduce's shuffle):
   in step k = 1..n-1 task r sends to (r + k) mod n, then receives from
   (r - k) mod n, tagged (iteration, k). */
void kernel_pairwise_exchange(script *s, const kernel_args *a, uint32_t r, uint32_t n,
                              uint32_t iteration);

static inline bool kernel_power_of_two(uint32_t n) { return n && !(n & (n - 1)); }
/* floor(log2(n)), n >= 1. */
uint32_t kernel_floor_log2(uint32_t n);

/* Kernels on a grid of tasks (stencil, wavefront) start their own
   parameters with these two. */
#define KERNEL_GRID_PARAMS                                                                   \
    {"dims", INSEE_PARAM_INT, "2", 2, 3, NULL, NULL, "dimensions of the grid of tasks"},     \
    {"grid", INSEE_PARAM_INT_LIST, "[]", 1, 16777216, NULL, "tasks",                         \
     "tasks along each dimension; []: the most nearly cubic grid of the tasks"}
enum { KERNEL_P_DIMS, KERNEL_P_GRID, KERNEL_P_GRID_OWN };
enum { KERNEL_GRID_MAX = 3 };

/* The grid of such a kernel: `dims` sizes in g, from `grid` when it is not
   empty, else the most nearly cubic factorisation of kernel_tasks(a),
   smallest size first. A given grid must have `dims` sizes, and its product
   must equal `tasks` when that is set and fit the experiment otherwise.
   Task r sits at coordinates x0 + g0 (x1 + g1 x2) = r. Returns the script
   and the tasks of the grid in *n, or NULL with err filled. */
script *kernel_grid_script(const kernel_args *a, uint32_t *g, uint32_t *n, insee_error *err);
/* The task one step from task r along dimension d of grid g (dir +1 or
   -1), wrapping round when `periodic`; KERNEL_NONE past an edge, and when
   the step leads back to r (a dimension of size 1). */
#define KERNEL_NONE UINT32_MAX
uint32_t kernel_grid_step(const uint32_t *g, uint32_t r, uint32_t d, int dir, bool periodic);

/* The generators, one per kernel folder: a script of a->all tasks, or NULL
   with err filled. */
script *alltoall_script(const kernel_args *a, insee_error *err);
script *broadcast_script(const kernel_args *a, insee_error *err);
script *reduce_script(const kernel_args *a, insee_error *err);
script *allreduce_script(const kernel_args *a, insee_error *err);
script *butterfly_script(const kernel_args *a, insee_error *err);
script *stencil_script(const kernel_args *a, insee_error *err);
script *wavefront_script(const kernel_args *a, insee_error *err);
script *nbody_script(const kernel_args *a, insee_error *err);
script *mapreduce_script(const kernel_args *a, insee_error *err);
script *graph_script(const kernel_args *a, insee_error *err);

typedef script *kernel_generator(const kernel_args *a, insee_error *err);

/* create() of a kernel plugin: read the shared parameters, generate the
   script, and hand it to a causal runner (no CPU scaling: computes are in
   cycles). The instance's first member is the runner, so the runner's
   vtable glue (SCRIPT_TRAFFIC_VTABLE) answers every other entry. */
/* Whether the program of a->iterations iterations fits in memory: a
   program holds every event of every iteration at once, so one that would
   take more than half the machine's memory is refused (err says how much
   it needs and to use fewer iterations) before it is built, from the size
   of one iteration. */
bool kernel_program_fits(const kernel_args *a, kernel_generator *generate, insee_error *err);

void *kernel_create(const char *name, kernel_generator *generate, const insee_host *host,
                    const insee_value *params, insee_error *err);

/* A kernel folder's plugin: its descriptor, named NAME, around GENERATE. */
#ifdef KERNEL_TEST
/* Generators only: the parameter table stays reachable for the tests. */
#define KERNEL_PLUGIN(ID, NAME, GENERATE, PARAMS, SUMMARY, REFERENCE)                        \
    extern const insee_param_def *const ID##_params_table;                                   \
    const insee_param_def *const ID##_params_table = PARAMS;
#else
#define KERNEL_PLUGIN(ID, NAME, GENERATE, PARAMS, SUMMARY, REFERENCE)                        \
    static void *ID##_create(const insee_host *host, const insee_value *params,              \
                             insee_error *err)                                               \
    {                                                                                        \
        return kernel_create(NAME, GENERATE, host, params, err);                             \
    }                                                                                        \
    static const insee_traffic_vtable ID##_vtable = SCRIPT_TRAFFIC_VTABLE(ID##_create);      \
    static const insee_plugin_desc ID##_desc = {                                             \
        .abi_major = INSEE_ABI_MAJOR,                                                        \
        .abi_minor = INSEE_ABI_MINOR,                                                        \
        .size = sizeof(insee_plugin_desc),                                                   \
        .kind = INSEE_KIND_TRAFFIC,                                                          \
        .name = NAME,                                                                        \
        .version = "1.0.0",                                                                  \
        .summary = SUMMARY,                                                                  \
        .reference = REFERENCE,                                                              \
        .params = PARAMS,                                                                    \
        .vtable = &ID##_vtable,                                                              \
    };                                                                                       \
    INSEE_PLUGIN_DEFINE(ID##_desc)
#endif

#endif
