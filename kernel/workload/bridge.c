/* kernel/workload/bridge.c — the application a bridge plugin drives
 * (contract in bridge.h and insee/bridge.h). */
#include "workload/bridge.h"

/* A message between bridge_inject() and deliver(); its index is the
   insee_message tag. */
typedef struct bridge_rec {
    insee_bridge_msg msg;
    uint32_t packets;
    uint32_t next_free;
    uint16_t nic; /* as insee_message's, handed on when the message leaves */
    uint8_t copy;
} bridge_rec;

struct insee_bridge_app {
    insee_workload *wl;
    uint32_t app, nodes;
    const insee_bridge_vtable *vt;
    void *self;
    char *name;
    uint64_t boundary;     /* the boundary of the sync() under way or last made */
    uint64_t next_sync;    /* the next boundary, or INSEE_NEVER */
    gboolean started;      /* sync(0) made */
    gboolean in_sync;      /* bridge_inject() is allowed */
    gboolean in_start;     /* sync(0): tasks are not started yet, start() reads their heaps */
    insee_heap *pending;   /* per node: (cycle, record) of messages not yet emitted */
    uint64_t injections;   /* bridge_inject() calls so far: a node's messages of one
                              cycle leave in call order, whatever their record ids */
    uint64_t waiting;      /* messages in those heaps */
    bridge_rec *rec;
    uint32_t rec_len, rec_cap, rec_free;
};

static uint32_t rec_new(insee_bridge_app *b)
{
    if (b->rec_free != INSEE_NONE) {
        uint32_t r = b->rec_free;
        b->rec_free = b->rec[r].next_free;
        return r;
    }
    if (b->rec_len == b->rec_cap) {
        b->rec_cap = b->rec_cap ? b->rec_cap * 2 : 256;
        b->rec = g_renew(bridge_rec, b->rec, b->rec_cap);
    }
    return b->rec_len++;
}

static void rec_free(insee_bridge_app *b, uint32_t r)
{
    b->rec[r].next_free = b->rec_free;
    b->rec_free = r;
}

insee_bridge_app *insee_bridge_app_new(insee_workload *wl, uint32_t app, uint32_t nodes,
                                       const insee_bridge_vtable *vt, void *self,
                                       const char *name)
{
    insee_bridge_app *b = g_new0(insee_bridge_app, 1);
    *b = (insee_bridge_app){.wl = wl, .app = app, .nodes = nodes, .vt = vt, .self = self,
                            .name = g_strdup(name), .next_sync = INSEE_NEVER,
                            .pending = g_new0(insee_heap, nodes), .rec_free = INSEE_NONE};
    return b;
}

void insee_bridge_app_free(insee_bridge_app *b)
{
    if (!b)
        return;
    for (uint32_t n = 0; n < b->nodes; n++)
        insee_heap_clear(&b->pending[n]);
    g_free(b->pending);
    g_free(b->rec);
    g_free(b->name);
    g_free(b);
}

/* The bridge's sync() for boundary `at`; a failure ends the run with its
   message. */
static void run_sync(insee_bridge_app *b, uint64_t at)
{
    insee_error err = {0};
    b->boundary = at;
    b->in_sync = TRUE;
    uint64_t next = b->vt->sync(b->self, at, &err);
    b->in_sync = FALSE;
    if (err.code) {
        err.message[sizeof err.message - 1] = '\0';
        insee_workload_fail(b->wl, "bridge '%s' failed at cycle %" G_GUINT64_FORMAT ": %s",
                            b->name, at, err.message);
        next = INSEE_NEVER;
    } else if (next <= at) {
        insee_workload_fail(b->wl, "bridge '%s' returned boundary %" G_GUINT64_FORMAT
                            " from sync(%" G_GUINT64_FORMAT "); it must be later (or INSEE_NEVER)",
                            b->name, next, at);
        next = INSEE_NEVER;
    }
    b->next_sync = next;
}

#define CLOCK_TASK 1u

/* The next cycle `task` is due: a sender's first waiting message; the
   clock's cycle before the next boundary. */
static uint64_t task_due(const insee_bridge_app *b, uint32_t task)
{
    if (task == CLOCK_TASK)
        return b->next_sync == INSEE_NEVER ? INSEE_NEVER : b->next_sync - 1;
    return task % INSEE_BRIDGE_TASKS_PER_NODE
               ? INSEE_NEVER
               : insee_heap_top(&b->pending[task / INSEE_BRIDGE_TASKS_PER_NODE]);
}

static uint64_t bridge_start(void *self, uint32_t task, insee_rng *rng)
{
    (void)rng;
    insee_bridge_app *b = self;
    if (!b->started) {
        b->started = TRUE;
        b->in_start = TRUE;
        run_sync(b, 0);
        b->in_start = FALSE;
    }
    return task_due(b, task);
}

static bool bridge_emit(void *self, uint32_t task, uint64_t now, insee_rng *rng,
                        insee_message *msg, uint64_t *next)
{
    (void)rng;
    insee_bridge_app *b = self;
    bool sends = false;
    if (task == CLOCK_TASK) {
        run_sync(b, b->next_sync); /* due only in the cycle before it */
    } else {
        insee_heap *h = &b->pending[task / INSEE_BRIDGE_TASKS_PER_NODE];
        sends = insee_heap_top(h) <= now;
        if (sends) {
            uint32_t r = insee_heap_pop(h).task;
            b->waiting--;
            *msg = (insee_message){.dst = b->rec[r].msg.dst_node * INSEE_BRIDGE_TASKS_PER_NODE,
                                   .packets = b->rec[r].packets, .tag = r,
                                   .bytes = b->rec[r].msg.bytes, .nic = b->rec[r].nic,
                                   .copy = b->rec[r].copy};
        }
    }
    uint64_t due = task_due(b, task);
    *next = due > now ? due : now + 1;
    return sends;
}

static void bridge_delivered(void *self, uint32_t src_task, const insee_message *msg,
                             uint64_t now)
{
    (void)src_task;
    insee_bridge_app *b = self;
    uint32_t r = (uint32_t)msg->tag;
    insee_bridge_msg m = b->rec[r].msg;
    rec_free(b, r);
    if (b->vt->deliver)
        b->vt->deliver(b->self, &m, now);
}

static bool bridge_finished(void *self)
{
    const insee_bridge_app *b = self;
    return b->started && b->next_sync == INSEE_NEVER && b->waiting == 0;
}

static bool bridge_describe_wait(void *self, char *buf, size_t len)
{
    const insee_bridge_app *b = self;
    if (b->next_sync == INSEE_NEVER)
        g_snprintf(buf, len, "bridge '%s' has %" G_GUINT64_FORMAT " messages still to inject",
                   b->name, b->waiting);
    else
        g_snprintf(buf, len, "bridge '%s' waits for its slice boundary at cycle %" G_GUINT64_FORMAT
                   " (%" G_GUINT64_FORMAT " messages still to inject)",
                   b->name, b->next_sync, b->waiting);
    return true;
}

const insee_traffic_vtable insee_bridge_traffic = {
    .size = sizeof(insee_traffic_vtable),
    .start = bridge_start,
    .emit = bridge_emit,
    .delivered = bridge_delivered,
    .finished = bridge_finished,
    .describe_wait = bridge_describe_wait,
};

bool insee_bridge_inject(insee_workload *wl, uint32_t src, uint32_t dst, uint64_t bytes,
                         uint32_t packets, uint64_t handle, uint64_t at, uint16_t nic,
                         uint8_t copy, insee_error *err)
{
    insee_bridge_app *b = wl->bridge;
    if (!b || !b->in_sync) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "bridge_inject() is only for a bridge plugin, inside its sync()");
        return false;
    }
    if (src >= b->nodes || dst >= b->nodes) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "bridge_inject(): node %u to node %u, but the bridge serves nodes 0..%u "
                        "([bridge] nodes)", src, dst, b->nodes - 1);
        return false;
    }
    if (at < b->boundary) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "bridge_inject(): cycle %" G_GUINT64_FORMAT " is before the boundary %"
                        G_GUINT64_FORMAT " of this sync()", at, b->boundary);
        return false;
    }
    /* Checked here, not when the message leaves, so that the bridge can
       name the client that asked for it. */
    char why[256];
    if (!insee_workload_choices_ok(wl, nic, copy, why, sizeof why)) {
        insee_error_set(err, INSEE_ERR_PARAM, "bridge_inject_with(): node %u sent a message %s",
                        src, why);
        return false;
    }
    uint32_t r = rec_new(b);
    b->rec[r] = (bridge_rec){
        .msg = {.src_node = src, .dst_node = dst, .bytes = bytes, .handle = handle,
                .at_cycle = at},
        .packets = packets,
        .nic = nic,
        .copy = copy,
    };
    insee_heap_push_seq(&b->pending[src], at, b->injections++, r);
    b->waiting++;
    if (!b->in_start)
        insee_workload_wake(wl, b->app, src * INSEE_BRIDGE_TASKS_PER_NODE, at);
    return true;
}
