/* sdk/conformance/conform.h — the internal contract of the insee-conform runner.
 *
 * A suite is a table of checks for one plugin kind (kind 0: every kind). The
 * runner (main.c) runs a table in order and prints one line per check. A
 * check returns PASS, FAIL (with `detail` naming the first offending case, so
 * the author can reproduce it) or SKIP (with `detail` saying why the check
 * does not apply). The first check of a kind suite is its setup: it creates
 * the instances the later checks inspect and keeps them in ctx->state; the
 * suite's cleanup frees them. Later checks SKIP when the setup left nothing.
 *
 * The tables are the documentation of the suite: README.md lists them, and
 * `insee-conform --list` prints them in the same form.
 *
 * Helpers shared by the suites live here too: the parameter settings a suite
 * exercises (settings.c), the instances a kind suite checks (instances.c),
 * the mock host (mock_host.c) and the ELF export reader (elf_exports.c).
 * Everything is internal to the runner.
 */
#ifndef INSEE_CONFORM_H
#define INSEE_CONFORM_H

#include <glib.h>
#include <insee/insee.h>

#include "config/config.h"
#include "plugin/registry.h"

/* The experiment seed of every mock rng stream and every experiment. */
#define CONFORM_SEED 20240611u

typedef enum conform_status {
    CONFORM_PASS,
    CONFORM_FAIL,
    CONFORM_SKIP,
} conform_status;

typedef enum conform_severity {
    CONFORM_ERROR,   /* a failure makes insee-conform exit non-zero */
    CONFORM_WARNING, /* reported, does not change the exit status */
} conform_severity;

struct conform_suite;

typedef struct conform_ctx {
    const char *path;                  /* the .so under test */
    const insee_plugin *plugin;        /* accepted by the registry; loaded in the worker */
    insee_registry *reg;               /* holds the plugin under test first */
    const char *const *overrides;      /* --set "section.key=value", NULL-terminated */
    const char *const *plugin_dirs;    /* --plugin-dir, NULL-terminated */
    const struct conform_suite *suite; /* the running suite: its setup is checks[0] */
    void *state;                       /* the running suite's state */
} conform_ctx;

typedef struct conform_check {
    const char *id;            /* "<area>.<what>", stable: scripts match on it */
    conform_severity severity;
    const char *message;       /* what is checked, one line */
    const char *hint;          /* how to fix a failure, one line */
    conform_status (*run)(conform_ctx *ctx, GString *detail);
} conform_check;

typedef struct conform_suite {
    insee_kind kind;                    /* 0: every kind */
    const conform_check *checks;
    size_t n_checks;
    /* Check the --set overrides the way the suite will use them, before any
       check runs: FALSE with the kernel's message when one does not bind (an
       unknown key, a value out of range, a bad choice); the runner then exits
       with status 2 instead of reporting every check as skipped. NULL: the
       suite reads no parameter. */
    gboolean (*validate)(const conform_ctx *ctx, GError **err);
    void (*cleanup)(conform_ctx *ctx);  /* frees ctx->state; NULL when none */
} conform_suite;

/* The suite of a table of checks (an array, so that its length is known). */
#define CONFORM_SUITE(KIND, CHECKS, VALIDATE, CLEANUP)                                         \
    {.kind = (KIND), .checks = (CHECKS), .n_checks = G_N_ELEMENTS(CHECKS),                   \
     .validate = (VALIDATE), .cleanup = (CLEANUP)}

/* Failures a check collects while it scans (main.c): the first one is kept
   in full, prefixed with the setting it was found at, and the total counted,
   so the detail reads "[dims = [5, 3]] router 3 port 1 ... (7 cases in all)". */
typedef struct conform_findings {
    GString *detail;
    guint count;
} conform_findings;

void conform_note(conform_findings *f, const char *where, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
/* FAIL when anything was noted (appending the count), else PASS. */
conform_status conform_verdict(conform_findings *f);
/* The verdict `s` of a check that applies to some cases only, of which it
   checked `applied`: none is a SKIP saying `why` (a SKIP stays as it is). */
conform_status conform_skip_if_none(conform_status s, guint applied, GString *detail, const char *why);

extern const conform_suite conform_desc_suite;
extern const conform_suite conform_topology_suite;
extern const conform_suite conform_router_suite;
extern const conform_suite conform_arbiter_suite;
extern const conform_suite conform_traffic_suite;
extern const conform_suite conform_placement_suite;
extern const conform_suite conform_bridge_suite;
extern const conform_suite conform_routing_suite;
extern const conform_suite conform_selection_suite;
extern const conform_suite conform_allocation_suite;

/* ---- parameter settings (settings.c) -------------------------------------
 * A setting is the plugin's defaults with at most one parameter changed,
 * written as one TOML assignment in the plugin's section. */
typedef struct conform_setting {
    char *label; /* "defaults", or the assignment itself: "dims = [5, 3]" */
    char *line;  /* "" for the defaults */
} conform_setting;

/* For the plugin under test: defaults first, then one change at a time:
   every other choice of an ENUM, the other value of a BOOL and, with
   `shapes`, small alternative sizes for INT_LIST and INT parameters
   (topologies). Parameters a --set override fixes are not varied.
   Element: conform_setting *. */
GPtrArray *conform_settings(const conform_ctx *ctx, gboolean shapes);

/* Apply the --set overrides addressed to `section`, or every override when
   `section` is NULL; a key written without a section is addressed to the
   plugin's own section. With `only`, just the overrides of the keys in that
   table (the plugin's own parameters, not the kernel's keys of its section). */
gboolean conform_apply_overrides(const conform_ctx *ctx, insee_config *cfg, const char *section,
                                 const insee_param_def *only, GError **err);

/* Whether a --set override gives `key` of `section` its value (`key` NULL:
   any key of `section`). */
gboolean conform_overridden(const conform_ctx *ctx, const char *section, const char *key);

/* The `validate` of a suite whose plugin is created on the mock host only:
   every override must be one of the plugin's own parameters (other sections
   only mean something to the router suite's experiments), and they must bind
   with the plugin's defaults, as conform_instance_new binds them. */
gboolean conform_validate_own(const conform_ctx *ctx, GError **err);

/* One created instance of the plugin under test at one setting; the config
   owns the values create() received and lives as long as the instance. */
typedef struct conform_instance {
    const conform_setting *setting;
    insee_config *cfg;
    void *self;
} conform_instance;

typedef void *(*conform_create_fn)(const insee_host *host, const insee_value *params,
                                   insee_error *err);

/* Bind the plugin's parameters at `s` (and the overrides of its own
   parameters) as the kernel would, and create an instance. NULL with
   *bind_err set when the setting does not bind (e.g. a required parameter
   has no value), NULL with create_err filled when create() refused it. */
conform_instance *conform_instance_new(const conform_ctx *ctx, const conform_setting *s,
                                       const insee_host *host, conform_create_fn create,
                                       GError **bind_err, insee_error *create_err);

/* Destroy an instance conform_instance_new made (NULL: nothing). */
void conform_instance_free(conform_instance *inst, void (*destroy)(void *self));

/* ---- the mock host (mock_host.c) -----------------------------------------
 * What a plugin sees outside an experiment. A real topology instance (a
 * conform_topo, found in the registry and bound like the kernel binds one)
 * answers the topology queries; the network state is mocked: every queue
 * empty and every link free, or arbitrary busy states when `noise` is set.
 * Without a topology (a topology's own create()) only log and rng_seed are
 * meaningful and shape() reports zeros. */

/* The network of the arbiter, traffic and placement suites: 16 nodes, one
   task on each, coordinates and distances available. */
#define CONFORM_MOCK_NETWORK "plugin = \"torus\"\ndims = [4, 4]\n"
#define CONFORM_MOCK_NODES 16u
#define CONFORM_MOCK_PACKET_PHITS 16u

typedef struct conform_mock conform_mock;

/* A topology instance the mock host forwards its topology queries to. */
typedef struct conform_topo {
    char *label;                    /* "8x8 torus": names the network in details */
    const insee_topology_vtable *vt;
    void *self;
    insee_topology_info info;
    insee_config *cfg;              /* owns the values create() received */
    conform_mock *created_on;       /* the host create() was given (and may keep) */
} conform_topo;

/* The topology of `body`, the lines of a [topology] table ("" for the
   kernel's default plugin), with the --set topology.* overrides applied when
   `overrides`. NULL with err when the plugin is not in the registry, the
   values do not bind or create() refuses them. */
conform_topo *conform_topo_new(const conform_ctx *ctx, const char *label, const char *body,
                               gboolean overrides, GError **err);
void conform_topo_free(conform_topo *t);

struct conform_mock {
    insee_host host;
    insee_shape shape;
    const conform_topo *topo; /* NULL: no network */
    uint64_t wake_at[CONFORM_MOCK_NODES]; /* wake_task() requests; INSEE_NEVER: none */
    uint32_t noise; /* 0: every queue empty, every link free; else a busy network
                       whose room, links and occupancy vary with this value */
    /* The router whose questions are asked (INSEE_ROUTE_LOCAL's claim), or
       UINT32_MAX: `away` counts the queries of any other router's queues,
       outputs or links, and of the whole network's occupancy. */
    uint32_t home, away;
    /* bridge_inject(): accepted inside sync() (bridge_in_sync), between nodes
       below shape.tasks, at cycles from bridge_boundary on, into bridge_msgs
       (insee_bridge_msg); the first refusal is written to bridge_refused.
       The bridge suite creates both (no other host accepts an injection);
       conform_mock_clear() frees them. */
    gboolean bridge_in_sync;
    uint64_t bridge_boundary;
    GArray *bridge_msgs;
    GString *bridge_refused;
    gboolean stop; /* what stop_requested() answers: a run asked to stop */
};

/* A host over `topo` (NULL: no network). The shape has the topology's
   counts and the kernel's defaults for the rest (2 VCs, queues of 4
   packets, one injector, packets of CONFORM_MOCK_PACKET_PHITS); a caller may
   change them before creating a plugin on the host. */
void conform_mock_init(conform_mock *m, const conform_topo *topo);
/* Free what bridge_inject() allocated. */
void conform_mock_clear(conform_mock *m);

/* ---- the instances a kind suite checks (instances.c) ---------------------
 * The topology, arbiter, traffic and placement suites share their setup:
 * one instance per setting, created on a mock host and kept alive in
 * ctx->state for the later checks, which visit them in settings order. */
typedef struct conform_instances {
    conform_topo *topo;          /* the mock network (network suites), else NULL */
    conform_mock mock;           /* the host every instance was created on */
    GPtrArray *settings;         /* conform_setting *; the instances point into it */
    GPtrArray *created;          /* conform_instance *: the settings that created */
    void (*destroy)(void *self); /* the plugin's */
    void *derived;               /* what the suite derives from them once (topology: graphs) */
    GDestroyNotify derived_free;
} conform_instances;

/* The setup check (the first of the suite; its cleanup is
   conform_instances_cleanup): the settings (with `shapes`, see
   conform_settings) on a mock host (with `network`, over the topology of
   CONFORM_MOCK_NETWORK: SKIP when it cannot be built), one instance each.
   The defaults must create (FAIL otherwise; SKIP when they do not bind, e.g.
   a required parameter); a variant that does not bind or is refused is only
   noted in `detail`, which lists the settings created. */
conform_status conform_instances_setup(conform_ctx *ctx, gboolean network, gboolean shapes,
                                       conform_create_fn create, void (*destroy)(void *self),
                                       GString *detail);
void conform_instances_cleanup(conform_ctx *ctx);

/* The setup's instances, or NULL with the SKIP reason when it created none. */
conform_instances *conform_instances_get(const conform_ctx *ctx, GString *detail);
/* As conform_instances_get for a check of what a plugin may leave out (an
   optional entry): NULL with `why_not` as the SKIP reason unless `applies`. */
conform_instances *conform_instances_if(const conform_ctx *ctx, gboolean applies, const char *why_not,
                                        GString *detail);

/* What a check does with one instance, noting what is wrong in `f`. */
typedef void (*conform_instance_fn)(const conform_ctx *ctx, const conform_instance *inst,
                                    conform_findings *f, void *data);

/* Run `visit` on every instance: SKIP when the setup created none, else the
   verdict on what the visits noted. */
conform_status conform_each_instance(const conform_ctx *ctx, GString *detail,
                                     conform_instance_fn visit, void *data);

/* ---- ELF exports (elf_exports.c) -----------------------------------------
 * The names of the dynamic symbols the file defines and exports (global or
 * weak, default or protected visibility), without the ones the linker adds
 * (_init, _fini, _end, ...). Element: char *. NULL with err when the file is
 * not a well-formed native ELF shared object. */
GPtrArray *conform_elf_exports(const char *path, GError **err);

#endif
