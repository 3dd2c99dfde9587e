/* sdk/conformance/check_bridge.c — the bridge suite: sync() driven the way
 * the kernel drives it (from boundary 0, then at each boundary returned) on
 * the mock host, whose bridge_inject() refuses what the kernel refuses and
 * whose deliveries come back through deliver() before the next boundary.
 * A bridge that waits for outside clients fails its first sync() when none
 * comes, which is a valid answer too: an error with a message and
 * INSEE_NEVER. Give such a bridge a short timeout with --set.
 */
#include "conform.h"

#define SYNCS 64u /* boundaries followed at most */

static conform_status check_create(conform_ctx *ctx, GString *detail)
{
    const insee_bridge_vtable *vt = ctx->plugin->vtable;
    return conform_instances_setup(ctx, TRUE, FALSE, vt->create, vt->destroy, detail);
}

/* Hand the messages injected before `upto` back through deliver(), each
   the cycle after it was queued. */
static void deliver_before(const insee_bridge_vtable *vt, void *self, conform_mock *m,
                           uint64_t upto)
{
    GArray *kept = g_array_new(FALSE, FALSE, sizeof(insee_bridge_msg));
    for (guint i = 0; i < m->bridge_msgs->len; i++) {
        const insee_bridge_msg *msg = &g_array_index(m->bridge_msgs, insee_bridge_msg, i);
        if (msg->at_cycle + 1 < upto && vt->deliver)
            vt->deliver(self, msg, msg->at_cycle + 1);
        else if (msg->at_cycle + 1 >= upto)
            g_array_append_val(kept, *msg);
    }
    g_array_free(m->bridge_msgs, TRUE);
    m->bridge_msgs = kept;
}

static void sync_at(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                    void *data)
{
    (void)data;
    const insee_bridge_vtable *vt = ctx->plugin->vtable;
    conform_mock *m = &((conform_instances *)ctx->state)->mock;
    const char *at = inst->setting->label;
    if (!m->bridge_msgs) {
        m->bridge_msgs = g_array_new(FALSE, FALSE, sizeof(insee_bridge_msg));
        m->bridge_refused = g_string_new(NULL);
    }
    g_array_set_size(m->bridge_msgs, 0); /* another instance's are not this one's */
    g_string_truncate(m->bridge_refused, 0);
    uint64_t now = 0;
    for (guint n = 0; n < SYNCS; n++) {
        insee_error err = {0};
        m->bridge_boundary = now;
        m->bridge_in_sync = TRUE;
        uint64_t next = vt->sync(inst->self, now, &err);
        m->bridge_in_sync = FALSE;
        if (m->bridge_refused->len) {
            conform_note(f, at, "sync(%" G_GUINT64_FORMAT ") injected what the kernel refuses: %s",
                         now, m->bridge_refused->str);
            return;
        }
        if (err.code) {
            if (next != INSEE_NEVER || !err.message[0])
                conform_note(f, at, "sync(%" G_GUINT64_FORMAT ") filled err but returned %"
                             G_GUINT64_FORMAT " with message '%s'", now, next, err.message);
            return;
        }
        if (next == INSEE_NEVER)
            return;
        if (next <= now) {
            conform_note(f, at, "sync(%" G_GUINT64_FORMAT ") returned %" G_GUINT64_FORMAT
                         ", not a later boundary", now, next);
            return;
        }
        deliver_before(vt, inst->self, m, next);
        now = next;
    }
}

static conform_status check_sync(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, sync_at, NULL);
}

static const conform_check bridge_checks[] = {
    {"bridge.create", CONFORM_ERROR, "create() succeeds at the defaults (and at every choice of its enums)",
     "fill err with what is wrong; defaults must work (a server's address may come with --set)",
     check_create},
    {"bridge.sync", CONFORM_ERROR,
     "sync() from boundary 0 returns later boundaries or INSEE_NEVER, INSEE_NEVER with a message "
     "on failure, and injects only between its nodes at cycles from the boundary on",
     "return a boundary > now; on failure fill err and return INSEE_NEVER; inject with "
     "bridge_inject() inside sync() only, nodes below shape().tasks, at >= now",
     check_sync},
};

const conform_suite conform_bridge_suite =
    CONFORM_SUITE(INSEE_KIND_BRIDGE, bridge_checks, conform_validate_own, conform_instances_cleanup);
